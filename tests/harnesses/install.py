"""Install a pinned real harness into the cache folder, from the package registry.

``python -m tests.harnesses.install [HARNESS ...]`` (default: claude-code) prints the program's
path. The session-scoped ``claude_binary`` fixture calls :func:`ensure` too, so ``make test``
and ``.ci/run`` install what is missing. Nothing lands in the repository.

Cache: ``$TRAIL_HARNESS_CACHE``, else ``$XDG_CACHE_HOME/trail/harnesses``, else
``~/.cache/trail/harnesses``; one folder per pin (``claude-code-2.1.328``). An installation is
built in a temporary sibling folder, checked (``--version`` must print the pinned version) and
only then renamed into place, under a lock, so an interrupted or concurrent install never
leaves a half-installed harness that looks complete.

If node or npm is missing this fails loudly with what to install; it never skips.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.harnesses.versions import PINS, Pin

NODE_HINT = (
    "the real-harness tests need Node.js (>= 20) and npm on PATH. "
    "Debian/Ubuntu: `apt-get install -y nodejs npm` (.ci/run does this when it runs as root); "
    "elsewhere: https://nodejs.org or your package manager."
)


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


def _version_of(program: Path) -> str:
    """``program --version`` in a throwaway HOME (Claude Code writes config files on start)."""
    with tempfile.TemporaryDirectory(prefix="trail-harness-version-") as home:
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "TMPDIR": home}
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
    try:
        return _version_of(program).split()[:1] == [pin.version]
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
        got = _version_of(program) if program.exists() else f"{program} missing"
        if got.split()[:1] != [pin.version]:
            raise HarnessUnavailable(
                f"installed {pin.spec} but `{pin.binary} --version` says {got!r}; see {log}"
            )
        if target.exists():
            shutil.rmtree(target)
        staging.rename(target)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


def ensure(harness: str = "claude-code") -> Path:
    """The pinned harness's program, installed first if missing. Raises HarnessUnavailable."""
    pin = PINS[harness]
    if is_installed(pin):
        return binary(pin)
    root = cache_root()
    with _lock(root):
        if is_installed(pin):  # another process finished it while we waited
            return binary(pin)
        if pin.registry != "npm":
            raise HarnessUnavailable(
                f"{pin.spec}: installing {pin.registry} harnesses is not wired into the rig yet "
                "(docs/testing.md, 'Other harnesses')"
            )
        _install_npm(pin, install_dir(pin), root / f"{pin.folder}.install.log")
    return binary(pin)


def main(argv: list[str] | None = None) -> int:
    names = (argv if argv is not None else sys.argv[1:]) or ["claude-code"]
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
