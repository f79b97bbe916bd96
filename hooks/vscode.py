"""VS Code adapter: one hook payload from VS Code's **Local** agent harness -> events.

Hot-path safe: standard library only. VS Code picks a harness per chat session (NC §1.3: Local
runs in the extension host; Copilot, Claude and Codex run in the Agent Host) and the payload
follows the harness. ``hooks.sender`` sends Copilot- and Claude-shaped payloads to those
harnesses' adapters; what reaches this one is the Local shape, or Codex's:

- **Local** (``microsoft/vscode`` ``extensions/copilot/src/platform/chat/common/
  chatHookService.ts`` + ``chatHookServiceImpl``; real capture in NC §1.3): common fields
  ``timestamp`` (ISO), ``hookEventName`` (PascalCase), ``sessionId``
  (``vscode-chat-session://local/<base64 id>``), ``cwd`` (the hook's configured cwd),
  ``transcript_path`` (sometimes), ``model``; then per event ``source`` / ``agent_type``
  (SessionStart), ``prompt`` (UserPromptSubmit), ``tool_name``, ``tool_input``,
  ``tool_use_id`` (a UUID) and ``tool_response`` (text, PostToolUse, which fires only after a
  tool succeeded), ``agent_id`` / ``agent_type`` (Subagent*), ``stop_hook_active`` (Stop,
  SubagentStop), ``trigger`` / ``custom_instructions`` (PreCompact).
- **Codex** (``codex-rs/hooks/schema``): snake ``hook_event_name``, ``session_id``,
  ``turn_id``, ``model``, ``permission_mode``, ``tool_*``; no timestamp. Mapped with the same
  tables; ``extra.agent_harness`` says which it was.

The session id is decoded (``vscode_facts.decode_session_id``) so a hooked session and its
imported chatSessions file meet in one trace; the target (``local``) is ``extra.session_target``.
The URI itself is not kept: its tail is the id base64-encoded, which the scrubber cannot read, so
a token pasted into an id would reach disk through it (``encode_session_id`` rebuilds it).
"""

from __future__ import annotations

from trace_ingest.events import new_event
from trace_ingest.harnesses.vscode import DESCRIPTOR
from trace_ingest.vscode_facts import decode_session_id, iso, strip_call_id

HARNESS = DESCRIPTOR.id

TYPE_CHECKING = False  # not `from typing import`: typing costs the hook ~5 ms
if TYPE_CHECKING:
    from typing import Any

    from trace_ingest.events import Event

EVENT_KINDS: dict[str, str] = DESCRIPTOR.events

# Payload keys that become named event fields (or are consumed); the rest goes to extra.
_CONSUMED = frozenset(
    {"hookEventName", "hook_event_name", "sessionId", "session_id", "timestamp", "cwd"}
)


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def normalize(payload: dict[str, Any], received_at: str, digest: str) -> list[Event]:
    """Normalize one VS Code (Local or Codex) hook payload; never raises."""
    codex = "hookEventName" not in payload and "hook_event_name" in payload
    hook_event = _str(payload.get("hook_event_name" if codex else "hookEventName")) or ""
    kind = EVENT_KINDS.get(hook_event, "other")
    raw_sid = payload.get("session_id" if codex else "sessionId")
    sent = raw_sid if isinstance(raw_sid, str) else ("" if raw_sid is None else str(raw_sid))
    sid, target = decode_session_id(sent)
    rest = {k: v for k, v in payload.items() if k not in _CONSUMED}
    ev = new_event(
        harness=HARNESS,
        source="hook",
        session_id=sid,
        kind=kind,
        received_at=received_at,
        ts=iso(payload.get("timestamp")),
        id_parts=(received_at, digest, 0),
    )
    ev["hook_event"] = hook_event or None
    cwd = payload.get("cwd")
    if isinstance(cwd, str):
        ev["cwd"] = cwd
    if sid != sent:
        rest["session_target"] = target  # not the URI: base64 of the id, hidden from scrub
    if codex:
        rest["agent_harness"] = "codex"
    for key in ("agent_id", "agent_type"):
        value = rest.pop(key, None)
        if isinstance(value, str) and value:
            ev[key] = value
    if kind in ("tool_call", "tool_result", "tool_error", "permission"):
        _fill_tool(ev, rest, kind)
    elif kind == "prompt":
        ev["text"] = _str(rest.pop("prompt", None))
    elif kind in ("agent_stop", "subagent_stop"):
        text = rest.pop("last_assistant_message", None)
        ev["text"] = _str(text)
        if kind == "agent_stop":
            ev["ok"] = True
    elif kind == "compaction":
        ev["text"] = _str(rest.pop("custom_instructions", None))
    elif kind == "notification":
        ev["text"] = _str(rest.pop("message", None))
    elif "tool_name" in rest:
        _fill_tool(ev, rest, kind)
    if rest:
        ev["extra"] = rest
    return [ev]


def _fill_tool(ev: Event, rest: dict[str, Any], kind: str) -> None:
    name = _str(rest.pop("tool_name", None))
    ev["tool_name"] = name
    ev["tool"] = DESCRIPTOR.canonical(name)
    # ``tool_use_id`` is the Local harness's internal id, ``<model id>__vscode-<n>``
    # (microsoft/vscode-copilot-chat toolCalling.tsx passes ``props.toolCall.id``, which
    # toolCallingLoop.ts createInternalToolCallId suffixes); the chat files name the call
    # without the suffix, so it is cut here too, or a hooked call would never meet its file.
    call_id = _str(rest.pop("tool_use_id", None))
    ev["call_id"] = strip_call_id(call_id) if call_id else call_id
    if "tool_input" in rest:
        ev["input"] = rest.pop("tool_input")
        ev["path"] = DESCRIPTOR.tool_path(ev["input"])
    if kind == "tool_call":
        ev["ok"] = None
    elif kind == "tool_result":
        # VS Code runs PostToolUse only after a tool completed successfully
        # (chatHookService.ts executePostToolUseHook).
        ev["output"] = rest.pop("tool_response", None)
        ev["status"] = "ok"
        ev["ok"] = True
    elif kind == "tool_error":
        ev["error"] = _str(rest.pop("error", None))
        ev["status"] = "failed"
        ev["ok"] = False
    elif kind == "permission":
        ev["status"] = "asked"
        ev["ok"] = None
