"""The export cursor: what each endpoint has already accepted, per session.

``$TRAIL_HOME/export/otlp-cursor.json`` (0600, folder 0700, never through a symlink), written
atomically (a temporary file renamed over it), so a crash leaves the old cursor or the new one.
Per endpoint URL (never its headers), per session key: the digest of the spans delivered. A
session is sent again only when what it maps to changed (new events, a new grade); the cursor
is saved only after the collector accepted a batch, so a collector that is down loses nothing.
"""

from __future__ import annotations

import contextlib
import os
from typing import Any

import orjson

from trace_ingest.paths import FILE_MODE, open_dirs, open_file

FOLDER = "export"
NAME = "otlp-cursor.json"
MAX_BYTES = 64 << 20


def load(home: str, endpoint: str) -> dict[str, str]:
    """Session key -> digest delivered to ``endpoint`` ({} when none or unreadable)."""
    try:
        fd = open_dirs(home, (FOLDER,), create=False)
    except FileNotFoundError:
        return {}
    try:
        try:
            ffd = open_file(fd, NAME, os.path.join(home, FOLDER, NAME), os.O_RDONLY)
        except FileNotFoundError:
            return {}
        with os.fdopen(ffd, "rb") as fh:
            data = orjson.loads(fh.read(MAX_BYTES + 1))
    except (OSError, orjson.JSONDecodeError):
        return {}
    finally:
        os.close(fd)
    if not isinstance(data, dict):
        return {}
    sessions = data.get(endpoint)
    if not isinstance(sessions, dict):
        return {}
    return {str(k): str(v) for k, v in sessions.items()}


def save(home: str, endpoint: str, sessions: dict[str, str]) -> None:
    """Record ``sessions`` as what ``endpoint`` holds (other endpoints' entries kept)."""
    fd = open_dirs(home, (FOLDER,))
    try:
        data: dict[str, Any] = {}
        try:
            rfd = open_file(fd, NAME, os.path.join(home, FOLDER, NAME), os.O_RDONLY)
            with os.fdopen(rfd, "rb") as fh:
                loaded = orjson.loads(fh.read(MAX_BYTES + 1))
            if isinstance(loaded, dict):
                data = loaded
        except (FileNotFoundError, orjson.JSONDecodeError):
            pass
        data[endpoint] = sessions
        tmp = f"{NAME}.{os.getpid()}.tmp"
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp, dir_fd=fd)
        wfd = os.open(
            tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, FILE_MODE, dir_fd=fd
        )
        try:
            with os.fdopen(wfd, "wb") as fh:
                fh.write(orjson.dumps(data))
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, NAME, src_dir_fd=fd, dst_dir_fd=fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=fd)
            raise
    finally:
        os.close(fd)
