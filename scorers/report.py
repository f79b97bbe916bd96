"""Readable reports: verdict, score beside coverage, flags with the event each points to,
unscored checks with their reason, and whether the thresholds were verified."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from scorers.atoms import Aggregate, Atom
from scorers.passk import TaskPassK
from scorers.trace_grader import L1Result

RULE = "─" * 72
MARK = {
    "clean-pass": "PASS",
    "pass-with-warnings": "WARN",
    "corrupt-success": "CORRUPT",
    "fail": "FAIL",
    "insufficient-data": "NODATA",
    "flags-only: clean": "FLAGS:OK",
    "flags-only: warnings": "FLAGS:WARN",
    "flags-only: high-severity": "FLAGS:HIGH",
    "nothing-to-grade": "NOTHING",
}


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.0f}%"


def score_line(agg: Aggregate) -> str:
    if agg.score is None:
        return f"score n/a (nothing scored), coverage {_pct(agg.coverage)}"
    return (
        f"score {agg.earned:g}/{agg.possible:g} = {_pct(agg.score)}, "
        f"coverage {_pct(agg.coverage)} ({agg.possible:g} of {agg.total_possible:g} "
        "possible were scorable)"
    )


def config_line(prov: dict[str, Any]) -> str:
    state = (
        "verified"
        if prov.get("verified")
        else "UNVERIFIED (verified: false; every value is an assumption)"
    )
    return f"thresholds: {prov.get('source')} sha256 {str(prov.get('sha256'))[:12]}… {state}"


def atom_lines(atoms: Sequence[Atom], indent: str = "  ") -> list[str]:
    out = []
    for a in atoms:
        if a.status == "unscored":
            out.append(f"{indent}[unscored] {a.check}: {a.reason}")
        elif a.status == "pass":
            out.append(f"{indent}[pass]     {a.check} ({a.earned:g}/{a.possible:g})")
        else:
            ev = f"  -> {', '.join(a.evidence[:3])}" if a.evidence else ""
            more = f" (+{len(a.evidence) - 3})" if len(a.evidence) > 3 else ""
            out.append(
                f"{indent}[{a.status}]{' ' * (9 - len(a.status))}{a.check} "
                f"({a.earned:g}/{a.possible:g}, {a.severity}): {a.reason}{ev}{more}"
            )
    return out


def render_l1(result: L1Result, header: bool = True) -> list[str]:
    out = []
    if result.nothing_reason is not None:
        if header:
            out.append(f"L1 verdict: {result.verdict}   (no score, nothing was judged)")
        out.append(f"  {result.nothing_reason}")
        if result.internal_steps:
            out.append(f"  harness-internal agents' steps, not graded: {result.internal_steps}")
        return out
    if header:
        out.append(f"L1 verdict: {result.verdict}   ({score_line(result.aggregate)})")
    if result.internal_steps:
        out.append(f"  harness-internal agents' steps, not graded: {result.internal_steps}")
    if result.run.delivered is None:
        out.append(
            "  outcome: unknown — the verdict is derived from flags alone; record it "
            "with `trail eval outcome SESSION pass|fail`"
        )
    for f in result.findings:
        out.append(f"  flag {f.severity:6} {f.check}: {f.detail}  -> event {f.event}")
    out += atom_lines([a for a in result.atoms if a.status == "unscored"])
    return out


def render_session(record: dict[str, Any], l1: L1Result | None) -> str:
    out = [
        f"session {record['sessionKey']}  ({record['harness']}, {record['entryCount']} "
        f"events, outcome {record['outcome']}"
        + (f", task {record['taskId']}" if record.get("taskId") else "")
        + ")",
        RULE,
    ]
    levels = record["levels"]
    if "L0" in levels:
        l0 = levels["L0"]
        f = l0["facts"]
        p = f["pairing"]
        e = f["errors"]
        out.append(
            f"L0 integrity: {l0['verdict']}   (score {_pct(l0['score'])}, coverage "
            f"{_pct(l0['coverage'])})"
        )
        out.append(
            f"  events {f['events']}: " + ", ".join(f"{k} {v}" for k, v in f["by_kind"].items())
        )
        if f["tools"]:
            out.append("  tools: " + ", ".join(f"{k} {v}" for k, v in f["tools"].items()))
        out.append(
            f"  calls {p['calls']}, results {p['results']}, paired {p['paired']}, "
            f"calls without result {p['calls_without_result']}, results without call "
            f"{p['results_without_call']}"
        )
        out.append(
            f"  errors {e['failed']} of {e['steps_with_known_outcome']} known outcomes "
            f"(rate {_pct(e['error_rate'])}); not failures: refused {e['refused']}, "
            f"cancelled {e['cancelled']}, interrupted {e['interrupted']}"
        )
        internal = f["internal"]
        if internal["events"]:
            kinds = ", ".join(f"{k} {v}" for k, v in internal["kinds"].items())
            out.append(
                f"  harness-internal agents: {internal['events']} events ({kinds}), "
                f"{internal['steps']} steps, not graded as agent behaviour"
            )
        if f["durations_ms"]:
            d = f["durations_ms"]
            out.append(
                f"  tool time {d['total'] / 1000:.1f}s over {d['count']} results "
                f"(p50 {d['p50']:.0f} ms, max {d['max']:.0f} ms)"
            )
        t = f["timeline"]
        if t["span_seconds"] is not None:
            out.append(
                f"  span {t['span_seconds']:.0f}s, idle gaps > "
                f"{t['idle_gap_threshold_seconds']:.0f}s: {t['idle_gaps']}"
            )
        out.append(
            f"  hook errors {f['hook_errors']['count']}, redactions "
            f"{f['redactions']['total']} in {f['redactions']['events']} events, "
            f"truncated events {f['truncated_events']}"
        )
        prof = f["profile"]
        out.append(f"  sources: {', '.join(prof['sources']) or 'none'}")
        if prof["cannot_provide"]:
            out.append("  harness cannot provide: " + ", ".join(prof["cannot_provide"]))
        for cap, why in prof["trace_missing"].items():
            out.append(f"  trace is missing {cap}: {why}")
        for gap in prof["integrity_gaps"]:
            out.append(f"  integrity gap: {gap['reason']}")
        out.append(
            f"  source agreement: {f['disagreements']['status']} ({f['disagreements']['reason']})"
        )
        for finding in (f.get("source_agreement") or {}).get("findings", [])[:5]:
            out.append(f"    {finding['kind']}: {finding['detail']}")
        if f["contents"]["nothing_to_grade"] and l1 is None:
            out.append(f"  {f['contents']['nothing_to_grade']}")
    if l1 is not None:
        out.append(RULE)
        out += render_l1(l1)
        out.append("  " + config_line(record["config"]))
    out.append(RULE)
    out.append(f"verdict: {record['verdict']}")
    return "\n".join(out)


def render_cleo(record: dict[str, Any], atoms: Sequence[Atom]) -> str:
    pct = record["percent"]
    grade = record["grade"]
    if record.get("nothingToGrade"):
        return "\n".join(
            [
                RULE,
                f"rubric {record['rubricVersion']} — {record['sessionKey']}",
                f"grade: {grade}   (no score: {record['nothingToGrade']})",
            ]
        )
    out = [
        RULE,
        f"rubric {record['rubricVersion']} — {record['sessionKey']}",
        f"grade: {grade}   {record['totalScore']:g}/{record['maxScore']:g} scored points"
        + (f" = {pct:g}%" if pct is not None else "")
        + f", coverage {_pct(record['coverage'])} of {record['rubricMax']:g}, "
        f"{record['entryCount']} CLEO operations ({record['opSource']})",
    ]
    for name, dim in record["dimensions"].items():
        score = "unscored" if dim["score"] is None else f"{dim['score']:g}/{dim['scoredMax']:g}"
        ev = f"  evidence: {', '.join(dim['evidence'][:3])}" if dim["evidence"] else ""
        out.append(f"  {name:20} {score:10} (max {dim['max']:g}){ev}")
    out += atom_lines([a for a in atoms if a.status != "pass"], "    ")
    for f in record["findings"]:
        where = f" -> {', '.join(f['events'][:3])}" if f["events"] else ""
        out.append(f"  flag: {f['flag']}{where}")
    return "\n".join(out)


def render_traces(results: Sequence[L1Result], passk: Sequence[TaskPassK], fmt: str) -> str:
    out = [f"trace-grader report ({fmt} input)", RULE]
    for r in results:
        scored = "no score, nothing to grade" if r.nothing_reason else score_line(r.aggregate)
        out.append(
            f"[{MARK.get(r.verdict, r.verdict):9}] {r.run.task} / {r.run.run_id}  "
            f"(outcome {r.run.outcome}, steps {r.steps}, flags "
            f"{len(r.findings)}, {scored})"
        )
        if r.nothing_reason:
            out.append(f"      {r.nothing_reason}")
            continue
        for f in r.findings:
            out.append(f"      - {f.severity:6} {f.check}: {f.detail}  -> {f.event}")
        out += atom_lines([a for a in r.atoms if a.status == "unscored"], "      ")
    out.append(RULE)
    out += render_passk(passk)
    if results:
        out.append(RULE)
        out.append(config_line(results[0].config.provenance()))
        out.append("agent-as-judge axis: disabled (L0/L1 never call a model)")
    return "\n".join(out)


def render_passk(rows: Sequence[TaskPassK]) -> list[str]:
    out = ["pass^k (per task, own n; all k must succeed):"]
    if not rows:
        out.append("  no labelled runs (label sessions with `trail eval task SESSION LABEL`)")
    for t in rows:
        value = "n/a" if t.pass_hat_k is None else f"{t.pass_hat_k:.4g}"
        unknown = f", {t.unknown} run(s) with unknown outcome not counted" if t.unknown else ""
        out.append(
            f"  {t.task}: pass^{t.k} = {value}  [{t.status.upper()}]  "
            f"({t.c}/{t.n} trials delivered{unknown})"
        )
    return out
