"""L0: facts and integrity. Always computable; one pass over the events (O(n log n) at most).

Facts (not scores): counts by kind, source and tool; call/result pairing; errors and error
rate; durations; the session's time span and idle gaps; hook errors; redactions and
truncations; the capability profile. Integrity atoms (scored, L0 score = trace integrity, not
agent behaviour): every call has its result, no hook errors during the session, no damaged
(malformed / unscrubbable) events, and hook/transcript agreement (scored when a session has
both hook events and an imported transcript: calls one source saw and the other did not, and
calls whose success they disagree on).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from scorers.atoms import Aggregate, Atom, aggregate, flagged, graded, level_verdict, passed
from scorers.base import FnCheck, run_checks
from scorers.completeness import Profile
from scorers.steps import RESULT_KINDS, Pairing
from telemetry.lifecycle import to_epoch

LEVEL = "L0"
DEFAULT_IDLE_GAP_SECONDS = 300.0


@dataclass
class L0Ctx:
    events: Sequence[dict[str, Any]]
    pairing: Pairing
    profile: Profile
    hook_errors: Sequence[dict[str, Any]]


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
    by_kind = Counter(str(e.get("kind")) for e in events)
    by_source = Counter(f"{e.get('harness')}/{e.get('source')}" for e in events)
    tools = Counter(s.tool for s in pairing.steps)
    canonical = Counter(s.canonical for s in pairing.steps)
    known = [s for s in pairing.steps if s.ok is not None]
    failed = [s for s in known if s.ok is False]
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
            "steps": len(pairing.steps),
            "steps_with_known_outcome": len(known),
            "failed": len(failed),
            "error_rate": round(len(failed) / len(known), 6) if known else None,
            "failed_by_tool": dict(Counter(s.tool for s in failed).most_common()),
            "interrupted": sum(1 for e in events if e.get("interrupted") is True),
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
        "profile": ctx.profile.as_dict(),
    }


def _agreement_fact(ctx: L0Ctx) -> dict[str, Any]:
    sources = {str(e.get("source")) for e in ctx.events}
    if not {"hook", "transcript"} <= sources:
        return {
            "status": "unscored",
            "reason": "needs both hook events and an imported transcript of the session",
        }
    atom = _disagreement(ctx)
    return {"status": atom.status, "reason": atom.reason}


def _pairing(ctx: L0Ctx) -> Atom:
    p = ctx.pairing
    if p.calls == 0:
        return passed("l0.pairing", LEVEL, weight=1.0, reason="no tool calls to pair")
    missing = len(p.unpaired_calls)
    return graded(
        "l0.pairing",
        LEVEL,
        earned=p.paired / p.calls if p.calls else 1.0,
        possible=1.0,
        ok=missing == 0,
        severity="low",
        fail_status="warn",
        evidence=p.unpaired_calls,
        reason=f"{p.paired}/{p.calls} calls have a result"
        + (f"; {missing} without (the trace is missing them)" if missing else ""),
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


def _calls_by_source(events: Sequence[dict[str, Any]], source: str) -> dict[str, dict[str, Any]]:
    """call_id -> {"call": event id, "ok": the result's ok} for one source's tool events."""
    out: dict[str, dict[str, Any]] = {}
    for ev in events:
        cid = ev.get("call_id")
        if ev.get("source") != source or not cid:
            continue
        entry = out.setdefault(str(cid), {"call": None, "ok": None, "ids": []})
        entry["ids"].append(str(ev.get("id")))
        if ev.get("kind") == "tool_call":
            entry["call"] = ev.get("id")
        elif ev.get("kind") in RESULT_KINDS:
            entry["ok"] = ev.get("ok")
    return out


def _disagreement(ctx: L0Ctx) -> Atom:
    """Hooks and the transcript saw the same session: do they agree on the tool calls?"""
    hook = _calls_by_source(ctx.events, "hook")
    transcript = _calls_by_source(ctx.events, "transcript")
    both = set(hook) | set(transcript)
    if not both:
        return passed("l0.transcript_agreement", LEVEL, weight=1.0, reason="no tool calls")
    only_transcript = sorted(set(transcript) - set(hook))
    only_hook = sorted(set(hook) - set(transcript))
    outcome = sorted(
        c
        for c in set(hook) & set(transcript)
        if None not in (hook[c]["ok"], transcript[c]["ok"]) and hook[c]["ok"] != transcript[c]["ok"]
    )
    bad = set(only_transcript) | set(only_hook) | set(outcome)
    evidence = [i for c in sorted(bad) for i in (hook.get(c) or transcript[c])["ids"]]
    parts = []
    if only_transcript:
        parts.append(f"{len(only_transcript)} call(s) in the transcript the hooks never saw")
    if only_hook:
        parts.append(f"{len(only_hook)} hook call(s) missing from the transcript")
    if outcome:
        parts.append(f"{len(outcome)} call(s) whose success the two sources disagree on")
    return graded(
        "l0.transcript_agreement",
        LEVEL,
        earned=(len(both) - len(bad)) / len(both),
        possible=1.0,
        ok=not bad,
        severity="low",
        fail_status="warn",
        evidence=evidence,
        reason="; ".join(parts) or f"hooks and transcript agree on all {len(both)} tool calls",
    )


def checks(has_hook_source: bool, has_transcript: bool = False) -> list[FnCheck[L0Ctx]]:
    return [
        FnCheck("l0.pairing", LEVEL, "low", frozenset({"call_ids", "tool_results"}), _pairing),
        FnCheck(
            "l0.hook_errors",
            LEVEL,
            "low",
            frozenset(),
            _hook_errors,
            disabled_reason=None if has_hook_source else "no hook source in this session",
        ),
        FnCheck("l0.damaged_events", LEVEL, "low", frozenset(), _damaged),
        FnCheck(
            "l0.transcript_agreement",
            LEVEL,
            "low",
            frozenset(),
            _disagreement,
            disabled_reason=None
            if has_hook_source and has_transcript
            else "needs both hook events and an imported transcript of the same session",
        ),
    ]


def grade_l0(
    events: Sequence[dict[str, Any]],
    pairing: Pairing,
    profile: Profile,
    hook_errors: Sequence[dict[str, Any]],
    min_coverage: float,
    idle_gap_seconds: float = DEFAULT_IDLE_GAP_SECONDS,
) -> L0Result:
    ctx = L0Ctx(events, pairing, profile, hook_errors)
    has_hook = any(s.endswith("/hook") for s in profile.sources)
    has_transcript = any(s.endswith("/transcript") for s in profile.sources)
    atoms = run_checks(checks(has_hook, has_transcript), ctx, profile)
    agg = aggregate(atoms)
    verdict = level_verdict(agg, min_coverage) or (
        "complete" if agg.earned >= agg.possible else "gaps"
    )
    return L0Result(facts(ctx, idle_gap_seconds), atoms, agg, verdict)
