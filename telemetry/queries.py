"""Read-side queries over the mirror: sessions, one session's events, resolution of ids.

Store API contract: every function takes an open ``Database``. Telemetry owns every query:
sessions and events, labels, the grades mirror and L2's verdict rows (scorers never write
SQL). Writes go through ``telemetry.db.write_transaction``; ``open_synced`` (every read
command calls it first, so reads are never stale) catches the mirror up.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

import orjson
from sqlite_utils import Database

from telemetry.canonical import Canonical, canonical
from telemetry.db import open_db, write_transaction
from telemetry.reconcile import reconcile_closed, reconcile_vibe
from telemetry.sync import SyncReport, sync
from trace_ingest._blake import blake2b
from trace_ingest.config import load_config
from trace_ingest.errors import SessionNotFound
from trace_ingest.events import now_iso
from trace_ingest.paths import trail_home
from trace_ingest.progress import Progress

BUSY_NOTE = (
    "another `trail sync` or `trail watch` is writing the mirror; showing what it holds so far"
)

SESSION_COLUMNS = (
    "key, harness, session_id, project_dir, started_at, last_event_at, state, closed_at,"
    " close_reason, reopen_count, event_count, error_count, redaction_count, trace_path"
)


def open_synced(home: str | None = None, *, wait: bool = False) -> tuple[Database, SyncReport]:
    """Open the mirror, catch up with every trace file, sweep idle sessions, and reconcile
    the sessions that closed with their transcripts (telemetry.reconcile)."""
    home = home or trail_home()
    config = load_config(home)
    db = open_db(home)
    idle = float(config["lifecycle"]["idle_minutes"])
    # Readers never wait on a writer: when another sync holds the lock, read what is there.
    # A long catch-up shows files, events and rate on stderr when it is a terminal.
    report = sync(db, home, idle, wait=wait, progress=Progress("sync"))
    if report.busy:
        sys.stderr.write(f"note: {BUSY_NOTE}\n")
    # Reading transcripts only appends to trace files (the DB is only read here); the sync
    # after it mirrors what they added. Skipped while another writer is busy: next time.
    if not report.busy:
        written = reconcile_closed(db, home).events_written
        written += reconcile_vibe(db, home).events_written
        if written:
            sync(db, home, idle, wait=wait)
    return db, report


def list_sessions(
    db: Database, harness: str | None = None, limit: int | None = None
) -> list[dict[str, Any]]:
    sql = f"SELECT {SESSION_COLUMNS} FROM sessions"
    params: list[Any] = []
    if harness:
        sql += " WHERE harness = ?"
        params.append(harness)
    sql += " ORDER BY last_event_at DESC"
    if limit:
        sql += f" LIMIT {int(limit)}"
    return [dict(r) for r in db.query(sql, params)]


def resolve_session(db: Database, ident: str) -> dict[str, Any]:
    """A session by key, by harness session id, or by a unique prefix of either."""
    exact = list(
        db.query(
            f"SELECT {SESSION_COLUMNS} FROM sessions WHERE key = ? OR session_id = ?",
            [ident, ident],
        )
    )
    if len(exact) == 1:
        return dict(exact[0])
    candidates = exact or list(
        db.query(
            f"SELECT {SESSION_COLUMNS} FROM sessions WHERE session_id LIKE ? OR key LIKE ?"
            " OR key LIKE ?",
            [ident + "%", ident + "%", "%/" + ident + "%"],
        )
    )
    if len(candidates) == 1:
        return dict(candidates[0])
    if not candidates:
        raise SessionNotFound(f"no session matches {ident!r} (see `trail sessions`)")
    keys = ", ".join(str(c["key"]) for c in candidates[:5])
    raise SessionNotFound(f"{ident!r} matches {len(candidates)} sessions: {keys}")


def session_events(db: Database, key: str) -> list[dict[str, Any]]:
    """Every stored event of a session, every source, as stored (schema v1). Views read
    ``session_timeline`` instead."""
    rows = db.execute(
        "SELECT body FROM events WHERE session_key = ? ORDER BY ts, received_at, file_offset",
        [key],
    ).fetchall()
    events: list[dict[str, Any]] = []
    bad = 0
    for (body,) in rows:
        try:
            ev = orjson.loads(body)
        except (orjson.JSONDecodeError, TypeError):
            ev = None
        if isinstance(ev, dict):
            events.append(ev)
        else:
            bad += 1
    if bad:  # a mirror written by an older trail, or edited by hand: say so, never crash
        sys.stderr.write(
            f"warning: skipped {bad} stored event(s) of {key} that are not JSON objects;"
            " delete trail.db and run `trail sync` to rebuild it from the traces\n"
        )
    return events


def session_timeline(db: Database, key: str) -> Canonical:
    """A session as every view reads it: one event per real action, in the harness's own
    order, both sources kept as provenance (telemetry.canonical)."""
    return canonical(session_events(db, key))


def redaction_counts(db: Database, key: str | None = None) -> dict[str, int]:
    sql = "SELECT rule, sum(count) FROM redactions"
    params: list[Any] = []
    if key:
        sql += " WHERE session_key = ?"
        params.append(key)
    sql += " GROUP BY rule ORDER BY 2 DESC"
    return {rule: int(n) for rule, n in db.execute(sql, params).fetchall()}


def quarantine(db: Database, limit: int = 20) -> list[dict[str, Any]]:
    return [
        dict(r)
        for r in db.query(
            "SELECT path, offset, reason, seen_at FROM quarantine ORDER BY seen_at DESC LIMIT ?",
            [limit],
        )
    ]


# ---- labels (outcome / task) -------------------------------------------------------------

LABEL_COLUMNS = ("outcome", "task")


def set_label(db: Database, key: str, column: str, value: str | None) -> None:
    """Set (or, with None, clear) a session's ``outcome`` or ``task``."""
    if column not in LABEL_COLUMNS:  # the column name is spliced into SQL below
        raise ValueError(f"unknown label {column!r}")
    with write_transaction(db) as conn:
        conn.execute(
            f"INSERT INTO session_labels (session_key, {column}, updated_at) VALUES (?,?,?)"
            f" ON CONFLICT(session_key) DO UPDATE SET {column} = excluded.{column},"
            " updated_at = excluded.updated_at",
            [key, value, now_iso()],
        )


def labels(db: Database, key: str) -> tuple[str | None, str | None]:
    """A session's (outcome, task); outcome is ``pass``, ``fail`` or None (unknown)."""
    row = db.execute(
        "SELECT outcome, task FROM session_labels WHERE session_key = ?", [key]
    ).fetchone()
    if row is None:
        return None, None
    outcome = row[0] if row[0] in ("pass", "fail") else None
    return outcome, row[1] or None


def labelled_runs(
    db: Database, tasks: Sequence[str] | None = None
) -> list[tuple[str, str, bool | None]]:
    """(task, session key, delivered) for every session labelled with a task (``tasks``:
    only these); delivered is None while the outcome is unknown."""
    rows = db.execute(
        "SELECT session_key, task, outcome FROM session_labels "
        "WHERE task IS NOT NULL AND task != ''"
    ).fetchall()
    out = []
    for key, task, outcome in rows:
        if tasks is not None and task not in tasks:
            continue
        out.append(
            (str(task), str(key), None if outcome not in ("pass", "fail") else outcome == "pass")
        )
    return out


# ---- grades (mirror of GRADES.jsonl) and L2 verdict rows ---------------------------------


def insert_grades(db: Database, records: Sequence[dict[str, Any]]) -> None:
    """Mirror ledger entries (each with a ``gradeId``) into ``grades``, and an L2 entry's
    verdicts into ``guide_verdicts`` / ``action_verdicts``; idempotent."""
    rows = []
    guides: list[list[Any]] = []
    actions: list[list[Any]] = []
    for r in records:
        gid = r["gradeId"]
        raw = r.get("config")
        config: dict[str, Any] = raw if isinstance(raw, dict) else {}
        rows.append(
            [
                gid,
                r.get("sessionKey"),
                r.get("sessionId"),
                r.get("rubric"),
                r.get("rubricVersion"),
                r.get("verdict"),
                r.get("totalScore"),
                r.get("maxScore"),
                r.get("coverage"),
                config.get("sha256"),
                None if config.get("verified") is None else int(bool(config["verified"])),
                r.get("timestamp"),
                json.dumps(r, default=str),
            ]
        )
        l2 = r.get("l2")
        if isinstance(l2, dict):
            for g in l2.get("guides") or ():
                if isinstance(g, dict):
                    guides.append(
                        [
                            gid,
                            r.get("sessionKey"),
                            g.get("guide"),
                            g.get("version"),
                            g.get("verdict"),
                        ]
                    )
            for a in l2.get("actions") or ():
                if isinstance(a, dict):
                    actions.append([gid, r.get("sessionKey"), a.get("event"), a.get("verdict")])
    with write_transaction(db) as conn:
        conn.executemany(
            "INSERT OR IGNORE INTO grades (id, session_key, session_id, rubric, rubric_version,"
            " verdict, total_score, max_score, coverage, config_sha256, config_verified,"
            " timestamp, body) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            rows,
        )
        conn.executemany(
            "INSERT OR IGNORE INTO guide_verdicts (grade_id, session_key, guide, version,"
            " verdict) VALUES (?,?,?,?,?)",
            guides,
        )
        conn.executemany(
            "INSERT OR IGNORE INTO action_verdicts (grade_id, session_key, event_id, verdict)"
            " VALUES (?,?,?,?)",
            actions,
        )


def list_grades(
    db: Database,
    *,
    session: str | None = None,
    rubric: str | None = None,
    limit: int | None = None,
) -> list[dict[str, Any]]:
    """Ledger entries from the mirror, oldest first (the last ``limit`` of them). ``session``
    matches a session key, a harness session id, or a prefix of the key."""
    sql = "SELECT body FROM grades"
    where: list[str] = []
    params: list[Any] = []
    if session:
        where.append("(session_key = ? OR session_id = ? OR substr(session_key, 1, ?) = ?)")
        params += [session, session, len(session), session]
    if rubric:
        where.append("rubric = ?")
        params.append(rubric)
    if where:
        sql += " WHERE " + " AND ".join(where)
    sql += " ORDER BY timestamp, rowid"
    bodies = [row[0] for row in db.execute(sql, params).fetchall()]
    if limit:
        bodies = bodies[-int(limit) :]
    out = []
    for body in bodies:
        try:
            obj = orjson.loads(body)
        except orjson.JSONDecodeError:
            continue
        if isinstance(obj, dict):
            out.append(obj)
    return out


def session_fingerprint(db: Database, key: str) -> str:
    """What a session holds now, as one short hash of its stored event ids: a grade records
    it, and a session whose events changed since (reopened, re-imported, removed) no longer
    matches its grade."""
    h = blake2b(digest_size=12)
    n = 0
    for (eid,) in db.execute(
        "SELECT id FROM events WHERE session_key = ? ORDER BY id", [key]
    ).fetchall():
        h.update(str(eid).encode())
        h.update(b"\x1f")
        n += 1
    return f"{n}:{h.hexdigest()}"


def last_received(db: Database, key: str) -> str | None:
    """When trail last received an event of this session (import time for an import)."""
    row = db.execute("SELECT max(received_at) FROM events WHERE session_key = ?", [key]).fetchone()
    return None if row is None or row[0] is None else str(row[0])


def latest_grade(db: Database, key: str, rubric: str) -> dict[str, Any] | None:
    """A session's newest ledger entry of ``rubric``, or None."""
    row = db.execute(
        "SELECT body FROM grades WHERE session_key = ? AND rubric = ?"
        " ORDER BY timestamp DESC, rowid DESC LIMIT 1",
        [key, rubric],
    ).fetchone()
    if row is None:
        return None
    try:
        obj = orjson.loads(row[0])
    except orjson.JSONDecodeError:
        return None
    return obj if isinstance(obj, dict) else None


# The newest L2 grade of each session: what rates and reports read (older grades stay in the
# ledger as history).
_CURRENT_L2 = """
SELECT g.id, g.session_key FROM grades g
WHERE g.rubric = 'l2' AND g.id = (
  SELECT id FROM grades WHERE session_key = g.session_key AND rubric = 'l2'
  ORDER BY timestamp DESC, rowid DESC LIMIT 1)
"""


def current_guide_verdicts(db: Database) -> list[tuple[str, str, str, str]]:
    """(guide, version, verdict, session key) of every session's newest L2 grade."""
    rows = db.execute(
        f"WITH cur AS ({_CURRENT_L2}) SELECT v.guide, v.version, v.verdict, v.session_key"
        " FROM guide_verdicts v JOIN cur ON v.grade_id = cur.id"
        " ORDER BY v.guide, v.version, v.session_key"
    ).fetchall()
    return [(str(a), str(b), str(c), str(d)) for a, b, c, d in rows]


def current_action_verdicts(db: Database) -> dict[str, dict[str, str]]:
    """Session key -> {event id: verdict} from every session's newest L2 grade."""
    out: dict[str, dict[str, str]] = {}
    for key, eid, verdict in db.execute(
        f"WITH cur AS ({_CURRENT_L2}) SELECT v.session_key, v.event_id, v.verdict"
        " FROM action_verdicts v JOIN cur ON v.grade_id = cur.id"
    ).fetchall():
        out.setdefault(str(key), {})[str(eid)] = str(verdict)
    return out


def guide_loads(db: Database) -> list[tuple[str, str, str]]:
    """(guide, version, session key) of every recorded guide load (telemetry.guide_store)."""
    rows = db.execute(
        "SELECT DISTINCT name, version, session_key FROM session_guides"
        " ORDER BY name, version, session_key"
    ).fetchall()
    return [(str(a), str(b), str(c)) for a, b, c in rows]


# ---- the dashboard's sessions list (dashboard.views) --------------------------------------


def session_page(
    db: Database,
    *,
    harness: str | None = None,
    project: str | None = None,
    verdict: str | None = None,
    since: str | None = None,
    until: str | None = None,
    state: str | None = None,
    limit: int = 100,
    offset: int = 0,
    rubric: str = "trace-grader",
) -> tuple[int, list[dict[str, Any]]]:
    """(matching count, one page of sessions newest first), each with its newest ``rubric``
    grade's verdict, score and coverage (None: never graded). ``verdict`` "none" matches the
    sessions without a grade; ``since`` / ``until`` are ISO dates, inclusive, on the start;
    ``state`` "open" (or reopened) or "closed"."""
    latest = (
        "SELECT g.session_key, g.verdict, g.total_score, g.max_score, g.coverage FROM grades g"
        " WHERE g.rubric = ? AND g.rowid = (SELECT rowid FROM grades WHERE session_key ="
        " g.session_key AND rubric = ? ORDER BY timestamp DESC, rowid DESC LIMIT 1)"
    )
    where: list[str] = []
    params: list[Any] = [rubric, rubric]
    for column, value in (("s.harness", harness), ("s.project_dir", project)):
        if value:
            where.append(f"{column} = ?")
            params.append(value)
    if state == "closed":
        where.append("s.state = 'closed'")
    elif state == "open":  # open, or reopened by later actions
        where.append("s.state != 'closed'")
    if verdict == "none":
        where.append("l.verdict IS NULL")
    elif verdict:
        where.append("l.verdict = ?")
        params.append(verdict)
    if since:
        where.append("s.started_at >= ?")
        params.append(since)
    if until:
        where.append("substr(s.started_at, 1, 10) <= ?")
        params.append(until)
    body = " FROM sessions s LEFT JOIN l ON l.session_key = s.key"
    if where:
        body += " WHERE " + " AND ".join(where)
    total = int(db.execute(f"WITH l AS ({latest}) SELECT count(*){body}", params).fetchone()[0])
    columns = ", ".join("s." + c.strip() for c in SESSION_COLUMNS.split(","))
    rows_sql = (
        f"WITH l AS ({latest}) SELECT {columns}, l.verdict AS l1_verdict, l.total_score,"
        f" l.max_score, l.coverage{body} ORDER BY s.last_event_at DESC LIMIT ? OFFSET ?"
    )
    rows = [dict(r) for r in db.query(rows_sql, [*params, int(limit), int(offset)])]
    return total, rows


def session_facets(db: Database) -> dict[str, list[str]]:
    """The values the sessions list filters on: harnesses, projects, grade verdicts."""
    return {
        "harness": [r[0] for r in db.execute("SELECT DISTINCT harness FROM sessions ORDER BY 1")],
        "project": [
            r[0]
            for r in db.execute(
                "SELECT DISTINCT project_dir FROM sessions WHERE project_dir IS NOT NULL"
                " AND project_dir != '' ORDER BY 1"
            )
        ],
        "verdict": [
            r[0]
            for r in db.execute(
                "SELECT DISTINCT verdict FROM grades WHERE rubric = 'trace-grader'"
                " AND verdict IS NOT NULL ORDER BY 1"
            )
        ],
    }


def usage_totals(db: Database, keys: Sequence[str]) -> dict[str, dict[str, int]]:
    """Token counts per session where a source recorded them: ``input_tokens`` (every prompt
    token the model read, cached or not) and ``output_tokens``, summed over the session's model
    calls (``_call_usage``); a session without any is absent."""
    out: dict[str, dict[str, int]] = {}
    if not keys:
        return out
    marks = ",".join("?" * len(keys))
    seen: dict[str, dict[str, dict[str, int]]] = {}  # session -> message id -> its counts
    for key, body in db.execute(
        f"SELECT session_key, body FROM events WHERE session_key IN ({marks})"
        " AND instr(body, '\"usage\"') > 0",
        list(keys),
    ):
        try:
            ev = orjson.loads(body)
        except orjson.JSONDecodeError:
            continue
        extra = ev.get("extra") if isinstance(ev, dict) else None
        found = _call_usage(extra) if isinstance(extra, dict) else None
        if found is None:
            continue
        message, counts = found
        if message is None:
            acc = out.setdefault(str(key), {})
            for name, value in counts.items():
                acc[name] = acc.get(name, 0) + value
            continue
        # Claude Code writes one transcript line per content block of a response, each with
        # the response's usage: a message counts once, at its largest (the last block's);
        # a Vibe store's running totals, at the latest generation read
        prior = seen.setdefault(str(key), {}).setdefault(message, {})
        for name, value in counts.items():
            prior[name] = max(prior.get(name, 0), value)
    for key, messages in seen.items():
        acc = out.setdefault(key, {})
        for counts in messages.values():
            for name, value in counts.items():
                acc[name] = acc.get(name, 0) + value
    return {k: v for k, v in out.items() if v}


# (field, what it adds to) in the usage records sources write: the VS Code chat importer's
# normalized counts; camelCase as VS Code's ``assistant.usage`` and Copilot CLI's
# ``session.usage_record`` write them (their input counts hold the cached tokens already);
# the Anthropic API's, whose ``input_tokens`` leaves out the cache reads and writes
_USAGE_FIELDS = {
    "input_tokens": "input_tokens",
    "output_tokens": "output_tokens",
    "inputTokens": "input_tokens",
    "outputTokens": "output_tokens",
}
_ANTHROPIC_CACHE = ("cache_creation_input_tokens", "cache_read_input_tokens")


def _call_usage(extra: dict[str, Any]) -> tuple[str | None, dict[str, int]] | None:
    """The token counts one event records, and the key of what they count when several
    events repeat or grow them (Claude Code transcripts: ``extra.message`` holds the API
    message's ``id`` and ``usage``; Vibe: a store's running totals); None when it records
    none. Counts under one key are taken at their largest, not summed."""
    usage = extra.get("usage")
    message: str | None = None
    anthropic = False
    if isinstance(usage, dict) and extra.get("usage_scope") == "session":
        # a running total of one store (Vibe's tokenUsage, one record per generation read)
        message = f"session:{extra.get('store')}"
    elif not isinstance(usage, dict):
        msg = extra.get("message")
        usage = msg.get("usage") if isinstance(msg, dict) else None
        if not isinstance(usage, dict):
            return None
        ident = msg.get("id") if isinstance(msg, dict) else None
        message = ident if isinstance(ident, str) else None
        anthropic = True
    counts: dict[str, int] = {}
    for field, name in _USAGE_FIELDS.items():
        value = usage.get(field)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            counts.setdefault(name, value)
    if anthropic and "input_tokens" in counts:
        for field in _ANTHROPIC_CACHE:
            value = usage.get(field)
            if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                counts["input_tokens"] += value
    return (message, counts) if counts else None


def mirror_fingerprint(db: Database) -> str:
    """What the mirror holds, as one short string that changes when events, sessions or
    grades change (the dashboard's live updates poll it)."""
    row = db.execute(
        "SELECT (SELECT count(*) FROM events), (SELECT max(rowid) FROM events),"
        " (SELECT count(*) FROM grades), (SELECT max(rowid) FROM grades),"
        " (SELECT count(*) FROM sessions),"
        " (SELECT group_concat(v) FROM (SELECT max(last_event_at) || max(coalesce(closed_at, ''))"
        " || sum(state = 'closed') || sum(reopen_count) AS v FROM sessions))"
    ).fetchone()
    h = blake2b(digest_size=8)
    h.update(repr(tuple(row)).encode())
    return h.hexdigest()


def newest_events(db: Database, keys: Sequence[str]) -> dict[str, tuple[str, str | None]]:
    """Session key -> (kind, status) of its newest recorded event (by the event's own time),
    for the dashboard's "waiting for input" state."""
    if not keys:
        return {}
    marks = ",".join("?" * len(keys))
    rows = db.execute(
        "SELECT e.session_key, e.kind, json_extract(e.body, '$.status') FROM events e"
        f" WHERE e.session_key IN ({marks}) AND e.rowid = (SELECT rowid FROM events WHERE"
        " session_key = e.session_key ORDER BY ts DESC, received_at DESC, file_offset DESC"
        " LIMIT 1)",
        list(keys),
    ).fetchall()
    return {
        str(k): (str(kind), None if status is None else str(status)) for k, kind, status in rows
    }
