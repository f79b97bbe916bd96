"""The completeness rule on real hook sessions: missing capability -> unscored, never lower."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from scorers.completeness import session_profile, without
from scorers.grader_config import load_grader_config
from scorers.grading import SessionData, grade_events, load_session
from scorers.steps import Run, pair_events
from scorers.trace_grader import grade_run
from telemetry.queries import open_synced
from tests.conftest import run_hook
from tests.scorers.conftest import call, feed, start
from trace_ingest.events import now_iso
from trace_ingest.store import append_error


def _load(sid: str, home: Path) -> SessionData:
    db, _ = open_synced(str(home))
    return load_session(db, sid, str(home))


def _atom(grade: object, check: str) -> object:
    l1 = grade.l1  # type: ignore[attr-defined]
    return next(a for a in l1.atoms if a.check == check)


def test_degradation_same_session_with_and_without_results(
    storm_session: str, trail_home: Path
) -> None:
    config = load_grader_config(None)
    full = _load(storm_session, trail_home)
    with_results = grade_events(full, config)
    storm = _atom(with_results, "retry_storm")
    assert storm.status == "warn" and storm.earned == 0  # type: ignore[attr-defined]

    # The same session as a trace whose post-tool hook was never registered.
    calls_only = dataclasses.replace(
        full, events=[e for e in full.events if e["kind"] not in ("tool_result", "tool_error")]
    )
    no_results = grade_events(calls_only, config)
    storm2 = _atom(no_results, "retry_storm")
    assert storm2.status == "unscored"  # type: ignore[attr-defined]
    assert storm2.reason.startswith(  # type: ignore[attr-defined]
        "missing success_flags: the trace is missing it"
    )
    a, b = with_results.l1.aggregate, no_results.l1.aggregate  # type: ignore[union-attr]
    # Missing data is not a deduction: the retry storm atom left the denominator.
    assert b.possible == a.possible - 2 and b.earned == a.earned
    assert b.score is not None and a.score is not None and b.score > a.score
    # No edit in this session: out_of_order and edited_without_read (2 + 2) have nothing to
    # judge, so coverage is 6 of 10 with results and 4 of 10 without.
    assert b.coverage == 0.4 and a.coverage == 0.6


def test_degradation_clean_session_score_unchanged(good_session: str, trail_home: Path) -> None:
    config = load_grader_config(None)
    full = _load(good_session, trail_home)
    pairing = pair_events(full.events)
    profile = session_profile(full.events, pairing)
    run = Run(run_id=full.session_id, steps=pairing.steps, delivered=True)
    graded = grade_run(run, config, profile, 0.5)
    assert graded.aggregate.score == 1.0 and graded.aggregate.coverage == 1.0
    # Same events, but the source is declared unable to report success (harness limit).
    degraded = grade_run(run, config, without(profile, "success_flags", "test: not provided"), 0.5)
    storm = next(a for a in degraded.atoms if a.check == "retry_storm")
    assert storm.status == "unscored"
    assert "the harness cannot provide it" in storm.reason
    assert degraded.aggregate.score == 1.0  # not lower
    assert degraded.aggregate.coverage == 0.8
    assert graded.verdict == degraded.verdict == "clean-pass"


def test_gap_kinds_reported_apart(trail_home: Path) -> None:
    sid = "sess-gaps"
    feed(
        [
            start(sid),
            *call(sid, "Read", "t1", {"file_path": "/proj/a.py"}),
            {
                "session_id": sid,
                "hook_event_name": "PreToolUse",
                "tool_name": "Edit",
                "tool_use_id": "t2",
                "tool_input": {"file_path": "/proj/a.py"},
                "cwd": "/proj",
            },
        ]
    )
    run_hook('{"session_id": "sess-gaps", "hook_event_name": "PostToolUse", broken')
    append_error(
        str(trail_home),
        {"ts": now_iso(), "harness": "claude-code", "stage": "scrub", "error": "boom"},
    )
    data = _load(sid, trail_home)
    grade = grade_events(data, load_grader_config(None))
    prof = grade.profile.as_dict()
    assert "tokens" in prof["cannot_provide"] and "task_outcome" in prof["cannot_provide"]
    assert "prompts" in prof["trace_missing"]
    reasons = [g["reason"] for g in prof["integrity_gaps"]]
    assert any("1 tool call(s) have no result" in r for r in reasons)
    assert any("malformed" in r for r in reasons)
    assert any("hook error" in r for r in reasons)
    assert grade.l0 is not None
    statuses = {a.check: a.status for a in grade.l0.atoms}
    assert statuses == {
        "l0.pairing": "warn",
        "l0.hook_errors": "warn",
        "l0.damaged_events": "warn",
        "l0.source_agreement": "unscored",
    }


def test_outcome_attached_is_a_capability(good_session: str, trail_home: Path) -> None:
    data = _load(good_session, trail_home)
    labelled = dataclasses.replace(data, outcome="pass")
    grade = grade_events(labelled, load_grader_config(None))
    assert "task_outcome" in grade.profile.present
    assert grade.l1 is not None and grade.l1.verdict == "clean-pass"
