"""Install the pinned Arize Phoenix into its own cached virtual environment, from PyPI.

``python -m tests.telemetry.otlp.phoenix_install`` prints the ``phoenix`` program's path; the
Phoenix integration test calls :func:`ensure` too, so ``make test`` and ``.ci/run`` install
what is missing. Nothing lands in the repository.

Cache: ``$TRAIL_PHOENIX_CACHE``, else ``$XDG_CACHE_HOME/trail/phoenix``, else
``~/.cache/trail/phoenix``; one folder per pin (``arize-phoenix-20.26.1``), holding ``venv``.
Phoenix pulls a large tree (fastapi, grpcio, pandas, pyarrow, sqlalchemy, …) that trail must
never depend on, hence its own venv, like the harness pins (tests/harnesses/install.py). The
venv is built in place under a lock and marked complete (``installed.json``) only after
``import phoenix`` reported the pinned version; a folder without the mark is rebuilt.

A failure raises with the installer's log path: the test fails loudly, it never skips.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

PHOENIX_VERSION = "20.26.1"  # >= 15.10: converts gen_ai.* to OpenInference on arrival


def cache_root() -> Path:
    explicit = os.environ.get("TRAIL_PHOENIX_CACHE")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "trail" / "phoenix"


def install_dir() -> Path:
    return cache_root() / f"arize-phoenix-{PHOENIX_VERSION}"


def python() -> Path:
    return install_dir() / "venv" / "bin" / "python"


def is_installed() -> bool:
    mark = install_dir() / "installed.json"
    try:
        return json.loads(mark.read_text()).get("version") == PHOENIX_VERSION
    except (OSError, ValueError):
        return False


@contextmanager
def _lock(root: Path) -> Iterator[None]:
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def ensure() -> Path:
    """The cached Phoenix venv's python, installing it first when missing."""
    if is_installed():
        return python()
    root = cache_root()
    with _lock(root):
        if is_installed():
            return python()
        target = install_dir()
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        log = root / f"arize-phoenix-{PHOENIX_VERSION}.install.log"
        with open(log, "w") as out:
            steps = [
                [sys.executable, "-m", "venv", str(target / "venv")],
                [str(python()), "-m", "pip", "install", "--quiet", "--upgrade", "pip"],
                [str(python()), "-m", "pip", "install", f"arize-phoenix=={PHOENIX_VERSION}"],
            ]
            for cmd in steps:
                if subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT).returncode:
                    raise RuntimeError(f"installing Phoenix failed: {cmd!r}; see {log}")
        probe = subprocess.run(
            [str(python()), "-c", "import phoenix; print(phoenix.__version__)"],
            capture_output=True,
            text=True,
        )
        if probe.stdout.strip() != PHOENIX_VERSION:
            raise RuntimeError(f"Phoenix did not import: {probe.stderr[-2000:]}; see {log}")
        (target / "installed.json").write_text(json.dumps({"version": PHOENIX_VERSION}))
    return python()


def main() -> int:
    print(ensure())
    return 0


if __name__ == "__main__":
    sys.exit(main())
