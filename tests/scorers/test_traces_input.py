"""Seed 001 file inputs: canonical traces.json and audit JSONL."""

from __future__ import annotations

import json
from pathlib import Path

from scorers.grader_config import load_grader_config
from scorers.selftest import fixtures_text
from scorers.trace_grader import grade_run
from scorers.traces_input import load_traces, traces_from_text


def test_shipped_fixtures_equal_the_shared_sample(samples: Path) -> None:
    shared = (samples / "trace-grader" / "trace-grader.fixtures.json").read_text()
    assert fixtures_text() == shared


def test_canonical_detected_and_parsed(samples: Path) -> None:
    tf = load_traces(str(samples / "trace-grader" / "trace-grader.fixtures.json"))
    assert tf.format == "canonical"
    assert [(r.task, r.run_id, r.delivered, len(r.steps)) for r in tf.runs] == [
        ("T1-clean", "T1-clean-r1", True, 3),
        ("T2-corrupt", "T2-corrupt-r1", True, 5),
        ("T3-flaky", "T3-flaky-r1", True, 2),
        ("T3-flaky", "T3-flaky-r2", True, 2),
        ("T3-flaky", "T3-flaky-r3", False, 3),
    ]
    step = tf.runs[1].steps[0]
    assert (step.tool, step.ok, step.path, step.event_id) == (
        "edit",
        False,
        "db.sql",
        "T2-corrupt-r1#1",
    )


AUDIT = [
    {"ts": "2026-06-28T10:00:00Z", "event": "SessionStart", "session_id": "s1"},
    {
        "ts": "2026-06-28T10:00:01Z",
        "event": "PreToolUse",
        "session_id": "s1",
        "tool_name": "Edit",
        "file_path": "a.py",
    },
    {
        "ts": "2026-06-28T10:00:02Z",
        "event": "PreToolUse",
        "session_id": "s1",
        "tool_name": "Edit",
        "file_path": "a.py",
    },
    {
        "ts": "2026-06-28T10:00:03Z",
        "event": "PreToolUse",
        "session_id": "s1",
        "tool_name": "Edit",
        "file_path": "a.py",
    },
    {
        "ts": "2026-06-28T10:00:04Z",
        "event": "PreToolUse",
        "session_id": "s2",
        "tool_name": "force_push",
    },
]


def test_audit_one_run_per_session_and_retry_storm_unscored(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in AUDIT))
    tf = load_traces(str(path), task="my-task")
    assert tf.format == "audit"
    assert [(r.run_id, r.task, r.delivered, len(r.steps)) for r in tf.runs] == [
        ("s1", "my-task", None, 3),
        ("s2", "my-task", None, 1),
    ]
    config = load_grader_config(None)
    s1 = grade_run(tf.runs[0], config, tf.profile, 0.5)
    atoms = {a.check: a for a in s1.atoms}
    # RULE-04: the audit log has no per-step ok, so retry_storm is unscored, not a pass.
    assert atoms["retry_storm"].status == "unscored"
    assert "success_flags" in atoms["retry_storm"].reason
    assert atoms["edited_without_read"].status == "warn"
    assert s1.verdict == "flags-only: warnings"  # outcome unknown: never a pass
    s2 = grade_run(tf.runs[1], config, tf.profile, 0.5)
    assert s2.verdict == "flags-only: high-severity"


def test_unrecognised_text_is_an_error() -> None:
    import pytest

    from trace_ingest.errors import ScorerError

    with pytest.raises(ScorerError):
        traces_from_text("hello\nworld\n", "x.txt")
