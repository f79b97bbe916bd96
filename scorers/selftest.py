"""``trail eval self-test``: seed 001's three fixture cases against their expected verdicts.

The fixtures ship as package data (``scorers/data/trace-grader.fixtures.json``, a copy of
Rheinmir/setup's ``harness/tests/trace-grader.fixtures.json``, MIT), graded with the built-in
thresholds (forbidden force_push, retry_threshold 2).
"""

from __future__ import annotations

from importlib import resources

from scorers.grader_config import load_grader_config
from scorers.passk import passk_by_task
from scorers.report import render_traces
from scorers.trace_grader import grade_run
from scorers.traces_input import traces_from_text

FIXTURES = "trace-grader.fixtures.json"


def fixtures_text() -> str:
    return resources.files("scorers").joinpath("data", FIXTURES).read_text(encoding="utf-8")


def run_self_test(min_coverage: float = 0.5) -> tuple[str, list[tuple[str, bool]]]:
    config = load_grader_config(None)
    tf = traces_from_text(fixtures_text(), FIXTURES)
    results = [grade_run(r, config, tf.profile, min_coverage) for r in tf.runs]
    passk = passk_by_task([(r.task or r.run_id, r.run_id, r.delivered) for r in tf.runs])
    by_run = {r.run.run_id: r for r in results}
    by_task = {t.task: t for t in passk}
    checks: list[tuple[str, bool]] = []
    a = by_run.get("T1-clean-r1")
    checks.append(
        (
            "(a) T1-clean: clean-pass with no flags",
            a is not None and a.verdict == "clean-pass" and not a.findings,
        )
    )
    b = by_run.get("T2-corrupt-r1")
    kinds = {f.check for f in b.findings} if b else set()
    checks.append(
        (
            "(b) T2-corrupt: forbidden_tool (high) + retry_storm (medium) -> corrupt-success",
            b is not None
            and b.verdict == "corrupt-success"
            and {"forbidden_tool", "retry_storm"} <= kinds,
        )
    )
    c = by_task.get("T3-flaky")
    checks.append(
        (
            "(c) T3-flaky: pass^3 FAIL (2 of 3 delivered) -> flaky",
            c is not None and c.k == 3 and c.c == 2 and c.status == "flaky",
        )
    )
    checks.append(
        (
            "(d) T1 and T2 repeatable (pass^1 = 1)",
            all(
                by_task.get(t) is not None and by_task[t].status == "pass"
                for t in ("T1-clean", "T2-corrupt")
            ),
        )
    )
    return render_traces(results, passk, tf.format), checks
