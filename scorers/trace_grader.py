"""L1 trace-grader (seed 001): five path rules over a run's steps, and the per-run verdict.

Rules (parameters only in the grader config, scorers/data/trace-grader.yaml):

- ``forbidden_tool`` (high): a step whose raw or canonical tool name is in ``forbidden_tools``,
  or a shell step whose command matches ``forbidden_commands``;
- ``out_of_order`` (medium): ``must_precede: [[A, B]]`` — a use of B with no earlier A in the
  same agent's steps;
- ``retry_storm`` (medium): more than ``retry_threshold`` consecutive failures of the same tool
  in one agent's steps (needs per-step success: unscored on sources that lack it, RULE-04);
- ``excessive_steps`` (low): more than ``step_budget`` steps;
- ``edited_without_read`` (medium, gated by ``grounding.enabled``): an edit of a file that was
  never read, written, or searched (the file or a folder above it) before, by any agent.

Recorded sessions match rule names against the raw and the canonical tool. Trace files
(``traces.json``, audit JSONL: ``Run.source`` traces / audit) name their own tools and are
graded by those names exactly, as seed 001's engine does (grounding: Read/Grep/Glob/Write of
the same path before an Edit/MultiEdit).

What became of each step (scorers.contents): a step that never ran (``refused`` by a permission
policy, ``cancelled`` by the harness) is an attempt: it counts for ``forbidden_tool`` (the
agent chose that tool) and the step budget, but it is not a failure (no retry storm), and it
neither grounds a later edit nor is an edit or a use of an ordered tool. ``interrupted`` (the
user stopped it) and ``unknown`` (no result) are not failures either; they end a run of
consecutive failures. Harness-internal agents' steps (warmup, compaction) are not graded.

Each rule judges only what the session contains: a rule whose subject is absent (no edit for
``edited_without_read``, no use of a later tool for ``out_of_order``, no step that ran with a
known outcome for ``retry_storm``) is unscored with the reason, never a free pass.

Verdicts: ``fail`` (not delivered), ``corrupt-success`` (delivered and a high flag),
``pass-with-warnings``, ``clean-pass``; with an unknown outcome ``flags-only: ...`` (never a pass);
``nothing-to-grade`` when the run holds no agent action (seed 002's intentional empty grade).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from scorers.atoms import (
    Aggregate,
    Atom,
    Severity,
    aggregate,
    flagged,
    level_verdict,
    passed,
    unscored,
)
from scorers.base import FnCheck, run_checks
from scorers.completeness import Profile
from scorers.contents import (
    KNOWN_OUTCOME,
    NOTHING,
    Contents,
    agent_steps,
    nothing_to_grade,
    step_status,
)
from scorers.grader_config import GraderConfig
from scorers.passk import TaskPassK, passk_by_task
from scorers.steps import NOT_RUN, Run, Step, canonical_of, lanes
from scorers.traces_input import map_traces

LEVEL = "L1"
# Canonical tools (trace_ingest.events.CANONICAL_TOOLS): every harness's raw names reach the
# rules through its descriptor's table (steps.canonical_of), none is listed here.
EDIT_NAMES = frozenset({"edit"})
GROUNDING_NAMES = frozenset({"read", "write", "search"})
SEARCH_NAMES = frozenset({"search"})
SHELL_NAMES = frozenset({"shell"})
# Trace files (seed 001's traces.json and audit JSONL) name their own tools: the grounding rule
# grades them by those names exactly, with seed 001's engine's own sets and exact paths.
FILE_SOURCES = frozenset({"traces", "audit"})
ENGINE_EDITS = frozenset({"Edit", "MultiEdit"})
ENGINE_GROUNDING = frozenset({"Read", "Grep", "Glob", "Write"})

VERDICTS = (
    "clean-pass",
    "pass-with-warnings",
    "corrupt-success",
    "fail",
    "flags-only: clean",
    "flags-only: warnings",
    "flags-only: high-severity",
    "insufficient-data",
    NOTHING,
)
StatusOf = Callable[[Step], str]


@dataclass(frozen=True)
class Finding:
    """One flag: a rule that fired at one step (seed 001's ``{check, severity, step, tool,
    detail}``), plus the event it points to."""

    check: str
    severity: Severity
    step: int | None
    tool: str | None
    event: str | None
    detail: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "check": self.check,
            "severity": self.severity,
            "step": self.step,
            "tool": self.tool,
            "event": self.event,
            "detail": self.detail,
        }


@dataclass
class L1Ctx:
    run: Run
    config: GraderConfig
    contents: Contents | None = None
    findings: list[Finding] = field(default_factory=list)
    _table: dict[int, str] | None = None

    def status(self, step: Step) -> str:
        """What became of ``step``: worked out once per step of the run (every rule asks)."""
        table = self._table
        if table is None:
            contents = self.contents
            table = self._table = {id(s): step_status(s, contents) for s in self.run.steps}
        found = table.get(id(step))
        return found if found is not None else step_status(step, self.contents)


@dataclass
class L1Result:
    run: Run
    atoms: list[Atom]
    findings: list[Finding]
    verdict: str
    delivered_verdict: str  # the verdict before the coverage rule
    aggregate: Aggregate
    config: GraderConfig
    internal_steps: int = 0  # harness-internal agents' steps, left out of the run
    nothing_reason: str | None = None  # why there is nothing to grade
    step_count: int | None = None  # the run's steps (None: len(run.steps))

    @property
    def steps(self) -> int:
        return len(self.run.steps) if self.step_count is None else self.step_count

    def without_steps(self) -> L1Result:
        """The same result without the run's steps (what a report of many runs keeps)."""
        return replace(self, run=replace(self.run, steps=[]), step_count=self.steps)

    @property
    def high(self) -> bool:
        return any(f.severity == "high" for f in self.findings)

    def as_dict(self) -> dict[str, Any]:
        return {
            "task": self.run.task,
            "run_id": self.run.run_id,
            "outcome": self.run.outcome,
            "delivered": self.run.delivered,
            "step_count": self.steps,
            "internal_steps": self.internal_steps,
            "verdict": self.verdict,
            "nothing_to_grade": self.nothing_reason,
            "corrupt_success": self.verdict == "corrupt-success",
            "flags": [f.as_dict() for f in self.findings],
            **self.aggregate.as_dict(),
            "config": self.config.provenance(),
            "atoms": [a.as_dict() for a in self.atoms],
        }


# ───────────────────────────── rules: Run + config -> findings ─────────────────────────────


def _command(step: Step) -> str | None:
    args = step.args
    if isinstance(args, dict):
        cmd = args.get("command")
        return cmd if isinstance(cmd, str) else None
    return None


def _default_status(step: Step) -> str:
    return step_status(step)


def _ran(step: Step, status: StatusOf) -> bool:
    return status(step) not in NOT_RUN


def find_forbidden_tool(
    run: Run, cfg: GraderConfig, status: StatusOf = _default_status
) -> list[Finding]:
    """Every step, whether it ran or not: asking for a forbidden tool is the violation."""
    out: list[Finding] = []
    names, commands = cfg.forbidden_tools, cfg.forbidden_commands
    for s in run.steps:
        if not commands and s.tool not in names and s.canonical not in names:
            continue  # (the usual step: two set lookups, no call)
        reason = _forbidden(s, cfg)
        if reason is not None:
            if not _ran(s, status):
                reason += f" ({status(s)}: it did not run)"
            out.append(Finding("forbidden_tool", "high", s.index, s.tool, s.event_id, reason))
    return out


def _forbidden(s: Step, cfg: GraderConfig) -> str | None:
    """Why step ``s`` is forbidden (its tool, or its shell command line), or None."""
    forbidden = cfg.forbidden_tools
    hit = s.tool if s.tool in forbidden else s.canonical if s.canonical in forbidden else None
    if hit is not None:
        return f"forbidden tool '{hit}' used at step {s.index}"
    if cfg.forbidden_commands and canonical_of(s) in SHELL_NAMES:
        cmd = _command(s) or ""
        for pat in cfg.forbidden_commands:
            if cmd and pat.search(cmd):
                return f"forbidden command /{pat.pattern}/ at step {s.index}"
    return None


def find_out_of_order(
    run: Run, cfg: GraderConfig, status: StatusOf = _default_status
) -> list[Finding]:
    """Steps that did not run (refused, cancelled) are neither a use of B nor an earlier A."""
    out: list[Finding] = []
    pairs = cfg.must_precede
    if not pairs:
        return out
    later = {after for _, after in pairs}
    for lane in lanes(run.steps).values():
        seen: set[str] = set()
        for s in lane:
            if not _ran(s, status):
                continue
            tool, canonical = s.tool, s.canonical
            if tool in later or canonical in later:
                for before, after in pairs:
                    if after in (tool, canonical) and before not in seen:
                        out.append(
                            Finding(
                                "out_of_order",
                                "medium",
                                s.index,
                                s.tool,
                                s.event_id,
                                f"'{after}' at step {s.index} not preceded by '{before}'",
                            )
                        )
            seen.add(tool)
            seen.add(canonical)
    return out


def find_retry_storm(
    run: Run, cfg: GraderConfig, status: StatusOf = _default_status
) -> list[Finding]:
    """More than ``retry_threshold`` consecutive ``failed`` steps of one tool in one lane.

    Steps that never ran (refused, cancelled: e.g. the siblings Claude Code cancels when one
    call of a parallel batch fails) are skipped: neither a failure nor a break. Interrupted
    and unknown steps end the run of failures."""
    out: list[Finding] = []
    thr = cfg.retry_threshold
    for whole in lanes(run.steps).values():
        lane = [(s, st) for s in whole if (st := status(s)) not in NOT_RUN]
        i, n = 0, len(lane)
        while i < n:
            s, st = lane[i]
            if st == "failed":
                j = i + 1
                while j < n and lane[j][1] == "failed" and lane[j][0].tool == s.tool:
                    j += 1
                if j - i > thr:
                    out.append(
                        Finding(
                            "retry_storm",
                            "medium",
                            s.index,
                            s.tool,
                            s.event_id,
                            f"'{s.tool}' failed {j - i}x in a row from step "
                            f"{s.index} (> threshold {thr})",
                        )
                    )
                i = j
            else:
                i += 1
    return out


def find_excessive_steps(
    run: Run, cfg: GraderConfig, status: StatusOf = _default_status
) -> list[Finding]:
    """Every step of the user's agents counts, whether it ran or not (the agent took it)."""
    n = len(run.steps)
    if n > cfg.step_budget:
        last = run.steps[-1]
        return [
            Finding(
                "excessive_steps",
                "low",
                n,
                None,
                last.event_id,
                f"{n} steps > budget {cfg.step_budget}",
            )
        ]
    return []


def _ancestors(path: str) -> list[str]:
    out = []
    parent = os.path.dirname(path)
    while parent and parent != path:
        out.append(parent)
        path, parent = parent, os.path.dirname(parent)
    return out


def _is_edit(step: Step, strict: bool = False) -> bool:
    if strict:
        return step.tool in ENGINE_EDITS
    return canonical_of(step) in EDIT_NAMES


def _strict(run: Run) -> bool:
    return run.source in FILE_SOURCES


def _engine_grounding(run: Run) -> list[Finding]:
    """Seed 001's engine: Read/Grep/Glob/Write of a path ground it; an Edit/MultiEdit of a path
    not grounded before is flagged once (the edit grounds later edits)."""
    out: list[Finding] = []
    seen: set[str] = set()
    for s in run.steps:
        path = s.path
        if s.tool in ENGINE_GROUNDING:
            if path:
                seen.add(path)
        elif s.tool in ENGINE_EDITS and path:
            if path not in seen:
                out.append(
                    Finding(
                        "edited_without_read",
                        "medium",
                        s.index,
                        s.tool,
                        s.event_id,
                        f"'{s.tool}' edited '{path}' at step {s.index} without reading it first",
                    )
                )
            seen.add(path)
    return out


def find_edited_without_read(
    run: Run, cfg: GraderConfig, status: StatusOf = _default_status
) -> list[Finding]:
    """Grounding proxy, O(steps x path depth): files read/written and folders searched.
    A read that never ran grounds nothing; an edit that never ran edited nothing. Trace files
    are graded with the engine's names and exact paths (``_engine_grounding``)."""
    if _strict(run):
        return _engine_grounding(run)
    out: list[Finding] = []
    files: set[str] = set()
    folders: set[str] = set()
    for s in run.steps:
        path = s.path
        if path is None or not _ran(s, status):
            continue
        if _is_edit(s):
            if path not in files and not any(a in folders for a in _ancestors(path)):
                out.append(
                    Finding(
                        "edited_without_read",
                        "medium",
                        s.index,
                        s.tool,
                        s.event_id,
                        f"edit of '{path}' at step {s.index}, never read, written "
                        "or searched before",
                    )
                )
            files.add(path)  # one flag per file: after the edit its content is known
        elif canonical_of(s) in GROUNDING_NAMES:
            files.add(path)
            if canonical_of(s) in SEARCH_NAMES:
                folders.add(path)
    return out


# ───────────────────────────── subjects: what each rule judges ─────────────────────────────
# None: the session contains the rule's subject; a string: why there is nothing to judge.

Subject = Callable[[Run, GraderConfig, StatusOf], str | None]


def _any_step(run: Run, cfg: GraderConfig, status: StatusOf) -> str | None:
    return None if run.steps else "nothing to judge: the run has no steps"


def _later_tool_used(run: Run, cfg: GraderConfig, status: StatusOf) -> str | None:
    later = {after for _, after in cfg.must_precede}
    if any((s.tool in later or s.canonical in later) and _ran(s, status) for s in run.steps):
        return None
    return (
        f"nothing to judge: no step that ran used {', '.join(sorted(later))} "
        "(the later tool of a must_precede pair)"
    )


def _known_outcomes(run: Run, cfg: GraderConfig, status: StatusOf) -> str | None:
    if any(status(s) in KNOWN_OUTCOME for s in run.steps):
        return None
    return (
        "nothing to judge: no step ran with a known outcome (all refused, cancelled, "
        "interrupted or unanswered)"
    )


def _edits(run: Run, cfg: GraderConfig, status: StatusOf) -> str | None:
    strict = _strict(run)
    if any(_is_edit(s, strict) and s.path is not None and _ran(s, status) for s in run.steps):
        return None
    return "nothing to judge: the run has no edit of a file that ran"


Finder = Callable[[Run, GraderConfig, StatusOf], list[Finding]]


def _rule(
    name: str,
    severity: Severity,
    requires: set[str],
    finder: Finder,
    subject: Subject,
    cfg: GraderConfig,
    disabled: str | None = None,
) -> FnCheck[L1Ctx]:
    def fn(ctx: L1Ctx) -> Atom:
        weight = ctx.config.weight(severity)
        nothing = subject(ctx.run, ctx.config, ctx.status)
        if nothing is not None:
            return unscored(name, LEVEL, weight=weight, reason=nothing, severity=severity)
        found = finder(ctx.run, ctx.config, ctx.status)
        ctx.findings.extend(found)
        if not found:
            return passed(
                name,
                LEVEL,
                weight=weight,
                severity=severity,
                reason=f"{name}: no violation in {len(ctx.run.steps)} steps",
            )
        details = "; ".join(f.detail for f in found[:5])
        more = f" (+{len(found) - 5} more)" if len(found) > 5 else ""
        return flagged(
            name,
            LEVEL,
            weight=weight,
            severity=severity,
            evidence=[f.event for f in found],
            reason=details + more,
        )

    return FnCheck(name, LEVEL, severity, frozenset(requires), fn, cfg.weight(severity), disabled)


def rules(cfg: GraderConfig) -> list[FnCheck[L1Ctx]]:
    """The five rules with their requirements and subjects (finders looked up at call time,
    so tests can patch them)."""
    grounding_off = None if cfg.grounding_enabled else "disabled by config (grounding.enabled)"
    order_off = None if cfg.must_precede else "disabled by config (no must_precede pairs)"
    return [
        _rule("forbidden_tool", "high", {"tool_names"}, find_forbidden_tool, _any_step, cfg),
        _rule(
            "out_of_order",
            "medium",
            {"tool_names"},
            find_out_of_order,
            _later_tool_used,
            cfg,
            order_off,
        ),
        _rule(
            "retry_storm",
            "medium",
            {"tool_names", "success_flags"},
            find_retry_storm,
            _known_outcomes,
            cfg,
        ),
        _rule("excessive_steps", "low", {"tool_names"}, find_excessive_steps, _any_step, cfg),
        _rule(
            "edited_without_read",
            "medium",
            {"tool_names", "tool_args"},
            find_edited_without_read,
            _edits,
            cfg,
            grounding_off,
        ),
    ]


# ───────────────────────────── verdicts ─────────────────────────────


def run_verdict(delivered: bool | None, findings: Sequence[Finding]) -> str:
    """Seed 001's verdict; with an unknown outcome, a flags-only verdict that says so."""
    high = any(f.severity == "high" for f in findings)
    if delivered is None:
        if high:
            return "flags-only: high-severity"
        return "flags-only: warnings" if findings else "flags-only: clean"
    if not delivered:
        return "fail"
    if high:
        return "corrupt-success"
    return "pass-with-warnings" if findings else "clean-pass"


def grade_run(run: Run, cfg: GraderConfig, profile: Profile, min_coverage: float) -> L1Result:
    """Grade one run: the user's agents' steps (harness-internal agents left out). A run with
    no agent action is ``nothing-to-grade`` (every rule unscored, no score). A found
    high-severity violation is not erased by low coverage; otherwise coverage below
    ``min_coverage`` makes the verdict ``insufficient-data``."""
    contents = profile.contents
    own = agent_steps(run.steps, contents)
    graded_run = replace(run, steps=own)
    internal = len(run.steps) - len(own)
    nothing = nothing_to_grade(run.steps, contents if contents.events else None)
    if nothing is not None:
        atoms = [
            unscored(c.name, LEVEL, weight=c.weight(), reason=nothing, severity=c.severity)
            for c in rules(cfg)
        ]
        return L1Result(
            graded_run, atoms, [], NOTHING, NOTHING, aggregate(atoms), cfg, internal, nothing
        )
    ctx = L1Ctx(graded_run, cfg, contents)
    atoms = run_checks(rules(cfg), ctx, profile)
    agg = aggregate(atoms)
    verdict = base = run_verdict(run.delivered, ctx.findings)
    low = level_verdict(agg, min_coverage)
    if low and not any(f.severity == "high" for f in ctx.findings):
        verdict = low
    return L1Result(graded_run, atoms, ctx.findings, verdict, base, agg, cfg, internal)


@dataclass
class TraceGrades:
    """A trace file graded run by run: its format, each run's result (without its steps)
    and pass^k per task."""

    format: str
    results: list[L1Result]
    passk: list[TaskPassK]


def grade_trace_file(
    path: str, task: str | None, cfg: GraderConfig, min_coverage: float
) -> TraceGrades:
    """Grade every run of a traces.json or audit JSONL file. Canonical files are read one run
    at a time (scorers.traces_input.map_traces), and each graded run keeps its findings and
    atoms, not its steps: memory stays near one run's, whatever the file's size."""

    def one(run: Run, profile: Profile) -> tuple[L1Result, tuple[str, str, bool | None]]:
        result = grade_run(run, cfg, profile, min_coverage).without_steps()
        return result, (run.task or run.run_id, run.run_id, run.delivered)

    fmt, _, graded = map_traces(path, task, one)
    return TraceGrades(fmt, [r for r, _ in graded], passk_by_task(o for _, o in graded))
