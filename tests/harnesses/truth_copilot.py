"""The truth of a Copilot CLI run, read straight from its own ``events.jsonl`` with json.

``$COPILOT_HOME/session-state/<session>/events.jsonl`` (real-harnesses.md §2.4): every tool call
is a ``tool.execution_start`` (``toolCallId``, ``toolName``, ``arguments``) answered by a
``tool.execution_complete`` (``success``; ``error.code`` ``denied`` when a hook or policy
refused it; ``shellExecution.exitCode`` for bash). A subagent's lines carry its ``agentId``;
``subagent.started`` names the ``task`` call that launched it. Not trail's importer: plain json.
Also trail's raw hook capture, for the checks that hold before reconciliation.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.harnesses import truth as claude_truth

MAIN = "main"
HARNESS = "copilot-cli"


@dataclass
class Call:
    call_id: str
    name: str
    lane: str  # "main" or the subagent's agentId
    input: Any
    ts: str | None
    ok: bool | None = None  # None: no execution_complete (or it never ran)
    status: str | None = None  # ok | failed | refused
    exit_code: int | None = None


@dataclass
class Subagent:
    agent_id: str
    agent_name: str | None
    parent_call_id: str | None


@dataclass
class Truth:
    session_id: str
    log: Path
    calls: list[Call] = field(default_factory=list)
    subagents: dict[str, Subagent] = field(default_factory=dict)
    prompts: list[str] = field(default_factory=list)  # the main agent's user.message contents
    hook_types: list[str] = field(default_factory=list)  # hook.start hookType, in order
    hook_failures: list[dict[str, Any]] = field(default_factory=list)  # hook.end success false
    lines: list[dict[str, Any]] = field(default_factory=list)

    def lanes(self) -> dict[str, list[Call]]:
        out: dict[str, list[Call]] = {}
        for c in self.calls:
            out.setdefault(c.lane, []).append(c)
        return out


def find_log(copilot_home: Path, session_id: str | None = None) -> Path:
    found = sorted((copilot_home / "session-state").glob(f"{session_id or '*'}/events.jsonl"))
    if len(found) != 1:
        raise AssertionError(f"expected one events.jsonl under {copilot_home}: {found}")
    return found[0]


def derive(copilot_home: Path, session_id: str | None = None) -> Truth:
    log = find_log(copilot_home, session_id)
    lines = [json.loads(raw) for raw in log.read_text(encoding="utf-8").splitlines() if raw]
    sid = session_id or log.parent.name
    truth = Truth(sid, log, lines=lines)
    by_id: dict[str, Call] = {}
    for line in lines:
        kind, data = line.get("type"), line.get("data") or {}
        lane = str(line.get("agentId") or MAIN)
        if kind == "session.start":
            truth.session_id = str(data.get("sessionId") or sid)
        elif kind == "user.message" and lane == MAIN:
            truth.prompts.append(str(data.get("content")))
        elif kind == "tool.execution_start":
            call = Call(
                str(data["toolCallId"]),
                str(data.get("toolName")),
                lane,
                data.get("arguments"),
                line.get("timestamp"),
            )
            by_id[call.call_id] = call
            truth.calls.append(call)
        elif kind == "tool.execution_complete" and str(data.get("toolCallId")) in by_id:
            call = by_id[str(data["toolCallId"])]
            error = data.get("error") if isinstance(data.get("error"), dict) else {}
            if data.get("success") is True:
                call.ok, call.status = True, "ok"
            elif error.get("code") == "denied":
                call.ok, call.status = None, "refused"
            else:
                call.ok, call.status = False, "failed"
            shell = data.get("shellExecution")
            if isinstance(shell, dict):
                call.exit_code = shell.get("exitCode")
        elif kind == "subagent.started":
            agent = str(line.get("agentId"))
            truth.subagents[agent] = Subagent(agent, data.get("agentName"), data.get("toolCallId"))
        elif kind == "hook.start":
            truth.hook_types.append(str(data.get("hookType")))
        elif kind == "hook.end" and data.get("success") is not True:
            truth.hook_failures.append(data)
    return truth


def hook_trace(trail_home: Path, session_id: str) -> list[dict[str, Any]]:
    """trail's raw hook capture of the session: its trace.jsonl lines written by the hook."""
    return [
        e
        for e in claude_truth.hook_trace(trail_home, session_id, HARNESS)
        if e.get("source") == "hook"
    ]
