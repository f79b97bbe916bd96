"""Held-out payloads for the hook adapters that landed with issue 11 (`trail hook vibe`,
`trail hook vscode`, `trail hook copilot-cli`), through the real hook command.

Every payload is sent to every harness's hook (the sender sniff, hooks/sender.py, files a
payload under the harness whose shape it has), and for each the hook's promises are checked:
exit 0, nothing on stdout or stderr, no `stage: hook` error (an exception in an adapter), no
generated secret anywhere under the data dir (file contents and names), files 0600 and folders
0700, nothing written outside the data dir.

What broke: a VS Code `sessionId` URI whose base64 tail decodes to a token kept the token on
disk in `extra.session_uri` (the decoded id was redacted, its base64 was not). The URI is no
longer stored (`extra.session_target` is; `encode_session_id` rebuilds the URI).
"""

from __future__ import annotations

import base64
import json
import stat
from pathlib import Path
from typing import Any

import pytest

from tests.adversarial._hook import errors, secrets
from tests.conftest import read_trace_lines, run_hook

S = list(secrets(31).values())
GH, AWS, ANT, OAI, SLACK, STRIPE, GCP = S
HOOKS = ["vibe", "vscode", "copilot-cli", "claude-code"]


def uri(chat_id: str, target: str = "local") -> str:
    return f"vscode-chat-session://{target}/" + base64.b64encode(chat_id.encode()).decode()


PAYLOADS: dict[str, dict[str, Any] | bytes] = {
    # VS Code Local: hostile session ids inside the URI
    "vscode-token-in-id": {"hookEventName": "PreToolUse", "sessionId": uri(GH), "tool_name": "x"},
    "vscode-traversal-in-id": {"hookEventName": "Stop", "sessionId": uri("../../../../tmp/x")},
    "vscode-nul-in-id": {"hookEventName": "Stop", "sessionId": uri("a\x00b")},
    "vscode-dotdot-id": {"hookEventName": "Stop", "sessionId": uri("..")},
    "vscode-bad-base64": {"hookEventName": "Stop", "sessionId": "vscode-chat-session://local/!*"},
    "vscode-token-as-target": {"hookEventName": "Stop", "sessionId": uri("c", target=AWS)},
    "vscode-wrong-types": {
        "hookEventName": "PostToolUse",
        "sessionId": uri("c"),
        "timestamp": [1],
        "cwd": 5,
        "tool_name": 3,
        "tool_use_id": [GH],
        "tool_input": ANT,
        "tool_response": {"x": OAI},
        "agent_id": [1],
        "agent_type": {"x": 1},
        "model": SLACK,
    },
    "vscode-event-is-a-list": {"hookEventName": ["PreToolUse"], "sessionId": 1e308},
    "vscode-odd-timestamp": {
        "hookEventName": "Stop",
        "sessionId": uri("c"),
        "timestamp": "2026-01-01T00:00:00." + "9" * 5000 + "Z",
    },
    # Vibe: wrong types in every field, hostile ids
    "vibe-wrong-types": {
        "hook_event_name": "post_tool",
        "session_id": "s",
        "tool_name": ["x"],
        "tool_call_id": {"a": 1},
        "tool_input": STRIPE,
        "tool_output": {"returncode": GCP},
        "tool_status": ["success"],
        "tool_error": 5,
        "duration_ms": "x",
        "cwd": [GH],
    },
    "vibe-parent-is-a-token": {
        "hook_event_name": "pre_tool",
        "session_id": "s",
        "parent_session_id": ANT,
    },
    "vibe-id-traversal": {"hook_event_name": "pre_tool", "session_id": "a\x00/../../b"},
    "vibe-id-long": {"hook_event_name": "pre_tool", "session_id": "a" * 100_000},
    "vibe-id-object": {"hook_event_name": "pre_tool", "session_id": {"t": OAI}},
    "vibe-exit-code-huge": {
        "hook_event_name": "post_tool",
        "session_id": "s",
        "tool_name": "file_system.bash",
        "tool_status": "success",
        "tool_output": {"returncode": 1e308},
    },
    "vibe-2x-duration-nan": b'{"hook_event_name": "after_tool", "session_id": "s", '
    b'"tool_name": "bash", "duration_ms": NaN}',
    # Copilot CLI: both shapes, wrong types, hostile ids
    "copilot-args-string-token": {
        "sessionId": "s1",
        "timestamp": 1700000000000,
        "toolName": "bash",
        "toolArgs": json.dumps({"command": "curl -u " + GH}),
    },
    "copilot-args-deep": {
        "sessionId": "s1",
        "timestamp": 1,
        "toolName": "bash",
        "toolArgs": "[" * 5000 + "]" * 5000,
    },
    "copilot-wrong-types": {
        "sessionId": ["x"],
        "timestamp": 1700000000000.5,
        "toolName": {"a": SLACK},
        "toolArgs": 5,
        "toolResult": [AWS],
        "agentId": 5,
        "parentAgentId": {"x": 1},
        "agentType": [1],
        "cwd": {"a": STRIPE},
    },
    "copilot-id-dotdot": {"sessionId": "..", "timestamp": 1, "reason": "complete"},
    "copilot-id-traversal": {"sessionId": "../../../../etc", "timestamp": 1, "source": "new"},
    "copilot-id-token": {"sessionId": GCP, "timestamp": 1, "source": "new", "initialPrompt": ANT},
    "copilot-no-id-cwd-nul": {"timestamp": 1, "toolName": "bash", "cwd": "/tmp\x00x"},
    "copilot-pascal-child": {
        "hook_event_name": "PreToolUse",
        "session_id": "child",
        "timestamp": "2026-01-01T00:00:00Z",
        "agent_id": "child",
        "parent_agent_id": "../../p",
        "tool_name": "Bash",
        "tool_input": {"command": OAI},
    },
    "copilot-error-object": {
        "sessionId": "s",
        "timestamp": 1,
        "error": {"message": ["x"], "stack": GH},
    },
    # Any harness: bytes and nesting
    "non-utf8": b'{"hookEventName": "PreToolUse", "sessionId": "vscode-chat-session://local/'
    b'\xff\xfe", "tool_input": {"k": "' + SLACK.encode() + b'\xff"}}',
    "lone-surrogates": b'{"hook_event_name": "pre_tool", "session_id": "\\ud800", '
    b'"tool_name": "\\udfff", "cwd": "\\ud800"}',
    "nested-99": (
        '{"hook_event_name": "pre_tool", "session_id": "s", "tool_input": '
        + "[" * 99
        + json.dumps(STRIPE)
        + "]" * 99
        + "}"
    ).encode(),
    "nested-150": (
        '{"sessionId": "s", "timestamp": 1, "toolArgs": '
        + "[" * 150
        + json.dumps(GCP)
        + "]" * 150
        + "}"
    ).encode(),
    "token-as-a-key": {
        "hook_event_name": "pre_tool",
        "session_id": "s",
        GH: AWS,
        "tool_input": {ANT: 1},
    },
}


def check_home(home: Path, outside: Path) -> None:
    assert not [e for e in errors(home) if e["stage"] in ("hook", "scrub")], errors(home)
    blob = b""
    for p in home.rglob("*"):
        st = p.lstat()
        blob += str(p.relative_to(home)).encode() + b"\n"
        if stat.S_ISDIR(st.st_mode):
            assert st.st_mode & 0o777 == 0o700, p
        else:
            assert stat.S_ISREG(st.st_mode) and st.st_mode & 0o777 == 0o600, p
            blob += p.read_bytes()
    for secret in S:
        for form in (secret, base64.b64encode(secret.encode()).decode()):
            assert form.encode() not in blob, f"{form[:8]}… on disk"
    assert sorted(x.name for x in outside.iterdir()) == ["trail-home"]


@pytest.mark.parametrize("name", sorted(PAYLOADS))
@pytest.mark.parametrize("hook", HOOKS)
def test_hostile_payloads_through_every_hook(
    tmp_path: Path, trail_home: Path, hook: str, name: str
) -> None:
    payload = PAYLOADS[name]
    done = run_hook(payload if isinstance(payload, bytes) else json.dumps(payload), harness=hook)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    events = read_trace_lines(trail_home)
    assert events, errors(trail_home)  # recorded (parsed or as a stub), never dropped
    for ev in events:
        assert ev["harness"] in HOOKS
    check_home(trail_home, tmp_path)


def test_a_vscode_session_uri_keeps_its_target_not_its_base64(trail_home: Path) -> None:
    done = run_hook({"hookEventName": "Stop", "sessionId": uri(GH)}, harness="vscode")
    assert done.returncode == 0
    [ev] = read_trace_lines(trail_home)
    assert ev["session_id"].startswith("[REDACTED:github-token")
    assert ev["extra"]["session_target"] == "local" and "session_uri" not in ev["extra"]


@pytest.mark.parametrize(
    ("payload", "sender"),
    [
        ({"hookEventName": "PreToolUse", "sessionId": uri("c"), "tool_name": "x"}, "vscode"),
        (
            {"hook_event_name": "pre_tool", "session_id": "v", "tool_name": "file_system.bash"},
            "vibe",
        ),
        ({"sessionId": "cp", "timestamp": 1700000000000, "toolName": "bash"}, "copilot-cli"),
        ({"hook_event_name": "PreToolUse", "session_id": "cl", "tool_name": "Bash"}, "claude-code"),
    ],
)
def test_a_payload_sent_to_another_harness_is_filed_under_its_sender(
    trail_home: Path, payload: dict[str, Any], sender: str
) -> None:
    for hook in HOOKS:
        assert run_hook(payload, harness=hook).returncode == 0
    events = read_trace_lines(trail_home)
    assert {e["harness"] for e in events} == {sender}
    registered = sorted(e.get("extra", {}).get("registered_as", sender) for e in events)
    assert registered == sorted(HOOKS)
    # An unknown harness argument is never corrected by the sniff (docs/security.md).
    assert run_hook(payload, harness="../" + GH).returncode == 0
    assert [e["harness"] for e in read_trace_lines(trail_home)].count("unknown") == 1


def test_a_repository_with_thousands_of_rule_files_is_bounded(
    tmp_path: Path, trail_home: Path
) -> None:
    """Copilot's session start lists the project's rule files itself; a repository's
    `.github/instructions/` is untrusted: 20,000 files took 5.4 s (past Copilot's hook
    timeout, so the session start was lost). At most `MAX_RULE_FILES` are read."""
    from trace_ingest.guides import MAX_RULE_FILES

    folder = tmp_path / "repo" / ".github" / "instructions"
    folder.mkdir(parents=True)
    for n in range(MAX_RULE_FILES * 3):
        (folder / f"r{n:05d}.instructions.md").write_text(f"rule {n}\n")
    (tmp_path / "repo" / "AGENTS.md").write_text("use pnpm\n")
    start = {
        "sessionId": "many",
        "timestamp": 1700000000000,
        "source": "new",
        "cwd": str(tmp_path / "repo"),
    }
    done = run_hook(start, harness="copilot-cli", env={"COPILOT_PROJECT_DIR": ""})
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    events = read_trace_lines(trail_home)
    guides = [e for e in events if e["kind"] == "guide_loaded"]
    assert len(guides) == MAX_RULE_FILES and guides[0]["path"].endswith("/AGENTS.md")
    assert [e["kind"] for e in events].count("session_start") == 1
