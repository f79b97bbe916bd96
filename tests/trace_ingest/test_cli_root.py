"""The CLI root: every lazy subcommand loads and documents itself."""

from __future__ import annotations

import subprocess
import sys

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
