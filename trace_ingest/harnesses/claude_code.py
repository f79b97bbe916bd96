"""Claude Code: what trail knows about it, as plain data (``trace_ingest.harnesses.table``).

Hot-path safe: the hook adapter (``hooks/claude_code.py``) reads the event and tool tables
from here, and so do the transcript importer, the graders (capabilities, canonical tools),
``trail install`` and ``trail doctor``. Facts: shared/reference/harnesses.md §1 and
real-harnesses.md §3 (Claude Code 2.1.328, observed offline).
"""

from __future__ import annotations

from trace_ingest.harnesses.table import Harness

TYPE_CHECKING = False  # not `from typing import`: typing costs the hook ~5 ms
if TYPE_CHECKING:
    from typing import Any

# Hook event -> kind. These are also the events `trail install` registers: the 2.1.328 binary
# accepts every one of them (its list of 33 events, real-harnesses.md §3.1; UserPromptExpansion
# included: it fires for a slash command's expansion, harnesses.md §1.6).
EVENTS: dict[str, str] = {
    "SessionStart": "session_start",
    "SessionEnd": "session_end",
    "UserPromptSubmit": "prompt",
    "UserPromptExpansion": "prompt",
    "PreToolUse": "tool_call",
    "PostToolUse": "tool_result",
    "PostToolUseFailure": "tool_error",
    "PermissionRequest": "permission",
    "PermissionDenied": "permission",
    "Notification": "notification",
    "SubagentStart": "subagent_start",
    "SubagentStop": "subagent_stop",
    "Stop": "agent_stop",
    "StopFailure": "agent_stop",
    "PreCompact": "compaction",
    "PostCompact": "compaction",
    "InstructionsLoaded": "guide_loaded",
}

# Claude Code tool name -> canonical tool (trace_ingest.events.CANONICAL_TOOLS;
# docs/events.md, "Tool names map to canonical ones"). MCP tools are mcp__<server>__<tool>.
TOOLS: dict[str, str] = {
    "Read": "read",
    "NotebookRead": "read",
    "Edit": "edit",
    "MultiEdit": "edit",
    "NotebookEdit": "edit",
    "Write": "write",
    "Bash": "shell",
    "BashOutput": "shell",
    "KillShell": "shell",
    "KillBash": "shell",
    "PowerShell": "shell",
    "Grep": "search",
    "Glob": "search",
    "LS": "search",
    "ToolSearch": "search",
    "WebFetch": "fetch",
    "WebSearch": "fetch",
    "Task": "task",
    "Agent": "task",
    "Skill": "skill",
}

# Hooks: harnesses.md §1.5-1.6. Hook payloads carry no timestamp, but trail stamps each on
# receipt, which is the event time for a synchronous hook and within the hook's scheduling delay
# for an async one.
_HOOK = frozenset(
    {
        "tool_names",
        "tool_args",
        "tool_results",
        "success_flags",
        "call_ids",
        "timestamps",
        "durations",
        "prompts",
        "session_bounds",
        "guides",
        "skills",
        "subagents",
    }
)
CAPABILITIES: dict[str, frozenset[str]] = {
    "hook": _HOOK,
    # Transcripts (harnesses.md §1.7) show what the hooks show, but no explicit session
    # bounds; token usage is in the file but not mapped yet (docs/importers.md).
    "transcript": _HOOK - {"session_bounds"},
}


class ClaudeCode(Harness):
    """Claude Code's settings shape (harnesses.md §1.2): ``hooks`` -> event -> matcher groups
    -> ``hooks`` -> handler objects with a ``command``."""

    __slots__ = ()

    def handlers(self, settings: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        found: list[tuple[str, dict[str, Any]]] = []
        hooks = settings.get("hooks")
        if not isinstance(hooks, dict):
            return found
        for event, groups in hooks.items():
            for group in groups if isinstance(groups, list) else []:
                inner = group.get("hooks") if isinstance(group, dict) else None
                for handler in inner if isinstance(inner, list) else []:
                    if isinstance(handler, dict):
                        found.append((str(event), handler))
        return found


DESCRIPTOR = ClaudeCode(
    id="claude-code",
    name="Claude Code",
    events=EVENTS,
    tools=TOOLS,
    mcp_prefix="mcp__",
    mcp_separator="__",
    path_keys=("file_path", "notebook_path", "path"),
    capabilities=CAPABILITIES,
    settings={
        "project": ("project", ".claude/settings.json"),
        "user": ("home", ".claude/settings.json"),
    },
    default_scope="project",
    settings_format="json",
    probe={
        "session_id": "trail-doctor-probe",
        "hook_event_name": "Notification",
        "message": "trail doctor probe",
    },
)
