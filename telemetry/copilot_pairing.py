"""Copilot CLI hooks send no tool-call id: pair its calls and results, and meet its log.

real-harnesses.md §2.3: no ``preToolUse``, ``postToolUse``, ``postToolUseFailure`` or
``permissionRequest`` payload carries a call id (the id exists inside Copilot: its
``events.jsonl`` has ``toolCallId``). What a call and its own result do share is the lane (the
main agent or one subagent), the tool and the tool's input (``toolArgs`` is repeated verbatim in
the result's payload). So, deterministically, before ``telemetry.canonical`` merges a session:

1. Hook tool events without a call id are keyed by (lane, canonical tool, input). Within a
   key, calls and results are taken in the harness's own time order (the payload
   ``timestamp``; parallel calls share one, so ties fall back to the event id) and the n-th
   result answers the n-th call (first in, first out). Two calls with the same key are
   indistinguishable to a hook, so whichever pairing is chosen is as true as the other.
2. When the session also has Copilot's own log (source ``events-log``), the n-th hooked call of
   a key *is* the n-th logged call of the same key: the hook events take its real
   ``toolCallId``, so canonical merges the two records of each call. Otherwise the pair gets
   an inferred id ``copilot-inferred-<key hash>-<n>``.
3. A ``permissionRequest`` names the tool and the *permission's* input (``{command}`` for bash,
   ``{file_path, diff}`` for edit/create), not the call's: it is linked to the nearest earlier
   call of its lane and tool whose input has that command or path.
4. A hooked ``subagentStart`` names no call either: it is linked to the latest earlier ``task``
   call of the parent's lane not yet linked to another subagent.

Before all that, one occurrence seen twice is kept once: Copilot runs every registered
command, so a session hooked twice sends each event twice with the same Copilot timestamp
(real-harnesses.md §2.2): trail's camelCase ``trail.json`` and a PascalCase file, or a
project's ``.claude/settings.json`` with trail's Claude Code hook, which Copilot also runs
(observed on 1.0.102; ``hooks.sender`` files those payloads under Copilot with
``extra.registered_as``). A secondary copy of an event of trail's own registration (same kind,
time, lane, tool, input, text and status) is dropped; two events of one registration with equal
facts (identical parallel calls) are two occurrences and both stay.

Every hook event paired here is marked ``pairing: "inferred"`` (docs/events.md). Events are
copied, never changed in place; sessions of other harnesses are returned untouched.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from telemetry.lifecycle import to_epoch
from trace_ingest._blake import blake2b

HARNESS = "copilot-cli"
CALL_KINDS = frozenset({"tool_call"})
RESULT_KINDS = frozenset({"tool_result", "tool_error"})
INFERRED = "inferred"


def needs_pairing(events: Sequence[dict[str, Any]]) -> bool:
    """Does the session hold Copilot hook events (the ones this module links)?"""
    return any(e.get("harness") == HARNESS and e.get("source") == "hook" for e in events)


def _occurrence(ev: dict[str, Any]) -> tuple[Any, ...]:
    return (
        ev.get("kind"),
        ev.get("ts"),
        _lane(ev),
        ev.get("tool"),
        _input_key(ev.get("input")),
        ev.get("text"),
        ev.get("status"),
    )


def _secondary(ev: dict[str, Any]) -> bool:
    """A hook event that came through a registration other than trail's own ``trail.json``:
    a PascalCase one, or one another harness's trail hook received and filed under Copilot
    (``extra.registered_as``: Copilot runs a project's ``.claude/settings.json`` hooks too)."""
    extra = ev.get("extra")
    via = isinstance(extra, dict) and bool(extra.get("registered_as"))
    return via or str(ev.get("hook_event") or "")[:1].isupper()


def _one_registration(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Drop each secondary copy of a primary hook event (see the module docstring)."""
    hooked = [e for e in events if e.get("source") == "hook"]
    secondary = [e for e in hooked if _secondary(e)]
    if not secondary:
        return events
    primary: dict[tuple[Any, ...], int] = {}
    for ev in hooked:
        if not _secondary(ev):
            key = _occurrence(ev)
            primary[key] = primary.get(key, 0) + 1
    dropped: set[int] = set()
    for ev in secondary:
        key = _occurrence(ev)
        if primary.get(key, 0) > 0:
            primary[key] -= 1
            dropped.add(id(ev))
    return [e for e in events if id(e) not in dropped]


def _input_key(value: Any) -> str:
    try:
        return json.dumps(value, sort_keys=True, default=str)
    except (TypeError, ValueError):
        return repr(value)


def _lane(ev: dict[str, Any]) -> str:
    return str(ev.get("agent_id") or "")


def _key(ev: dict[str, Any]) -> tuple[str, str, str]:
    tool = str(ev.get("tool") or ev.get("tool_name") or "")
    return (_lane(ev), tool, _input_key(ev.get("input")))


def _when(ev: dict[str, Any]) -> tuple[float, str, str]:
    t = to_epoch(ev.get("ts")) if isinstance(ev.get("ts"), str) else None
    received = str(ev.get("received_at") or "")
    return (t if t is not None else 0.0, received, str(ev.get("id") or ""))


def _inferred_id(key: tuple[str, str, str], n: int) -> str:
    digest = blake2b("\x1f".join(key).encode("utf-8", "surrogatepass"), digest_size=6)
    return f"copilot-inferred-{digest.hexdigest()}-{n}"


def _is_result(ev: dict[str, Any]) -> bool:
    kind = ev.get("kind")
    # A failure whose text says a hook denied the call is recorded as a refusal (permission).
    return kind in RESULT_KINDS or (kind == "permission" and ev.get("status") == "refused")


def pair(events: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The session's events with Copilot hook calls, results, permission requests and subagent
    starts linked (see the module docstring)."""
    out = _one_registration([dict(e) for e in events])
    hooked = [
        e
        for e in out
        if e.get("harness") == HARNESS and e.get("source") == "hook" and not e.get("call_id")
    ]
    calls: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    results: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for ev in hooked:
        if ev.get("kind") in CALL_KINDS:
            calls.setdefault(_key(ev), []).append(ev)
        elif _is_result(ev):
            results.setdefault(_key(ev), []).append(ev)
    logged: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for ev in out:
        if (
            ev.get("harness") == HARNESS
            and ev.get("source") != "hook"
            and ev.get("kind") == "tool_call"
            and ev.get("call_id")
        ):
            logged.setdefault(_key(ev), []).append(ev)
    for group in (*calls.values(), *results.values(), *logged.values()):
        group.sort(key=_when)
    for key in sorted(set(calls) | set(results)):
        mine, answers = calls.get(key, []), results.get(key, [])
        real = [str(e["call_id"]) for e in logged.get(key, [])]
        for n in range(max(len(mine), len(answers))):
            cid = real[n] if n < len(real) else _inferred_id(key, n + 1)
            for group in (mine, answers):
                if n < len(group):
                    group[n]["call_id"] = cid
                    group[n]["pairing"] = INFERRED
    _link_permissions(out, hooked)
    _link_subagents(out, hooked)
    return out


def _permission_matches(request: Any, call_input: Any) -> bool:
    """Does a permission request's input describe this call's input?

    1.0.102: bash asks with ``{command}``, edit and create with ``{file_path, diff}`` where the
    call has ``path``.
    """
    if not isinstance(request, dict) or not isinstance(call_input, dict):
        return bool(request == call_input)
    if "command" in request:
        return bool(call_input.get("command") == request["command"])
    path = request.get("file_path") or request.get("path")
    if path is not None:
        return path in (call_input.get("path"), call_input.get("file_path"))
    return bool(request == call_input)


# The tools a permission request's canonical tool can stand for: 1.0.102 asks for a `create`
# with `toolName: "edit"` (the write permission, `{file_path, diff}` with "create file mode";
# rig scenarios read_edit and denied_tool, docs/testing.md).
_ASKED_FOR = {"edit": ("edit", "write")}


def _link_permissions(out: list[dict[str, Any]], hooked: list[dict[str, Any]]) -> None:
    asks = [e for e in hooked if e.get("kind") == "permission" and e.get("status") == "asked"]
    if not asks:
        return
    candidates = [e for e in out if e.get("kind") == "tool_call" and e.get("call_id")]
    taken: set[str] = set()
    for ask in sorted(asks, key=_when):
        when = _when(ask)
        best = None
        for call in candidates:
            if (
                _lane(call) == _lane(ask)
                and call.get("tool") in _ASKED_FOR.get(str(ask.get("tool")), (ask.get("tool"),))
                and _when(call) <= when
                and str(call["call_id"]) not in taken
                and _permission_matches(ask.get("input"), call.get("input"))
                and (best is None or _when(call) > _when(best))
            ):
                best = call
        if best is not None:
            taken.add(str(best["call_id"]))
            ask["call_id"] = best["call_id"]
            ask["pairing"] = INFERRED


def _link_subagents(out: list[dict[str, Any]], hooked: list[dict[str, Any]]) -> None:
    starts = [
        e for e in hooked if e.get("kind") == "subagent_start" and not e.get("parent_call_id")
    ]
    if not starts:
        return
    linked = {str(e["parent_call_id"]) for e in out if e.get("parent_call_id")}
    tasks = [
        e
        for e in out
        if e.get("kind") == "tool_call" and e.get("tool") == "task" and e.get("call_id")
    ]
    parent_lane = {str(e.get("agent_id")): str(_field(e, "parent_agent_id") or "") for e in starts}
    for start in sorted(starts, key=_when):
        lane = parent_lane.get(str(start.get("agent_id")), "")
        # The parent of a subagent of the main agent is the session itself (its id).
        lane = "" if lane == str(start.get("session_id") or "") else lane
        when = _when(start)
        open_tasks = [
            t
            for t in tasks
            if _lane(t) == lane and _when(t) <= when and str(t["call_id"]) not in linked
        ]
        if open_tasks:
            task = max(open_tasks, key=_when)
            linked.add(str(task["call_id"]))
            start["parent_call_id"] = task["call_id"]
            start["pairing"] = INFERRED


def _field(ev: dict[str, Any], name: str) -> Any:
    value = ev.get(name)
    if value is None and isinstance(ev.get("extra"), dict):
        value = ev["extra"].get(name)
    return value
