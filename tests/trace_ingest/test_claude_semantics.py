"""What Claude Code's real transcripts mean (issue 7, item 4), file by file.

Every expected number below was read off the sample files themselves (the comments say which
lines), never taken from the importer's output: prompts a person typed, the subagents and the
Task/Agent calls that launched them, failures vs refusals vs cancellations, compactions,
harness-internal agents, and sessions with nothing to grade.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import read_trace_lines
from trace_ingest.events import validate
from trace_ingest.importers.claude_transcript import import_transcripts
from trace_ingest.tools import classify_user_text, internal_agent, result_status

CC_2_1_328 = Path(__file__).parent / "data" / "claude-code-2.1.328"
ACTIONS = ("tool_call",)  # what an agent did (a session without any has nothing to grade)


def load(home: Path, *paths: Path) -> list[dict[str, Any]]:
    report = import_transcripts([str(p) for p in paths], home=str(home))
    assert report.errors == [], report.errors
    events = read_trace_lines(home)
    assert all(validate(e) == [] for e in events)
    return events


def kinds(events: list[dict[str, Any]], kind: str, **match: Any) -> list[dict[str, Any]]:
    return [e for e in events if e["kind"] == kind and all(e.get(k) == v for k, v in match.items())]


def main_prompts(events: list[dict[str, Any]]) -> list[str]:
    """The main agents' prompts, in time order (a file may hold several sessions)."""
    prompts = [e for e in kinds(events, "prompt") if not e.get("agent_id")]
    return [e["text"] for e in sorted(prompts, key=lambda e: (e["ts"], e["seq"]))]


def subagents(events: list[dict[str, Any]]) -> dict[str, tuple[str | None, str | None]]:
    """agent id -> (launching call id, agent type), from the subagent_start events."""
    return {
        e["agent_id"]: (e.get("parent_call_id"), e.get("agent_type"))
        for e in kinds(events, "subagent_start")
        if not e.get("internal")
    }


def statuses(events: list[dict[str, Any]]) -> Counter[str]:
    return Counter(
        e["status"] for e in events if e["kind"] in ("tool_result", "tool_error", "permission")
    )


def has_actions(events: list[dict[str, Any]]) -> bool:
    return any(e["kind"] in ACTIONS and not e.get("internal") for e in events)


def cc(samples: Path) -> Path:
    return samples / "claude-code"


# ---- 2.1.114: six foreground subagents, a slash command, IDE-free ------------------------


def test_real_session_with_six_subagents(samples: Path, trail_home: Path) -> None:
    ev = load(trail_home, cc(samples) / "real-session-with-subagents")
    # Main file user lines with text: 5 and 117 are typed; 178 is an isMeta caveat, 179 the
    # /exit slash command, 180 its <local-command-stdout>. Slash commands count as prompts.
    prompts = main_prompts(ev)
    assert len(prompts) == 3
    assert prompts[0].startswith("OK, we're going to make a little experiment")
    assert prompts[1].startswith("Well, the subagents seem to be either stuck")
    assert "<command-name>/exit</command-name>" in prompts[2]
    slash = kinds(ev, "prompt", seq=179)[0]
    assert slash["extra"]["text_kind"] == "slash_command" and slash["extra"]["command"] == "/exit"
    assert kinds(ev, "other", seq=178)[0]["extra"]["text_kind"] == "meta"
    assert kinds(ev, "other", seq=180)[0]["extra"]["text_kind"] == "command_output"
    # Agent calls on lines 54-56 and 135-137; their tool_results (57, 61, 63, 140, 142, 144)
    # carry toolUseResult.agentId and agentType "general-purpose", as do the 6 .meta.json files.
    assert subagents(ev) == {
        "a4ca7529859c158c2": ("toolu_01GmrK6tgdD9D5xD6W5X9UUy", "general-purpose"),
        "a52886dc180afb356": ("toolu_016neBD9WjCCZqzRTP3afGDT", "general-purpose"),
        "ab1e6e141221a29ab": ("toolu_01EaAN7bPNQrMTGoKhbEjVrx", "general-purpose"),
        "a36efb2a1231c41e2": ("toolu_017y4gSjMWeQ3L2DAKiygU2y", "general-purpose"),
        "aef063ba534d73153": ("toolu_01N26s4U6vDxE1NRAH5CyCNf", "general-purpose"),
        "a6aa8ad077d9ea083": ("toolu_0151DrVyXBXfb63SXGNF1qDb", "general-purpose"),
    }
    stops = kinds(ev, "subagent_stop")
    assert {e["agent_id"]: e["parent_call_id"] for e in stops} == {
        a: c for a, (c, _) in subagents(ev).items()
    }
    # Every event inside a subagent carries its type (never null when the meta.json has it).
    assert all(e.get("agent_type") == "general-purpose" for e in ev if e.get("agent_id"))
    # is_error results: 1 in agent-a4ca… (HTTP 403), 2 in agent-ab1e… (404, 504); no
    # refusals, no cancellations.
    assert statuses(ev)["failed"] == 3
    assert statuses(ev)["refused"] == statuses(ev)["cancelled"] == 0
    assert {e["error"] for e in kinds(ev, "tool_error")} == {
        "Request failed with status code 403",
        "Request failed with status code 404",
        "Request failed with status code 504",
    }
    assert kinds(ev, "compaction") == [] and not any(e.get("internal") for e in ev)
    # Two turns end with text followed by stop_hook_summary/turn_duration lines (111 -> 113,
    # 170 -> 172); the /exit turn has no reply.
    assert [e["text"][:24] for e in kinds(ev, "agent_stop")] == [
        "Round 2 dispatched to al",
        "Experiment complete. All",
    ]
    # promptId: b4babe68… on the first turn, e6056361… on the second, carried along the
    # parentUuid chain to assistant lines and into the subagents launched in that turn.
    first = "b4babe68-1aff-45d9-a1b9-b9d6d5aaaaa0"
    main = [e for e in ev if not e.get("agent_id")]
    assert {e["prompt_id"] for e in main if e["seq"] in (11, 54, 57)} == {first}
    assert {e["prompt_id"] for e in ev if e.get("agent_id") == "a4ca7529859c158c2"} == {first}
    assert all(e.get("prompt_id") for e in ev if e["kind"] != "other")
    assert has_actions(ev)


def test_every_transcript_event_points_back_to_its_line(samples: Path, trail_home: Path) -> None:
    ev = load(trail_home, cc(samples) / "real-session-with-subagents")
    for e in ev:
        assert isinstance(e["seq"], int) and e["seq"] >= 1
        assert e["extra"]["file"].endswith(".jsonl") and e["extra"]["line_type"]
        assert "uuid" in e and "parent_uuid" in e and "prompt_id" in e
    call = kinds(ev, "tool_call", seq=11)[0]  # the ToolSearch on line 11
    assert call["uuid"] and call["parent_uuid"]
    attachments = [e for e in ev if e["extra"]["line_type"] == "attachment"]
    assert attachments and all(e["kind"] == "other" for e in attachments)
    assert Counter(e["extra"].get("line_subtype") for e in attachments)["hook_success"] == 45


# ---- 2.1.17 `claude -p`: one foreground Explore agent ------------------------------------


def test_claude_p_session_links_its_explore_agent(samples: Path, trail_home: Path) -> None:
    ev = load(trail_home, cc(samples) / "real-session-claude-p")
    # Line 3 is the only user text; line 4 is the Task call (subagent_type Explore), line 5
    # its result (toolUseResult.agentId a2271d1, no agentType, no meta.json).
    assert len(main_prompts(ev)) == 1
    assert subagents(ev) == {"a2271d1": ("toolu_01SXaWzD5YZ73zGwchbcxeWi", "Explore")}
    assert len(kinds(ev, "subagent_stop", agent_id="a2271d1")) == 1
    # The agent file's 25 user lines: 1 task + 24 tool results; no is_error.
    assert statuses(ev) == Counter({"ok": 25})
    assert len(kinds(ev, "agent_stop")) == 1  # line 6, the final answer


# ---- 2.1.34: a background agent whose result returns as a task-notification turn ---------


def test_background_agent_and_its_task_notification(samples: Path, trail_home: Path) -> None:
    ev = load(trail_home, cc(samples) / "async-agents")
    # Line 1 is typed; line 6 is the <task-notification> for task cccc333: not a prompt.
    assert main_prompts(ev) == [
        "Spawn a coverage analysis agent in the background and wait for the result."
    ]
    # Line 3: toolUseResult {status: async_launched, agentId: cccc333} for tu_Task_async_001
    # (Task input subagent_type "Explore").
    assert subagents(ev) == {"cccc333": ("tu_Task_async_001", "Explore")}
    (note,) = kinds(ev, "notification")
    assert (note["seq"], note["agent_id"], note["parent_call_id"]) == (
        6,
        "cccc333",
        "tu_Task_async_001",
    )
    assert note["extra"]["status"] == "completed"
    (stop,) = kinds(ev, "subagent_stop")
    assert stop["parent_call_id"] == "tu_Task_async_001"
    assert stop["text"].startswith("Coverage analysis complete.")
    launch = kinds(ev, "tool_result", call_id="tu_Task_async_001")[0]
    assert launch["status"] == "ok"  # the launch succeeded; the work is the subagent's
    # The turn that launched it ends with no text of its own; the notification's turn does.
    assert [e["text"] for e in kinds(ev, "agent_stop")] == ["Coverage report received. Done."]


def test_agent_file_alone_still_links_to_its_call(samples: Path, trail_home: Path) -> None:
    agent = next((cc(samples) / "async-agents").rglob("agent-cccc333.jsonl"))
    ev = load(trail_home, agent)  # the parent file is read for the link, not imported
    assert subagents(ev) == {"cccc333": ("tu_Task_async_001", "Explore")}
    assert kinds(ev, "prompt") == [] and kinds(ev, "notification") == []
    assert len(kinds(ev, "subagent_stop")) == 1  # the parent file shows it finished


# ---- 1.0.x inline sidechain: no agent id ---------------------------------------------------


def test_inline_sidechain_gets_its_own_lane(samples: Path, trail_home: Path) -> None:
    ev = load(trail_home, cc(samples) / "memory-sidechain.jsonl")
    # u1 is typed; a1 calls Task (toolu_task); sa1 (isSidechain, parentUuid a1, no agentId)
    # starts the sidechain, su1/sa2 continue it; a2 is the main agent's answer.
    assert main_prompts(ev) == ["Delegate a task."]
    assert subagents(ev) == {"sidechain-sa1": ("toolu_task", "general-purpose")}
    read = kinds(ev, "tool_call", call_id="toolu_sc_read")[0]
    assert read["agent_id"] == "sidechain-sa1"  # not the main agent's lane
    assert kinds(ev, "tool_result", call_id="toolu_sc_read")[0]["agent_id"] == "sidechain-sa1"
    assert kinds(ev, "tool_call", call_id="toolu_task")[0].get("agent_id") is None
    assert [e["text"] for e in kinds(ev, "subagent_stop")] == ["Read the memory."]
    assert [e["text"] for e in kinds(ev, "agent_stop")] == ["Subagent done."]


# ---- VS Code's Claude Code sessions (1.0.98, 2.1.33-2.1.44) ------------------------------


def test_vscode_parallel_subagents(samples: Path, trail_home: Path) -> None:
    folder = cc(samples) / "vscode-copilot-chat-fixtures"
    main = folder / "b3a7bd3c-5a10-4e7b-8ff0-7fc0cd6d1093.jsonl"
    ev = load(trail_home, main, folder / "b3a7bd3c-5a10-4e7b-8ff0-7fc0cd6d1093")
    # Line 2 holds two text blocks: a <system-reminder> with the referenced files (IDE
    # context, not typed) and the prompt itself.
    (prompt,) = main_prompts(ev)
    assert prompt.startswith("Run 4 subagents in parallel that just run the sleep commands")
    assert kinds(ev, "other", seq=2)[0]["extra"]["text_kind"] == "system_reminder"
    # Task calls on lines 4-7 (subagent_type "Bash"); results 8-11 name the agents.
    assert subagents(ev) == {
        "a775a67": ("toolu_013bNjaTFag27GsNzFPHgcxj", "Bash"),
        "ae52dab": ("toolu_01V1mza2UpeLsKrJjzB1ZobG", "Bash"),
        "aa9d784": ("toolu_018BhXz4XjogjHLbQENTjxPD", "Bash"),
        "ac47f8c": ("toolu_01JH2YdnQf63jQ5uNFhSnxA1", "Bash"),
    }
    assert len(kinds(ev, "subagent_stop")) == 4
    assert statuses(ev)["failed"] == 0


def test_vscode_compaction_is_one_event_and_slash_compact_is_not_a_prompt(
    samples: Path, trail_home: Path
) -> None:
    ev = load(
        trail_home, cc(samples) / "vscode-copilot-chat-fixtures" / "98b76fb9-compact-boundary.jsonl"
    )
    # Typed: lines 2, 8, 14 (after their <system-reminder> blocks). Line 20 is the
    # compact_boundary, 21 its isCompactSummary, 22 an isMeta caveat, 23 the /compact command
    # (instructions to the compactor), 24 its local-command-stdout.
    assert [p[:20] for p in main_prompts(ev)] == [
        "Give me 4 20 sentinc",
        "Give me 4 20 sentinc",
        "im testing chat just",
    ]
    (compaction,) = kinds(ev, "compaction")
    assert compaction["seq"] == 20
    assert compaction["text"].startswith("This session is being continued")
    assert compaction["extra"]["boundary_text"] == "Conversation compacted"
    compact_cmd = [e for e in ev if (e.get("extra") or {}).get("text_kind") == "compact_command"]
    assert len(compact_cmd) == 1 and compact_cmd[0]["seq"] == 23
    assert not has_actions(ev)  # four answers, no tool call: nothing to grade


@pytest.mark.parametrize(
    ("name", "prompts", "actions"),
    [
        # one string line: a <system-reminder> with /foo.txt, then "hello session 2"
        ("553dd2b5-minimal-v1.0.98.jsonl", ["hello session 2"], False),
        # lines 2, 4 (text blocks, session c8bcb3a7…) and 6 (a string, session b02ed4d8…);
        # line 1 is a summary (a title)
        (
            "b02ed4d8-summary-v1.0.96.jsonl",
            ["hello session 1", "hello session 1 continued", "hello session 1 resumed"],
            False,
        ),
        # line 2: reminder + "run sleep 4"; line 5 a Bash call
        ("bd937e2a-thinking-signature.jsonl", ["run sleep 4"], True),
    ],
)
def test_vscode_small_sessions(
    samples: Path, trail_home: Path, name: str, prompts: list[str], actions: bool
) -> None:
    ev = load(trail_home, cc(samples) / "vscode-copilot-chat-fixtures" / name)
    assert [p.split("\n")[-1] for p in main_prompts(ev)] == prompts
    assert has_actions(ev) is actions


# ---- refusals, cancellations, failures ------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "status"),
    [
        ("tools__ExitPlanMode-tool_result_error.jsonl", "refused"),  # "The user doesn't want…"
        ("tools__Write-tool_result_error.jsonl", "refused"),
        ("tools__AskUserQuestion-tool_result_error.jsonl", "failed"),  # No such tool available
        ("tools__Edit-tool_result_error.jsonl", "failed"),  # File has not been read yet
        ("tools__Read-tool_result_error.jsonl", "failed"),  # EISDIR
        ("tools__KillShell-tool_result_error.jsonl", "failed"),
        ("tools__MultiEdit-tool_result_error.jsonl", "failed"),
        # The user's own words as the result of a rejected Bash (1.0.x wrote no marker):
        # indistinguishable from a failure in the file, so a failure.
        ("tools__Bash-tool_result_error.jsonl", "failed"),
        ("tools__Bash-tool_result.jsonl", "ok"),
    ],
)
def test_error_samples_are_failures_or_refusals(
    samples: Path, trail_home: Path, name: str, status: str
) -> None:
    ev = load(trail_home, cc(samples) / "message-types" / name)
    results = [e for e in ev if e["kind"] in ("tool_result", "tool_error", "permission")]
    assert [e["status"] for e in results] == [status]
    (res,) = results
    expected_kind = {"ok": "tool_result", "refused": "permission"}.get(status, "tool_error")
    assert res["kind"] == expected_kind and res["call_id"]
    assert res["ok"] is {"ok": True, "refused": None}.get(status, False)
    if status == "refused":
        assert res["error"].startswith("The user doesn't want to proceed with this tool use")


def test_user_rejected_line_of_2_1_x_is_a_refusal(
    samples: Path, tmp_path: Path, trail_home: Path
) -> None:
    # The file is named agent-sessions-….jsonl after the repository it came from, which reads
    # as a legacy agent file: copied under a neutral name so its main lines stay main.
    src = cc(samples) / "agent-sessions-stage0-small-all-line-types.jsonl"
    path = tmp_path / "stage0-small.jsonl"
    shutil.copy(src, path)
    ev = load(trail_home, path)
    # Line 10: toolDenialKind "user-rejected", content "The user doesn't want to proceed…".
    (refusal,) = kinds(ev, "permission")
    assert (refusal["seq"], refusal["status"], refusal["ok"]) == (10, "refused", None)
    # (this fixture's tool_use has no id; the line's sourceToolUseID names the call)
    assert refusal["call_id"] == "tool_use_stage0_002"
    assert statuses(ev)["failed"] == 0
    # Compactions: boundary 21 + its summary 22, and boundary 51 (followed by attachments).
    assert sorted(e["seq"] for e in kinds(ev, "compaction")) == [21, 51]
    assert kinds(ev, "compaction", seq=21)[0]["text"] == "Summary of prior context."


@pytest.mark.parametrize(
    ("text", "extra", "status"),
    [
        ("<tool_use_error>Sibling tool call errored</tool_use_error>", {}, "cancelled"),
        (
            "<tool_use_error>Cancelled: parallel tool call Bash(ls /nonexistent) errored"
            "</tool_use_error>",
            {},
            "cancelled",
        ),
        (
            "[Tool call skipped: the turn was stopped before this call ran, by the check whose "
            "denial is on another call in this batch. Nothing refused this call and it had no "
            "effects; re-run it if still needed.]",
            {},
            "cancelled",
        ),
        ("[Request interrupted by user for tool use]", {}, "interrupted"),
        ("Permission to use Bash with command rm -rf / has been denied.", {}, "refused"),
        ("anything", {"toolDenialKind": "permission-rule"}, "refused"),
        ("anything", {"toolDenialKind": "cancelled"}, "cancelled"),
        ("anything", {"permissionDecision": {"decision": "deny", "source": "rule"}}, "refused"),
        ("Exit code 2\nls: cannot access '/nonexistent'", {}, "failed"),
        # 2.1.328 (rig scenario permission_refusal): a deny rule naming the whole tool takes it
        # out of the session; a made-up tool name is the model's own failure.
        (
            "<tool_use_error>Error: No such tool available: Bash. Bash is disabled for this "
            "session, in subagents as well as here.</tool_use_error>",
            {},
            "refused",
        ),
        (
            "<tool_use_error>Error: No such tool available: Bash. Bash is not among the tools "
            "available here. Continue with the tools you have.</tool_use_error>",
            {},
            "failed",
        ),
        # 2.1.328 (rig scenario failing_siblings): a Bash past its own timeout failed.
        ("Exit code 143\nCommand timed out after 1s", {}, "failed"),
        # 2.1.328 (rig scenario permission_refusal): not in --allowedTools, in -p mode.
        (
            "Claude requested permissions to write to /p/CLAUDE.md, but you haven't granted it "
            "yet.",
            {
                "toolDenialKind": "user-rejected",
                "permissionDecision": {"decision": "reject", "source": "config"},
            },
            "refused",
        ),
    ],
)
def test_result_status_of_cancellations_and_refusals(
    tmp_path: Path, trail_home: Path, text: str, extra: dict[str, Any], status: str
) -> None:
    lines = [
        {"type": "user", "uuid": "u1", "sessionId": "s", "timestamp": "2026-01-01T00:00:00Z",
         "message": {"role": "user", "content": "go"}},
        {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "s",
         "timestamp": "2026-01-01T00:00:01Z",
         "message": {"role": "assistant", "content": [
             {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}]}},
        {"type": "user", "uuid": "u2", "parentUuid": "a1", "sessionId": "s",
         "timestamp": "2026-01-01T00:00:02Z",
         "message": {"role": "user", "content": [
             {"type": "tool_result", "tool_use_id": "t1", "content": text, "is_error": True}]},
         **extra},
    ]  # fmt: skip
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    ev = load(trail_home, path)
    (res,) = [e for e in ev if e["kind"] in ("tool_result", "tool_error", "permission")]
    assert res["status"] == status and res["tool_name"] == "Bash" and res["call_id"] == "t1"
    assert res["ok"] is {"failed": False, "interrupted": False}.get(status)
    assert res["kind"] == ("permission" if status == "refused" else "tool_error")


@pytest.mark.parametrize(
    ("text", "blind"),
    [
        # 2.1.328 (rig tools_tour): rejected before running, no hook at all.
        ("<tool_use_error>String to replace not found in file.\nString: x</tool_use_error>", True),
        ("<tool_use_error>Error: No such tool available: frobnicate</tool_use_error>", True),
        # Ran and failed (rig parallel_and_failure): PreToolUse and PostToolUseFailure fired.
        ("File does not exist. Note: your current working directory is /p.", False),
        ("Exit code 2\nls: cannot access '/nonexistent'", False),
    ],
)
def test_a_call_rejected_before_running_is_marked_hooks_blind(
    tmp_path: Path, trail_home: Path, text: str, blind: bool
) -> None:
    lines = [
        {"type": "user", "uuid": "u1", "sessionId": "s", "timestamp": "2026-01-01T00:00:00Z",
         "message": {"role": "user", "content": "go"}},
        {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "s",
         "timestamp": "2026-01-01T00:00:01Z",
         "message": {"role": "assistant", "content": [
             {"type": "tool_use", "id": "t1", "name": "Edit", "input": {"file_path": "/p/a"}}]}},
        {"type": "user", "uuid": "u2", "parentUuid": "a1", "sessionId": "s",
         "timestamp": "2026-01-01T00:00:02Z",
         "message": {"role": "user", "content": [
             {"type": "tool_result", "tool_use_id": "t1", "content": text, "is_error": True}]}},
    ]  # fmt: skip
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    (res,) = [e for e in load(trail_home, path) if e["kind"] == "tool_error"]
    assert res["status"] == "failed" and bool(res["extra"].get("hooks_blind")) is blind


# ---- harness-internal agents ---------------------------------------------------------------


def test_warmup_agent_is_internal(samples: Path, trail_home: Path) -> None:
    # A 2.0.28 sidechain whose only line is the prompt "Warmup" (agentId b1f5d80e).
    ev = load(trail_home, cc(samples) / "message-types" / "user__user_sidechain.jsonl")
    assert [(e["kind"], e["agent_id"], e["internal"]) for e in ev] == [
        ("subagent_start", "b1f5d80e", "warmup")
    ]
    assert subagents(ev) == {} and main_prompts(ev) == [] and not has_actions(ev)


def test_compaction_and_warmup_agent_files_are_internal(tmp_path: Path, trail_home: Path) -> None:
    project = tmp_path / "proj"
    subs = project / "s1" / "subagents"
    subs.mkdir(parents=True)
    (project / "s1.jsonl").write_text(
        json.dumps({"type": "user", "uuid": "u1", "sessionId": "s1", "promptId": "p1",
                    "timestamp": "2026-01-01T00:00:00Z",
                    "message": {"role": "user", "content": "hi"}}) + "\n"
    )  # fmt: skip
    for agent, prompt in (("acompact-5f2a9c", "Summarize the conversation"), ("a1b2c3", "Warmup")):
        (subs / f"agent-{agent}.jsonl").write_text(
            json.dumps({"type": "user", "uuid": f"x-{agent}", "sessionId": "s1",
                        "agentId": agent, "isSidechain": True,
                        "timestamp": "2026-01-01T00:00:01Z",
                        "message": {"role": "user", "content": prompt}}) + "\n"
            + json.dumps({"type": "assistant", "uuid": f"y-{agent}", "parentUuid": f"x-{agent}",
                          "sessionId": "s1", "agentId": agent, "isSidechain": True,
                          "timestamp": "2026-01-01T00:00:02Z",
                          "message": {"role": "assistant", "stop_reason": "end_turn",
                                      "content": [{"type": "tool_use", "id": f"t-{agent}",
                                                   "name": "Read", "input": {}}]}}) + "\n"
        )  # fmt: skip
    ev = load(trail_home, project)
    internal = {e["agent_id"]: e["internal"] for e in ev if e.get("internal")}
    assert internal == {"acompact-5f2a9c": "compaction", "a1b2c3": "warmup"}
    assert subagents(ev) == {}
    assert all(e.get("internal") for e in ev if e["kind"] == "tool_call")
    assert not has_actions(ev)  # only internal agents acted: nothing of the user's to grade


# ---- sessions with nothing to grade ---------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "prompts"),
    [
        ("real-session-small-94604a7b.jsonl", 1),  # one question, one text answer
        ("agent-sessions-stage0-large.jsonl", 4),  # Start, Step 1-3 (its bash is isMeta-free)
        ("sessions-chronicle-sample-session.jsonl", 1),
        ("hook-attachments.jsonl", 1),  # "Run the test suite", answered with text only
        ("away-summary.jsonl", 0),  # one system away_summary line
        ("dag-fork.jsonl", 7),  # seven user text lines on three branches
    ],
)
def test_sessions_and_their_actions(
    samples: Path, trail_home: Path, name: str, prompts: int
) -> None:
    ev = load(trail_home, cc(samples) / name)
    assert len(main_prompts(ev)) == prompts
    # stage0-large's line 2 calls bash; the others never call a tool.
    assert has_actions(ev) is (name == "agent-sessions-stage0-large.jsonl")


def test_edge_cases_file(samples: Path, trail_home: Path) -> None:
    ev = load(trail_home, cc(samples) / "edge-cases.jsonl")
    # Typed: 1, 3, 12; 7 is a slash command (test-command); 6 a caveat, 8 command output.
    assert len(main_prompts(ev)) == 4
    assert kinds(ev, "prompt", seq=7)[0]["extra"]["command"] == "test-command"
    assert {e["seq"] for e in ev if (e.get("extra") or {}).get("text_kind")} >= {6, 7, 8}
    # Line 5: "Error: Tool execution failed…" for FailingTool: a real failure.
    assert statuses(ev)["failed"] == 1


def test_queued_task_notifications_are_not_prompts(samples: Path, trail_home: Path) -> None:
    ev = load(trail_home, cc(samples) / "agentsview-queued-system-messages.jsonl")
    # Line 1 is a prompt; lines 2-3 are queued_command attachments holding task-notifications.
    assert len(main_prompts(ev)) == 1
    assert [e["agent_id"] for e in kinds(ev, "notification")] == [
        "a29fa76dc1fa3212f...",
        "a5db2a604af3b5fcd...",
    ]


# ---- re-importing a growing file ------------------------------------------------------------


def _strip(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = [{k: v for k, v in e.items() if k != "received_at"} for e in events]
    return sorted(out, key=lambda e: e["id"])


@pytest.mark.parametrize(
    "relative",
    [
        "real-session-with-subagents/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl",
        "vscode-copilot-chat-fixtures/98b76fb9-compact-boundary.jsonl",
        "async-agents/eb000000-0000-4000-8000-000000000001.jsonl",
        "memory-sidechain.jsonl",
        "2.1.328:subagents/557f92d0-47c4-4dba-acb4-4281f8fe5262.jsonl",
        "2.1.328:parallel_and_failure/f0e5a916-639e-4aac-88a7-efe8f61bd19b.jsonl",
    ],
)
def test_growing_file_adds_only_new_facts(samples: Path, tmp_path: Path, relative: str) -> None:
    if relative.startswith("2.1.328:"):
        src = CC_2_1_328 / relative.split(":", 1)[1]
    else:
        src = cc(samples) / relative
    lines = src.read_bytes().splitlines(keepends=True)
    once = tmp_path / "once"
    live_file = tmp_path / "live" / src.name
    live_file.parent.mkdir()
    live_file.write_bytes(src.read_bytes())
    import_transcripts([str(live_file)], home=str(once))
    expected = _strip(read_trace_lines(once))
    step = max(1, len(lines) // 12)
    for cut in range(1, len(lines), step):
        home = tmp_path / f"grow-{cut}"
        live_file.write_bytes(b"".join(lines[:cut]))
        import_transcripts([str(live_file)], home=str(home))
        live_file.write_bytes(b"".join(lines))
        import_transcripts([str(live_file)], home=str(home))
        import_transcripts([str(live_file)], home=str(home))
        got = _strip(read_trace_lines(home))
        assert got == expected, f"prefix of {cut} lines"


# ---- the shared classification --------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind", "what"),
    [
        ("fix the bug", "prompt", "typed"),
        ("<command-name>/review</command-name>\n<command-args>42</command-args>", "prompt",
         "slash_command"),
        ("<command-message>compact</command-message>\n<command-name>/compact</command-name>",
         "other", "compact_command"),
        ("<bash-input>ls</bash-input>", "prompt", "bash_input"),
        ("<ide_opened_file>The user opened the file /a.py in the IDE.</ide_opened_file>", "other",
         "ide_context"),
        ("<ide_selection>The user selected lines 1 to 3</ide_selection>", "other", "ide_context"),
        ("<system-reminder>x</system-reminder>", "other", "system_reminder"),
        ("<system-reminder>x</system-reminder>\n\nreal words", "prompt", "typed"),
        ("<ide_selection>lines 1-3 of /a.py</ide_selection>\n\nexplain this", "prompt", "typed"),
        ("<system-reminder>a</system-reminder><ide_opened_file>b</ide_opened_file>", "other",
         "system_reminder"),
        ("  ", "other", "empty"),
        ("<task-notification>\n<task-id>b1</task-id>\n<tool-use-id>toolu_9</tool-use-id>\n"
         "<status>completed</status>\n</task-notification>", "notification", "task_notification"),
        ("<local-command-stdout>ok</local-command-stdout>", "other", "command_output"),
        ("[Request interrupted by user]", "other", "interrupt"),
    ],
)  # fmt: skip
def test_classify_user_text(text: str, kind: str, what: str) -> None:
    assert classify_user_text(text)[:2] == (kind, what)


def test_task_notification_facts() -> None:
    text = (
        "<task-notification>\n<task-id>a9f</task-id>\n<tool-use-id>toolu_01X</tool-use-id>\n"
        "<status>completed</status>\n<summary>Agent done</summary>\n<result>r</result>\n"
        "</task-notification>"
    )
    assert classify_user_text(text)[2] == {
        "task_id": "a9f",
        "tool_use_id": "toolu_01X",
        "status": "completed",
        "summary": "Agent done",
    }


def test_internal_agent_rules() -> None:
    assert internal_agent("acompact-8bd5e1a2") == "compaction"
    assert internal_agent("aprompt_suggestion-3f2a") == "prompt_suggestion"
    assert internal_agent("a4ca7529859c158c2") is None
    assert internal_agent("x", first_prompt="Warmup") == "warmup"
    assert internal_agent("x", agent_type="general-purpose", first_prompt="Do it") is None
    assert result_status(False, "fine") == "ok"


# ---- the real 2.1.328 (tests/trace_ingest/data/claude-code-2.1.328/README.md) ----------------


def test_2_1_328_background_and_foreground_agents(trail_home: Path) -> None:
    ev = load(trail_home, CC_2_1_328 / "subagents")
    pid = "23ecab25-cca8-4202-aa1d-224148ad8cd8"
    # One typed prompt (promptSource "sdk"). Agent call 1 (description "background check")
    # returns status async_launched, agentId a488e6070544204e8; call 2 (run_in_background
    # false) returns status completed, agentId af3694ec84e9ecb50. Both meta.json files say
    # agentType general-purpose and name their toolUseId.
    assert main_prompts(ev) == ["Ask two helpers to check the build."]
    assert subagents(ev) == {
        "a488e6070544204e8": ("toolu_fake_0_0_0_b83683d7", "general-purpose"),
        "af3694ec84e9ecb50": ("toolu_fake_0_1_0_953c5458", "general-purpose"),
    }
    # The background agent's result comes back as a queued_command attachment
    # (commandMode "task-notification") inside the same turn: a notification, no prompt.
    (note,) = kinds(ev, "notification")
    assert (note["agent_id"], note["parent_call_id"]) == (
        "a488e6070544204e8",
        "toolu_fake_0_0_0_b83683d7",
    )
    assert note["extra"]["line_type"] == "attachment" and note["prompt_id"] == pid
    assert {e["agent_id"] for e in kinds(ev, "subagent_stop")} == set(subagents(ev))
    launch = kinds(ev, "tool_result", call_id="toolu_fake_0_0_0_b83683d7")[0]
    assert launch["status"] == "ok" and launch["extra"]["toolUseResult"]["isAsync"] is True
    # Each child ran one Bash (echo child-ok); the main agent one Bash after the agents.
    assert Counter(e.get("agent_id") for e in kinds(ev, "tool_call")) == Counter(
        {None: 3, "a488e6070544204e8": 1, "af3694ec84e9ecb50": 1}
    )
    # The turn ends with "Done." then a stop_hook_summary line: one stop, with the turn's id.
    assert [(e["text"], e["prompt_id"]) for e in kinds(ev, "agent_stop")] == [("Done.", pid)]
    assert {e["prompt_id"] for e in ev if e["kind"] != "other"} == {pid}
    # cost-state, tools-used, atis-latch, last-prompt, queue-operation: kept, marked.
    quiet = {e["extra"]["line_type"] for e in ev if e["kind"] == "other"}
    assert {"cost-state", "tools-used", "atis-latch", "last-prompt", "queue-operation"} <= quiet


def test_2_1_328_instructions_attachments_are_guides_loaded(trail_home: Path) -> None:
    ev = load(trail_home, CC_2_1_328 / "subagents")
    # One `attachment` line of type instructions ({files: [{path: .../CLAUDE.md, ...}]}) in
    # the main file and one in each agent file: the rule file reached each agent's context.
    guides = {(e.get("agent_id"), e["path"]) for e in kinds(ev, "guide_loaded")}
    claude_md = "/tmp/rig-captures/subagents/project/CLAUDE.md"
    assert guides == {
        (None, claude_md),
        ("a488e6070544204e8", claude_md),
        ("af3694ec84e9ecb50", claude_md),
    }


def test_2_1_328_parallel_calls_and_failures(trail_home: Path) -> None:
    ev = load(trail_home, CC_2_1_328 / "parallel_and_failure")
    # Read + Bash in one message (both ok), then a failing Bash (exit 2), then Read of a
    # missing file + Bash in one message: the Read fails, its sibling Bash still runs.
    assert len(main_prompts(ev)) == 1
    assert statuses(ev) == Counter({"ok": 3, "failed": 2})
    assert [e["error"].split("\n")[0] for e in kinds(ev, "tool_error")] == [
        "Exit code 2",
        "File does not exist. Note: your current working directory is "
        "/tmp/rig-captures/parallel_and_failure/project.",
    ]
    assert [e["text"] for e in kinds(ev, "agent_stop")] == ["Done."]


def test_turn_origin_of_2_1_x_says_who_started_the_turn(tmp_path: Path, trail_home: Path) -> None:
    def user(uuid: str, text: str, **more: Any) -> dict[str, Any]:
        return {"type": "user", "uuid": uuid, "sessionId": "s", "promptId": f"p-{uuid}",
                "timestamp": "2026-01-01T00:00:00Z",
                "message": {"role": "user", "content": text}, **more}  # fmt: skip

    path = tmp_path / "s.jsonl"
    lines = [
        user("u1", "typed by a person", turnOrigin="human", promptSource="typed"),
        user("u2", "Continue from where you left off.", turnOrigin="auto_continuation"),
        user("u3", "background result", turnOrigin="task_notification"),
        user("u4", "from the SDK", turnOrigin="sdk", promptSource="sdk"),
    ]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    ev = load(trail_home, path)
    assert main_prompts(ev) == ["typed by a person", "from the SDK"]
    assert [e["uuid"] for e in kinds(ev, "notification")] == ["u3"]


def test_growing_session_with_agent_files_adds_only_new_facts(tmp_path: Path) -> None:
    """The main file and its agents' files grow together, as Claude Code wrote them (lines in
    timestamp order across the three files); imports in between add only new facts."""
    src = CC_2_1_328 / "subagents"
    once = tmp_path / "once"
    import_transcripts([str(src)], home=str(once))
    expected = _strip(read_trace_lines(once))
    files = sorted(src.rglob("*.jsonl"))
    written: list[tuple[str, int, Path, bytes]] = []  # (time, order, file, line)
    for path in files:
        last = ""  # the file's latest time so far: keeps each file's own line order
        for line in path.read_bytes().splitlines(keepends=True):
            last = max(last, json.loads(line).get("timestamp") or "")
            written.append((last, len(written), path, line))
    written.sort()
    step = max(1, len(written) // 30)
    for cut in range(step, len(written), step):
        live = tmp_path / f"live-{cut}"
        shutil.copytree(src, live)
        for path in files:
            part = b"".join(line for _, _, p, line in written[:cut] if p == path)
            target = live / path.relative_to(src)
            if part:
                target.write_bytes(part)
            else:
                target.unlink()
        home = tmp_path / f"home-{cut}"
        import_transcripts([str(live)], home=str(home))
        shutil.rmtree(live)
        shutil.copytree(src, live)
        import_transcripts([str(live)], home=str(home))
        import_transcripts([str(live)], home=str(home))
        assert _strip(read_trace_lines(home)) == expected, cut
