"""The Claude Code adapter against every recorded sample payload and each event type."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from hooks import claude_code
from tests.conftest import run_hook
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
    assert ev["status"] == "interrupted"


def test_real_post_tool_use_failures_are_failures(samples: Path) -> None:
    # hooks/PostToolUseFailure.json: 4 real payloads (Bash exit 2, WebFetch blocked domain,
    # Read of a missing file, Bash exit 1 inside a "lead-programmer" subagent), all with
    # is_interrupt false.
    payloads = [
        p for name, p in sample_payloads(samples) if name.startswith("PostToolUseFailure.json")
    ]
    assert len(payloads) == 4
    events: list[dict[str, Any]] = [
        dict(claude_code.normalize(p, RECEIVED, "d")[0]) for p in payloads
    ]
    assert [(e["kind"], e["status"], e["ok"], e["interrupted"]) for e in events] == [
        ("tool_error", "failed", False, False)
    ] * 4
    assert [e["tool_name"] for e in events] == ["Bash", "WebFetch", "Read", "Bash"]
    assert events[0]["error"].startswith("Exit code 2")
    sub = events[3]
    assert (sub["agent_id"], sub["agent_type"]) == ("a90cc16cab75344be", "lead-programmer")
    assert "agent_id" not in sub.get("extra", {}) and "is_interrupt" not in sub.get("extra", {})


@pytest.mark.parametrize(
    ("error", "status", "kind", "ok"),
    [
        ("Cancelled: parallel tool call Bash(ls /nonexistent) errored", "cancelled", "tool_error",
         None),
        ("<tool_use_error>Sibling tool call errored</tool_use_error>", "cancelled", "tool_error",
         None),
        ("Permission to use Bash with command rm -rf / has been denied.", "refused",
         "permission", None),
        ("Exit code 1\nnope", "failed", "tool_error", False),
    ],
)  # fmt: skip
def test_failure_texts_that_are_not_failures(
    error: str, status: str, kind: str, ok: bool | None
) -> None:
    ev = _one(
        {
            "hook_event_name": "PostToolUseFailure",
            "tool_name": "Bash",
            "tool_input": {},
            "tool_use_id": "t1",
            "error": error,
            "is_interrupt": False,
        }
    )
    assert (ev["status"], ev["kind"], ev["ok"], ev["call_id"]) == (status, kind, ok, "t1")


def test_post_tool_use_status_is_ok() -> None:
    ev = _one(
        {
            "hook_event_name": "PostToolUse",
            "tool_name": "Read",
            "tool_input": {},
            "tool_use_id": "t",
            "tool_response": {"type": "text"},
        }
    )
    assert (ev["status"], ev["ok"]) == ("ok", True)


# 2.1.328 (shared/reference/real-harnesses.md §3.2, and the rig's "subagents" capture): the
# common fields prompt_id and effort, and the background agent's result delivered as a second
# UserPromptSubmit whose prompt is a <task-notification>.
PROMPT_ID = "23ecab25-cca8-4202-aa1d-224148ad8cd8"
NOTIFICATION = (
    "<task-notification>\n<task-id>a488e6070544204e8</task-id>\n"
    "<tool-use-id>toolu_fake_0_0_0_b83683d7</tool-use-id>\n"
    "<output-file>/tmp/claude-0/p/s/tasks/a488e6070544204e8.output</output-file>\n"
    '<status>completed</status>\n<summary>Agent "background check" finished</summary>\n'
    "<result>Done.</result>\n</task-notification>"
)


def test_prompt_id_is_a_named_field_on_every_event() -> None:
    for payload in (
        {"hook_event_name": "UserPromptSubmit", "prompt": "hi", "permission_mode": "default"},
        {
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "ls"},
            "tool_use_id": "t",
            "effort": {"level": "medium"},
        },
        {"hook_event_name": "SubagentStart", "agent_id": "a1", "agent_type": "general-purpose"},
        {"hook_event_name": "Stop", "last_assistant_message": "Done.", "background_tasks": []},
        {"hook_event_name": "SessionEnd", "reason": "other"},
    ):
        ev = _one({**payload, "prompt_id": PROMPT_ID})
        assert ev["prompt_id"] == PROMPT_ID, payload
        assert "prompt_id" not in ev.get("extra", {})
    assert "prompt_id" not in _one({"hook_event_name": "SessionStart", "source": "startup"})


def test_task_notification_prompt_is_a_notification() -> None:
    typed = _one({"hook_event_name": "UserPromptSubmit", "prompt_id": PROMPT_ID,
                  "prompt": "Ask two helpers to check the build."})  # fmt: skip
    note = _one({"hook_event_name": "UserPromptSubmit", "prompt_id": PROMPT_ID,
                 "prompt": NOTIFICATION})  # fmt: skip
    assert typed["kind"] == "prompt" and "parent_call_id" not in typed
    assert (note["kind"], note["parent_call_id"], note["agent_id"]) == (
        "notification",
        "toolu_fake_0_0_0_b83683d7",
        "a488e6070544204e8",
    )
    assert note["text"] == NOTIFICATION and note["prompt_id"] == PROMPT_ID
    assert note["extra"]["text_kind"] == "task_notification"
    assert note["extra"]["status"] == "completed"


@pytest.mark.parametrize(
    ("prompt", "kind", "what"),
    [
        ("<ide_opened_file>The user opened the file /a.py in the IDE.</ide_opened_file>",
         "other", "ide_context"),
        ("<ide_selection>The user selected the lines 3 to 9 from /a.py</ide_selection>",
         "other", "ide_context"),
        ("<command-name>/review</command-name>\n<command-args>42</command-args>", "prompt",
         "slash_command"),
    ],
)  # fmt: skip
def test_prompts_that_a_person_did_not_type(prompt: str, kind: str, what: str) -> None:
    ev = _one({"hook_event_name": "UserPromptSubmit", "prompt": prompt})
    assert (ev["kind"], ev["extra"]["text_kind"], ev["text"]) == (kind, what, prompt)


def test_real_user_prompts_stay_prompts(samples: Path) -> None:
    # hooks/UserPromptSubmit.json: 9 prompts people typed (none is a notification or IDE note).
    events = [
        claude_code.normalize(p, RECEIVED, "d")[0]
        for name, p in sample_payloads(samples)
        if name.startswith("UserPromptSubmit.json")
    ]
    assert len(events) == 9 and {e["kind"] for e in events} == {"prompt"}


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


def test_the_compactors_untyped_subagent_stop_is_internal() -> None:
    """2.1.328's compactor fires SubagentStop with agent_type "" and no SubagentStart (rig
    scenario compacted): the harness's own agent, not one of the session's subagents."""
    stop = _one(
        {
            "hook_event_name": "SubagentStop",
            "agent_id": "aade70a0527258e46",
            "agent_type": "",
            "last_assistant_message": "<analysis>…</analysis><summary>…</summary>",
        }
    )
    assert (stop["kind"], stop["internal"]) == ("subagent_stop", "untyped")
    assert validate(stop) == []
    typed = _one({"hook_event_name": "SubagentStop", "agent_id": "a1", "agent_type": "Explore"})
    assert "internal" not in typed


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


def test_instructions_loaded_carries_the_text_that_entered_the_context(tmp_path: Path) -> None:
    guide = tmp_path / "CLAUDE.md"
    guide.write_text("Use pnpm, never npm.\n")
    ev = _one({"hook_event_name": "InstructionsLoaded", "file_path": str(guide)})
    assert ev["text"] == "Use pnpm, never npm.\n"
    # Only a readable, regular guide file of bounded size is read; anything else: no text.
    big = tmp_path / "big.md"
    big.write_text("x" * (256 * 1024 + 1))
    fifo = tmp_path / "pipe.md"
    os.mkfifo(fifo)
    other = tmp_path / "id_rsa"
    other.write_text("not a guide")
    for path in (big, fifo, other, tmp_path / "missing.md", tmp_path):
        ev = _one({"hook_event_name": "InstructionsLoaded", "file_path": str(path)})
        assert ev["text"] is None, path


def test_a_skill_load_carries_its_skill_file(tmp_path: Path) -> None:
    skill = tmp_path / ".claude" / "skills" / "greet"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("Say hello.\n")
    call = {
        "hook_event_name": "PreToolUse",
        "session_id": "s",
        "cwd": str(tmp_path),
        "tool_name": "Skill",
        "tool_use_id": "k1",
    }
    _, load = claude_code.normalize({**call, "tool_input": {"skill": "greet"}}, "t", "d")
    assert load["path"] == str(skill / "SKILL.md") and load["text"] == "Say hello.\n"
    for name in ("../../etc", "plugin:greet", "missing"):
        _, load = claude_code.normalize({**call, "tool_input": {"skill": name}}, "t", "d")
        assert "text" not in load and "path" not in load


def test_the_guide_path_of_the_hook_imports_only_the_standard_library(tmp_path: Path) -> None:
    from tests.hooks.test_entry import imported_modules

    guide = tmp_path / "CLAUDE.md"
    guide.write_text("rule\n")
    payload = {
        "session_id": "s-probe",
        "hook_event_name": "InstructionsLoaded",
        "file_path": str(guide),
        "cwd": str(tmp_path),
    }
    # The tmp path holds scrubber keywords ("test_", "pat" of "path"): an installation's very
    # first such call compiles its rules with `re` and caches them (docs/scrubbing.md); the
    # probe is the call after it.
    run_hook(payload)
    loaded = imported_modules(json.dumps(payload).encode())
    assert "trace_ingest.guides" in loaded
    third_party = {m.split(".")[0] for m in loaded} - set(sys.stdlib_module_names)
    assert third_party <= {"trace_ingest", "hooks"}, third_party
    assert "hashlib" not in loaded and "re" not in loaded
