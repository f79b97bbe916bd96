"""Opening the SQLite mirror: 0600 file, WAL, a busy timeout, migrations applied."""

from __future__ import annotations

import os

from sqlite_utils import Database

from telemetry.migrations import migrations
from trace_ingest.errors import StoreError
from trace_ingest.paths import FILE_MODE, db_path, ensure_home

BUSY_TIMEOUT_MS = 10_000


def open_db(home: str) -> Database:
    """Open (creating and migrating if needed) ``$TRAIL_HOME/trail.db``."""
    ensure_home(home)
    path = db_path(home)
    try:
        if not os.path.exists(path):
            # Create it ourselves so it is 0600 from the first byte; SQLite gives the -wal and
            # -shm files the same mode as the database file.
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT, FILE_MODE))
        db = Database(path, execute_plugins=False)
        db.conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        db.conn.execute("PRAGMA journal_mode = WAL")
        db.conn.execute("PRAGMA synchronous = NORMAL")
        migrations.apply(db)
    except Exception as exc:  # sqlite3.Error, OSError
        raise StoreError(f"cannot open the database {path}: {exc}") from exc
    return db
