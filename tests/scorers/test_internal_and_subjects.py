"""Harness-internal agents are not the user's agents (issue 7, item 4 as it reaches the
graders), and coverage counts what the session contains (item 5): a check whose subject is
absent from the session is unscored with the reason, out of numerator and denominator."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from scorers.completeness import file_profile
from scorers.grader_config import load_grader_config
from scorers.steps import Run, Step
from scorers.trace_grader import grade_run
from tests.scorers.conftest import invoke, stored_event, tool, write_session


def score(home: Path, events: list[dict[str, Any]], *extra: str) -> list[dict[str, Any]]:
    sid = write_session(home, events)
    res = invoke("eval", "score", "--session", sid, "--json", "--no-ledger", *extra)
    assert res.exit_code in (0, 3, 4), res.output
    return json.loads(res.output)["grades"]  # type: ignore[no-any-return]


def atom(rec: dict[str, Any], name: str) -> dict[str, Any]:
    return next(a for a in rec["atoms"] if a["check"] == name)  # type: ignore[no-any-return]


def test_internal_agents_are_counted_in_l0_and_not_graded(trail_home: Path) -> None:
    sid = "sess-internal"
    events = [
        stored_event(sid, "session_start"),
        stored_event(sid, "subagent_start", agent_id="w1", internal="warmup"),
        # The warmup agent fails the same tool four times: not the user's retry storm.
        *[
            e
            for i in range(4)
            for e in tool(sid, "Bash", f"w{i}", "shell", {"command": "ls"}, "failed", agent_id="w1")
        ],
        *tool(sid, "Bash", "c1", "shell", {"command": "ct add x"}, "ok", agent_id="w1"),
        stored_event(sid, "compaction", internal="compaction", text="summary"),
        *tool(sid, "Read", "r1", "read", {"file_path": "/p/a.py"}),
        stored_event(sid, "session_end"),
    ]
    trace, cleo = score(trail_home, events, "--rubric", "cleo")
    facts = trace["levels"]["L0"]["facts"]
    assert facts["internal"]["steps"] == 5 and facts["internal"]["agents"] == {"w1": "warmup"}
    assert facts["internal"]["kinds"] == {"warmup": 11, "compaction": 1}
    assert facts["errors"]["steps"] == 1 and facts["errors"]["failed"] == 0
    assert facts["tools"] == {"Read": 1}
    assert facts["contents"]["subagents"] == 0  # the warmup agent is not the user's subagent
    assert atom(trace, "retry_storm")["status"] == "pass"
    assert trace["levels"]["L1"]["internalSteps"] == 5
    assert "in 1 steps" in atom(trace, "excessive_steps")["reason"]
    # The warmup agent's `ct add` is not the user's CLEO operation.
    assert cleo["entryCount"] == 0
    text = invoke("eval", "score", "--session", sid, "--no-ledger").output
    assert "harness-internal agents: 12 events (warmup 11, compaction 1), 5 steps" in text


def test_checks_whose_subject_is_absent_are_unscored(trail_home: Path) -> None:
    # Reads and a shell call, no failures, no edits.
    sid = "sess-reads"
    events = [
        stored_event(sid, "session_start"),
        *tool(sid, "Read", "r1", "read", {"file_path": "/p/a.py"}),
        *tool(sid, "Bash", "b1", "shell", {"command": "pytest"}),
    ]
    [rec] = score(trail_home, events)
    for name in ("out_of_order", "edited_without_read"):
        a = atom(rec, name)
        assert a["status"] == "unscored" and a["reason"].startswith("nothing to judge"), a
    # No failures is still something to judge: the agent could have stormed and did not.
    assert atom(rec, "retry_storm")["status"] == "pass"
    assert atom(rec, "forbidden_tool")["status"] == "pass"
    l1 = rec["levels"]["L1"]
    assert (l1["earned"], l1["possible"], l1["total_possible"]) == (6, 6, 10)
    assert l1["coverage"] == 0.6 and rec["coverage"] == 0.6  # not 100%


def test_l0_checks_with_nothing_to_judge(trail_home: Path) -> None:
    sid = "sess-l0-empty"
    events = [stored_event(sid, "session_start"), stored_event(sid, "prompt", text="hi")]
    [rec] = score(trail_home, events, "--level", "L0")
    pairing = atom(rec, "l0.pairing")
    assert pairing["status"] == "unscored" and "no tool calls" in pairing["reason"]
    assert atom(rec, "l0.damaged_events")["status"] == "pass"  # events exist: judged


def test_no_must_precede_pairs_is_switched_off_not_passed(tmp_path: Path) -> None:
    cfg_file = tmp_path / "tg.yaml"
    cfg_file.write_text("order_constraints: {must_precede: []}\n")
    cfg = load_grader_config(str(cfg_file))
    steps = [Step(1, "edit", "edit", {"path": "/a"}, ok=True, event_id="e1", path="/a")]
    res = grade_run(Run("r", steps, True), cfg, file_profile("trace-grader", "traces"), 0.5)
    order = next(a for a in res.atoms if a.check == "out_of_order")
    assert order.status == "unscored" and "disabled by config" in order.reason


def test_a_skill_load_inside_an_internal_agent_is_not_the_agents_cleo_lookup() -> None:
    """An internal agent is marked on its start; its other events need not carry the flag."""
    from scorers.cleo_ops import ops_from_skills

    skill = {"kind": "skill_loaded", "skill": "ct-cleo", "id": "s1", "ts": "2026-01-01T00:00:00Z"}
    inside = {**skill, "id": "s2", "agent_id": "awarmup-1"}
    ops = ops_from_skills([skill, inside], {"awarmup-1": "warmup"})
    assert [op.evidence for op in ops] == ["s1"]
