"""Every harness trail knows, and the shape of what it knows about one: the descriptor.

Hot-path safe: standard library only, no ``typing``, no ``dataclasses``, no ``re`` until a
cold method asks for it. The hook imports this table and the one descriptor it records for.

**The one list of harnesses** is ``HARNESSES`` (id -> descriptor module, imported lazily by
``get``). Every other list is checked against it (tests/test_harness_agreement.py):
``hooks.entry.ADAPTERS`` (the hot adapters), ``hooks.install.REGISTRARS`` (the cold
installers), ``trace_ingest.importers.table.IMPORTERS`` (post-hoc importers), the ``--harness``
choices of ``trail install``/``uninstall``/``hook`` and the harnesses ``trail doctor`` checks.

How a harness plugs in (``<id>`` = ``copilot-cli``, module name ``<mod>`` = ``copilot_cli``):

1. ``trace_ingest/harnesses/<mod>.py`` defines ``DESCRIPTOR = Harness(id="<id>", ...)`` (or an
   instance of a subclass that overrides ``handlers``/``mcp_parts`` for its own settings
   shape or MCP naming); plain data, cheap to import. Add ``"<id>": "trace_ingest.harnesses.
   <mod>"`` to ``HARNESSES`` below (a harness listed without hooks records its payloads as kind
   ``other``; its descriptor then declares no ``hook`` capabilities).
2. ``hooks/<mod>.py``: the adapter (``hooks._protocols.Adapter``: ``HARNESS`` and
   ``normalize(payload, received_at, digest) -> list[Event]``), standard library only; add it
   to ``hooks.entry.ADAPTERS``.
3. ``hooks/registrars/<mod>.py``: the installer (``hooks._protocols.Registrar``); add its
   ``REGISTRAR`` to ``hooks.install.REGISTRARS``.
4. Optional: ``trace_ingest/importers/<name>.py`` on ``trace_ingest.importers._pipeline``, listed
   in ``trace_ingest.importers.table.IMPORTERS`` (``trail import <id>`` appears by itself).
5. Tests under ``tests/hooks/`` and ``tests/harnesses/`` (the real program is the oracle), and
   a row in docs/sources.md (a test checks it against ``capabilities``).
"""

from __future__ import annotations

TYPE_CHECKING = False  # not `from typing import`: typing costs the hook ~5 ms
if TYPE_CHECKING:
    from typing import Any

HARNESSES: dict[str, str] = {
    "claude-code": "trace_ingest.harnesses.claude_code",
    "copilot-cli": "trace_ingest.harnesses.copilot_cli",
    "vibe": "trace_ingest.harnesses.vibe",
    "vscode": "trace_ingest.harnesses.vscode",
}

HOOK_SOURCE = "hook"
SCOPE_ROOTS = ("project", "home")  # what a settings location is relative to


class Harness:
    """What trail knows about one harness: plain data plus small readers.

    - ``events``: hook event name -> event kind (docs/events.md). The adapter maps these.
    - ``hook_events``: the events ``trail install`` registers (default: every key of
      ``events``; a harness may map legacy names it no longer registers).
    - ``tools``: raw tool name -> canonical tool; ``mcp_prefix``/``mcp_separator``: how an
      MCP tool is named (``mcp__<server>__<tool>`` for Claude Code); ``mcp_parts`` reads it.
    - ``path_keys``: input keys that name the file a tool touched, in order of preference.
    - ``capabilities``: source (``hook``, ``transcript``, ``events-log``, ...) -> what that
      source can ever provide (``trace_ingest.capabilities.CAPABILITY_NAMES``).
    - ``settings``: scope -> ``(root, relative path)`` of the file holding trail's hook
      registration, ``root`` being ``"project"`` or ``"home"``; ``default_scope``;
      ``settings_format`` (``json`` or ``toml``), read by ``trace_ingest.settings_io``.
    - ``probe``: a payload the adapter records, for ``trail doctor``'s probe.
    - ``handlers(settings)``: every ``(event, handler object)`` in a settings object, and
      ``command_of(handler)``: the command a handler runs; together they tell ``registered``
      and ``trail doctor`` which entries are trail's.
    """

    __slots__ = (
        "capabilities",
        "default_scope",
        "events",
        "hook_events",
        "id",
        "mcp_prefix",
        "mcp_separator",
        "name",
        "path_keys",
        "probe",
        "settings",
        "settings_format",
        "tools",
    )

    def __init__(
        self,
        *,
        id: str,
        name: str,
        events: dict[str, str] | None = None,
        hook_events: tuple[str, ...] | None = None,
        tools: dict[str, str] | None = None,
        mcp_prefix: str | None = None,
        mcp_separator: str = "__",
        path_keys: tuple[str, ...] = (),
        capabilities: dict[str, frozenset[str]] | None = None,
        settings: dict[str, tuple[str, str]] | None = None,
        default_scope: str = "project",
        settings_format: str = "json",
        probe: dict[str, Any] | None = None,
    ) -> None:
        self.id = id
        self.name = name
        self.events: dict[str, str] = events or {}
        self.hook_events: tuple[str, ...] = (
            tuple(self.events) if hook_events is None else hook_events
        )
        self.tools: dict[str, str] = tools or {}
        self.mcp_prefix = mcp_prefix
        self.mcp_separator = mcp_separator
        self.path_keys = path_keys
        self.capabilities: dict[str, frozenset[str]] = capabilities or {}
        self.settings: dict[str, tuple[str, str]] = settings or {}
        self.default_scope = default_scope
        self.settings_format = settings_format
        self.probe: dict[str, Any] = probe or {}

    def __repr__(self) -> str:
        return f"<Harness {self.id}>"

    # ---- tools (hot path) -------------------------------------------------------------------

    def canonical(self, name: str | None) -> str:
        """Canonical tool for a raw tool name (``other`` when unknown)."""
        if not name:
            return "other"
        prefix = self.mcp_prefix
        if prefix and name.startswith(prefix):
            return "mcp"
        return self.tools.get(name, "other")

    def mcp_parts(self, name: str | None) -> tuple[str, str] | None:
        """``(server, tool)`` of an MCP tool name, or None when ``name`` is not one."""
        prefix = self.mcp_prefix
        if not name or not prefix or not name.startswith(prefix):
            return None
        server, sep, tool = name[len(prefix) :].partition(self.mcp_separator)
        return (server, tool) if sep else (server, "")

    def tool_path(self, tool_input: Any) -> str | None:
        """The file a tool's input names (the first of ``path_keys`` present), if any."""
        if isinstance(tool_input, dict):
            for key in self.path_keys:
                value = tool_input.get(key)
                if isinstance(value, str) and value:
                    return value
        return None

    def capabilities_of(self, source: str) -> frozenset[str]:
        return self.capabilities.get(source, frozenset())

    @property
    def has_hooks(self) -> bool:
        """trail records this harness's hooks (an adapter and a registrar exist)."""
        return HOOK_SOURCE in self.capabilities

    # ---- registration (cold: install, uninstall, doctor) ------------------------------------

    @property
    def scopes(self) -> tuple[str, ...]:
        return tuple(self.settings)

    def settings_path(self, scope: str, project_dir: str | None = None) -> str:
        """The settings file that holds this harness's hooks for ``scope``."""
        import os

        from trace_ingest.errors import InstallError, UnknownHarness

        if not self.settings:
            raise UnknownHarness(f"registration for {self.id!r} is not supported yet")
        where = self.settings.get(scope)
        if where is None:
            raise InstallError(f"unknown scope {scope!r}; expected one of {self.scopes}")
        root, relative = where
        base = (
            os.path.expanduser("~")
            if root == "home"
            else os.path.abspath(project_dir or os.getcwd())
        )
        return os.path.join(base, *relative.split("/"))

    def handlers(self, settings: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        """Every ``(event, handler object)`` of a settings object (none by default)."""
        return []

    def registration_problem(self, scope: str, project_dir: str | None = None) -> str | None:
        """Why trail's registration in ``scope`` would not load although it is written there
        (``trail doctor`` warns with it), or None. Default: nothing stops it loading."""
        return None

    # A shell suffix trail appends to its own command where a failing hook would block the
    # agent (Copilot CLI denies a tool when its preToolUse command fails or is missing,
    # real-harnesses.md §2.2); empty where the harness fails open.
    guard: str = ""

    def raw_command(self, handler: dict[str, Any]) -> Any:
        """The command string a handler object holds (its ``command`` by default)."""
        return handler.get("command")

    def command_of(self, handler: dict[str, Any]) -> Any:
        """The command a handler runs, without the ``guard`` trail adds to its own exact
        command, so install, uninstall and ``trail doctor`` recognise and probe the command
        itself."""
        command = self.raw_command(handler)
        if self.guard and isinstance(command, str) and command.endswith(self.guard):
            from trace_ingest.settings_io import own_executable

            bare = command[: -len(self.guard)]
            if own_executable(bare, self.id):
                return bare
        return command

    def is_trail_command(self, command: Any) -> bool:
        """A command that mentions ``trail hook <id>`` (trail's own entry, or a wrapper)."""
        return is_trail_command(command, self.id)

    def registered(self, settings: dict[str, Any]) -> dict[str, list[str]]:
        """Event name -> commands that mention ``trail hook <id>`` in a settings object (read
        with ``trace_ingest.settings_io.read_settings``). A mention is not proof of trail's
        own entry: ``settings_io.own_executable`` recognises the exact form."""
        found: dict[str, list[str]] = {}
        for event, handler in self.handlers(settings):
            command = self.command_of(handler)
            if self.is_trail_command(command):
                found.setdefault(event, []).append(command)
        return found


# The suffix that makes a shell command exit 0 whatever the program does (``Harness.guard``).
GUARD = " || true"


_LOADED: dict[str, Harness] = {}


def get(harness: str) -> Harness:
    """The descriptor of ``harness`` (raises UnknownHarness, naming the known ones)."""
    found = _LOADED.get(harness)
    if found is None:
        module = HARNESSES.get(harness)
        if module is None:
            from trace_ingest.errors import UnknownHarness

            raise UnknownHarness(
                f"unknown harness {harness!r}; expected one of {', '.join(HARNESSES)}"
            )
        # __import__, not importlib.import_module: the hook resolves its harness here, and
        # importing importlib costs it `warnings` too (docs/benchmarks.md, "Hook latency").
        descriptor = __import__(module, fromlist=["DESCRIPTOR"]).DESCRIPTOR
        if not isinstance(descriptor, Harness) or descriptor.id != harness:
            raise TypeError(f"{module}.DESCRIPTOR is not the Harness {harness!r}")
        found = _LOADED[harness] = descriptor
    return found


def descriptors() -> list[Harness]:
    """Every harness's descriptor, in table order (cold: imports them all)."""
    return [get(h) for h in HARNESSES]


def canonical_tool(harness: str, name: str | None) -> str:
    """Canonical tool of ``harness``'s raw tool ``name``. A name whose harness is not known
    (``""``, a trace file's) is read with every harness's table, the first that knows it."""
    if harness in HARNESSES:
        return get(harness).canonical(name)
    for descriptor in descriptors():
        found = descriptor.canonical(name)
        if found != "other":
            return found
    return "other"


def mcp_parts(harness: str, name: str | None) -> tuple[str, str] | None:
    """``(server, tool)`` when ``name`` is an MCP tool of ``harness``, else None; a name whose
    harness is not known is read with every harness's MCP rule, the first that matches."""
    if harness in HARNESSES:
        return get(harness).mcp_parts(name)
    for descriptor in descriptors():
        found = descriptor.mcp_parts(name)
        if found is not None:
            return found
    return None


def is_trail_command(command: Any, harness: str) -> bool:
    """A command string that mentions ``trail hook <harness>`` or trail's direct hook
    ``.../hooks/run.py <harness>`` (cold: uses ``re``)."""
    if not isinstance(command, str):
        return False
    import re

    found = re.search(
        r"(?:(?:^|[/\\\s'\"])trail['\"]?\s+hook|/hooks/run\.py['\"]?)\s+(?P<harness>[a-z-]+)\b",
        command,
    )
    return bool(found and found.group("harness") == harness)
