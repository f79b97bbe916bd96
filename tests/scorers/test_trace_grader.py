"""L1 rules and verdicts, with hand-computed expectations."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from scorers.completeness import file_profile
from scorers.grader_config import load_grader_config
from scorers.steps import Run, Step
from scorers.trace_grader import (
    Finding,
    find_edited_without_read,
    find_excessive_steps,
    find_forbidden_tool,
    find_out_of_order,
    find_retry_storm,
    grade_run,
    run_verdict,
)


def cfg(tmp_path: Path, **over: Any) -> Any:
    import yaml

    path = tmp_path / "cfg.yaml"
    path.write_text(yaml.safe_dump(over))
    return load_grader_config(str(path))


def steps(
    *specs: tuple[str, bool | None] | tuple[str, bool | None, dict[str, Any]],
    canonical: dict[str, str] | None = None,
) -> list[Step]:
    out = []
    for i, spec in enumerate(specs, 1):
        tool, ok = spec[0], spec[1]
        args = spec[2] if len(spec) > 2 else {}  # type: ignore[misc]
        path = args.get("path") or args.get("file_path")
        out.append(
            Step(
                index=i,
                tool=tool,
                canonical=(canonical or {}).get(tool, tool),
                args=args,
                ok=ok,
                event_id=f"e{i}",
                path=path,
            )
        )
    return out


def run(*specs: Any, delivered: bool | None = True, **kw: Any) -> Run:
    return Run(run_id="r", steps=steps(*specs, **kw), delivered=delivered, task="t")


def test_forbidden_tool_matches_raw_or_canonical(tmp_path: Path) -> None:
    c = cfg(tmp_path, forbidden_tools=["force_push", "shell"], forbidden_commands=[])
    r = run(
        ("read", True),
        ("force_push", True),
        ("Bash", True, {"command": "ls"}),
        canonical={"Bash": "shell"},
    )
    found = find_forbidden_tool(r, c)
    assert [(f.step, f.severity, f.event) for f in found] == [(2, "high", "e2"), (3, "high", "e3")]


def test_forbidden_command_pattern(tmp_path: Path) -> None:
    c = load_grader_config(None)
    r = run(
        ("Bash", True, {"command": "git push --force origin main"}),
        ("Bash", True, {"command": "git push origin main"}),
        canonical={"Bash": "shell"},
    )
    found = find_forbidden_tool(r, c)
    assert [f.step for f in found] == [1]


def test_out_of_order_every_unpreceded_use(tmp_path: Path) -> None:
    c = cfg(tmp_path, order_constraints={"must_precede": [["read", "edit"], ["plan", "act"]]})
    r = run(("edit", True), ("read", True), ("edit", True), ("act", True))
    found = find_out_of_order(r, c)
    # edit@1 (no read yet) and act@4 (no plan ever); edit@3 follows read@2.
    assert [(f.step, f.detail) for f in found] == [
        (1, "'edit' at step 1 not preceded by 'read'"),
        (4, "'act' at step 4 not preceded by 'plan'"),
    ]


def test_out_of_order_is_per_agent_lane(tmp_path: Path) -> None:
    c = cfg(tmp_path, order_constraints={"must_precede": [["read", "edit"]]})
    r = run(("read", True), ("edit", True))
    r.steps[0].agent = "sub-1"  # a subagent's read does not ground the main agent's order
    assert [f.step for f in find_out_of_order(r, c)] == [2]


@pytest.mark.parametrize(("threshold", "expected"), [(2, [1]), (3, [])])
def test_retry_storm_more_than_threshold(
    tmp_path: Path, threshold: int, expected: list[int]
) -> None:
    c = cfg(tmp_path, retry_threshold=threshold)
    # three consecutive edit failures; then read fails once; edit fails twice (not a storm).
    r = run(
        ("edit", False),
        ("edit", False),
        ("edit", False),
        ("read", False),
        ("edit", False),
        ("edit", False),
        ("edit", True),
    )
    assert [f.step for f in find_retry_storm(r, c)] == expected


def test_retry_storm_needs_same_tool_and_known_failures(tmp_path: Path) -> None:
    c = cfg(tmp_path, retry_threshold=2)
    alternating = run(("edit", False), ("bash", False), ("edit", False), ("bash", False))
    assert find_retry_storm(alternating, c) == []
    unknown = run(("edit", False), ("edit", False), ("edit", None), ("edit", False))
    assert find_retry_storm(unknown, c) == []


def test_excessive_steps_over_budget(tmp_path: Path) -> None:
    c = cfg(tmp_path, step_budget=3)
    assert find_excessive_steps(run(*[("read", True)] * 3), c) == []
    found = find_excessive_steps(run(*[("read", True)] * 4), c)
    assert [(f.step, f.severity, f.detail) for f in found] == [(4, "low", "4 steps > budget 3")]


def test_edited_without_read_grounding_proxy(tmp_path: Path) -> None:
    c = cfg(tmp_path)
    r = run(
        ("Read", True, {"file_path": "/p/a.py"}),
        ("Edit", True, {"file_path": "/p/a.py"}),  # read first: fine
        ("Edit", True, {"file_path": "/p/b.py"}),  # never read: flag
        ("Edit", True, {"file_path": "/p/b.py"}),  # same file again: one flag per file
        ("Write", True, {"file_path": "/p/c.py"}),
        ("Edit", True, {"file_path": "/p/c.py"}),  # written first: fine
        ("Grep", True, {"path": "/p/sub"}),
        ("Edit", True, {"file_path": "/p/sub/d.py"}),  # folder searched: fine
        ("Edit", True, {"file_path": "/q/e.py"}),  # flag
        canonical={"Read": "read", "Edit": "edit", "Write": "write", "Grep": "search"},
    )
    assert [f.step for f in find_edited_without_read(r, c)] == [3, 9]


def test_grounding_disabled_is_unscored(tmp_path: Path) -> None:
    c = cfg(tmp_path, grounding={"enabled": False})
    res = grade_run(
        run(("edit", True, {"path": "x"})), c, file_profile("trace-grader", "traces"), 0.5
    )
    atom = next(a for a in res.atoms if a.check == "edited_without_read")
    assert atom.status == "unscored"
    assert "grounding.enabled" in atom.reason


def F(sev: str) -> Finding:
    return Finding("x", sev, 1, "t", "e1", "d")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("delivered", "findings", "verdict"),
    [
        (True, [], "clean-pass"),
        (True, [F("medium"), F("low")], "pass-with-warnings"),
        (True, [F("high"), F("medium")], "corrupt-success"),
        (False, [], "fail"),
        (False, [F("high")], "fail"),
        (None, [], "flags-only: clean"),
        (None, [F("low")], "flags-only: warnings"),
        (None, [F("high")], "flags-only: high-severity"),
    ],
)
def test_verdicts(delivered: bool | None, findings: list[Finding], verdict: str) -> None:
    assert run_verdict(delivered, findings) == verdict


def test_unknown_outcome_is_never_a_pass() -> None:
    for findings in ([], [F("low")], [F("high")]):
        assert "pass" not in run_verdict(None, findings)


def test_score_is_weighted_earned_over_possible(tmp_path: Path) -> None:
    c = load_grader_config(None)  # weights high 3, medium 2, low 1 -> possible 3+2+2+1+2 = 10
    r = run(
        ("edit", False, {"path": "a"}),
        ("edit", False, {"path": "a"}),
        ("edit", False, {"path": "a"}),
        ("force_push", True),
    )
    res = grade_run(r, c, file_profile("trace-grader", "traces"), 0.5)
    failed = {a.check for a in res.atoms if a.status != "pass"}
    assert failed == {"forbidden_tool", "out_of_order", "retry_storm", "edited_without_read"}
    # only excessive_steps (low, 1) passed: 1/10.
    assert (res.aggregate.earned, res.aggregate.possible) == (1.0, 10.0)
    assert res.verdict == "corrupt-success"


def test_low_coverage_gives_insufficient_data_but_keeps_high_flags(tmp_path: Path) -> None:
    c = load_grader_config(None)
    profile = file_profile("nowhere", "nothing")  # declares no capability at all
    clean = grade_run(run(("read", True)), c, profile, 0.5)
    assert clean.verdict == "insufficient-data"
    assert all(a.status == "unscored" for a in clean.atoms)
    assert clean.aggregate.score is None  # never a zero
    # Audit source: no success flags, so retry_storm (2) is unscored: 8 of 10 scorable.
    names_only = file_profile("trace-grader", "audit")
    read_edit = run(("read", True, {"path": "/a"}), ("edit", True, {"path": "/a"}))
    thin = grade_run(read_edit, c, names_only, 0.9)
    assert thin.verdict == "insufficient-data"
    assert thin.aggregate.coverage == pytest.approx(0.8)
    forced = grade_run(run(("force_push", True)), c, names_only, 0.9)
    assert forced.verdict == "corrupt-success"  # a found violation is not erased
