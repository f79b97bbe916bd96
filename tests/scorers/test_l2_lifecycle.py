"""L2's grading lifecycle per seed 002, driven through the registry by a stand-in judge.

The stand-in is registered as the ``l2`` entry (what the real judge is); it judges by a fixed
rule, so each test asserts what the frame does: when a session is graded, what is written,
and what is not.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from scorers import queue
from scorers.api import grade_and_record
from scorers.contents import nothing_to_grade
from scorers.l2 import L2Grader
from scorers.registry import GRADERS
from scorers.session import GradeInput
from scorers.verdicts import ActionVerdict, GuideVerdict, JudgeInfo, L2Result
from telemetry import queries
from telemetry.lifecycle import from_epoch
from tests.scorers.conftest import write_session
from trace_ingest.errors import (
    GradeAttemptFailed,
    MalformedAnswer,
    NoProvider,
    ProviderQuota,
    ProviderUnreachable,
)
from trace_ingest.events import new_event

T0 = 1_790_000_000.0  # a fixed "now" for the queue (2026-09)
RULE = "Use pnpm, never npm."


def ev(sid: str, kind: str, t: float, n: int, **fields: Any) -> dict[str, Any]:
    stamp = from_epoch(t)
    e = new_event(
        harness="claude-code",
        source="hook",
        session_id=sid,
        kind=kind,
        received_at=stamp,
        id_parts=(sid, n, kind),
    )
    e.update(fields)
    return e


def bash(sid: str, t: float, n: int, command: str) -> list[dict[str, Any]]:
    common = {"tool_name": "Bash", "tool": "shell", "call_id": f"{sid}-c{n}"}
    return [
        ev(sid, "tool_call", t, n, input={"command": command}, **common),
        ev(sid, "tool_result", t + 1, n + 1, ok=True, status="ok", **common),
    ]


def session(
    home: Path, sid: str, t: float = T0 - 3600, *, commands: tuple[str, ...] = ("npm install",)
) -> str:
    """A closed session: CLAUDE.md loaded at start, one Bash per command, the end."""
    events = [
        ev(sid, "session_start", t, 0, cwd="/proj"),
        ev(sid, "guide_loaded", t + 1, 1, path="/proj/CLAUDE.md", text=RULE, cwd="/proj"),
        ev(sid, "prompt", t + 2, 2, text="install the deps"),
    ]
    for i, command in enumerate(commands):
        events += bash(sid, t + 10 + 10 * i, 10 + 2 * i, command)
    events.append(ev(sid, "session_end", t + 100, 99))
    write_session(home, events)
    return f"claude-code/{sid}"


@dataclass(frozen=True)
class StandInJudge(L2Grader):
    """Judges by a fixed rule: a guide in force at an ``npm`` command is broken there, at any
    other command followed; a guide in force at no command is not engaged. ``fail`` makes
    every attempt raise that failure instead."""

    fail: type[GradeAttemptFailed] | None = None

    def grade(self, inp: GradeInput) -> L2Result:
        nothing = nothing_to_grade(inp.pairing.steps, inp.profile.contents)
        if nothing is not None:  # seed 002's intentional empty grade
            guides = [] if inp.guides is None else inp.guides.as_list()
            return L2Result(nothing_reason=nothing, guides_in_context=guides)
        if self.fail is not None:
            raise self.fail(f"stand-in {self.fail.__name__}")
        assert inp.guides is not None
        verdicts: dict[tuple[str, str], list[tuple[str, str]]] = {}
        actions = []
        for e in inp.data.events:
            if e.get("kind") != "tool_call":
                continue
            command = str((e.get("input") or {}).get("command", ""))
            verdict = "misaligned" if command.startswith("npm") else "aligned"
            in_force = inp.guides.in_force_at(str(e["id"]))
            for g in in_force:
                verdicts.setdefault((g.name, g.version), []).append((str(e["id"]), verdict))
            actions.append(
                ActionVerdict(
                    str(e["id"]),
                    verdict if in_force else "unguided",
                    tuple(g.name for g in in_force),
                )
            )
        guides = []
        for g in inp.guides.judgeable():
            cited = verdicts.get((g.name, g.version), [])
            if not cited:
                guides.append(GuideVerdict(g.name, g.version, "not_applicable"))
                continue
            bad = [eid for eid, v in cited if v == "misaligned"]
            verdict = "misaligned" if bad else "aligned"
            guides.append(
                GuideVerdict(g.name, g.version, verdict, tuple(bad or [cited[0][0]]), "rule")
            )
        return L2Result(
            guides=guides,
            actions=actions,
            judge=JudgeInfo("stand-in", replayed=True),
            guides_in_context=inp.guides.as_list(),
        )


@pytest.fixture
def judge(monkeypatch: pytest.MonkeyPatch) -> StandInJudge:
    grader = StandInJudge()
    monkeypatch.setitem(GRADERS, "l2", grader)
    return grader


def l2_lines(home: Path) -> list[dict[str, Any]]:
    path = home / "GRADES.jsonl"
    rows = [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []
    return [r for r in rows if r["rubric"] == "l2"]


def test_a_closed_session_is_graded_once(trail_home: Path, judge: StandInJudge) -> None:
    home = str(trail_home)
    key = session(trail_home, "s-once")
    db, _ = queries.open_synced(home)
    assert queue.state_of(db, key, now=T0).state == queue.NOT_GRADED_YET
    assert [s.key for s in queue.pending(db, now=T0)] == [key]
    report = queue.run_queue(db, home, now=T0)
    assert report.graded == [key] and report.failed == []
    assert queue.state_of(db, key, now=T0).state == queue.GRADED
    # Graded once: the next run of the queue has nothing to do.
    assert queue.run_queue(db, home, now=T0).graded == []
    [entry] = l2_lines(trail_home)
    assert entry["verdict"] == "misaligned"
    assert entry["contents"] == queries.session_fingerprint(db, key)
    [guide] = entry["l2"]["guides"]
    assert (guide["guide"], guide["verdict"]) == ("CLAUDE.md", "misaligned")
    rows = db.execute("SELECT guide, verdict FROM guide_verdicts").fetchall()
    assert rows == [("CLAUDE.md", "misaligned")]
    assert db.execute("SELECT count(*) FROM action_verdicts").fetchone()[0] == 1


def test_later_actions_reopen_it_and_it_is_graded_again(
    trail_home: Path, judge: StandInJudge
) -> None:
    # Real time here: the sync's idle sweep (30 min) must not close the reopened session.
    home = str(trail_home)
    now = time.time()
    key = session(trail_home, "s-again", now - 300)
    db, _ = queries.open_synced(home)
    assert queue.run_queue(db, home, now=now).graded == [key]
    # A minute later the agent goes on: the session reopens.
    write_session(trail_home, bash("s-again", now - 120, 50, "pnpm test"))
    db, _ = queries.open_synced(home)
    assert queue.state_of(db, key, now=now).state == queue.OPEN
    assert queue.pending(db, now=now) == []  # not graded while open
    write_session(trail_home, [ev("s-again", "session_end", now - 100, 98)])
    db, _ = queries.open_synced(home)
    st = queue.state_of(db, key, now=now)
    assert st.state == queue.NOT_GRADED_YET and "out of date" in st.reason
    assert queue.run_queue(db, home, now=now).graded == [key]
    first, second = l2_lines(trail_home)
    assert len(first["l2"]["actions"]) == 1 and len(second["l2"]["actions"]) == 2
    assert queue.state_of(db, key, now=now).state == queue.GRADED


def test_nothing_to_judge_is_an_intentionally_empty_grade(
    trail_home: Path, judge: StandInJudge
) -> None:
    home = str(trail_home)
    sid = "s-empty"
    t = T0 - 3600
    write_session(
        trail_home,
        [
            ev(sid, "session_start", t, 0, cwd="/proj"),
            ev(sid, "tool_call", t + 1, 1, tool_name="Skill", tool="skill", call_id="k1"),
            ev(sid, "skill_loaded", t + 1, 2, skill="greet", call_id="k1"),
            ev(
                sid, "tool_result", t + 2, 3, tool_name="Skill", tool="skill", call_id="k1", ok=True
            ),
            ev(sid, "session_end", t + 5, 4),
        ],
    )
    db, _ = queries.open_synced(home)
    assert queue.run_queue(db, home, now=T0).graded == [f"claude-code/{sid}"]
    [entry] = l2_lines(trail_home)
    assert entry["verdict"] == "nothing-to-grade"
    assert "skill load" in entry["nothingToGrade"]
    assert entry["l2"]["guides"] == [] and entry["l2"]["actions"] == []
    st = queue.state_of(db, f"claude-code/{sid}", now=T0)
    assert st.state == queue.GRADED  # a finished grade, not a missing one


def test_not_graded_yet_inside_the_window_not_graded_after_24_hours(
    trail_home: Path, judge: StandInJudge
) -> None:
    home = str(trail_home)
    key = session(trail_home, "s-late")
    db, _ = queries.open_synced(home)
    closed = T0 - 3600 + 100
    assert queue.state_of(db, key, now=closed + 23 * 3600).state == queue.NOT_GRADED_YET
    late = closed + 24 * 3600 + 1
    st = queue.state_of(db, key, now=late)
    assert st.state == queue.NOT_GRADED and "never graded" in st.reason
    assert queue.pending(db, now=late) == []
    assert queue.run_queue(db, home, now=late).graded == []
    with pytest.raises(queue.NotGradeable, match="not graded"):
        grade_and_record(db, home, key, levels=("L2",), now=late)
    assert l2_lines(trail_home) == []
    assert queue.state_of(db, key, now=late + 1e6).state == queue.NOT_GRADED  # permanent


@pytest.mark.parametrize(
    "failure", [NoProvider, ProviderQuota, ProviderUnreachable, MalformedAnswer]
)
def test_a_failed_attempt_writes_nothing_and_leaves_the_session_queued(
    trail_home: Path, monkeypatch: pytest.MonkeyPatch, failure: type[GradeAttemptFailed]
) -> None:
    home = str(trail_home)
    monkeypatch.setitem(GRADERS, "l2", StandInJudge(fail=failure))
    key = session(trail_home, "s-fail")
    db, _ = queries.open_synced(home)
    for _ in range(3):  # no attempt counter: every run tries again, none gives up
        report = queue.run_queue(db, home, now=T0)
        assert report.graded == [] and [k for k, _ in report.failed] == [key]
        assert failure.__name__ in report.failed[0][1]
    assert not (trail_home / "GRADES.jsonl").exists()
    for table in ("grades", "guide_verdicts", "action_verdicts"):
        assert db.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == 0
    assert queue.state_of(db, key, now=T0).state == queue.NOT_GRADED_YET
    # Once the judge answers, the same session is graded.
    monkeypatch.setitem(GRADERS, "l2", StandInJudge())
    assert queue.run_queue(db, home, now=T0).graded == [key]


def test_an_open_session_is_not_graded_at_l2(trail_home: Path, judge: StandInJudge) -> None:
    home, sid, now = str(trail_home), "s-open", time.time()
    write_session(
        trail_home, [ev(sid, "session_start", now - 60, 0), *bash(sid, now - 50, 1, "ls")]
    )
    db, _ = queries.open_synced(home)
    key = f"claude-code/{sid}"
    assert queue.state_of(db, key, now=now).state == queue.OPEN
    with pytest.raises(queue.NotGradeable, match="open"):
        grade_and_record(db, home, key, levels=("L2",), now=now)
    assert l2_lines(trail_home) == []


def test_asked_beside_l0_and_l1_an_open_sessions_l2_is_skipped_and_said(
    trail_home: Path, judge: StandInJudge
) -> None:
    home, sid, now = str(trail_home), "s-open-all", time.time()
    write_session(
        trail_home, [ev(sid, "session_start", now - 60, 0), *bash(sid, now - 50, 1, "ls")]
    )
    db, _ = queries.open_synced(home)
    graded = grade_and_record(db, home, f"claude-code/{sid}", levels=("L0", "L1", "L2"), now=now)
    assert [r["rubric"] for r in graded.records] == ["trace-grader"]
    assert [st.state for st in graded.not_graded] == [queue.OPEN]
    assert "L2: open (still open; graded when it closes)" in graded.render()
    assert l2_lines(trail_home) == []
