"""A small library entry point: grade recorded sessions and append the grades to the ledger.

Used by ``trail demo`` (and anything else that wants grades without the CLI)::

    from scorers.api import grade_session
    records = grade_session("claude-code/demo-1", outcome="pass", task="demo-task")

Raises ``ScorerError`` (a TrailError) when a check crashes; nothing is written then.
"""

from __future__ import annotations

from typing import Any

from scorers import ledger
from scorers.grader_config import load_grader_config
from scorers.grading import LEVELS, eval_settings, grade_events, load_session
from telemetry import queries
from trace_ingest.events import now_iso
from trace_ingest.paths import trail_home

LABEL_COLUMNS = ("outcome", "task")


def set_label(ident: str, column: str, value: str | None, home: str | None = None) -> str:
    """Set (or, with None, clear) a session's ``outcome`` or ``task``; returns its key."""
    if column not in LABEL_COLUMNS:  # the column name is spliced into SQL below
        raise ValueError(f"unknown label {column!r}")
    db, _ = queries.open_synced(home)
    key = str(queries.resolve_session(db, ident)["key"])
    with db.conn:
        db.conn.execute(
            f"INSERT INTO session_labels (session_key, {column}, updated_at) VALUES (?,?,?)"
            f" ON CONFLICT(session_key) DO UPDATE SET {column} = excluded.{column},"
            " updated_at = excluded.updated_at",
            [key, value, now_iso()],
        )
    return key


def label_session(
    ident: str, *, outcome: str | None = None, task: str | None = None, home: str | None = None
) -> str:
    """Record a session's outcome (pass / fail) and / or task label; returns its key."""
    key = ident
    for column, value in (("outcome", outcome), ("task", task)):
        if value is not None:
            key = set_label(ident, column, value, home)
    return key


def grade_session(
    ident: str,
    *,
    rubric: str | None = None,
    config_path: str | None = None,
    outcome: str | None = None,
    task: str | None = None,
    record: bool = True,
    home: str | None = None,
) -> list[dict[str, Any]]:
    """Grade one session at L0 + L1 (and ``rubric``), append to GRADES.jsonl when ``record``,
    and return the ledger records (the same dicts `trail eval score --json` prints)."""
    home = home or trail_home()
    if outcome is not None or task is not None:
        label_session(ident, outcome=outcome, task=task, home=home)
    settings = eval_settings(home)
    config = load_grader_config(config_path)
    db, _ = queries.open_synced(home)
    data = load_session(db, ident, home)
    grade = grade_events(
        data,
        config,
        levels=LEVELS,
        rubric=rubric,
        min_coverage=settings["min_coverage"],
        idle_gap_seconds=settings["idle_gap_seconds"],
    )
    ts = now_iso()
    records = [ledger.session_record(grade, config, ts)]
    if grade.cleo is not None:
        records.append(ledger.cleo_record(grade, grade.cleo, ts))
    if record:
        ledger.append(home, records, db)
    return records
