"""Copilot Chat's chronicle store: ``session-store.db`` (SQLite, schema version 3).

DDL and behaviour: ``microsoft/vscode`` ``extensions/copilot/src/platform/chronicle/node/
sessionStore.ts`` @``02d77ce1`` (MIT; NC §1.4): tables ``sessions`` (id, cwd, repository,
host_type, branch, summary, agent_name, agent_description, created_at, updated_at), ``turns``
(turn_index, user_message, assistant_response, timestamp), ``checkpoints`` (compaction
checkpoints: title, overview, history, work_done, technical_details, important_files,
next_steps), ``session_files`` (the first sighting of each file a tool touched) and
``session_refs`` (commits, PRs, issues). "Populated incrementally by live hooks".

VS Code holds the file open (WAL, ``busy_timeout`` 3 s; a rollback journal on remote
workspaces), so trail opens it **read-only** (``mode=ro`` URI, ``query_only``), never writes,
never checkpoints. When even a read-only open is refused (locked by a writer in rollback mode,
or a read-only folder without the ``-shm`` file), it is read as ``immutable=1``, which skips
locking and the WAL: rows VS Code has not checkpointed yet are then missing, and the report
says so. A corrupt file is a precise per-file error; VS Code itself deletes and recreates one.

Mapping: a turn is a prompt and the turn's stop; a checkpoint is a compaction (its overview
the text); the session row, files and refs are ``other`` events carrying their columns.
"""

from __future__ import annotations

import sqlite3
import urllib.parse
from collections.abc import Iterator
from typing import Any

from trace_ingest.events import Event, new_event
from trace_ingest.importers._pipeline import open_regular
from trace_ingest.importers.vscode_reading import FileReport
from trace_ingest.vscode_facts import HARNESS, iso

SOURCE = "chronicle"
TABLES = ("sessions", "turns", "checkpoints", "session_files", "session_refs")
_CORRUPT = ("malformed", "not a database", "disk image", "disk i/o error", "file is encrypted")


def read_store(path: str, received_at: str) -> tuple[FileReport, Iterator[Event]]:
    report = FileReport(path, format="chronicle session-store.db")
    return report, _events(path, received_at, report)


def _uri(path: str, extra: str) -> str:
    return "file:" + urllib.parse.quote(path) + "?mode=ro" + extra


def open_read_only(path: str, report: FileReport) -> sqlite3.Connection | None:
    """A read-only connection, or None with ``report.error`` set."""
    try:  # SQLite would block on a FIFO (and read a device forever)
        open_regular(path).close()
    except OSError as exc:
        report.error = f"cannot read: {exc.strerror or exc}"
        return None
    last: sqlite3.Error | None = None
    for extra, note in (
        ("", None),
        (
            "&immutable=1",
            "opened with immutable=1 (the file was locked or its -shm unavailable): rows not "
            "yet checkpointed from the WAL are not included",
        ),
    ):
        try:
            conn = sqlite3.connect(_uri(path, extra), uri=True, timeout=2.0)
            conn.execute("PRAGMA query_only = 1")
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.Error as exc:
            last = exc
            if _is_corrupt(exc):
                break
            continue
        if note:
            report.warnings.append(note)
        return conn
    message = str(last) if last else "cannot open"
    if last is not None and _is_corrupt(last):
        report.error = f"corrupt SQLite file ({message}); nothing read"
    elif "locked" in message or "busy" in message:
        report.error = f"locked by another process and not readable even as immutable ({message})"
    else:
        report.error = f"cannot open read-only: {message}"
    return None


def _is_corrupt(exc: sqlite3.Error) -> bool:
    text = str(exc).lower()
    return any(marker in text for marker in _CORRUPT)


def _events(path: str, received_at: str, report: FileReport) -> Iterator[Event]:
    conn = open_read_only(path, report)
    if conn is None:
        return
    try:
        conn.row_factory = sqlite3.Row
        present = {
            r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        }
        missing = [t for t in TABLES if t not in present]
        if "sessions" in missing or "turns" in missing:
            report.error = f"not a chronicle store: no table {', '.join(missing)}"
            return
        if missing:
            report.warnings.append(f"tables missing (older schema?): {', '.join(missing)}")
        if "schema_version" in present:
            row = conn.execute("SELECT version FROM schema_version LIMIT 1").fetchone()
            version = row[0] if row else None
            report.format = f"chronicle session-store.db (schema {version})"
            if version is not None and version > 3:
                report.warnings.append(f"schema version {version}: read as version 3")
        yield from _rows(conn, received_at, report, present)
    except sqlite3.Error as exc:
        if _is_corrupt(exc):
            report.error = f"corrupt SQLite file while reading ({exc})"
        else:
            report.skip(0, f"reading stopped: {exc}")
    finally:
        conn.close()


def _cols(conn: sqlite3.Connection, table: str) -> set[str]:
    return {r[1] for r in conn.execute(f"PRAGMA table_info({table})")}


def _rows(
    conn: sqlite3.Connection, received_at: str, report: FileReport, present: set[str]
) -> Iterator[Event]:
    sessions = _cols(conn, "sessions")
    cwd: dict[str, str | None] = {}
    seq = 0

    def event(sid: str, kind: str, ts: Any, parts: tuple[object, ...]) -> Event:
        nonlocal seq
        seq += 1
        report.sessions.add(sid)
        ev = new_event(
            harness=HARNESS,
            source=SOURCE,
            session_id=sid,
            kind=kind,
            received_at=received_at,
            ts=_ts(ts),
            id_parts=parts,
        )
        ev["seq"] = seq
        if cwd.get(sid):
            ev["cwd"] = cwd[sid]
        return ev

    wanted = [
        c
        for c in (
            "id",
            "cwd",
            "repository",
            "host_type",
            "branch",
            "summary",
            "agent_name",
            "agent_description",
            "created_at",
            "updated_at",
        )
        if c in sessions
    ]
    for row in conn.execute(f"SELECT {', '.join(wanted)} FROM sessions ORDER BY id"):
        report.lines += 1
        sid = str(row["id"])
        cwd[sid] = row["cwd"] if "cwd" in wanted else None
        ev = event(
            sid, "other", row["created_at"] if "created_at" in wanted else None, ("session",)
        )
        ev["hook_event"] = "session"
        ev["extra"] = {k: row[k] for k in wanted if k not in ("id", "cwd") and row[k] is not None}
        yield ev
    for row in conn.execute(
        "SELECT session_id, turn_index, user_message, assistant_response, timestamp FROM turns "
        "ORDER BY session_id, turn_index"
    ):
        report.lines += 1
        sid, index = str(row["session_id"]), row["turn_index"]
        prompt_id = f"turn:{index}"
        if row["user_message"] is not None:
            ev = event(sid, "prompt", row["timestamp"], ("turn", index, "prompt"))
            ev["hook_event"] = "turn"
            ev["text"] = row["user_message"]
            ev["prompt_id"] = prompt_id
            yield ev
        if row["assistant_response"] is not None:
            ev = event(sid, "agent_stop", row["timestamp"], ("turn", index, "stop"))
            ev["hook_event"] = "turn"
            ev["text"] = row["assistant_response"]
            ev["prompt_id"] = prompt_id
            yield ev
    if "checkpoints" in present:
        for row in conn.execute("SELECT * FROM checkpoints ORDER BY session_id, checkpoint_number"):
            report.lines += 1
            sid = str(row["session_id"])
            ev = event(
                sid, "compaction", row["created_at"], ("checkpoint", row["checkpoint_number"])
            )
            ev["hook_event"] = "checkpoint"
            ev["text"] = row["overview"]
            ev["extra"] = {
                k: row[k]
                for k in row.keys()  # noqa: SIM118 - sqlite3.Row
                if k not in ("id", "session_id", "overview", "created_at") and row[k] is not None
            }
            yield ev
    if "session_files" in present:
        for row in conn.execute("SELECT * FROM session_files ORDER BY session_id, id"):
            report.lines += 1
            sid = str(row["session_id"])
            ev = event(sid, "other", row["first_seen_at"], ("file", row["file_path"]))
            ev["hook_event"] = "session_file"
            ev["path"] = row["file_path"]
            ev["tool_name"] = row["tool_name"]
            ev["extra"] = {"turn_index": row["turn_index"]}
            yield ev
    if "session_refs" in present:
        for row in conn.execute("SELECT * FROM session_refs ORDER BY session_id, id"):
            report.lines += 1
            sid = str(row["session_id"])
            ev = event(sid, "other", row["created_at"], ("ref", row["ref_type"], row["ref_value"]))
            ev["hook_event"] = "session_ref"
            ev["extra"] = {
                "ref_type": row["ref_type"],
                "ref_value": row["ref_value"],
                "turn_index": row["turn_index"],
            }
            yield ev


def _ts(value: Any) -> str | None:
    """The store's ``strftime('%Y-%m-%dT%H:%M:%fZ')`` or a JS ISO string in trail's form."""
    return iso(value) if isinstance(value, str) else None
