"""The CLI root: every lazy subcommand loads and documents itself."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.conftest import TRAIL
from trace_ingest.cli import COMMANDS, cli


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_has_help(name: str) -> None:
    result = CliRunner().invoke(cli, [name, "--help"])
    assert result.exit_code == 0, result.output
    assert "Usage:" in result.output and len(result.output.splitlines()) > 3


def test_root_help_lists_commands_without_importing_them() -> None:
    code = (
        "import sys; from trace_ingest.cli import main; main(['--help']); "
        "print('LOADED', sorted(m for m in sys.modules if m.split('.')[0] in "
        "('telemetry', 'scorers', 'hooks')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "LOADED []" in done.stdout
    for name in COMMANDS:
        assert name in done.stdout


def test_version() -> None:
    done = subprocess.run([TRAIL, "--version"], capture_output=True, text=True, check=True)
    assert "version" in done.stdout


def test_a_refused_data_dir_path_is_a_message_not_a_traceback(
    tmp_path: Path, trail_home: Path
) -> None:
    """An importer writing where the data dir refuses (a symlinked sessions/) exits 1 with a
    one-line error naming why."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    trail_home.mkdir(mode=0o700)
    (trail_home / "sessions").symlink_to(elsewhere)
    transcript = tmp_path / "s.jsonl"
    line = {
        "type": "user",
        "uuid": "u1",
        "sessionId": "s-1",
        "timestamp": "2026-01-05T10:00:00.000Z",
        "message": {"role": "user", "content": "hello"},
    }
    transcript.write_text(json.dumps(line) + "\n")
    done = subprocess.run(
        [TRAIL, "import", "claude-code", str(transcript)], capture_output=True, text=True
    )
    assert done.returncode == 1
    assert done.stderr.startswith("Error: ") and "Traceback" not in done.stderr
    assert "symlink" in done.stderr
    assert list(elsewhere.iterdir()) == []
