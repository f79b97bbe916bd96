"""Append-only trace files: the source of truth every other part rebuilds from.

Hot-path safe: standard library only.

Store API contract:

- ``append_lines(path, data)`` appends ``data`` (one or more complete JSONL lines) with a single
  ``write()`` on an ``O_APPEND`` descriptor, so concurrent writers (parallel tool calls,
  subagents) never interleave inside a line. Files are created 0600, folders 0700.
- ``append_error(home, ...)`` appends one entry to the hook error log, never raising.
"""

from __future__ import annotations

import os

from trace_ingest import fastjson
from trace_ingest.paths import FILE_MODE, ensure_dir, error_log_path

MAX_ERROR_DETAIL = 2000


def append_lines(path: str, data: str) -> None:
    """Append complete lines to ``path`` in one ``write()`` (creating file and parents)."""
    ensure_dir(os.path.dirname(path))
    payload = data.encode("utf-8", "replace")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, FILE_MODE)
    try:
        written = os.write(fd, payload)
        # A short write only happens on a full disk or a signal; finish the line rather than
        # leave a torn one (the mirror would quarantine it).
        while written < len(payload):
            written += os.write(fd, payload[written:])
    finally:
        os.close(fd)


def append_error(home: str, record: dict[str, object], unless_repeated: bool = False) -> None:
    """Append one JSON line to the hook error log. Never raises: the log is best effort.

    With ``unless_repeated``, skip it when one of the log's recent entries says the same thing
    (a standing problem, such as a bad setting, is then logged once, not on every hook call).
    """
    try:
        if unless_repeated and record.get("error") in _recent_errors(home):
            return
        for key, value in list(record.items()):
            if isinstance(value, str) and len(value) > MAX_ERROR_DETAIL:
                record[key] = value[:MAX_ERROR_DETAIL] + f"…[cut {len(value) - MAX_ERROR_DETAIL}]"
        line = fastjson.dumps(record, default=str) + "\n"
        ensure_dir(home)
        append_lines(error_log_path(home), line)
    except Exception:
        pass


def _recent_errors(home: str) -> list[object]:
    return [e.get("error") for e in read_errors(home, 20, tail_bytes=16384)]


def read_errors(
    home: str, limit: int = 20, tail_bytes: int = 256 * 1024
) -> list[dict[str, object]]:
    """The last ``limit`` entries of the hook error log (malformed entries are skipped)."""
    path = error_log_path(home)
    if not os.path.exists(path):
        return []
    with open(path, "rb") as fh:
        fh.seek(0, os.SEEK_END)
        size = fh.tell()
        fh.seek(max(0, size - tail_bytes))
        tail = fh.read().decode("utf-8", "replace").splitlines()
    out: list[dict[str, object]] = []
    for line in tail[-limit:]:
        try:
            entry = fastjson.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict):
            out.append(entry)
    return out
