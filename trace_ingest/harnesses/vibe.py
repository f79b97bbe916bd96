"""Mistral Vibe: what trail knows about it, as plain data (``trace_ingest.harnesses.table``).

Hot-path safe: the hook adapter (``hooks/vibe.py``) and the session-store importer
(``trace_ingest/importers/vibe_store.py``) share these tables through
``trace_ingest.vibe_tools``. Facts: real-harnesses.md §1 (Vibe 3.0.1, observed offline; it
supersedes harnesses.md §3, which described 2.x).

- Hook types ``pre_tool``, ``post_tool``, ``post_agent`` (3.x); a 2.x install sends
  ``before_tool``, ``after_tool``, ``post_agent_turn``, which the adapter still maps, but
  ``trail install`` registers only the 3.x names (3.x rejects the old ones silently, §1.2).
- Registration: ``$VIBE_HOME/hooks.toml`` (``VIBE_HOME`` defaults to ``~/.vibe``), the default,
  or the project's ``.vibe/hooks.toml``, which Vibe loads only in a trusted folder.
- Tools are named ``<group>.<tool>`` (``file_system.bash``); an unknown group is an MCP server's.
"""

from __future__ import annotations

from trace_ingest import vibe_tools
from trace_ingest.harnesses.table import Harness

TYPE_CHECKING = False  # not `from typing import`: typing costs the hook ~5 ms
if TYPE_CHECKING:
    from typing import Any

# Hook type -> kind (the adapter's table; 2.x names included).
EVENTS: dict[str, str] = {
    "pre_tool": "tool_call",
    "post_tool": "tool_result",
    "post_agent": "agent_stop",
    "before_tool": "tool_call",
    "after_tool": "tool_result",
    "post_agent_turn": "agent_stop",
}
HOOK_EVENTS: tuple[str, ...] = ("pre_tool", "post_tool", "post_agent")

# Hooks (§1.3): every tool call of the main agent with the model's call id, input, structured
# output and status; stamped on receipt by a hook Vibe runs synchronously. Not: durations
# (``duration_ms`` is a stub 0), prompts, session bounds, guides, skill loads, tokens, and no
# subagent at all (a subagent's calls fire no hook).
_HOOK = frozenset(
    {"tool_names", "tool_args", "tool_results", "success_flags", "call_ids", "timestamps"}
)
CAPABILITIES: dict[str, frozenset[str]] = {
    "hook": _HOOK,
    # The session store (§1.4): the same calls with the harness's own times, the typed
    # prompts, every subagent's calls in its own lane, and the guides in context (AGENTS.md at
    # start; a subfolder's as Vibe added it to a read's output). 2.x folders have no per-event
    # time (their events say ``extra.timestamp_inferred``). Token usage is there, not mapped.
    "transcript": _HOOK | {"prompts", "subagents", "guides"},
}


class Vibe(Harness):
    """Vibe's settings shape: ``[[hooks]]`` tables (``name``, ``type``, ``command``, ...), the
    user's file under ``$VIBE_HOME`` and the tool names of ``trace_ingest.vibe_tools``."""

    __slots__ = ()

    def canonical(self, name: str | None) -> str:
        return vibe_tools.canonical_tool(name)

    def mcp_parts(self, name: str | None) -> tuple[str, str] | None:
        if not name or vibe_tools.canonical_tool(name) != "mcp":
            return None
        server, _, tool = name.partition(".")
        return server, tool

    def settings_path(self, scope: str, project_dir: str | None = None) -> str:
        if scope == "user":
            import os

            return os.path.join(vibe_home(), "hooks.toml")
        return super().settings_path(scope, project_dir)

    def registration_problem(self, scope: str, project_dir: str | None = None) -> str | None:
        """A project's ``.vibe/hooks.toml`` loads only when Vibe trusts the folder (§1.2):
        its ``$VIBE_HOME/trusted_folders.toml`` decides, the closest listed ancestor winning."""
        if scope != "project":
            return None
        import os

        from trace_ingest.vibe_hooks_toml import trust_of

        folder = os.path.abspath(project_dir or os.getcwd())
        listing = os.path.join(vibe_home(), "trusted_folders.toml")
        try:
            with open(listing, encoding="utf-8") as fh:
                text: str | None = fh.read(1 << 20)
        except (OSError, UnicodeDecodeError):
            text = None
        trust = trust_of(folder, text)
        if trust == "trusted":
            return None
        why = "marked untrusted" if trust == "untrusted" else "not trusted yet"
        return (
            f"Vibe will not load {folder}/.vibe/hooks.toml: the folder is {why} in {listing}"
            " (trust it when Vibe asks, or run `vibe --trust`; or install with --scope user)"
        )

    def handlers(self, settings: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        hooks = settings.get("hooks")
        return [
            (str(h.get("type")), h)
            for h in (hooks if isinstance(hooks, list) else [])
            if isinstance(h, dict)
        ]


def vibe_home() -> str:
    """``$VIBE_HOME``, else ``~/.vibe`` (as [SRC] ``vibe/utils/vibe_home.py`` resolves it)."""
    import os

    given = os.environ.get("VIBE_HOME")
    if given:
        return os.path.realpath(os.path.expanduser(given))
    return os.path.join(os.path.expanduser("~"), ".vibe")


DESCRIPTOR = Vibe(
    id="vibe",
    name="Mistral Vibe",
    events=EVENTS,
    hook_events=HOOK_EVENTS,
    tools=vibe_tools.QUALIFIED_CANONICAL,
    path_keys=vibe_tools.PATH_KEYS,
    capabilities=CAPABILITIES,
    settings={
        "user": ("home", ".vibe/hooks.toml"),
        "project": ("project", ".vibe/hooks.toml"),
    },
    default_scope="user",
    settings_format="toml",
    probe={
        "session_id": "trail-doctor-probe",
        "transcript_path": "",
        "parent_session_id": None,
        "hook_event_name": "post_agent",
    },
)
