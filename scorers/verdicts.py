"""L2's result: seed 002's two verdict vocabularies, and what a judgement records about itself.

The judge (scorers.l2) turns the model's facts into an ``L2Result`` deterministically; the
ledger, the report, the grading queue and the alignment rates read only this shape.

- A **guide** gets one verdict per session: ``aligned``, ``misaligned`` or ``not_applicable``
  (shown as "Not engaged").
- An **action** (an event id) gets one verdict, read off the citations: ``aligned``,
  ``misaligned`` or ``unguided``.

``not_applicable`` never reaches an action and ``unguided`` never reaches a guide. An action
with no ``ActionVerdict`` was not judged (cut by the token budget, say); it is not unguided.
A judgement that could not run is not an ``L2Result`` at all: the judge raises
``trace_ingest.errors.GradeAttemptFailed`` and nothing is written.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

GUIDE_VERDICTS = ("aligned", "misaligned", "not_applicable")
ACTION_VERDICTS = ("aligned", "misaligned", "unguided")
NOT_ENGAGED = "Not engaged"  # how not_applicable is shown


@dataclass(frozen=True)
class GuideVerdict:
    """One guide's verdict over the session. ``guide`` and ``version`` name the guide as
    ``scorers.guides.Guide`` does (its display name and content hash); ``evidence`` are the
    event ids the judge cited for it; ``reason`` its one-line explanation."""

    guide: str
    version: str
    verdict: str  # GUIDE_VERDICTS
    evidence: tuple[str, ...] = ()
    reason: str = ""

    def __post_init__(self) -> None:
        if self.verdict not in GUIDE_VERDICTS:
            raise ValueError(f"not a guide verdict: {self.verdict!r}")

    def as_dict(self) -> dict[str, Any]:
        return {
            "guide": self.guide,
            "version": self.version,
            "verdict": self.verdict,
            "evidence": list(self.evidence),
            "reason": self.reason,
        }


@dataclass(frozen=True)
class ActionVerdict:
    """One judged action: its event id, its verdict, and the guides whose citations made it
    (empty for ``unguided``)."""

    event: str
    verdict: str  # ACTION_VERDICTS
    guides: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.verdict not in ACTION_VERDICTS:
            raise ValueError(f"not an action verdict: {self.verdict!r}")

    def as_dict(self) -> dict[str, Any]:
        return {"event": self.event, "verdict": self.verdict, "guides": list(self.guides)}


@dataclass(frozen=True)
class JudgeInfo:
    """Who judged and at what cost. ``verified``: the model passed calibration (True), failed
    it (False), or has none (None); only True counts as verified. ``replayed``: the answer
    came from recorded responses (the ``replay:FILE`` model), not a live model."""

    model: str
    prompt_version: str = ""
    prompt_sha256: str = ""
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None
    verified: bool | None = None
    calibration: str = ""  # e.g. "balanced accuracy 0.91 on 24 sessions (2026-12-01)"
    replayed: bool = False
    # What else the judge records about the call (scorers.judge.judge): input hash, replay
    # file hash, cost source, duration, citations it ignored, what the budget cut.
    details: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "promptVersion": self.prompt_version,
            "promptSha256": self.prompt_sha256,
            "inputTokens": self.input_tokens,
            "outputTokens": self.output_tokens,
            "costUsd": self.cost_usd,
            "verified": self.verified,
            "calibration": self.calibration,
            "replayed": self.replayed,
            "details": dict(self.details),
        }


@dataclass
class L2Result:
    """A finished L2 judgement of one session.

    ``nothing_reason`` set (with no verdicts) is seed 002's intentional empty grade: the
    session had nothing to judge (only skill loads, or no actions left). ``cut`` lists what the
    token budget left out of the judge's input (each ``{"event": id, "why": ...}`` or
    ``{"guide": name, "why": ...}``): those actions stay unjudged.
    """

    guides: list[GuideVerdict] = field(default_factory=list)
    actions: list[ActionVerdict] = field(default_factory=list)
    judge: JudgeInfo | None = None
    cut: list[dict[str, Any]] = field(default_factory=list)
    nothing_reason: str | None = None
    guides_in_context: list[dict[str, Any]] = field(default_factory=list)

    @property
    def verdict(self) -> str:
        """The ledger's one-word summary: ``nothing-to-grade`` for the empty grade,
        ``misaligned`` when any guide was broken, ``aligned`` when any was followed and none
        broken, else ``not-engaged`` (every guide not_applicable, or no guide in context)."""
        if self.nothing_reason is not None:
            return "nothing-to-grade"
        seen = {g.verdict for g in self.guides}
        if "misaligned" in seen:
            return "misaligned"
        if "aligned" in seen:
            return "aligned"
        return "not-engaged"

    def as_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "guides": [g.as_dict() for g in self.guides],
            "actions": [a.as_dict() for a in self.actions],
            "judge": None if self.judge is None else self.judge.as_dict(),
            "cut": list(self.cut),
            "nothingToGrade": self.nothing_reason,
            "guidesInContext": list(self.guides_in_context),
        }


def result_from_dict(body: dict[str, Any]) -> L2Result:
    """An ``L2Result`` back from its ``as_dict`` form (the ledger's ``l2`` section)."""
    judge = body.get("judge") or None
    return L2Result(
        guides=[
            GuideVerdict(
                str(g["guide"]),
                str(g["version"]),
                str(g["verdict"]),
                tuple(g.get("evidence") or ()),
                str(g.get("reason") or ""),
            )
            for g in body.get("guides") or ()
        ],
        actions=[
            ActionVerdict(str(a["event"]), str(a["verdict"]), tuple(a.get("guides") or ()))
            for a in body.get("actions") or ()
        ],
        judge=None
        if not isinstance(judge, dict)
        else JudgeInfo(
            model=str(judge.get("model") or ""),
            prompt_version=str(judge.get("promptVersion") or ""),
            prompt_sha256=str(judge.get("promptSha256") or ""),
            input_tokens=judge.get("inputTokens"),
            output_tokens=judge.get("outputTokens"),
            cost_usd=judge.get("costUsd"),
            verified=judge.get("verified"),
            calibration=str(judge.get("calibration") or ""),
            replayed=bool(judge.get("replayed")),
            details=dict(judge.get("details") or {}),
        ),
        cut=list(body.get("cut") or ()),
        nothing_reason=body.get("nothingToGrade"),
        guides_in_context=list(body.get("guidesInContext") or ()),
    )
