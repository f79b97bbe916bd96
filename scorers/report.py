"""Readable reports: verdict, score beside coverage, flags with the event each points to,
unscored checks with their reason, and whether the thresholds were verified."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from scorers.atoms import Aggregate, Atom
from scorers.grader_config import GraderConfig
from scorers.passk import TaskPassK
from scorers.trace_grader import L1Result
from scorers.verdicts import ACTION_VERDICTS, NOT_ENGAGED, JudgeInfo, L2Result

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


def render_header(record: dict[str, Any]) -> list[str]:
    """The first lines of a session's report: key, harness, events, outcome, task."""
    return [
        f"session {record['sessionKey']}  ({record['harness']}, {record['entryCount']} "
        f"events, outcome {record['outcome']}"
        + (f", task {record['taskId']}" if record.get("taskId") else "")
        + ")",
        RULE,
    ]


def render_footer(record: dict[str, Any]) -> list[str]:
    return [RULE, f"verdict: {record['verdict']}"]


def render_l0(record: dict[str, Any]) -> list[str]:
    """L0's part of the session report, from the ledger entry."""
    levels = record["levels"]
    if "L0" not in levels:
        return []
    out: list[str] = []
    l0 = levels["L0"]
    f = l0["facts"]
    p = f["pairing"]
    e = f["errors"]
    out.append(
        f"L0 integrity: {l0['verdict']}   (score {_pct(l0['score'])}, coverage "
        f"{_pct(l0['coverage'])})"
    )
    out.append(f"  events {f['events']}: " + ", ".join(f"{k} {v}" for k, v in f["by_kind"].items()))
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
    if f["contents"]["nothing_to_grade"] and "L1" not in levels:
        out.append(f"  {f['contents']['nothing_to_grade']}")
    return out


def render_l1_section(l1: L1Result, record: dict[str, Any]) -> list[str]:
    """L1's part of the session report."""
    return [RULE, *render_l1(l1), "  " + config_line(record["config"])]


def render_session(record: dict[str, Any], l1: L1Result | None) -> str:
    """The whole L0 / L1 report of one ledger entry (the registry composes the same parts)."""
    out = render_header(record) + render_l0(record)
    if l1 is not None:
        out += render_l1_section(l1, record)
    return "\n".join(out + render_footer(record))


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


def judge_line(judge: JudgeInfo | None) -> str:
    """Who judged: model, replayed or live, prompt version, and whether the judge is verified
    (a judge without a passing calibration is marked UNVERIFIED in every report)."""
    if judge is None:
        return "judge: unknown — UNVERIFIED"
    how = "replayed from recorded responses" if judge.replayed else "live"
    state = (
        f"verified ({judge.calibration})"
        if judge.verified is True
        else "UNVERIFIED (no passing calibration"
        + (f": {judge.calibration})" if judge.calibration else ")")
    )
    tokens = ""
    if judge.input_tokens is not None or judge.output_tokens is not None:
        tokens = f", tokens {judge.input_tokens or 0} in / {judge.output_tokens or 0} out"
    if judge.cost_usd is not None:
        tokens += f", ${judge.cost_usd:.4f}"
    prompt = f", prompt {judge.prompt_version}" if judge.prompt_version else ""
    return f"judge: {judge.model} ({how}{prompt}{tokens}) — {state}"


def render_l2(result: L2Result, record: dict[str, Any]) -> list[str]:
    """The L2 part of the session report: one line per guide in context (``Not engaged`` for
    not_applicable), the actions' verdicts (an action without one is "not judged", never
    unguided), what the token budget cut, and the judge (marked when unverified)."""
    out = [
        RULE,
        f"L2 — {record['sessionKey']} ({record['entryCount']} events, judged against the "
        "guides in the agent's context)",
        f"L2 judge verdict: {result.verdict}",
        "  " + judge_line(result.judge),
    ]
    if result.nothing_reason is not None:
        out.append(f"  graded, nothing to judge: {result.nothing_reason}")
        return out
    loaded = result.guides_in_context
    if loaded:
        out.append(f"  guides in context: {len(loaded)}")
    else:
        out.append("  guides in context: none (no rule file or invoked skill reached the agent)")
    judged = {(g.guide, g.version) for g in result.guides}
    for g in result.guides:
        shown = NOT_ENGAGED if g.verdict == "not_applicable" else g.verdict
        cites = f"  -> {', '.join(g.evidence[:5])}" if g.evidence else ""
        more = f" (+{len(g.evidence) - 5})" if len(g.evidence) > 5 else ""
        why = f": {g.reason}" if g.reason else ""
        out.append(f"  guide {g.guide} @{g.version[:12]}: {shown}{why}{cites}{more}")
    for info in loaded:
        if (info.get("guide"), info.get("version")) not in judged:
            out.append(
                f"  guide {info.get('guide')} @{str(info.get('version') or '')[:12]}: "
                "no verdict (not evaluated)"
            )
    counts: dict[str, int] = {}
    for a in result.actions:
        counts[a.verdict] = counts.get(a.verdict, 0) + 1
    cut = [c for c in result.cut if c.get("event")]
    parts = [f"{counts.get(v, 0)} {v}" for v in ACTION_VERDICTS]
    if cut:
        parts.append(f"{len(cut)} not judged (cut from the judge's input)")
    out.append("  actions: " + ", ".join(parts))
    for a in result.actions:
        if a.verdict == "misaligned":
            out.append(f"    misaligned {a.event}: {', '.join(a.guides) or '-'}")
    for c in result.cut:
        what = c.get("event") or c.get("guide") or c.get("field")
        out.append(f"  cut {what}: {c.get('why', '')}")
    return out


def traces_json(
    fmt: str, results: Sequence[L1Result], passk: Sequence[TaskPassK], config: GraderConfig
) -> dict[str, Any]:
    """`trail eval score --traces FILE --json`: every run, pass^k per task, a summary."""
    counts: dict[str, int] = {}
    for r in results:
        counts[r.verdict] = counts.get(r.verdict, 0) + 1
    return {
        "format": fmt,
        "runs": [r.as_dict() for r in results],
        "pass_k": {t.task: t.as_dict() for t in passk},
        "summary": {
            "n_runs": len(results),
            "n_tasks": len(passk),
            "verdicts": counts,
            "tasks_repeatable": sum(1 for t in passk if t.status == "pass"),
            "tasks_flaky": sum(1 for t in passk if t.gate_failed),
            "tasks_insufficient": sum(1 for t in passk if t.pass_hat_k is None),
            "config": config.provenance(),
            "judge_axis": "disabled (L0/L1 never call a model)",
        },
    }
