"""Mistral Vibe's tool names and argument spellings: one table for the hook adapter and the
session-store importer, so one call seen by both is named and shaped the same.

Hot-path safe: standard library only, nothing imported at run time.

Vibe 3.0.1 (shared/reference/real-harnesses.md §1.3, [SRC] ``_hook_matcher.py``) names a tool
three ways:

- the **qualified** name of its core (``file_system.bash``): hook ``tool_name``, store effect
  ``detail.toolName``;
- the **model-facing** name (``bash``, ``edit`` for ``file_system.search_replace``): the
  checkpoint's ``tool_call`` parts and 2.x hook payloads;
- MCP and connector tools are ``<server>.<tool>``.

Arguments differ too: hooks get the legacy names (``file_path``, ``old_string``…, ``timeout``),
the store's effects keep the runtime ones (``path``, ``content: [{old_str, new_str,
replace_all}]``, ``timeout_seconds``). :func:`legacy_input` turns the second into the first.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not `from typing import`: typing costs the hook ~5 ms
if TYPE_CHECKING:
    from typing import Any

# Qualified name -> canonical tool (trace_ingest.events.CANONICAL_TOOLS). The builtin catalogue
# of 3.0.1 (``_hook_matcher._BUILTIN_MODEL_NAMES``), plus the deprecated ``subagent.*`` names.
QUALIFIED_CANONICAL: dict[str, str] = {
    "file_system.read_file": "read",
    "file_system.write_file": "write",
    "file_system.search_replace": "edit",
    "file_system.bash": "shell",
    "process.start": "shell",
    "process.output": "shell",
    "process.write": "shell",
    "process.list": "shell",
    "process.stop": "shell",
    "skill.read": "skill",
    "agents.spawn": "task",
    "subagent.spawn": "task",
    "agents.list_configs": "other",
    "agents.list": "other",
    "agents.send_message": "other",
    "agents.interrupt": "other",
    "subagent.list": "other",
    "subagent.wait": "other",
    "subagent.send_message": "other",
    "subagent.interrupt": "other",
    "subagent.stop": "other",
    "self.wait": "other",
    "self.sleep": "other",
    "web_search.web_search": "fetch",
}
# Groups that are Vibe's own, not an MCP server or connector (``tools.<group>.<function>`` in
# its system prompt; ``vibe.*`` are the app's provided tools such as ``vibe.todo``).
BUILTIN_GROUPS = frozenset(
    {"file_system", "process", "skill", "agents", "subagent", "self", "vibe", "ui", "web_search"}
)
# Model-facing name -> qualified name (3.0.1), and the 2.x tool names hooks sent unqualified.
MODEL_QUALIFIED: dict[str, str] = {
    "read_file": "file_system.read_file",
    "write_file": "file_system.write_file",
    "edit": "file_system.search_replace",
    "search_replace": "file_system.search_replace",  # 2.x
    "bash": "file_system.bash",
    "wait": "self.wait",
    "sleep": "self.sleep",
    "skill": "skill.read",
    "process_start": "process.start",
    "process_output": "process.output",
    "process_write": "process.write",
    "process_list": "process.list",
    "process_stop": "process.stop",
    "agents_spawn": "agents.spawn",
    "todo": "vibe.todo",
}
# Model-facing tools with no qualified counterpart: 3.0.1's orchestration tools (they fire no
# hook; run_typescript's inner calls do) and the 2.x tools that 3.x dropped.
MODEL_CANONICAL: dict[str, str] = {
    "run_typescript": "other",
    "search_tool_functions": "search",
    "unified_harness_scratchpad": "other",
    "grep": "search",  # 2.x
    "task": "task",  # 2.x
    "web_fetch": "fetch",  # 2.x
    "web_search": "fetch",  # 2.x
    "ask_user_question": "other",  # 2.x
    "exit_plan_mode": "other",  # 2.x
}


def qualified(name: str | None) -> str | None:
    """The qualified name of a tool given by either spelling (None when it has none)."""
    if not name:
        return None
    if "." in name:
        return name
    return MODEL_QUALIFIED.get(name)


def canonical_tool(name: str | None) -> str:
    """Canonical tool of a Vibe tool name, qualified (3.x) or model-facing (2.x and the
    checkpoint). An unknown ``<group>.<tool>`` outside Vibe's own groups is an MCP server's or
    a connector's tool: ``mcp``."""
    if not name:
        return "other"
    full = qualified(name)
    if full is None:
        return MODEL_CANONICAL.get(name, "other")
    found = QUALIFIED_CANONICAL.get(full)
    if found is not None:
        return found
    group = full.partition(".")[0]
    return "other" if group in BUILTIN_GROUPS else "mcp"


# Runtime argument name -> the legacy name hooks see, per qualified tool (real-harnesses.md
# §1.3: "tool_input is translated back to the legacy argument names").
_RENAMES: dict[str, dict[str, str]] = {
    "file_system.read_file": {"path": "file_path"},
    "file_system.write_file": {"path": "file_path"},
    "file_system.bash": {"timeout_seconds": "timeout"},
}


def legacy_input(qualified_name: str | None, value: Any) -> Any:
    """A store effect's (or the model's) arguments under the names Vibe's hooks use.

    ``search_replace``'s one-edit ``content: [{old_str, new_str, replace_all}]`` becomes
    ``old_string``/``new_string``/``replace_all`` (several edits stay as they are). Anything
    not a dict, or of another tool, is returned unchanged.
    """
    if not isinstance(value, dict) or not qualified_name:
        return value
    renames = _RENAMES.get(qualified_name)
    out = {renames.get(k, k) if renames else k: v for k, v in value.items()}
    if qualified_name == "file_system.search_replace":
        content = out.get("content")
        if isinstance(content, list) and len(content) == 1 and isinstance(content[0], dict):
            edit = content[0]
            del out["content"]
            out["old_string"] = edit.get("old_str")
            out["new_string"] = edit.get("new_str")
            out["replace_all"] = bool(edit.get("replace_all", False))
        elif "path" in out and "file_path" not in out:
            out["file_path"] = out.pop("path")
    return out


# Input keys that name the file a tool touched, in order of preference.
PATH_KEYS: tuple[str, ...] = ("file_path", "path")


def tool_path(tool_input: Any) -> str | None:
    if isinstance(tool_input, dict):
        for key in PATH_KEYS:
            value = tool_input.get(key)
            if isinstance(value, str) and value:
                return value
    return None


def shell_exit_code(qualified_name: str | None, output: Any, text: Any = None) -> int | None:
    """A shell command's exit code: its structured output's ``returncode``, else the one its
    text names (2.x: ``returncode: 0`` in a success, ``Return code: 2`` in a
    ``<tool_error>bash failed: …`` — observed on the real 2.18.4).

    3.0.1 reports a command that exits non-zero as ``tool_status: "success"``: the code is the
    only sign of it, so it is kept as a fact beside ``ok``.
    """
    if canonical_tool(qualified_name) != "shell":
        return None
    if isinstance(output, dict):
        code = output.get("returncode")
        if isinstance(code, int) and not isinstance(code, bool):
            return code
    if isinstance(text, str):
        for marker in ("\nreturncode: ", "\nReturn code: "):
            at = text.find(marker)
            if at >= 0:
                rest = text[at + len(marker) : at + len(marker) + 12]
                sign = "-" if rest.startswith("-") else ""
                digits = ""
                for c in rest[len(sign) :]:
                    if not c.isdigit():
                        break
                    digits += c
                if digits:
                    return int(sign + digits)
    return None
