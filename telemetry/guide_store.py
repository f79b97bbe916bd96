"""Guide snapshots: the scrubbed text of every guide version that reached an agent, stored once.

Each ``guide_loaded`` / ``skill_loaded`` event that carries text (the adapters read the file
as it loads; transcripts carry it) is mirrored as:

- ``$TRAIL_HOME/guides/<version>.txt`` (0600, folder 0700, never through a symlink): the text,
  already scrubbed like every event field; ``version`` is its sha256, so a version is stored
  once however many sessions loaded it;
- a ``guide_versions`` row (name, kind, path, size, first seen) and a ``session_guides`` row
  per load (which session, which event, when, why).

Rebuildable: the traces hold every text, so a deleted mirror or snapshot folder comes back
on the next ``record_guides``.
"""

from __future__ import annotations

import os
from typing import Any

import orjson
from sqlite_utils import Database

from telemetry.db import write_transaction
from trace_ingest.guides import guide_name, text_version
from trace_ingest.paths import open_dirs, open_file
from trace_ingest.store import write_all

GUIDES_DIR = "guides"
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL


def write_snapshot(home: str, version: str, text: str) -> None:
    """Store ``text`` as ``guides/<version>.txt`` unless it is already there."""
    folder = open_dirs(home, (GUIDES_DIR,))
    try:
        try:
            fd = open_file(folder, f"{version}.txt", os.path.join(home, GUIDES_DIR), _CREATE)
        except FileExistsError:
            return
        try:
            write_all(fd, text.encode("utf-8", "surrogatepass"))
        finally:
            os.close(fd)
    finally:
        os.close(folder)


def read_snapshot(home: str, version: str) -> str | None:
    """The stored text of a guide version, or None."""
    if not version or any(c not in "0123456789abcdef" for c in version):
        return None
    try:
        folder = open_dirs(home, (GUIDES_DIR,), create=False)
    except OSError:
        return None
    try:
        fd = open_file(folder, f"{version}.txt", version, os.O_RDONLY)
    except OSError:
        return None
    finally:
        os.close(folder)
    try:
        chunks = []
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks).decode("utf-8", "replace")


_NEW_LOADS = """
SELECT e.session_key, e.id, e.kind, e.body, s.project_dir FROM events e
LEFT JOIN sessions s ON s.key = e.session_key
WHERE e.kind IN ('guide_loaded', 'skill_loaded')
  AND NOT EXISTS (SELECT 1 FROM session_guides g
                  WHERE g.session_key = e.session_key AND g.event_id = e.id)
"""


_REFUSED = """
SELECT session_key, call_id FROM events
WHERE call_id IS NOT NULL AND kind IN ('permission', 'tool_error', 'tool_result')
  AND (coalesce(json_extract(body, '$.status'), '') IN ('refused', 'cancelled', 'failed',
       'interrupted') OR kind = 'tool_error')
"""


def _refused_skill_calls(db: Database, session_key: str | None) -> set[tuple[str, str]]:
    """(session, call id) of calls that never ran or failed (scorers.guides has the same rule
    over canonical events)."""
    sql = _REFUSED + (" AND session_key = ?" if session_key else "")
    return {(str(k), str(c)) for k, c in db.execute(sql, [session_key] if session_key else [])}


def record_guides(db: Database, home: str, session_key: str | None = None) -> int:
    """Snapshot every guide load not yet recorded (``session_key``: only that session's);
    returns how many loads were recorded."""
    sql = _NEW_LOADS + (" AND e.session_key = ?" if session_key else "")
    rows = db.execute(sql, [session_key] if session_key else []).fetchall()
    refused = _refused_skill_calls(db, session_key)
    versions: list[list[Any]] = []
    loads: list[list[Any]] = []
    for key, event_id, kind, body, project_dir in rows:
        try:
            ev = orjson.loads(body)
        except orjson.JSONDecodeError:
            continue
        if not isinstance(ev, dict):
            continue
        text = ev.get("text") if isinstance(ev.get("text"), str) else None
        path = ev.get("path") if isinstance(ev.get("path"), str) else None
        if kind == "skill_loaded":
            skill = ev.get("skill")
            if not isinstance(skill, str) or not skill or (key, ev.get("call_id")) in refused:
                continue  # a refused or failed Skill call never reached the agent
            name, gkind = f"skill:{skill}", "skill"
        elif path:
            name, gkind = guide_name(path, project_dir or ev.get("cwd")), "rule"
        else:
            continue
        version = text_version(text) if text else ""
        if text:
            write_snapshot(home, version, text)
            size = len(text.encode("utf-8", "surrogatepass"))
            versions.append([version, name, gkind, path, size, ev.get("ts")])
        raw = ev.get("extra")
        extra: dict[str, Any] = raw if isinstance(raw, dict) else {}
        reason = extra.get("load_reason") or extra.get("reason") or ""
        loads.append([key, event_id, name, version, gkind, path, ev.get("ts"), str(reason)])
    if loads:
        with write_transaction(db) as conn:
            conn.executemany(
                "INSERT OR IGNORE INTO guide_versions (version, name, kind, path, bytes,"
                " first_seen) VALUES (?,?,?,?,?,?)",
                versions,
            )
            conn.executemany(
                "INSERT OR IGNORE INTO session_guides (session_key, event_id, name, version,"
                " kind, path, ts, reason) VALUES (?,?,?,?,?,?,?,?)",
                loads,
            )
    return len(loads)
