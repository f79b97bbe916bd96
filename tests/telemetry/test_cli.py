"""The read commands as a user runs them: sessions, show, sync, capture, doctor, demo."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

import pytest

from tests.conftest import TRAIL, run_hook

BASE = {"session_id": "cli-sess-1", "transcript_path": "/t.jsonl", "cwd": "/home/me/proj"}


def trail(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TRAIL, *args], capture_output=True, text=True, check=False)


def test_sessions_and_show(trail_home: Path) -> None:
    run_hook({**BASE, "hook_event_name": "SessionStart", "source": "startup"})
    run_hook(
        {
            **BASE,
            "hook_event_name": "PostToolUseFailure",
            "tool_name": "Bash",
            "tool_input": {"command": "make"},
            "tool_use_id": "t1",
            "error": "Exit code 2",
        }
    )
    listed = json.loads(trail("sessions", "--json").stdout)
    assert [
        (s["session_id"], s["event_count"], s["error_count"], s["state"], s["project_dir"])
        for s in listed
    ] == [("cli-sess-1", 2, 1, "open", "/home/me/proj")]
    text = trail("sessions").stdout
    assert "claude-code/cli-sess-1" in text and "open" in text
    shown = trail("show", "cli-sess")  # a unique prefix is enough
    assert shown.returncode == 0
    assert "Bash [shell] make FAILED — Exit code 2" in shown.stdout
    data = json.loads(trail("show", "cli-sess-1", "--json").stdout)
    assert [e["kind"] for e in data["events"]] == ["session_start", "tool_error"]


def test_show_unknown_session_is_a_clear_error(trail_home: Path) -> None:
    done = trail("show", "nope")
    assert done.returncode == 1 and "no session matches 'nope'" in done.stderr


def test_sync_reports_what_it_skipped(trail_home: Path) -> None:
    run_hook({**BASE, "hook_event_name": "Stop"})
    trace = next(trail_home.glob("sessions/claude-code/*/trace.jsonl"))
    with trace.open("ab") as fh:
        fh.write(b"garbage\n")
    out = json.loads(trail("sync", "--json").stdout)
    assert out["new_events"] == 1 and len(out["quarantined"]) == 1
    assert "malformed JSON" in out["quarantined"][0]["reason"]
    assert json.loads(trail("sync", "--json").stdout)["new_events"] == 0


def test_capture_off_and_on(trail_home: Path) -> None:
    assert trail("capture", "off").stdout.strip() == "capture is off"
    run_hook({**BASE, "hook_event_name": "Stop"})
    assert not list(trail_home.glob("sessions/*/*/trace.jsonl"))
    assert trail("capture", "on").stdout.strip() == "capture is on"
    run_hook({**BASE, "hook_event_name": "Stop"})
    assert len(list(trail_home.glob("sessions/*/*/trace.jsonl"))) == 1


def test_watch_once_mirrors(trail_home: Path) -> None:
    run_hook({**BASE, "hook_event_name": "Stop"})
    done = trail("watch", "--once")
    assert done.returncode == 0 and "+1 events" in done.stdout


def _events_in_db(home: Path) -> int:
    import sqlite3

    try:
        with sqlite3.connect(home / "trail.db") as conn:
            return int(conn.execute("SELECT count(*) FROM events").fetchone()[0])
    except sqlite3.OperationalError:  # not created or not migrated yet
        return 0


def _wait_for(home: Path, n: int, seconds: float = 30) -> int:
    import time

    deadline = time.monotonic() + seconds
    count = _events_in_db(home)
    while count < n and time.monotonic() < deadline:
        time.sleep(0.2)
        count = _events_in_db(home)
    return count


@pytest.mark.parametrize("stop_signal", [signal.SIGINT, signal.SIGTERM])
def test_watch_mirrors_live_until_stopped(trail_home: Path, stop_signal: int) -> None:
    run_hook({**BASE, "hook_event_name": "SessionStart", "source": "startup"})
    proc = subprocess.Popen(
        [TRAIL, "watch", "--interval", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert _wait_for(trail_home, 1) == 1
        run_hook({**BASE, "hook_event_name": "UserPromptSubmit", "prompt": "live"})
        assert _wait_for(trail_home, 2) == 2  # picked up by the watcher, not a read command
    finally:
        proc.send_signal(stop_signal)
        out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0 and "stopped" in out
