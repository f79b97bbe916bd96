"""The repository's own .claude/settings.json: trail records this repo, fail-open."""

from __future__ import annotations

import json
import subprocess

from tests.conftest import REPO
from trace_ingest.harnesses.claude_code import DESCRIPTOR

CLAUDE_EVENTS = DESCRIPTOR.hook_events

SETTINGS = REPO / ".claude" / "settings.json"


def commands() -> set[str]:
    data = json.loads(SETTINGS.read_text())
    found = DESCRIPTOR.registered(data)
    assert set(found) == set(CLAUDE_EVENTS)
    for groups in data["hooks"].values():
        for group in groups:
            for handler in group["hooks"]:
                assert handler["async"] is True and 0 < handler["timeout"] <= 10
    return {c for cs in found.values() for c in cs}


def test_fail_open_without_trail_installed(tmp_path: object) -> None:
    [command] = commands()
    done = subprocess.run(
        ["bash", "-c", command],
        input=b'{"session_id": "x"}',
        capture_output=True,
        timeout=10,
        check=False,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "CLAUDE_PROJECT_DIR": str(tmp_path)},
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


def test_records_with_the_project_venv(trail_home: object) -> None:
    [command] = commands()
    env = {"PATH": "/usr/bin:/bin", "CLAUDE_PROJECT_DIR": str(REPO), "TRAIL_HOME": str(trail_home)}
    done = subprocess.run(
        ["bash", "-c", command],
        capture_output=True,
        timeout=30,
        check=False,
        input=b'{"session_id": "self", "hook_event_name": "Stop"}',
        env=env,
    )
    assert (done.returncode, done.stdout) == (0, b"")
    assert list(__import__("pathlib").Path(str(trail_home)).glob("sessions/claude-code/self/*"))
