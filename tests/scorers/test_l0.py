"""L0 facts: counts, pairing, errors, durations, gaps, redactions, hook errors."""

from __future__ import annotations

from typing import Any

from scorers.completeness import session_profile
from scorers.l0 import grade_l0
from scorers.steps import pair_events


def ev(i: int, kind: str, ts: str, **kw: Any) -> dict[str, Any]:
    return {
        "v": 1,
        "id": f"e{i}",
        "harness": "claude-code",
        "source": "hook",
        "session_id": "s",
        "kind": kind,
        "ts": ts,
        "received_at": ts,
        **kw,
    }


EVENTS = [
    ev(1, "session_start", "2026-01-01T10:00:00Z"),
    ev(
        2,
        "tool_call",
        "2026-01-01T10:00:01Z",
        tool_name="Read",
        tool="read",
        call_id="a",
        input={"file_path": "/p/x"},
    ),
    ev(
        3,
        "tool_result",
        "2026-01-01T10:00:02Z",
        tool_name="Read",
        tool="read",
        call_id="a",
        ok=True,
        duration_ms=100.0,
        redactions={"aws-key": 2},
    ),
    ev(
        4,
        "tool_call",
        "2026-01-01T10:10:02Z",
        tool_name="Bash",
        tool="shell",
        call_id="b",
        input={"command": "make"},
    ),
    ev(
        5,
        "tool_error",
        "2026-01-01T10:10:05Z",
        tool_name="Bash",
        tool="shell",
        call_id="b",
        ok=False,
        duration_ms=300.0,
        error="exit 2",
    ),
    ev(
        6,
        "tool_call",
        "2026-01-01T10:10:06Z",
        tool_name="Bash",
        tool="shell",
        call_id="c",
        input={"command": "make"},
    ),
    ev(
        7,
        "tool_result",
        "2026-01-01T10:10:07Z",
        tool_name="Grep",
        tool="search",
        call_id="z",
        ok=True,
        duration_ms=200.0,
    ),
    ev(8, "other", "2026-01-01T10:10:08Z", extra={"malformed": "bad json"}, truncated={"x": 10}),
]


def test_facts_hand_computed() -> None:
    pairing = pair_events(EVENTS)
    profile = session_profile(EVENTS, pairing)
    res = grade_l0(EVENTS, pairing, profile, [{"ts": "x", "stage": "parse", "error": "e"}], 0.5)
    f = res.facts
    assert f["by_kind"] == {
        "other": 1,
        "session_start": 1,
        "tool_call": 3,
        "tool_error": 1,
        "tool_result": 2,
    }
    assert f["tools"] == {"Bash": 2, "Read": 1, "Grep": 1}
    assert f["pairing"] == {
        "calls": 3,
        "results": 3,
        "paired": 2,
        "calls_without_result": 1,
        "results_without_call": 1,
        "duplicate_results": 0,
    }
    assert f["errors"]["failed"] == 1 and f["errors"]["steps_with_known_outcome"] == 3
    assert f["errors"]["error_rate"] == round(1 / 3, 6)
    assert f["durations_ms"]["total"] == 600.0 and f["durations_ms"]["max"] == 300.0
    t = f["timeline"]
    assert t["span_seconds"] == 608.0 and t["idle_gaps"] == 1
    assert t["longest_gaps"][0] == {"seconds": 600.0, "after": "e3", "before": "e4"}
    assert f["redactions"] == {"total": 2, "events": 1, "by_rule": {"aws-key": 2}}
    assert f["truncated_events"] == 1 and f["hook_errors"]["count"] == 1
    assert f["disagreements"]["status"] == "unscored"
    atoms = {a.check: a for a in res.atoms}
    assert atoms["l0.pairing"].earned == 2 / 3 and atoms["l0.pairing"].evidence == ("e6", "e7")
    assert atoms["l0.damaged_events"].evidence == ("e8",)
    assert res.verdict == "gaps"


def test_empty_session_is_nothing_to_grade_not_an_error() -> None:
    pairing = pair_events([])
    res = grade_l0([], pairing, session_profile([], pairing), [], 0.5)
    assert res.facts["events"] == 0
    assert res.verdict == "nothing-to-grade"
    assert res.aggregate.score is None  # never a full score
    assert all(a.status == "unscored" for a in res.atoms)
