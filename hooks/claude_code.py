"""Claude Code adapter: one hook payload -> a list of schema-v1 events.

Hot-path safe: imports only ``trace_ingest.events`` and the descriptor
(``trace_ingest.harnesses.claude_code``: the event and tool tables); ``trace_ingest.tools``
(what Claude's texts mean) only for the prompts and failures that need it. Field names follow
``shared/reference/harnesses.md`` §1.5-1.6 (Claude Code hooks reference, 2026-08). Everything but
``session_id``, ``transcript_path`` and ``hook_event_name`` is optional there (older releases
sent fewer fields), so every lookup tolerates absence. Payloads carry no timestamp: events are
stamped on receipt.
"""

from __future__ import annotations

from trace_ingest.events import new_event
from trace_ingest.harnesses.claude_code import DESCRIPTOR

TYPE_CHECKING = False  # not `from typing import`: typing costs the hook ~5 ms
if TYPE_CHECKING:
    from typing import Any

    from trace_ingest.events import Event

HARNESS = DESCRIPTOR.id
# Hook event -> kind: the descriptor's table, which is also what `trail install` registers.
EVENT_KINDS: dict[str, str] = DESCRIPTOR.events

# Fields every payload may carry; mapped onto named event fields or consumed outright.
_COMMON = ("session_id", "hook_event_name", "cwd", "agent_id", "agent_type", "prompt_id")


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def normalize(payload: dict[str, Any], received_at: str, digest: str) -> list[Event]:
    """Normalize one Claude Code hook payload.

    ``received_at`` stamps the event (Claude sends no time); ``digest`` identifies the payload
    bytes so the event id is deterministic. Unknown hook events become kind ``other`` with
    every field kept under ``extra``; nothing is dropped.
    """
    hook_event = _str(payload.get("hook_event_name")) or ""
    kind = EVENT_KINDS.get(hook_event, "other")
    session_id = payload.get("session_id")
    sid = (
        session_id
        if isinstance(session_id, str)
        else ("" if session_id is None else str(session_id))
    )
    rest = {k: v for k, v in payload.items() if k not in _COMMON}
    ev = new_event(
        harness=HARNESS,
        source="hook",
        session_id=sid,
        kind=kind,
        received_at=received_at,
        id_parts=(received_at, digest, 0),
    )
    ev["hook_event"] = hook_event or None
    for key in ("cwd", "agent_id", "agent_type", "prompt_id"):
        value = payload.get(key)
        if value is not None:
            ev[key] = value if isinstance(value, str) else str(value)
    _FILL.get(hook_event, _fill_other)(ev, rest)
    if rest:
        ev["extra"] = rest
    events = [ev]
    if hook_event == "PreToolUse" and payload.get("tool_name") == "Skill":
        events.append(_skill_loaded(ev, received_at, digest))
    return events


def _fill_tool(ev: Event, rest: dict[str, Any]) -> None:
    name = _str(rest.pop("tool_name", None))
    ev["tool_name"] = name
    ev["tool"] = DESCRIPTOR.canonical(name)
    ev["call_id"] = _str(rest.pop("tool_use_id", None))
    if "tool_input" in rest:
        ev["input"] = rest.pop("tool_input")
        ev["path"] = DESCRIPTOR.tool_path(ev["input"])
    if "duration_ms" in rest and isinstance(rest["duration_ms"], (int, float)):
        ev["duration_ms"] = float(rest.pop("duration_ms"))


def _fill_pre(ev: Event, rest: dict[str, Any]) -> None:
    _fill_tool(ev, rest)
    ev["ok"] = None


def _fill_post(ev: Event, rest: dict[str, Any]) -> None:
    _fill_tool(ev, rest)
    response = rest.pop("tool_response", None)
    ev["output"] = response
    # PostToolUse fires after a tool ran; failures have their own event (PostToolUseFailure).
    # Some tools still report a soft failure in their structured output.
    ok = not (isinstance(response, dict) and response.get("success") is False)
    ev["status"] = "ok" if ok else "failed"
    ev["ok"] = ok


def _fill_failure(ev: Event, rest: dict[str, Any]) -> None:
    _fill_tool(ev, rest)
    error = _str(rest.pop("error", None))
    ev["error"] = error
    interrupt = rest.pop("is_interrupt", None)
    ev["interrupted"] = interrupt if isinstance(interrupt, bool) else None
    # The same texts as in the transcript: a call cancelled because a sibling failed, or one
    # a permission policy refused, did not fail (trace_ingest.tools.result_status).
    from trace_ingest.tools import STATUS_OK, result_status  # not paid by every tool event

    status = "interrupted" if interrupt is True else result_status(True, error)
    if status == "refused":
        ev["kind"] = "permission"
    ev["status"] = status
    ev["ok"] = STATUS_OK[status]


def _fill_permission(ev: Event, rest: dict[str, Any]) -> None:
    _fill_tool(ev, rest)
    if ev.get("hook_event") == "PermissionDenied":
        ev["status"] = "refused"
        ev["error"] = _str(rest.pop("reason", None))
    else:
        ev["status"] = "asked"
    ev["ok"] = None  # the tool did not run (yet): neither a success nor a failure


def _fill_prompt(ev: Event, rest: dict[str, Any]) -> None:
    text = _str(rest.pop("prompt", None))
    ev["text"] = text
    if text is None:
        return
    # What a person typed is a prompt; a background task's result (2.1.x: a second
    # UserPromptSubmit), IDE context and the like are not. Same rule as the transcript.
    from trace_ingest.tools import classify_user_text  # not paid by every tool event

    kind, what, facts = classify_user_text(text)
    if kind == "prompt":
        if what != "typed":
            rest["text_kind"] = what
            rest.update(facts)
        return
    ev["kind"] = kind
    rest["text_kind"] = what
    rest.update(facts)
    if kind == "notification":
        ev["parent_call_id"] = facts.get("tool_use_id")
        task_id = facts.get("task_id")
        if task_id and not ev.get("agent_id"):
            ev["agent_id"] = task_id


def _fill_notification(ev: Event, rest: dict[str, Any]) -> None:
    ev["text"] = _str(rest.pop("message", None))


def _fill_stop(ev: Event, rest: dict[str, Any]) -> None:
    ev["text"] = _str(rest.pop("last_assistant_message", None))
    if ev.get("hook_event") == "SubagentStop" and ev.get("agent_type") == "":
        # 2.1.328's compactor runs as an agent that fires SubagentStop with agent_type "" and
        # no SubagentStart (rig scenario compacted, docs/testing.md); a user's subagent always
        # has its type. The harness's own agent: not a subagent of the session.
        ev["internal"] = "untyped"
    if ev.get("hook_event") == "StopFailure":
        ev["ok"] = False
        ev["error"] = _str(rest.pop("error", None))
    elif ev.get("kind") == "agent_stop":
        ev["ok"] = True


def _fill_compact(ev: Event, rest: dict[str, Any]) -> None:
    text = rest.pop("compact_summary", None) or rest.pop("custom_instructions", None)
    ev["text"] = _str(text)


def _fill_guide(ev: Event, rest: dict[str, Any]) -> None:
    path = rest.pop("file_path", None) or rest.pop("path", None)
    ev["path"] = _str(path)
    # The text as it enters the agent's context (CLAUDE.md, .claude/rules/*.md, a nested
    # CLAUDE.md loaded later): L2 judges against exactly this (docs/events.md, guide_loaded).
    # Imported here, not at the top: only InstructionsLoaded pays for it.
    from trace_ingest.guides import read_guide_text

    ev["text"] = read_guide_text(ev["path"])


def _fill_other(ev: Event, rest: dict[str, Any]) -> None:
    if "tool_name" in rest:
        _fill_tool(ev, rest)


_FILL = {
    "PreToolUse": _fill_pre,
    "PostToolUse": _fill_post,
    "PostToolUseFailure": _fill_failure,
    "PermissionRequest": _fill_permission,
    "PermissionDenied": _fill_permission,
    "UserPromptSubmit": _fill_prompt,
    "UserPromptExpansion": _fill_prompt,
    "Notification": _fill_notification,
    "Stop": _fill_stop,
    "StopFailure": _fill_stop,
    "SubagentStop": _fill_stop,
    "PreCompact": _fill_compact,
    "PostCompact": _fill_compact,
    "InstructionsLoaded": _fill_guide,
}


def _skill_loaded(call: Event, received_at: str, digest: str) -> Event:
    skill_input = call.get("input")
    name = None
    if isinstance(skill_input, dict):
        name = _str(skill_input.get("skill")) or _str(skill_input.get("command"))
    ev = new_event(
        harness=HARNESS,
        source="hook",
        session_id=call["session_id"],
        kind="skill_loaded",
        received_at=received_at,
        id_parts=(received_at, digest, 1),
    )
    ev["hook_event"] = call.get("hook_event")
    ev["call_id"] = call.get("call_id")
    ev["skill"] = name
    for key in ("cwd", "agent_id", "agent_type", "prompt_id"):
        if key in call:
            ev[key] = call[key]
    # The skill's SKILL.md, as the Skill tool hands it to the agent (real-harnesses.md §3.2:
    # the transcript gets "Base directory for this skill" + the SKILL.md body).
    from trace_ingest.guides import claude_skill_file, read_guide_text

    path = claude_skill_file(name, _str(call.get("cwd")))
    if path is not None:
        ev["path"] = path
        ev["text"] = read_guide_text(path)
    return ev
