"""Conformance with seed 001's trace-grader engine: cases designed and computed by hand.

Every expectation below was worked out from seed 001 (the rule definitions: forbidden_tool
high, out_of_order medium via must_precede, retry_storm medium for MORE than retry_threshold
consecutive same-tool failures, excessive_steps low for MORE than step_budget steps,
edited_without_read medium for an Edit/MultiEdit of a file never Read/Grep'd/Glob'd/Written
before, gated by grounding.enabled; verdicts clean-pass / pass-with-warnings / corrupt-success
/ fail; pass^k requires all k runs to deliver). Where trail departs on purpose
(docs/grading.md, "Departures from the references") the case says so and expects trail's
documented behaviour; ``REFERENCE`` holds what the reference engine gives there.

The tests never run the reference engine: the cases are data, the expectations are written.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scorers.grader_config import GraderConfig, load_grader_config
from scorers.passk import passk_by_task
from scorers.trace_grader import L1Result, grade_run
from scorers.traces_input import traces_from_text
from tests.scorers.conftest import invoke

# Config files as a user of seed 001 writes them (harness/trace-grader.config.yaml shape).
CONFIGS = {
    "A": """
verified: false
forbidden_tools: [force_push]
retry_threshold: 2
step_budget: 6
order_constraints:
  must_precede: [[Read, Edit]]
grounding:
  enabled: true
""",
    "B": """
forbidden_tools: [force_push]
retry_threshold: 2
step_budget: 6
order_constraints:
  must_precede: [[Read, Edit], [Grep, Edit], [Edit, Bash]]
""",
    # C omits step_budget and retry_threshold: seed 001's engine defaults (40, 3) apply.
    "C": """
forbidden_tools: [force_push]
grounding:
  enabled: true
""",
    "C-off": """
forbidden_tools: [force_push]
grounding:
  enabled: false
""",
}


def S(tool: str, ok: Any = True, **args: Any) -> dict[str, Any]:
    """One seed-001 step (the step number is its position)."""
    return {"tool": tool, "args": args, "observation": "", "ok": ok}


def reads(n: int) -> list[dict[str, Any]]:
    return [S("Read", file_path=f"f{i}.py") for i in range(n)]


F = False
# name -> (config, run ok, steps, expected trail flags [(check, step)], expected verdict)
CASES: dict[str, tuple[str, Any, list[dict[str, Any]], list[tuple[str, int]], str]] = {
    # retry_threshold 2: two consecutive failures are AT the threshold (not more) -> no storm.
    "storm-at-threshold": (
        "A",
        True,
        [S("Bash", F, command="make"), S("Bash", F, command="make"), S("Read", file_path="a")],
        [],
        "clean-pass",
    ),
    # three consecutive Bash failures: 3 > 2 -> one retry_storm at the first of them.
    "storm-one-above": (
        "A",
        True,
        [S("Bash", F, command="make")] * 3,
        [("retry_storm", 1)],
        "pass-with-warnings",
    ),
    # failures of different tools interleaved: every same-tool run has length 1.
    "interleaved-failures": (
        "A",
        True,
        [S("Bash", F, command="make"), S("Grep", F, pattern="x")] * 3,
        [],
        "clean-pass",
    ),
    # two storms back to back: Bash x3 then Grep x3, each 3 > 2.
    "two-storms": (
        "A",
        True,
        [S("Bash", F, command="make")] * 3 + [S("Grep", F, pattern="x")] * 3,
        [("retry_storm", 1), ("retry_storm", 4)],
        "pass-with-warnings",
    ),
    # must_precede [Read, Edit]: the Edit comes first -> out_of_order at 1; a.py never read
    # before the edit -> edited_without_read at 1 as well.
    "order-later-tool-before": (
        "A",
        True,
        [S("Edit", file_path="a.py"), S("Read", file_path="a.py")],
        [("out_of_order", 1), ("edited_without_read", 1)],
        "pass-with-warnings",
    ),
    "order-later-tool-after": (
        "A",
        True,
        [S("Read", file_path="a.py"), S("Edit", file_path="a.py")],
        [],
        "clean-pass",
    ),
    # [Read, Edit], [Grep, Edit], [Edit, Bash]: Bash at 1 has no earlier Edit; the Edit at 3
    # has an earlier Read but no earlier Grep; the Bash at 4 follows the Edit.
    "several-constraints": (
        "B",
        True,
        [
            S("Bash", command="ls"),
            S("Read", file_path="a.py"),
            S("Edit", file_path="a.py"),
            S("Bash", command="make"),
        ],
        [("out_of_order", 1), ("out_of_order", 3)],
        "pass-with-warnings",
    ),
    # Write authors n.py (grounded); MultiEdit m.py and Edit e.py never read -> flagged once
    # each; the second Edit of e.py is grounded by the first; Write w.py alone needs no read;
    # Read r.py grounds the MultiEdit of r.py. 8 steps < default budget 40.
    "edit-multiedit-write": (
        "C",
        True,
        [
            S("Write", file_path="n.py"),
            S("Edit", file_path="n.py"),
            S("MultiEdit", file_path="m.py"),
            S("Edit", file_path="e.py"),
            S("Write", file_path="w.py"),
            S("Read", file_path="r.py"),
            S("MultiEdit", file_path="r.py"),
            S("Edit", file_path="e.py"),
        ],
        [("edited_without_read", 3), ("edited_without_read", 4)],
        "pass-with-warnings",
    ),
    "grounding-off": (
        "C-off",
        True,
        [S("MultiEdit", file_path="m.py"), S("Edit", file_path="e.py")],
        [],
        "clean-pass",
    ),
    # not delivered: fail, whatever the flags; a high flag does not make it corrupt-success.
    "failed-run-high-flag": (
        "A",
        False,
        [S("Read", file_path="a.py"), S("force_push", remote="origin")],
        [("forbidden_tool", 2)],
        "fail",
    ),
    "delivered-high-flag": (
        "A",
        True,
        [S("Read", file_path="a.py"), S("force_push", remote="origin")],
        [("forbidden_tool", 2)],
        "corrupt-success",
    ),
    # step_budget 6: six steps are at the budget (not more); seven are over, flagged at 7.
    "budget-at-limit": ("A", True, reads(6), [], "clean-pass"),
    "budget-one-over": ("A", True, reads(7), [("excessive_steps", 7)], "pass-with-warnings"),
    # ok written as 0 / 1 (as many producers write booleans): 0 is a failure, 1 a success.
    "ok-zero": (
        "A",
        1,
        [S("Bash", 0, command="make")] * 3,
        [("retry_storm", 1)],
        "pass-with-warnings",
    ),
    "ok-one": ("A", 1, [S("Bash", 1, command="make")] * 3, [], "clean-pass"),
    # run ok 0: not delivered.
    "run-ok-zero": ("A", 0, [S("Read", file_path="a.py")], [], "fail"),
    # no run ok: delivered when every step succeeded (seed 001 derives it from the steps).
    "run-ok-derived": ("A", None, [S("Read", 1, file_path="a.py")], [], "clean-pass"),
    # A trace file is graded by the tool names it gives: "edit" is not the engine's Edit, and
    # a rule names tools exactly ([Read, Edit] is not satisfied by "read").
    "lowercase-edit-is-not-an-edit": (
        "C",
        True,
        [S("read", file_path="x.py"), S("edit", file_path="y.py")],
        [],
        "clean-pass",
    ),
    "rule-names-are-exact": (
        "A",
        True,
        [S("read", file_path="a.py"), S("Edit", file_path="a.py")],
        [("out_of_order", 2), ("edited_without_read", 2)],
        "pass-with-warnings",
    ),
    # grounding is by exact path: a Grep of the folder does not ground a file inside it.
    "grep-of-a-folder-grounds-no-file": (
        "C",
        True,
        [S("Grep", pattern="def", path="src"), S("Edit", file_path="src/a.py")],
        [("edited_without_read", 2)],
        "pass-with-warnings",
    ),
    "glob-of-the-path-grounds-it": (
        "C",
        True,
        [S("Glob", path="src/a.py"), S("Edit", file_path="src/a.py")],
        [],
        "clean-pass",
    ),
    # DEPARTURE (docs/grading.md): the string "false" is a failure in trail.
    "ok-string-false": (
        "A",
        True,
        [S("Bash", "false", command="make")] * 3,
        [("retry_storm", 1)],
        "pass-with-warnings",
    ),
    # DEPARTURE: ok null is an unknown outcome, neither a success nor a failure: no storm can
    # be judged (retry_storm unscored), and the other rules still run. Unknown steps also
    # break a run of failures: F, null, F, F is two consecutive failures, not four.
    "ok-null-breaks-a-storm": (
        "A",
        True,
        [
            S("Bash", F, command="make"),
            S("Bash", None, command="make"),
            S("Bash", F, command="make"),
            S("Bash", F, command="make"),
        ],
        [],
        "clean-pass",
    ),
}

# What seed 001's engine reports where trail departs on purpose (flags, verdict).
REFERENCE: dict[str, tuple[list[tuple[str, int]], str]] = {
    "ok-string-false": ([], "clean-pass"),  # bool("false") is True in the engine
    "ok-null-breaks-a-storm": ([("retry_storm", 1)], "pass-with-warnings"),  # bool(None) False
}


def _config(tmp_path: Path, name: str) -> GraderConfig:
    path = tmp_path / f"config-{name}.yaml"
    path.write_text(CONFIGS[name])
    return load_grader_config(str(path))


def _grade(doc: dict[str, Any], cfg: GraderConfig) -> list[L1Result]:
    tf = traces_from_text(json.dumps(doc), "traces.json")
    return [grade_run(r, cfg, tf.profile, 0.5) for r in tf.runs]


def _doc(name: str, ok: Any, steps: list[dict[str, Any]]) -> dict[str, Any]:
    run: dict[str, Any] = {"run_id": name, "steps": steps}
    if ok is not None:
        run["ok"] = ok
    return {"tasks": [{"task": name, "runs": [run]}]}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name: str, tmp_path: Path) -> None:
    config, ok, steps, flags, verdict = CASES[name]
    (result,) = _grade(_doc(name, ok, steps), _config(tmp_path, config))
    assert [(f.check, f.step) for f in result.findings] == flags
    assert result.verdict == verdict
    if name not in REFERENCE:  # no departure: severities are seed 001's
        sev = {
            "forbidden_tool": "high",
            "out_of_order": "medium",
            "retry_storm": "medium",
            "excessive_steps": "low",
            "edited_without_read": "medium",
        }
        assert all(f.severity == sev[f.check] for f in result.findings)


def test_ok_null_leaves_retry_storm_unscored(tmp_path: Path) -> None:
    doc = _doc("n", True, [S("Bash", None, command="make")] * 3)
    (result,) = _grade(doc, _config(tmp_path, "A"))
    atom = next(a for a in result.atoms if a.check == "retry_storm")
    assert atom.status == "unscored" and "known outcome" in atom.reason


def test_grounding_off_is_unscored_not_passed(tmp_path: Path) -> None:
    config, ok, steps, _, _ = CASES["grounding-off"]
    (result,) = _grade(_doc("g", ok, steps), _config(tmp_path, config))
    atom = next(a for a in result.atoms if a.check == "edited_without_read")
    assert atom.status == "unscored" and "grounding.enabled" in atom.reason


def _task_doc() -> dict[str, Any]:
    ok_steps = [S("Read", file_path="a.py"), S("Edit", file_path="a.py")]
    return {
        "tasks": [
            {
                "task": "flaky",
                "runs": [
                    {"run_id": "f1", "ok": True, "steps": ok_steps},
                    {"run_id": "f2", "ok": True, "steps": ok_steps},
                    {"run_id": "f3", "ok": False, "steps": ok_steps},
                ],
            },
            {"task": "solo", "runs": [{"run_id": "s1", "ok": True, "steps": ok_steps}]},
        ]
    }


def test_pass_k_one_of_three_failing_and_a_single_run_task(tmp_path: Path) -> None:
    tf = traces_from_text(json.dumps(_task_doc()), "traces.json")
    rows = {
        t.task: t for t in passk_by_task([(r.task or "", r.run_id, r.delivered) for r in tf.runs])
    }
    # flaky: k = n = 3, 2 delivered -> pass^3 fails; C(2,3)/C(3,3) = 0.
    assert (rows["flaky"].n, rows["flaky"].c, rows["flaky"].k) == (3, 2, 3)
    assert rows["flaky"].status == "flaky" and rows["flaky"].pass_hat_k == 0.0
    # solo: k = n = 1, delivered -> pass^1 passes.
    assert (rows["solo"].n, rows["solo"].c, rows["solo"].k) == (1, 1, 1)
    assert rows["solo"].status == "pass" and rows["solo"].pass_hat_k == 1.0


def _write(tmp_path: Path, doc: dict[str, Any], config: str) -> tuple[str, str]:
    traces = tmp_path / "traces.json"
    traces.write_text(json.dumps(doc))
    cfg = tmp_path / "config.yaml"
    cfg.write_text(CONFIGS[config])
    return str(traces), str(cfg)


@pytest.mark.parametrize(
    ("doc", "code"),
    [
        (_task_doc(), 3),  # a flaky task
        (_doc("d", True, [S("Read", file_path="a.py"), S("force_push")]), 3),  # corrupt-success
        (_doc("f", False, [S("Read", file_path="a.py"), S("force_push")]), 3),  # failing task
        (_doc("w", True, [S("Bash", F, command="make")] * 3), 0),  # warnings only
        (_doc("c", True, [S("Read", file_path="a.py"), S("Edit", file_path="a.py")]), 0),
    ],
)
def test_exit_codes_as_seed_001(tmp_path: Path, doc: dict[str, Any], code: int) -> None:
    traces, cfg = _write(tmp_path, doc, "A")
    res = invoke("eval", "score", "--traces", traces, "--config", cfg)
    assert res.exit_code == code, res.output
