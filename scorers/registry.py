"""The grader registry: every level and rubric profile is one entry, not a branch.

A grader (``Grader``) has a ``name`` (its key in ``GRADERS``), a ``level`` (L0, L1, L2), a
``version``, the capabilities it ``requires`` (informational: each check inside still applies
the completeness rule itself), ``when`` it may run (``any`` time, or only once the session is
``closed``: L2), a ``kind`` (``level``: chosen with ``--level``; ``rubric``: with
``--rubric``), the ``rubric`` its ledger record is written under, and three functions:

- ``grade(inp: GradeInput) -> result``: pure; raises ``ScorerError`` when it cannot grade
  (a crashing check) or ``GradeAttemptFailed`` when an attempt failed and should be retried
  (no provider, quota, network, a malformed answer): nothing is written either way;
- ``record(result, ctx: RecordCtx) -> dict``: its ledger entry (GRADES.jsonl). Graders that
  share a ``rubric`` write one entry: ``merge_records`` folds them, the later (higher)
  level giving the headline (verdict, score, coverage, flags), levels / dimensions / atoms
  accumulating in order;
- ``render(result, record) -> list[str]``: its lines of the session report.

``GRADERS`` is the table; ``LEVELS`` and ``RUBRICS`` (the CLI's choices) come from it. L2's
entry is the judge in ``scorers.l2`` (imported only when L2 is asked for).
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from scorers import cleo_ops, ledger, report
from scorers.l0 import grade_l0
from scorers.rubric_cleo import RUBRIC_VERSION as CLEO_VERSION
from scorers.rubric_cleo import CleoResult, grade_cleo
from scorers.session import GradeInput, RecordCtx
from scorers.steps import Run
from scorers.trace_grader import L1Result, grade_run
from trace_ingest.errors import ScorerError

When = Literal["any", "closed"]
Kind = Literal["level", "rubric"]


class Grader(Protocol):
    """One registry entry (see the module docstring)."""

    @property
    def name(self) -> str: ...

    @property
    def level(self) -> str: ...

    @property
    def version(self) -> str: ...

    @property
    def requires(self) -> frozenset[str]: ...

    @property
    def when(self) -> When: ...

    @property
    def kind(self) -> Kind: ...

    @property
    def rubric(self) -> str: ...

    def grade(self, inp: GradeInput) -> Any: ...

    def record(self, result: Any, ctx: RecordCtx) -> dict[str, Any]: ...

    def render(self, result: Any, record: dict[str, Any]) -> list[str]: ...


@dataclass(frozen=True)
class L0Grader:
    """L0: facts and integrity (scorers.l0), always computable."""

    name: str = "l0"
    level: str = "L0"
    version: str = ledger.L1_RUBRIC_VERSION
    requires: frozenset[str] = frozenset()
    when: When = "any"
    kind: Kind = "level"
    rubric: str = ledger.L1_RUBRIC

    def grade(self, inp: GradeInput) -> Any:
        return grade_l0(
            inp.data.events,
            inp.pairing,
            inp.profile,
            inp.data.hook_errors,
            inp.settings.min_coverage,
            inp.settings.idle_gap_seconds,
        )

    def record(self, result: Any, ctx: RecordCtx) -> dict[str, Any]:
        return ledger.trace_entry(ctx.grade, ctx.config, ctx.timestamp, l0=result)

    def render(self, result: Any, record: dict[str, Any]) -> list[str]:
        return report.render_l0(record)


@dataclass(frozen=True)
class L1Grader:
    """L1: seed 001's trace-grader rules and per-run verdict (scorers.trace_grader)."""

    name: str = "l1"
    level: str = "L1"
    version: str = ledger.L1_RUBRIC_VERSION
    requires: frozenset[str] = frozenset({"tool_names"})
    when: When = "any"
    kind: Kind = "level"
    rubric: str = ledger.L1_RUBRIC

    def grade(self, inp: GradeInput) -> Any:
        data = inp.data
        run = Run(
            run_id=data.session_id,
            steps=inp.pairing.steps,
            delivered=data.delivered,
            task=data.task,
            source="hook",
            session_key=data.key,
            session_id=data.session_id,
        )
        return grade_run(run, inp.config, inp.profile, inp.settings.min_coverage)

    def record(self, result: Any, ctx: RecordCtx) -> dict[str, Any]:
        return ledger.trace_entry(ctx.grade, ctx.config, ctx.timestamp, l1=result)

    def render(self, result: Any, record: dict[str, Any]) -> list[str]:
        assert isinstance(result, L1Result)
        return report.render_l1_section(result, record)


@dataclass(frozen=True)
class CleoGrader:
    """The ``cleo`` rubric profile: seed 000's 5 x 20 session rubric (scorers.rubric_cleo)."""

    name: str = "cleo"
    level: str = "L1"
    version: str = CLEO_VERSION
    requires: frozenset[str] = frozenset()
    when: When = "any"
    kind: Kind = "rubric"
    rubric: str = "cleo"

    def grade(self, inp: GradeInput) -> Any:
        streams = []
        if inp.data.events or inp.audit is None:
            streams.append(cleo_ops.tool_stream(inp.pairing.steps, inp.data.events, inp.profile))
        if inp.audit is not None:
            streams.append(inp.audit)
        return grade_cleo(
            cleo_ops.merge(streams),
            session_open=inp.data.state != "closed",
            min_coverage=inp.settings.min_coverage,
        )

    def record(self, result: Any, ctx: RecordCtx) -> dict[str, Any]:
        assert isinstance(result, CleoResult)
        return ledger.cleo_record(ctx.grade, result, ctx.timestamp)

    def render(self, result: Any, record: dict[str, Any]) -> list[str]:
        assert isinstance(result, CleoResult)
        return [report.render_cleo(record, result.atoms)]


@dataclass(frozen=True)
class LazyGrader:
    """An entry whose module is imported on first use (L2 pulls in ``llm``). ``target`` is
    ``"module:attribute"`` naming a ``Grader``; the static fields are declared here so the
    CLI's choices never import it."""

    name: str
    level: str
    when: When
    kind: Kind
    rubric: str
    target: str

    def load(self) -> Grader:
        module, attr = self.target.split(":")
        grader: Grader = getattr(importlib.import_module(module), attr)
        return grader

    @property
    def version(self) -> str:
        return self.load().version

    @property
    def requires(self) -> frozenset[str]:
        return self.load().requires

    def grade(self, inp: GradeInput) -> Any:
        return self.load().grade(inp)

    def record(self, result: Any, ctx: RecordCtx) -> dict[str, Any]:
        return self.load().record(result, ctx)

    def render(self, result: Any, record: dict[str, Any]) -> list[str]:
        return self.load().render(result, record)


GRADERS: dict[str, Grader] = {
    "l0": L0Grader(),
    "l1": L1Grader(),
    "cleo": CleoGrader(),
    # The judge: one call per closed session against the guides in context (scorers.l2).
    "l2": LazyGrader("l2", "L2", "closed", "level", "l2", "scorers.l2:GRADER"),
}

# The default levels of `trail eval score` (L2 costs a model call: asked for by name).
DEFAULT_LEVELS = ("L0", "L1")


def levels() -> tuple[str, ...]:
    """Every level a ``--level`` may name, in order."""
    return tuple(dict.fromkeys(g.level for g in GRADERS.values() if g.kind == "level"))


def rubrics() -> tuple[str, ...]:
    """Every rubric profile a ``--rubric`` may name."""
    return tuple(g.name for g in GRADERS.values() if g.kind == "rubric")


LEVELS = levels()
RUBRICS = rubrics()


def parse_levels(text: str | None) -> tuple[str, ...]:
    """``--level L0,L1`` -> ("L0", "L1"); empty -> the default levels."""
    if not text:
        return DEFAULT_LEVELS
    wanted = tuple(p.strip().upper() for p in text.split(",") if p.strip())
    known = levels()
    bad = [p for p in wanted if p not in known]
    if bad:
        raise ScorerError(f"unknown level(s) {', '.join(bad)}; choose from {', '.join(known)}")
    return wanted


def select(levels: Sequence[str], rubric: str | None = None) -> list[Grader]:
    """The entries to run, in table order: every ``level`` grader of the chosen levels, and
    the rubric profile named."""
    if rubric is not None and rubric not in rubrics():
        raise ScorerError(f"unknown rubric {rubric!r}; known: {', '.join(rubrics())}")
    return [
        g
        for g in GRADERS.values()
        if (g.kind == "level" and g.level in levels) or (g.kind == "rubric" and g.name == rubric)
    ]


def merge_records(records: Sequence[tuple[Grader, dict[str, Any]]]) -> list[dict[str, Any]]:
    """One ledger entry per ``rubric``, in order of first appearance: a later record of
    the same rubric gives the headline fields; ``levels`` and ``dimensions`` merge and
    ``atoms`` accumulate (L0 then L1 in the trace-grader entry)."""
    out: dict[str, dict[str, Any]] = {}
    for grader, rec in records:
        prev = out.get(grader.rubric)
        if prev is None:
            out[grader.rubric] = rec
            continue
        merged = {**prev, **rec}
        for name in ("levels", "dimensions"):
            if name in prev or name in rec:
                merged[name] = {**prev.get(name, {}), **rec.get(name, {})}
        if "atoms" in prev or "atoms" in rec:
            merged["atoms"] = [*prev.get("atoms", []), *rec.get("atoms", [])]
        out[grader.rubric] = merged
    return list(out.values())
