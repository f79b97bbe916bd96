"""Registering trail's hook in Mistral Vibe's ``hooks.toml``, and removing exactly that again.

Vibe 3.x (real-harnesses.md §1.2) reads ``[[hooks]]`` tables from ``$VIBE_HOME/hooks.toml``
(``--scope user``, the default: it works in every folder) and from ``<project>/.vibe/hooks.toml``
(``--scope project``: loaded only when Vibe trusts the folder; ``trail doctor`` says when it
does not). trail adds one table per hook type (``trail-pre-tool``, ``trail-post-tool``,
``trail-post-agent``) running ``<absolute path>/trail hook vibe``; ``pre_tool``/``post_tool``
without ``match`` see every tool. Vibe runs hooks synchronously and fails open on a timeout, so
a missing trail never blocks a tool call (it shows a warning).

The file is edited as text (``trace_ingest.vibe_hooks_toml``): the user's hooks, comments and
other keys stay byte for byte; a backup of the previous file is written next to it first.
"""

from __future__ import annotations

from hooks import vibe as adapter_module
from hooks._protocols import Adapter
from hooks.install import Change, hook_command, resolve_target, write_settings
from trace_ingest import vibe_hooks_toml as toml_edit
from trace_ingest.errors import InstallError
from trace_ingest.harnesses.table import Harness
from trace_ingest.harnesses.vibe import DESCRIPTOR
from trace_ingest.settings_io import own_executable, read_settings, read_settings_text


class VibeRegistrar:
    """``$VIBE_HOME/hooks.toml`` (user) or ``.vibe/hooks.toml`` (project)."""

    harness: str = DESCRIPTOR.id
    descriptor: Harness = DESCRIPTOR
    adapter: Adapter = adapter_module

    def settings_path(self, scope: str, project_dir: str | None = None) -> str:
        return self.descriptor.settings_path(scope, project_dir)

    def registered(self, scope: str, project_dir: str | None = None) -> dict[str, list[str]]:
        path = self.settings_path(scope, project_dir)
        return self.descriptor.registered(read_settings(path, "toml"))

    def _own(self, command: object) -> bool:
        return own_executable(command, self.harness) is not None

    def install(
        self, scope: str, project_dir: str | None = None, executable: str | None = None
    ) -> Change:
        """Add trail's table for every hook type; idempotent."""
        path = self.settings_path(scope, project_dir)
        target = resolve_target(path, scope, project_dir)
        command = hook_command(self.harness, executable)
        change = Change(path=path, command=command, target=target if target != path else None)
        text = read_settings_text(target)
        try:
            edit = toml_edit.install(text, command, self._own, self.descriptor.is_trail_command)
        except toml_edit.TomlEditError as exc:
            raise InstallError(
                f"{path}: {exc}; not changed (add trail's [[hooks]] tables yourself:"
                " docs/sources.md, Mistral Vibe)"
            ) from None
        change.added, change.updated, change.left = edit.added, edit.updated, edit.left
        if edit.text != text:
            change.backup = write_settings(target, {}, edit.text.encode("utf-8"))
        return change

    def uninstall(self, scope: str, project_dir: str | None = None) -> Change:
        """Remove trail's tables (trail's exact command at any path); nothing else changes."""
        path = self.settings_path(scope, project_dir)
        target = resolve_target(path, scope, project_dir)
        change = Change(path=path, target=target if target != path else None)
        text = read_settings_text(target)
        try:
            edit = toml_edit.uninstall(text, self._own)
        except toml_edit.TomlEditError as exc:
            raise InstallError(
                f"{path}: {exc}; not changed (remove the tables named trail-* yourself)"
            ) from None
        change.removed = edit.removed
        left = toml_edit.registered(toml_edit.parse(edit.text), self.descriptor.is_trail_command)
        change.left = sorted(left)
        if edit.text != text:
            change.backup = write_settings(target, {}, edit.text.encode("utf-8"))
        return change


REGISTRAR: VibeRegistrar = VibeRegistrar()
