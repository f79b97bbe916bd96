"""Rubric profile ``cleo``: seed 000's 5 x 20 session rubric, over recognised CLEO operations.

Points and deductions are the seed's tables:

- S1 Session discipline: 10 session.list before the first task operation; 10 session.end.
- S2 Discovery efficiency: 15 for a tasks.find : (find + list) ratio >= 80%, else
  round(15 x ratio) (CLEO's implementation of "scales linearly below"); 5 tasks.show used.
- S1's "before": the first session.list's timestamp is not later than the first task
  operation's (CLEO's comparison; equal times count as before).
- S3 Task hygiene: 20, -5 per tasks.add without a description, -3 when subtasks were created
  without the seed's parent check, a tasks.find {exact: true} before the subtask, floor 0.
- S4 Error protocol: 20, -5 per E_NOT_FOUND not followed by tasks.find / tasks.exists within the
  next 5 operations, -5 when duplicate tasks were created (same title), floor 0.
- S5 Progressive disclosure: 10 admin.help or a skill lookup (tools.skill.show/list,
  skills.show/list); 10 a query-gateway call (ct-grade's ``metadata.gateway === 'query'``)
  (progressive disclosure for programmatic access).

Unlike CLEO, a criterion the operation stream cannot see is *unscored*, not zero (CLEO issue
814), and a criterion with nothing to judge (no discovery calls, no tasks.add, no errors) is
unscored instead of earning a benefit-of-doubt baseline. Letter grades (A 90-100, B 75-89,
C 60-74, D 45-59, F 0-44) apply to the percentage of the *scored* points, beside coverage; below
the minimum coverage the grade is ``insufficient-data``. A session whose user agents took no
action at all (and no audit row) is ``nothing-to-grade``: no letter, no score. Operations come
only from the user's agents' calls that ran (scorers.cleo_ops): a refused or cancelled call is
no operation, and an interrupted one has an unknown outcome, never an error to deduct for.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from scorers.atoms import Aggregate, Atom, aggregate, graded, unscored
from scorers.base import FnCheck, run_checks
from scorers.cleo_ops import Op, OpStream, stream_profile
from scorers.contents import NOTHING
from telemetry.lifecycle import to_epoch

RUBRIC = "cleo"
RUBRIC_VERSION = "cleo-5x20/2 (seed 000, ct-grade)"
LEVEL = "L1"
RECOVERY_WINDOW = 5

DIMENSIONS: dict[str, tuple[str, str]] = {
    "S1": ("sessionDiscipline", "Session Discipline"),
    "S2": ("discoveryEfficiency", "Discovery Efficiency"),
    "S3": ("taskHygiene", "Task Hygiene"),
    "S4": ("errorProtocol", "Error Protocol"),
    "S5": ("disclosureUse", "Progressive Disclosure Use"),
}
DIMENSION_MAX = 20.0

FLAG_NO_LIST = "session.list never called -- Check existing sessions before starting new ones"
FLAG_LIST_LATE = (
    "session.list called after task operations -- Check existing sessions before starting new ones"
)
FLAG_NO_END = "session.end never called -- Always end sessions when done"
FLAG_LIST_USED = "tasks.list used {n}x -- Prefer tasks.find for discovery"
FLAG_NO_DESC = "tasks.add without description -- Always provide task descriptions"
FLAG_NO_PARENT = "Subtasks created without parent existence check -- Verify parent exists first"
FLAG_NOT_FOUND = "E_NOT_FOUND not followed by recovery lookup -- Follow errors with tasks.find"
FLAG_DUPLICATE = (
    "Duplicate task creates detected ({n}) -- Check for existing tasks before creating new ones"
)
FLAG_NO_HELP = "No admin.help or skill lookup calls -- Load ct-cleo for protocol guidance"
FLAG_NO_DISCLOSURE = "No progressive disclosure calls -- Use admin.help or skill lookups"
FLAG_NO_OPS = (
    "No CLEO operations found for session -- attach CLEO's audit log with --audit, "
    "or check that the agent used CLEO"
)


@dataclass
class CleoFlag:
    dimension: str
    text: str
    events: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {"dimension": self.dimension, "flag": self.text, "events": list(self.events)}


@dataclass
class CleoCtx:
    ops: list[Op]
    session_open: bool = False
    flags: list[CleoFlag] = field(default_factory=list)


@dataclass
class CleoResult:
    atoms: list[Atom]
    flags: list[CleoFlag]
    aggregate: Aggregate
    grade: str  # A-F, insufficient-data, or nothing-to-grade
    dimensions: dict[str, dict[str, Any]]
    entry_count: int
    stream: OpStream

    @property
    def percent(self) -> float | None:
        score = self.aggregate.score
        return None if score is None else round(100 * score, 2)


def _ids(ops: list[Op]) -> list[str]:
    return [o.evidence for o in ops]


def _is(op: Op, domain: str, *operations: str) -> bool:
    return op.domain == domain and op.operation in operations


def _atom(check: str, earned: float, possible: float, evidence: list[str], reason: str) -> Atom:
    status = "pass" if earned >= possible else ("fail" if earned <= 0 else "warn")
    return graded(
        check,
        LEVEL,
        earned=earned,
        possible=possible,
        ok=status == "pass",
        evidence=evidence,
        reason=reason,
        fail_status="fail" if status == "fail" else "warn",
    )


# ───────────────────────────── S1 ─────────────────────────────


def _before_or_same_time(ops: list[Op], first: int, other: int) -> bool:
    """Whether ``ops[first]`` came no later than ``ops[other]``: by their timestamps, as CLEO
    compares them (equal times count as before); by position when either has no time."""
    a, b = to_epoch(ops[first].ts), to_epoch(ops[other].ts)
    if a is None or b is None:
        return first <= other
    return a <= b


def s1_list_first(ctx: CleoCtx) -> Atom:
    lists = [o for o in ctx.ops if _is(o, "session", "list")]
    tasks = [i for i, o in enumerate(ctx.ops) if o.domain == "tasks"]
    if not lists:
        ctx.flags.append(CleoFlag("S1", FLAG_NO_LIST))
        return _atom("cleo.S1.session_list_first", 0, 10, [], "session.list never called")
    first_list = ctx.ops.index(lists[0])
    if tasks and not _before_or_same_time(ctx.ops, first_list, tasks[0]):
        ctx.flags.append(CleoFlag("S1", FLAG_LIST_LATE, (ctx.ops[tasks[0]].evidence,)))
        return _atom(
            "cleo.S1.session_list_first",
            0,
            10,
            [lists[0].evidence],
            f"first task operation ({ctx.ops[tasks[0]].name}) came before session.list",
        )
    return _atom(
        "cleo.S1.session_list_first",
        10,
        10,
        [lists[0].evidence],
        "session.list called before the first task operation",
    )


def s1_end(ctx: CleoCtx) -> Atom:
    ends = [o for o in ctx.ops if _is(o, "session", "end")]
    if ends:
        return _atom("cleo.S1.session_end", 10, 10, _ids(ends), "session.end called")
    if ctx.session_open:
        return unscored(
            "cleo.S1.session_end",
            LEVEL,
            weight=10,
            reason="the session is still open: session.end may yet come",
        )
    ctx.flags.append(CleoFlag("S1", FLAG_NO_END))
    return _atom("cleo.S1.session_end", 0, 10, [], "session.end never called")


# ───────────────────────────── S2 ─────────────────────────────


def s2_find_ratio(ctx: CleoCtx) -> Atom:
    finds = [o for o in ctx.ops if _is(o, "tasks", "find")]
    lists = [o for o in ctx.ops if _is(o, "tasks", "list")]
    total = len(finds) + len(lists)
    if total == 0:
        return unscored(
            "cleo.S2.find_ratio",
            LEVEL,
            weight=15,
            reason="no tasks.find or tasks.list calls: nothing to judge "
            "(CLEO would award a 10-point baseline)",
        )
    ratio = len(finds) / total
    if ratio >= 0.8:
        return _atom(
            "cleo.S2.find_ratio", 15, 15, _ids(finds), f"find:list ratio {ratio:.0%} >= 80%"
        )
    earned = float(int(15 * ratio + 0.5))  # JavaScript Math.round, as CLEO computes it
    ctx.flags.append(CleoFlag("S2", FLAG_LIST_USED.format(n=len(lists)), tuple(_ids(lists))))
    return _atom(
        "cleo.S2.find_ratio",
        earned,
        15,
        _ids(lists),
        f"find:list ratio {ratio:.0%} < 80%: round(15 x {ratio:.2f}) = {earned:g}",
    )


def s2_show(ctx: CleoCtx) -> Atom:
    shows = [o for o in ctx.ops if _is(o, "tasks", "show")]
    if shows:
        return _atom(
            "cleo.S2.tasks_show", 5, 5, _ids(shows), f"tasks.show used {len(shows)}x for detail"
        )
    return _atom("cleo.S2.tasks_show", 0, 5, [], "tasks.show never used")


# ───────────────────────────── S3 ─────────────────────────────


def _adds(ops: list[Op]) -> list[Op]:
    """Tasks created: tasks.add calls known to have succeeded (ct-grade: result.success). A
    failed add created nothing; one whose outcome is unknown is not known to have."""
    return [o for o in ops if _is(o, "tasks", "add") and o.success is True]


def _parent_checked(ops: list[Op], upto: int, parent: Any) -> bool:
    """Seed 000's parent check, literally: a ``tasks.find {exact: true}`` before the subtask
    was created. ``tasks.exists`` and ``tasks.show`` of the parent are not it."""
    return any(
        _is(op, "tasks", "find") and op.params.get("exact") in (True, "true", 1)
        for op in ops[:upto]
    )


def s3_hygiene(ctx: CleoCtx, profile_has_queries: bool) -> Atom:
    adds = _adds(ctx.ops)
    if not adds:
        return unscored(
            "cleo.S3.task_hygiene",
            LEVEL,
            weight=20,
            reason="no tasks.add in the session: nothing to judge",
        )
    subtasks = [o for o in adds if o.params.get("parent")]
    if subtasks and not profile_has_queries:
        return unscored(
            "cleo.S3.task_hygiene",
            LEVEL,
            weight=20,
            reason="subtasks were created but query operations (parent checks) "
            "are not visible in this stream",
        )
    deductions: list[str] = []
    evidence: list[str] = []
    points = 20.0
    for op in adds:
        desc = op.params.get("description")
        if not isinstance(desc, str) or not desc.strip():
            points -= 5
            deductions.append(f"-5 tasks.add without description ({op.params.get('title')!r})")
            evidence.append(op.evidence)
            ctx.flags.append(CleoFlag("S3", FLAG_NO_DESC, (op.evidence,)))
    unchecked = [
        o
        for o in subtasks
        if not _parent_checked(ctx.ops, ctx.ops.index(o), o.params.get("parent"))
    ]
    if unchecked:
        points -= 3
        deductions.append(f"-3 {len(unchecked)} subtask(s) without a parent check")
        evidence += _ids(unchecked)
        ctx.flags.append(CleoFlag("S3", FLAG_NO_PARENT, tuple(_ids(unchecked))))
    earned = max(0.0, points)
    reason = "; ".join(deductions) or f"all {len(adds)} tasks.add calls well-formed"
    return _atom("cleo.S3.task_hygiene", earned, 20, evidence or _ids(adds), reason)


# ───────────────────────────── S4 ─────────────────────────────


def s4_errors(ctx: CleoCtx) -> Atom:
    adds = _adds(ctx.ops)
    not_found = [i for i, o in enumerate(ctx.ops) if o.not_found]
    if not adds and not not_found:
        return unscored(
            "cleo.S4.error_protocol",
            LEVEL,
            weight=20,
            reason="no E_NOT_FOUND errors and no tasks.add: nothing to judge",
        )
    points = 20.0
    deductions: list[str] = []
    evidence: list[str] = []
    for i in not_found:
        window = ctx.ops[i + 1 : i + 1 + RECOVERY_WINDOW]
        if not any(_is(o, "tasks", "find", "exists") for o in window):
            points -= 5
            op = ctx.ops[i]
            deductions.append(f"-5 E_NOT_FOUND ({op.name}) not followed by a recovery lookup")
            evidence.append(op.evidence)
            ctx.flags.append(CleoFlag("S4", FLAG_NOT_FOUND, (op.evidence,)))
    titles: dict[str, list[Op]] = {}
    for op in adds:
        title = op.params.get("title")
        if isinstance(title, str) and title.strip():
            titles.setdefault(title.strip().lower(), []).append(op)
    dupes = [o for group in titles.values() if len(group) > 1 for o in group[1:]]
    if dupes:
        points -= 5
        deductions.append(f"-5 {len(dupes)} duplicate task create(s)")
        evidence += _ids(dupes)
        ctx.flags.append(CleoFlag("S4", FLAG_DUPLICATE.format(n=len(dupes)), tuple(_ids(dupes))))
    reason = "; ".join(deductions) or "no error-protocol violations"
    return _atom(
        "cleo.S4.error_protocol",
        max(0.0, points),
        20,
        evidence or [ctx.ops[i].evidence for i in not_found],
        reason,
    )


# ───────────────────────────── S5 ─────────────────────────────


def _is_help(op: Op) -> bool:
    """admin.help or a skill *lookup* (ct-grade: tools.skill.show / tools.skill.list,
    skills.show / skills.list); installing or other skill mutations are not lookups."""
    return (
        _is(op, "admin", "help")
        or _is(op, "tools", "skill.show", "skill.list")
        or _is(op, "skills", "show", "list")
    )


def s5_help(ctx: CleoCtx) -> Atom:
    helps = [o for o in ctx.ops if _is_help(o)]
    if helps:
        return _atom(
            "cleo.S5.help_or_skill",
            10,
            10,
            _ids(helps),
            f"progressive disclosure used ({len(helps)}x)",
        )
    ctx.flags.append(CleoFlag("S5", FLAG_NO_HELP))
    return _atom("cleo.S5.help_or_skill", 0, 10, [], "no admin.help or skill lookup calls")


def s5_query_gateway(ctx: CleoCtx) -> Atom:
    """ct-grade: any operation whose gateway is ``query`` (MCP cleo_query, or a read through
    CLEO's CLI, which dispatches through the query gateway)."""
    queries = [o for o in ctx.ops if o.gateway in ("query", "cleo_query")]
    if queries:
        return _atom(
            "cleo.S5.query_gateway",
            10,
            10,
            _ids(queries),
            f"query gateway used {len(queries)}x",
        )
    ctx.flags.append(CleoFlag("S5", FLAG_NO_DISCLOSURE))
    return _atom("cleo.S5.query_gateway", 0, 10, [], "no query-gateway calls")


# ───────────────────────────── the rubric ─────────────────────────────


def _check(
    name: str, weight: float, requires: set[str], fn: Callable[[CleoCtx], Atom]
) -> FnCheck[CleoCtx]:
    return FnCheck(name, LEVEL, "info", frozenset(requires), fn, weight)


def checks(stream: OpStream) -> list[FnCheck[CleoCtx]]:
    has_queries = "queries" in stream.visible
    return [
        _check("cleo.S1.session_list_first", 10, {"queries", "mutations"}, s1_list_first),
        _check("cleo.S1.session_end", 10, {"mutations"}, s1_end),
        _check("cleo.S2.find_ratio", 15, {"queries"}, s2_find_ratio),
        _check("cleo.S2.tasks_show", 5, {"queries"}, s2_show),
        _check(
            "cleo.S3.task_hygiene",
            20,
            {"mutations", "params"},
            lambda ctx: s3_hygiene(ctx, has_queries),
        ),
        _check("cleo.S4.error_protocol", 20, {"errors", "queries", "params"}, s4_errors),
        _check("cleo.S5.help_or_skill", 10, {"queries"}, s5_help),
        _check("cleo.S5.query_gateway", 10, {"gateway"}, s5_query_gateway),
    ]


def letter(percent: float) -> str:
    """Seed 000: A 90-100, B 75-89, C 60-74, D 45-59, F 0-44."""
    if percent >= 90:
        return "A"
    if percent >= 75:
        return "B"
    if percent >= 60:
        return "C"
    if percent >= 45:
        return "D"
    return "F"


def _dimension(code: str, atoms: list[Atom]) -> dict[str, Any]:
    mine = [a for a in atoms if a.check.startswith(f"cleo.{code}.")]
    agg = aggregate(mine)
    evidence: list[str] = []
    for a in mine:
        evidence += [e for e in a.evidence if e not in evidence]
    scored = [a for a in mine if a.scored]
    return {
        "score": None if not scored else agg.earned,
        "max": DIMENSION_MAX,
        "scoredMax": agg.possible,
        "coverage": round(agg.coverage, 6),
        "status": "unscored"
        if not scored
        else ("partial" if len(scored) < len(mine) else "scored"),
        "evidence": evidence,
        "reasons": [f"{a.check}: {a.reason}" for a in mine],
    }


def grade_cleo(stream: OpStream, *, session_open: bool, min_coverage: float) -> CleoResult:
    ctx = CleoCtx(stream.ops, session_open)
    if not stream.ops and stream.nothing:
        # No agent action at all: seed 002's intentional empty grade, not a data problem.
        atoms = [
            unscored(c.name, LEVEL, weight=c.weight(), reason=stream.nothing)
            for c in checks(stream)
        ]
        agg = aggregate(atoms)
        dims = {DIMENSIONS[code][0]: _dimension(code, atoms) for code in DIMENSIONS}
        return CleoResult(atoms, [], agg, NOTHING, dims, 0, stream)
    if not stream.ops:
        reason = (
            f"no CLEO operations observed in {stream.origin} (no tool calls recognised "
            "and no audit entries): nothing to grade"
        )
        atoms = [unscored(c.name, LEVEL, weight=c.weight(), reason=reason) for c in checks(stream)]
        ctx.flags.append(CleoFlag("all", FLAG_NO_OPS))
    else:
        atoms = run_checks(checks(stream), ctx, stream_profile(stream))
    agg = aggregate(atoms)
    if agg.possible <= 0 or agg.coverage < min_coverage:
        grade = "insufficient-data"
    else:
        grade = letter(100 * agg.earned / agg.possible)
    dims = {DIMENSIONS[code][0]: _dimension(code, atoms) for code in DIMENSIONS}
    return CleoResult(atoms, ctx.flags, agg, grade, dims, len(stream.ops), stream)
