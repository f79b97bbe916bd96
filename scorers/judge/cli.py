"""``trail eval calibrate``: measure a judge against the labelled set, store the result."""

from __future__ import annotations

import json
from typing import Any

import click

from scorers.verdicts import NOT_ENGAGED


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.0%}"


def _table(title: str, agreement: dict[str, Any]) -> list[str]:
    lines = [
        f"{title} ({agreement['n']} labelled): balanced accuracy "
        f"{_pct(agreement['balanced_accuracy'])}",
        f"  {'class':<30} {'precision':>9} {'recall':>7} {'bal.acc':>8} {'support':>8} "
        f"{'judged':>7}",
    ]
    for label, c in agreement["classes"].items():
        name = f"{label} ({NOT_ENGAGED})" if label == "not_applicable" else label
        lines.append(
            f"  {name:<30} {_pct(c['precision']):>9} {_pct(c['recall']):>7} "
            f"{_pct(c['balanced_accuracy']):>8} {c['support']:>8} {c['predicted']:>7}"
        )
    return lines


def render(record: dict[str, Any], stored: str | None) -> str:
    """The calibration report (``trail eval calibrate`` without --json)."""
    how = "replayed from recorded responses" if record["replayed"] else "live"
    out = [
        f"calibration of judge {record['judge']} ({how}), prompt {record['prompt_version']} "
        f"@{record['prompt_sha256'][:12]}",
        f"set: {record['set']} ({record['cases']} sessions, sha256 {record['set_sha256'][:12]})",
        "",
        *_table("guide verdicts", record["guides"]),
        "",
        *_table("action verdicts", record["actions"]),
    ]
    tokens = f"tokens {record['input_tokens']} in / {record['output_tokens']} out"
    if record.get("cost_usd") is not None:
        tokens += f", ${record['cost_usd']:.4f}"
    out += ["", tokens]
    failed = [c for c in record["per_case"] if c["failure"]]
    wrong = [c for c in record["per_case"] if c["mismatches"]]
    if failed:
        out.append(f"{len(failed)} session(s) the judge could not grade (counted as misses):")
        out += [f"  {c['id']}: {c['failure']}" for c in failed[:10]]
    if wrong:
        out.append(f"{len(wrong)} session(s) judged differently from their labels:")
        for c in wrong[:10]:
            out.append(f"  {c['id']} [{c['split']}]: " + "; ".join(c["mismatches"][:3]))
    out.append("")
    if record["passed"]:
        out.append(
            f"PASSED: every verdict class at or above {_pct(record['threshold'])} balanced "
            f"accuracy; {record['judge']} is verified for prompt {record['prompt_version']}"
        )
    else:
        out.append(
            f"NOT PASSED: {'; '.join(record['problems'])}. {record['judge']} stays unverified: "
            "its L2 verdicts are marked so in every report and never fail `trail eval gate`"
        )
    if stored:
        out.append(f"stored in {stored}")
    return "\n".join(out)


@click.command("calibrate")
@click.option(
    "--judge",
    "judge",
    default=None,
    help="The judge: an `llm` model id or alias, or replay:FILE (default: judge.model).",
)
@click.option(
    "--set",
    "set_path",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="A labelled set in the trail-l2-calibration/1 format (default: the built-in set).",
)
@click.option(
    "--min-balanced-accuracy",
    type=click.FloatRange(0, 1),
    default=None,
    help="Pass mark for every verdict class (default: judge.min_balanced_accuracy, 0.8).",
)
@click.option(
    "--record",
    "record_to",
    type=click.Path(dir_okay=False),
    default=None,
    help="Append the judge's answers to this replay file (rerun offline: --judge replay:FILE).",
)
@click.option("--no-store", is_flag=True, help="Do not append the result to CALIBRATIONS.jsonl.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.pass_context
def calibrate_cmd(
    ctx: click.Context,
    judge: str | None,
    set_path: str | None,
    min_balanced_accuracy: float | None,
    record_to: str | None,
    no_store: bool,
    as_json: bool,
) -> None:
    """Run a judge over the labelled calibration set and report its agreement.

    For guide verdicts (aligned, misaligned, not_applicable) and action verdicts (aligned,
    misaligned, unguided): precision, recall and balanced accuracy per class, and balanced
    accuracy overall. A session the judge cannot grade counts as a miss. The judge passes
    when every class reaches the pass mark; the result is appended to
    $TRAIL_HOME/CALIBRATIONS.jsonl, and a judge is verified while its latest result for the
    current prompt passed. Offline: --judge replay:calibration-oracle (the shipped answers).
    Exit codes: 0 passed, 3 not passed, 1 error (no judge, an unreadable set, or the judge
    failed on every session: nothing is stored).
    """
    from dataclasses import replace

    from scorers.judge.calibration import calibrate, calibrations_path, store
    from scorers.judge.calibration_set import load_set
    from scorers.judge.judge import judge_settings
    from scorers.judge.provider import resolve
    from trace_ingest.errors import NoProvider
    from trace_ingest.paths import trail_home

    home = trail_home()
    settings = judge_settings(home)
    if min_balanced_accuracy is not None:
        settings = replace(settings, min_balanced_accuracy=min_balanced_accuracy)
    spec = judge or settings.model
    if not spec:
        raise NoProvider("no judge model: pass --judge MODEL or set judge.model in config.json")
    model = resolve(spec)
    cases, sha = load_set(set_path)
    result = calibrate(
        model,
        cases,
        sha,
        set_name=set_path or "built-in",
        settings=settings,
        progress=None if as_json else lambda c: click.echo(f"  judged {c.id}", err=True),
        record_to=record_to,
    )
    failures = [c.failure for c in result.cases if c.failure]
    if cases and len(failures) == len(cases):
        raise click.ClickException(
            f"the judge could not grade any of the {len(cases)} sessions; first: {failures[0]}"
        )
    record = store(home, result) if not no_store else result.record()
    if as_json:
        click.echo(json.dumps(record, indent=2, ensure_ascii=False))
    else:
        click.echo(render(record, None if no_store else calibrations_path(home)))
    ctx.exit(0 if result.passed else 3)
