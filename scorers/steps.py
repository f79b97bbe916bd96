"""Runs and steps: the trajectory every L1 rule reads (seed 001's ``{step, tool, args,
observation, ok}``), built from a session's events or from a trace file.

For hook sessions a *step* is a ``tool_call`` event, paired with its ``tool_result`` /
``tool_error`` (or the ``permission`` event that refused it) by ``call_id``, whichever arrived
first, or, when the harness gives no id, with the oldest unpaired call of the same tool. A
result whose call is missing becomes a step of its own. ``ok`` comes from the result; a call
without a result has ``ok = None`` (unknown), never True. ``status`` says what became of the
call (docs/events.md): a refused or cancelled call never ran, so its ``ok`` is None and the
rules do not count it as a failure.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from trace_ingest.events import CANONICAL_TOOLS
from trace_ingest.harnesses.table import canonical_tool, descriptors

RESULT_KINDS = frozenset({"tool_result", "tool_error"})
NOT_RUN = frozenset({"refused", "cancelled"})
# Input keys that name a file: every harness's (its descriptor's path_keys), in table order.
PATH_KEYS: tuple[str, ...] = tuple(dict.fromkeys(k for d in descriptors() for k in d.path_keys))


@dataclass(slots=True)
class Step:
    index: int  # 1-based position in the run
    tool: str  # raw tool name as the source gave it
    canonical: str  # canonical tool (trace_ingest.events.CANONICAL_TOOLS) or the raw name
    args: Any = None
    ok: bool | None = None  # None: unknown (no result, or the source cannot tell)
    event_id: str = ""  # the call event (or the result event when the call is missing)
    result_id: str | None = None
    call_id: str | None = None
    path: str | None = None
    agent: str = ""  # subagent id; "" for the main agent
    ts: str | None = None
    observation: Any = None
    error: str | None = None
    status: str | None = None  # ok | failed | interrupted | refused | cancelled
    harness: str = ""  # whose tool names ``tool`` is in ("" when unknown)

    @property
    def evidence(self) -> str:
        return self.event_id

    def names(self) -> tuple[str, str]:
        """The names a rule may match: raw tool name and canonical tool."""
        return (self.tool, self.canonical)


def canonical_of(step: Step) -> str:
    """The step's canonical tool. An event's is its own ``tool``; a trace file's step keeps
    the raw name the file gives (seed 001's engine grades by it), so its canonical tool is
    what its harness's table says (``trace_ingest.harnesses``)."""
    if step.canonical in CANONICAL_TOOLS:
        return step.canonical
    found = canonical_tool(step.harness, step.tool)
    return step.canonical if found == "other" else found


@dataclass
class Pairing:
    steps: list[Step] = field(default_factory=list)
    calls: int = 0
    results: int = 0
    paired: int = 0
    unpaired_calls: list[str] = field(default_factory=list)  # call event ids with no result
    orphan_results: list[str] = field(default_factory=list)  # result event ids with no call
    duplicate_results: list[str] = field(default_factory=list)


def tool_path(args: Any, cwd: str | None = None) -> str | None:
    """The file a tool touched, from its arguments, normalized (relative paths joined to cwd)."""
    if not isinstance(args, dict):
        return None
    for key in PATH_KEYS:
        value = args.get(key)
        if isinstance(value, str) and value:
            return norm_path(value, cwd)
    return None


def norm_path(path: str, cwd: str | None = None) -> str:
    if cwd and not os.path.isabs(path):
        path = os.path.join(cwd, path)
    return os.path.normpath(path)


def _is_sidechain(ev: dict[str, Any]) -> bool:
    extra = ev.get("extra")
    return any(
        d.get(k) is True
        for d in (ev, extra if isinstance(extra, dict) else {})
        for k in ("isSidechain", "is_sidechain", "sidechain")
    )


def agent_lane(ev: dict[str, Any]) -> str:
    """The agent an event belongs to: its ``agent_id``; for a sidechain event without one
    (older Claude Code inline sidechains), ``sidechain-<launching call>`` (or ``sidechain``),
    so a subagent's steps never land in the main agent's lane ("")."""
    agent = ev.get("agent_id")
    if agent:
        return str(agent)
    if _is_sidechain(ev):
        parent = ev.get("parent_call_id")
        return f"sidechain-{parent}" if parent else "sidechain"
    return ""


def _new_step(ev: dict[str, Any], index: int) -> Step:
    name = ev.get("tool_name") or ev.get("tool") or ""
    args = ev.get("input")
    path = ev.get("path")
    return Step(
        index=index,
        tool=str(name),
        canonical=str(ev.get("tool") or name),
        args=args,
        event_id=str(ev.get("id") or ""),
        call_id=ev.get("call_id"),
        path=norm_path(path, ev.get("cwd"))
        if isinstance(path, str) and path
        else tool_path(args, ev.get("cwd")),
        agent=agent_lane(ev),
        ts=ev.get("ts"),
        harness=str(ev.get("harness") or ""),
    )


def _is_result(ev: dict[str, Any]) -> bool:
    kind = ev.get("kind")
    if kind in RESULT_KINDS:
        return True
    return kind == "permission" and bool(ev.get("call_id")) and ev.get("status") == "refused"


def _apply_result(step: Step, ev: dict[str, Any]) -> None:
    step.result_id = str(ev.get("id") or "")
    ok = ev.get("ok")
    status = ev.get("status")
    if ev.get("kind") == "permission":
        status = "refused"
    step.status = str(status) if isinstance(status, str) else None
    if step.status in NOT_RUN:
        step.ok = None
    elif ev.get("kind") == "tool_error":
        step.ok = False
    else:
        step.ok = ok if isinstance(ok, bool) else None
    step.observation = ev.get("output")
    step.error = ev.get("error")
    if step.args is None and ev.get("input") is not None:
        step.args = ev.get("input")
    if step.path is None:
        step.path = tool_path(step.args, ev.get("cwd"))


def pair_events(events: Iterable[dict[str, Any]]) -> Pairing:
    """Pair calls with results in one pass (O(n)); see the module docstring."""
    out = Pairing()
    by_id: dict[str, Step] = {}
    done_ids: set[str] = set()
    early: dict[str, dict[str, Any]] = {}  # results that arrived before their call
    by_name: dict[str, deque[Step]] = {}
    for ev in events:
        kind = ev.get("kind")
        if kind == "tool_call":
            out.calls += 1
            step = _new_step(ev, len(out.steps) + 1)
            out.steps.append(step)
            cid = ev.get("call_id")
            if cid and str(cid) in early:
                _apply_result(step, early.pop(str(cid)))
                out.paired += 1
                done_ids.add(str(cid))
            elif cid:
                by_id[str(cid)] = step
            else:
                by_name.setdefault(step.tool, deque()).append(step)
        elif _is_result(ev):
            cid = ev.get("call_id")
            if kind == "permission" and str(cid) in done_ids:
                continue  # a refusal record of a call that also has a result
            out.results += 1
            step_or_none: Step | None = None
            if cid:
                step_or_none = by_id.pop(str(cid), None)
                if step_or_none is None and str(cid) in done_ids:
                    out.duplicate_results.append(str(ev.get("id") or ""))
                    continue
                if step_or_none is None:
                    if str(cid) in early:
                        out.duplicate_results.append(str(ev.get("id") or ""))
                    else:
                        early[str(cid)] = ev
                    continue
            else:
                queue = by_name.get(str(ev.get("tool_name") or ev.get("tool") or ""))
                step_or_none = queue.popleft() if queue else None
            if step_or_none is None:
                _orphan(out, ev)
            else:
                _apply_result(step_or_none, ev)
                out.paired += 1
            if cid:
                done_ids.add(str(cid))
    for ev in early.values():  # the call is missing from the trace
        _orphan(out, ev)
    pending = [s for s in out.steps if s.result_id is None]
    out.unpaired_calls = [s.event_id for s in pending]
    return out


def _orphan(out: Pairing, ev: dict[str, Any]) -> None:
    """A result whose call is missing stands in for it as a step of its own."""
    step = _new_step(ev, len(out.steps) + 1)
    _apply_result(step, ev)
    out.steps.append(step)
    out.orphan_results.append(step.result_id or "")


@dataclass
class Run:
    """One graded trajectory: a session, or one run of a trace file."""

    run_id: str
    steps: list[Step]
    delivered: bool | None  # None: outcome unknown
    task: str | None = None
    source: str = "hook"  # hook | traces | audit
    session_key: str | None = None
    session_id: str | None = None

    @property
    def outcome(self) -> str:
        return "unknown" if self.delivered is None else ("pass" if self.delivered else "fail")


def lanes(steps: Sequence[Step]) -> dict[str, list[Step]]:
    """Steps per agent (main agent "" and each subagent), each in order."""
    if not any(step.agent for step in steps):
        return {"": list(steps)} if steps else {}  # the main agent alone (the usual run)
    out: dict[str, list[Step]] = {}
    for step in steps:
        out.setdefault(step.agent, []).append(step)
    return out
