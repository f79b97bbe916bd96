"""L0's source comparison (scorers.sources) on both inputs it accepts: events as stored (one per
source per action) and the canonical session (telemetry.canonical: one event per action with
``sources`` and ``provenance``). Integrity findings: an action one source missed while it was
recording, and calls whose success the sources disagree on; a complete session has none."""

from __future__ import annotations

from typing import Any

from scorers.completeness import session_profile
from scorers.l0 import grade_l0
from scorers.sources import compare_sources
from scorers.steps import pair_events
from telemetry.canonical import canonical

T0 = 1_764_000_000.0


def iso(t: float) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f") + "Z"


def ev(source: str, kind: str, t: float, n: int, **kw: Any) -> dict[str, Any]:
    return {
        "v": 1,
        "id": f"{source}-{kind}-{n}",
        "harness": "claude-code",
        "source": source,
        "session_id": "s",
        "kind": kind,
        "ts": iso(t),
        "received_at": iso(t),
        **kw,
    }


def action(source: str, cid: str, t: float, ok: bool | None, **kw: Any) -> list[dict[str, Any]]:
    common = {"tool_name": "Bash", "tool": "shell", "call_id": cid, "input": {"command": "x"}}
    kind = "tool_result" if ok is not False else "tool_error"
    status = None if ok is None else ("ok" if ok else "failed")
    return [
        ev(source, "tool_call", t, 0, **common, **kw),
        ev(source, kind, t + 0.1, 1, **common, ok=ok, status=status, **kw),
    ]


def session(
    hook: dict[str, bool | None], transcript: dict[str, bool | None], times: dict[str, float]
) -> list[dict[str, Any]]:
    events = [ev("hook", "session_start", T0, 0), ev("hook", "session_end", T0 + 100, 9)]
    events.append(ev("transcript", "prompt", T0 + 0.5, 0, text="go"))
    for cid, ok in hook.items():
        events += [
            dict(e, id=f"h-{cid}-{i}") for i, e in enumerate(action("hook", cid, times[cid], ok))
        ]
    for cid, ok in transcript.items():
        events += [
            dict(e, id=f"t-{cid}-{i}")
            for i, e in enumerate(action("transcript", cid, times[cid], ok))
        ]
    events.append(ev("transcript", "agent_stop", T0 + 99, 0))
    return events


TIMES = {"a": T0 + 10, "b": T0 + 20, "c": T0 + 30, "late": T0 + 500, "early": T0 - 500}


def test_stored_events_missed_and_outcome() -> None:
    events = session(
        {"a": True, "b": False, "c": True},
        {"a": True, "b": True, "d": True} | {"early": True},
        TIMES | {"d": T0 + 40},
    )
    agr = compare_sources(events)
    kinds = {(f.kind, f.call_id) for f in agr.findings}
    assert kinds == {("missed", "c"), ("missed", "d"), ("outcome", "b")}
    missed = {f.call_id: f for f in agr.findings if f.kind == "missed"}
    assert missed["c"].missing_from == ("transcript",) and missed["d"].missing_from == ("hook",)
    assert agr.outside_span == 1  # "early": before either other source recorded
    assert (agr.actions, agr.checked, agr.agreeing) == (5, 4, 1)


def test_canonical_events_with_the_merges_disagreements() -> None:
    stored = session(
        {"a": True, "b": False, "c": True},
        {"a": True, "b": True, "d": True},
        TIMES | {"d": T0 + 40},
    )
    canon = canonical(stored)
    assert all("sources" in e for e in canon.events)
    agr = compare_sources(canon.events, [d.as_dict() for d in canon.disagreements])
    assert {(f.kind, f.call_id) for f in agr.findings} == {
        ("missed", "c"),
        ("missed", "d"),
        ("outcome", "b"),
    }
    outcome = next(f for f in agr.findings if f.kind == "outcome")
    assert outcome.values == {"hook": False, "transcript": True}


def test_canonical_provenance_carrying_ok_is_read_too() -> None:
    merged = {
        "id": "m1",
        "kind": "tool_result",
        "call_id": "x",
        "ts": iso(T0 + 5),
        "sources": ["transcript", "hook"],
        "ok": True,
        "provenance": [
            {"source": "transcript", "id": "t1", "ok": True},
            {"source": "hook", "id": "h1", "ok": False},
        ],
    }
    bounds = [
        {"id": "s", "kind": "session_start", "ts": iso(T0), "sources": ["hook"]},
        {"id": "p", "kind": "prompt", "ts": iso(T0), "sources": ["transcript"]},
    ]
    agr = compare_sources([*bounds, merged])
    assert [(f.kind, f.call_id) for f in agr.findings] == [("outcome", "x")]


def test_a_complete_session_reports_no_integrity_gap() -> None:
    stored = session({"a": True, "b": False}, {"a": True, "b": False}, TIMES)
    for events in (stored, canonical(stored).events):
        pairing = pair_events(events)
        profile = session_profile(events, pairing)
        res = grade_l0(events, pairing, profile, [], 0.5)
        agreement = next(a for a in res.atoms if a.check == "l0.source_agreement")
        assert agreement.status == "pass", agreement
        assert "agree on all 2 tool calls" in agreement.reason
        assert res.facts["source_agreement"]["findings"] == []
    canon = canonical(stored).events
    pairing = pair_events(canon)
    res = grade_l0(canon, pairing, session_profile(canon, pairing), [], 0.5)
    assert res.verdict == "complete"
    assert res.facts["profile"]["integrity_gaps"] == []
    assert res.facts["pairing"]["calls_without_result"] == 0


def test_actions_outside_a_sources_span_and_internal_ones_are_counted_apart() -> None:
    events = session({"a": True}, {"a": True, "late": True}, TIMES)
    events += [
        dict(e, id=f"w-{i}")
        for i, e in enumerate(action("transcript", "w", T0 + 50, True, internal="warmup"))
    ]
    events += [
        dict(e, id=f"n-{i}", call_id=None) for i, e in enumerate(action("hook", "n", T0 + 60, True))
    ]
    agr = compare_sources(events)
    assert agr.findings == []
    assert agr.outside_span == 1 and agr.internal == 1 and agr.no_call_id == 2


def test_one_source_is_unscored_not_passed() -> None:
    events = [e for e in session({"a": True}, {}, TIMES) if e["source"] == "hook"]
    pairing = pair_events(events)
    res = grade_l0(events, pairing, session_profile(events, pairing), [], 0.5)
    agreement = next(a for a in res.atoms if a.check == "l0.source_agreement")
    assert agreement.status == "unscored" and "two sources" in agreement.reason


def test_a_call_the_harness_fires_no_hook_for_is_not_missed() -> None:
    """Vibe 3.0.1 fires no hook inside a subagent nor for run_typescript: its importer marks
    those calls ``extra.hooks_blind``, and their absence from the hooks is no gap. Unmarked,
    the same absence still is one."""
    events = session({"a": True}, {"a": True, "b": True, "c": True}, TIMES)
    for e in events:
        if e.get("call_id") == "b":
            e["extra"] = {"hooks_blind": "a subagent's tool calls fire no hook"}
    agr = compare_sources(events)
    assert [(f.kind, f.call_id) for f in agr.findings] == [("missed", "c")]
    assert (agr.checked, agr.agreeing) == (3, 2)
