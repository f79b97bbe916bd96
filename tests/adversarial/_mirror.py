"""Helpers for the mirror's attack tests: real trace files, real `trail` processes, real SQLite."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

from tests.conftest import TRAIL
from trace_ingest.events import new_event, now_iso, to_line

KEY = "s-attack"
BASE_NS = 1_780_000_000 * 10**9  # a fixed time: the same i gives the same bytes


def trace(home: Path, key: str = KEY) -> Path:
    return home / "sessions" / "claude-code" / key / "trace.jsonl"


def event_line(i: int, session: str = KEY, pad: int = 0, prompt: str = "") -> bytes:
    """One schema-v1 event line, distinct per ``i`` (as the hook writes them)."""
    ev: dict[str, Any] = new_event(  # type: ignore[assignment]
        harness="claude-code",
        source="hook",
        session_id=session,
        kind="prompt",
        received_at=now_iso(BASE_NS + i * 1000),
        id_parts=(i,),
    )
    ev["hook_event"] = "UserPromptSubmit"
    ev["prompt"] = prompt or f"prompt {i} " + "x" * pad
    return to_line(ev).encode()


def append(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def trail(
    *args: str, home: Path | None = None, timeout: float = 120, **kw: Any
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **({"TRAIL_HOME": str(home)} if home else {})}
    return subprocess.run(
        [TRAIL, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        check=False,
        **kw,
    )


def db_rows(home: Path, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(home / "trail.db", timeout=30)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def events_in_db(home: Path) -> list[tuple[str, int, str]]:
    return [
        (r[0], r[1], r[2])
        for r in db_rows(home, "SELECT id, file_offset, body FROM events ORDER BY id")
    ]


def ids_in_trace(path: Path) -> set[str]:
    """Ids of every whole event line in a trace (what the mirror must hold)."""
    found = set()
    for line in path.read_bytes().split(b"\n"):
        cut = line.find(b'{"v":1,"id":"')
        while cut >= 0:
            try:
                found.add(json.loads(line[cut:])["id"])
                break
            except ValueError:
                cut = line.find(b'{"v":1,"id":"', cut + 1)
    return found


def no_traceback(done: subprocess.CompletedProcess[str]) -> None:
    out = done.stdout + done.stderr
    assert "Traceback" not in out, out[-3000:]
    assert "JSONDecodeError" not in out and "database is locked" not in out, out[-3000:]
