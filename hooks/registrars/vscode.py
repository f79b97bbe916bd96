"""Registering trail's hook for VS Code, and removing exactly that again.

VS Code reads agent hooks from the folders in ``chat.hookFilesLocations``; its default list
holds ``.github/hooks`` (project), ``~/.copilot/hooks`` (user) and Claude Code's settings files
(NC §1.3, ``microsoft/vscode-docs`` ``docs/agent-customization/hooks.md``). trail writes a file
of its own there, ``trail-vscode.json``, in VS Code's hook format::

    {"hooks": {"PreToolUse": [{"type": "command", "command": "/abs/trail hook vscode",
                               "cwd": ".", "timeout": 10}], ...}}

for the eight events the Local harness fires (``trace_ingest/harnesses/vscode.py``
``HOOK_EVENTS``). A user's own entries in that file are kept; uninstall removes only trail's
exact command (``trace_ingest.settings_io.own_executable``) and deletes nothing else.

**Already recorded through Claude Code's settings.** VS Code also runs the hooks in
``.claude/settings.json`` / ``~/.claude/settings.json``, and ``hooks/sender.py`` files a VS Code
payload that reached ``trail hook claude-code`` under VS Code. When trail is installed for
Claude Code in the same scope, VS Code is therefore already recorded, and a second entry would
record every VS Code event twice: install then adds nothing and says why.

**Copilot CLI reads the same folders** (``.github/hooks`` in a trusted repository,
``~/.copilot/hooks`` always; real-harnesses.md §2.2): it runs this file's commands too, and the
sender sniff files those payloads under Copilot CLI. A repository-level file is also loaded by
the Copilot cloud agent, where ``trail`` is missing and a failing ``preToolUse`` denies the
tool (NC §1.1): do not commit ``.github/hooks/trail-vscode.json`` (docs/install.md).
"""

from __future__ import annotations

import os
from typing import Any

from hooks import vscode as adapter_module
from hooks._protocols import Adapter
from hooks.install import (
    Change,
    events_to_add,
    hook_command,
    remove_own,
    resolve_target,
    write_settings,
)
from trace_ingest.errors import InstallError
from trace_ingest.harnesses.table import Harness, get
from trace_ingest.harnesses.vscode import DESCRIPTOR
from trace_ingest.settings_io import own_executable, read_settings

HOOK_TIMEOUT_SECONDS = 10


class VSCodeRegistrar:
    """``.github/hooks/trail-vscode.json`` (project) or ``~/.copilot/hooks/trail-vscode.json``."""

    harness: str = DESCRIPTOR.id
    descriptor: Harness = DESCRIPTOR
    adapter: Adapter = adapter_module

    def settings_path(self, scope: str, project_dir: str | None = None) -> str:
        return self.descriptor.settings_path(scope, project_dir)

    def registered(self, scope: str, project_dir: str | None = None) -> dict[str, list[str]]:
        return self.descriptor.registered(read_settings(self.settings_path(scope, project_dir)))

    def covered_by_claude(self, scope: str, project_dir: str | None = None) -> str | None:
        """Claude Code's settings file of ``scope`` when it holds trail's own Claude Code hook
        (VS Code runs it, so VS Code is recorded already), else None."""
        claude = get("claude-code")
        path = claude.settings_path(scope, project_dir)
        try:
            settings = read_settings(path)
        except InstallError:
            return None
        for _event, handler in claude.handlers(settings):
            if own_executable(claude.command_of(handler), claude.id):
                return path
        return None

    def install(
        self, scope: str, project_dir: str | None = None, executable: str | None = None
    ) -> Change:
        """Add trail's handler for every Local event; idempotent."""
        harness = self.harness
        path = self.settings_path(scope, project_dir)
        command = hook_command(harness, executable) + self.descriptor.guard
        covered = self.covered_by_claude(scope, project_dir)
        if covered and not os.path.exists(path):
            change = Change(path=path, command=command)
            change.left = list(self.descriptor.hook_events)
            change.note = (
                f"VS Code already runs trail's Claude Code hook in {covered} and trail files those "
                "payloads under vscode; a second entry would record every VS Code event twice"
            )
            return change
        target = resolve_target(path, scope, project_dir)
        settings = read_settings(target)
        change = Change(path=path, command=command, target=target if target != path else None)
        hooks = settings.setdefault("hooks", {})
        if not isinstance(hooks, dict):
            raise InstallError(f"{path}: 'hooks' is not an object; refusing to touch it")
        for event in events_to_add(self.descriptor, settings, command, change):
            entries = hooks.setdefault(event, [])
            if not isinstance(entries, list):
                raise InstallError(f"{path}: hooks.{event} is not a list; refusing to touch it")
            entry: dict[str, Any] = {"type": "command", "command": command}
            if scope == "project":
                # VS Code sends ``cwd`` only for a handler that sets one (relative to the
                # repository root; chatHookServiceImpl), and runs it in $HOME otherwise: "."
                # makes every payload name the project.
                entry["cwd"] = "."
            entry["timeout"] = HOOK_TIMEOUT_SECONDS
            entries.append(entry)
            change.added.append(event)
        if change.added or change.updated:
            # .github/ (or ~/.copilot/) may not exist yet; write_settings makes hooks/ itself.
            grand = os.path.dirname(os.path.dirname(target))
            try:
                os.makedirs(grand, exist_ok=True)
            except OSError as exc:
                raise InstallError(f"cannot create {grand}: {exc.strerror or exc}") from exc
            change.backup = write_settings(target, settings)
        return change

    def uninstall(self, scope: str, project_dir: str | None = None) -> Change:
        """Remove every trail handler from trail's VS Code hook file (flat handlers or
        Claude-format groups); nothing else changes."""
        path = self.settings_path(scope, project_dir)
        target = resolve_target(path, scope, project_dir)
        settings = read_settings(target)
        change = Change(path=path, target=target if target != path else None)
        remove_own(settings, self.descriptor, change)
        if change.removed:
            change.backup = write_settings(target, settings)
        return change


REGISTRAR: VSCodeRegistrar = VSCodeRegistrar()
