"""VS Code: what trail knows about it, as plain data (``trace_ingest.harnesses.table``).

Hot-path safe: the hook adapter (``hooks/vscode.py``) reads the event and tool tables from
here, and so do the ``trail chronicle import`` readers, the graders, ``trail install`` and
``trail doctor``. Facts: shared/reference/next-capabilities.md §1.3-1.4 (NC); VS Code's source
as cited in each module. There is no VS Code to run here: docs/testing.md says what the tests
stand on instead.
"""

from __future__ import annotations

from trace_ingest.harnesses.table import GUARD, Harness

TYPE_CHECKING = False  # not `from typing import`: typing costs the hook ~5 ms
if TYPE_CHECKING:
    from typing import Any

# Hook event -> kind: the Local harness's events (``chatHookService.ts`` input types) and the
# Claude-compatible names VS Code also accepts in a hook file.
EVENTS: dict[str, str] = {
    "SessionStart": "session_start",
    "UserPromptSubmit": "prompt",
    "PreToolUse": "tool_call",
    "PostToolUse": "tool_result",
    "PreCompact": "compaction",
    "SubagentStart": "subagent_start",
    "SubagentStop": "subagent_stop",
    "Stop": "agent_stop",
    "SessionEnd": "session_end",
    "PostToolUseFailure": "tool_error",
    "PermissionRequest": "permission",
    "Notification": "notification",
}
# What `trail install --harness vscode` registers: the eight events the Local harness fires.
HOOK_EVENTS: tuple[str, ...] = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PreCompact",
    "SubagentStart",
    "SubagentStop",
    "Stop",
)

# VS Code's built-in agent tools -> canonical tool: the ids NC §1.3 (f) observed in hook
# payloads (``copilot_readFile``, ``run_in_terminal``, ...) and the model-facing names VS Code
# registers for the same tools (Copilot Chat transcripts use those).
TOOLS: dict[str, str] = {
    "copilot_readFile": "read",
    "read_file": "read",
    "copilot_readNotebookCellOutput": "read",
    "read_notebook_cell_output": "read",
    "copilot_getNotebookSummary": "read",
    "copilot_replaceString": "edit",
    "replace_string_in_file": "edit",
    "copilot_multiReplaceString": "edit",
    "multi_replace_string_in_file": "edit",
    "copilot_insertEdit": "edit",
    "insert_edit_into_file": "edit",
    "copilot_applyPatch": "edit",
    "apply_patch": "edit",
    "copilot_editNotebook": "edit",
    "edit_notebook_file": "edit",
    "editFiles": "edit",
    "copilot_createFile": "write",
    "create_file": "write",
    "copilot_createDirectory": "write",
    "create_directory": "write",
    "copilot_createNewJupyterNotebook": "write",
    "run_in_terminal": "shell",
    "copilot_runInTerminal": "shell",
    "runInTerminal": "shell",
    "get_terminal_output": "shell",
    "copilot_getTerminalOutput": "shell",
    "await_terminal": "shell",
    "kill_terminal": "shell",
    "run_task": "shell",
    "copilot_runVsCodeTask": "shell",
    "create_and_run_task": "shell",
    "copilot_listDirectory": "search",
    "list_dir": "search",
    "copilot_findFiles": "search",
    "file_search": "search",
    "copilot_findTextInFiles": "search",
    "grep_search": "search",
    "copilot_searchCodebase": "search",
    "semantic_search": "search",
    "copilot_searchWorkspaceSymbols": "search",
    "copilot_listCodeUsages": "search",
    "list_code_usages": "search",
    "copilot_fetchWebPage": "fetch",
    "fetch_webpage": "fetch",
    "vscode_fetchWebPage_internal": "fetch",
    "copilot_githubRepo": "fetch",
    "github_repo": "fetch",
    "runSubagent": "task",
    "copilot_runSubagent": "task",
    "search_subagent": "task",
}

# Local hooks (NC §1.3): tool names, inputs, the text result of a success, a UUID call id per
# call, ISO timestamps, prompts, session start (no end), compaction, subagent start/stop. No
# failure event (PostToolUse fires only after a success), no durations, no guide loads.
_HOOK = frozenset(
    {
        "tool_names",
        "tool_args",
        "tool_results",
        "call_ids",
        "timestamps",
        "prompts",
        "subagents",
    }
)
CAPABILITIES: dict[str, frozenset[str]] = {
    "hook": _HOOK,
    # chatSessions .json/.jsonl and Export Chat (vscode_chat.py): VS Code's own record, with
    # per-call outcome (isError, terminal exit code, denials) and per-request tokens; times are
    # per request, not per call (a terminal call has its own).
    "transcript": frozenset(
        {
            "tool_names",
            "tool_args",
            "tool_results",
            "success_flags",
            "call_ids",
            "timestamps",
            "prompts",
            "subagents",
            "tokens",
        }
    ),
    # Copilot Chat transcripts (vscode_transcript.py): per-entry times, calls and results with
    # success, usage entries.
    "events-log": frozenset(
        {
            "tool_names",
            "tool_args",
            "tool_results",
            "success_flags",
            "call_ids",
            "timestamps",
            "prompts",
            "tokens",
        }
    ),
    # chronicle session-store.db (vscode_store.py): turns (prompt and answer), checkpoints,
    # first sightings of files; no tool calls.
    "chronicle": frozenset({"prompts", "timestamps"}),
}


class VSCode(Harness):
    """VS Code's hook file (``.github/hooks/*.json``, ``~/.copilot/hooks/*.json``):
    ``hooks`` -> event -> handler objects ``{type, command, timeout}``. Claude-format files
    (matcher groups holding ``hooks``) are read too: VS Code accepts both (NC §1.3)."""

    __slots__ = ()
    # VS Code runs the hooks in Claude Code's settings files too (its default
    # chat.hookFilesLocations, NC §1.3), and hooks/sender.py files those payloads under vscode:
    # trail's Claude Code hook records VS Code already (doctor and install say so).
    recorded_through: tuple[str, ...] = ("claude-code",)
    # Copilot CLI runs the files in ~/.copilot/hooks and a trusted .github/hooks too, and
    # denies a tool when a preToolUse command fails (real-harnesses.md §2.2), so trail's
    # VS Code command must exit 0 even when the trail program is gone.
    guard = GUARD

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
                if isinstance(inner, list):
                    found += [(str(event), h) for h in inner if isinstance(h, dict)]
                else:
                    found.append((str(event), entry))
        return found


DESCRIPTOR = VSCode(
    id="vscode",
    name="VS Code",
    events=EVENTS,
    hook_events=HOOK_EVENTS,
    tools=TOOLS,
    # NC §1.3 (f): mcp_<server>_<tool>, the server name truncated (so the split is a guess).
    mcp_prefix="mcp_",
    mcp_separator="_",
    path_keys=("filePath", "file_path", "path", "dirPath", "uri"),
    capabilities=CAPABILITIES,
    settings={
        # VS Code's default chat.hookFilesLocations includes .github/hooks (NC §1.3); a file of
        # trail's own, so uninstall never rewrites a user's hook file.
        "project": ("project", ".github/hooks/trail-vscode.json"),
        "user": ("home", ".copilot/hooks/trail-vscode.json"),
    },
    default_scope="project",
    settings_format="json",
    probe={
        "timestamp": "2026-01-01T00:00:00.000Z",
        "hookEventName": "Stop",
        "sessionId": "trail-doctor-probe",
        "stop_hook_active": False,
    },
)
