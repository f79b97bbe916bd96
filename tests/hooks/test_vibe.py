"""The Vibe adapter on payloads captured from the real Vibe 3.0.1 (real-harnesses.md §1.3) and
on the 2.x shapes (harnesses.md §3.2), through the real hook command."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hooks import vibe
from tests.conftest import read_trace_lines, run_hook

SID = "99fb55be-6efc-9faf-a76e-7bf33c3f9ce6"
BASE = {
    "session_id": SID,
    "transcript_path": f"/home/user/.vibe/logs/session/unified/{SID}",
    "cwd": "/home/user/proj",
    "parent_session_id": None,
}
PRE_BASH = {
    **BASE,
    "hook_event_name": "pre_tool",
    "tool_name": "file_system.bash",
    "tool_call_id": "call_fake_0_1_0",
    "tool_input": {"command": "echo hi; exit 2"},
}
POST_BASH_EXIT_2 = {
    **PRE_BASH,
    "hook_event_name": "post_tool",
    "tool_status": "success",
    "tool_output": {
        "command": "echo hi; exit 2",
        "returncode": 2,
        "stderr": "",
        "stdout": "hi\n",
        "timed_out": False,
        "was_truncated": False,
    },
    "tool_output_text": "command: echo hi; exit 2\nreturncode: 2\nstderr: \nstdout: hi\n",
    "tool_error": None,
    "duration_ms": 0,
}
POST_READ_MISSING = {
    **BASE,
    "hook_event_name": "post_tool",
    "tool_name": "file_system.read_file",
    "tool_call_id": "call_fake_0_2_0",
    "tool_input": {"file_path": "/home/user/proj/missing.txt"},
    "tool_status": "failure",
    "tool_output": None,
    "tool_output_text": "File not found at: /home/user/proj/missing.txt",
    "tool_error": "File not found at: /home/user/proj/missing.txt",
    "duration_ms": 0,
}


def one(payload: dict[str, Any]) -> dict[str, Any]:
    [ev] = vibe.normalize(payload, "2026-12-01T11:38:57.000000Z", "d" * 32)
    return dict(ev)


def test_pre_tool_is_a_call_with_the_qualified_name_and_call_id() -> None:
    ev = one(PRE_BASH)
    assert (ev["kind"], ev["harness"], ev["source"]) == ("tool_call", "vibe", "hook")
    assert (ev["tool_name"], ev["tool"], ev["call_id"]) == (
        "file_system.bash",
        "shell",
        "call_fake_0_1_0",
    )
    assert ev["input"] == {"command": "echo hi; exit 2"} and ev["ok"] is None
    assert ev["extra"]["transcript_path"].endswith(SID)


def test_a_shell_exiting_2_is_success_with_the_exit_code_kept() -> None:
    ev = one(POST_BASH_EXIT_2)
    assert (ev["kind"], ev["status"], ev["ok"]) == ("tool_result", "ok", True)
    assert ev["extra"]["exit_code"] == 2
    assert ev["output"]["returncode"] == 2


def test_duration_is_never_taken_from_3x() -> None:
    ev = one(POST_BASH_EXIT_2)
    assert "duration_ms" not in ev and ev["extra"]["duration_ms"] == 0


def test_failure_and_cancelled() -> None:
    ev = one(POST_READ_MISSING)
    assert (ev["kind"], ev["status"], ev["ok"], ev["tool"]) == (
        "tool_error",
        "failed",
        False,
        "read",
    )
    assert ev["error"].startswith("File not found") and ev["path"].endswith("missing.txt")
    cancelled = one({**POST_READ_MISSING, "tool_status": "cancelled", "tool_error": None})
    assert (cancelled["kind"], cancelled["status"], cancelled["ok"]) == (
        "tool_error",
        "cancelled",
        None,
    )


def test_post_agent_and_unknown_events() -> None:
    stop = one({**BASE, "hook_event_name": "post_agent"})
    assert (stop["kind"], stop["ok"]) == ("agent_stop", True)
    odd = one({**BASE, "hook_event_name": "pre_compact", "x": 1})
    assert odd["kind"] == "other" and odd["extra"]["x"] == 1


def test_canonical_tools_from_qualified_names() -> None:
    for name, tool in (
        ("file_system.read_file", "read"),
        ("file_system.write_file", "write"),
        ("file_system.search_replace", "edit"),
        ("agents.spawn", "task"),
        ("self.wait", "other"),
        ("skill.read", "skill"),
        ("process.start", "shell"),
        ("github.create_issue", "mcp"),  # an MCP server's tool: <server>.<tool>
    ):
        assert one({**PRE_BASH, "tool_name": name})["tool"] == tool, name


def test_2x_payloads_are_still_accepted() -> None:
    before = one({**PRE_BASH, "hook_event_name": "before_tool", "tool_name": "bash"})
    assert (before["kind"], before["tool"]) == ("tool_call", "shell")
    after = one(
        {
            **BASE,
            "hook_event_name": "after_tool",
            "tool_name": "search_replace",
            "tool_call_id": "call_42",
            "tool_input": {"file_path": "a.py"},
            "tool_status": "success",
            "tool_output": {"output": "ok"},
            "tool_output_text": "ok",
            "tool_error": None,
            "duration_ms": 42.5,
        }
    )
    assert (after["kind"], after["tool"], after["duration_ms"]) == ("tool_result", "edit", 42.5)
    stop = one({**BASE, "hook_event_name": "post_agent_turn"})
    assert stop["kind"] == "agent_stop"


def test_a_2x_subagent_payload_goes_to_the_parent_session_in_the_child_lane() -> None:
    ev = one({**PRE_BASH, "session_id": "child-1", "parent_session_id": SID})
    assert (ev["session_id"], ev["agent_id"]) == (SID, "child-1")


def test_garbage_fields_never_raise() -> None:
    ev = one(
        {
            "hook_event_name": "post_tool",
            "session_id": 7,
            "tool_name": ["x"],
            "tool_status": 3,
            "tool_output": "text",
            "parent_session_id": 5,
        }
    )
    assert ev["kind"] == "tool_result" and ev["ok"] is None and ev["session_id"] == "7"


def test_through_the_real_hook_command(trail_home: Path) -> None:
    for payload in (PRE_BASH, POST_BASH_EXIT_2, {**BASE, "hook_event_name": "post_agent"}):
        done = run_hook(json.dumps(payload), harness="vibe")
        assert (done.returncode, done.stdout) == (0, b"")
    events = read_trace_lines(trail_home)
    assert [e["kind"] for e in events] == ["tool_call", "tool_result", "agent_stop"]
    assert {e["harness"] for e in events} == {"vibe"}
    assert events[1]["extra"]["exit_code"] == 2
    assert not (trail_home / "hook-errors.log").exists()


def test_the_vibe_hook_imports_only_the_standard_library_and_its_own_modules() -> None:
    import ast
    import subprocess
    import sys

    from tests.hooks import test_entry

    probe = test_entry.PROBE.replace('"claude-code"', '"vibe"')
    payload = json.dumps(POST_BASH_EXIT_2).encode()
    code = f"import sys; sys.argv_payload = {payload!r}; sys.trail_script = {test_entry.TRAIL!r}\n"
    done = subprocess.run([sys.executable, "-c", code + probe], capture_output=True, check=True)
    loaded = set(ast.literal_eval(done.stdout.decode().splitlines()[-1]))
    assert "hooks.vibe" in loaded and "trace_ingest.vibe_tools" in loaded
    third_party = {m.split(".")[0] for m in loaded} - set(sys.stdlib_module_names)
    assert third_party <= {"trace_ingest", "hooks"}, third_party
    assert not loaded & {"typing", "dataclasses", "pathlib", "tomllib", "orjson", "click"}


REAL_2X = Path(__file__).parent.parent / "trace_ingest" / "data" / "vibe-2.18.4" / "hooks.jsonl"


def test_payloads_of_the_real_2_18_4() -> None:
    """Captured from the real Vibe 2.18.4 (experimental hooks on, before_tool / after_tool /
    post_agent_turn): unqualified tool names, a shell exit 2 is a failure there, durations
    measured."""
    payloads = [json.loads(line) for line in REAL_2X.read_text().splitlines()]
    events = [one(p) for p in payloads]
    assert [e["kind"] for e in events] == [
        "tool_call",
        "tool_error",
        "tool_call",
        "tool_call",
        "tool_result",
        "tool_result",
        "agent_stop",
    ]
    failed = events[1]
    assert (failed["tool"], failed["status"], failed["ok"]) == ("shell", "failed", False)
    assert failed["extra"]["exit_code"] == 2  # from "Return code: 2" in the error text
    assert all(
        isinstance(e.get("duration_ms"), float)
        for e in events
        if e["kind"] != "tool_call" and e["kind"] != "agent_stop"
    )
    assert events[4]["extra"]["exit_code"] == 0
