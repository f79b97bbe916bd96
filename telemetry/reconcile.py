"""Hooks for liveness, the transcript for truth: read a hooked session's transcript once it
closes, so the session is reconciled without the user asking (docs/reconciliation.md).

Copilot CLI works the same way: its ``agentStop``/``subagentStart``/``preCompact`` payloads (and
trail's own session bounds) name ``$COPILOT_HOME/session-state/<session id>/events.jsonl``
(real-harnesses.md §2.3), read through the Copilot importer (``check_copilot_log``).

Every Claude Code hook payload names its session's ``transcript_path``. When the mirror sees a
hooked session closed (its SessionEnd, or the idle sweep), the next sync imports that
transcript (and its ``subagents/`` folder) through the ordinary importer, which appends only
the facts the trace lacks. The file is read again whenever it changed (a resumed session grows).

The path comes from a payload, so it is untrusted: trail only reads a regular file (never a
symlink) owned by the user running trail, named ``<session id>.jsonl`` exactly as Claude Code
names transcripts, below the size cap; anything else is reported and left alone. State (which
file, at which size and mtime, was read for which session) is kept in
``$TRAIL_HOME/reconcile.json``; deleting it only makes the next sync read the files again.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
from sqlite_utils import Database

from trace_ingest.errors import TrailError
from trace_ingest.paths import ensure_home
from trace_ingest.store import write_all

STATE_FILE = "reconcile.json"
MAX_TRANSCRIPT_BYTES = 512 * 1024 * 1024
HARNESS = "claude-code"


@dataclass
class ReconcileReport:
    """What the automatic transcript reads of one sync did."""

    read: list[str] = field(default_factory=list)  # session keys whose transcript was imported
    events_written: int = 0
    refused: list[dict[str, str]] = field(default_factory=list)  # key, path, reason

    def as_dict(self) -> dict[str, Any]:
        return {
            "transcripts_read": len(self.read),
            "events_written": self.events_written,
            "refused": self.refused,
        }


MAX_STATE_BYTES = 64 << 20


def _load_state(home: str) -> dict[str, Any]:
    """The saved state; {} when it is missing, unreadable, or not a regular file of at most
    ``MAX_STATE_BYTES`` (a FIFO there must not hang every reader: opened non-blocking, not
    through a symlink)."""
    try:
        fd = os.open(
            os.path.join(home, STATE_FILE),
            os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC,
        )
    except OSError:
        return {}
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_STATE_BYTES:
            return {}
        with os.fdopen(os.dup(fd), "rb") as fh:
            data = orjson.loads(fh.read(MAX_STATE_BYTES + 1))
    except (OSError, orjson.JSONDecodeError):
        return {}
    finally:
        os.close(fd)
    return data if isinstance(data, dict) else {}


def _save_state(home: str, state: dict[str, Any]) -> None:
    ensure_home(home)
    path = os.path.join(home, STATE_FILE)
    tmp = f"{path}.{os.getpid()}.tmp"
    with contextlib.suppress(FileNotFoundError):
        os.unlink(tmp)  # a stale one (or a FIFO planted there) is never opened
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        try:
            write_all(fd, orjson.dumps(state))
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _transcript_path(db: Database, key: str) -> str | None:
    row = db.execute(
        "SELECT json_extract(body, '$.extra.transcript_path') AS p FROM events"
        " WHERE session_key = ? AND source = 'hook'"
        " AND json_extract(body, '$.extra.transcript_path') IS NOT NULL LIMIT 1",
        [key],
    ).fetchone()
    return str(row[0]) if row and isinstance(row[0], str) and row[0] else None


def check_transcript(
    path: str, session_id: str, name: str | None = None
) -> tuple[os.stat_result | None, str | None]:
    """The file's stat when trail may read it as this session's transcript, else why not
    (``name``: the file name it must have, default ``<session id>.jsonl``)."""
    if not os.path.isabs(path):
        return None, "transcript path is not absolute"
    if os.path.basename(path) != (name or f"{session_id}.jsonl"):
        return None, "file name is not <session id>.jsonl"
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None, "transcript not found"
    except OSError as exc:
        return None, f"cannot stat transcript: {exc.strerror}"
    if stat.S_ISLNK(st.st_mode):
        return None, "transcript is a symbolic link"
    if not stat.S_ISREG(st.st_mode):
        return None, "transcript is not a regular file"
    if st.st_uid != os.getuid():
        return None, "transcript is owned by another user"
    if st.st_size > MAX_TRANSCRIPT_BYTES:
        return None, f"transcript is larger than {MAX_TRANSCRIPT_BYTES} bytes"
    return st, None


def check_copilot_log(path: str, session_id: str) -> tuple[os.stat_result | None, str | None]:
    """The file's stat when trail may read it as this Copilot session's log, else why not:
    ``…/session-state/<session id>/events.jsonl`` exactly, and the checks of a transcript."""
    if os.path.basename(path) != "events.jsonl":
        return None, "file name is not events.jsonl"
    if os.path.basename(os.path.dirname(path)) != session_id:
        return None, "folder name is not the session id"
    return check_transcript(path, session_id, name="events.jsonl")


def _subagent_files(path: str) -> list[str]:
    folder = os.path.join(path[: -len(".jsonl")], "subagents")
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    out = []
    for name in names:
        full = os.path.join(folder, name)
        if name.endswith(".jsonl") and os.path.isfile(full) and not os.path.islink(full):
            out.append(full)
    return out


def _fingerprint(
    path: str, st: os.stat_result, related: Callable[[str], list[str]] = _subagent_files
) -> list[Any]:
    parts: list[Any] = [path, st.st_size, st.st_mtime_ns, st.st_ino]
    for sub in related(path):
        try:
            s = os.lstat(sub)
        except OSError:
            continue
        parts += [os.path.basename(sub), s.st_size, s.st_mtime_ns]
    return parts


@dataclass(frozen=True)
class SessionFile:
    """How one harness's closed, hooked sessions meet the file the harness itself keeps."""

    harness: str
    check: Callable[[str, str], tuple[os.stat_result | None, str | None]]
    related: Callable[[str], list[str]]  # more files read with it (Claude's subagents/)
    importer: Callable[[str], Any]  # home -> an importer with run(paths) -> report


def _claude_importer(home: str) -> Any:
    from trace_ingest.importers.claude_transcript import ClaudeTranscriptImporter

    return ClaudeTranscriptImporter(home)


def _copilot_importer(home: str) -> Any:
    from trace_ingest.importers.copilot_events import CopilotImporter

    return CopilotImporter(home)


SESSION_FILES: tuple[SessionFile, ...] = (
    SessionFile(HARNESS, check_transcript, _subagent_files, _claude_importer),
    SessionFile("copilot-cli", check_copilot_log, lambda path: [], _copilot_importer),
)


def reconcile_closed(db: Database, home: str) -> ReconcileReport:
    """Import the session file of every closed, hooked session (Claude Code transcripts,
    Copilot CLI logs) that changed since trail last read it. Returns what was read; never
    raises for a bad path (it is reported)."""
    report = ReconcileReport()
    state = _load_state(home)
    changed = False
    for source in SESSION_FILES:
        changed = _reconcile(db, home, source, state, report) or changed
    if changed:
        # The state only saves reading unchanged files again (imports are idempotent): a
        # full disk here must not fail the read command that synced.
        with contextlib.suppress(OSError):
            _save_state(home, state)
    return report


def _reconcile(
    db: Database, home: str, source: SessionFile, state: dict[str, Any], report: ReconcileReport
) -> bool:
    changed = False
    rows = db.execute(
        "SELECT key, session_id, event_count FROM sessions WHERE harness = ? AND state = 'closed'",
        [source.harness],
    ).fetchall()
    for key, session_id, event_count in rows:
        entry = state.get(key) if isinstance(state.get(key), dict) else None
        if entry is not None and entry.get("events") == event_count and not entry.get("path"):
            continue  # no hook event named a transcript, and nothing new arrived since
        path = entry.get("path") if entry else None
        if not isinstance(path, str) or not path:
            path = _transcript_path(db, key)
            if path is None:
                state[key] = {"path": None, "events": event_count}
                changed = True
                continue
        st, why = source.check(path, str(session_id or ""))
        if st is None:
            if entry is None or entry.get("refused") != why:
                report.refused.append({"key": key, "path": path, "reason": str(why)})
                state[key] = {"path": path, "refused": why, "events": event_count}
                changed = True
            continue
        fingerprint = _fingerprint(path, st, source.related)
        if entry is not None and entry.get("read") == fingerprint:
            continue
        try:
            result = source.importer(home).run([path, *source.related(path)])
        except TrailError as exc:
            report.refused.append({"key": key, "path": path, "reason": str(exc)})
            state[key] = {"path": path, "refused": str(exc), "events": event_count}
            changed = True
            continue
        report.read.append(key)
        report.events_written += result.events_written
        state[key] = {"path": path, "read": fingerprint, "events": event_count}
        changed = True
    return changed


# ---- Mistral Vibe --------------------------------------------------------------------------

VIBE = "vibe"


def check_vibe_store(path: str, session_id: str) -> tuple[str | None, str | None]:
    """``(fingerprint, None)`` when trail may read ``path`` as this Vibe session's store, else
    ``(None, why not)``.

    Vibe 3.x's hook ``transcript_path`` is the session's store folder
    (``…/logs/session/unified/<session id>``, real-harnesses.md §1.3); 2.x's is the
    ``messages.jsonl`` of its ``session_<time>_<short id>`` folder. The path is untrusted: a
    folder (or file) of this user, never a symlink, named as Vibe names it. The fingerprint is
    ``CURRENT``'s text (the generation and manifest digest Vibe replaces atomically on every
    publication), or the 2.x file's size and mtime.
    """
    if not os.path.isabs(path):
        return None, "store path is not absolute"
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None, "store not found"
    except OSError as exc:
        return None, f"cannot stat store: {exc.strerror}"
    if stat.S_ISLNK(st.st_mode):
        return None, "store path is a symbolic link"
    if st.st_uid != os.getuid():
        return None, "store is owned by another user"
    if stat.S_ISREG(st.st_mode):
        if os.path.basename(path) != "messages.jsonl":
            return None, "file is not a 2.x messages.jsonl"
        if st.st_size > MAX_TRANSCRIPT_BYTES:
            return None, f"messages.jsonl is larger than {MAX_TRANSCRIPT_BYTES} bytes"
        return f"legacy:{st.st_size}:{st.st_mtime_ns}:{st.st_ino}", None
    if not stat.S_ISDIR(st.st_mode):
        return None, "store is neither a folder nor a file"
    if os.path.basename(path) != session_id:
        return None, "store folder is not named after the session id"
    current = os.path.join(path, "CURRENT")
    try:
        cst = os.lstat(current)
        if not stat.S_ISREG(cst.st_mode) or cst.st_size > 4096:
            return None, "CURRENT is not a small regular file"
        with open(current, "rb") as fh:
            text = fh.read(4097).decode("utf-8", "replace")
    except OSError:
        return None, "store has no CURRENT (not a unified session store)"
    return f"unified:{text.strip()}", None


def reconcile_vibe(db: Database, home: str) -> ReconcileReport:
    """Import the session store of every hooked Vibe session whose store changed since trail
    last read it: hooks plus store make one session (docs/reconciliation.md).

    Unlike Claude Code's transcripts this does not wait for the session to close: Vibe sends
    no session end, and its store is published whole (``CURRENT`` replaced atomically), so
    each read sees a consistent generation; a later one adds what is new (ids are stable).
    """
    from trace_ingest.importers.vibe_store import VibeImporter

    report = ReconcileReport()
    state = _load_state(home)
    changed = False
    rows = db.execute(
        "SELECT key, session_id, event_count FROM sessions WHERE harness = ?", [VIBE]
    ).fetchall()
    for key, session_id, event_count in rows:
        entry = state.get(key) if isinstance(state.get(key), dict) else None
        path = entry.get("path") if entry else None
        if not isinstance(path, str) or not path:
            if entry is not None and entry.get("events") == event_count:
                continue  # no hook event named a store, and nothing new arrived since
            path = _transcript_path(db, key)
        if path is None:
            state[key] = {"path": None, "events": event_count}
            changed = True
            continue
        fingerprint, why = check_vibe_store(path, str(session_id or ""))
        outcome: dict[str, Any] = {"path": path, "events": event_count}
        if fingerprint is None:
            outcome["refused"] = why
        elif entry is None or entry.get("read") != fingerprint:
            target = os.path.dirname(path) if fingerprint.startswith("legacy:") else path
            try:
                report.events_written += int(VibeImporter(home).run([target]).events_written)
                report.read.append(key)
                outcome["read"] = fingerprint
            except TrailError as exc:
                outcome["refused"] = str(exc)
        else:
            continue
        if "refused" in outcome and (entry or {}).get("refused") != outcome["refused"]:
            report.refused.append({"key": key, "path": path, "reason": str(outcome["refused"])})
        if outcome != entry:
            state[key] = outcome
            changed = True
    if changed:
        with contextlib.suppress(OSError):
            _save_state(home, state)
    return report
