"""The ledger: append-only JSONL, mirrored into SQLite and rebuildable from it."""

from __future__ import annotations

import json
from pathlib import Path

from scorers import ledger
from telemetry.queries import open_synced
from tests.scorers.conftest import invoke


def test_ledger_mirrored_and_rebuilt(good_session: str, trail_home: Path) -> None:
    assert invoke("eval", "score", "--session", good_session).exit_code == 0
    assert invoke("eval", "score", "--session", good_session, "--rubric", "cleo").exit_code == 4
    rows = ledger.read(str(trail_home))
    assert [r["rubric"] for r in rows] == ["trace-grader", "trace-grader", "cleo"]
    db, _ = open_synced(str(trail_home))
    assert db.execute("SELECT count(*) FROM grades").fetchone()[0] == 3
    db.execute("DELETE FROM grades")
    db.conn.commit()
    ledger.sync(db, str(trail_home))  # rebuild from the ledger, idempotently
    ledger.sync(db, str(trail_home))
    got = db.execute(
        "SELECT rubric, verdict, config_verified FROM grades ORDER BY timestamp, rubric DESC"
    ).fetchall()
    assert [tuple(r) for r in got][:2] == [("trace-grader", "flags-only: clean", 0)] * 2
    body = json.loads(db.execute("SELECT body FROM grades LIMIT 1").fetchone()[0])
    assert body["sessionId"] == good_session


def test_no_score_flag_writes_nothing(good_session: str, trail_home: Path) -> None:
    assert invoke("eval", "score", "--session", good_session, "--no-ledger").exit_code == 0
    assert ledger.read(str(trail_home)) == []
