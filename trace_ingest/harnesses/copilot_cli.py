"""GitHub Copilot CLI: what trail knows about it, as plain data (``trace_ingest.harnesses.table``).

Hot-path safe (standard library only): the hook adapter (``hooks/copilot_cli.py``), the
``events.jsonl`` importer, the graders, ``trail install`` and ``trail doctor`` read these
tables. Facts: shared/reference/real-harnesses.md §2 (Copilot CLI 1.0.102, observed offline)
and harnesses.md §2 (the documented names and file format).
"""

from __future__ import annotations

from trace_ingest import _os as os  # os without its import cost (see _os)
from trace_ingest.harnesses.table import GUARD, Harness

TYPE_CHECKING = False  # not `from typing import`: typing costs the hook ~5 ms
if TYPE_CHECKING:
    from typing import Any

# Event name (both registrations) -> kind. real-harnesses.md §2.3; ``notification`` and
# ``preCompact`` observed too (docs/testing.md, "Copilot CLI").
EVENTS: dict[str, str] = {
    "sessionStart": "session_start",
    "SessionStart": "session_start",
    "sessionEnd": "session_end",
    "SessionEnd": "session_end",
    "userPromptSubmitted": "prompt",
    "UserPromptSubmit": "prompt",
    "userPromptTransformed": "other",  # the same prompt with Copilot's context prepended
    "preToolUse": "tool_call",
    "PreToolUse": "tool_call",
    "postToolUse": "tool_result",
    "PostToolUse": "tool_result",
    "postToolUseFailure": "tool_error",
    "PostToolUseFailure": "tool_error",
    "permissionRequest": "permission",
    "PermissionRequest": "permission",
    "errorOccurred": "other",
    "ErrorOccurred": "other",
    "agentStop": "agent_stop",
    "Stop": "agent_stop",
    "subagentStart": "subagent_start",
    "SubagentStart": "subagent_start",
    "subagentStop": "subagent_stop",
    "SubagentStop": "subagent_stop",
    "preCompact": "compaction",
    "PreCompact": "compaction",
    "notification": "notification",
    "Notification": "notification",
}
# What `trail install` registers: the camelCase names, one command per event, so each action is
# recorded once (registering both spellings runs both commands, real-harnesses.md §2.2). The
# PascalCase names are mapped for users who register them themselves.
CAMEL_EVENTS: tuple[str, ...] = tuple(name for name in EVENTS if name[0].islower())

# Copilot CLI's own tool names (the tool list 1.0.102 offers the model, real-harnesses.md §2.1;
# harnesses.md §2.4) and the Claude Code names PascalCase payloads report instead -> canonical.
TOOLS: dict[str, str] = {
    "view": "read",
    "create": "write",
    "edit": "edit",
    "str_replace_editor": "edit",
    "apply_patch": "edit",
    "bash": "shell",
    "powershell": "shell",
    "read_bash": "shell",
    "write_bash": "shell",
    "stop_bash": "shell",
    "list_bash": "shell",
    "read_powershell": "shell",
    "write_powershell": "shell",
    "stop_powershell": "shell",
    "list_powershell": "shell",
    "grep": "search",
    "rg": "search",
    "glob": "search",
    "web_fetch": "fetch",
    "web_search": "fetch",
    "fetch_copilot_cli_documentation": "fetch",
    "task": "task",
    "read_agent": "task",
    "write_agent": "task",
    "list_agents": "task",
    "skill": "skill",
    # PascalCase registrations (harnesses.md §2.4): bash/powershell->Bash, view->Read,
    # create->Write, edit->Edit, grep->Grep, glob->Glob, web_fetch->WebFetch,
    # web_search->WebSearch, task->Agent.
    "Bash": "shell",
    "Read": "read",
    "Write": "write",
    "Edit": "edit",
    "Grep": "search",
    "Glob": "search",
    "WebFetch": "fetch",
    "WebSearch": "fetch",
    "Agent": "task",
}
# Input keys that name the file a tool touched: Copilot's ``path`` (view, create, edit), the
# ``file_path`` of a permission request.
PATH_KEYS: tuple[str, ...] = ("path", "file_path")

# Hooks (real-harnesses.md §2.3): every payload has Copilot's own timestamp and session id;
# none has a tool-call id (pairing is inferred, telemetry.copilot_pairing); results carry the
# text the model saw and success only by the event's name; no durations. No hook announces the
# rule files: the adapter lists those Copilot reads by construction at session start (guides).
_SEEN = frozenset(
    {
        "tool_names",
        "tool_args",
        "tool_results",
        "success_flags",
        "timestamps",
        "prompts",
        "session_bounds",
        "subagents",
    }
)
CAPABILITIES: dict[str, frozenset[str]] = {
    "hook": _SEEN | {"guides"},
    # events.jsonl (real-harnesses.md §2.4): the call ids and the subagents' launching calls;
    # token usage is there (session.usage_record) but not mapped yet (docs/importers.md).
    "events-log": _SEEN | {"call_ids"},
}

USER_HOOKS = "hooks/trail.json"  # under $COPILOT_HOME (default ~/.copilot)
# trail's command ends with GUARD so it exits 0 even when the trail program is gone: a failing
# preToolUse command denies the tool (hooks/registrars/copilot_cli.py).


def copilot_home() -> str:
    """``$COPILOT_HOME`` when it is set to an absolute path, else ``~/.copilot``."""
    home = os.environ.get("COPILOT_HOME")
    if home and os.path.isabs(home):
        return home
    return os.path.join(os.path.expanduser("~"), ".copilot")


class CopilotCli(Harness):
    """Copilot's hook file (harnesses.md §2.2): ``{"version": 1, "hooks": {event: [handler, …]}}``
    with handlers ``{"type": "command", "bash": …, "timeoutSec": …}``; Claude-style matcher
    groups (``{"matcher", "hooks": [handler]}``) are accepted too. The user file lives under
    ``$COPILOT_HOME``, which ``settings_path`` honours."""

    __slots__ = ()

    def settings_path(self, scope: str, project_dir: str | None = None) -> str:
        if scope == "user":
            return os.path.join(copilot_home(), *USER_HOOKS.split("/"))
        return super().settings_path(scope, project_dir)

    def handlers(self, settings: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        found: list[tuple[str, dict[str, Any]]] = []
        hooks = settings.get("hooks")
        if not isinstance(hooks, dict):
            return found
        for event, entries in hooks.items():
            for entry in entries if isinstance(entries, list) else []:
                if not isinstance(entry, dict):
                    continue
                inner = entry.get("hooks")
                for handler in inner if isinstance(inner, list) else [entry]:
                    if isinstance(handler, dict):
                        found.append((str(event), handler))
        return found

    guard = GUARD

    def raw_command(self, handler: dict[str, Any]) -> Any:
        """Its ``bash``, else the cross-platform ``command``."""
        return handler.get("bash") if handler.get("bash") is not None else handler.get("command")


DESCRIPTOR = CopilotCli(
    id="copilot-cli",
    name="GitHub Copilot CLI",
    events=EVENTS,
    hook_events=CAMEL_EVENTS,
    tools=TOOLS,
    path_keys=PATH_KEYS,
    capabilities=CAPABILITIES,
    settings={
        "user": ("home", ".copilot/" + USER_HOOKS),
        "project": ("project", ".github/hooks/trail.json"),
    },
    default_scope="user",
    settings_format="json",
    probe={
        "sessionId": "trail-doctor-probe",
        "timestamp": 1764590400000,
        "cwd": "/",
        "hook_event_name": "Notification",
        "message": "trail doctor probe",
        "notification_type": "trail_probe",
    },
)


def canonical_tool(name: str | None) -> str:
    """Canonical tool for a Copilot tool name (``other`` when unknown)."""
    return DESCRIPTOR.canonical(name)


def tool_path(tool_input: Any) -> str | None:
    """The file a tool's input names, if any."""
    return DESCRIPTOR.tool_path(tool_input)
