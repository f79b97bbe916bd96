"""Registering trail's hook in a harness's settings: the table of registrars and what they share.

Each harness has a registrar in ``hooks/registrars/<mod>.py`` (``hooks._protocols.Registrar``),
listed in ``REGISTRARS``; ``install``/``uninstall`` below dispatch to it. What every registrar
shares lives here: the ``Change`` it reports, the exact command it registers
(``hook_command``), where a symlinked settings file may be written (``resolve_target``) and the
backup + atomic write (``write_settings``).

Writing: a new file is created 0600 (its folder 0700); an existing file keeps its mode. The
new content goes to a temporary file in the same folder and is renamed over the old one. A
symlinked settings file is written through deliberately: its target is updated atomically
in the target's folder (for ``--scope project`` only when the target lies inside the project).
A read-only file or folder, or anything that is not a regular file, is refused untouched.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from trace_ingest.errors import InstallError, UnknownHarness
from trace_ingest.harnesses.table import Harness
from trace_ingest.settings_io import (
    MAX_SETTINGS_BYTES,
    direct_command,
    direct_entry,
    own_command,
    own_executable,
    trail_executable,
)

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
    note: str | None = None  # why nothing was added (a registration that already covers it)


def hook_command(harness: str, executable: str | None = None) -> str:
    """The command to register: this installation's interpreter running ``hooks/run.py``
    directly (``settings_io.direct_command``: no console script, no ``site``); with
    ``executable`` (a trail console script), or where the interpreter cannot be named,
    ``<trail> hook <harness>``."""
    if executable is None:
        entry = direct_entry()
        if entry is not None:
            return direct_command(*entry, harness)
    return own_command(executable or trail_executable(), harness)


def registrar(harness: str) -> Registrar:
    """The registrar of ``harness`` (raises UnknownHarness for one trail cannot install)."""
    found = REGISTRARS.get(harness)
    if found is None:
        raise UnknownHarness(
            f"registration for {harness!r} is not supported yet"
            f" (supported: {', '.join(REGISTRARS)})"
        )
    return found


TRANSPORTS = ("process", "http")


def install(
    harness: str,
    scope: str,
    project_dir: str | None = None,
    executable: str | None = None,
    transport: str = "process",
    port: int | None = None,
) -> Change:
    """Add trail's handler to every event ``harness`` records; idempotent.

    ``transport="http"`` registers http hooks for ``trail collect`` on ``port`` instead
    (Claude Code only: docs/collector.md)."""
    found = registrar(harness)
    if transport == "process":
        return found.install(scope, project_dir, executable)
    install_http = getattr(found, "install_http", None)
    if transport != "http" or install_http is None:
        raise InstallError(
            f"--transport {transport} is not supported for {harness}"
            " (http hooks: claude-code only; the others run a process hook)"
        )
    change: Change = install_http(scope, project_dir, port, executable)
    return change


def uninstall(harness: str, scope: str, project_dir: str | None = None) -> Change:
    """Remove every trail handler for ``harness``; other hooks and settings stay untouched."""
    return registrar(harness).uninstall(scope, project_dir)


def resolve_target(path: str, scope: str, project_dir: str | None) -> str:
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


def write_settings(path: str, settings: dict[str, Any], content: bytes | None = None) -> str | None:
    """Back up the old file, then replace it atomically (same folder, rename).

    ``content`` is the file's new bytes when the harness's format is not JSON (a TOML
    registrar renders its own); by default ``settings`` is written as indented JSON.
    """
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
    if content is None:
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


def events_to_add(
    descriptor: Harness, settings: dict[str, Any], command: str, change: Change
) -> list[str]:
    """The events of ``descriptor.hook_events`` whose handlers in ``settings`` lack trail's
    ``command``. trail's entry written by an installation at another path is updated in place
    (``change.updated``); an event a user's own hook already runs trail for is left to it
    (``change.left``). Shared by the registrars whose settings are JSON handler objects."""
    present: dict[str, list[dict[str, Any]]] = {}
    for event, handler in descriptor.handlers(settings):
        present.setdefault(event, []).append(handler)
    missing = []
    for event in descriptor.hook_events:
        mine = present.get(event, [])
        if command in (descriptor.raw_command(h) for h in mine):
            continue
        commands = [descriptor.command_of(h) for h in mine]
        stale = [h for h in mine if own_executable(descriptor.command_of(h), descriptor.id)]
        if stale:  # trail's own entry, written by an installation at another path
            stale[0]["command"] = command
            change.updated.append(event)
        elif any(descriptor.is_trail_command(c) for c in commands):
            change.left.append(event)  # the user's own hook already runs trail
        else:
            missing.append(event)
    return missing


def own_handler(handler: dict[str, Any], descriptor: Harness) -> bool:
    """A handler object running trail's exact command for ``descriptor``."""
    return bool(own_executable(descriptor.command_of(handler), descriptor.id))


def without_own(
    handlers: list[Any], descriptor: Harness, is_own: Callable[[dict[str, Any]], bool] | None = None
) -> tuple[list[Any], bool, bool]:
    """``(handlers without trail's exact entries, any removed, a user's own trail hook left)``.
    ``is_own``: which handlers are trail's to remove (default: trail's exact command,
    ``own_handler``; the Claude Code registrar adds its http hooks)."""
    own = is_own or (lambda h: own_handler(h, descriptor))
    kept = [h for h in handlers if not (isinstance(h, dict) and own(h))]
    removed = len(kept) != len(handlers)
    left = not removed and any(
        isinstance(h, dict) and descriptor.is_trail_command(descriptor.command_of(h))
        for h in handlers
    )
    return kept, removed, left


def remove_own(
    settings: dict[str, Any],
    descriptor: Harness,
    change: Change,
    is_own: Callable[[dict[str, Any]], bool] | None = None,
) -> None:
    """Remove trail's exact handlers (``without_own``) from every event of
    ``settings["hooks"]``: flat handler objects and Claude-format matcher groups holding
    ``hooks`` alike, in place and in order. Groups, events and ``hooks`` itself left empty go;
    each event is recorded once in ``change.removed``, or in ``change.left`` when only a
    user's own trail hook is there; ``is_own`` as for ``without_own``. Shared by the JSON
    registrars."""
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return
    for event in list(hooks):
        entries = hooks[event]
        if not isinstance(entries, list):
            continue
        kept: list[Any] = []
        removed = left = False
        for entry in entries:
            inner = entry.get("hooks") if isinstance(entry, dict) else None
            if isinstance(inner, list):
                handlers, gone, mine = without_own(inner, descriptor, is_own)
                if handlers:
                    kept.append({**entry, "hooks": handlers})
            else:
                handlers, gone, mine = without_own([entry], descriptor, is_own)
                kept += handlers
            removed, left = removed or gone, left or mine
        if removed:
            change.removed.append(event)
        elif left:
            change.left.append(event)
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    if not hooks:
        del settings["hooks"]


# The table of registrars, typed so mypy checks every registrar (and, through its ``adapter``,
# every adapter module) against the Protocols. Imported last: registrars use the helpers above.
from hooks._protocols import Registrar  # noqa: E402
from hooks.registrars import claude_code, copilot_cli, vibe, vscode  # noqa: E402

REGISTRARS: dict[str, Registrar] = {
    "claude-code": claude_code.REGISTRAR,
    "copilot-cli": copilot_cli.REGISTRAR,
    "vibe": vibe.REGISTRAR,
    "vscode": vscode.REGISTRAR,
}
