"""Helpers for scorer tests: Claude Code hook payloads fed through the real hook, and the CLI."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from tests.conftest import run_hook
from trace_ingest.cli import cli


def start(sid: str) -> dict[str, Any]:
    return {
        "session_id": sid,
        "hook_event_name": "SessionStart",
        "source": "startup",
        "cwd": "/proj",
    }


def end(sid: str) -> dict[str, Any]:
    return {"session_id": sid, "hook_event_name": "SessionEnd", "reason": "other", "cwd": "/proj"}


def pre(sid: str, tool: str, tid: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    return {
        "session_id": sid,
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_use_id": tid,
        "tool_input": tool_input,
        "cwd": "/proj",
    }


def post(
    sid: str,
    tool: str,
    tid: str,
    tool_input: dict[str, Any],
    response: Any = None,
    duration_ms: int | None = 12,
) -> dict[str, Any]:
    out = {
        "session_id": sid,
        "hook_event_name": "PostToolUse",
        "tool_name": tool,
        "tool_use_id": tid,
        "tool_input": tool_input,
        "tool_response": response if response is not None else {"ok": True},
        "cwd": "/proj",
    }
    if duration_ms is not None:
        out["duration_ms"] = duration_ms
    return out


def fail(
    sid: str, tool: str, tid: str, tool_input: dict[str, Any], error: str = "failed"
) -> dict[str, Any]:
    return {
        "session_id": sid,
        "hook_event_name": "PostToolUseFailure",
        "tool_name": tool,
        "tool_use_id": tid,
        "tool_input": tool_input,
        "error": error,
        "cwd": "/proj",
        "duration_ms": 5,
    }


def call(
    sid: str,
    tool: str,
    tid: str,
    tool_input: dict[str, Any],
    ok: bool = True,
    response: Any = None,
    error: str = "failed",
) -> list[dict[str, Any]]:
    """A PreToolUse and its PostToolUse (or PostToolUseFailure)."""
    after = (
        post(sid, tool, tid, tool_input, response)
        if ok
        else fail(sid, tool, tid, tool_input, error)
    )
    return [pre(sid, tool, tid, tool_input), after]


def feed(payloads: list[dict[str, Any]]) -> None:
    for p in payloads:
        proc = run_hook(p)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout == b""


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture
def good_session() -> str:
    """A closed session: read, edit of the file read, a passing test run."""
    sid = "sess-good"
    feed(
        [
            start(sid),
            *call(sid, "Read", "t1", {"file_path": "/proj/app.py"}),
            *call(
                sid,
                "Edit",
                "t2",
                {"file_path": "/proj/app.py", "old_string": "a", "new_string": "b"},
            ),
            *call(sid, "Bash", "t3", {"command": "pytest -q"}),
            end(sid),
        ]
    )
    return sid


@pytest.fixture
def storm_session() -> str:
    """Three consecutive Bash failures, then a force push."""
    sid = "sess-storm"
    cmd = {"command": "make build"}
    feed(
        [
            start(sid),
            *call(sid, "Read", "t0", {"file_path": "/proj/app.py"}),
            *call(sid, "Bash", "t1", cmd, ok=False),
            *call(sid, "Bash", "t2", cmd, ok=False),
            *call(sid, "Bash", "t3", cmd, ok=False),
            *call(sid, "Bash", "t4", {"command": "git push --force origin main"}),
            end(sid),
        ]
    )
    return sid


# ───────────── sessions written as stored events (fields the hooks do not emit yet) ─────────────

_CLOCK = [0]


def stored_event(sid: str, kind: str, *, source: str = "hook", **fields: Any) -> dict[str, Any]:
    """One schema-v1 event as the store keeps it, a millisecond after the previous one."""
    from trace_ingest.events import new_event, now_iso

    _CLOCK[0] += 1
    when = fields.pop("ts", None) or now_iso(1_764_000_000_000_000_000 + _CLOCK[0] * 1_000_000)
    ev = new_event(
        harness="claude-code",
        source=source,
        session_id=sid,
        kind=kind,
        received_at=when,
        id_parts=(_CLOCK[0], kind, fields.get("call_id")),
    )
    ev.update(fields)
    return ev


def tool(
    sid: str,
    name: str,
    cid: str,
    canonical: str,
    tool_input: dict[str, Any],
    status: str = "ok",
    **fields: Any,
) -> list[dict[str, Any]]:
    """A tool call and what became of it (docs/events.md ``status``)."""
    ok = {"ok": True, "failed": False, "interrupted": False}.get(status)
    kind = "tool_result" if status == "ok" else "tool_error"
    common = {"tool_name": name, "tool": canonical, "call_id": cid, **fields}
    return [
        stored_event(sid, "tool_call", input=tool_input, **common),
        stored_event(sid, kind, ok=ok, status=status, input=tool_input, **common),
    ]


def write_session(home: Path, events: list[dict[str, Any]]) -> str:
    """Append events to their session's trace.jsonl (as the hook or an importer would)."""
    from trace_ingest.events import to_line
    from trace_ingest.paths import trace_path
    from trace_ingest.store import append_lines

    sid = str(events[0]["session_id"])
    append_lines(
        trace_path(str(home), "claude-code", sid),
        "".join(to_line(e) for e in events),
        str(home),
    )
    return sid
