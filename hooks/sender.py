"""Who really sent a hook payload: the one place ``trail hook`` looks at a payload's shape.

Hot-path safe: a handful of dict lookups, standard library only. A command registered for one
harness can be run by another:

- VS Code and Copilot CLI read ``.claude/settings.json`` (NC §1.3: ``chat.hookFilesLocations``
  lists it; the brief for issue 11), so ``trail hook claude-code`` can receive their payloads;
- Mistral Vibe runs Claude Code plugin hooks and sends them its own payload (NC §1.2);
- VS Code runs a session's hooks with the harness the session uses (Local, Copilot, Claude,
  Codex; NC §1.3), so ``trail hook vscode`` can receive a Copilot- or Claude-shaped payload.

Events go under the harness whose shape the payload has, so they meet the session files that
harness writes (a Claude harness session's transcript is a Claude Code transcript, a Copilot
one's ``events.jsonl`` Copilot CLI's); the name the hook was registered under is kept in
``extra.registered_as``. The shape facts, each observed or read in the source:

- **VS Code Local**: a ``hookEventName`` key (camelCase), or a ``sessionId`` starting
  ``vscode-chat-session://`` (NC §1.3 capture; ``chatHookServiceImpl``'s common input);
- **Vibe**: ``hook_event_name`` one of ``pre_tool``/``post_tool``/``post_agent`` (3.x) or
  ``before_tool``/``after_tool``/``post_agent_turn`` (2.x), or a ``parent_session_id`` key
  (real-harnesses.md §1.3, NC §1.2);
- **Copilot CLI, camelCase**: ``sessionId`` with a numeric (epoch ms) ``timestamp``
  (real-harnesses.md §2.3);
- **Copilot CLI, PascalCase**: ``hook_event_name`` + ``session_id`` with an ISO *string*
  ``timestamp`` and no ``prompt_id`` (§2.3; Claude Code sends no ``timestamp``, §3.2);
- **Claude Code**: ``hook_event_name`` + ``session_id``, no ``timestamp``, not a Vibe event
  name (real-harnesses.md §3.2).

A Codex-shaped payload (``turn_id`` without ``prompt_id``) reaching ``trail hook vscode`` stays
with VS Code (trail has no Codex harness). Anything else keeps the harness it was sent to.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

VIBE_EVENTS = frozenset(
    {"pre_tool", "post_tool", "post_agent", "before_tool", "after_tool", "post_agent_turn"}
)
VSCODE_SESSION_SCHEME = "vscode-chat-session://"


def sender(payload: dict[str, Any], claimed: str) -> str:
    """The harness whose payload this is (``claimed``, the ``trail hook`` argument, when the
    shape says nothing else)."""
    sid = payload.get("sessionId")
    if "hookEventName" in payload or (
        isinstance(sid, str) and sid.startswith(VSCODE_SESSION_SCHEME)
    ):
        return "vscode"
    event = payload.get("hook_event_name")
    if event in VIBE_EVENTS or "parent_session_id" in payload:
        return "vibe"
    stamp = payload.get("timestamp")
    if sid is not None and isinstance(stamp, int | float) and not isinstance(stamp, bool):
        return "copilot-cli"
    if isinstance(event, str) and "session_id" in payload:
        if isinstance(stamp, str) and "prompt_id" not in payload:
            return "copilot-cli"
        if claimed == "vscode" and "turn_id" in payload and "prompt_id" not in payload:
            return "vscode"  # Codex harness inside VS Code
        if stamp is None:
            return "claude-code"
    return claimed
