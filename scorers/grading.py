"""Grading a recorded session: load it, profile it, run L0 / L1 / a rubric, build the records.

``grade_events`` is the pure core (events in, grade out; no database, no files) used by the
CLI, the benchmark and the demo; ``load_session`` gathers what the core needs from the mirror.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sqlite_utils import Database

from scorers import cleo_ops
from scorers.completeness import session_profile
from scorers.grader_config import GraderConfig
from scorers.guides import guide_context
from scorers.l0 import DEFAULT_IDLE_GAP_SECONDS
from scorers.registry import DEFAULT_LEVELS, RUBRICS, select
from scorers.registry import LEVELS as LEVELS
from scorers.registry import parse_levels as parse_levels
from scorers.session import EvalSettings, GradeInput, SessionGrade
from scorers.session import SessionData as SessionData
from scorers.steps import pair_events
from telemetry import queries
from telemetry.canonical import canonical
from telemetry.lifecycle import to_epoch
from trace_ingest.config import load_config
from trace_ingest.store import read_errors

__all__ = ["LEVELS", "RUBRICS", "SessionData", "SessionGrade", "grade_events", "load_session"]

HOOK_ERROR_SCAN = 100_000
WINDOW_MARGIN_S = 5.0


def eval_settings(home: str) -> dict[str, Any]:
    """The ``eval`` section of config.json, validated, with its defaults (trace_ingest.config)."""
    section = load_config(home)["eval"]
    return {
        "min_coverage": float(section["min_coverage"]),
        "idle_gap_seconds": float(section["idle_gap_seconds"]),
    }


def window_of(events: Sequence[dict[str, Any]]) -> tuple[float, float] | None:
    stamps = [t for e in events if (t := to_epoch(e.get("received_at") or e.get("ts")))]
    return (min(stamps), max(stamps)) if stamps else None


def hook_errors_during(
    home: str, harness: str, events: Sequence[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Hook errors of this harness logged inside the session's time window. The error log
    has no session id, so attribution is by time (documented in docs/grading.md)."""
    window = window_of(events)
    if window is None:
        return []
    lo, hi = window[0] - WINDOW_MARGIN_S, window[1] + WINDOW_MARGIN_S
    out = []
    for entry in read_errors(home, limit=HOOK_ERROR_SCAN):
        t = to_epoch(entry.get("ts"))
        if t is not None and lo <= t <= hi and entry.get("harness") in (harness, None):
            out.append(dict(entry))
    return out


def load_session(db: Database, ident: str, home: str) -> SessionData:
    meta = queries.resolve_session(db, ident)
    events = queries.session_timeline(db, meta["key"]).events
    outcome, task = queries.labels(db, meta["key"])
    harness = str(meta.get("harness") or "")
    return SessionData(
        key=str(meta["key"]),
        session_id=str(meta.get("session_id") or meta["key"]),
        harness=harness,
        state=str(meta.get("state") or "open"),
        events=events,
        outcome=outcome,
        task=task,
        hook_errors=hook_errors_during(home, harness, events),
        project_dir=meta.get("project_dir") or None,
        closed_at=meta.get("closed_at") or None,
    )


def canonical_events(events: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The session as graded: one event per real action in the harness's own order
    (telemetry.canonical). Events that already are canonical come back unchanged."""
    if events and all("provenance" in e for e in events):
        return list(events)
    return canonical(events).events


def grade_events(
    data: SessionData,
    config: GraderConfig,
    *,
    levels: Sequence[str] = DEFAULT_LEVELS,
    rubric: str | None = None,
    audit: cleo_ops.OpStream | None = None,
    min_coverage: float = 0.5,
    idle_gap_seconds: float = DEFAULT_IDLE_GAP_SECONDS,
    judge: str | None = None,
    home: str | None = None,
    texts: Callable[[str], str | None] | None = None,
) -> SessionGrade:
    """Grade one session's events with the registry's entries for ``levels`` and ``rubric``
    (scorers.registry.select), in table order. Pure apart from what a grader does itself (L2
    calls its judge). Raises ScorerError when a check crashes and GradeAttemptFailed when an
    attempt failed; the grade is then abandoned (nothing is written by anyone)."""
    graders = select(levels, rubric)
    # Whatever order the events arrived in, and whichever sources saw them, the session is
    # graded as one event per real action in canonical order.
    data.events = canonical_events(data.events)
    pairing = pair_events(data.events)
    attached: dict[str, str] = {}
    if data.outcome is not None:
        attached["task_outcome"] = "trail eval outcome"
    if audit is not None:
        attached["protocol_audit"] = audit.origin
    profile = session_profile(data.events, pairing, hook_errors=data.hook_errors, attached=attached)
    grade = SessionGrade(data, tuple(levels), pairing, profile, min_coverage=min_coverage)
    inp = GradeInput(
        data=data,
        pairing=pairing,
        profile=profile,
        config=config,
        settings=EvalSettings(min_coverage, idle_gap_seconds),
        audit=audit,
        guides=guide_context(data.events, data.project_dir, texts=texts),
        judge=judge,
        home=home,
    )
    for grader in graders:
        grade.results[grader.name] = grader.grade(inp)
    return grade
