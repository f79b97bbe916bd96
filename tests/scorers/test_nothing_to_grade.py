"""Nothing to grade is not a pass (issue 7 item 5, seed 002's intentional empty grade).

A session whose user agents took no action — prompts and text only, only skill loads, or only
harness-internal agents (Warmup) — gets ``nothing-to-grade``: no score, not 10/10, not coverage
100%, in the text report, ``--json``, GRADES.jsonl and the gate's exit code (5; JUnit skipped).
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from scorers.grader_config import load_grader_config
from scorers.passk import passk_by_task
from scorers.steps import Run
from scorers.trace_grader import grade_run
from scorers.traces_input import traces_from_text
from tests.scorers.conftest import (
    call,
    end,
    feed,
    invoke,
    start,
    stored_event,
    tool,
    write_session,
)

NOTHING = "nothing-to-grade"


def prompt(sid: str, text: str) -> dict[str, Any]:
    return {"session_id": sid, "hook_event_name": "UserPromptSubmit", "prompt": text, "cwd": "/p"}


def stop(sid: str) -> dict[str, Any]:
    return {"session_id": sid, "hook_event_name": "Stop", "stop_hook_active": False, "cwd": "/p"}


def ledger(home: Path) -> list[dict[str, Any]]:
    path = home / "GRADES.jsonl"
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


def talk_only(sid: str = "sess-talk") -> str:
    """A real hook session: a prompt, an answer, no tool call."""
    feed([start(sid), prompt(sid, "what does this repo do?"), stop(sid), end(sid)])
    return sid


def test_prompts_only_session_is_nothing_to_grade_everywhere(trail_home: Path) -> None:
    sid = talk_only()
    res = invoke("eval", "score", "--session", sid, "--json")
    assert res.exit_code == 5, res.output  # neither a pass (0) nor a failure (3)
    [rec] = json.loads(res.output)["grades"]
    assert rec["verdict"] == NOTHING
    assert rec["totalScore"] is None and rec["maxScore"] is None and rec["percent"] is None
    assert rec["coverage"] == 0.0  # nothing was judged: never 100%
    assert "no agent action" in rec["nothingToGrade"]
    assert rec["levels"]["L1"]["verdict"] == NOTHING and rec["levels"]["L1"]["score"] is None
    l1 = [a for a in rec["atoms"] if a["level"] == "L1"]
    assert l1 and all(a["status"] == "unscored" for a in l1)
    assert all(a["reason"].startswith("nothing to grade") for a in l1)
    # The ledger holds it as a finished grade (seed 002: graded with zero verdicts).
    [row] = ledger(trail_home)
    assert row["verdict"] == NOTHING and row["totalScore"] is None
    text = invoke("eval", "score", "--session", sid, "--no-ledger")
    assert text.exit_code == 5
    assert "verdict: nothing-to-grade" in text.output
    assert "10/10" not in text.output and "flags-only" not in text.output
    listed = invoke("eval", "list")
    assert NOTHING in listed.output and "n/a" in listed.output


def test_gate_treats_nothing_to_grade_as_neither_pass_nor_fail(
    good_session: str, trail_home: Path, tmp_path: Path
) -> None:
    sid = talk_only()
    junit = tmp_path / "junit.xml"
    alone = invoke("eval", "gate", "--session", sid, "--junit", str(junit))
    assert alone.exit_code == 5, alone.output
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None and suite.get("skipped") == "1" and suite.get("failures") == "0"
    # Beside a judged session, a session with nothing to grade leaves it to decide the code.
    invoke("eval", "outcome", good_session, "pass")
    both = invoke("eval", "gate", "--session", sid, "--session", good_session, "--json")
    assert both.exit_code == 0, both.output
    cases = {c["name"]: c for c in json.loads(both.output)["cases"]}
    assert cases[f"claude-code/{sid} [trace-grader]"]["status"] == "skipped"
    assert "no agent action" in cases[f"claude-code/{sid} [trace-grader]"]["message"]


def test_only_skill_loads_is_nothing_to_grade(trail_home: Path) -> None:
    sid = "sess-skill"
    feed(
        [
            start(sid),
            *call(sid, "Skill", "t1", {"skill": "pdf"}),
            end(sid),
        ]
    )
    rec = json.loads(invoke("eval", "score", "--session", sid, "--json").output)["grades"][0]
    assert rec["verdict"] == NOTHING
    assert "skill load" in rec["nothingToGrade"]


def test_only_warmup_agents_is_nothing_to_grade(trail_home: Path) -> None:
    sid = "sess-warmup"
    write_session(
        trail_home,
        [
            stored_event(sid, "session_start"),
            stored_event(sid, "prompt", text="Warmup", internal="warmup", agent_id="w1"),
            *tool(sid, "Glob", "g1", "search", {"pattern": "*"}, internal="warmup", agent_id="w1"),
            *tool(sid, "Read", "r1", "read", {"file_path": "/p/a"}, agent_id="w1"),
            stored_event(sid, "session_end"),
        ],
    )
    res = invoke("eval", "score", "--session", sid, "--json")
    assert res.exit_code == 5, res.output
    rec = json.loads(res.output)["grades"][0]
    assert rec["verdict"] == NOTHING
    assert "only harness-internal agents acted (2 step(s), warmup)" in rec["nothingToGrade"]
    internal = rec["levels"]["L0"]["facts"]["internal"]
    assert internal["steps"] == 2 and internal["kinds"] == {"warmup": 5}
    assert rec["levels"]["L0"]["facts"]["errors"]["steps"] == 0


def test_cleo_rubric_on_a_session_without_actions(trail_home: Path) -> None:
    sid = talk_only("sess-talk-cleo")
    res = invoke("eval", "score", "--session", sid, "--rubric", "cleo", "--json")
    assert res.exit_code == 5, res.output
    recs = {r["rubric"]: r for r in json.loads(res.output)["grades"]}
    assert recs["cleo"]["verdict"] == recs["cleo"]["grade"] == NOTHING
    assert recs["cleo"]["totalScore"] is None and recs["cleo"]["percent"] is None
    text = invoke("eval", "score", "--session", sid, "--rubric", "cleo", "--no-ledger")
    assert "grade: nothing-to-grade" in text.output


def test_a_run_without_steps_in_a_traces_file(tmp_path: Path) -> None:
    doc = {"tasks": [{"task": "T", "runs": [{"run_id": "r1", "ok": True, "steps": []}]}]}
    path = tmp_path / "traces.json"
    path.write_text(json.dumps(doc))
    res = invoke("eval", "score", "--traces", str(path), "--json")
    [run] = json.loads(res.output)["runs"]
    assert run["verdict"] == NOTHING and run["score"] is None and run["coverage"] == 0.0
    # The outcome is still a fact for pass^k: a delivered run is a trial, and the task's
    # pass^1 was judged, so the exit code is the task's (0), not "nothing to grade" (5).
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["pass_k"]["T"]["status"] == "pass"
    tf = traces_from_text(path.read_text(), "traces.json")
    [task] = passk_by_task([(r.task or r.run_id, r.run_id, r.delivered) for r in tf.runs])
    assert task.c == task.n == 1


def test_grade_run_nothing_to_grade_whatever_the_outcome() -> None:
    cfg = load_grader_config(None)
    from scorers.completeness import file_profile

    for delivered in (True, False, None):
        res = grade_run(Run("r", [], delivered), cfg, file_profile("trace-grader", "traces"), 0.5)
        assert res.verdict == NOTHING and res.aggregate.score is None
        assert not res.findings


def test_session_with_one_real_action_is_graded(trail_home: Path) -> None:
    sid = "sess-one"
    feed([start(sid), prompt(sid, "read it"), *call(sid, "Read", "t1", {"file_path": "/a"})])
    rec = json.loads(invoke("eval", "score", "--session", sid, "--json").output)["grades"][0]
    assert rec["verdict"] == "flags-only: clean" and rec["nothingToGrade"] is None
