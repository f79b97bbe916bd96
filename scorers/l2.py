"""L2, the judge: one judgement per closed session against the guides in the agent's context.

This module is the registry's ``l2`` entry (``GRADER``). The judge proper (its prompt with
``[E12]`` event ids, the token budget, fencing, the facts schema, the deterministic verdicts,
the ``llm`` providers and the ``replay:FILE`` model) is built here by the judge's owner; the
frame around it is fixed:

- ``grade(inp: GradeInput) -> L2Result``: ``inp.data.events`` is the canonical session,
  ``inp.guides`` its guides (``inp.guides.judgeable()``: every version with text;
  ``inp.guides.in_force_at(event_id)``: what one action may be judged against),
  ``inp.data.key`` the session key, ``inp.config`` / ``inp.settings`` the configuration and
  ``inp.judge`` a ``--judge MODEL`` override. A session with nothing to judge returns
  ``L2Result(nothing_reason=...)`` (an intentionally empty grade). A failed attempt raises a
  ``trace_ingest.errors.GradeAttemptFailed`` subclass (NoProvider, ProviderQuota,
  ProviderUnreachable, MalformedAnswer): nothing is written and the session stays queued.
- ``record``: ``scorers.ledger.l2_record``; ``render``: ``scorers.report.render_l2``.

Until the judge lands, ``grade`` raises NoProvider.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scorers import ledger, report
from scorers.registry import Kind, When
from scorers.session import GradeInput, RecordCtx
from scorers.verdicts import L2Result
from trace_ingest.errors import NoProvider

VERSION = "trail-L2/0 (frame only)"


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
        raise NoProvider("no judge is available yet: L2 needs a judge model (scorers.l2)")

    def record(self, result: Any, ctx: RecordCtx) -> dict[str, Any]:
        assert isinstance(result, L2Result)
        return ledger.l2_record(ctx.grade, result, ctx.timestamp)

    def render(self, result: Any, record: dict[str, Any]) -> list[str]:
        assert isinstance(result, L2Result)
        return report.render_l2(result, record)


GRADER = L2Grader()
