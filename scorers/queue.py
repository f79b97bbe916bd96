"""The grading lifecycle of the graders that judge closed sessions (L2), per seed 002.

- A session is graded once when it closes (``run_queue``, which ``trail watch`` runs).
- Actions that arrive later reopen it; its grade no longer matches what it holds (the
  grade records a fingerprint of the events it judged), so it is due again once it closes.
- It stays gradeable for ``WINDOW_SECONDS`` (24 h) after it closed, never after. The window
  runs from the later of its close and the last time trail received one of its events (an
  imported session closed long ago is gradeable for 24 h from its import).
- States (``state_of``): ``open`` (still running; graded when it closes), ``graded`` (its
  grade matches its contents; an intentionally empty grade is ``graded`` too), ``not graded
  yet`` (closed, grade missing or out of date, inside the window) and ``not graded`` (the same
  past the window: permanent).
- A failed attempt (``GradeAttemptFailed``: no provider, quota, network, a malformed answer)
  writes nothing and leaves the session queued. There is no attempt counter: the queue tries
  every due session on every run.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlite_utils import Database

from scorers.registry import GRADERS
from telemetry import queries
from telemetry.lifecycle import from_epoch, to_epoch
from trace_ingest.errors import ScorerError

WINDOW_SECONDS = 24 * 3600.0
OPEN, GRADED, NOT_GRADED_YET, NOT_GRADED = "open", "graded", "not graded yet", "not graded"
STATES = (OPEN, GRADED, NOT_GRADED_YET, NOT_GRADED)
NOT_GRADEABLE = (OPEN, NOT_GRADED)  # what no attempt may grade now


class NotGradeable(ScorerError):
    """A grader that judges closed sessions was asked for one that is open, or whose grading
    window has passed (seed 002: never graded after 24 h)."""


@dataclass(frozen=True)
class SessionState:
    """Where one session stands for one closed-session grader (``rubric``)."""

    key: str
    rubric: str
    state: str  # STATES
    closed_at: str | None
    window_ends: str | None
    grade: dict[str, Any] | None  # the current grade (state graded), else the stale one, if any
    reason: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "session": self.key,
            "rubric": self.rubric,
            "state": self.state,
            "closedAt": self.closed_at,
            "windowEnds": self.window_ends,
            "gradeId": None if self.grade is None else self.grade.get("gradeId"),
            "reason": self.reason,
        }


def closed_rubrics() -> list[str]:
    """The ledger rubrics of the registry's closed-session graders (``l2``)."""
    return [g.rubric for g in GRADERS.values() if g.when == "closed"]


def state_of(db: Database, key: str, rubric: str = "l2", now: float | None = None) -> SessionState:
    """The lifecycle state of session ``key`` for ``rubric``."""
    now = time.time() if now is None else now
    row = db.execute("SELECT state, closed_at FROM sessions WHERE key = ?", [key]).fetchone()
    state, closed_at = (row[0], row[1]) if row else ("open", None)
    grade = queries.latest_grade(db, key, rubric)
    if state != "closed":
        why = "reopened by later actions" if state == "reopened" else "still open"
        return SessionState(key, rubric, OPEN, None, None, grade, f"{why}; graded when it closes")
    anchors = [t for t in (to_epoch(closed_at), to_epoch(queries.last_received(db, key))) if t]
    ends = max(anchors) + WINDOW_SECONDS if anchors else None
    window_ends = None if ends is None else from_epoch(ends)
    if grade is not None and grade.get("contents") == queries.session_fingerprint(db, key):
        return SessionState(key, rubric, GRADED, closed_at, window_ends, grade, "graded")
    what = "its grade is out of date" if grade is not None else "no grade yet"
    if ends is not None and now <= ends:
        return SessionState(
            key, rubric, NOT_GRADED_YET, closed_at, window_ends, grade, f"{what}; queued"
        )
    return SessionState(
        key,
        rubric,
        NOT_GRADED,
        closed_at,
        window_ends,
        grade,
        f"{what}; the 24 h grading window closed {window_ends or 'long ago'}: never graded",
    )


def _window_open(db: Database, key: str, closed_at: str | None, now: float) -> bool:
    anchors = [t for t in (to_epoch(closed_at), to_epoch(queries.last_received(db, key))) if t]
    return bool(anchors) and now <= max(anchors) + WINDOW_SECONDS


def pending(db: Database, now: float | None = None) -> list[SessionState]:
    """Every closed session due for grading (``not graded yet``), oldest close first."""
    now = time.time() if now is None else now
    out = []
    keys = [
        str(key)
        for key, closed_at in db.execute(
            "SELECT key, closed_at FROM sessions WHERE state = 'closed' ORDER BY closed_at, key"
        ).fetchall()
        # Past its window a session can never be due: skip it before hashing its contents
        # (one index lookup for its last receipt; the sweep runs this every interval).
        if _window_open(db, str(key), closed_at, now)
    ]
    for rubric in closed_rubrics():
        for key in keys:
            st = state_of(db, key, rubric, now)
            if st.state == NOT_GRADED_YET:
                out.append(st)
    return out


@dataclass
class QueueReport:
    graded: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)  # (session, why): still queued

    def as_dict(self) -> dict[str, Any]:
        return {
            "graded": self.graded,
            "failed": [{"session": k, "reason": why} for k, why in self.failed],
        }


def run_queue(
    db: Database,
    home: str,
    *,
    judge: str | None = None,
    now: float | None = None,
    echo: Callable[[str], None] | None = None,
) -> QueueReport:
    """Grade every due session once with the closed-session graders. A failed attempt is
    reported and leaves the session queued; nothing is written for it."""
    from scorers.api import grade_and_record  # the entry point imports this module

    report = QueueReport()
    levels = tuple(dict.fromkeys(g.level for g in GRADERS.values() if g.when == "closed"))
    for st in pending(db, now):
        try:
            grade_and_record(db, home, st.key, levels=levels, judge=judge, now=now)
        except Exception as exc:
            # GradeAttemptFailed (retry later), a crashed check (ScorerError) or an unexpected
            # error: nothing was written, and `trail watch` must outlive one bad session.
            report.failed.append((st.key, f"{type(exc).__name__}: {exc}"))
            if echo:
                echo(f"not graded yet {st.key}: {exc} (stays queued)")
            continue
        report.graded.append(st.key)
        if echo:
            echo(f"graded {st.key}")
    return report
