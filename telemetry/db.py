"""Opening the SQLite mirror (0600 file, WAL, a busy timeout, migrations applied), and the one
way to write it: ``write_transaction``."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

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


class MirrorBusy(StoreError):
    """Another process holds the mirror's write lock."""


def begin_immediate(conn: sqlite3.Connection) -> None:
    """Take the write lock, or raise MirrorBusy when another writer keeps it (past the
    connection's busy timeout)."""
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc) or "busy" in str(exc):
            raise MirrorBusy(
                "the mirror is busy: another `trail sync` or `trail watch` is writing it"
            ) from exc
        raise


@contextmanager
def write_transaction(db: Database | sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction: ``BEGIN IMMEDIATE`` (raising MirrorBusy if the lock stays
    taken), committed on success, rolled back on any exception. Every write outside the
    sync's own batches goes through here."""
    conn = db.conn if isinstance(db, Database) else db
    begin_immediate(conn)
    try:
        yield conn
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    if conn.in_transaction:
        conn.execute("COMMIT")
