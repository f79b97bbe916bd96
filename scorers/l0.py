"""L0: facts and integrity. Always computable; one pass over the events (O(n log n) at most).

Facts (not scores): counts by kind, source and tool; call/result pairing; what became of each
step (ok, failed, interrupted, refused, cancelled, unknown) and the error rate over the steps
that ran with a known outcome; harness-internal agents counted apart; durations; the session's
time span and idle gaps; hook errors; redactions and truncations; the capability profile; what
the session contains; how its sources agree. Integrity atoms (scored, L0 score = trace
integrity, not agent behaviour): every call has its result, no hook errors during the session,
no damaged (malformed / unscrubbable) events, and source agreement (scored when two sources
recorded the session: actions one source saw while the other was recording and did not, and
calls whose success they disagree on). A check with nothing to judge (no tool calls to pair,
no events) is unscored, never a free pass.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from scorers.atoms import (
    Aggregate,
    Atom,
    aggregate,
    flagged,
    graded,
    level_verdict,
    passed,
    unscored,
)
from scorers.base import FnCheck, run_checks
from scorers.completeness import Profile
from scorers.contents import (
    KNOWN_OUTCOME,
    NOTHING,
    STEP_STATUSES,
    is_internal,
    nothing_to_grade,
    step_status,
)
from scorers.sources import SourceAgreement, compare_sources
from scorers.steps import RESULT_KINDS, Pairing, Step
from telemetry.canonical import sources_of
from telemetry.lifecycle import to_epoch
from trace_ingest.config import DEFAULTS

LEVEL = "L0"
DEFAULT_IDLE_GAP_SECONDS = float(DEFAULTS["eval"]["idle_gap_seconds"])  # config's one default


@dataclass
class L0Ctx:
    events: Sequence[dict[str, Any]]
    pairing: Pairing
    profile: Profile
    hook_errors: Sequence[dict[str, Any]]
    agreement: SourceAgreement | None = None

    def own_steps(self) -> list[Step]:
        """The user's agents' steps (harness-internal agents counted apart)."""
        return [s for s in self.pairing.steps if not is_internal(s, self.profile.contents)]

    def internal_steps(self) -> list[Step]:
        return [s for s in self.pairing.steps if is_internal(s, self.profile.contents)]


@dataclass
class L0Result:
    facts: dict[str, Any]
    atoms: list[Atom]
    aggregate: Aggregate
    verdict: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            **self.aggregate.as_dict(),
            "facts": self.facts,
            "atoms": [a.as_dict() for a in self.atoms],
        }


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def facts(ctx: L0Ctx, idle_gap_seconds: float = DEFAULT_IDLE_GAP_SECONDS) -> dict[str, Any]:
    events, pairing = ctx.events, ctx.pairing
    contents = ctx.profile.contents
    by_kind = Counter(str(e.get("kind")) for e in events)
    # A canonical event counts once for every source that saw it.
    by_source = Counter(f"{e.get('harness')}/{src}" for e in events for src in sources_of(e))
    own = ctx.own_steps()
    internal = ctx.internal_steps()
    tools = Counter(s.tool for s in own)
    canonical = Counter(s.canonical for s in own)
    status = {s.event_id: step_status(s, contents) for s in pairing.steps}
    by_status = Counter(status[s.event_id] for s in own)
    known = [s for s in own if status[s.event_id] in KNOWN_OUTCOME]
    failed = [s for s in known if status[s.event_id] == "failed"]
    durations = [
        float(e["duration_ms"])
        for e in events
        if e.get("kind") in RESULT_KINDS and isinstance(e.get("duration_ms"), int | float)
    ]
    stamped = sorted(
        (t, str(e.get("id"))) for e in events if (t := to_epoch(e.get("ts"))) is not None
    )
    gaps = [
        (b[0] - a[0], a[1], b[1]) for a, b in pairwise(stamped) if b[0] - a[0] > idle_gap_seconds
    ]
    gaps.sort(reverse=True)
    redactions: Counter[str] = Counter()
    redacted_events = truncated = 0
    for e in events:
        red = e.get("redactions")
        if isinstance(red, dict) and red:
            redacted_events += 1
            for rule, n in red.items():
                if isinstance(n, int):
                    redactions[str(rule)] += n
        if e.get("truncated"):
            truncated += 1
    return {
        "events": len(events),
        "by_kind": dict(sorted(by_kind.items())),
        "by_source": dict(sorted(by_source.items())),
        "tools": dict(tools.most_common()),
        "canonical_tools": dict(canonical.most_common()),
        "pairing": {
            "calls": pairing.calls,
            "results": pairing.results,
            "paired": pairing.paired,
            "calls_without_result": len(pairing.unpaired_calls),
            "results_without_call": len(pairing.orphan_results),
            "duplicate_results": len(pairing.duplicate_results),
        },
        "errors": {
            "steps": len(own),
            "steps_with_known_outcome": len(known),
            "failed": len(failed),
            "error_rate": round(len(failed) / len(known), 6) if known else None,
            "failed_by_tool": dict(Counter(s.tool for s in failed).most_common()),
            "interrupted": by_status["interrupted"],
            "refused": by_status["refused"],
            "cancelled": by_status["cancelled"],
            "unknown": by_status["unknown"],
            "by_status": {k: by_status[k] for k in STEP_STATUSES if by_status[k]},
            "refused_by_tool": dict(
                Counter(s.tool for s in own if status[s.event_id] == "refused").most_common()
            ),
            "cancelled_by_tool": dict(
                Counter(s.tool for s in own if status[s.event_id] == "cancelled").most_common()
            ),
        },
        "internal": {
            "events": contents.internal_events,
            "kinds": dict(contents.internal_kinds),
            "agents": dict(contents.internal_agents),
            "steps": len(internal),
            "tools": dict(Counter(s.tool for s in internal).most_common()),
        },
        "contents": {
            "agent_steps": len(own),
            "subagents": len(contents.subagents),
            "skill_loads": contents.skill_loads,
            "nothing_to_grade": nothing_to_grade(pairing.steps, contents),
        },
        "durations_ms": None
        if not durations
        else {
            "count": len(durations),
            "total": round(sum(durations), 3),
            "mean": round(sum(durations) / len(durations), 3),
            "p50": _percentile(durations, 0.5),
            "p95": _percentile(durations, 0.95),
            "max": max(durations),
        },
        "timeline": {
            "first_ts": events[0].get("ts") if events else None,
            "last_ts": events[-1].get("ts") if events else None,
            "span_seconds": round(stamped[-1][0] - stamped[0][0], 3) if stamped else None,
            "idle_gap_threshold_seconds": idle_gap_seconds,
            "idle_gaps": len(gaps),
            "idle_seconds": round(sum(g[0] for g in gaps), 3),
            "longest_gaps": [
                {"seconds": round(g[0], 3), "after": g[1], "before": g[2]} for g in gaps[:3]
            ],
        },
        "hook_errors": {
            "count": len(ctx.hook_errors),
            "stages": dict(Counter(str(h.get("stage")) for h in ctx.hook_errors)),
            "recent": [
                {k: h.get(k) for k in ("ts", "stage", "error")} for h in list(ctx.hook_errors)[-5:]
            ],
        },
        "redactions": {
            "total": sum(redactions.values()),
            "events": redacted_events,
            "by_rule": dict(redactions.most_common()),
        },
        "truncated_events": truncated,
        "disagreements": _agreement_fact(ctx),
        "source_agreement": None if ctx.agreement is None else ctx.agreement.as_dict(),
        "profile": ctx.profile.as_dict(),
    }


AGREEMENT = "l0.source_agreement"


def _agreement_fact(ctx: L0Ctx) -> dict[str, Any]:
    if ctx.agreement is None or len(ctx.agreement.sources) < 2:
        return {"status": "unscored", "reason": _ONE_SOURCE}
    atom = _disagreement(ctx)
    return {"status": atom.status, "reason": atom.reason}


_ONE_SOURCE = "needs two sources of the same session (e.g. hook events and an imported transcript)"


def _pairing(ctx: L0Ctx) -> Atom:
    p = ctx.pairing
    orphans = len(p.orphan_results)
    if p.calls == 0 and orphans == 0:
        return unscored(
            "l0.pairing",
            LEVEL,
            weight=1.0,
            severity="low",
            reason="nothing to judge: the session has no tool calls to pair",
        )
    missing = len(p.unpaired_calls)
    parts = [f"{p.paired}/{p.calls} calls have a result"]
    if missing:
        parts.append(f"{missing} without (the trace is missing them)")
    if orphans:
        parts.append(f"{orphans} result(s) without their call")
    return graded(
        "l0.pairing",
        LEVEL,
        earned=p.paired / p.calls if p.calls else 0.0,
        possible=1.0,
        ok=missing == 0 and orphans == 0,
        severity="low",
        fail_status="warn",
        evidence=[*p.unpaired_calls, *p.orphan_results],
        reason="; ".join(parts),
    )


def _hook_errors(ctx: L0Ctx) -> Atom:
    n = len(ctx.hook_errors)
    if n == 0:
        return passed(
            "l0.hook_errors", LEVEL, weight=1.0, reason="no hook errors logged during the session"
        )
    return flagged(
        "l0.hook_errors",
        LEVEL,
        weight=1.0,
        severity="low",
        reason=f"{n} hook error(s) during the session; events may be missing",
    )


def _damaged(ctx: L0Ctx) -> Atom:
    if not ctx.events:
        return unscored(
            "l0.damaged_events",
            LEVEL,
            weight=1.0,
            severity="low",
            reason="nothing to judge: the session holds no events",
        )
    ids = [
        str(e.get("id"))
        for e in ctx.events
        if e.get("kind") == "other"
        and isinstance(e.get("extra"), dict)
        and ("malformed" in e["extra"] or "scrub_error" in e["extra"])
    ]
    if not ids:
        return passed("l0.damaged_events", LEVEL, weight=1.0, reason="no damaged events")
    return flagged(
        "l0.damaged_events",
        LEVEL,
        weight=1.0,
        severity="low",
        evidence=ids,
        reason=f"{len(ids)} malformed or unscrubbable event stub(s)",
    )


def _disagreement(ctx: L0Ctx) -> Atom:
    """Do the session's sources agree on its tool calls? (scorers.sources)"""
    agr = ctx.agreement
    assert agr is not None
    if agr.checked == 0:
        why = (
            "no tool calls"
            if agr.actions == 0
            else f"none of its {agr.actions} tool call(s) happened while two sources were recording"
        )
        return unscored(
            AGREEMENT, LEVEL, weight=1.0, severity="low", reason=f"nothing to judge: {why}"
        )
    missed = [f for f in agr.findings if f.kind == "missed"]
    outcome = [f for f in agr.findings if f.kind == "outcome"]
    parts = []
    by_missing: Counter[str] = Counter(s for f in missed for s in f.missing_from)
    for src, n in sorted(by_missing.items()):
        seen = sorted({s for f in missed if src in f.missing_from for s in f.seen_by})
        parts.append(
            f"{n} call(s) {'/'.join(seen)} saw and the {src} never saw, while it was recording"
        )
    if outcome:
        parts.append(f"{len(outcome)} call(s) whose success the sources disagree on")
    if agr.outside_span:
        parts.append(
            f"{agr.outside_span} call(s) outside the other source's recording span (not counted)"
        )
    agree = not agr.findings
    return graded(
        AGREEMENT,
        LEVEL,
        earned=agr.agreeing / agr.checked,
        possible=1.0,
        ok=agree,
        severity="low",
        fail_status="warn",
        evidence=[i for f in agr.findings for i in f.evidence],
        reason="; ".join(parts)
        or f"{' and '.join(agr.sources)} agree on all {agr.checked} tool calls",
    )


def checks(sources: Sequence[str]) -> list[FnCheck[L0Ctx]]:
    has_hook = "hook" in sources
    return [
        FnCheck("l0.pairing", LEVEL, "low", frozenset({"call_ids", "tool_results"}), _pairing),
        FnCheck(
            "l0.hook_errors",
            LEVEL,
            "low",
            frozenset(),
            _hook_errors,
            disabled_reason=None if has_hook else "no hook source in this session",
        ),
        FnCheck("l0.damaged_events", LEVEL, "low", frozenset(), _damaged),
        FnCheck(
            AGREEMENT,
            LEVEL,
            "low",
            frozenset(),
            _disagreement,
            disabled_reason=None if len(set(sources)) >= 2 else _ONE_SOURCE,
        ),
    ]


def grade_l0(
    events: Sequence[dict[str, Any]],
    pairing: Pairing,
    profile: Profile,
    hook_errors: Sequence[dict[str, Any]],
    min_coverage: float,
    idle_gap_seconds: float = DEFAULT_IDLE_GAP_SECONDS,
    disagreements: Sequence[dict[str, Any]] = (),
) -> L0Result:
    """L0 of one session. ``events`` may be canonical (one event per action, with ``sources``
    and ``provenance``) or as stored; ``disagreements`` are the canonical merge's
    per-field differences between sources (``Disagreement.as_dict()``), when it has them."""
    agreement = compare_sources(events, disagreements)
    ctx = L0Ctx(events, pairing, profile, hook_errors, agreement)
    recording = [s.rsplit("/", 1)[-1] for s in profile.sources]
    atoms = run_checks(checks(recording), ctx, profile)
    agg = aggregate(atoms)
    verdict = level_verdict(agg, min_coverage) or (
        "complete" if agg.earned >= agg.possible else "gaps"
    )
    if not events:
        verdict = NOTHING  # an empty record: no integrity to judge, and none lacking
    return L0Result(facts(ctx, idle_gap_seconds), atoms, agg, verdict)
