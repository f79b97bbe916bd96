"""Registering trail's hook in Claude Code's settings, and removing exactly that again.

Claude Code (harnesses.md §1.2): ``hooks`` -> event -> matcher groups -> handlers. trail adds
one matcher group per event holding one ``command`` handler, ``async`` (a recorder must not
slow the agent; §1.3) with a short timeout, except ``Stop``, which runs in the foreground:

- ``claude -p`` tears down right after ``Stop`` fires and cancels every async hook still
  running then; whenever one is, it takes about 1.5 s longer to exit (Claude Code 2.1.328,
  observed with any async command, even ``exec sleep 5``: docs/benchmarks.md, "Agent wall
  time"), and an async ``Stop`` is usually one of them, so its event is lost as well
  (docs/testing.md, "What the rig has shown").
- A foreground ``Stop`` costs one hook call (~10-20 ms) per turn, once the agent is done with
  the turn; no tool call waits for it, and the async hooks started before it finish meanwhile.
  It exits 0 and prints nothing, so Claude stops as it would without it.

``install_http`` (``trail install --transport http``) registers ``"type": "http"`` handlers
posting to ``trail collect`` instead (docs/collector.md): Claude Code then starts no process
per event. Claude Code sends no http hook for ``SessionStart`` (2.1.328 skips them: "HTTP hooks
are not supported for SessionStart"), so that one event keeps the process hook. The http
handler's ``timeout`` bounds what a collector that accepts but never answers costs each
event; a collector that is not running costs nothing (the connection is refused at once).
Installing either transport replaces trail's handlers of the other one.

Every other key, hook and setting is kept as is; a backup of the previous file is written
next to it first (``hooks.install.write_settings``).

trail's own handler is recognised by the exact command it writes (``trace_ingest.settings_io``):
the direct form ``<python> -I -S <.../hooks/run.py> claude-code``, or the console-script form
``<absolute path>/trail hook claude-code`` earlier versions wrote, and nothing else. An event
that already has a user's hook mentioning trail's hook (a wrapper) is left to it, and
uninstall never removes such a hook. The events registered are the descriptor's ``hook_events``
(``trace_ingest/harnesses/claude_code.py``), which are the events the adapter maps.
"""

from __future__ import annotations

from typing import Any

from hooks import claude_code as adapter_module
from hooks._protocols import Adapter
from hooks.install import (
    Change,
    events_to_add,
    hook_command,
    own_handler,
    remove_own,
    resolve_target,
    write_settings,
)
from trace_ingest import collector_address
from trace_ingest.errors import InstallError
from trace_ingest.harnesses.claude_code import DESCRIPTOR
from trace_ingest.harnesses.table import Harness
from trace_ingest.settings_io import read_settings

HOOK_TIMEOUT_SECONDS = 10
FOREGROUND_EVENTS = frozenset({"Stop"})  # see the module docstring
FOREGROUND_TIMEOUT_SECONDS = 5  # the most a stuck recorder may hold the end of a turn


HTTP_TIMEOUT_SECONDS = 1  # what a hung collector may cost each event (docs/collector.md)
PROCESS_ONLY_EVENTS = frozenset({"SessionStart"})  # no http hook runs for it (module docstring)


def http_handler(url: str) -> dict[str, Any]:
    """trail's http handler object (``trail collect`` at ``url``)."""
    # onFailure "continue" is Claude Code's default (2.1.328: "'continue' (default): the failure
    # is reported and the action goes ahead"); written out so the fail-open promise does not
    # rest on a default.
    return {"type": "http", "url": url, "timeout": HTTP_TIMEOUT_SECONDS, "onFailure": "continue"}


def own_http(handler: dict[str, Any]) -> bool:
    """One of trail's own http handlers: exactly trail's collector URL, at any port."""
    return collector_address.own_http(handler, DESCRIPTOR.id)


def handler_for(event: str, command: str) -> dict[str, Any]:
    """trail's handler object for ``event``: async, or in the foreground for ``Stop``."""
    if event in FOREGROUND_EVENTS:
        return {"type": "command", "command": command, "timeout": FOREGROUND_TIMEOUT_SECONDS}
    return {"type": "command", "command": command, "async": True, "timeout": HOOK_TIMEOUT_SECONDS}


def _restate(handler: dict[str, Any], event: str, command: str) -> bool:
    """Bring one of trail's own handlers to what this version registers; True if changed."""
    wanted = handler_for(event, command)
    flags = ("command", "async", "timeout")
    if all(handler.get(k) == wanted.get(k) for k in flags):
        return False
    for key in flags:
        if key in wanted:
            handler[key] = wanted[key]
        else:
            handler.pop(key, None)
    return True


class ClaudeCodeRegistrar:
    """``.claude/settings.json`` (project) or ``~/.claude/settings.json`` (user)."""

    harness: str = DESCRIPTOR.id
    descriptor: Harness = DESCRIPTOR
    adapter: Adapter = adapter_module

    def settings_path(self, scope: str, project_dir: str | None = None) -> str:
        return self.descriptor.settings_path(scope, project_dir)

    def _own(self, handler: dict[str, Any]) -> bool:
        """trail's handler of either transport."""
        return own_handler(handler, self.descriptor) or own_http(handler)

    def registered(self, scope: str, project_dir: str | None = None) -> dict[str, list[str]]:
        return self.descriptor.registered(read_settings(self.settings_path(scope, project_dir)))

    def install(
        self, scope: str, project_dir: str | None = None, executable: str | None = None
    ) -> Change:
        """Add trail's handler to every recorded event; idempotent."""
        harness = self.harness
        path = self.settings_path(scope, project_dir)
        target = resolve_target(path, scope, project_dir)
        settings = read_settings(target)
        command = hook_command(harness, executable)
        change = Change(path=path, command=command, target=target if target != path else None)
        hooks = settings.setdefault("hooks", {})
        if not isinstance(hooks, dict):
            raise InstallError(f"{path}: 'hooks' is not an object; refusing to touch it")
        # http handlers of an earlier `--transport http` install: replaced by the process hook.
        switched = Change(path=path)
        remove_own(settings, self.descriptor, switched, is_own=own_http)
        hooks = settings.setdefault("hooks", {})
        missing = events_to_add(self.descriptor, settings, command, change)
        for event, handler in self.descriptor.handlers(settings):
            # trail's own entries (updated above, or written by an earlier version): the
            # flags this version registers (Stop in the foreground).
            ours = handler.get("command") == command
            if ours and _restate(handler, event, command) and event not in change.updated:
                change.updated.append(event)
        for event in missing:
            groups = hooks.setdefault(event, [])
            if not isinstance(groups, list):
                raise InstallError(f"{path}: hooks.{event} is not a list; refusing to touch it")
            groups.append({"hooks": [handler_for(event, command)]})
            change.added.append(event)
        for event in switched.removed:  # trail's http handler became the process hook
            if event in change.added:
                change.added.remove(event)
                change.updated.append(event)
        if not hooks and not change.added:
            del settings["hooks"]
        if change.added or change.updated:
            change.backup = write_settings(target, settings)
        return change

    def install_http(
        self,
        scope: str,
        project_dir: str | None = None,
        port: int | None = None,
        executable: str | None = None,
    ) -> Change:
        """Register http handlers posting to ``trail collect`` on ``port`` for every recorded
        event but ``PROCESS_ONLY_EVENTS`` (which keep the process hook); idempotent. trail's
        handlers already there (either transport, any port) are replaced in place of none."""
        harness = self.harness
        path = self.settings_path(scope, project_dir)
        target = resolve_target(path, scope, project_dir)
        settings = read_settings(target)
        command = hook_command(harness, executable)
        url = collector_address.url_for(
            harness, collector_address.DEFAULT_PORT if port is None else port
        )
        change = Change(path=path, command=url, target=target if target != path else None)
        hooks = settings.get("hooks", {})
        if not isinstance(hooks, dict):
            raise InstallError(f"{path}: 'hooks' is not an object; refusing to touch it")
        wanted = {
            event: handler_for(event, command)
            if event in PROCESS_ONLY_EVENTS
            else http_handler(url)
            for event in self.descriptor.hook_events
        }
        before: dict[str, list[dict[str, Any]]] = {}
        for event, handler in self.descriptor.handlers(settings):
            if self._own(handler):
                before.setdefault(event, []).append(handler)
        if all(before.get(event) == [h] for event, h in wanted.items()) and len(before) == len(
            wanted
        ):
            return change  # exactly this registration already
        gone = Change(path=path)
        remove_own(settings, self.descriptor, gone, is_own=self._own)
        hooks = settings.setdefault("hooks", {})
        for event, handler in wanted.items():
            if event in gone.left:
                change.left.append(event)  # the user's own hook already runs trail
                continue
            groups = hooks.setdefault(event, [])
            if not isinstance(groups, list):
                raise InstallError(f"{path}: hooks.{event} is not a list; refusing to touch it")
            groups.append({"hooks": [handler]})
            if before.get(event) != [handler]:
                (change.updated if event in before else change.added).append(event)
        change.removed = [e for e in gone.removed if e not in wanted]
        if not hooks:
            del settings["hooks"]
        change.backup = write_settings(target, settings)
        return change

    def uninstall(self, scope: str, project_dir: str | None = None) -> Change:
        """Remove every trail handler for Claude Code; other hooks and settings stay."""
        path = self.settings_path(scope, project_dir)
        target = resolve_target(path, scope, project_dir)
        settings = read_settings(target)
        change = Change(path=path, target=target if target != path else None)
        remove_own(settings, self.descriptor, change, is_own=self._own)
        if change.removed:
            change.backup = write_settings(target, settings)
        return change


REGISTRAR: ClaudeCodeRegistrar = ClaudeCodeRegistrar()
