"""Grading a recorded session: load it, profile it, run L0 / L1 / a rubric, build the records.

``grade_events`` is the pure core (events in, grade out; no database, no files) used by the
CLI, the benchmark and the demo; ``load_session`` gathers what the core needs from the mirror.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlite_utils import Database

from scorers import cleo_ops
from scorers.completeness import Profile, session_profile
from scorers.grader_config import GraderConfig
from scorers.l0 import DEFAULT_IDLE_GAP_SECONDS, L0Result, grade_l0
from scorers.rubric_cleo import CleoResult, grade_cleo
from scorers.steps import Pairing, Run, pair_events
from scorers.trace_grader import L1Result, grade_run
from telemetry import queries
from telemetry.canonical import canonical
from telemetry.lifecycle import to_epoch
from trace_ingest.config import load_config
from trace_ingest.errors import ScorerError
from trace_ingest.store import read_errors

LEVELS = ("L0", "L1")
RUBRICS = ("cleo",)
HOOK_ERROR_SCAN = 100_000
WINDOW_MARGIN_S = 5.0


@dataclass
class SessionData:
    key: str
    session_id: str
    harness: str
    state: str
    events: list[dict[str, Any]]
    outcome: str | None = None  # pass | fail | None (unknown)
    task: str | None = None
    hook_errors: list[dict[str, Any]] = field(default_factory=list)

    @property
    def delivered(self) -> bool | None:
        return None if self.outcome is None else self.outcome == "pass"


@dataclass
class SessionGrade:
    data: SessionData
    levels: tuple[str, ...]
    pairing: Pairing
    profile: Profile
    l0: L0Result | None = None
    l1: L1Result | None = None
    cleo: CleoResult | None = None
    min_coverage: float = 0.5


def eval_settings(home: str) -> dict[str, Any]:
    """The ``eval`` section of config.json (min_coverage and friends)."""
    section = load_config(home).get("eval") or {}
    return {
        "min_coverage": float(section.get("min_coverage", 0.5)),
        "idle_gap_seconds": float(section.get("idle_gap_seconds", DEFAULT_IDLE_GAP_SECONDS)),
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


def labels(db: Database, key: str) -> tuple[str | None, str | None]:
    row = db.execute(
        "SELECT outcome, task FROM session_labels WHERE session_key = ?", [key]
    ).fetchone()
    if row is None:
        return None, None
    outcome = row[0] if row[0] in ("pass", "fail") else None
    return outcome, row[1] or None


def load_session(db: Database, ident: str, home: str) -> SessionData:
    meta = queries.resolve_session(db, ident)
    events = queries.session_timeline(db, meta["key"]).events
    outcome, task = labels(db, meta["key"])
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
    )


def canonical_events(events: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The session as graded: one event per real action in the harness's own order
    (telemetry.canonical). Events that already are canonical come back unchanged."""
    if events and all("provenance" in e for e in events):
        return list(events)
    return canonical(events).events


def parse_levels(text: str | None) -> tuple[str, ...]:
    if not text:
        return LEVELS
    wanted = tuple(p.strip().upper() for p in text.split(",") if p.strip())
    bad = [p for p in wanted if p not in LEVELS]
    if bad:
        raise ScorerError(
            f"unknown level(s) {', '.join(bad)}; choose from {', '.join(LEVELS)} "
            "(L2, the judge, is not part of this grader)"
        )
    return wanted


def grade_events(
    data: SessionData,
    config: GraderConfig,
    *,
    levels: Sequence[str] = LEVELS,
    rubric: str | None = None,
    audit: cleo_ops.OpStream | None = None,
    min_coverage: float = 0.5,
    idle_gap_seconds: float = DEFAULT_IDLE_GAP_SECONDS,
) -> SessionGrade:
    """Grade one session's events. Raises ScorerError when a check crashes."""
    if rubric is not None and rubric not in RUBRICS:
        raise ScorerError(f"unknown rubric {rubric!r}; known: {', '.join(RUBRICS)}")
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
    if "L0" in levels:
        grade.l0 = grade_l0(
            data.events, pairing, profile, data.hook_errors, min_coverage, idle_gap_seconds
        )
    if "L1" in levels:
        run = Run(
            run_id=data.session_id,
            steps=pairing.steps,
            delivered=data.delivered,
            task=data.task,
            source="hook",
            session_key=data.key,
            session_id=data.session_id,
        )
        grade.l1 = grade_run(run, config, profile, min_coverage)
    if rubric == "cleo":
        streams = []
        if data.events or audit is None:
            streams.append(cleo_ops.tool_stream(pairing.steps, data.events, profile))
        if audit is not None:
            streams.append(audit)
        stream = cleo_ops.merge(streams)
        grade.cleo = grade_cleo(
            stream, session_open=data.state != "closed", min_coverage=min_coverage
        )
    return grade
