"""What each page shows, read from the mirror (no HTML here: dashboard.pages renders it).

Every function takes an open ``Database`` that a sync has caught up (the server syncs on
start and on a timer, never per request). Nothing here writes: a session without a recorded
L0/L1 grade is graded in memory for its page (``record=False``) and says so.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from sqlite_utils import Database

from scorers import queue, rates
from scorers.api import grade_and_record
from scorers.ledger import L1_RUBRIC
from scorers.passk import TaskPassK, passk_by_task
from telemetry import queries
from telemetry.canonical import Canonical
from telemetry.lifecycle import to_epoch

PAGE_SIZE = 100
FILTERS = ("harness", "project", "state", "verdict", "since", "until")


def waiting(state: Any, newest: tuple[str, str | None] | None) -> str | None:
    """What an open session waits for, read off its newest event: the agent ended its turn
    (``agent_stop``: the harness's Stop, the turn is over) -> "waiting for input"; a
    permission asked and not answered -> "waiting for permission"; else None (working, or
    nothing recorded says)."""
    if state == "closed" or newest is None:
        return None
    kind, status = newest
    if kind == "agent_stop":
        return "waiting for input"
    if kind == "permission" and status in (None, "asked"):
        return "waiting for permission"
    return None


@dataclass
class SessionsView:
    total: int
    rows: list[dict[str, Any]]
    facets: dict[str, list[str]]
    filters: dict[str, str]
    offset: int


def duration_s(row: dict[str, Any]) -> float | None:
    start = to_epoch(row.get("started_at"))
    end = to_epoch(row.get("closed_at") or row.get("last_event_at"))
    return None if start is None or end is None else max(0.0, end - start)


def sessions(
    db: Database, filters: dict[str, str], offset: int = 0, now: float | None = None
) -> SessionsView:
    """One page of the sessions list with each row's L1 grade, L2 state and token counts."""
    now = time.time() if now is None else now
    picked = {k: v for k, v in filters.items() if k in FILTERS and v}
    total, rows = queries.session_page(
        db,
        harness=picked.get("harness"),
        project=picked.get("project"),
        verdict=picked.get("verdict"),
        since=picked.get("since"),
        until=picked.get("until"),
        state=picked.get("state"),
        limit=PAGE_SIZE,
        offset=max(0, offset),
        rubric=L1_RUBRIC,
    )
    usage = queries.usage_totals(db, [str(r["key"]) for r in rows])
    newest = queries.newest_events(db, [str(r["key"]) for r in rows if r.get("state") != "closed"])
    for r in rows:
        r["duration_s"] = duration_s(r)
        r["waiting"] = waiting(r.get("state"), newest.get(str(r["key"])))
        r["l2"] = queue.state_of(db, str(r["key"]), "l2", now)
        r["usage"] = usage.get(str(r["key"]))
    return SessionsView(total, rows, queries.session_facets(db), picked, max(0, offset))


@dataclass
class SessionView:
    meta: dict[str, Any]
    timeline: Canonical
    l1: dict[str, Any] | None  # the L0/L1 ledger entry shown
    l1_live: bool  # graded now for this page (no entry in the ledger)
    l1_error: str | None
    l2: queue.SessionState
    action_verdicts: dict[str, str]
    redactions: dict[str, int]
    usage: dict[str, int] | None
    labels: tuple[str | None, str | None]
    # event id -> the L1 checks that flag it (L2 verdicts are their own badge)
    cited: dict[str, list[str]] = field(default_factory=dict)
    waiting: str | None = None


def session(db: Database, home: str, ident: str, now: float | None = None) -> SessionView:
    """One session's page: its timeline, its grades and where each verdict points."""
    meta = queries.resolve_session(db, ident)
    key = str(meta["key"])
    l1 = queries.latest_grade(db, key, L1_RUBRIC)
    live, error = False, None
    timeline: Canonical | None = None
    if l1 is None:
        try:
            graded = grade_and_record(db, home, key, levels=("L0", "L1"), record=False)
            l1 = next((r for r in graded.records if r.get("rubric") == L1_RUBRIC), None)
            live = l1 is not None
            # the grade read the same canonical session: one pass over the events, not two
            timeline = Canonical(events=list(graded.grade.data.events))
        except Exception as exc:  # a crashing check must not take the page down: say so
            error = f"{type(exc).__name__}: {exc}"
    if timeline is None:
        timeline = queries.session_timeline(db, key)
    l2 = queue.state_of(db, key, "l2", now)
    verdicts: dict[str, str] = {}
    if l2.grade is not None:
        for a in (l2.grade.get("l2") or {}).get("actions") or ():
            if isinstance(a, dict) and a.get("event"):
                verdicts[str(a["event"])] = str(a.get("verdict"))
    view = SessionView(
        meta=meta,
        timeline=timeline,
        l1=l1,
        l1_live=live,
        l1_error=error,
        l2=l2,
        action_verdicts=verdicts,
        redactions=queries.redaction_counts(db, key),
        usage=queries.usage_totals(db, [key]).get(key),
        labels=queries.labels(db, key),
    )
    view.waiting = waiting(meta.get("state"), queries.newest_events(db, [key]).get(key))
    for f in (l1 or {}).get("findings") or ():
        if isinstance(f, dict) and f.get("event"):
            view.cited.setdefault(str(f["event"]), []).append(f"L1 {f.get('check')}")
    return view


def guides(db: Database) -> list[rates.GuideRate]:
    return rates.guide_rates(db)


def tasks(db: Database, k: int | None = None) -> list[TaskPassK]:
    """pass^k per labelled task; ``k`` None: each task's own n (as `trail eval passk`)."""
    return passk_by_task(queries.labelled_runs(db), k)
