"""Listings are coloured on a terminal and plain text otherwise (click drops the colour when
stdout is not a terminal)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from click.testing import CliRunner

from scorers.cli import eval_group
from tests.conftest import TRAIL, run_hook

BASE = {"session_id": "colour-1", "transcript_path": "/t.jsonl", "cwd": "/home/me/proj"}


def test_eval_list_is_coloured_only_on_a_terminal(trail_home: Path) -> None:
    for name in ("SessionStart", "UserPromptSubmit"):
        run_hook({**BASE, "hook_event_name": name, "prompt": "go"})
    run_hook(
        {
            **BASE,
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "git push --force origin main"},
            "tool_use_id": "t1",
        }
    )
    subprocess.run([TRAIL, "eval", "score", "--session", "colour-1"], check=False)
    runner = CliRunner()
    tty = runner.invoke(eval_group, ["list"], color=True)
    plain = runner.invoke(eval_group, ["list"], color=False)
    assert tty.exit_code == 0 and plain.exit_code == 0, tty.output
    assert "\x1b[" in tty.output and "\x1b[" not in plain.output
    assert "flags-only: high-severity" in plain.output
    piped = subprocess.run([TRAIL, "eval", "list"], capture_output=True, text=True, check=False)
    assert "\x1b[" not in piped.stdout and "colour-1" in piped.stdout
