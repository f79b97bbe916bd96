"""Registering trail's hook in a harness's settings, and removing exactly that again.

Claude Code (harnesses.md §1.2): ``hooks`` -> event -> matcher groups -> handlers. trail adds
one matcher group per event holding one ``command`` handler, ``async`` (a recorder must not
slow the agent; §1.3) with a short timeout. Every other key, hook and setting is kept as is;
a backup of the previous file is written next to it first.
"""

from __future__ import annotations

import json
import os
import shlex
import time
from dataclasses import dataclass, field
from typing import Any

from trace_ingest.errors import InstallError
from trace_ingest.registry import (
    CLAUDE_EVENTS,
    is_trail_command,
    read_settings,
    registered_commands,
    settings_path,
    trail_executable,
)

HOOK_TIMEOUT_SECONDS = 10


@dataclass
class Change:
    path: str
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    backup: str | None = None
    command: str = ""


def hook_command(harness: str, executable: str | None = None) -> str:
    return f"{shlex.quote(executable or trail_executable())} hook {harness}"


def install(
    harness: str, scope: str, project_dir: str | None = None, executable: str | None = None
) -> Change:
    """Add trail's handler to every recorded event; idempotent."""
    path = settings_path(harness, scope, project_dir)
    settings = read_settings(path)
    command = hook_command(harness, executable)
    change = Change(path=path, command=command)
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise InstallError(f"{path}: 'hooks' is not an object; refusing to touch it")
    present = registered_commands(settings, harness)
    for event in CLAUDE_EVENTS:
        if command in present.get(event, []):
            continue
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise InstallError(f"{path}: hooks.{event} is not a list; refusing to touch it")
        groups.append(
            {
                "hooks": [
                    {
                        "type": "command",
                        "command": command,
                        "async": True,
                        "timeout": HOOK_TIMEOUT_SECONDS,
                    }
                ]
            }
        )
        change.added.append(event)
    if change.added:
        change.backup = _write(path, settings)
    return change


def uninstall(harness: str, scope: str, project_dir: str | None = None) -> Change:
    """Remove every trail handler for ``harness``; other hooks and settings stay untouched."""
    path = settings_path(harness, scope, project_dir)
    settings = read_settings(path)
    change = Change(path=path)
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return change
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept_groups = []
        for group in groups:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(handlers, list):
                kept_groups.append(group)
                continue
            kept = [
                h
                for h in handlers
                if not (isinstance(h, dict) and is_trail_command(h.get("command"), harness))
            ]
            if len(kept) != len(handlers):
                change.removed.append(event)
            if kept:
                kept_groups.append({**group, "hooks": kept})
        if kept_groups:
            hooks[event] = kept_groups
        else:
            del hooks[event]
    if not hooks:
        del settings["hooks"]
    if change.removed:
        change.backup = _write(path, settings)
    return change


def _write(path: str, settings: dict[str, Any]) -> str | None:
    """Back up the old file, then replace it atomically."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    backup = None
    if os.path.exists(path):
        backup = f"{path}.trail-backup-{time.strftime('%Y%m%d-%H%M%S')}"
        # Settings often hold API keys under "env": the backup is private, whatever the
        # original's mode.
        with open(path, "rb") as src:
            content = src.read()
        fd = os.open(backup, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as dst:
            dst.write(content)
    tmp = f"{path}.trail-tmp-{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(settings, fh, indent=2, ensure_ascii=False)
        fh.write("\n")
    if os.path.exists(path):
        os.chmod(tmp, os.stat(path).st_mode & 0o777)
    os.replace(tmp, path)
    return backup
