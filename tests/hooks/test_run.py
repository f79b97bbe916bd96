"""hooks/run.py, the direct hook command `trail install` registers (`<python> -I -S run.py
<harness>`): same promises as `trail hook` (exit 0, nothing on stdout, the event recorded),
without the console script, `site` or anything from the agent's environment."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import read_trace_lines
from trace_ingest.settings_io import DIRECT_FLAGS, hook_script

PAYLOAD = {
    "session_id": "s-run",
    "cwd": "/work",
    "hook_event_name": "PreToolUse",
    "tool_name": "Read",
    "tool_input": {"file_path": "/work/cart.py"},
    "tool_use_id": "toolu_run_1",
}


def run_direct(
    extra: list[str] | None = None, env: dict[str, str] | None = None, script: str | None = None
) -> subprocess.CompletedProcess[bytes]:
    argv = [sys.executable, *(extra or []), *DIRECT_FLAGS, script or hook_script(), "claude-code"]
    return subprocess.run(
        argv, input=json.dumps(PAYLOAD).encode(), capture_output=True, env=env, check=False
    )


def test_records_silently_without_site_re_or_the_console_script(trail_home: Path) -> None:
    done = run_direct(["-X", "importtime"])
    assert (done.returncode, done.stdout) == (0, b"")
    [ev] = read_trace_lines(trail_home)
    assert (ev["kind"], ev["call_id"], ev["tool"]) == ("tool_call", "toolu_run_1", "read")
    imported = {
        line.rsplit("|", 1)[1].strip()
        for line in done.stderr.decode().splitlines()
        if line.startswith("import time:") and "|" in line
    }
    assert {"hooks.entry", "hooks.claude_code", "trace_ingest.scrub"} <= imported
    assert imported & {"site", "re", "typing", "json", "importlib", "warnings", "click"} == set()


def test_the_agents_pythonpath_cannot_replace_trails_code(tmp_path: Path, trail_home: Path) -> None:
    """-I: a `hooks` package on PYTHONPATH (say, in the project the agent works in) is not
    what runs."""
    evil = tmp_path / "evil" / "hooks"
    evil.mkdir(parents=True)
    marker = tmp_path / "ran"
    (evil / "__init__.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    (evil / "entry.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    env = {"PATH": "/usr/bin:/bin", "TRAIL_HOME": str(trail_home), "PYTHONPATH": str(evil.parent)}
    done = run_direct(env=env)
    assert (done.returncode, done.stdout) == (0, b"")
    assert not marker.exists()
    assert len(read_trace_lines(trail_home)) == 1


def test_a_broken_installation_still_exits_0_silently(tmp_path: Path, trail_home: Path) -> None:
    """run.py without trail's packages beside it (a half-removed installation)."""
    lonely = tmp_path / "site-packages" / "hooks"
    lonely.mkdir(parents=True)
    shutil.copy(hook_script(), lonely / "run.py")
    done = run_direct(script=str(lonely / "run.py"))
    assert (done.returncode, done.stdout) == (0, b"")
    assert read_trace_lines(trail_home) == []
