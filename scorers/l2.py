"""L2, the judge: one judgement per closed session against the guides in the agent's context.

This module is the registry's ``l2`` entry (``GRADER``). The judge proper lives in
``scorers.judge`` (its input with ``[E12]`` event ids, the token budget and fencing; the facts
schema; the deterministic verdict rules; the ``llm`` providers and the ``replay:FILE`` model;
calibration). The frame around it:

- ``grade(inp: GradeInput) -> L2Result``: ``inp.data.events`` is the canonical session,
  ``inp.guides`` its guides (``inp.guides.judgeable()``: every version with text;
  ``inp.guides.in_force_at(event_id)``: what one action may be judged against),
  ``inp.data.key`` the session key, ``inp.config`` / ``inp.settings`` the configuration and
  ``inp.judge`` a ``--judge MODEL`` override. A session with nothing to judge returns
  ``L2Result(nothing_reason=...)`` (an intentionally empty grade). A failed attempt raises a
  ``trace_ingest.errors.GradeAttemptFailed`` subclass (NoProvider, ProviderQuota,
  ProviderUnreachable, MalformedAnswer): nothing is written and the session stays queued.
- ``record``: ``scorers.ledger.l2_record``; ``render``: ``scorers.report.render_l2``.

The judge is ``inp.judge`` (``--judge MODEL``), else ``judge.model`` from config.json; with
neither, an attempt that needs a call raises NoProvider. Each judged session records its
judge's calibration state at that moment (``scorers.judge.calibration.verification``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from scorers import ledger, report
from scorers.judge.judge_input import PROMPT_VERSION
from scorers.registry import Kind, When
from scorers.session import GradeInput, RecordCtx
from scorers.verdicts import L2Result

if TYPE_CHECKING:
    from scorers.guides import Guide
    from scorers.judge.judge_input import GuideInContext

VERSION = f"trail-L2/1 ({PROMPT_VERSION})"


@dataclass(frozen=True)
class L2Grader:
    name: str = "l2"
    level: str = "L2"
    version: str = VERSION
    requires: frozenset[str] = frozenset({"tool_names"})
    when: When = "closed"
    kind: Kind = "level"
    rubric: str = ledger.L2_RUBRIC

    def grade(self, inp: GradeInput) -> L2Result:
        return judge(inp)

    def record(self, result: Any, ctx: RecordCtx) -> dict[str, Any]:
        assert isinstance(result, L2Result)
        return ledger.l2_record(ctx.grade, result, ctx.timestamp)

    def render(self, result: Any, record: dict[str, Any]) -> list[str]:
        assert isinstance(result, L2Result)
        return report.render_l2(result, record)


GRADER = L2Grader()


def in_context(guide: Guide) -> GuideInContext:
    """A guide of ``scorers.guides`` as the judge's input names it: in force from the E number
    of the event that loaded it (``position`` is 0-based, E numbers 1-based)."""
    from scorers.judge.judge_input import GuideInContext

    return GuideInContext(
        key=guide.name,
        version=guide.version,
        text=guide.text or "",
        kind=guide.kind,
        loaded_at=guide.position + 1,
    )


def judge(inp: GradeInput) -> L2Result:
    """Judge one closed session (see the module docstring)."""
    from scorers.judge.calibration import verification
    from scorers.judge.judge import judge_session, judge_settings
    from trace_ingest.paths import trail_home

    home = inp.home or trail_home()
    settings = judge_settings(home)
    guides = inp.guides.judgeable() if inp.guides is not None else []
    judged = judge_session(
        inp.data.key,
        inp.data.events,
        [in_context(g) for g in guides],
        inp.judge or settings.model,
        settings,
        unreadable=[g.name for g in inp.guides.unreadable] if inp.guides is not None else [],
    )
    status = None
    if judged.judge.get("called"):
        status = verification(
            home,
            str(judged.judge["model"]),
            judged.judge.get("replay_sha256"),
            judged.judge.get("spec"),
        )
    return judged.result(status, inp.guides.as_list() if inp.guides is not None else [])
