"""Mistral Vibe adapter: one hook payload -> a list of schema-v1 events.

Hot-path safe: imports only ``trace_ingest.events`` and ``trace_ingest.vibe_tools``. What the
real Vibe 3.0.1 sends is in shared/reference/real-harnesses.md §1.3:

- events ``pre_tool``, ``post_tool``, ``post_agent``; 2.x installs send ``before_tool``,
  ``after_tool``, ``post_agent_turn`` with the same fields (harnesses.md §3.2), still accepted;
- every payload has ``session_id, transcript_path, cwd, parent_session_id, hook_event_name``;
  ``transcript_path`` is the session's store folder (3.x), ``messages.jsonl`` (2.x);
- ``tool_name`` is qualified (``file_system.bash``), ``tool_call_id`` the model's call id (calls
  made inside ``run_typescript`` get ``typescript:<n>:<outer call id>:…``);
- ``tool_status`` is ``success``/``failure``/``cancelled``: a shell command that exits 2 is a
  ``success`` with ``tool_output.returncode: 2``, so the code is kept as ``extra.exit_code``;
- ``duration_ms`` is always 0 in 3.x ("a stub: the harness protocol carries no per-tool
  timing"): kept under ``extra`` only, never as the event's duration. 2.x measured it;
- a subagent's tool calls fire no hook at all (§1.3): the descriptor's hook capabilities leave
  out ``subagents``, and ``trail import vibe`` fills them in from the store.

Payloads carry no timestamp: events are stamped on receipt.
"""

from __future__ import annotations

from trace_ingest.events import new_event
from trace_ingest.harnesses.vibe import EVENTS as EVENT_KINDS
from trace_ingest.tools import STATUS_OK
from trace_ingest.vibe_tools import canonical_tool, shell_exit_code, tool_path

TYPE_CHECKING = False  # not `from typing import`: typing costs the hook ~5 ms
if TYPE_CHECKING:
    from typing import Any

    from trace_ingest.events import Event

HARNESS = "vibe"

# Vibe 2.9-2.18 (harnesses.md §3.2): rejected by 3.x's loader, still sent by 2.x installs.
LEGACY_EVENTS = frozenset({"before_tool", "after_tool", "post_agent_turn"})

# tool_status -> trail status (docs/events.md): a cancelled call did not run to its end.
_STATUS = {"success": "ok", "failure": "failed", "cancelled": "cancelled"}

_COMMON = ("session_id", "hook_event_name", "cwd", "parent_session_id")


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def normalize(payload: dict[str, Any], received_at: str, digest: str) -> list[Event]:
    """Normalize one Vibe hook payload (3.x or 2.x).

    ``received_at`` stamps the event (Vibe sends no time); ``digest`` identifies the payload
    bytes so the event id is deterministic. An unknown event becomes kind ``other`` with every
    field kept under ``extra``. A payload with a ``parent_session_id`` (2.x subagents) is filed
    under the parent session, in the child's lane (``agent_id``), as Claude Code's are.
    """
    hook_event = _str(payload.get("hook_event_name")) or ""
    kind = EVENT_KINDS.get(hook_event, "other")
    raw_sid = payload.get("session_id")
    sid = raw_sid if isinstance(raw_sid, str) else ("" if raw_sid is None else str(raw_sid))
    parent = _str(payload.get("parent_session_id"))
    rest = {k: v for k, v in payload.items() if k not in _COMMON}
    ev = new_event(
        harness=HARNESS,
        source="hook",
        session_id=parent or sid,
        kind=kind,
        received_at=received_at,
        id_parts=(received_at, digest, 0),
    )
    ev["hook_event"] = hook_event or None
    cwd = payload.get("cwd")
    if cwd is not None:
        ev["cwd"] = cwd if isinstance(cwd, str) else str(cwd)
    if parent:
        ev["agent_id"] = sid
    if kind == "tool_call":
        _fill_tool(ev, rest)
        ev["ok"] = None
    elif kind == "tool_result":
        _fill_result(ev, rest, measured=hook_event in LEGACY_EVENTS)
    elif kind == "agent_stop":
        ev["ok"] = True
    elif "tool_name" in rest:
        _fill_tool(ev, rest)
    if rest:
        ev["extra"] = rest
    return [ev]


def _fill_tool(ev: Event, rest: dict[str, Any]) -> None:
    name = _str(rest.pop("tool_name", None))
    ev["tool_name"] = name
    ev["tool"] = canonical_tool(name)
    ev["call_id"] = _str(rest.pop("tool_call_id", None))
    if "tool_input" in rest:
        ev["input"] = rest.pop("tool_input")
        ev["path"] = tool_path(ev["input"])


def _fill_result(ev: Event, rest: dict[str, Any], measured: bool) -> None:
    _fill_tool(ev, rest)
    output = rest.pop("tool_output", None)
    text = rest.pop("tool_output_text", None)
    error = _str(rest.pop("tool_error", None))
    # The structured output when there is one, else the text (a failure has only text).
    ev["output"] = output if output is not None else text
    raw_status = rest.pop("tool_status", None)
    status = _STATUS.get(raw_status) if isinstance(raw_status, str) else None
    if status is None:
        # No (or an unknown) tool_status: an error text is a failure, else unknown.
        status = "failed" if error else None
        if raw_status is not None:
            rest["tool_status"] = raw_status
    if status is not None:
        ev["status"] = status
        ev["ok"] = STATUS_OK[status]
    else:
        ev["ok"] = None
    if status in ("failed", "cancelled"):
        ev["kind"] = "tool_error"
    ev["error"] = error
    code = shell_exit_code(ev.get("tool_name"), output, text if isinstance(text, str) else error)
    if code is not None:
        rest["exit_code"] = code
    duration = rest.get("duration_ms")
    if measured and isinstance(duration, int | float) and not isinstance(duration, bool):
        ev["duration_ms"] = float(rest.pop("duration_ms"))  # 2.x timed the tool; 3.x sends 0
