"""Install a pinned real harness into the cache folder, from the package registry.

``python -m tests.harnesses.install [HARNESS ...]`` (default: every pin this installer can
install, see ``INSTALLERS``) prints each program's path. The rig's session-scoped fixtures call
:func:`ensure` too, so ``make test`` and ``.ci/run`` install what is missing. Nothing lands in
the repository.

Cache: ``$TRAIL_HARNESS_CACHE``, else ``$XDG_CACHE_HOME/trail/harnesses``, else
``~/.cache/trail/harnesses``; one folder per pin (``claude-code-2.1.328``). An npm installation
is built in a temporary sibling folder, checked (``--version`` must print the pinned version) and
only then renamed into place, under a lock, so an interrupted or concurrent install never
leaves a half-installed harness that looks complete.

If node or npm, or a Python new enough for a PyPI pin, is missing this fails loudly with what
to install; it never skips.

Copilot CLI: ``@github/copilot`` is a loader for a 189 MB binary that extracts about 235 MB on
its first start, by default to ``$HOME/.cache/copilot/pkg`` (real-harnesses.md §2). The rig's
scratch HOME per run would repeat that every run, so the installer extracts once into the
installation folder (``<install>/pkg-cache``) and :func:`program_env` points every run there
with ``COPILOT_PKG_CACHE_HOME`` (the 1.0.102 loader reads it before ``COPILOT_CACHE_HOME`` and
uses it for the package cache only; ``COPILOT_CACHE_HOME`` also moves other state).

PyPI pins (Mistral Vibe) go into their own virtual environment, ``<pin folder>/venv``, made
with a Python the package supports (Vibe 3.x needs >= 3.12; trail's own venv may be older).
A venv records its absolute path in its scripts, so it cannot be built aside and renamed: it is
built in place under the lock and marked complete (``installed.json``) only after its
``--version`` check passed; a folder without the mark is removed and built again.
"""

from __future__ import annotations

import fcntl
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.harnesses.versions import PINS, Pin

NODE_HINT = (
    "the real-harness tests need Node.js (>= 20) and npm on PATH. "
    "Debian/Ubuntu: `apt-get install -y nodejs npm` (.ci/run does this when it runs as root); "
    "elsewhere: https://nodejs.org or your package manager."
)


PYTHON_HINT = (
    "Mistral Vibe {version} needs Python >= {major}.{minor} to run; none was found (tried "
    "$TRAIL_HARNESS_PYTHON, {names} on PATH and pyenv's versions). Install one and run again: "
    "Debian 13 / Ubuntu 24.04: `apt-get install -y python3.13 python3.13-venv` (or 3.12; "
    ".ci/run does this when it runs as root), pyenv: `pyenv install 3.12`, or point "
    "TRAIL_HARNESS_PYTHON at a python3.12+ executable."
)
# The lowest Python each PyPI pin runs on (PyPI's Requires-Python of the pinned release).
MIN_PYTHON: dict[str, tuple[int, int]] = {"mistral-vibe": (3, 12)}
INSTALLED_MARK = "installed.json"


class HarnessUnavailable(RuntimeError):
    """The pinned harness cannot be installed or run here; the message says what to do."""


def cache_root() -> Path:
    explicit = os.environ.get("TRAIL_HARNESS_CACHE")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "trail" / "harnesses"


def install_dir(pin: Pin) -> Path:
    return cache_root() / pin.folder


def binary(pin: Pin) -> Path:
    return install_dir(pin) / pin.binary


def program_env(pin: Pin, folder: Path | None = None) -> dict[str, str]:
    """What the installed program needs in its environment on every run (besides HOME).

    ``folder`` is the installation folder (default: the cached one).
    """
    where = folder if folder is not None else install_dir(pin)
    if pin.harness == "copilot-cli":
        return {"COPILOT_PKG_CACHE_HOME": str(where / "pkg-cache")}
    return {}


def reports_version(output: str, version: str) -> bool:
    """Does ``--version`` output name ``version``? ("2.1.328 (Claude Code)", "GitHub Copilot
    CLI 1.0.102.")"""
    return re.search(rf"(?<![\w.]){re.escape(version)}(?![\w]|\.\d)", output) is not None


def _version_of(program: Path, extra_env: dict[str, str] | None = None) -> str:
    """``program --version`` in a throwaway HOME (Claude Code writes config files on start)."""
    with tempfile.TemporaryDirectory(prefix="trail-harness-version-") as home:
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "TMPDIR": home}
        env.update(extra_env or {})
        done = subprocess.run(
            [str(program), "--version"],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            check=False,
        )
    return (done.stdout or done.stderr).strip()


def is_installed(pin: Pin) -> bool:
    program = binary(pin)
    if not program.exists():
        return False
    if pin.registry == "pypi" and not (install_dir(pin) / INSTALLED_MARK).exists():
        return False  # a venv an interrupted install left: built again
    try:
        return reports_version(_version_of(program, program_env(pin)), pin.version)
    except (OSError, subprocess.SubprocessError):
        return False


@contextmanager
def _lock(root: Path) -> Iterator[None]:
    root.mkdir(parents=True, exist_ok=True)
    with (root / ".install.lock").open("w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _require(tool: str) -> str:
    found = shutil.which(tool)
    if not found:
        raise HarnessUnavailable(f"{tool} not found on PATH: {NODE_HINT}")
    return found


def _install_npm(pin: Pin, target: Path, log: Path) -> None:
    _require("node")
    npm = _require("npm")
    print(f"installing {pin.spec} into {target} ...", file=sys.stderr, flush=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{pin.folder}-", dir=target.parent))
    try:
        (staging / "package.json").write_text('{"private": true}\n')
        with log.open("w") as out:
            done = subprocess.run(
                [
                    npm,
                    "install",
                    "--prefix",
                    str(staging),
                    "--save-exact",
                    "--no-audit",
                    "--no-fund",
                    "--loglevel=warn",
                    pin.spec,
                ],
                stdout=out,
                stderr=subprocess.STDOUT,
                timeout=900,
                check=False,
            )
        if done.returncode != 0:
            raise HarnessUnavailable(
                f"`npm install {pin.spec}` failed (exit {done.returncode}); see {log}:\n"
                + log.read_text()[-3000:]
            )
        program = staging / pin.binary
        # The first start also extracts what the program unpacks (Copilot CLI: program_env).
        got = _version_of(program, program_env(pin, staging)) if program.exists() else ""
        if not reports_version(got, pin.version):
            raise HarnessUnavailable(
                f"installed {pin.spec} but `{pin.binary} --version` says {got!r}"
                f"{' (missing)' if not program.exists() else ''}; see {log}"
            )
        if target.exists():
            shutil.rmtree(target)
        staging.rename(target)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


def _python_version(python: str) -> tuple[int, int] | None:
    """``(major, minor)`` of a Python executable that can make a venv, or None when it does not
    run (a pyenv shim for a version that is not selected exits 127) or lacks venv/ensurepip."""
    try:
        done = subprocess.run(
            # venv + ensurepip: Debian ships them apart (python3.X-venv); without them the
            # venv for the pin cannot be made.
            [python, "-c", "import sys, venv, ensurepip; print(*sys.version_info[:2])"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    parts = done.stdout.split()
    if done.returncode != 0 or len(parts) != 2 or not all(p.isdigit() for p in parts):
        return None
    return int(parts[0]), int(parts[1])


def _version_key(path: str) -> tuple[int, ...]:
    """``.../versions/3.13.0/bin/python3`` -> ``(3, 13, 0)`` (non-numeric parts sort first)."""
    name = Path(path).parent.parent.name
    return tuple(int(p) if p.isdigit() else -1 for p in name.split("."))


def find_python(minimum: tuple[int, int]) -> str | None:
    """A Python executable of at least ``minimum``: ``$TRAIL_HARNESS_PYTHON``, then
    ``python3.N`` on PATH (newest first), then pyenv's installed versions, then ``python3``."""
    candidates: list[str] = []
    explicit = os.environ.get("TRAIL_HARNESS_PYTHON")
    if explicit:
        candidates.append(explicit)
    for minor in range(20, minimum[1] - 1, -1):
        found = shutil.which(f"python{minimum[0]}.{minor}")
        if found:
            candidates.append(found)
    pyenv_root = os.environ.get("PYENV_ROOT") or str(Path.home() / ".pyenv")
    versions = glob.glob(os.path.join(pyenv_root, "versions", "*", "bin", "python3"))
    candidates += sorted(versions, key=_version_key, reverse=True)
    python3 = shutil.which("python3")
    if python3:
        candidates.append(python3)
    for candidate in candidates:
        version = _python_version(candidate)
        if version is not None and version >= minimum:
            return candidate
    return None


def _install_pypi(pin: Pin, target: Path, log: Path) -> None:
    minimum = MIN_PYTHON.get(pin.package, (3, 11))
    python = find_python(minimum)
    if python is None:
        names = ", ".join(f"python{minimum[0]}.{m}" for m in range(minimum[1], minimum[1] + 3))
        raise HarnessUnavailable(
            PYTHON_HINT.format(version=pin.version, major=minimum[0], minor=minimum[1], names=names)
        )
    print(f"installing {pin.spec} into {target} with {python} ...", file=sys.stderr, flush=True)
    if target.exists():
        shutil.rmtree(target)  # no mark: an interrupted install; start again
    target.mkdir(parents=True)
    venv = target / "venv"
    try:
        with log.open("w") as out:
            steps = [
                [python, "-m", "venv", str(venv)],
                [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", pin.spec],
            ]
            for step in steps:
                done = subprocess.run(
                    step, stdout=out, stderr=subprocess.STDOUT, timeout=900, check=False
                )
                if done.returncode != 0:
                    raise HarnessUnavailable(
                        f"`{' '.join(step[-3:])}` failed (exit {done.returncode}); see {log}:\n"
                        + log.read_text()[-3000:]
                    )
        program = target / pin.binary
        got = _version_of(program) if program.exists() else f"{program} missing"
        if not reports_version(got, pin.version):
            raise HarnessUnavailable(
                f"installed {pin.spec} but `{pin.binary} --version` says {got!r}; see {log}"
            )
        mark = {"spec": pin.spec, "python": python, "version": got}
        (target / INSTALLED_MARK).write_text(json.dumps(mark) + "\n")
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)
        raise


def ensure(harness: str = "claude-code") -> Path:
    """The pinned harness's program, installed first if missing. Raises HarnessUnavailable."""
    pin = PINS[harness]
    if is_installed(pin):
        return binary(pin)
    root = cache_root()
    with _lock(root):
        if is_installed(pin):  # another process finished it while we waited
            return binary(pin)
        installer = INSTALLERS.get(pin.registry)
        if installer is None:
            raise HarnessUnavailable(
                f"{pin.spec}: installing {pin.registry} harnesses is not wired into the rig yet "
                "(docs/testing.md, 'Other harnesses')"
            )
        installer(pin, install_dir(pin), root / f"{pin.folder}.install.log")
    return binary(pin)


# How each registry's pins are installed: (pin, target folder, log file).
INSTALLERS: dict[str, Callable[[Pin, Path, Path], None]] = {
    "npm": _install_npm,
    "pypi": _install_pypi,
}


def default_harnesses() -> list[str]:
    """What ``make harnesses`` installs: every pin whose registry has an installer."""
    return [name for name, pin in PINS.items() if pin.registry in INSTALLERS]


def main(argv: list[str] | None = None) -> int:
    names = (argv if argv is not None else sys.argv[1:]) or default_harnesses()
    status = 0
    for name in names:
        if name not in PINS:
            print(f"unknown harness {name!r}; pinned: {', '.join(PINS)}", file=sys.stderr)
            return 2
        try:
            print(ensure(name))
        except HarnessUnavailable as exc:
            print(f"error: {exc}", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    raise SystemExit(main())
