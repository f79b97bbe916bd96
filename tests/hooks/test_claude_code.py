"""The Claude Code adapter against every recorded sample payload and each event type."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hooks import claude_code
from trace_ingest.events import validate

RECEIVED = "2026-11-30T10:00:00.000000Z"


def sample_payloads(samples: Path) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for path in sorted((samples / "claude-code" / "hooks").glob("*.json")):
        data = json.loads(path.read_text())
        for i, entry in enumerate(data if isinstance(data, list) else [data]):
            # Some loggers wrapped the verbatim stdin payload as "raw_input" (samples/SOURCES.md).
            payload = entry.get("raw_input", entry)
            out.append((f"{path.name}[{i}]", payload))
    return out


def test_every_sample_payload_normalizes_to_valid_events(samples: Path) -> None:
    payloads = sample_payloads(samples)
    assert len(payloads) >= 90  # the sample set is what it claims to be
    kinds: set[str] = set()
    for name, payload in payloads:
        events = claude_code.normalize(payload, RECEIVED, "digest")
        assert events, name
        for ev in events:
            assert validate(dict(ev)) == [], (name, validate(dict(ev)))
            assert ev["session_id"] == payload["session_id"], name
            assert ev["hook_event"] == payload["hook_event_name"], name
            kinds.add(ev["kind"])
    assert {
        "session_start",
        "session_end",
        "prompt",
        "tool_call",
        "tool_result",
        "tool_error",
        "permission",
        "notification",
        "subagent_start",
        "subagent_stop",
        "agent_stop",
        "compaction",
    } <= kinds


def test_samples_keep_unknown_fields_under_extra(samples: Path) -> None:
    for name, payload in sample_payloads(samples):
        ev = claude_code.normalize(payload, RECEIVED, "d")[0]
        for key in ("transcript_path", "permission_mode", "logged_at"):
            if key in payload:
                assert ev["extra"][key] == payload[key], name


def _one(payload: dict[str, Any]) -> dict[str, Any]:
    events = claude_code.normalize({"session_id": "s1", **payload}, RECEIVED, "d")
    return dict(events[0])


def test_post_tool_use_failure_is_a_failed_result_with_error_and_interrupt() -> None:
    ev = _one(
        {
            "hook_event_name": "PostToolUseFailure",
            "tool_name": "Bash",
            "tool_input": {"command": "npm test"},
            "tool_use_id": "toolu_1",
            "error": "Exit code 1\nboom",
            "is_interrupt": True,
            "duration_ms": 4187,
        }
    )
    assert (ev["kind"], ev["ok"], ev["error"], ev["interrupted"]) == (
        "tool_error",
        False,
        "Exit code 1\nboom",
        True,
    )
    assert (ev["tool"], ev["call_id"], ev["duration_ms"]) == ("shell", "toolu_1", 4187.0)


@pytest.mark.parametrize(
    ("name", "canonical"),
    [
        ("Read", "read"),
        ("Edit", "edit"),
        ("MultiEdit", "edit"),
        ("Write", "write"),
        ("Bash", "shell"),
        ("Grep", "search"),
        ("Glob", "search"),
        ("WebFetch", "fetch"),
        ("Task", "task"),
        ("Agent", "task"),
        ("Skill", "skill"),
        ("mcp__cleo__query", "mcp"),
        ("TodoWrite", "other"),
    ],
)
def test_raw_and_canonical_tool_names(name: str, canonical: str) -> None:
    ev = _one({"hook_event_name": "PreToolUse", "tool_name": name, "tool_input": {}})
    assert (ev["tool_name"], ev["tool"], ev["ok"]) == (name, canonical, None)


def test_tool_path_is_taken_from_the_input() -> None:
    ev = _one(
        {
            "hook_event_name": "PostToolUse",
            "tool_name": "Edit",
            "tool_input": {"file_path": "/p/a.py"},
            "tool_response": {"success": True},
        }
    )
    assert (ev["kind"], ev["path"], ev["ok"]) == ("tool_result", "/p/a.py", True)


def test_soft_failure_in_tool_response_is_not_ok() -> None:
    ev = _one(
        {
            "hook_event_name": "PostToolUse",
            "tool_name": "Write",
            "tool_input": {},
            "tool_response": {"success": False},
        }
    )
    assert ev["ok"] is False


def test_permission_request_and_denied() -> None:
    req = _one(
        {
            "hook_event_name": "PermissionRequest",
            "tool_name": "Bash",
            "tool_input": {"command": "rm -rf x"},
            "permission_suggestions": [],
        }
    )
    assert (req["kind"], req.get("ok"), req["status"]) == ("permission", None, "asked")
    assert req["extra"]["permission_suggestions"] == []
    denied = _one(
        {
            "hook_event_name": "PermissionDenied",
            "tool_name": "Bash",
            "tool_input": {},
            "tool_use_id": "t",
            "reason": "auto mode",
        }
    )
    # refused: the tool never ran, so it neither succeeded nor failed
    assert (denied["kind"], denied["ok"], denied["error"]) == ("permission", None, "auto mode")
    assert (denied["status"], denied["call_id"]) == ("refused", "t")


def test_subagent_linkage() -> None:
    start = _one({"hook_event_name": "SubagentStart", "agent_id": "ag1", "agent_type": "Explore"})
    stop = _one(
        {
            "hook_event_name": "SubagentStop",
            "agent_id": "ag1",
            "agent_type": "Explore",
            "last_assistant_message": "done",
            "agent_transcript_path": "/t.jsonl",
        }
    )
    inner = _one(
        {
            "hook_event_name": "PreToolUse",
            "agent_id": "ag1",
            "tool_name": "Read",
            "tool_input": {"file_path": "/x"},
        }
    )
    assert (start["kind"], stop["kind"]) == ("subagent_start", "subagent_stop")
    assert start["agent_id"] == stop["agent_id"] == inner["agent_id"] == "ag1"
    assert stop["text"] == "done"


def test_stop_and_stop_failure() -> None:
    stop = _one({"hook_event_name": "Stop", "last_assistant_message": "bye"})
    fail = _one({"hook_event_name": "StopFailure", "error": "rate_limit"})
    assert (stop["kind"], stop["ok"], stop["text"]) == ("agent_stop", True, "bye")
    assert (fail["kind"], fail["ok"], fail["error"]) == ("agent_stop", False, "rate_limit")


def test_compaction_session_bounds_prompt_notification() -> None:
    assert _one({"hook_event_name": "PreCompact", "trigger": "auto"})["kind"] == "compaction"
    post = _one({"hook_event_name": "PostCompact", "trigger": "manual", "compact_summary": "s"})
    assert (post["kind"], post["text"]) == ("compaction", "s")
    assert _one({"hook_event_name": "SessionStart", "source": "resume"})["extra"] == {
        "source": "resume"
    }
    assert _one({"hook_event_name": "SessionEnd", "reason": "other"})["kind"] == "session_end"
    assert _one({"hook_event_name": "UserPromptSubmit", "prompt": "hi"})["text"] == "hi"
    assert _one({"hook_event_name": "Notification", "message": "m"})["text"] == "m"


def test_instructions_loaded_is_a_guide_with_its_path() -> None:
    ev = _one(
        {
            "hook_event_name": "InstructionsLoaded",
            "file_path": "/repo/CLAUDE.md",
            "memory_type": "Project",
        }
    )
    assert (ev["kind"], ev["path"], ev["extra"]) == (
        "guide_loaded",
        "/repo/CLAUDE.md",
        {"memory_type": "Project"},
    )


def test_skill_tool_call_also_records_a_skill_load() -> None:
    events = claude_code.normalize(
        {
            "session_id": "s",
            "hook_event_name": "PreToolUse",
            "tool_name": "Skill",
            "tool_input": {"skill": "pdf"},
            "tool_use_id": "t9",
        },
        RECEIVED,
        "d",
    )
    assert [e["kind"] for e in events] == ["tool_call", "skill_loaded"]
    assert (events[1]["skill"], events[1]["call_id"]) == ("pdf", "t9")
    assert events[0]["id"] != events[1]["id"]


def test_unknown_event_is_kept_as_other() -> None:
    ev = _one({"hook_event_name": "TeammateIdle", "teammate_name": "bob"})
    assert (ev["kind"], ev["hook_event"], ev["extra"]) == (
        "other",
        "TeammateIdle",
        {"teammate_name": "bob"},
    )


def test_event_id_is_deterministic_and_depends_on_payload() -> None:
    p = {"session_id": "s", "hook_event_name": "Stop"}
    a = claude_code.normalize(p, RECEIVED, "d1")[0]["id"]
    assert a == claude_code.normalize(p, RECEIVED, "d1")[0]["id"]
    assert a != claude_code.normalize(p, RECEIVED, "d2")[0]["id"]
