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
