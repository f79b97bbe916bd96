"""The L2 lifecycle driven by the real judge answering from a replay file (``replay:FILE``):
graded once, reopened and regraded, the empty grade, the 24 h window, and every failure kind
writing nothing (issue 12 "Must show")."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from scorers import queue
from scorers.api import grade_and_record
from telemetry import queries
from tests.scorers.conftest import write_session
from tests.scorers.test_l2_lifecycle import bash, ev, session


def book(tmp_path: Path, *responses: dict[str, Any]) -> str:
    path = tmp_path / "replay.json"
    path.write_text(json.dumps({"format": "trail-replay/1", "responses": list(responses)}))
    return f"replay:{path}"


def npm_call(db: Any, key: str) -> str:
    events = queries.session_timeline(db, key).events
    return next(str(e["id"]) for e in events if e.get("kind") == "tool_call")


def violates(event_id: str) -> dict[str, Any]:
    return {
        "findings": [
            {"guide": "G1", "event": event_id, "relation": "violates", "explanation": "npm"}
        ],
        "guides_not_engaged": [],
    }


def l2_rows(home: Path) -> list[dict[str, Any]]:
    path = home / "GRADES.jsonl"
    rows = [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []
    return [r for r in rows if r["rubric"] == "l2"]


def test_graded_once_then_reopened_and_graded_again(trail_home: Path, tmp_path: Path) -> None:
    home, now = str(trail_home), time.time()
    key = session(trail_home, "rp-again", now - 300)
    db, _ = queries.open_synced(home)
    judge = book(tmp_path, {"session": key, "facts": violates(npm_call(db, key))})
    assert queue.run_queue(db, home, judge=judge, now=now).graded == [key]
    assert queue.run_queue(db, home, judge=judge, now=now).graded == []  # once
    [first] = l2_rows(trail_home)
    assert first["verdict"] == "misaligned" and first["l2"]["judge"]["replayed"] is True
    # Later actions reopen it; closed again, it is graded again over its new contents.
    write_session(trail_home, bash("rp-again", now - 120, 50, "pnpm test"))
    db, _ = queries.open_synced(home)
    assert queue.state_of(db, key, now=now).state == queue.OPEN
    write_session(trail_home, [ev("rp-again", "session_end", now - 100, 98)])
    db, _ = queries.open_synced(home)
    assert queue.state_of(db, key, now=now).state == queue.NOT_GRADED_YET
    assert queue.run_queue(db, home, judge=judge, now=now).graded == [key]
    _, second = l2_rows(trail_home)
    verdicts = sorted(a["verdict"] for a in second["l2"]["actions"])
    assert verdicts == ["misaligned", "unguided"]  # the new action: nothing cited it
    assert queue.state_of(db, key, now=now).state == queue.GRADED


def test_nothing_to_judge_is_graded_empty_without_a_call(trail_home: Path, tmp_path: Path) -> None:
    home, now = str(trail_home), time.time()
    sid = "rp-empty"
    write_session(
        trail_home,
        [
            ev(sid, "session_start", now - 300, 0, cwd="/proj"),
            ev(sid, "prompt", now - 290, 1, text="hello"),
            ev(sid, "session_end", now - 200, 2),
        ],
    )
    db, _ = queries.open_synced(home)
    # An empty replay file: any call would miss and fail the attempt.
    assert queue.run_queue(db, home, judge=book(tmp_path), now=now).graded == [f"claude-code/{sid}"]
    [entry] = l2_rows(trail_home)
    assert entry["verdict"] == "nothing-to-grade" and entry["l2"]["guides"] == []
    assert queue.state_of(db, f"claude-code/{sid}", now=now).state == queue.GRADED


def test_not_graded_after_24_hours(trail_home: Path, tmp_path: Path) -> None:
    home = str(trail_home)
    closed = time.time() - 25 * 3600
    key = session(trail_home, "rp-late", closed - 100)
    db, _ = queries.open_synced(home)
    judge = book(tmp_path, {"default": True, "facts": violates("E1")})
    assert queue.state_of(db, key).state == queue.NOT_GRADED
    assert queue.run_queue(db, home, judge=judge).graded == []
    with pytest.raises(queue.NotGradeable):
        grade_and_record(db, home, key, levels=("L2",), judge=judge)
    assert l2_rows(trail_home) == []


@pytest.mark.parametrize(
    ("answer", "kind"),
    [
        ({"error": "no_provider"}, "NoProvider"),
        ({"error": "quota"}, "Quota"),
        ({"error": "network"}, "Network"),
        ({"error": "provider"}, "Provider"),
        ({"text": "the session looks fine to me"}, "Unparseable"),
        ({"text": '{"findings": []'}, "Unparseable"),  # cut off: incomplete
        ({"facts": {"findings": [], "guides_not_engaged": []}}, "Incomplete"),
        ({"facts": violates("E999")}, "Malformed"),  # cites an event it was not shown
    ],
)
def test_each_failure_kind_writes_no_row_and_leaves_the_session_queued(
    trail_home: Path, tmp_path: Path, answer: dict[str, Any], kind: str
) -> None:
    home, now = str(trail_home), time.time()
    key = session(trail_home, "rp-fail", now - 600)
    db, _ = queries.open_synced(home)
    judge = book(tmp_path, {"session": key, **answer})
    for _ in range(2):  # no attempt counter: it is tried again each run
        report = queue.run_queue(db, home, judge=judge, now=now)
        assert report.graded == [] and len(report.failed) == 1
        assert kind.lower() in report.failed[0][1].lower()
    assert not (trail_home / "GRADES.jsonl").exists()
    for table in ("grades", "guide_verdicts", "action_verdicts"):
        assert db.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == 0
    assert queue.state_of(db, key, now=now).state == queue.NOT_GRADED_YET


def test_eval_pending_grade_runs_the_queue_once(trail_home: Path, tmp_path: Path) -> None:
    from tests.scorers.conftest import invoke

    key = session(trail_home, "rp-cli", time.time() - 600)
    db, _ = queries.open_synced(str(trail_home))
    judge = book(tmp_path, {"session": key, "facts": violates(npm_call(db, key))})
    (tmp_path / "empty").mkdir()
    failed = invoke("eval", "pending", "--grade", "--judge", book(tmp_path / "empty"))
    assert failed.exit_code == 1 and f"not graded yet {key}" in failed.output
    done = invoke("eval", "pending", "--grade", "--judge", judge, "--json")
    assert done.exit_code == 0 and json.loads(done.output)["graded"] == [key]
    assert invoke("eval", "pending", "--grade").output.strip() == "Nothing waiting."
