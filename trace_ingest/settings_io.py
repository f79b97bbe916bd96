"""Reading a harness's settings file safely, and recognising the exact command trail writes.

Shared by ``hooks.install`` (which writes registrations) and ``trail doctor`` (which checks
them). A settings file is untrusted input (a cloned repository's ``.claude/settings.json``): it
is read only if it is a regular file of at most ``MAX_SETTINGS_BYTES`` (never a FIFO, a device
such as ``/dev/zero``, or a huge file), and nothing in it is ever executed.

trail's own handler is recognised by its exact forms, quoted as ``shlex.join`` quotes them,
and nothing else:

- ``<absolute python> -I -S <absolute .../hooks/run.py> <harness>`` (``direct_command``, what
  ``trail install`` registers: the interpreter runs trail's hook module directly, without the
  console script's imports or ``site``; docs/benchmarks.md, "Hook latency");
- ``<absolute path of a trail executable> hook <harness>`` (``own_command``, what earlier
  versions registered, and what ``--executable`` still writes).

A user's hook that merely mentions ``trail hook <harness>`` (a wrapper, a pipeline, an env
assignment) is the user's: install never duplicates it, uninstall never removes it.
"""

from __future__ import annotations

import json
import os
import shlex
import stat
import sys
from typing import Any

from trace_ingest.errors import InstallError

MAX_SETTINGS_BYTES = 16 * 1024 * 1024


def read_settings(path: str, fmt: str = "json") -> dict[str, Any]:
    """The settings object at ``path`` ({} when the file does not exist); ``fmt`` is the
    harness's ``settings_format`` (``json``, or ``toml`` for ``.vibe/hooks.toml``)."""
    text = read_settings_text(path)
    if not text and not os.path.exists(path):
        return {}
    try:
        if fmt == "toml":
            import tomllib  # cold: install and doctor only

            data: Any = tomllib.loads(text)
        else:
            data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise InstallError(f"cannot read {path}: {exc}; fix or move it, then retry") from exc
    if not isinstance(data, dict):
        raise InstallError(f"{path} does not hold a JSON object")
    return data


def read_settings_text(path: str) -> str:
    """The text of the settings file at ``path`` ("" when it does not exist), read with the
    bounds above; for a registrar that edits the file as text (Vibe's hooks.toml)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except FileNotFoundError:
        if os.path.islink(path):
            raise InstallError(
                f"{path} is a symlink to {os.readlink(path)!r}, which does not exist"
            ) from None
        return ""
    except OSError as exc:
        raise InstallError(f"cannot read {path}: {exc.strerror or exc}") from exc
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise InstallError(f"{path} is not a regular file; refusing to read it")
        if st.st_size > MAX_SETTINGS_BYTES:
            raise InstallError(
                f"{path} is {st.st_size} bytes, more than a settings file can be"
                f" ({MAX_SETTINGS_BYTES} bytes); refusing to read it"
            )
        chunks = []
        left = MAX_SETTINGS_BYTES + 1
        while left > 0:
            block = os.read(fd, min(left, 1 << 20))
            if not block:
                break
            chunks.append(block)
            left -= len(block)
        if left <= 0:
            raise InstallError(f"{path} grew past {MAX_SETTINGS_BYTES} bytes while being read")
    except OSError as exc:
        raise InstallError(f"cannot read {path}: {exc.strerror or exc}") from exc
    finally:
        os.close(fd)
    try:
        return b"".join(chunks).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InstallError(f"cannot read {path}: {exc}; fix or move it, then retry") from exc


def own_command(executable: str, harness: str) -> str:
    """The console-script form: ``<trail> hook <harness>``."""
    return shlex.join([executable, "hook", harness])


DIRECT_FLAGS = ("-I", "-S")  # isolated mode, no site (hooks/run.py says why)


def direct_command(python: str, script: str, harness: str) -> str:
    """The direct form ``trail install`` registers: ``<python> -I -S <hooks/run.py> <harness>``."""
    return shlex.join([python, *DIRECT_FLAGS, script, harness])


def hook_script() -> str:
    """This installation's ``hooks/run.py`` (the hooks package sits beside trace_ingest)."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return os.path.join(package, "hooks", "run.py")


def direct_entry() -> tuple[str, str] | None:
    """(interpreter, hook script) of the running installation, when both can be named."""
    python, script = sys.executable, hook_script()
    if not python or not os.path.isabs(python) or not os.path.isfile(script):
        return None
    return python, script


def own_executable(command: object, harness: str) -> str | None:
    """The program of a command in one of trail's exact forms (the trail executable, or the
    interpreter of the direct form), else None."""
    if not isinstance(command, str):
        return None
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    exe = words[0] if words else ""
    if not os.path.isabs(exe):
        return None
    if len(words) == 3 and words[1:] == ["hook", harness]:
        if os.path.basename(exe) != "trail":
            return None
        return exe if own_command(exe, harness) == command else None
    if len(words) == 5 and tuple(words[1:3]) == DIRECT_FLAGS and words[4] == harness:
        script = words[3]
        if not os.path.isabs(script) or not script.endswith(
            os.sep + os.path.join("hooks", "run.py")
        ):
            return None
        return exe if direct_command(exe, script, harness) == command else None
    return None


def trail_executable() -> str:
    """Absolute path of the ``trail`` script of the running installation."""
    candidate = os.path.join(os.path.dirname(sys.executable), "trail")
    if os.path.exists(candidate):
        return candidate
    return os.path.abspath(sys.argv[0])
