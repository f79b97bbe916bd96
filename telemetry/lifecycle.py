"""Session lifecycle (seed 002): open while events arrive, closed by the end event or by a
sweep after ``idle_minutes`` without events, reopened by later events.

State is explicit in ``sessions.state``: ``open``, ``closed`` or ``reopened`` (open again after
having been closed). Aggregates (counts, bounds) are recomputed from the events table, so a
re-run or a rebuilt mirror gives the same numbers.
"""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any

from sqlite_utils import Database

from telemetry.db import write_transaction
from trace_ingest.events import now_iso

# Hooks registered async may deliver a few events after SessionEnd (harnesses.md §1.3: async
# hooks run in the background and may arrive out of order); those do not reopen the session.
REOPEN_GRACE_SECONDS = 10.0


# Errors are failed calls, counted once per call whichever sources saw it (a session seen by
# hooks and its transcript holds each call twice); a refused or cancelled call never ran, so
# it is not an error (docs/events.md, status).
_AGGREGATE = """
SELECT
  count(*),
  (SELECT count(DISTINCT coalesce(call_id, id)) FROM events
     WHERE session_key = ? AND (kind = 'tool_error' OR (ok = 0 AND kind != 'permission'))
     AND coalesce(json_extract(body, '$.status'), '') NOT IN ('refused', 'cancelled')),
  min(ts), max(ts)
FROM events WHERE session_key = ?
"""


def to_epoch(stamp: object) -> float | None:
    """Seconds since the epoch for an ISO 8601 time; None when absent or unparseable."""
    if not isinstance(stamp, str) or not stamp:
        return None
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def from_epoch(seconds: float) -> str:
    return now_iso(int(seconds * 1_000_000_000))


def apply(db: Database, key: str, trace_path: str, new_events: list[dict[str, Any]]) -> int:
    """Fold newly mirrored events into their session row; return how many were new."""
    conn = db.conn
    before = conn.execute("SELECT event_count FROM sessions WHERE key = ?", [key]).fetchone()
    _store_redactions(conn, key, new_events)
    agg = conn.execute(_AGGREGATE, [key, key]).fetchone()
    redacted = conn.execute(
        "SELECT coalesce(sum(count), 0) FROM redactions WHERE session_key = ?", [key]
    ).fetchone()[0]
    row = _session_row(conn, key)
    state = row.get("state") or "open"
    closed_at = row.get("closed_at")
    close_reason = row.get("close_reason")
    reopens = int(row.get("reopen_count") or 0)
    last = to_epoch(row.get("last_event_at"))
    # Event time, not arrival time: an imported session keeps the times it happened at, and
    # importing a transcript of a closed session does not reopen it.
    ordered = new_events
    if state != "closed" and not any(ev.get("kind") == "session_end" for ev in new_events):
        # No transition possible (the usual batch of an open session): only the last time.
        times = [t for t in map(to_epoch, (ev.get("ts") for ev in new_events)) if t is not None]
        if times:
            last = max(times) if last is None else max(last, max(times))
        ordered = []
    closed_epoch = to_epoch(closed_at)
    for ev in sorted(ordered, key=lambda e: str(e.get("ts") or "")):
        t = to_epoch(ev.get("ts"))
        if t is None:
            continue
        # A session start after the end is a new process resuming the session (`copilot
        # --resume`, `claude --resume`: seconds apart in the rig, docs/testing.md), never a
        # straggler of the run that ended: it reopens at once.
        resumed = ev.get("kind") == "session_start"
        if (
            state == "closed"
            and closed_epoch is not None
            and t > closed_epoch + (0.0 if resumed else REOPEN_GRACE_SECONDS)
        ):
            state, closed_at, close_reason, reopens = "reopened", None, None, reopens + 1
            closed_epoch = None
        if ev.get("kind") == "session_end" and state != "closed":
            state, closed_at, close_reason = "closed", from_epoch(t), "session_end"
            closed_epoch = to_epoch(closed_at)
        last = t if last is None else max(last, t)
    first = new_events[0]
    conn.execute(
        "INSERT INTO sessions (key, harness, session_id, project_dir, started_at, last_event_at,"
        " state, closed_at, close_reason, reopen_count, event_count, error_count,"
        " redaction_count, trace_path) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
        " ON CONFLICT(key) DO UPDATE SET started_at=excluded.started_at,"
        " last_event_at=excluded.last_event_at, state=excluded.state,"
        " closed_at=excluded.closed_at, close_reason=excluded.close_reason,"
        " reopen_count=excluded.reopen_count, event_count=excluded.event_count,"
        " error_count=excluded.error_count, redaction_count=excluded.redaction_count,"
        " project_dir=coalesce(sessions.project_dir, excluded.project_dir)",
        [
            key,
            key.split("/", 1)[0],
            row.get("session_id") or first.get("session_id") or "",
            row.get("project_dir") or _project_dir(new_events),
            agg[2],
            agg[3],
            state,
            closed_at,
            close_reason,
            reopens,
            agg[0],
            agg[1] or 0,
            redacted,
            trace_path,
        ],
    )
    return int(agg[0]) - (int(before[0]) if before else 0)


def sweep(db: Database, idle_minutes: float, now: float | None = None) -> int:
    """Close every session idle for ``idle_minutes``, in one write transaction (MirrorBusy
    when another writer keeps the lock); returns how many were closed."""
    cutoff = (time.time() if now is None else now) - idle_minutes * 60
    closed = 0
    with write_transaction(db) as conn:
        rows = conn.execute("SELECT key, last_event_at FROM sessions WHERE state != 'closed'")
        for key, last in rows.fetchall():
            t = to_epoch(last)
            if t is not None and t <= cutoff:
                conn.execute(
                    "UPDATE sessions SET state = 'closed', close_reason = 'idle', closed_at = ?"
                    " WHERE key = ?",
                    [from_epoch(t + idle_minutes * 60), key],
                )
                closed += 1
    return closed


def _session_row(conn: Any, key: str) -> dict[str, Any]:
    cur = conn.execute("SELECT * FROM sessions WHERE key = ?", [key])
    found = cur.fetchone()
    if found is None:
        return {}
    return dict(zip([c[0] for c in cur.description], found, strict=True))


def _project_dir(events: list[dict[str, Any]]) -> str | None:
    for ev in events:
        if ev.get("kind") == "session_start" and isinstance(ev.get("cwd"), str):
            return str(ev["cwd"])
    for ev in events:
        if isinstance(ev.get("cwd"), str):
            return str(ev["cwd"])
    return None


def _store_redactions(conn: Any, key: str, events: list[dict[str, Any]]) -> None:
    rows = [
        (ev["id"], key, rule, int(count))
        for ev in events
        if isinstance(ev.get("redactions"), dict)
        for rule, count in ev["redactions"].items()
    ]
    if rows:
        conn.executemany(
            "INSERT OR IGNORE INTO redactions (event_id, session_key, rule, count)"
            " VALUES (?,?,?,?)",
            rows,
        )
