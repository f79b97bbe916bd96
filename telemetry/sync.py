"""The JSONL -> SQLite mirror: incremental, idempotent, tolerant of torn and malformed lines.

Each ``trace.jsonl`` has a stored byte offset and a fingerprint (inode, mtime, hashes of its
first bytes, of the bytes before the offset and, up to 8 MiB, of everything mirrored). A sync
reads only what lies past the offset, up to the last complete line, and commits in bounded
steps (one chunk of at most ``CHUNK_BYTES`` per transaction, the new offset with it), so a
killed sync keeps what it committed and the next one goes on from there. A file that shrank,
was replaced or was edited in place is re-read from the start, its old rows deleted first.

A trailing partial line (a writer still writing, or killed mid-line) is left for a later sync.
A malformed line is quarantined with its reason; if a killed writer's torn line was followed by
later appends, the event glued after the tear is recovered by its line prefix and stored as
exactly its own bytes. Rows are ``INSERT OR IGNORE`` on deterministic event ids, so re-running
adds nothing.

Readers never wait on a writer: ``sync(..., wait=False)`` (what every read command does) tries
the write lock briefly, and when another sync holds it, stops and reads what is there.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson
from sqlite_utils import Database

from telemetry import lifecycle
from telemetry.db import MirrorBusy as MirrorBusy
from telemetry.db import begin_immediate
from trace_ingest._blake import blake2b
from trace_ingest.events import KINDS, LINE_PREFIX, now_iso
from trace_ingest.paths import sessions_dir
from trace_ingest.progress import Progress

# One step: at most this much is read, parsed and committed per transaction (a single line
# longer than this is read whole). Memory stays flat, and a kill loses at most one step.
CHUNK_BYTES = 4 * 1024 * 1024
# A last line without a newline is a write in progress, unless the file has not changed for
# this long: then a writer was killed mid-line (one write() per event takes microseconds).
TORN_AFTER_SECONDS = 30.0
# Fingerprints: the first and the last bytes mirrored, and everything up to this size.
HEAD_BYTES = 64 * 1024
TAIL_BYTES = 64 * 1024
VERIFY_ALL_BYTES = 8 * 1024 * 1024
# A writer (`trail sync`, `trail watch`) waits this long for the write lock per step; a
# reader's catch-up waits only READER_WAIT_MS, then reads what is there.
WRITER_WAIT_MS = 10_000
READER_WAIT_MS = 300
_PREFIX = LINE_PREFIX.encode()
MAX_RECOVERY_TRIES = 64  # line prefixes tried per torn line (nested objects can repeat it)
_COLUMNS = (
    "id",
    "session_key",
    "harness",
    "source",
    "kind",
    "ts",
    "received_at",
    "hook_event",
    "tool_name",
    "tool",
    "call_id",
    "path",
    "ok",
    "duration_ms",
    "agent_id",
    "file_offset",
    "body",
)
_SCALARS = (str, int, float, type(None))
_SCALAR_TYPES = frozenset((str, int, float, bool, type(None)))
_INSERT = (
    f"INSERT OR IGNORE INTO events ({', '.join(_COLUMNS)}) VALUES ({','.join('?' * len(_COLUMNS))})"
)
_STATE = (
    "SELECT offset, inode, lines, malformed, mtime_ns, head_hash, tail_hash, full_hash"
    " FROM trace_files WHERE path = ?"
)


@dataclass
class Skipped:
    path: str
    offset: int
    reason: str
    length: int = 0


@dataclass
class Resynced:
    path: str
    reason: str


@dataclass
class SyncReport:
    files: int = 0
    new_events: int = 0
    quarantined: list[Skipped] = field(default_factory=list)
    pending: list[Skipped] = field(default_factory=list)  # incomplete trailing lines
    closed: int = 0
    resynced: list[Resynced] = field(default_factory=list)  # re-read from the start
    ignored: list[Skipped] = field(default_factory=list)  # not regular files: never read
    busy: bool = False  # a reader stopped catching up: another sync holds the write lock

    def as_dict(self) -> dict[str, Any]:
        return {
            "files": self.files,
            "new_events": self.new_events,
            "quarantined": [s.__dict__ for s in self.quarantined],
            "pending": [s.__dict__ for s in self.pending],
            "closed_by_sweep": self.closed,
            "resynced": [r.__dict__ for r in self.resynced],
            "ignored": [s.__dict__ for s in self.ignored],
            "busy": self.busy,
        }


def trace_files(home: str, ignored: list[Skipped] | None = None) -> Iterator[tuple[str, str]]:
    """Every ``(path, session_key)`` under ``sessions/<harness>/<key>/trace.jsonl``.

    Symlinks (of the folders or of the file) and anything that is not a regular file are never
    followed out of the data dir: they are listed in ``ignored`` instead.
    """
    root = sessions_dir(home)
    if os.path.islink(root) or not os.path.isdir(root):
        if ignored is not None and os.path.islink(root):
            ignored.append(Skipped(root, 0, "a symlink; not followed"))
        return
    for harness in sorted(os.listdir(root)):
        hdir = os.path.join(root, harness)
        if not _real_dir(hdir, ignored):
            continue
        for key in sorted(os.listdir(hdir)):
            kdir = os.path.join(hdir, key)
            if not _real_dir(kdir, ignored):
                continue
            path = os.path.join(kdir, "trace.jsonl")
            try:
                st = os.lstat(path)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode):
                yield path, f"{harness}/{key}"
            elif ignored is not None:
                ignored.append(Skipped(path, 0, "not a regular file (a symlink?); not read"))


def _real_dir(path: str, ignored: list[Skipped] | None) -> bool:
    try:
        st = os.lstat(path)
    except OSError:
        return False
    if stat.S_ISDIR(st.st_mode):
        return True
    if stat.S_ISLNK(st.st_mode) and ignored is not None:
        ignored.append(Skipped(path, 0, "a symlink; not followed"))
    return False


def sync(
    db: Database,
    home: str,
    idle_minutes: float = 30.0,
    *,
    wait: bool = True,
    progress: Progress | None = None,
) -> SyncReport:
    """Mirror every trace file, then sweep idle sessions closed (``progress``: a meter that
    sees files and events as they are mirrored).

    ``wait=False`` (readers): when another sync holds the write lock for more than
    ``READER_WAIT_MS``, stop, set ``report.busy`` and leave the rest to that sync. ``wait=True``
    (writers) waits up to ``WRITER_WAIT_MS`` per step, then raises ``MirrorBusy``.
    """
    report = SyncReport()
    conn = db.conn
    conn.execute(f"PRAGMA busy_timeout = {WRITER_WAIT_MS if wait else READER_WAIT_MS}")
    batch = _Batch(conn)
    try:
        for path, key in trace_files(home, report.ignored):
            sync_file(db, path, key, report, reader=not wait, batch=batch)
            if progress is not None:
                progress.update(report.files, report.new_events)
        batch.commit()
        report.closed = lifecycle.sweep(db, idle_minutes)
    except MirrorBusy:
        if wait:
            raise
        report.busy = True
    finally:
        conn.execute(f"PRAGMA busy_timeout = {WRITER_WAIT_MS}")
        if progress is not None:
            progress.done()
    return report


# The write lock (telemetry.db): BEGIN IMMEDIATE, MirrorBusy when it stays taken.
_begin_immediate = begin_immediate


class _Batch:
    """The open write transaction of a sync: steps of several small files share one, and it
    is committed as soon as it holds ``CHUNK_BYTES`` of lines (each commit carries the
    offsets of everything in it), so work stays bounded per commit and commits stay few."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.open = False
        self.size = 0

    def begin(self) -> None:
        if self.open:
            return
        _begin_immediate(self.conn)
        self.open = True

    def stepped(self, size: int) -> None:
        self.size += size
        if self.size >= CHUNK_BYTES:
            self.commit()

    def commit(self) -> None:
        if self.open:
            self.open, self.size = False, 0
            if self.conn.in_transaction:
                self.conn.execute("COMMIT")

    def rollback(self) -> None:
        if self.open:
            self.open, self.size = False, 0
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")


@dataclass
class _File:
    """One sync of one file: what this process last wrote, and the running full hash."""

    path: str
    key: str
    fd: int
    reader: bool = False  # back off (MirrorBusy) as soon as another sync is seen at work
    written: tuple[Any, ...] | None = None
    hasher: Any = None  # blake2b over [0, hashed_to)
    hashed_to: int = -1


def sync_file(
    db: Database,
    path: str,
    key: str,
    report: SyncReport,
    *,
    reader: bool = False,
    batch: _Batch | None = None,
) -> None:
    """Mirror the new complete lines of one trace file in bounded steps (at most
    ``CHUNK_BYTES`` of lines per commit; ``batch`` lets small files share a commit).

    ``reader``: raise MirrorBusy as soon as another sync is seen moving the same file on.
    """
    own = batch is None
    batch = batch or _Batch(db.conn)
    report.files += 1
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        report.ignored.append(Skipped(path, 0, f"cannot open: {exc.strerror or exc}"))
        return
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            report.ignored.append(Skipped(path, 0, "not a regular file; not read"))
            return
        state = _File(path, key, fd, reader)
        while not _step(db, state, report, batch):
            pass
        if own:
            batch.commit()
    finally:
        os.close(fd)


def _step(db: Database, f: _File, report: SyncReport, batch: _Batch) -> bool:
    """One bounded step; True when the file is mirrored as far as it can be for now."""
    conn = db.conn
    # Unchanged files cost a stat and a read, never the write lock.
    row = conn.execute(_STATE, [f.path]).fetchone()
    st = os.fstat(f.fd)
    if row and row[1] == st.st_ino and row[0] == st.st_size and row[4] == st.st_mtime_ns:
        return True
    if f.reader and f.written is not None and row != f.written:
        raise MirrorBusy("another sync is mirroring this file")
    # A file that shrank, was replaced or was edited is checked outside the lock.
    changed = None if row is None or row == f.written else _changed(f, st, row)
    batch.begin()
    try:
        if conn.execute(_STATE, [f.path]).fetchone() != row:
            if f.reader:
                raise MirrorBusy("another sync is mirroring this file")
            return False  # another sync moved on meanwhile: look again
        if changed:
            _forget(conn, f.path, f.key)
            report.resynced.append(Resynced(f.path, changed))
            row = None
        before = int(row[0]) if row else 0
        done = _advance(db, f, st, row, report)
    except BaseException:
        batch.rollback()
        raise
    batch.stepped(max(f.hashed_to - before, 0) + 4096)  # a floor per step bounds tiny ones
    return done


def _changed(f: _File, st: os.stat_result, row: Any) -> str | None:
    """Why the mirrored part of the file is not what was mirrored, or None."""
    offset, inode = int(row[0]), row[1]
    if inode is not None and inode != st.st_ino:
        return "the file was replaced (new inode): re-read from the start"
    if st.st_size < offset:
        return f"the file was truncated ({st.st_size} bytes, {offset} mirrored): re-read"
    head_hash, tail_hash, full_hash = row[5], row[6], row[7]
    if full_hash is not None and offset <= VERIFY_ALL_BYTES:
        hasher = _hash_range(f.fd, 0, offset)
        if hasher.hexdigest() != full_hash:
            return "the file was edited where it was already mirrored: re-read"
        f.hasher, f.hashed_to = hasher, offset
        return None
    if head_hash is not None and head_hash != _head_tail(f.fd, offset)[0]:
        return "the file's first bytes changed: re-read"
    if tail_hash is not None and tail_hash != _head_tail(f.fd, offset)[1]:
        return "the file was edited before the mirrored offset: re-read"
    return None


def _forget(conn: sqlite3.Connection, path: str, key: str) -> None:
    """Drop everything mirrored from one file, so it is read again from byte 0."""
    conn.execute("DELETE FROM events WHERE session_key = ?", [key])
    conn.execute("DELETE FROM redactions WHERE session_key = ?", [key])
    conn.execute("DELETE FROM sessions WHERE key = ?", [key])
    conn.execute("DELETE FROM quarantine WHERE path = ?", [path])
    conn.execute("DELETE FROM trace_files WHERE path = ?", [path])


def _hash_range(fd: int, start: int, end: int, hasher: Any = None) -> Any:
    hasher = hasher or blake2b(digest_size=16)
    pos = start
    while pos < end:
        block = os.pread(fd, min(CHUNK_BYTES, end - pos), pos)
        if not block:
            break
        hasher.update(block)
        pos += len(block)
    return hasher


def _head_tail(fd: int, offset: int) -> tuple[str, str]:
    head = os.pread(fd, min(offset, HEAD_BYTES), 0)
    size = min(offset, TAIL_BYTES)
    tail = os.pread(fd, size, offset - size)
    return (
        blake2b(head, digest_size=16).hexdigest(),
        blake2b(tail, digest_size=16).hexdigest(),
    )


def _advance(db: Database, f: _File, st: os.stat_result, row: Any, report: SyncReport) -> bool:
    """Inside the write lock: mirror one chunk past the stored offset and store the state."""
    conn = db.conn
    offset, lines, malformed = (int(row[0]), int(row[2]), int(row[3])) if row else (0, 0, 0)
    if f.hashed_to != offset:
        # Keep a running hash of everything mirrored while the file is small enough.
        f.hasher = _hash_range(f.fd, 0, offset) if offset <= VERIFY_ALL_BYTES else None
        f.hashed_to = offset
    size = st.st_size  # never past what the stat saw, so the stored mtime matches the bytes
    done = True
    if offset < size:
        chunk = os.pread(f.fd, min(CHUNK_BYTES, size - offset), offset)
        end = chunk.rfind(b"\n")
        if end == -1 and len(chunk) == CHUNK_BYTES:
            # A single line longer than a chunk: read on until its newline.
            chunk += _read_to_newline(f.fd, offset + len(chunk), size)
            end = chunk.rfind(b"\n")
        if end != -1:
            complete = chunk[: end + 1]
            new_events: list[dict[str, Any]] = []
            harness = f.key.split("/", 1)[0]
            rows, bad = _parse(complete, offset, f.key, harness, f.path, new_events)
            conn.executemany(_INSERT, rows)
            if new_events:
                report.new_events += lifecycle.apply(db, f.key, f.path, new_events)
            _quarantine(conn, f.path, bad, report)
            lines += complete.count(b"\n")
            malformed += len(bad)
            if f.hasher is not None:
                f.hasher.update(complete)
            offset += len(complete)
            done = offset >= size
        if offset < size and end == -1:
            rest = size - offset
            if time.time() - st.st_mtime > TORN_AFTER_SECONDS:
                # Nobody has written for a while: a writer was killed mid-line. Skip the torn
                # bytes, so the next event appended after them is read as a line of its own.
                reason = (
                    f"torn last line ({rest} bytes, no newline, file unchanged for "
                    f"{TORN_AFTER_SECONDS:g}s+): a writer stopped mid-line"
                )
                _quarantine(conn, f.path, [Skipped(f.path, offset, reason, rest)], report)
                malformed += 1
                if f.hasher is not None and size <= VERIFY_ALL_BYTES:
                    _hash_range(f.fd, offset, size, f.hasher)
                else:
                    f.hasher = None
                offset = size
            else:
                reason = f"incomplete last line ({rest} bytes, no newline yet); read once complete"
                report.pending.append(Skipped(f.path, offset, reason, rest))
            done = True
    if f.hasher is not None and offset > VERIFY_ALL_BYTES:
        f.hasher = None
    f.hashed_to = offset
    head_hash, tail_hash = _head_tail(f.fd, offset)
    full_hash = f.hasher.hexdigest() if f.hasher is not None else None
    state = (
        offset,
        st.st_ino,
        lines,
        malformed,
        st.st_mtime_ns,
        head_hash,
        tail_hash,
        full_hash,
    )
    conn.execute(
        "INSERT OR REPLACE INTO trace_files (path, session_key, offset, inode, lines, malformed,"
        " synced_at, mtime_ns, head_hash, tail_hash, full_hash) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
        [f.path, f.key, offset, st.st_ino, lines, malformed, now_iso(), *state[4:]],
    )
    f.written = state
    return done


def _read_to_newline(fd: int, pos: int, end: int) -> bytes:
    parts = []
    while pos < end:
        block = os.pread(fd, min(CHUNK_BYTES, end - pos), pos)
        if not block:
            break
        parts.append(block)
        pos += len(block)
        if b"\n" in block:
            break
    return b"".join(parts)


def _parse(
    data: bytes,
    base: int,
    key: str,
    harness: str,
    path: str,
    sink: list[dict[str, Any]],
) -> tuple[list[tuple[Any, ...]], list[Skipped]]:
    rows: list[tuple[Any, ...]] = []
    bad: list[Skipped] = []
    pos = 0
    loads = orjson.loads
    for line in data.split(b"\n")[:-1]:
        at = base + pos
        pos += len(line) + 1
        if not line.strip():
            continue
        try:
            ev = loads(line)
        except orjson.JSONDecodeError as exc:
            cut, ev = _recover(line, at, path, bad, str(exc))
            if ev is None:
                continue
            # The row is exactly the recovered event: its own bytes, at its own offset.
            line = line[cut:]
            at += cut
        if not isinstance(ev, dict) or not ev.get("id") or ev.get("kind") not in KINDS:
            bad.append(
                Skipped(path, at, "not a schema-v1 event (missing id or unknown kind)", len(line))
            )
            continue
        ok = ev.get("ok")
        row = (
            ev["id"],
            key,
            ev.get("harness") or harness,
            ev.get("source"),
            ev["kind"],
            ev.get("ts"),
            ev.get("received_at"),
            ev.get("hook_event"),
            ev.get("tool_name"),
            ev.get("tool"),
            ev.get("call_id"),
            ev.get("path"),
            None if ok is None else int(bool(ok)),
            ev.get("duration_ms"),
            ev.get("agent_id"),
            at,
            line.decode("utf-8", "replace"),
        )
        # One C-level pass over the types (orjson gives exact types); names only on a miss.
        if not _SCALAR_TYPES.issuperset(map(type, row)):
            wrong = next(
                name
                for name, value in zip(_COLUMNS, row, strict=True)
                if not isinstance(value, _SCALARS)
            )
            bad.append(Skipped(path, at, f"field {wrong!r} is not a string or number", len(line)))
            continue
        rows.append(row)
        sink.append(ev)
    return rows, bad


def _recover(line: bytes, at: int, path: str, bad: list[Skipped], error: str) -> tuple[int, Any]:
    """A torn line followed by a whole event: quarantine the torn part, keep the event.

    Returns ``(cut, event)``: the event is the JSON from byte ``cut`` of the line to its end,
    found at the first line prefix (``{"v":1,"id":"``) after byte 0 from which the rest parses.
    ``(0, None)`` when nothing parses; the whole line is then quarantined.
    """
    cut = line.find(_PREFIX, 1)
    tries = 0
    while cut > 0 and tries < MAX_RECOVERY_TRIES:
        tries += 1
        try:
            ev = orjson.loads(line[cut:])
        except orjson.JSONDecodeError:
            cut = line.find(_PREFIX, cut + 1)
            continue
        bad.append(
            Skipped(
                path,
                at,
                f"torn line ({cut} bytes, a writer stopped mid-line);"
                " the event written after it was recovered",
                cut,
            )
        )
        return cut, ev
    bad.append(Skipped(path, at, f"malformed JSON ({len(line)} bytes): {error}", len(line)))
    return 0, None


def _quarantine(conn: Any, path: str, bad: list[Skipped], report: SyncReport) -> None:
    for item in bad:
        conn.execute(
            "INSERT OR IGNORE INTO quarantine (path, offset, length, reason, preview, seen_at)"
            " VALUES (?,?,?,?,?,?)",
            # No preview: the line stays in its trace file; the mirror keeps where and why.
            [path, item.offset, item.length, item.reason, "", now_iso()],
        )
    report.quarantined.extend(bad)
