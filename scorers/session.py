"""The values every grader shares: the session as graded, what a grader is given, and the grade.

``SessionData`` is one recorded session (canonical events, labels, hook errors); ``GradeInput``
is what the registry hands each grader (scorers.registry); ``SessionGrade`` holds one result per
grader that ran, by registry name. Plain data: no database, no files.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from scorers.completeness import Profile
from scorers.grader_config import GraderConfig
from scorers.l0 import DEFAULT_IDLE_GAP_SECONDS, L0Result
from scorers.rubric_cleo import CleoResult
from scorers.steps import Pairing
from scorers.trace_grader import L1Result

if TYPE_CHECKING:
    from scorers.cleo_ops import OpStream
    from scorers.guides import GuideContext


@dataclass
class SessionData:
    """One session as the graders see it. ``events`` are canonical (one per real action, in
    the harness's own order: telemetry.canonical) once ``grade_events`` has run."""

    key: str
    session_id: str
    harness: str
    state: str  # open | closed | reopened (telemetry.lifecycle)
    events: list[dict[str, Any]]
    outcome: str | None = None  # pass | fail | None (unknown)
    task: str | None = None
    hook_errors: list[dict[str, Any]] = field(default_factory=list)
    project_dir: str | None = None
    closed_at: str | None = None

    @property
    def delivered(self) -> bool | None:
        return None if self.outcome is None else self.outcome == "pass"


@dataclass(frozen=True)
class EvalSettings:
    """The ``eval`` section of config.json, as the graders use it."""

    min_coverage: float = 0.5
    idle_gap_seconds: float = DEFAULT_IDLE_GAP_SECONDS


@dataclass
class GradeInput:
    """What a grader's ``grade`` receives.

    - ``data``: the session, its events canonical (``data.key`` is the session key);
    - ``pairing`` and ``profile``: calls paired with results, and the capability profile
      (what this session can support; scorers.completeness);
    - ``config``: the trace-grader thresholds (scorers.grader_config);
    - ``settings``: min_coverage and friends;
    - ``audit``: a CLEO operation stream attached with ``--audit`` (the cleo rubric);
    - ``guides``: the guides in the agent's context, each with the exact text in force and
      the moment it loaded (scorers.guides.GuideContext; ``guides.in_force_at(event_id)``
      gives the guides an action may be judged against). Filled for every grade;
    - ``judge``: a model named on the command line (``--judge MODEL``), else None (the
      judge reads its own configuration);
    - ``home``: the data directory ($TRAIL_HOME), for graders that keep files (L2's replay).
    """

    data: SessionData
    pairing: Pairing
    profile: Profile
    config: GraderConfig
    settings: EvalSettings = field(default_factory=EvalSettings)
    audit: OpStream | None = None
    guides: GuideContext | None = None
    judge: str | None = None
    home: str | None = None


@dataclass
class SessionGrade:
    """A graded session: one result per grader that ran, by registry name (``l0``, ``l1``,
    ``cleo``, ``l2``), in the order they ran."""

    data: SessionData
    levels: tuple[str, ...]
    pairing: Pairing
    profile: Profile
    results: dict[str, Any] = field(default_factory=dict)
    min_coverage: float = 0.5

    # Typed views of the built-in levels' results (None when that grader did not run).
    @property
    def l0(self) -> L0Result | None:
        r = self.results.get("l0")
        return r if isinstance(r, L0Result) else None

    @property
    def l1(self) -> L1Result | None:
        r = self.results.get("l1")
        return r if isinstance(r, L1Result) else None

    @property
    def cleo(self) -> CleoResult | None:
        r = self.results.get("cleo")
        return r if isinstance(r, CleoResult) else None


@dataclass(frozen=True)
class RecordCtx:
    """What a grader's ``record`` may use besides its result: the whole grade (session data,
    profile, other results), the thresholds, and the one timestamp every record of this grade
    shares."""

    grade: SessionGrade
    config: GraderConfig
    timestamp: str
