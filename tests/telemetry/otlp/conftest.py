"""The demo sessions, recorded and graded once per test run by the real `trail demo`."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import TRAIL


@pytest.fixture(scope="session")
def demo_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A TRAIL_HOME holding the demo sessions and their grades (L0/L1 and L2); copy it before
    exporting (the cursor is written into the data dir)."""
    home = tmp_path_factory.mktemp("otlp-demo") / "home"
    env = {**os.environ, "TRAIL_HOME": str(home)}
    subprocess.run([TRAIL, "demo"], env=env, check=True, capture_output=True, timeout=300)
    return home
