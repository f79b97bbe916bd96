"""Issue 8, item 3: nothing inside the data dir is followed, and a data dir other users can
write (or own) is not used. Real files, real `trail hook` processes."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from tests.adversarial._hook import BASE, errors, snapshot
from tests.conftest import TRAIL, read_trace_lines, run_hook

STOP = {**BASE, "hook_event_name": "Stop"}
SESSION = Path("sessions") / "claude-code" / "s-attack"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder outside the data dir, holding a file an attacker would like appended to."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "victim").write_text("precious\n")
    return folder


def prime(home: Path) -> None:
    """A first hook call, so the data dir, key and lost-events record exist."""
    assert run_hook({**BASE, "session_id": "s-prime", "hook_event_name": "Stop"}).returncode == 0


def assert_refused(home: Path, outside: Path, before: dict[str, tuple[int, int]]) -> None:
    assert snapshot(outside) == before, "something outside the data dir changed"
    assert (outside / "victim").read_text() == "precious\n"


def check(done: subprocess.CompletedProcess[bytes]) -> None:
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


@pytest.mark.parametrize(
    "link, target",
    [
        (SESSION, "."),  # the session folder
        (SESSION / "trace.jsonl", "victim"),  # the trace file
        (Path("sessions"), "."),  # sessions/
        (Path("sessions") / "claude-code", "."),  # a folder on the way
    ],
    ids=["session-folder", "trace.jsonl", "sessions", "harness-folder"],
)
def test_a_symlink_inside_the_data_dir_is_never_followed(
    trail_home: Path, outside: Path, link: Path, target: str
) -> None:
    prime(trail_home)
    place = trail_home / link
    place.parent.mkdir(parents=True, exist_ok=True)
    if place.exists():
        os.rename(place, str(place) + ".moved")
    place.symlink_to(outside / target if target != "." else outside)
    before = snapshot(outside)
    check(run_hook(STOP))
    assert_refused(trail_home, outside, before)
    refused = [e for e in errors(trail_home) if e["stage"] == "store"]
    assert refused and "symlink" in str(refused[-1]["error"]), errors(trail_home)
    assert "not recorded" in str(refused[-1]["error"])


def test_a_symlinked_error_log_is_not_followed_and_doctor_says_so(
    trail_home: Path, outside: Path
) -> None:
    prime(trail_home)
    (trail_home / "hook-errors.log").symlink_to(outside / "victim")
    before = snapshot(outside)
    check(run_hook(b"{not json"))  # an error to log
    check(run_hook(b"", harness="claude-code"))
    assert_refused(trail_home, outside, before)
    doc = subprocess.run([TRAIL, "doctor", "--json"], capture_output=True, text=True)
    hook_errors = json.loads(doc.stdout)["hook_errors"]
    assert any(e["stage"] == "error-log" and "symlink" in e["error"] for e in hook_errors)


def test_a_hard_linked_trace_is_refused(trail_home: Path, outside: Path) -> None:
    check(run_hook(STOP))
    trace = trail_home / SESSION / "trace.jsonl"
    trace.unlink()
    os.link(outside / "victim", trace)
    before = snapshot(outside)
    check(run_hook(STOP))
    assert (outside / "victim").read_text() == "precious\n"
    assert snapshot(outside) == before
    assert any("hard links" in str(e["error"]) for e in errors(trail_home))


def test_a_fifo_as_trace_does_not_hang_the_hook(trail_home: Path) -> None:
    (trail_home / SESSION).mkdir(parents=True)
    os.mkfifo(trail_home / SESSION / "trace.jsonl", 0o600)
    started = time.monotonic()
    check(run_hook(STOP))
    assert time.monotonic() - started < 10
    assert any(e["stage"] == "store" for e in errors(trail_home))


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o702])
def test_a_data_dir_others_can_write_is_not_used(trail_home: Path, mode: int) -> None:
    trail_home.mkdir()
    os.chmod(trail_home, mode)
    done = run_hook(STOP)
    check(done)  # refused without a word on stdout or stderr
    assert list(trail_home.iterdir()) == []  # not even the error log is written there
    doc = subprocess.run([TRAIL, "doctor", "--json"], capture_output=True, text=True)
    report = json.loads(doc.stdout)
    data_dir = next(c for c in report["checks"] if c["name"] == "data dir")
    assert data_dir["status"] == "FAIL" and f"mode {mode:o}" in data_dir["detail"]
    assert any("writable by other users" in str(e["error"]) for e in report["hook_errors"])


def test_a_subfolder_others_can_write_is_refused_and_logged(trail_home: Path) -> None:
    check(run_hook(STOP))
    os.chmod(trail_home / "sessions" / "claude-code", 0o777)
    check(run_hook({**STOP, "session_id": "s-other"}))
    assert not (trail_home / "sessions" / "claude-code" / "s-other").exists()
    assert any("writable by other users" in str(e["error"]) for e in errors(trail_home))


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give a folder to another user")
def test_a_data_dir_owned_by_another_user_is_not_used(trail_home: Path) -> None:
    trail_home.mkdir(mode=0o700)
    os.chown(trail_home, 65534, 65534)
    check(run_hook(STOP))
    assert list(trail_home.iterdir()) == []
    doc = subprocess.run([TRAIL, "doctor", "--json"], capture_output=True, text=True)
    hook_errors = json.loads(doc.stdout)["hook_errors"]
    assert any("owned by uid 65534" in str(e["error"]) for e in hook_errors)
    # doctor's own data-dir check fails too, for the same reason, and doctor exits 1
    checks = {c["name"]: c for c in json.loads(doc.stdout)["checks"]}
    assert checks["data dir"]["ok"] is False
    assert "owned by uid 65534" in checks["data dir"]["detail"]
    assert doc.returncode == 1


def test_the_normal_case_still_records(trail_home: Path) -> None:
    check(run_hook(STOP))
    assert [e["kind"] for e in read_trace_lines(trail_home)] == ["agent_stop"]
