"""The one grading entry point: grade a recorded session and append the grades to the ledger.

Used by ``trail eval score``, ``trail eval gate``, ``trail demo``, the grading queue
(``trail watch``) and, later, the dashboard::

    from scorers.api import grade_and_record
    graded = grade_and_record(db, home, "claude-code/demo-1", levels=("L0", "L1"))
    graded.records   # the ledger entries written (the dicts `eval score --json` prints)
    graded.render()  # the session report

Raises ``ScorerError`` (a TrailError) when a check crashes, ``NotGradeable`` when only graders
that need a closed session (L2) are asked for one that is open or past its grading window
(asked beside L0 / L1, they are skipped and listed in ``Graded.not_graded``), and
``GradeAttemptFailed`` when an attempt failed (no provider, quota, network, a malformed
answer). Nothing is written in any of those cases.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlite_utils import Database

from scorers import cleo_ops, ledger, queue, report
from scorers.grader_config import GraderConfig, load_grader_config
from scorers.grading import eval_settings, grade_events, load_session, window_of
from scorers.registry import DEFAULT_LEVELS, Grader, merge_records, select
from scorers.session import RecordCtx, SessionGrade
from telemetry import guide_store, queries
from trace_ingest.events import now_iso
from trace_ingest.paths import trail_home

AUDIT_MARGIN_S = 60.0


@dataclass
class Graded:
    """One graded session: the grade, the ledger entries, and each grader with its record."""

    grade: SessionGrade
    records: list[dict[str, Any]]
    parts: list[tuple[Grader, dict[str, Any]]] = field(default_factory=list)
    # Closed-session graders (L2) asked for beside others, skipped: the session is open or
    # past its window (scorers.queue states "open" / "not graded").
    not_graded: list[queue.SessionState] = field(default_factory=list)

    def render(self) -> str:
        """The session report: each ledger entry with the lines of the graders in it."""
        blocks = []
        for rec in self.records:
            lines: list[str] = []
            for grader, _ in self.parts:
                if grader.rubric == rec["rubric"]:
                    lines += grader.render(self.grade.results[grader.name], rec)
            if "levels" in rec:
                lines = report.render_header(rec) + lines + report.render_footer(rec)
            blocks.append("\n".join(lines))
        for st in self.not_graded:
            blocks.append(f"{report.RULE}\n{st.rubric.upper()}: {st.state} ({st.reason})")
        return "\n".join(blocks)


def build_records(
    grade: SessionGrade, config: GraderConfig, graders: Sequence[Grader], ts: str | None = None
) -> tuple[list[dict[str, Any]], list[tuple[Grader, dict[str, Any]]]]:
    """Each grader's record of ``grade``, and the merged ledger entries."""
    ctx = RecordCtx(grade, config, ts or now_iso())
    parts = [(g, g.record(grade.results[g.name], ctx)) for g in graders if g.name in grade.results]
    return merge_records(parts), parts


def grade_and_record(
    db: Database,
    home: str,
    ident: str,
    *,
    levels: Sequence[str] = DEFAULT_LEVELS,
    rubric: str | None = None,
    config: GraderConfig | None = None,
    audit: str | None = None,
    audit_session: str | None = None,
    judge: str | None = None,
    record: bool = True,
    now: float | None = None,
) -> Graded:
    """Grade session ``ident`` with the registry entries for ``levels`` and ``rubric`` and,
    when ``record``, append the entries to GRADES.jsonl and its mirror.

    A grader whose ``when`` is ``closed`` (L2) runs only on a closed session inside its
    grading window (scorers.queue); its entry carries the fingerprint of the contents it
    judged, so a session reopened by later actions is due again."""
    config = config or load_grader_config(None)
    settings = eval_settings(home)
    graders = select(levels, rubric)
    meta = queries.resolve_session(db, ident)
    key = str(meta["key"])
    closed_only = [g for g in graders if g.when == "closed"]
    not_graded: list[queue.SessionState] = []
    if closed_only:
        blocked = [
            st
            for g in closed_only
            if (st := queue.state_of(db, key, g.rubric, now)).state in queue.NOT_GRADEABLE
        ]
        if blocked and len(closed_only) == len(graders):
            raise queue.NotGradeable(f"{key}: {blocked[0].state}: {blocked[0].reason}")
        if blocked:
            # L0 / L1 asked for too: grade those, and say why L2 was not.
            not_graded = blocked
            graders = [g for g in graders if g.when != "closed"]
            levels = tuple(lv for lv in levels if any(g.level == lv for g in graders))
            closed_only = []
        else:
            guide_store.record_guides(db, home, key)
    data = load_session(db, key, home)
    stream = None
    if audit:
        window = window_of(data.events)
        if window is not None:
            window = (window[0] - AUDIT_MARGIN_S, window[1] + AUDIT_MARGIN_S)
        stream = cleo_ops.load_audit(audit, audit_session, None if audit_session else window)
    contents = queries.session_fingerprint(db, key) if closed_only else None
    grade = grade_events(
        data,
        config,
        levels=levels,
        rubric=rubric,
        audit=stream,
        min_coverage=settings["min_coverage"],
        idle_gap_seconds=settings["idle_gap_seconds"],
        judge=judge,
        home=home,
    )
    records, parts = build_records(grade, config, graders)
    for rec in records:
        if any(g.rubric == rec["rubric"] for g in closed_only):
            rec["contents"] = contents
    if record:
        ledger.append(home, records, db)
    return Graded(grade, records, parts, not_graded)


def set_label(ident: str, column: str, value: str | None, home: str | None = None) -> str:
    """Set (or, with None, clear) a session's ``outcome`` or ``task``; returns its key."""
    db, _ = queries.open_synced(home)
    key = str(queries.resolve_session(db, ident)["key"])
    queries.set_label(db, key, column, value)
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
    db, _ = queries.open_synced(home)
    graded = grade_and_record(
        db, home, ident, rubric=rubric, config=load_grader_config(config_path), record=record
    )
    return graded.records
