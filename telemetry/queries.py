"""Read-side queries over the mirror: sessions, one session's events, resolution of ids.

Store API contract: every function takes an open ``Database``; none writes except
``sync_and_sweep``, which every read command calls first (so reads are never stale).
"""

from __future__ import annotations

import sys
from typing import Any

import orjson
from sqlite_utils import Database

from telemetry.canonical import Canonical, canonical
from telemetry.db import open_db
from telemetry.reconcile import reconcile_closed
from telemetry.sync import SyncReport, sync
from trace_ingest.config import load_config
from trace_ingest.errors import SessionNotFound
from trace_ingest.paths import trail_home

BUSY_NOTE = (
    "another `trail sync` or `trail watch` is writing the mirror; showing what it holds so far"
)

SESSION_COLUMNS = (
    "key, harness, session_id, project_dir, started_at, last_event_at, state, closed_at,"
    " close_reason, reopen_count, event_count, error_count, redaction_count, trace_path"
)


def open_synced(home: str | None = None, *, wait: bool = False) -> tuple[Database, SyncReport]:
    """Open the mirror, catch up with every trace file, sweep idle sessions, and reconcile
    the sessions that closed with their transcripts (telemetry.reconcile)."""
    home = home or trail_home()
    config = load_config(home)
    db = open_db(home)
    idle = float(config["lifecycle"]["idle_minutes"])
    # Readers never wait on a writer: when another sync holds the lock, read what is there.
    report = sync(db, home, idle, wait=wait)
    if report.busy:
        sys.stderr.write(f"note: {BUSY_NOTE}\n")
    # Reading transcripts only appends to trace files (the DB is only read here); the sync
    # after it mirrors what they added. Skipped while another writer is busy: next time.
    if not report.busy and reconcile_closed(db, home).events_written:
        sync(db, home, idle, wait=wait)
    return db, report


def list_sessions(
    db: Database, harness: str | None = None, limit: int | None = None
) -> list[dict[str, Any]]:
    sql = f"SELECT {SESSION_COLUMNS} FROM sessions"
    params: list[Any] = []
    if harness:
        sql += " WHERE harness = ?"
        params.append(harness)
    sql += " ORDER BY last_event_at DESC"
    if limit:
        sql += f" LIMIT {int(limit)}"
    return [dict(r) for r in db.query(sql, params)]


def resolve_session(db: Database, ident: str) -> dict[str, Any]:
    """A session by key, by harness session id, or by a unique prefix of either."""
    exact = list(
        db.query(
            f"SELECT {SESSION_COLUMNS} FROM sessions WHERE key = ? OR session_id = ?",
            [ident, ident],
        )
    )
    if len(exact) == 1:
        return dict(exact[0])
    candidates = exact or list(
        db.query(
            f"SELECT {SESSION_COLUMNS} FROM sessions WHERE session_id LIKE ? OR key LIKE ?"
            " OR key LIKE ?",
            [ident + "%", ident + "%", "%/" + ident + "%"],
        )
    )
    if len(candidates) == 1:
        return dict(candidates[0])
    if not candidates:
        raise SessionNotFound(f"no session matches {ident!r} (see `trail sessions`)")
    keys = ", ".join(str(c["key"]) for c in candidates[:5])
    raise SessionNotFound(f"{ident!r} matches {len(candidates)} sessions: {keys}")


def session_events(db: Database, key: str) -> list[dict[str, Any]]:
    """Every stored event of a session, every source, as stored (schema v1). Views read
    ``session_timeline`` instead."""
    rows = db.execute(
        "SELECT body FROM events WHERE session_key = ? ORDER BY ts, received_at, file_offset",
        [key],
    ).fetchall()
    events: list[dict[str, Any]] = []
    bad = 0
    for (body,) in rows:
        try:
            ev = orjson.loads(body)
        except (orjson.JSONDecodeError, TypeError):
            ev = None
        if isinstance(ev, dict):
            events.append(ev)
        else:
            bad += 1
    if bad:  # a mirror written by an older trail, or edited by hand: say so, never crash
        sys.stderr.write(
            f"warning: skipped {bad} stored event(s) of {key} that are not JSON objects;"
            " delete trail.db and run `trail sync` to rebuild it from the traces\n"
        )
    return events


def session_timeline(db: Database, key: str) -> Canonical:
    """A session as every view reads it: one event per real action, in the harness's own
    order, both sources kept as provenance (telemetry.canonical)."""
    return canonical(session_events(db, key))


def redaction_counts(db: Database, key: str | None = None) -> dict[str, int]:
    sql = "SELECT rule, sum(count) FROM redactions"
    params: list[Any] = []
    if key:
        sql += " WHERE session_key = ?"
        params.append(key)
    sql += " GROUP BY rule ORDER BY 2 DESC"
    return {rule: int(n) for rule, n in db.execute(sql, params).fetchall()}


def quarantine(db: Database, limit: int = 20) -> list[dict[str, Any]]:
    return [
        dict(r)
        for r in db.query(
            "SELECT path, offset, reason, seen_at FROM quarantine ORDER BY seen_at DESC LIMIT ?",
            [limit],
        )
    ]
