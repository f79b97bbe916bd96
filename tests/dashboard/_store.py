"""A recorded store for the dashboard tests: real hook calls (subprocesses, as a harness makes
them) carrying hostile content, a subagent, a failure and a forbidden command; graded by the
real `trail eval score`; and a server on 127.0.0.1 serving it."""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from dashboard.server import Dashboard, sync_once
from tests.conftest import TRAIL, run_hook

SESSION = "dash-hostile-1"
SCRIPT = "<script>document.title='PWNED'</script>"
IMG = "</pre></details><img src=x onerror=\"document.title='PWNED'\">"
CONTROL = "bell\x07 nul\x00 esc\x1b[31m del\x7f"
LONG = "x" * 60_000
AGENT = "agent-lane-7"
WAITING = "dash-waiting-3"
BASE: dict[str, Any] = {
    "session_id": SESSION,
    "transcript_path": "/t.jsonl",
    "cwd": "/home/me/proj",
}


def _bash(command: str, call: str, **extra: Any) -> dict[str, Any]:
    return {"tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": call, **extra}


def record_hostile_session() -> None:
    """One Claude Code session through the real hook, then graded at L0/L1 and recorded."""
    payloads: list[dict[str, Any]] = [
        {"hook_event_name": "SessionStart", "source": "startup"},
        {"hook_event_name": "UserPromptSubmit", "prompt": f"{SCRIPT} {CONTROL} {LONG}"},
        {"hook_event_name": "PreToolUse", **_bash(IMG, "toolu_1")},
        {
            "hook_event_name": "PostToolUseFailure",
            **_bash(IMG, "toolu_1"),
            "error": f"failed {SCRIPT}",
        },
        {"hook_event_name": "SubagentStart", "agent_id": AGENT, "agent_type": "Explore"},
        {
            "hook_event_name": "PreToolUse",
            "agent_id": AGENT,
            "agent_type": "Explore",
            **_bash("ls", "toolu_2"),
        },
        {
            "hook_event_name": "PostToolUse",
            "agent_id": AGENT,
            "agent_type": "Explore",
            **_bash("ls", "toolu_2"),
            "tool_response": {"stdout": "a\nb", "stderr": "", "interrupted": False},
        },
        {"hook_event_name": "SubagentStop", "agent_id": AGENT, "agent_type": "Explore"},
        {"hook_event_name": "PreToolUse", **_bash("git push --force origin main", "toolu_3")},
        {
            "hook_event_name": "PostToolUse",
            **_bash("git push --force origin main", "toolu_3"),
            "tool_response": {"stdout": "ok", "stderr": "", "interrupted": False},
        },
        # a refusal (the permission system denied the call) and a call the user interrupted
        {"hook_event_name": "PreToolUse", **_bash("rm -rf build", "toolu_4")},
        {"hook_event_name": "PermissionDenied", **_bash("rm -rf build", "toolu_4"), "reason": "no"},
        {"hook_event_name": "PreToolUse", **_bash("sleep 600", "toolu_5")},
        {
            "hook_event_name": "PostToolUseFailure",
            **_bash("sleep 600", "toolu_5"),
            "error": "interrupted by the user",
            "is_interrupt": True,
        },
        {"hook_event_name": "Stop"},
        {"hook_event_name": "SessionEnd", "reason": "exit"},
    ]
    for p in payloads:
        done = run_hook({**BASE, **p})
        assert done.returncode == 0, done.stderr
    run_hook({**BASE, "session_id": "dash-plain-2", "hook_event_name": "SessionStart"})
    # open, its turn over: the agent waits for the user
    for name in ("SessionStart", "UserPromptSubmit", "Stop"):
        run_hook({**BASE, "session_id": WAITING, "hook_event_name": name, "prompt": "hi"})
    scored = subprocess.run(
        [TRAIL, "eval", "score", "--session", SESSION],
        capture_output=True,
        text=True,
        check=False,
    )
    assert scored.returncode in (0, 3, 4), scored.stderr  # a verdict was recorded


@contextmanager
def serving(home: Path) -> Iterator[Dashboard]:
    """The dashboard on a free port of 127.0.0.1, in this process, stopped afterwards."""
    sync_once(str(home))
    server = Dashboard(str(home), 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)
