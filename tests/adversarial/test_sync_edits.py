"""Issue 8, item 8: editing a trace never leaves the mirror out of step.

A trace truncated, replaced or edited in place (say, to blank a leaked token by hand) is
detected by its fingerprint (size, inode, mtime, hashes of what was mirrored) and re-read.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.adversarial._mirror import (
    append,
    db_rows,
    event_line,
    events_in_db,
    ids_in_trace,
    trace,
    trail,
)

TOKEN = "zq-UNIQUE-marker-7f3e9a1b2c"  # what a user blanks by hand (not a rule's format)


def sync_ok(home: Path) -> dict[str, object]:
    done = trail("sync", "--json", home=home)
    assert done.returncode == 0, done.stderr
    report: dict[str, object] = json.loads(done.stdout)
    return report


def test_truncate_then_append_mirrors_every_event(trail_home: Path) -> None:
    path = trace(trail_home)
    append(path, b"".join(event_line(i) for i in range(20)))
    sync_ok(trail_home)
    os.truncate(path, 0)
    append(path, b"".join(event_line(i) for i in range(100, 119)))  # 19 new events
    report = sync_ok(trail_home)
    assert report["resynced"]
    assert {r[0] for r in events_in_db(trail_home)} == ids_in_trace(path)
    assert len(events_in_db(trail_home)) == 19
    [(count,)] = db_rows(trail_home, "SELECT event_count FROM sessions")
    assert count == 19


def test_truncate_and_regrow_past_the_offset(trail_home: Path) -> None:
    path = trace(trail_home)
    append(path, b"".join(event_line(i) for i in range(5)))
    sync_ok(trail_home)
    size = path.stat().st_size
    os.truncate(path, 0)
    append(path, b"".join(event_line(i) for i in range(200, 210)))
    assert path.stat().st_size > size  # a size check alone would see a file that grew
    sync_ok(trail_home)
    assert {r[0] for r in events_in_db(trail_home)} == ids_in_trace(path)


def blank_in_place(path: Path) -> None:
    """Overwrite the token with as many X's, same inode, same size."""
    data = path.read_bytes()
    at = data.index(TOKEN.encode())
    with path.open("r+b") as fh:
        fh.seek(at)
        fh.write(b"X" * len(TOKEN))


def test_a_token_blanked_in_place_leaves_the_mirror(trail_home: Path) -> None:
    path = trace(trail_home)
    append(path, event_line(0) + event_line(1, prompt=f"use {TOKEN} here") + event_line(2))
    sync_ok(trail_home)
    assert db_rows(trail_home, "SELECT count(*) FROM events WHERE body LIKE ?", (f"%{TOKEN}%",))
    inode, size = path.stat().st_ino, path.stat().st_size
    blank_in_place(path)
    assert (path.stat().st_ino, path.stat().st_size) == (inode, size)
    report = sync_ok(trail_home)
    assert report["resynced"]
    assert db_rows(
        trail_home, "SELECT count(*) FROM events WHERE body LIKE ?", (f"%{TOKEN}%",)
    ) == [(0,)]
    assert len(events_in_db(trail_home)) == 3


def test_a_token_blanked_then_more_appended(trail_home: Path) -> None:
    path = trace(trail_home)
    append(path, event_line(0, prompt=f"use {TOKEN} here") + event_line(1) + event_line(2))
    sync_ok(trail_home)
    blank_in_place(path)
    append(path, event_line(3) + event_line(4))  # and the session goes on before a sync
    sync_ok(trail_home)
    assert db_rows(
        trail_home, "SELECT count(*) FROM events WHERE body LIKE ?", (f"%{TOKEN}%",)
    ) == [(0,)]
    assert {r[0] for r in events_in_db(trail_home)} == ids_in_trace(path)


def test_a_replaced_file_of_the_same_size_is_re_read(trail_home: Path) -> None:
    path = trace(trail_home)
    append(path, event_line(0, prompt=f"a {TOKEN}") + event_line(1))
    sync_ok(trail_home)
    data = path.read_bytes().replace(TOKEN.encode(), b"-" * len(TOKEN))
    tmp = path.with_name("trace.jsonl.new")
    tmp.write_bytes(data)
    os.replace(tmp, path)  # an editor that saves by rename
    sync_ok(trail_home)
    assert db_rows(
        trail_home, "SELECT count(*) FROM events WHERE body LIKE ?", (f"%{TOKEN}%",)
    ) == [(0,)]
    assert len(events_in_db(trail_home)) == 2


def test_an_untouched_trace_is_not_re_read(trail_home: Path) -> None:
    path = trace(trail_home)
    append(path, b"".join(event_line(i) for i in range(3)))
    sync_ok(trail_home)
    append(path, event_line(3))
    report = sync_ok(trail_home)
    assert report["resynced"] == [] and report["new_events"] == 1
    os.utime(path)  # touched, not changed
    report = sync_ok(trail_home)
    assert report["resynced"] == [] and report["new_events"] == 0


def test_a_symlinked_trace_is_not_followed(trail_home: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.jsonl"
    outside.write_bytes(event_line(0, prompt=f"outside {TOKEN}"))
    link = trace(trail_home, "s-link")
    link.parent.mkdir(parents=True)
    link.symlink_to(outside)
    report = sync_ok(trail_home)
    assert report["ignored"] and report["new_events"] == 0
    assert db_rows(trail_home, "SELECT count(*) FROM events") == [(0,)]
