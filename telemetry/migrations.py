"""The SQLite schema: defined here and only here, as ``sqlite_utils.Migrations``.

The database is a rebuildable mirror of the ``trace.jsonl`` files; dropping it loses nothing.
"""

from __future__ import annotations

from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

migrations = Migrations("trail")


@migrations()
def m001_initial(db: Database) -> None:
    db.table("sessions").create(
        {
            "key": str,  # "<harness>/<directory key>" — derived from the trace path, never raw ids
            "harness": str,
            "session_id": str,
            "project_dir": str,
            "started_at": str,
            "last_event_at": str,
            "state": str,  # open | closed | reopened
            "closed_at": str,
            "close_reason": str,  # session_end | idle
            "reopen_count": int,
            "event_count": int,
            "error_count": int,
            "redaction_count": int,
            "trace_path": str,
        },
        pk="key",
        not_null={"harness", "state"},
        defaults={
            "state": "open",
            "reopen_count": 0,
            "event_count": 0,
            "error_count": 0,
            "redaction_count": 0,
        },
    )
    db.table("events").create(
        {
            "id": str,
            "session_key": str,
            "harness": str,
            "source": str,
            "kind": str,
            "ts": str,
            "received_at": str,
            "hook_event": str,
            "tool_name": str,
            "tool": str,
            "call_id": str,
            "path": str,
            "ok": int,
            "duration_ms": float,
            "agent_id": str,
            "file_offset": int,
            "body": str,
        },
        pk="id",
    )
    db.table("events").create_index(["session_key", "received_at"])
    db.table("redactions").create(
        {"event_id": str, "session_key": str, "rule": str, "count": int},
        pk=("event_id", "rule"),
    )
    db.table("redactions").create_index(["session_key"])
    db.table("trace_files").create(
        {
            "path": str,
            "session_key": str,
            "offset": int,
            "inode": int,
            "lines": int,
            "malformed": int,
            "synced_at": str,
        },
        pk="path",
    )
    db.table("quarantine").create(
        {
            "path": str,
            "offset": int,
            "length": int,
            "reason": str,
            "preview": str,
            "seen_at": str,
        },
        pk=("path", "offset"),
    )
    db.table("session_labels").create(
        {"session_key": str, "outcome": str, "task": str, "updated_at": str},
        pk="session_key",
    )


@migrations()
def m002_grades(db: Database) -> None:
    # Mirror of $TRAIL_HOME/GRADES.jsonl (scorers.ledger); rebuilt from the ledger on read.
    db.table("grades").create(
        {
            "id": str,  # gradeId
            "session_key": str,
            "session_id": str,
            "rubric": str,  # trace-grader | cleo
            "rubric_version": str,
            "verdict": str,
            "total_score": float,
            "max_score": float,
            "coverage": float,
            "config_sha256": str,
            "config_verified": int,
            "timestamp": str,
            "body": str,  # the full ledger entry (JSON)
        },
        pk="id",
    )
    db.table("grades").create_index(["session_key", "timestamp"])


@migrations()
def m003_events_by_time(db: Database) -> None:
    # Sessions and timelines are ordered by event time (ts), which importers set in the past.
    db.table("events").create_index(["session_key", "ts"])


@migrations()
def m004_trace_fingerprints(db: Database) -> None:
    # What a trace file looked like when it was last mirrored, so a sync can tell a file that
    # grew from one that was truncated, replaced or edited in place (telemetry.sync).
    table = db.table("trace_files")
    table.add_column("mtime_ns", int)
    table.add_column("head_hash", str)  # blake2b of the first bytes (up to 64 KiB)
    table.add_column("tail_hash", str)  # blake2b of the 64 KiB before the offset
    table.add_column("full_hash", str)  # blake2b of everything mirrored (files up to 8 MiB)


@migrations()
def m005_forget_glued_rows(db: Database) -> None:
    # Until now, a torn line's recovered event was stored with the torn bytes in front of it,
    # so its body was not JSON. Forget every file that produced such a row: the next sync
    # re-reads it from the start, storing each recovered event as exactly its own JSON.
    keys = [
        r[0]
        for r in db.execute(
            "SELECT DISTINCT session_key FROM events WHERE NOT json_valid(body)"
        ).fetchall()
    ]
    for key in keys:
        db.execute("DELETE FROM events WHERE session_key = ?", [key])
        db.execute("DELETE FROM redactions WHERE session_key = ?", [key])
        db.execute("DELETE FROM sessions WHERE key = ?", [key])
        db.execute(
            "DELETE FROM quarantine WHERE path IN"
            " (SELECT path FROM trace_files WHERE session_key = ?)",
            [key],
        )
        db.execute("DELETE FROM trace_files WHERE session_key = ?", [key])


@migrations()
def m006_guides_and_verdicts(db: Database) -> None:
    # Guide snapshots (seed 002, guides in context): one row per version, the scrubbed text in
    # $TRAIL_HOME/guides/<version>.txt (0600); rebuilt from the traces' guide_loaded events.
    db.table("guide_versions").create(
        {
            "version": str,  # sha256 of the stored (scrubbed) text
            "name": str,  # display name when first seen (scorers.guides.guide_name)
            "kind": str,  # rule | skill
            "path": str,  # the file as first loaded
            "bytes": int,
            "first_seen": str,  # ts of the first load
        },
        pk="version",
    )
    # Which guide reached which session, and when (one row per load event).
    db.table("session_guides").create(
        {
            "session_key": str,
            "event_id": str,
            "name": str,
            "version": str,  # "" when the text was not captured
            "kind": str,
            "path": str,
            "ts": str,
            "reason": str,
        },
        pk=("session_key", "event_id", "name"),
    )
    db.table("session_guides").create_index(["name", "version"])
    # L2's verdict rows, one per guide / action of an L2 grade (mirror of GRADES.jsonl's l2
    # entries). A failed grading attempt writes none: absence stays absence.
    db.table("guide_verdicts").create(
        {"grade_id": str, "session_key": str, "guide": str, "version": str, "verdict": str},
        pk=("grade_id", "guide", "version"),
    )
    db.table("guide_verdicts").create_index(["guide", "version"])
    db.table("action_verdicts").create(
        {"grade_id": str, "session_key": str, "event_id": str, "verdict": str},
        pk=("grade_id", "event_id"),
    )
