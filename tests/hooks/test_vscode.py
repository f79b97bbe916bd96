"""``trail hook vscode`` and the sender sniff (hooks/sender.py), through the real hook command.

Payload shapes: VS Code Local from the capture and source quoted in next-capabilities.md §1.3
(tests/trace_ingest/vscode_fixtures.py ``hook_payload``); Copilot CLI and Vibe as observed in
real-harnesses.md §2.3 and §1.3; Claude Code §3.2; Codex from ``codex-rs/hooks/schema``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hooks import vscode
from hooks.sender import sender
from tests.conftest import read_trace_lines, run_hook
from tests.hooks.test_entry import imported_modules
from tests.trace_ingest import vscode_fixtures as fx
from trace_ingest.events import validate

READ = {
    "tool_name": "copilot_readFile",
    "tool_input": {"filePath": "/w/.github/instructions/dotnet.instructions.md"},
    "tool_use_id": "8fdca072-eb5f-46e7-8ddc-cb6fd51c0c01",
}
LOCAL_SESSION = [
    fx.hook_payload("SessionStart", source="new"),
    fx.hook_payload("UserPromptSubmit", prompt="Read the instructions"),
    fx.hook_payload("PreToolUse", **READ),
    fx.hook_payload("PostToolUse", **READ, tool_response="# .NET rules"),
    fx.hook_payload("SubagentStart", agent_id="sub-1", agent_type="Plan"),
    fx.hook_payload("SubagentStop", agent_id="sub-1", agent_type="Plan", stop_hook_active=False),
    fx.hook_payload("PreCompact", trigger="auto"),
    fx.hook_payload("Stop", stop_hook_active=False),
]


def test_local_session_is_recorded_under_the_chat_session_id(trail_home: Path) -> None:
    for payload in LOCAL_SESSION:
        done = run_hook(payload, harness="vscode")
        assert (done.returncode, done.stdout) == (0, b"")
    events = read_trace_lines(trail_home)
    assert [e["kind"] for e in events] == [
        "session_start",
        "prompt",
        "tool_call",
        "tool_result",
        "subagent_start",
        "subagent_stop",
        "compaction",
        "agent_stop",
    ]
    assert {e["session_id"] for e in events} == {fx.SESSION}
    assert (trail_home / "sessions" / "vscode" / fx.SESSION / "trace.jsonl").exists()
    for ev in events:
        assert validate(ev) == [], ev
        assert ev["harness"] == "vscode" and ev["ts"] == "2026-02-08T15:48:34.318000Z"
        assert ev["extra"]["session_target"] == "local"
        assert ev["cwd"] == "/w/.github/hooks"
    call, result = events[2], events[3]
    assert (call["tool"], call["call_id"], call["ok"]) == ("read", READ["tool_use_id"], None)
    assert call["path"] == READ["tool_input"]["filePath"]
    assert (result["ok"], result["status"], result["output"]) == (True, "ok", "# .NET rules")
    assert events[4]["agent_id"] == "sub-1" and events[4]["agent_type"] == "Plan"
    assert not (trail_home / "hook-errors.log").exists()


def test_undecodable_session_id_is_kept_as_sent(trail_home: Path) -> None:
    payload = {**fx.hook_payload("Stop"), "sessionId": "vscode-chat-session://local/!!"}
    assert run_hook(payload, harness="vscode").returncode == 0
    [ev] = read_trace_lines(trail_home)
    assert ev["session_id"] == "vscode-chat-session://local/!!"
    assert "session_uri" not in ev.get("extra", {})


def test_unknown_event_and_odd_fields_are_kept(trail_home: Path) -> None:
    payload = {**fx.hook_payload("FutureEvent", detail=[1, 2]), "timestamp": 17}
    assert run_hook(payload, harness="vscode").returncode == 0
    [ev] = read_trace_lines(trail_home)
    assert ev["kind"] == "other" and ev["hook_event"] == "FutureEvent"
    assert ev["extra"]["detail"] == [1, 2] and ev["ts"] == ev["received_at"]


def test_codex_harness_payload_stays_with_vscode() -> None:
    payload = {
        "hook_event_name": "PostToolUse",
        "session_id": "019a-codex-thread",
        "turn_id": "t1",
        "model": "gpt-5-codex",
        "permission_mode": "default",
        "cwd": "/w",
        "transcript_path": None,
        "tool_name": "shell",
        "tool_input": {"command": ["ls"]},
        "tool_response": "README.md",
        "tool_use_id": "call_1",
    }
    assert sender(payload, "vscode") == "vscode"
    [ev] = vscode.normalize(payload, "2026-01-01T00:00:00.000000Z", "d")
    assert (ev["kind"], ev["session_id"], ev["call_id"]) == (
        "tool_result",
        "019a-codex-thread",
        "call_1",
    )
    assert ev["extra"]["agent_harness"] == "codex"


CLAUDE = {
    "session_id": "s1",
    "transcript_path": "/t.jsonl",
    "cwd": "/w",
    "hook_event_name": "PreToolUse",
    "prompt_id": "p1",
    "tool_name": "Read",
    "tool_input": {"file_path": "/w/a"},
    "tool_use_id": "toolu_1",
}
VIBE = {
    "session_id": "99fb55be",
    "transcript_path": "/h/.vibe/logs/session/unified/99fb55be",
    "cwd": "/w",
    "parent_session_id": None,
    "hook_event_name": "pre_tool",
    "tool_name": "file_system.bash",
    "tool_call_id": "call_1",
    "tool_input": {"command": "echo ok"},
}
COPILOT_CAMEL = {
    "sessionId": "cp-1",
    "timestamp": 1769028599647,
    "cwd": "/w",
    "toolName": "bash",
    "toolArgs": {"command": "ls"},
}
COPILOT_PASCAL = {
    "hook_event_name": "PreToolUse",
    "session_id": "cp-2",
    "timestamp": "2026-01-21T21:00:00.000Z",
    "cwd": "/w",
    "tool_name": "Bash",
    "tool_input": {"command": "ls"},
}


@pytest.mark.parametrize(
    "payload, claimed, expected",
    [
        (LOCAL_SESSION[2], "claude-code", "vscode"),
        (VIBE, "claude-code", "vibe"),
        ({**VIBE, "hook_event_name": "after_tool"}, "claude-code", "vibe"),
        (COPILOT_CAMEL, "claude-code", "copilot-cli"),
        (COPILOT_PASCAL, "claude-code", "copilot-cli"),
        (CLAUDE, "claude-code", "claude-code"),
        (CLAUDE, "vscode", "claude-code"),  # VS Code's Claude harness
        (COPILOT_CAMEL, "vscode", "copilot-cli"),  # VS Code's Copilot harness
        ({"hook_event_name": "Stop", "session_id": "s"}, "copilot-cli", "claude-code"),
        ({"something": "else"}, "vibe", "vibe"),
        ({}, "claude-code", "claude-code"),
    ],
)
def test_sender(payload: dict[str, Any], claimed: str, expected: str) -> None:
    assert sender(payload, claimed) == expected


def test_payload_is_filed_under_its_real_sender(trail_home: Path) -> None:
    for payload in (LOCAL_SESSION[2], VIBE, COPILOT_CAMEL, CLAUDE):
        assert run_hook(payload, harness="claude-code").returncode == 0
    folders = sorted(p.parent.parent.name for p in trail_home.glob("sessions/*/*/trace.jsonl"))
    assert folders == ["claude-code", "copilot-cli", "vibe", "vscode"]
    by_harness = {e["harness"]: e for e in read_trace_lines(trail_home)}
    assert by_harness["vscode"]["session_id"] == fx.SESSION
    for harness in ("vscode", "vibe", "copilot-cli"):
        assert by_harness[harness]["extra"]["registered_as"] == "claude-code"
    assert "registered_as" not in (by_harness["claude-code"].get("extra") or {})


def test_vscode_hook_imports_only_the_standard_library() -> None:
    payload = json.dumps(fx.hook_payload("PreToolUse", **READ)).encode()
    loaded = imported_modules(payload)
    ours = {
        m for m in loaded if m.split(".")[0] in ("trace_ingest", "hooks", "telemetry", "scorers")
    }
    assert {"hooks.vscode", "hooks.sender", "trace_ingest.vscode_facts"} <= ours
    assert not {m for m in ours if m.startswith(("telemetry", "scorers", "trace_ingest.importers"))}
    forbidden = {"click", "orjson", "typing", "base64", "datetime", "sqlite3", "ijson"}
    assert loaded & forbidden == set(), loaded & forbidden
