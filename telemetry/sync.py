"""The JSONL -> SQLite mirror: incremental, idempotent, tolerant of torn and malformed lines.

Each ``trace.jsonl`` has a stored byte offset; a sync reads only what lies past it, up to the
last complete line. A trailing partial line (a writer still writing, or killed mid-line) is left
for a later sync. A malformed line is quarantined with its reason; if a killed writer's torn
line was followed by later appends, the event glued after the tear is recovered by its line
prefix. Rows are ``INSERT OR IGNORE`` on deterministic event ids, so re-running adds nothing.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson
from sqlite_utils import Database

from telemetry import lifecycle
from trace_ingest.events import KINDS, LINE_PREFIX, now_iso
from trace_ingest.paths import sessions_dir

CHUNK_BYTES = 4 * 1024 * 1024
# A last line without a newline is a write in progress, unless the file has not changed for
# this long: then a writer was killed mid-line (one write() per event takes microseconds).
TORN_AFTER_SECONDS = 30.0
_PREFIX = LINE_PREFIX.encode()
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
_INSERT = (
    "INSERT OR IGNORE INTO events (id, session_key, harness, source, kind, ts, received_at,"
    " hook_event, tool_name, tool, call_id, path, ok, duration_ms, agent_id, file_offset, body)"
    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
)


@dataclass
class Skipped:
    path: str
    offset: int
    reason: str
    length: int = 0


@dataclass
class SyncReport:
    files: int = 0
    new_events: int = 0
    quarantined: list[Skipped] = field(default_factory=list)
    pending: list[Skipped] = field(default_factory=list)  # incomplete trailing lines
    closed: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "files": self.files,
            "new_events": self.new_events,
            "quarantined": [s.__dict__ for s in self.quarantined],
            "pending": [s.__dict__ for s in self.pending],
            "closed_by_sweep": self.closed,
        }


def trace_files(home: str) -> Iterator[tuple[str, str]]:
    """Every ``(path, session_key)`` under ``sessions/<harness>/<key>/trace.jsonl``."""
    root = sessions_dir(home)
    if not os.path.isdir(root):
        return
    for harness in sorted(os.listdir(root)):
        hdir = os.path.join(root, harness)
        if not os.path.isdir(hdir):
            continue
        for key in sorted(os.listdir(hdir)):
            path = os.path.join(hdir, key, "trace.jsonl")
            if os.path.isfile(path):
                yield path, f"{harness}/{key}"


def sync(db: Database, home: str, idle_minutes: float = 30.0) -> SyncReport:
    """Mirror every trace file, then sweep idle sessions closed."""
    report = SyncReport()
    for path, key in trace_files(home):
        sync_file(db, path, key, report)
    report.closed = lifecycle.sweep(db, idle_minutes)
    return report


def sync_file(db: Database, path: str, key: str, report: SyncReport) -> None:
    """Mirror the new complete lines of one trace file."""
    report.files += 1
    conn = db.conn
    conn.execute(
        "BEGIN IMMEDIATE"
    )  # one syncer per file at a time; offsets and rows commit together
    try:
        _sync_file_locked(db, path, key, report)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _sync_file_locked(db: Database, path: str, key: str, report: SyncReport) -> None:
    conn = db.conn
    st = os.stat(path)
    row = conn.execute(
        "SELECT offset, inode, lines, malformed FROM trace_files WHERE path = ?", [path]
    ).fetchone()
    offset, lines, malformed = (row[0], row[2], row[3]) if row else (0, 0, 0)
    if row and (row[1] != st.st_ino or st.st_size < offset):
        # Replaced or rewritten: re-read from the start (ids make that idempotent) and count
        # its lines afresh.
        offset, lines, malformed = 0, 0, 0
    if st.st_size == offset:
        return
    harness = key.split("/", 1)[0]
    with open(path, "rb") as fh:
        fh.seek(offset)
        while True:
            chunk = fh.read(CHUNK_BYTES)
            if not chunk:
                break
            end = chunk.rfind(b"\n")
            if end == -1:
                if len(chunk) < CHUNK_BYTES:
                    break
                # A single line longer than a chunk: read on until its newline.
                chunk += _read_to_newline(fh)
                end = chunk.rfind(b"\n")
                if end == -1:
                    break
            complete = chunk[: end + 1]
            fh.seek(offset + len(complete))
            new_events: list[dict[str, Any]] = []
            rows, bad = _parse(complete, offset, key, harness, path, new_events)
            conn.executemany(_INSERT, rows)
            if new_events:  # per chunk, so memory stays flat however long the file is
                report.new_events += lifecycle.apply(db, key, path, new_events)
            _quarantine(conn, path, bad, report)
            lines += complete.count(b"\n")
            malformed += len(bad)
            offset += len(complete)
    if offset < st.st_size:
        rest = st.st_size - offset
        if time.time() - st.st_mtime > TORN_AFTER_SECONDS:
            # Nobody has written for a while: a writer was killed mid-line. Skip the torn
            # bytes, so the next event appended after them is read as a line of its own.
            reason = (
                f"torn last line ({rest} bytes, no newline, file unchanged for "
                f"{TORN_AFTER_SECONDS:g}s+): a writer stopped mid-line"
            )
            _quarantine(conn, path, [Skipped(path, offset, reason, rest)], report)
            malformed += 1
            offset = st.st_size
        else:
            reason = f"incomplete last line ({rest} bytes, no newline yet); read once complete"
            report.pending.append(Skipped(path, offset, reason, rest))
    conn.execute(
        "INSERT OR REPLACE INTO trace_files (path, session_key, offset, inode, lines, malformed,"
        " synced_at) VALUES (?,?,?,?,?,?,?)",
        [path, key, offset, st.st_ino, lines, malformed, now_iso()],
    )


def _read_to_newline(fh: Any) -> bytes:
    parts = []
    while True:
        block: bytes = fh.read(CHUNK_BYTES)
        if not block:
            break
        parts.append(block)
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
            ev = _recover(line, at, path, bad, str(exc))
            if ev is None:
                continue
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
        wrong = next(
            (
                name
                for name, value in zip(_COLUMNS, row, strict=True)
                if not isinstance(value, _SCALARS)
            ),
            None,
        )
        if wrong is not None:
            bad.append(Skipped(path, at, f"field {wrong!r} is not a string or number", len(line)))
            continue
        rows.append(row)
        sink.append(ev)
    return rows, bad


def _recover(line: bytes, at: int, path: str, bad: list[Skipped], error: str) -> Any:
    """A torn line followed by a whole event: quarantine the torn part, keep the event."""
    cut = line.rfind(_PREFIX)
    if cut > 0:
        try:
            ev = orjson.loads(line[cut:])
        except orjson.JSONDecodeError:
            ev = None
        if ev is not None:
            bad.append(
                Skipped(
                    path,
                    at,
                    f"torn line ({cut} bytes, a writer stopped mid-line);"
                    " the event written after it was recovered",
                )
            )
            return ev
    bad.append(Skipped(path, at, f"malformed JSON ({len(line)} bytes): {error}", len(line)))
    return None


def _quarantine(conn: Any, path: str, bad: list[Skipped], report: SyncReport) -> None:
    for item in bad:
        conn.execute(
            "INSERT OR IGNORE INTO quarantine (path, offset, length, reason, preview, seen_at)"
            " VALUES (?,?,?,?,?,?)",
            # No preview: the line stays in its trace file; the mirror keeps where and why.
            [path, item.offset, item.length, item.reason, "", now_iso()],
        )
    report.quarantined.extend(bad)
