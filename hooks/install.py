"""Registering trail's hook in a harness's settings, and removing exactly that again.

Claude Code (harnesses.md §1.2): ``hooks`` -> event -> matcher groups -> handlers. trail adds
one matcher group per event holding one ``command`` handler, ``async`` (a recorder must not
slow the agent; §1.3) with a short timeout. Every other key, hook and setting is kept as is;
a backup of the previous file is written next to it first.

trail's own handler is recognised by the exact command it writes (``trace_ingest.settings_io``):
``<absolute path>/trail hook claude-code`` and nothing else. An event that already has a user's
hook mentioning ``trail hook claude-code`` (a wrapper) is left to it, and uninstall never
removes such a hook.

Writing: a new file is created 0600 (``.claude/`` 0700); an existing file keeps its mode. The
new content goes to a temporary file in the same folder and is renamed over the old one. A
symlinked ``settings.json`` is written through deliberately: its target is updated atomically
in the target's folder (for ``--scope project`` only when the target lies inside the project).
A read-only file or folder, or anything that is not a regular file, is refused untouched.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import time
from dataclasses import dataclass, field
from typing import Any

from trace_ingest.errors import InstallError
from trace_ingest.registry import CLAUDE_EVENTS, is_trail_command, settings_path, trail_executable
from trace_ingest.settings_io import (
    MAX_SETTINGS_BYTES,
    handlers,
    own_command,
    own_executable,
    read_settings,
)

HOOK_TIMEOUT_SECONDS = 10
NEW_FILE_MODE = 0o600
NEW_DIR_MODE = 0o700


@dataclass
class Change:
    path: str
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)  # an older trail path replaced
    left: list[str] = field(default_factory=list)  # events left to the user's own trail hook
    backup: str | None = None
    command: str = ""
    target: str | None = None  # the file written, when ``path`` is a symlink


def hook_command(harness: str, executable: str | None = None) -> str:
    return own_command(executable or trail_executable(), harness)


def install(
    harness: str, scope: str, project_dir: str | None = None, executable: str | None = None
) -> Change:
    """Add trail's handler to every recorded event; idempotent."""
    path = settings_path(harness, scope, project_dir)
    target = _target(path, scope, project_dir)
    settings = read_settings(target)
    command = hook_command(harness, executable)
    change = Change(path=path, command=command, target=target if target != path else None)
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise InstallError(f"{path}: 'hooks' is not an object; refusing to touch it")
    present: dict[str, list[dict[str, Any]]] = {}
    for event, handler in handlers(settings):
        present.setdefault(event, []).append(handler)
    for event in CLAUDE_EVENTS:
        mine = present.get(event, [])
        commands = [h.get("command") for h in mine]
        if command in commands:
            continue
        stale = [h for h in mine if own_executable(h.get("command"), harness)]
        if stale:  # trail's own entry, written by an installation at another path
            stale[0]["command"] = command
            change.updated.append(event)
            continue
        if any(is_trail_command(c, harness) for c in commands):
            change.left.append(event)  # the user's own hook already runs trail
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
    if not hooks and not change.added:
        del settings["hooks"]
    if change.added or change.updated:
        change.backup = _write(target, settings)
    return change


def uninstall(harness: str, scope: str, project_dir: str | None = None) -> Change:
    """Remove every trail handler for ``harness``; other hooks and settings stay untouched."""
    path = settings_path(harness, scope, project_dir)
    target = _target(path, scope, project_dir)
    settings = read_settings(target)
    change = Change(path=path, target=target if target != path else None)
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return change
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept_groups = []
        for group in groups:
            inner = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(inner, list):
                kept_groups.append(group)
                continue
            kept = [
                h
                for h in inner
                if not (isinstance(h, dict) and own_executable(h.get("command"), harness))
            ]
            if len(kept) != len(inner):
                change.removed.append(event)
            elif any(
                isinstance(h, dict) and is_trail_command(h.get("command"), harness) for h in inner
            ):
                change.left.append(event)
            if kept:
                kept_groups.append({**group, "hooks": kept})
        if kept_groups:
            hooks[event] = kept_groups
        else:
            del hooks[event]
    if not hooks:
        del settings["hooks"]
    if change.removed:
        change.backup = _write(target, settings)
    return change


def _target(path: str, scope: str, project_dir: str | None) -> str:
    """The file to read and write for ``path``: itself, or a symlink's target.

    With the project scope, what ``path`` resolves to must lie inside the project, whichever
    component is the link (``settings.json``, or ``.claude/`` itself pointing elsewhere).
    """
    if scope == "project":
        root = os.path.realpath(os.path.abspath(project_dir or os.getcwd()))
        where = os.path.realpath(path)
        if os.path.commonpath([root, where]) != root:
            raise InstallError(
                f"{path} resolves to {where}, outside the project {root} (a symlinked"
                " folder or file); refusing to write there (edit that file yourself, or"
                " replace the link)"
            )
    if not os.path.islink(path):
        return path
    real = os.path.realpath(path)
    if not os.path.exists(real):
        raise InstallError(f"{path} is a symlink to {real}, which does not exist; refusing")
    if not stat.S_ISREG(os.stat(real).st_mode):
        raise InstallError(f"{path} is a symlink to {real}, not a regular file; refusing")
    if scope == "project":
        root = os.path.realpath(os.path.abspath(project_dir or os.getcwd()))
        if os.path.commonpath([root, real]) != root:
            raise InstallError(
                f"{path} is a symlink to {real}, outside the project {root}; refusing to write"
                " there (edit that file yourself, or replace the link with a file)"
            )
    return real


def _write(path: str, settings: dict[str, Any]) -> str | None:
    """Back up the old file, then replace it atomically (same folder, rename)."""
    folder = os.path.dirname(path)
    _ensure_folder(folder)
    mode = NEW_FILE_MODE
    backup = None
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise InstallError(f"cannot write {path}: {exc.strerror or exc}") from exc
    if st is not None:
        if not stat.S_ISREG(st.st_mode):
            raise InstallError(f"{path} is not a regular file; refusing to replace it")
        mode = stat.S_IMODE(st.st_mode)
        if mode & 0o222 == 0 or not os.access(path, os.W_OK):
            raise InstallError(
                f"{path} is read-only (mode {mode:o}); not changed. Make it writable to install,"
                " or edit it yourself"
            )
    fst = os.stat(folder)
    if stat.S_IMODE(fst.st_mode) & 0o222 == 0 or not os.access(folder, os.W_OK):
        raise InstallError(
            f"the folder {folder} is read-only (mode {stat.S_IMODE(fst.st_mode):o}); cannot"
            f" write {os.path.basename(path)} there"
        )
    content = (json.dumps(settings, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    if len(content) > MAX_SETTINGS_BYTES:  # it could never be read back (settings_io)
        raise InstallError(
            f"{path} would be {len(content)} bytes, more than a settings file can be"
            f" ({MAX_SETTINGS_BYTES} bytes); not changed"
        )
    tmp = os.path.join(
        folder, f".{os.path.basename(path)}.trail-tmp-{os.getpid()}-{time.time_ns()}"
    )
    try:
        if st is not None:
            backup = _backup(path)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            os.fchmod(fd, mode)  # the old file's mode, or 0600 whatever the umask
            os.write(fd, content)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise InstallError(f"cannot write {path}: {exc.strerror or exc}; not changed") from exc
    return backup


def _backup(path: str) -> str:
    """A private copy of ``path`` under a name no other backup has (microsecond stamp)."""
    with open(path, "rb") as src:
        content = src.read()
    stamp = time.strftime("%Y%m%d-%H%M%S") + f".{time.time_ns() // 1000 % 1_000_000:06d}"
    for n in range(100):
        name = f"{path}.trail-backup-{stamp}" + (f"-{n}" if n else "")
        try:
            # Settings often hold API keys under "env": the backup is private, whatever the
            # original's mode.
            fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        except FileExistsError:
            continue
        try:
            with os.fdopen(fd, "wb") as dst:
                dst.write(content)
        except OSError:
            # A full disk: no partial backup is left to be mistaken for the original.
            with contextlib.suppress(OSError):
                os.unlink(name)
            raise
        return name
    raise InstallError(f"cannot name a backup of {path}: 100 backups share one microsecond")


def _ensure_folder(folder: str) -> None:
    """Create the settings folder (0700, whatever the umask) if it is missing."""
    if os.path.isdir(folder):
        return
    parent = os.path.dirname(folder)
    if not os.path.isdir(parent):
        raise InstallError(f"cannot create {folder}: {parent} does not exist")
    pmode = stat.S_IMODE(os.stat(parent).st_mode)
    if pmode & 0o222 == 0 or not os.access(parent, os.W_OK):
        raise InstallError(f"cannot create {folder}: {parent} is read-only (mode {pmode:o})")
    try:
        os.mkdir(folder, NEW_DIR_MODE)
        os.chmod(folder, NEW_DIR_MODE)
    except FileExistsError:
        pass
    except OSError as exc:
        raise InstallError(f"cannot create {folder}: {exc.strerror or exc}") from exc
