"""Refusals and cancellations are not failures; interrupted neither (issue 7, item 4 as it
reaches the graders). Sessions are stored events with the ``status`` field of docs/events.md,
graded through the mirror (real SQLite) and the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from scorers.completeness import file_profile
from scorers.contents import event_status, step_status
from scorers.grader_config import load_grader_config
from scorers.steps import Run, Step
from scorers.trace_grader import grade_run
from tests.scorers.conftest import invoke, stored_event, tool, write_session


def grade(home: Path, events: list[dict[str, Any]], *extra: str) -> dict[str, Any]:
    sid = write_session(home, events)
    res = invoke("eval", "score", "--session", sid, "--json", "--no-ledger", *extra)
    assert res.exit_code in (0, 3, 4), res.output
    return json.loads(res.output)["grades"][0]  # type: ignore[no-any-return]


def atom(rec: dict[str, Any], name: str) -> dict[str, Any]:
    return next(a for a in rec["atoms"] if a["check"] == name)  # type: ignore[no-any-return]


def read(sid: str, cid: str, status: str) -> list[dict[str, Any]]:
    return tool(sid, "Read", cid, "read", {"file_path": f"/p/{cid}"}, status=status)


def test_cancelled_siblings_of_one_failed_read_are_no_retry_storm(trail_home: Path) -> None:
    # Claude Code cancels the 7 parallel siblings of a failing call ("Sibling tool call
    # errored"). One failure is not a storm; the cancellations are counted apart.
    sid = "sess-siblings"
    events = [stored_event(sid, "session_start"), *read(sid, "r0", "failed")]
    for i in range(1, 8):
        events += read(sid, f"r{i}", "cancelled")
    rec = grade(trail_home, events)
    assert atom(rec, "retry_storm")["status"] == "pass"
    errors = rec["levels"]["L0"]["facts"]["errors"]
    assert errors["failed"] == 1 and errors["cancelled"] == 7 and errors["refused"] == 0
    assert errors["steps_with_known_outcome"] == 1 and errors["error_rate"] == 1.0
    assert errors["cancelled_by_tool"] == {"Read": 7}
    assert rec["verdict"] == "flags-only: clean"


def test_refusals_are_no_failures_and_no_storm(trail_home: Path) -> None:
    sid = "sess-refused"
    events = [stored_event(sid, "session_start"), *read(sid, "ok1", "ok")]
    for i in range(4):
        events += tool(sid, "Bash", f"b{i}", "shell", {"command": "rm x"}, status="refused")
    rec = grade(trail_home, events)
    errors = rec["levels"]["L0"]["facts"]["errors"]
    assert errors["refused"] == 4 and errors["failed"] == 0
    assert errors["error_rate"] == 0.0  # over the one step that ran, not 4/5
    assert atom(rec, "retry_storm")["status"] == "pass"
    assert "refused 4" in invoke("eval", "score", "--session", sid, "--no-ledger").output


def test_failures_around_a_cancellation_are_still_consecutive(trail_home: Path) -> None:
    sid = "sess-around"
    events = [stored_event(sid, "session_start")]
    for cid, status in (("a", "failed"), ("b", "cancelled"), ("c", "failed"), ("d", "failed")):
        events += read(sid, cid, status)
    rec = grade(trail_home, events)
    storm = atom(rec, "retry_storm")
    assert storm["status"] == "warn" and "failed 3x in a row" in storm["reason"]


def test_interrupted_is_not_a_failure_and_ends_a_run_of_failures(trail_home: Path) -> None:
    sid = "sess-interrupt"
    events = [stored_event(sid, "session_start")]
    for cid, status in (("a", "failed"), ("b", "failed"), ("c", "interrupted"), ("d", "failed")):
        events += read(sid, cid, status)
    rec = grade(trail_home, events)
    assert atom(rec, "retry_storm")["status"] == "pass"  # 2 + 1, never 3 in a row
    errors = rec["levels"]["L0"]["facts"]["errors"]
    assert errors["interrupted"] == 1 and errors["failed"] == 3
    assert errors["steps_with_known_outcome"] == 3


def test_legacy_events_without_status() -> None:
    # Recorded before the status field: derived from kind, ok and interrupted.
    assert event_status({"kind": "tool_error", "ok": False, "interrupted": True}) == "interrupted"
    assert event_status({"kind": "tool_error", "ok": False}) == "failed"
    assert event_status({"kind": "tool_result", "ok": True}) == "ok"
    assert event_status({"kind": "tool_result", "ok": None}) == "unknown"
    assert event_status({"kind": "permission", "ok": False}) == "refused"
    assert event_status({"kind": "tool_result", "ok": None, "status": "cancelled"}) == "cancelled"
    assert event_status({"kind": "prompt"}) is None
    assert step_status(Step(1, "Read", "read", ok=False)) == "failed"
    assert step_status(Step(1, "Read", "read", ok=None, status="refused")) == "refused"


def test_all_refused_leaves_retry_storm_nothing_to_judge() -> None:
    cfg = load_grader_config(None)
    steps = [Step(i, "Bash", "shell", ok=None, event_id=f"e{i}", status="refused") for i in (1, 2)]
    res = grade_run(Run("r", steps, None), cfg, file_profile("trace-grader", "traces"), 0.5)
    storm = next(a for a in res.atoms if a.check == "retry_storm")
    assert storm.status == "unscored" and storm.reason.startswith("nothing to judge")


def test_a_refused_forbidden_command_is_still_flagged(trail_home: Path) -> None:
    # Tool choice is the agent's: asking for a force push is the violation, refused or not.
    sid = "sess-refused-push"
    events = [
        stored_event(sid, "session_start"),
        *tool(sid, "Bash", "p1", "shell", {"command": "git push --force origin main"}, "refused"),
    ]
    rec = grade(trail_home, events)
    forbidden = atom(rec, "forbidden_tool")
    assert forbidden["status"] == "fail" and "refused: it did not run" in forbidden["reason"]


def test_a_cancelled_read_grounds_nothing_and_a_refused_edit_edited_nothing(
    trail_home: Path,
) -> None:
    sid = "sess-grounding"
    edit = {"file_path": "/p/a.py", "old_string": "x", "new_string": "y"}
    events = [
        stored_event(sid, "session_start"),
        *tool(sid, "Read", "r1", "read", {"file_path": "/p/a.py"}, "cancelled"),
        *tool(sid, "Edit", "e1", "edit", edit, "ok"),
        *tool(sid, "Edit", "e2", "edit", {**edit, "file_path": "/p/b.py"}, "refused"),
    ]
    rec = grade(trail_home, events)
    ewr = atom(rec, "edited_without_read")
    assert ewr["status"] == "warn" and "/p/a.py" in ewr["reason"] and "/p/b.py" not in ewr["reason"]
    order = atom(rec, "out_of_order")
    assert order["status"] == "warn" and len(order["evidence"]) == 1  # the edit that ran


def test_cleo_ops_that_never_ran_are_no_operations(trail_home: Path) -> None:
    sid = "sess-cleo-refused"
    events = [
        stored_event(sid, "session_start"),
        *tool(sid, "Bash", "c1", "shell", {"command": "ct session list"}, "ok"),
        *tool(sid, "Bash", "c2", "shell", {"command": 'ct add "no description"'}, "refused"),
        *tool(sid, "Bash", "c3", "shell", {"command": "ct show T9"}, "cancelled"),
        stored_event(sid, "session_end"),
    ]
    rec = grade(trail_home, events, "--rubric", "cleo")
    sid_recs = invoke(
        "eval", "score", "--session", sid, "--json", "--no-ledger", "--rubric", "cleo"
    )
    cleo = next(r for r in json.loads(sid_recs.output)["grades"] if r["rubric"] == "cleo")
    assert rec["verdict"] == "flags-only: clean"
    assert cleo["entryCount"] == 1  # only session.list ran
    s3 = next(a for a in cleo["atoms"] if a["check"] == "cleo.S3.task_hygiene")
    assert s3["status"] == "unscored"  # the refused add is not a tasks.add without description
    show = next(a for a in cleo["atoms"] if a["check"] == "cleo.S2.tasks_show")
    assert show["earned"] == 0  # a cancelled tasks.show did not happen
