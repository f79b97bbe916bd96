"""trail installed as users install it, for the benchmarks: a wheel built from this checkout,
``pip install``-ed into a fresh venv of its own (the pip that venv comes with), and the hook
command ``trail install`` registers from there. No path of the dev checkout is involved.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_NOT_SOURCES = (
    ".git",
    ".venv",
    "build",
    "dist",
    "*.egg-info",
    "__pycache__",
    ".*_cache",
    ".demo-home",
)


@dataclass
class Installed:
    venv: Path
    python: str  # the venv's interpreter
    trail: str  # its console script

    def env(self, home: Path, trail_home: Path) -> dict[str, str]:
        return {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "TRAIL_HOME": str(trail_home),
            "LANG": "C.UTF-8",
        }


def _run(cmd: list[str], **kw: object) -> None:
    done = subprocess.run(cmd, capture_output=True, text=True, check=False, **kw)  # type: ignore[call-overload]
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")


def install(work: Path, python: str = sys.executable) -> Installed:
    """Build the wheel and install it (with its dependencies, from the package index)."""
    wheels = work / "wheel"
    # Built from a copy: setuptools writes build/ and *.egg-info next to the sources.
    source = work / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(*_NOT_SOURCES))
    _run([python, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(wheels), str(source)])
    (wheel,) = wheels.glob("trail-*.whl")
    venv = work / "venv"
    base = getattr(sys, "_base_executable", python) if python == sys.executable else python
    _run([base, "-m", "venv", str(venv)])
    _run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", str(wheel)])
    return Installed(venv, str(venv / "bin" / "python"), str(venv / "bin" / "trail"))


def registered_command(inst: Installed, project: Path, home: Path) -> str:
    """What ``trail install --harness claude-code`` writes for PostToolUse, run as a user."""
    project.mkdir(parents=True, exist_ok=True)
    home.mkdir(parents=True, exist_ok=True)
    _run(
        [inst.trail, "install", "--harness", "claude-code"],
        cwd=str(project),
        env=inst.env(home, home / "trail-home"),
    )
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    command: str = settings["hooks"]["PostToolUse"][0]["hooks"][0]["command"]
    return command


def setup(prefix: str) -> tuple[Installed, str, Path]:
    """A fresh installation, its registered hook command and a scratch folder."""
    work = Path(tempfile.mkdtemp(prefix=prefix))
    inst = install(work)
    command = registered_command(inst, work / "project", work / "home")
    if str(ROOT) in command:
        raise SystemExit(f"the registered command names the dev checkout: {command}")
    shlex.split(command)  # a plain command line, as Claude Code's shell would run it
    return inst, command, work
