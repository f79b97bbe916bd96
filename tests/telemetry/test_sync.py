"""The JSONL -> SQLite mirror: incremental, idempotent, torn and malformed lines."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

from telemetry.db import open_db
from telemetry.sync import SyncReport, sync
from tests.conftest import run_hook

BASE = {"session_id": "s-sync", "transcript_path": "/t.jsonl", "cwd": "/proj"}


def trace(home: Path, key: str = "s-sync") -> Path:
    return home / "sessions" / "claude-code" / key / "trace.jsonl"


def count(home: Path, table: str = "events") -> int:
    return int(open_db(str(home)).execute(f"SELECT count(*) FROM {table}").fetchone()[0])


def do_sync(home: Path) -> SyncReport:
    return sync(open_db(str(home)), str(home))


def record(n: int, start: int = 0) -> None:
    for i in range(start, start + n):
        run_hook(
            {
                **BASE,
                "hook_event_name": "PreToolUse",
                "tool_name": "Read",
                "tool_input": {"file_path": f"/proj/f{i}.py"},
                "tool_use_id": f"t{i}",
            }
        )


def test_sync_is_incremental_and_idempotent(trail_home: Path) -> None:
    record(3)
    assert do_sync(trail_home).new_events == 3
    again = do_sync(trail_home)
    assert (again.new_events, again.quarantined) == (0, [])
    record(2, start=3)
    assert do_sync(trail_home).new_events == 2
    assert count(trail_home) == 5


def test_rebuilt_mirror_gives_the_same_rows(trail_home: Path) -> None:
    record(4)
    do_sync(trail_home)
    rows = open_db(str(trail_home)).execute("SELECT id FROM events ORDER BY id").fetchall()
    (trail_home / "trail.db").unlink()
    do_sync(trail_home)
    assert open_db(str(trail_home)).execute("SELECT id FROM events ORDER BY id").fetchall() == rows


def test_partial_last_line_waits_until_complete(trail_home: Path) -> None:
    record(1)
    path = trace(trail_home)
    line = path.read_bytes()
    first_id = json.loads(line)["id"]
    other = line.replace(first_id.encode(), b"f" * 32)  # a distinct event of the same shape
    half = len(other) // 2
    with path.open("ab") as fh:
        fh.write(other[:half])
    report = do_sync(trail_home)
    assert report.new_events == 1
    assert len(report.pending) == 1 and "incomplete last line" in report.pending[0].reason
    assert report.quarantined == []
    with path.open("ab") as fh:
        fh.write(other[half:])
    report = do_sync(trail_home)
    assert (report.new_events, report.pending, report.quarantined) == (1, [], [])
    assert count(trail_home) == 2


KILLED_WRITER = """
import os, sys, time
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND)
os.write(fd, sys.stdin.buffer.read())  # the first half of a line
print("written", flush=True)
time.sleep(60)  # killed here, before the rest of the line
"""


def test_killed_writer_loses_only_its_own_line(trail_home: Path) -> None:
    """A writer killed mid-line leaves a torn line; later events glued after it survive."""
    record(2)
    path = trace(trail_home)
    line = path.read_bytes().split(b"\n")[0]
    torn = line.replace(json.loads(line)["id"].encode(), b"e" * 32)[: len(line) // 2]
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
    record(3, start=2)  # the next hooks append right after the torn bytes
    report = do_sync(trail_home)
    assert count(trail_home) == 5  # only the killed writer's line is lost
    assert len(report.quarantined) == 1
    assert "torn line" in report.quarantined[0].reason
    assert count(trail_home, "quarantine") == 1
    assert do_sync(trail_home).quarantined == []  # said once, then remembered


def test_malformed_lines_are_quarantined_with_reason(trail_home: Path) -> None:
    record(1)
    with trace(trail_home).open("ab") as fh:
        fh.write(b"this is not json\n")
        fh.write(json.dumps({"v": 1, "kind": "nonsense"}).encode() + b"\n")
    record(1, start=1)
    report = do_sync(trail_home)
    reasons = [q.reason for q in report.quarantined]
    assert len(reasons) == 2
    assert reasons[0].startswith("malformed JSON")
    assert "not a schema-v1 event" in reasons[1]
    assert count(trail_home) == 2


def test_long_lines_across_chunks(trail_home: Path, monkeypatch: object) -> None:
    import telemetry.sync as mod

    setattr(mod, "CHUNK_BYTES", 1024)  # noqa: B010 - force many chunk boundaries
    try:
        for i in range(5):
            run_hook({**BASE, "hook_event_name": "UserPromptSubmit", "prompt": "p" * (3000 + i)})
        assert do_sync(trail_home).new_events == 5
    finally:
        setattr(mod, "CHUNK_BYTES", 4 * 1024 * 1024)  # noqa: B010


def test_schema_comes_from_migrations(trail_home: Path) -> None:
    db = open_db(str(trail_home))
    assert {
        "sessions",
        "events",
        "redactions",
        "trace_files",
        "quarantine",
        "session_labels",
    } <= set(db.table_names())
    assert db["events"].columns_dict["body"] is str
    applied = [r["name"] for r in db["_sqlite_migrations"].rows]
    assert applied[0] == "m001_initial"
    open_db(str(trail_home))  # re-opening applies nothing twice
    assert [r["name"] for r in db["_sqlite_migrations"].rows] == applied


def test_a_line_with_a_badly_typed_field_is_quarantined_not_fatal(trail_home: Path) -> None:
    record(1)
    with trace(trail_home).open("ab") as fh:
        fh.write(json.dumps({"v": 1, "id": "abc", "kind": "other", "ts": {"a": 1}}).encode())
        fh.write(b"\n")
    record(1, start=1)
    report = do_sync(trail_home)
    assert count(trail_home) == 2
    assert [q.reason for q in report.quarantined] == ["field 'ts' is not a string or number"]


def test_a_torn_last_line_nobody_completes_is_skipped_once_stale(trail_home: Path) -> None:
    import os
    import time

    record(1)
    path = trace(trail_home)
    line = path.read_bytes()
    with path.open("ab") as fh:
        fh.write(line[: len(line) // 2])  # a writer killed mid-line, nothing after it
    assert len(do_sync(trail_home).pending) == 1  # fresh: maybe still being written
    old = time.time() - 120
    os.utime(path, (old, old))
    report = do_sync(trail_home)
    assert report.pending == [] and "torn last line" in report.quarantined[0].reason
    record(1, start=5)  # the next event lands right after the torn bytes
    report = do_sync(trail_home)
    assert (report.new_events, report.quarantined, report.pending) == (1, [], [])
    assert count(trail_home) == 2
