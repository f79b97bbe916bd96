"""Where each harness keeps its hook registration, and how to recognise trail's entries.

Shared by ``hooks.install`` (which writes registrations) and ``trail doctor`` (which reads them).
Only Claude Code is wired today; the other harness ids are reserved for later releases.
"""

from __future__ import annotations

import os
import re
import sys
from typing import Any

from trace_ingest.errors import InstallError, UnknownHarness

SCOPES = ("project", "user")

# Claude Code events trail records (harnesses.md §1.6).
CLAUDE_EVENTS: tuple[str, ...] = (
    "SessionStart",
    "SessionEnd",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PermissionRequest",
    "PermissionDenied",
    "Notification",
    "SubagentStart",
    "SubagentStop",
    "Stop",
    "StopFailure",
    "PreCompact",
    "PostCompact",
    "InstructionsLoaded",
)

_OURS = re.compile(r"(^|[/\\\s'\"])trail['\"]?\s+hook\s+(?P<harness>[a-z-]+)\b")


def settings_path(harness: str, scope: str, project_dir: str | None = None) -> str:
    """The settings file that holds ``harness``'s hooks for ``scope``."""
    if harness != "claude-code":
        raise UnknownHarness(
            f"registration for {harness!r} is not supported yet (only claude-code)"
        )
    if scope == "user":
        return os.path.join(os.path.expanduser("~"), ".claude", "settings.json")
    if scope == "project":
        return os.path.join(os.path.abspath(project_dir or os.getcwd()), ".claude", "settings.json")
    raise InstallError(f"unknown scope {scope!r}; expected one of {SCOPES}")


def trail_executable() -> str:
    """Absolute path of the ``trail`` script of the running installation."""
    candidate = os.path.join(os.path.dirname(sys.executable), "trail")
    if os.path.exists(candidate):
        return candidate
    return os.path.abspath(sys.argv[0])


def is_trail_command(command: Any, harness: str) -> bool:
    if not isinstance(command, str):
        return False
    found = _OURS.search(command)
    return bool(found and found.group("harness") == harness)


def registered_commands(settings: dict[str, Any], harness: str) -> dict[str, list[str]]:
    """Event name -> commands that mention ``trail hook <harness>`` in a settings object
    (read with ``trace_ingest.settings_io.read_settings``, which bounds what it reads). A
    mention is not proof of trail's own entry: ``settings_io`` recognises the exact form."""
    found: dict[str, list[str]] = {}
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return found
    for event, groups in hooks.items():
        for group in groups if isinstance(groups, list) else []:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for handler in handlers if isinstance(handlers, list) else []:
                if isinstance(handler, dict) and is_trail_command(handler.get("command"), harness):
                    found.setdefault(event, []).append(handler["command"])
    return found
