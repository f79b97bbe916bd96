"""Canonical tool names: one table shared by the Claude Code hook adapter and importers.

Hot-path safe: standard library only, nothing imported at run time. The hook adapter
(``hooks/claude_code.py``) and the transcript importer (``trace_ingest/importers``) must agree
on these names, or one session recorded by both would disagree with itself. The table follows
docs/events.md ("Tool names map to canonical ones").
"""

from __future__ import annotations

TYPE_CHECKING = False  # not `from typing import`: typing costs the hook ~5 ms
if TYPE_CHECKING:
    from typing import Any

# Claude Code tool name -> canonical tool (trace_ingest.events.CANONICAL_TOOLS).
CLAUDE_CODE_CANONICAL: dict[str, str] = {
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

# Input keys that name the file a tool touched, in order of preference.
PATH_KEYS: tuple[str, ...] = ("file_path", "notebook_path", "path")


def canonical_tool(name: str | None) -> str:
    """Canonical tool name for a Claude Code tool (MCP tools are ``mcp__<server>__<tool>``)."""
    if not name:
        return "other"
    if name.startswith("mcp__"):
        return "mcp"
    return CLAUDE_CODE_CANONICAL.get(name, "other")


def tool_path(tool_input: Any) -> str | None:
    """The file a tool's input names (``file_path``, ``notebook_path`` or ``path``), if any."""
    if isinstance(tool_input, dict):
        for key in PATH_KEYS:
            value = tool_input.get(key)
            if isinstance(value, str) and value:
                return value
    return None
