"""Issue 8, item 6: readers never wait on the writer; sync commits in bounded steps.

A long `trail sync` (one 80 MiB trace) must not make `trail sessions`, `show` or `doctor` exit
1 with "database is locked"; and SIGKILLs of that sync must each leave progress behind, the
database intact, and the final rows exact.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.adversarial._mirror import (
    KEY,
    append,
    db_rows,
    event_line,
    no_traceback,
    trace,
    trail,
)
from tests.conftest import TRAIL

BIG_MIB = 80


def write_big_trace(home: Path, mib: int = BIG_MIB) -> int:
    """A trace of ``mib`` MiB of distinct events; returns how many lines it holds."""
    line = event_line(0, pad=400)
    eid = json.loads(line)["id"].encode()
    n = mib * 1024 * 1024 // len(line)
    path = trace(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as fh:
        for start in range(0, n, 10_000):
            fh.write(
                b"".join(
                    line.replace(eid, b"%032x" % i) for i in range(start, min(n, start + 10_000))
                )
            )
    return n


def start_sync(home: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [TRAIL, "sync"],
        env={**os.environ, "TRAIL_HOME": str(home)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def offset(home: Path) -> int:
    try:
        rows = db_rows(home, "SELECT offset FROM trace_files")
    except Exception:
        return 0
    return int(rows[0][0]) if rows else 0


def wait_for_progress(
    home: Path, above: int, proc: subprocess.Popen[bytes], within: float = 60
) -> int:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline and proc.poll() is None:
        now = offset(home)
        if now > above:
            return now
        time.sleep(0.05)
    return offset(home)


def test_readers_do_not_wait_on_a_long_sync(trail_home: Path, tmp_path: Path) -> None:
    # A small session already mirrored, then a big one arriving.
    other = "s-small"
    append(trace(trail_home, other), event_line(1, session=other))
    assert trail("sync").returncode == 0
    write_big_trace(trail_home, 2 * BIG_MIB)
    writer = start_sync(trail_home)
    env = {**os.environ, "TRAIL_HOME": str(trail_home)}
    try:
        time.sleep(1.0)  # the sync is under way (it takes several seconds)
        started = time.monotonic()
        readers = {
            name: subprocess.Popen(
                [TRAIL, *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
            )
            for name, args in (
                ("sessions", ["sessions"]),
                ("show", ["show", other]),
                ("doctor", ["doctor", "--project-dir", str(tmp_path)]),
            )
        }
        outs = {name: p.communicate(timeout=120) for name, p in readers.items()}
        elapsed = time.monotonic() - started
        still_writing = writer.poll() is None
        for name, (out, err) in outs.items():
            done = subprocess.CompletedProcess([name], readers[name].returncode, out, err)
            no_traceback(done)
            if name == "doctor":  # doctor also fails for the hook, not registered here
                assert "[ok  ] database" in out, out
            else:
                assert done.returncode == 0, (name, err)
        assert still_writing and elapsed < 5, (still_writing, elapsed)
        assert "another `trail sync`" in outs["sessions"][1]
    finally:
        writer.wait(timeout=300)
    assert writer.returncode == 0, writer.stderr.read() if writer.stderr else ""


def test_killed_syncs_of_a_big_file_make_progress(trail_home: Path) -> None:
    lines = write_big_trace(trail_home)
    seen = [0]
    for _ in range(5):
        proc = start_sync(trail_home)
        reached = wait_for_progress(trail_home, seen[-1], proc, within=2.0)
        time.sleep(0.2)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        [(ok,)] = db_rows(trail_home, "PRAGMA integrity_check")
        assert ok == "ok"
        now = offset(trail_home)
        assert now > seen[-1] and now >= reached  # each run left its committed steps behind
        seen.append(now)
        if now >= trace(trail_home).stat().st_size:
            break
    assert seen[1] < trace(trail_home).stat().st_size  # killed before it was done at least once
    done = trail("sync")
    assert done.returncode == 0, done.stderr
    assert db_rows(trail_home, "SELECT count(*) FROM events") == [(lines,)]
    assert db_rows(
        trail_home, "SELECT event_count FROM sessions WHERE key = ?", (f"claude-code/{KEY}",)
    ) == [(lines,)]
    assert db_rows(trail_home, "PRAGMA integrity_check") == [("ok",)]


WRITER = """
import os, sys
sys.path.insert(0, sys.argv[3])
from tests.adversarial._mirror import event_line
from trace_ingest.store import append_lines
w, n = int(sys.argv[2]), 200
for i in range(n):
    append_lines(sys.argv[1], event_line(w * 1000 + i).decode())
"""


def test_16_writers_with_sync_looping_and_sigkills_stay_exact(trail_home: Path) -> None:
    """16 writers x 200 events into one session while `trail sync` loops and is SIGKILLed."""
    path = trace(trail_home)
    path.parent.mkdir(parents=True)
    repo = str(Path(__file__).resolve().parents[2])
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(w), repo]) for w in range(16)
    ]
    watcher = subprocess.Popen(
        [TRAIL, "watch", "--interval", "0.5"],
        env={**os.environ, "TRAIL_HOME": str(trail_home)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    kills = 0
    try:
        while any(w.poll() is None for w in writers):
            proc = start_sync(trail_home)
            time.sleep(0.25 + 0.1 * (kills % 3))
            if proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
                kills += 1
            proc.wait()
            assert db_rows(trail_home, "PRAGMA integrity_check") == [("ok",)]
    finally:
        for w in writers:
            w.wait(timeout=120)
        watcher.send_signal(signal.SIGTERM)
        watcher.wait(timeout=30)
    assert all(w.returncode == 0 for w in writers)
    assert len(path.read_bytes().splitlines()) == 3200
    done = trail("sync")
    assert done.returncode == 0, done.stderr
    assert db_rows(trail_home, "SELECT count(*) FROM events") == [(3200,)]
    assert db_rows(trail_home, "PRAGMA integrity_check") == [("ok",)]
    assert watcher.returncode == 0, watcher.stderr.read() if watcher.stderr else ""
