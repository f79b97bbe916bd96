"""The truth of a run, read straight from Claude Code's own files with json (not trail's importer).

Main transcript: ``~/.claude/projects/<slug>/<session>.jsonl``. Subagents:
``<session>/subagents/agent-<agentId>.jsonl`` with ``agent-<agentId>.meta.json`` (``agentType``,
``toolUseId`` = the launching Agent call). Every ``tool_use`` block is one call (a response split
over several lines sharing ``message.id`` carries each block once); its ``tool_result`` gives the
ok flag (``is_error``). Also the raw hook capture trail wrote (``trace.jsonl``), for the checks
that hold before reconciliation.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MAIN = "main"


@dataclass
class Call:
    call_id: str
    name: str
    lane: str  # "main" or the subagent's agentId
    ok: bool | None  # None: no tool_result in the transcript, or the call never ran
    input: Any = None
    ts: str | None = None
    # What became of it, straight from the result line: ok / failed from ``is_error``;
    # ``refused`` or ``cancelled`` / ``interrupted`` from its ``toolDenialKind`` (2.1.x stamps
    # every call it did not run with one); None without a result.
    status: str | None = None
    denial_kind: str | None = None
    # Refused because a deny rule took the whole tool out of the session: 2.1.328 answers
    # "No such tool available: X. X is disabled for this session…" before any hook fires.
    disabled: bool = False
    # Rejected before it ran (its result is a `<tool_use_error>`: a disabled or made-up tool,
    # an Edit whose old_string is not in the file): 2.1.328 fires no hook for it at all.
    rejected: bool = False


@dataclass
class Subagent:
    agent_id: str
    agent_type: str | None
    parent_call_id: str | None
    request_shape: str | None


@dataclass
class Truth:
    session_id: str
    transcript: Path
    calls: list[Call] = field(default_factory=list)
    subagents: dict[str, Subagent] = field(default_factory=dict)
    prompt_ids: list[str] = field(default_factory=list)
    guides: list[str] = field(default_factory=list)  # instructions attachments (CLAUDE.md)
    skills: list[str] = field(default_factory=list)  # Skill calls' skill names
    hook_errors: list[Any] = field(default_factory=list)  # stop_hook_summary hookErrors
    hook_commands: list[str] = field(default_factory=list)
    # compact_boundary lines' compactMetadata (trigger manual/auto), main transcript
    compactions: list[dict[str, Any]] = field(default_factory=list)

    def lanes(self) -> dict[str, list[Call]]:
        out: dict[str, list[Call]] = {}
        for c in self.calls:
            out.setdefault(c.lane, []).append(c)
        return out


def _lines(path: Path) -> list[dict[str, Any]]:
    out = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        if not raw.strip():
            continue
        line = json.loads(raw)
        if isinstance(line, dict):
            out.append(line)
    return out


def find_transcript(home: Path, session_id: str) -> Path:
    found = sorted((home / ".claude" / "projects").glob(f"*/{session_id}.jsonl"))
    if len(found) != 1:
        raise AssertionError(f"expected one transcript for {session_id} under {home}: {found}")
    return found[0]


def _read_lane(path: Path, lane: str, truth: Truth, seen: dict[str, Call]) -> None:
    results: dict[str, tuple[bool, str | None, bool]] = {}
    for line in _lines(path):
        kind = line.get("type")
        msg = line.get("message") if isinstance(line.get("message"), dict) else {}
        content = msg.get("content") if isinstance(msg, dict) else None
        blocks = content if isinstance(content, list) else []
        if kind == "assistant":
            for b in blocks:
                if isinstance(b, dict) and b.get("type") == "tool_use":
                    cid = str(b["id"])
                    if cid in seen:
                        continue
                    call = Call(
                        cid, str(b.get("name")), lane, None, b.get("input"), line.get("timestamp")
                    )
                    seen[cid] = call
                    truth.calls.append(call)
                    if call.name == "Skill" and isinstance(call.input, dict):
                        truth.skills.append(str(call.input.get("skill")))
        elif kind == "user":
            pid = line.get("promptId")
            if lane == MAIN and isinstance(pid, str) and pid not in truth.prompt_ids:
                truth.prompt_ids.append(pid)
            for b in blocks:
                if isinstance(b, dict) and b.get("type") == "tool_result":
                    kind_of_denial = line.get("toolDenialKind")
                    text = json.dumps(b.get("content"))
                    content = b.get("content")
                    parts = content if isinstance(content, list) else [{"text": content}]
                    said = "".join(
                        str(p.get("text") or "") for p in parts if isinstance(p, dict)
                    ).strip()
                    results[str(b.get("tool_use_id"))] = (
                        not bool(b.get("is_error")),
                        kind_of_denial if isinstance(kind_of_denial, str) else None,
                        bool(b.get("is_error")) and "is disabled for this session" in text,
                        bool(b.get("is_error"))
                        and said.startswith("<tool_use_error>")
                        and said.endswith("</tool_use_error>"),
                    )
        elif kind == "attachment":
            att = line.get("attachment")
            if isinstance(att, dict) and att.get("type") == "instructions" and lane == MAIN:
                # 2.1.328: {"type": "instructions", "files": [{"path", "type", "content"}]}
                listed = att.get("files")
                files: list[Any] = listed if isinstance(listed, list) else [att]
                truth.guides += [str(f.get("path")) for f in files if isinstance(f, dict)]
        elif kind == "system" and line.get("subtype") == "compact_boundary" and lane == MAIN:
            meta = line.get("compactMetadata")
            truth.compactions.append(meta if isinstance(meta, dict) else {})
        elif kind == "system" and line.get("subtype") == "stop_hook_summary":
            truth.hook_errors += list(line.get("hookErrors") or [])
            truth.hook_commands += [str(h.get("command")) for h in line.get("hookInfos") or []]
    for cid, (ok, denial, disabled, rejected) in results.items():
        if cid in seen:
            call = seen[cid]
            call.denial_kind, call.disabled, call.rejected = denial, disabled, rejected
            if disabled:
                call.status, call.ok = "refused", None
            elif denial in ("cancelled", "interrupted"):
                call.status, call.ok = denial, (None if denial == "cancelled" else False)
            elif denial:
                call.status, call.ok = "refused", None  # permission-rule, user-rejected, …
            else:
                call.status, call.ok = ("ok" if ok else "failed"), ok


def derive(home: Path, session_id: str) -> Truth:
    transcript = find_transcript(home, session_id)
    truth = Truth(session_id, transcript)
    seen: dict[str, Call] = {}
    _read_lane(transcript, MAIN, truth, seen)
    sub_dir = transcript.with_suffix("") / "subagents"
    for path in sorted(sub_dir.glob("agent-*.jsonl")):
        agent_id = path.stem.removeprefix("agent-")
        meta_path = path.with_suffix(".meta.json")
        meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
        truth.subagents[agent_id] = Subagent(
            agent_id, meta.get("agentType"), meta.get("toolUseId"), meta.get("requestShape")
        )
        _read_lane(path, agent_id, truth, seen)
    return truth


def hook_trace(
    trail_home: Path, session_id: str, harness: str = "claude-code"
) -> list[dict[str, Any]]:
    """trail's raw hook capture for the session (every trace.jsonl line with its session id)."""
    events = []
    for path in sorted(trail_home.glob(f"sessions/{harness}/*/trace.jsonl")):
        for raw in path.read_text(encoding="utf-8").splitlines():
            if raw.strip():
                ev = json.loads(raw)
                if ev.get("session_id") == session_id:
                    events.append(ev)
    return events


def arrival_inversions(trace: list[dict[str, Any]]) -> list[str]:
    """Calls whose result reached trail before their call (by arrival = line order)."""
    seen_call: set[str] = set()
    inverted = []
    for ev in trace:
        cid = ev.get("call_id")
        if not cid:
            continue
        if ev.get("kind") == "tool_call":
            seen_call.add(cid)
        elif ev.get("kind") in ("tool_result", "tool_error") and cid not in seen_call:
            inverted.append(str(cid))
    return inverted
