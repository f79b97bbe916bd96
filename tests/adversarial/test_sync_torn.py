"""Issue 8, item 2: one torn line never makes a session unreadable.

A torn line (a killed writer, a full disk, a run of NUL bytes, a truncated trace) followed by
later appends glues the next event to the torn bytes. The mirror must store that event as
exactly its own JSON, quarantine the torn prefix, rebuild to the same rows, and `trail show` /
`trail eval score` must never crash on what it stored.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.adversarial._mirror import (
    KEY,
    append,
    event_line,
    events_in_db,
    ids_in_trace,
    no_traceback,
    trace,
    trail,
)
from tests.conftest import run_hook

KILLED_WRITER = """
import os, sys, time
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND)
os.write(fd, sys.stdin.buffer.read())  # the first half of a line
print("written", flush=True)
time.sleep(60)  # killed here, before the rest of the line
"""


def check_rows_are_exact(home: Path) -> None:
    """Every row's body is one JSON object, byte for byte the line at its file offset."""
    data = trace(home).read_bytes()
    rows = events_in_db(home)
    assert rows, "nothing mirrored"
    for eid, offset, body in rows:
        assert json.loads(body)["id"] == eid
        end = data.index(b"\n", offset)
        assert data[offset:end].decode() == body


def check_readers(home: Path, key: str = KEY) -> None:
    shown = trail("show", key, "--json", home=home)
    no_traceback(shown)
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["events"]
    scored = trail("eval", "score", "--session", key, home=home)
    no_traceback(scored)
    assert scored.returncode not in (1, 2), scored.stderr  # graded, whatever the verdict


def check_rebuild(home: Path) -> None:
    before = events_in_db(home)
    for name in ("trail.db", "trail.db-wal", "trail.db-shm"):
        (home / name).unlink(missing_ok=True)
    assert trail("sync", home=home).returncode == 0
    assert events_in_db(home) == before


def kill_mid_line(path: Path, torn: bytes) -> None:
    writer = subprocess.Popen(
        [sys.executable, "-c", KILLED_WRITER, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert writer.stdin and writer.stdout
    writer.stdin.write(torn)
    writer.stdin.close()
    assert writer.stdout.readline() == b"written\n"
    writer.send_signal(signal.SIGKILL)
    writer.wait()


def test_killed_writer_glued_event_is_stored_as_its_own_json(trail_home: Path) -> None:
    path = trace(trail_home)
    append(path, event_line(0) + event_line(1))
    kill_mid_line(path, event_line(2)[:90])
    append(path, event_line(3) + event_line(4))
    done = trail("sync", "--json", home=trail_home)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["new_events"] == 4
    [torn] = report["quarantined"]
    assert "torn line" in torn["reason"] and torn["length"] == 90
    check_rows_are_exact(trail_home)
    assert {r[0] for r in events_in_db(trail_home)} == ids_in_trace(path)
    check_readers(trail_home)
    check_rebuild(trail_home)


def test_a_run_of_nul_bytes_before_an_event(trail_home: Path) -> None:
    path = trace(trail_home)
    append(path, event_line(0))
    append(path, b"\0" * 5000)  # a crash left zeroed blocks where a line was being written
    append(path, event_line(1) + b"\0" * 64 + b"\n" + event_line(2))
    done = trail("sync", "--json", home=trail_home)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["new_events"] == 3
    check_rows_are_exact(trail_home)
    check_readers(trail_home)
    check_rebuild(trail_home)


def test_a_trace_truncated_mid_line_then_appended(trail_home: Path) -> None:
    path = trace(trail_home)
    append(path, b"".join(event_line(i) for i in range(5)))
    assert trail("sync", home=trail_home).returncode == 0
    data = path.read_bytes()
    cut = data.index(event_line(3)) + 40  # mid-line 3
    os.truncate(path, cut)
    append(path, b"".join(event_line(i) for i in range(10, 16)))
    assert path.stat().st_size > len(data)  # it grew past what was mirrored
    assert trail("sync", home=trail_home).returncode == 0
    assert {r[0] for r in events_in_db(trail_home)} == ids_in_trace(path)
    check_rows_are_exact(trail_home)
    check_readers(trail_home)
    check_rebuild(trail_home)


@pytest.fixture
def small_disk(tmp_path: Path) -> object:
    """A real 4 MiB tmpfs (the machine's own filesystem, not a mock); skipped where mounting
    is not permitted."""
    mnt = tmp_path / "disk"
    mnt.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=4m,mode=0700", "tmpfs", str(mnt)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def test_a_full_disk_mid_line(small_disk: Path) -> None:
    home = small_disk / "trail"
    env = {"TRAIL_HOME": str(home)}
    base = {"session_id": KEY, "transcript_path": "/t.jsonl", "cwd": "/p"}

    def hook(i: int, size: int = 10) -> None:
        payload = {**base, "hook_event_name": "UserPromptSubmit", "prompt": f"{i} " + "p" * size}
        assert run_hook(payload, env=env).returncode == 0

    hook(0)
    hook(1)
    filler = small_disk / "filler"
    free = os.statvfs(small_disk)
    with filler.open("wb") as fh:  # leave about one page free
        fh.write(b"\0" * (free.f_bavail * free.f_frsize - 6000))
    hook(2, size=60_000)  # does not fit: the disk fills mid-line
    filler.unlink()
    hook(3)
    hook(4)
    path = trace(home)
    torn = any(not line.startswith(b'{"v":1') for line in path.read_bytes().split(b"\n")[:-1])
    done = trail("sync", "--json", home=home)
    assert done.returncode == 0, done.stderr
    assert {r[0] for r in events_in_db(home)} == ids_in_trace(path)
    assert len(events_in_db(home)) >= 4
    if torn:
        assert any("torn" in q["reason"] for q in json.loads(done.stdout)["quarantined"])
    check_rows_are_exact(home)
    check_readers(home)
    check_rebuild(home)


def test_a_bad_body_in_the_mirror_is_skipped_with_a_message(trail_home: Path) -> None:
    """A mirror written by an older trail (or edited) holds a body that is not JSON."""
    append(trace(trail_home), event_line(0) + event_line(1) + event_line(2))
    assert trail("sync", home=trail_home).returncode == 0
    conn = sqlite3.connect(trail_home / "trail.db")
    with conn:
        conn.execute("UPDATE events SET body = '{\"v\":1, torn' || body WHERE rowid = 2")
    conn.close()
    shown = trail("show", KEY, "--json", home=trail_home)
    no_traceback(shown)
    assert shown.returncode == 0
    assert "skipped 1 stored event" in shown.stderr
    assert len(json.loads(shown.stdout)["events"]) == 2
    scored = trail("eval", "score", "--session", KEY, home=trail_home)
    no_traceback(scored)
    assert scored.returncode not in (1, 2)


def test_a_mirror_with_glued_rows_is_repaired_on_upgrade(trail_home: Path) -> None:
    """A trail.db from before the fix: the glued row is forgotten and re-read correctly."""
    path = trace(trail_home)
    append(path, event_line(0) + event_line(1)[:50] + event_line(2))
    assert trail("sync", home=trail_home).returncode == 0
    good = events_in_db(trail_home)
    recovered = next(r for r in good if r[2] == event_line(2).decode().rstrip("\n"))
    conn = sqlite3.connect(trail_home / "trail.db")
    with conn:  # what the old sync stored: the whole glued line, at the torn line's offset
        conn.execute(
            "UPDATE events SET body = ?, file_offset = ? WHERE id = ?",
            [(event_line(1)[:50] + event_line(2)).decode().rstrip("\n"), 0, recovered[0]],
        )
        conn.execute("DELETE FROM _sqlite_migrations WHERE name = 'm005_forget_glued_rows'")
    conn.close()
    assert trail("sync", home=trail_home).returncode == 0
    assert events_in_db(trail_home) == good
    check_readers(trail_home)
