"""Where trail keeps its data, and how untrusted names become safe file names.

Hot-path safe: standard library only (os, hashlib, re).

Layout under ``$TRAIL_HOME`` (default ``${XDG_DATA_HOME:-~/.local/share}/trail``)::

    sessions/<harness>/<session-key>/trace.jsonl   one append-only trace per session
    trail.db                                       the SQLite mirror (WAL)
    GRADES.jsonl                                   the grade ledger
    hook-errors.log                                the hook's own failures (JSON lines)
    config.json                                    optional user configuration
    scrub.key                                      per-install fingerprint key (0600)
    capture-off                                    present = capture disabled
"""

from __future__ import annotations

import os

from trace_ingest._blake import blake2b

HARNESSES: tuple[str, ...] = ("claude-code", "copilot-cli", "vibe", "vscode")

DIR_MODE = 0o700
FILE_MODE = 0o600

_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
MAX_KEY_LEN = 96


def trail_home() -> str:
    """The data directory: ``$TRAIL_HOME``, else the XDG data dir."""
    home = os.environ.get("TRAIL_HOME")
    if home:
        return os.path.abspath(os.path.expanduser(home))
    xdg = os.environ.get("XDG_DATA_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "share"
    )
    return os.path.join(os.path.abspath(xdg), "trail")


def session_key(session_id: str | None) -> tuple[str, bool]:
    """Turn an untrusted session id into a directory name.

    Returns ``(key, changed)``. Only ``[A-Za-z0-9_-]`` survive; anything else (dots, slashes,
    NUL, non-ASCII) becomes ``_`` and a short hash of the original is appended so two distinct
    ids never share a directory. ``changed`` tells the caller to log the substitution.
    """
    if not session_id:
        return "_unknown", session_id is not None
    cleaned = "".join(c if c in _SAFE else "_" for c in session_id[:MAX_KEY_LEN])
    if cleaned == session_id:
        return cleaned, False
    digest = blake2b(session_id.encode("utf-8", "surrogatepass"), digest_size=4).hexdigest()
    return f"{cleaned}-{digest}", True


def ensure_dir(path: str) -> str:
    """Create ``path`` (and parents) with mode 0700 and return it."""
    if os.path.isdir(path):
        return path
    parent = os.path.dirname(path)
    if parent and parent != path:
        ensure_dir(parent)  # each missing level gets 0700, not just the last one
    try:
        os.mkdir(path, DIR_MODE)
    except FileExistsError:
        return path
    os.chmod(path, DIR_MODE)  # mkdir's mode is filtered by the umask
    return path


def ensure_home(home: str | None = None) -> str:
    """Create the data directory (0700) and return its path."""
    root = home or trail_home()
    ensure_dir(root)
    return root


def sessions_dir(home: str) -> str:
    return os.path.join(home, "sessions")


def trace_path(home: str, harness: str, key: str) -> str:
    """Path of one session's ``trace.jsonl``; ``harness`` and ``key`` must already be safe."""
    return os.path.join(home, "sessions", harness, key, "trace.jsonl")


def db_path(home: str) -> str:
    return os.path.join(home, "trail.db")


def grades_path(home: str) -> str:
    return os.path.join(home, "GRADES.jsonl")


def error_log_path(home: str) -> str:
    return os.path.join(home, "hook-errors.log")


def config_path(home: str) -> str:
    return os.path.join(home, "config.json")


def key_path(home: str) -> str:
    return os.path.join(home, "scrub.key")


def capture_off_path(home: str) -> str:
    return os.path.join(home, "capture-off")
