"""Shared fixtures: every test gets its own TRAIL_HOME, and the real sample data."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent
# shared/ sits beside the repository, both in a developer checkout and in CI.
SHARED = Path(os.environ.get("TRAIL_SHARED", REPO.parent / "shared"))
SAMPLES = SHARED / "samples"
TRAIL = str(Path(sys.executable).parent / "trail")


@pytest.fixture(autouse=True)
def trail_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Point TRAIL_HOME at a fresh folder for every test."""
    home = tmp_path / "trail-home"
    monkeypatch.setenv("TRAIL_HOME", str(home))
    monkeypatch.delenv("TRAIL_DISABLE", raising=False)
    yield home


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests that read recorded samples from shared/ carry the ``samples`` marker, so a checkout
    without shared/ (the public GitHub workflow) can deselect them by name: ``-m "not
    samples"``. Everything else (the real-harness rig included) makes its own data."""
    for item in items:
        if "samples" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.samples)


@pytest.fixture
def samples() -> Path:
    if not SAMPLES.is_dir():
        pytest.fail(
            f"shared samples not found at {SAMPLES}: set TRAIL_SHARED to the shared/ folder, "
            'or deselect these tests with -m "not samples"'
        )
    return SAMPLES


def run_hook(
    payload: bytes | str | dict[str, Any],
    harness: str = "claude-code",
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run the real hook command in a subprocess, exactly as a harness would."""
    if isinstance(payload, dict):
        payload = json.dumps(payload)
    if isinstance(payload, str):
        payload = payload.encode()
    return subprocess.run(
        [TRAIL, "hook", harness],
        input=payload,
        capture_output=True,
        env={**os.environ, **(env or {})},
        timeout=60,
        check=False,
    )


def read_trace_lines(home: Path) -> list[dict[str, Any]]:
    lines = []
    for path in sorted(home.glob("sessions/*/*/trace.jsonl")):
        lines += [json.loads(line) for line in path.read_text().splitlines() if line]
    return lines


# Another local user's HTTP request to a server on 127.0.0.1 (trail collect, trail serve):
# bound to ``source`` (any 127.x.y.z reaches a socket bound to 127.0.0.1), the request read
# from stdin; prints the answer's status code, or "closed" when none came.
_OTHER_USER_REQUEST = (
    "import socket, sys\n"
    "s = socket.socket()\n"
    "s.bind((sys.argv[2], 0))\n"
    "s.settimeout(30)\n"
    "s.connect(('127.0.0.1', int(sys.argv[1])))\n"
    "s.sendall(sys.stdin.buffer.read())\n"
    "try:\n"
    "    answer = s.recv(100)\n"
    "except ConnectionResetError:\n"
    "    answer = b''\n"
    "print(answer.split(b' ')[1].decode() if answer else 'closed')\n"
)


def request_as_another_user(
    port: int, source: str, request: bytes
) -> subprocess.CompletedProcess[str]:
    """Send ``request`` to 127.0.0.1:``port`` from ``source`` as uid 65534 (nobody; the test
    must run as root); its stdout is the answer's status code or ``closed``."""
    done = subprocess.run(
        ["/usr/bin/env", "python3", "-I", "-c", _OTHER_USER_REQUEST, str(port), source],
        input=request,
        capture_output=True,
        timeout=60,
        check=False,
        user=65534,
        cwd="/",
    )
    out, err = done.stdout.decode(errors="replace"), done.stderr.decode(errors="replace")
    return subprocess.CompletedProcess(done.args, done.returncode, out, err)
