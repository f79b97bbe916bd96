"""Registering trail's hook with GitHub Copilot CLI, and removing exactly that again.

Copilot reads every ``*.json`` in ``$COPILOT_HOME/hooks/`` (user level, loaded with no flag) and
in a repository's ``.github/hooks/`` (loaded only for a trusted folder: ``--trust-folder`` or
``COPILOT_ALLOW_ALL``; otherwise silently ignored), real-harnesses.md §2.2. trail writes its
own file, ``trail.json``, in one of them: ``{"version": 1, "hooks": {"<event>": [{"type":
"command", "bash": …, "timeoutSec": 10}]}}`` for each camelCase event the adapter maps.

**The command never blocks a tool call.** A ``preToolUse`` command that fails or is missing
*denies the tool* ("Denied by preToolUse hook … (hook errored)", observed on 1.0.102), so a
plain ``trail hook copilot-cli`` would block every tool call once trail is uninstalled or its
folder moved. trail's command is its usual hook command (the direct ``<python> -I -S
<hooks/run.py> copilot-cli``, or ``'<absolute path>/trail' hook copilot-cli``) followed by
``|| true``: the hook itself always exits 0, and if the program is gone the shell's
``|| true`` still exits 0
(tests/harnesses/test_copilot_cli.py runs the real CLI with the program removed). Copilot runs
command hooks synchronously, so each adds the hook's run time to its event (timeouts are
fail-open).

trail's entries are recognised by that exact form (``own_executable``); anything else in
``trail.json`` (a user's own hook added there) is kept. Uninstall removes trail's entries and
deletes ``trail.json`` when nothing else is left in it.
"""

from __future__ import annotations

import os
from typing import Any

from hooks import copilot_cli as adapter_module
from hooks._protocols import Adapter
from hooks.install import Change, hook_command, remove_own, resolve_target, write_settings
from trace_ingest.errors import InstallError
from trace_ingest.harnesses.copilot_cli import DESCRIPTOR
from trace_ingest.harnesses.table import GUARD, Harness
from trace_ingest.settings_io import own_executable as _exact
from trace_ingest.settings_io import read_settings

HOOK_TIMEOUT_SECONDS = 10
FILE_VERSION = 1


def own_command(executable: str | None = None) -> str:
    """The exact command ``trail install --harness copilot-cli`` registers: trail's hook command
    (``hooks.install.hook_command``: the direct ``<python> -I -S <hooks/run.py> copilot-cli``,
    or ``<trail> hook copilot-cli`` for a given ``executable``) and the guard."""
    return hook_command(DESCRIPTOR.id, executable) + GUARD


def own_executable(command: object) -> str | None:
    """The trail executable of a command in trail's exact Copilot form, else None."""
    if not isinstance(command, str) or not command.endswith(GUARD):
        return None
    return _exact(command[: -len(GUARD)], DESCRIPTOR.id)


class CopilotCliRegistrar:
    """``$COPILOT_HOME/hooks/trail.json`` (user, the default) or ``.github/hooks/trail.json``."""

    harness: str = DESCRIPTOR.id
    descriptor: Harness = DESCRIPTOR
    adapter: Adapter = adapter_module

    def settings_path(self, scope: str, project_dir: str | None = None) -> str:
        return self.descriptor.settings_path(scope, project_dir)

    def registered(self, scope: str, project_dir: str | None = None) -> dict[str, list[str]]:
        return self.descriptor.registered(read_settings(self.settings_path(scope, project_dir)))

    def install(
        self, scope: str, project_dir: str | None = None, executable: str | None = None
    ) -> Change:
        """Add trail's handler for every camelCase event; idempotent."""
        path = self.settings_path(scope, project_dir)
        target = resolve_target(path, scope, project_dir)
        settings = read_settings(target)
        command = own_command(executable)
        change = Change(path=path, command=command, target=target if target != path else None)
        if settings.get("disableAllHooks") is True:
            raise InstallError(
                f"{path} sets disableAllHooks: Copilot would run none of its hooks;"
                " remove that key (or the file) first"
            )
        settings.setdefault("version", FILE_VERSION)
        hooks = settings.setdefault("hooks", {})
        if not isinstance(hooks, dict):
            raise InstallError(f"{path}: 'hooks' is not an object; refusing to touch it")
        present: dict[str, list[dict[str, Any]]] = {}
        for event, handler in self.descriptor.handlers(settings):
            present.setdefault(event, []).append(handler)
        for event in self.descriptor.hook_events:
            mine = present.get(event, [])
            commands = [DESCRIPTOR.raw_command(h) for h in mine]
            if command in commands:
                continue
            stale = [h for h in mine if own_executable(DESCRIPTOR.raw_command(h))]
            if stale:  # trail's own entry, written by an installation at another path
                stale[0]["bash"] = command
                change.updated.append(event)
                continue
            if any(self.descriptor.is_trail_command(c) for c in commands):
                change.left.append(event)  # the user's own hook already runs trail
                continue
            entries = hooks.setdefault(event, [])
            if not isinstance(entries, list):
                raise InstallError(f"{path}: hooks.{event} is not a list; refusing to touch it")
            entries.append({"type": "command", "bash": command, "timeoutSec": HOOK_TIMEOUT_SECONDS})
            change.added.append(event)
        if change.added or change.updated:
            # ~/.copilot (Copilot never run yet) or the repository's .github may be missing:
            # the shared writer creates the hooks folder itself, 0700.
            os.makedirs(os.path.dirname(os.path.dirname(target)), mode=0o700, exist_ok=True)
            change.backup = write_settings(target, settings)
        return change

    def uninstall(self, scope: str, project_dir: str | None = None) -> Change:
        """Remove every trail handler; a ``trail.json`` left with nothing else is deleted."""
        path = self.settings_path(scope, project_dir)
        target = resolve_target(path, scope, project_dir)
        settings = read_settings(target)
        change = Change(path=path, target=target if target != path else None)
        remove_own(settings, self.descriptor, change)
        if not change.removed:
            return change
        change.backup = write_settings(target, settings)  # the backup keeps what it held
        if set(settings) <= {"version"}:
            os.unlink(target)
        return change


REGISTRAR: CopilotCliRegistrar = CopilotCliRegistrar()
