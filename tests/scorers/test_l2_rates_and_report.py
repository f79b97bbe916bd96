"""Alignment rates computed when read, `trail eval guides` / `pending`, the L2 report, and
`trail watch` running the queue (issue 12 steps 3, 6, 8), with the stand-in judge."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from scorers import queue
from scorers.rates import action_counts, guide_rates
from scorers.registry import GRADERS
from telemetry import guide_store, queries
from tests.scorers.conftest import invoke, write_session
from tests.scorers.test_l2_lifecycle import T0, StandInJudge, bash, ev, judge, session
from trace_ingest.errors import ProviderUnreachable

__all__ = ["judge"]  # the fixture, shared


def test_rates_count_only_the_sessions_that_engaged_the_guide(
    trail_home: Path, judge: StandInJudge, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = str(trail_home)
    session(trail_home, "r-broke", commands=("npm install",))
    session(trail_home, "r-kept", commands=("pnpm install",))
    # Kept CLAUDE.md; src/CLAUDE.md loaded only after its one action: not engaged.
    t = T0 - 3000
    write_session(
        trail_home,
        [
            ev("r-late", "session_start", t, 0, cwd="/proj"),
            ev(
                "r-late",
                "guide_loaded",
                t + 1,
                1,
                path="/proj/CLAUDE.md",
                text="Use pnpm, never npm.",
            ),
            *bash("r-late", t + 5, 2, "pnpm test"),
            ev("r-late", "guide_loaded", t + 9, 4, path="/proj/src/CLAUDE.md", text="src rule"),
            ev("r-late", "session_end", t + 20, 5),
        ],
    )
    db, _ = queries.open_synced(home)
    assert len(queue.run_queue(db, home, now=T0).graded) == 3
    # A fourth session loads another guide but its grading fails: no verdict rows.
    monkeypatch.setitem(GRADERS, "l2", StandInJudge(fail=ProviderUnreachable))
    write_session(
        trail_home,
        [
            ev("r-failed", "session_start", t, 0, cwd="/proj"),
            ev("r-failed", "guide_loaded", t + 1, 1, path="/proj/AGENTS.md", text="agents rule"),
            *bash("r-failed", t + 5, 2, "ls"),
            ev("r-failed", "session_end", t + 20, 5),
        ],
    )
    db, _ = queries.open_synced(home)
    assert queue.run_queue(db, home, now=T0).failed
    guide_store.record_guides(db, home)
    rates = {r.guide: r for r in guide_rates(db)}
    claude = rates["CLAUDE.md"]
    assert claude.aligned == ["claude-code/r-kept", "claude-code/r-late"]
    assert claude.misaligned == ["claude-code/r-broke"]
    assert claude.rate == pytest.approx(2 / 3)
    late = rates["src/CLAUDE.md"]
    assert late.not_engaged == ["claude-code/r-late"]
    assert late.rate is None and late.status == "not engaged"  # not 0 %, not 100 %
    agents = rates["AGENTS.md"]
    assert agents.rate is None and agents.status == "unevaluated"
    assert agents.loaded_in == ["claude-code/r-failed"]
    # The same through the CLI, computed at read time.
    out = json.loads(invoke("eval", "guides", "--json").output)
    by_name = {r["guide"]: r for r in out}
    assert by_name["CLAUDE.md"]["rate"] == pytest.approx(2 / 3)
    assert by_name["CLAUDE.md"]["engagedSessions"] == [
        "claude-code/r-broke",
        "claude-code/r-kept",
        "claude-code/r-late",
    ]
    assert by_name["AGENTS.md"]["status"] == "unevaluated"
    text = invoke("eval", "guides").output
    assert "n/a" in text and "unevaluated" in text


def test_an_action_without_a_verdict_is_unjudged_not_unguided() -> None:
    counts = action_counts({"e1": "aligned", "e2": "unguided"}, ["e1", "e2", "e3"])
    assert counts.as_dict() == {"aligned": 1, "misaligned": 0, "unguided": 1, "unjudged": 1}


def test_score_l2_shows_not_engaged_and_marks_the_unverified_judge(
    trail_home: Path, judge: StandInJudge
) -> None:
    now = time.time()
    t = now - 600
    sid = "r-report"
    write_session(
        trail_home,
        [
            ev(sid, "session_start", t, 0, cwd="/proj"),
            ev(sid, "guide_loaded", t + 1, 1, path="/proj/CLAUDE.md", text="Use pnpm, never npm."),
            *bash(sid, t + 5, 2, "pnpm test"),
            ev(sid, "guide_loaded", t + 9, 4, path="/proj/docs/CLAUDE.md", text="docs rule"),
            ev(sid, "session_end", t + 20, 5),
        ],
    )
    pending = json.loads(invoke("eval", "pending", "--json").output)
    assert [p["session"] for p in pending] == [f"claude-code/{sid}"]
    assert pending[0]["state"] == "not graded yet"
    result = invoke("eval", "score", "--session", sid, "--level", "L2")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "L2 judge verdict: aligned" in out
    assert "guide CLAUDE.md" in out and ": aligned" in out
    assert "guide docs/CLAUDE.md" in out and "Not engaged" in out
    assert "not_applicable" not in out
    assert "UNVERIFIED" in out and "replayed" in out
    assert "actions: 1 aligned, 0 misaligned, 0 unguided" in out
    assert json.loads(invoke("eval", "pending", "--json").output) == []
    every = json.loads(invoke("eval", "pending", "--all", "--json").output)
    assert [p["state"] for p in every] == ["graded"]


def test_watch_grades_a_closed_session_once(trail_home: Path, judge: StandInJudge) -> None:
    now = time.time()
    key = session(trail_home, "r-watch", now - 600)
    first = invoke("watch", "--once")
    assert first.exit_code == 0, first.output
    assert f"graded {key} (L2)" in first.output
    again = invoke("watch", "--once")
    assert "graded" not in again.output
    lines = (trail_home / "GRADES.jsonl").read_text().splitlines()
    assert [json.loads(x)["rubric"] for x in lines] == ["l2"]


def test_watch_without_a_judge_leaves_the_session_queued(trail_home: Path) -> None:
    # The l2 entry as shipped until the judge lands: no provider.
    now = time.time()
    key = session(trail_home, "r-nojudge", now - 600)
    result = invoke("watch", "--once")
    assert result.exit_code == 0, result.output
    assert f"not graded yet {key}: NoProvider" in result.output
    assert not (trail_home / "GRADES.jsonl").exists()
    pending = json.loads(invoke("eval", "pending", "--json").output)
    assert [p["session"] for p in pending] == [key]


def test_a_guide_whose_text_was_not_captured_is_listed_unevaluated(trail_home: Path) -> None:
    home, sid, t = str(trail_home), "r-notext", T0 - 3600
    write_session(
        trail_home,
        [
            ev(sid, "session_start", t, 0, cwd="/proj"),
            ev(sid, "guide_loaded", t + 1, 1, path="/proj/AGENTS.md", text=None),
            *bash(sid, t + 5, 2, "ls"),
            ev(sid, "session_end", t + 20, 5),
        ],
    )
    db, _ = queries.open_synced(home)
    guide_store.record_guides(db, home)
    [rate] = guide_rates(db)
    assert (rate.guide, rate.version, rate.status) == ("AGENTS.md", "", "unevaluated")
    assert rate.loaded_in == [f"claude-code/{sid}"]
    assert "(no text)" in invoke("eval", "guides").output


def test_the_queue_outlives_an_unexpected_error(
    trail_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    @dataclass(frozen=True)
    class Broken(StandInJudge):
        def grade(self, inp: object) -> Any:
            raise KeyError("a bug in a judge")

    monkeypatch.setitem(GRADERS, "l2", Broken())
    home = str(trail_home)
    key = session(trail_home, "r-broken")
    db, _ = queries.open_synced(home)
    report = queue.run_queue(db, home, now=T0)
    assert report.failed and report.failed[0][0] == key and "KeyError" in report.failed[0][1]
    assert not (trail_home / "GRADES.jsonl").exists()
    assert queue.state_of(db, key, now=T0).state == queue.NOT_GRADED_YET
