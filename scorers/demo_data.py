"""Built-in Claude Code sessions for ``trail demo``, written for this project.

Each session is the list of hook payloads Claude Code would send, in order (field names from
harnesses.md §1.5-1.6). The one secret in them is generated at run time, never stored here.
"""

from __future__ import annotations

import random
import string
import time
from typing import Any

# Shorter than the gap between two hook calls (each a process start, ~10 ms or more).
_DURATION_MS = 2

Payload = dict[str, Any]


def _base(session_id: str, cwd: str) -> Payload:
    return {
        "session_id": session_id,
        "transcript_path": f"/home/demo/.claude/projects/-demo/{session_id}.jsonl",
        "cwd": cwd,
    }


def _tool(
    b: Payload,
    n: int,
    name: str,
    tool_input: Payload,
    response: Any = None,
    error: str | None = None,
    agent: str | None = None,
) -> list[Payload]:
    call_id = f"toolu_demo_{n:03d}"
    extra = {"agent_id": agent, "agent_type": "Explore"} if agent else {}
    pre = {
        **b,
        **extra,
        "hook_event_name": "PreToolUse",
        "permission_mode": "default",
        "tool_name": name,
        "tool_input": tool_input,
        "tool_use_id": call_id,
    }
    if error is not None:
        post = {
            **b,
            **extra,
            "hook_event_name": "PostToolUseFailure",
            "tool_name": name,
            "tool_input": tool_input,
            "tool_use_id": call_id,
            "error": error,
            "is_interrupt": False,
            # The demo plays its payloads through the real hook one after another, a few ms
            # apart; a duration longer than that gap would tell the canonical order that the
            # call started before the events recorded ahead of it (telemetry/canonical.py
            # moves a hook-only call to its result's stamp minus the duration).
            "duration_ms": _DURATION_MS,
        }
    else:
        post = {
            **b,
            **extra,
            "hook_event_name": "PostToolUse",
            "tool_name": name,
            "tool_input": tool_input,
            "tool_use_id": call_id,
            "tool_response": response if response is not None else {"success": True},
            "duration_ms": _DURATION_MS,
        }
    return [pre, post]


def _start(b: Payload, prompt: str) -> list[Payload]:
    return [
        {**b, "hook_event_name": "SessionStart", "source": "startup", "model": "claude-demo"},
        {
            **b,
            "hook_event_name": "InstructionsLoaded",
            "file_path": f"{b['cwd']}/CLAUDE.md",
            "memory_type": "Project",
            "load_reason": "session_start",
        },
        {**b, "hook_event_name": "UserPromptSubmit", "prompt": prompt},
    ]


def _end(b: Payload, message: str) -> list[Payload]:
    return [
        {
            **b,
            "hook_event_name": "Stop",
            "stop_hook_active": False,
            "last_assistant_message": message,
        },
        {**b, "hook_event_name": "SessionEnd", "reason": "prompt_input_exit"},
    ]


def fake_token(rng: random.Random) -> str:
    """A GitHub-token-shaped string made at run time, for the scrubber to catch."""
    return (
        "gh" + "p_" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(36))
    )


def clean_session(session_id: str) -> list[Payload]:
    b = _base(session_id, "/home/demo/projects/shop")
    path = "/home/demo/projects/shop/cart.py"
    events = _start(b, "The cart total ignores discounts; fix it and run the tests.")
    events += _tool(
        b,
        1,
        "Grep",
        {"pattern": "def total", "path": "."},
        {"filenames": ["cart.py"], "numFiles": 1},
    )
    events += _tool(
        b,
        2,
        "Read",
        {"file_path": path},
        {"type": "text", "file": {"filePath": path, "numLines": 42}},
    )
    events += _tool(
        b,
        3,
        "Edit",
        {
            "file_path": path,
            "old_string": "return sum(prices)",
            "new_string": "return sum(prices) - discount",
        },
        {"filePath": path, "success": True},
    )
    events += _tool(
        b,
        4,
        "Bash",
        {"command": "pytest -q tests/test_cart.py"},
        {"stdout": "5 passed in 0.12s", "stderr": "", "interrupted": False},
    )
    return events + _end(b, "Fixed: total now subtracts the discount; 5 tests pass.")


def failing_session(session_id: str, rng: random.Random) -> list[Payload]:
    b = _base(session_id, "/home/demo/projects/api")
    path = "/home/demo/projects/api/settings.py"
    events = _start(b, "Deploy the API to staging.")
    events += _tool(
        b,
        1,
        "Edit",
        {"file_path": path, "old_string": "DEBUG = True", "new_string": "DEBUG = False"},
        {"filePath": path, "success": True},
    )
    for n in (2, 3, 4):
        events += _tool(
            b,
            n,
            "Bash",
            {"command": "make deploy-staging"},
            error="Exit code 2\nerror: connection refused (staging:443)",
        )
    token = fake_token(rng)
    events += _tool(
        b,
        5,
        "Bash",
        {"command": f"GITHUB_TOKEN={token} make deploy-staging"},
        {"stdout": "deployed to staging", "stderr": "", "interrupted": False},
    )
    events += _tool(
        b,
        6,
        "Bash",
        {"command": "git push --force origin main"},
        {"stdout": "+ 1a2b3c4...5d6e7f8 main -> main (forced update)", "stderr": ""},
    )
    return events + _end(b, "Deployed to staging.")


def subagent_session(session_id: str) -> list[Payload]:
    b = _base(session_id, "/home/demo/projects/docs")
    agent = "a1b2c3d4"
    events = _start(b, "Find every broken link in the docs and list them.")
    events += [
        {
            **b,
            "hook_event_name": "PreToolUse",
            "tool_name": "Skill",
            "tool_input": {"skill": "link-checker"},
            "tool_use_id": "toolu_demo_000",
        }
    ]
    events += [
        {
            **b,
            "hook_event_name": "PreToolUse",
            "tool_name": "Task",
            "tool_input": {
                "description": "Scan docs for links",
                "subagent_type": "Explore",
                "prompt": "List every markdown link under docs/",
            },
            "tool_use_id": "toolu_demo_task",
        }
    ]
    events += [
        {**b, "hook_event_name": "SubagentStart", "agent_id": agent, "agent_type": "Explore"}
    ]
    events += _tool(
        b,
        1,
        "Glob",
        {"pattern": "docs/**/*.md"},
        {"filenames": ["docs/index.md", "docs/api.md"]},
        agent=agent,
    )
    events += _tool(
        b, 2, "Grep", {"pattern": "\\]\\(", "path": "docs"}, {"numFiles": 2}, agent=agent
    )
    events += _tool(
        b,
        3,
        "Read",
        {"file_path": "/home/demo/projects/docs/docs/api.md"},
        error="File does not exist.",
        agent=agent,
    )
    events += [
        {
            **b,
            "hook_event_name": "SubagentStop",
            "agent_id": agent,
            "agent_type": "Explore",
            "stop_hook_active": False,
            "agent_transcript_path": f"/home/demo/.claude/projects/-demo/{session_id}/"
            f"subagents/agent-{agent}.jsonl",
            "last_assistant_message": "2 files, 1 broken link: docs/api.md -> /v1/old",
        }
    ]
    events += [
        {
            **b,
            "hook_event_name": "PostToolUse",
            "tool_name": "Task",
            "tool_input": {"description": "Scan docs for links"},
            "tool_use_id": "toolu_demo_task",
            "tool_response": {"status": "completed", "agentId": agent, "totalToolUseCount": 3},
        }
    ]
    return events + _end(b, "One broken link: docs/api.md points to /v1/old.")


def sessions(stamp: str, seed: int = 7) -> list[tuple[str, list[Payload]]]:
    """The demo sessions as ``(name, payloads)``; ``stamp`` keeps each run's ids distinct."""
    rng = random.Random(seed)
    return [
        ("clean", clean_session(f"demo-clean-{stamp}")),
        ("failures", failing_session(f"demo-failures-{stamp}", rng)),
        ("subagent", subagent_session(f"demo-subagent-{stamp}")),
    ]


# ---- sessions of the other harnesses -------------------------------------------------------


def vibe_session(session_id: str) -> list[Payload]:
    """A Mistral Vibe 3.0.1 session: the payloads the real harness sent (a read, a shell command
    that exits 2 and that Vibe reports as a success, a read of a missing file, the turn's end),
    captured from the real program (``scorers/data/vibe-3.0.1-hooks.json``), under a new id."""
    import json
    from importlib import resources

    captured = json.loads(
        resources.files("scorers.data").joinpath("vibe-3.0.1-hooks.json").read_text()
    )["payloads"]
    old = str(captured[0]["session_id"])
    return [json.loads(json.dumps(p).replace(old, session_id)) for p in captured]


def copilot_session(session_id: str) -> list[Payload]:
    """A GitHub Copilot CLI 1.0.102 session: the camelCase payloads the real harness sent (a view
    and a bash in parallel, the bash exiting 2, a view of a missing file, an edit; no call ids,
    so trail pairs them), captured from the real program
    (``scorers/data/copilot-cli-1.0.102-hooks.json``), under a new id."""
    import json
    from importlib import resources

    captured = json.loads(
        resources.files("scorers.data").joinpath("copilot-cli-1.0.102-hooks.json").read_text()
    )["payloads"]
    old = str(captured[0]["sessionId"])
    return [json.loads(json.dumps(p).replace(old, session_id)) for p in captured]


def vscode_session(chat_id: str) -> list[Payload]:
    """A VS Code session with the Local agent harness: a read, a passing and a failing terminal
    command, a new file. There is no VS Code to capture from here (docs/testing.md): the
    payloads follow the shape of the real capture and source quoted in next-capabilities.md
    §1.3 (``hookEventName``, ISO ``timestamp``, ``sessionId`` = ``vscode-chat-session://local/``
    + base64 of the chat id, ``copilot_*`` tool ids, a UUID ``tool_use_id``, ``tool_response``
    text; PostToolUse fires only after a success, so the failing command has none)."""
    from trace_ingest.vscode_facts import encode_session_id

    session = encode_session_id(chat_id)
    start = int(time.time()) - 60
    clock = [0]

    def hook(event: str, **fields: object) -> Payload:
        clock[0] += 1  # VS Code stamps each payload (toISOString); the demo, a second apart
        when = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(start + clock[0]))
        return {
            "timestamp": f"{when}.000Z",
            "cwd": "/home/dev/shop/.github/hooks",
            "sessionId": session,
            "hookEventName": event,
            **fields,
        }

    def call(n: int, tool: str, tool_input: Payload, response: str | None) -> list[Payload]:
        ids = {"tool_name": tool, "tool_input": tool_input, "tool_use_id": f"{chat_id[:8]}-{n:04d}"}
        pre = hook("PreToolUse", **ids)
        return (
            [pre] if response is None else [pre, hook("PostToolUse", **ids, tool_response=response)]
        )

    return [
        hook("SessionStart", source="new"),
        hook("UserPromptSubmit", prompt="Add a health check endpoint and run the tests"),
        *call(1, "copilot_readFile", {"filePath": "/home/dev/shop/app.py"}, "from flask import"),
        *call(
            2,
            "copilot_createFile",
            {"filePath": "/home/dev/shop/health.py", "content": "def health(): ..."},
            "Created /home/dev/shop/health.py",
        ),
        *call(3, "run_in_terminal", {"command": "pytest -q", "isBackground": False}, "4 passed"),
        *call(4, "run_in_terminal", {"command": "ruff check .", "isBackground": False}, None),
        hook("Stop", stop_hook_active=False),
    ]


def harness_sessions(stamp: str) -> list[tuple[str, str, list[Payload]]]:
    """The demo sessions of harnesses other than Claude Code, as ``(name, harness, payloads)``."""
    import uuid

    chat_id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"trail-demo-vscode-{stamp}"))
    return [
        ("copilot", "copilot-cli", copilot_session(f"demo-copilot-{stamp}")),
        ("vibe", "vibe", vibe_session(f"demo-vibe-{stamp}")),
        ("vscode", "vscode", vscode_session(chat_id)),
    ]
