"""The Copilot CLI events.jsonl importer on logs written by the real 1.0.102 and on samples.

``data/copilot-cli-1.0.102-*/<session>/events.jsonl``: three real sessions (tests/harnesses
recipe) with their system prompt blanked and paths rewritten to ``/run``.
"""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import read_trace_lines
from trace_ingest.events import validate
from trace_ingest.importers.copilot_events import import_paths

DATA = Path(__file__).parent / "data"
SUBAGENT = DATA / "copilot-cli-1.0.102-subagent"
PARALLEL = DATA / "copilot-cli-1.0.102-parallel-failure-edit"
BACKGROUND = DATA / "copilot-cli-1.0.102-background-notifications-error"


def _events(home: Path) -> list[dict[str, Any]]:
    return [e for e in read_trace_lines(home) if e["harness"] == "copilot-cli"]


def test_a_subagent_session(trail_home: Path) -> None:
    report = import_paths([str(SUBAGENT)]).as_dict()
    assert report["errors"] == [] and report["lines_skipped"] == 0
    assert report["events_written"] == 21  # 16 and the 5 model calls' usage records
    events = _events(trail_home)
    assert all(validate(e) == [] for e in events)
    assert {e["session_id"] for e in events} == {"d9ec09e5-0f67-46e4-882d-cc988dab65ec"}
    child = "0d5499cd-dee5-4b14-8b1e-a1573865f943"
    usage = [e for e in events if "usage" in e.get("extra", {})]
    assert len(usage) == 5 and all(e["kind"] == "other" for e in usage)
    assert sum(1 for e in usage if e.get("agent_id") == child) == 2  # the subagent's two calls
    calls = [
        (e.get("agent_id"), e["tool_name"], e["call_id"])
        for e in events
        if e["kind"] == "tool_call"
    ]
    assert calls == [
        (None, "task", "call_fake_0_0_0_3d0a73a4"),
        (child, "bash", "call_fake_1_0_0_5d7a5837"),
        (child, "view", "call_fake_1_0_1_29c45af4"),
        (None, "bash", "call_fake_0_1_0_f01bfe21"),
    ]
    [start] = [e for e in events if e["kind"] == "subagent_start"]
    assert (start["agent_id"], start["parent_call_id"], start["agent_type"]) == (
        child,
        "call_fake_0_0_0_3d0a73a4",
        "task",
    )
    [stop] = [e for e in events if e["kind"] == "subagent_stop"]
    assert stop["ok"] is True and stop["extra"]["totalToolCalls"] == 2
    prompts = [(e.get("agent_id"), e["text"]) for e in events if e["kind"] == "prompt"]
    assert prompts == [
        (None, "Ask a helper to check the build."),
        (child, "Child: check the build."),
    ]
    stops = [(e.get("agent_id"), e["text"]) for e in events if e["kind"] == "agent_stop"]
    assert stops == [(child, "Done."), (None, "Done.")]
    assert (events[0]["kind"], events[-1]["kind"]) == ("session_start", "session_end")
    # What was read and deliberately not recorded is counted.
    assert report["lines_ignored"]["hook.start"] == 19
    assert report["lines_ignored"]["system.message"] == 2


def test_results_failures_and_exit_codes(trail_home: Path) -> None:
    import_paths([str(PARALLEL)])
    results = [e for e in _events(trail_home) if e["kind"] in ("tool_result", "tool_error")]
    got = [
        (e["tool_name"], e["kind"], e["ok"], e["status"], e["extra"].get("exit_code"))
        for e in results
    ]
    assert got == [
        ("view", "tool_result", True, "ok", None),
        ("bash", "tool_result", True, "ok", 2),
        ("view", "tool_error", False, "failed", None),
        ("edit", "tool_result", True, "ok", None),
    ]
    failed = results[2]
    assert failed["error"] == "Path does not exist" and failed["path"] == "/run/project/missing.txt"
    assert results[3]["extra"]["fileEdits"] == [{"path": "/run/project/notes.txt", "kind": "edit"}]


def test_a_boolean_exit_code_or_duration_is_not_a_number(trail_home: Path, tmp_path: Path) -> None:
    """JSON true is an int to Python: a log saying ``"exitCode": true`` keeps no exit code."""
    src = next(PARALLEL.glob("*/events.jsonl"))
    folder = tmp_path / src.parent.name
    folder.mkdir()
    text = src.read_text().replace('"exitCode":2', '"exitCode":true')
    assert '"metrics":{' in text
    text = text.replace('"metrics":{', '"metrics":{"durationMs":true,')
    (folder / "events.jsonl").write_text(text)
    import_paths([str(folder)])
    results = [e for e in _events(trail_home) if e["kind"] in ("tool_result", "tool_error")]
    assert len(results) == 4
    assert all("exit_code" not in e["extra"] and e.get("duration_ms") is None for e in results)


def test_notifications_errors_and_background_work(trail_home: Path) -> None:
    import_paths([str(BACKGROUND)])
    events = _events(trail_home)
    notes = [e for e in events if e["kind"] == "notification"]
    # The <system_notification> wrapper is removed: the text is the hook's message.
    assert [e["text"] for e in notes] == [
        'Shell command "bg" (shellId: 0) has completed successfully.',
        'Agent "bgagent" (task) has finished processing and is now idle.',
    ]
    [error] = [e for e in events if e["extra"].get("line_type") == "session.error"]
    assert error["kind"] == "other" and error["ok"] is False and "400" in error["error"]
    kinds = Counter(e["kind"] for e in events)
    assert kinds["subagent_start"] == kinds["subagent_stop"] == 1


def test_import_is_idempotent_and_a_grown_log_adds_only_the_new_lines(
    trail_home: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "session-state"
    shutil.copytree(PARALLEL, folder)
    log = next(folder.glob("*/events.jsonl"))
    lines = log.read_text().splitlines(keepends=True)
    log.write_text("".join(lines[:20]))
    first = import_paths([str(folder)]).as_dict()["events_written"]
    assert import_paths([str(folder)]).as_dict()["events_written"] == 0
    log.write_text("".join(lines))
    grown = import_paths([str(folder)]).as_dict()
    total = import_paths([str(PARALLEL)], home=str(tmp_path / "other")).as_dict()
    assert first > 0 and first + grown["events_written"] == total["events_written"]
    assert grown["events_already_present"] == first


def test_bad_lines_are_skipped_with_reasons(trail_home: Path, tmp_path: Path) -> None:
    folder = tmp_path / "session-state" / "bad"
    folder.mkdir(parents=True)
    good = (PARALLEL / "b5a26be1-b06d-4ba8-bf9c-b7d26250885a" / "events.jsonl").read_bytes()
    head = good.splitlines(keepends=True)[:3]
    (folder / "events.jsonl").write_bytes(
        b"".join(head)
        + b'["not", "an object"]\n'
        + b'{"data": {}}\n'
        + b"\xff\xfe not utf-8\n"
        + b'{"type": "brand.new_event", "data": {"x": 1}, "id": "n1",'
        + b' "timestamp": "2026-12-01T00:00:00Z"}\n'
        + b'{"type": "tool.execution_start", "data": {"toolCallId": "c'
    )
    report = import_paths([str(folder.parent)]).as_dict()
    reasons = [s["reason"] for s in report["skipped"]]
    assert len(reasons) == 4, reasons
    assert reasons[0] == "JSON value is an array, not an object"
    assert "type" in reasons[1]
    assert reasons[2].startswith("invalid UTF-8")
    assert reasons[3].startswith("truncated last line")
    assert all(s["file"].endswith("events.jsonl") for s in report["skipped"])
    [unknown] = [e for e in _events(trail_home) if e["extra"].get("line_type") == "brand.new_event"]
    assert unknown["kind"] == "other" and unknown["extra"]["data"] == {"x": 1}
    assert report["errors"] == []


def test_samples_from_other_versions_import_without_errors(samples: Path, trail_home: Path) -> None:
    """Older and third-party captures (1.0.x schema drift, epoch-second timestamps, external
    host tools, a flat session-state/*.jsonl) all import; their sessions are named."""
    paths = sorted((samples / "copilot-cli").glob("*-events.jsonl"))
    assert len(paths) == 9
    report = import_paths([str(p) for p in paths]).as_dict()
    assert report["errors"] == []
    events = _events(trail_home)
    assert all(validate(e) == [] for e in events)
    assert Counter(e["kind"] for e in events)["tool_call"] >= 10
    external = [e for e in events if e["extra"].get("external")]
    assert {e["kind"] for e in external} == {"tool_call", "tool_result"}
    assert all(e["ok"] is None for e in external if e["kind"] == "tool_result")


def test_a_missing_path_fails_before_anything_is_written(trail_home: Path, tmp_path: Path) -> None:
    from trace_ingest.errors import TrailError

    with pytest.raises(TrailError, match="no such file"):
        import_paths([str(SUBAGENT), str(tmp_path / "nope")])
    assert _events(trail_home) == []


def test_events_carry_the_envelope_identity(trail_home: Path) -> None:
    import_paths([str(SUBAGENT)])
    lines = (SUBAGENT / "d9ec09e5-0f67-46e4-882d-cc988dab65ec" / "events.jsonl").read_text()
    ids = {json.loads(line)["id"] for line in lines.splitlines()}
    for ev in _events(trail_home):
        assert (
            ev["uuid"] in ids
            and isinstance(ev["seq"], int)
            and ev["extra"]["file"] == "events.jsonl"
        )


# Lines the importer only counts (hook.start, turn bookkeeping, ...) are decided from orjson's
# parse before the gate (``_Walk.prefeed``). Each of these must come out as through the gate.
_TS = '"timestamp": "2026-12-01T00:00:0{}.000Z"'
_TRICKY = [
    '{"type": "session.start", "data": {"sessionId": "s1"}, "id": "a0", ' + _TS.format(1) + "}",
    # a nested "type" naming an ignored type does not make the line ignored, nor the reverse
    '{"type": "user.message", "data": {"type": "hook.start", "content": "hi"}, "id": "a1"}',
    '{"data": {"type": "user.message"}, "type": "hook.start", "id": "a2", ' + _TS.format(2) + "}",
    # the last of two top-level "type" keys is the line's type, for both parsers
    '{"type": "hook.start", "data": {}, "type": "user.message", "id": "a3"}',
    '{"type": "user.message", "data": {}, "type": "hook.start", "id": "a4"}',
    # hook.end is ignored only when it succeeded (JSON true, not "true" or 1)
    '{"type": "hook.end", "data": {"success": true}, "id": "a5", ' + _TS.format(3) + "}",
    '{"type": "hook.end", "data": {"success": "true"}, "id": "a6"}',
    '{"type": "hook.end", "data": {"success": 1}, "id": "a7"}',
    '{"type": "hook.end", "data": [true], "id": "a8"}',
    # what orjson refuses or reads otherwise goes through the gate: NaN, a huge integer,
    # a numeric or unreal timestamp, a lone surrogate, deep nesting, a type that is no string
    '{"type": "hook.start", "data": {"n": NaN}, "id": "a9", ' + _TS.format(4) + "}",
    '{"type": "hook.start", "data": {"n": 123456789012345678901234567890}, "id": "b0"}',
    '{"type": "assistant.turn_start", "timestamp": 1796125336815, "id": "b1"}',
    '{"type": "assistant.turn_start", "timestamp": "2026-13-01T00:00:00.000Z", "id": "b2"}',
    '{"type": "assistant.turn_end", "timestamp": "garbage", "id": "b3"}',
    '{"type": "hook.start", "data": {"s": "\\ud800"}, "id": "b4"}',
    '{"type": "hook.start", "data": ' + "[" * 450 + "]" * 450 + ', "id": "b5"}',
    '{"type": "hook.start", "data": ' + "[" * 1010 + "]" * 1010 + ', "id": "b6"}',
    '{"type": ["hook.start"], "id": "b7"}',
    '{"type": "", "id": "b8"}',
    '{"type": "hook.start", "id": "b9"',  # malformed
    "[]",
    '{"type": "tool.progress", "id": "c0", "ephemeral": true}',
    '{"type": "hook.start", "id": "c7", "ephemeral": true}',  # ignored as a hook.start
    # events without a timestamp of their own take the last line's that was a time
    '{"type": "system.notification", "data": {"content": "x"}, "id": "c1"}',
    '{"type": "session.model_change", "id": "c2", ' + _TS.format(5) + "}",
    '{"type": "session.model_change", "id": "c3", "timestamp": "2026-12-01"}',
    '{"type": "session.model_change", "id": "c4", "timestamp": "not a time"}',
    '{"type": "system.notification", "data": {"content": "y"}, "id": "c5"}',
    '{"type": "hook.start", "data": {}, "id": "c6"}',  # the last line
]


def _import_tricky(home: Path, log: Path, *, prefeed: bool) -> tuple[dict[str, Any], bytes]:
    from trace_ingest.importers import copilot_events

    saved = copilot_events._Walk.prefeed
    try:
        if not prefeed:
            copilot_events._Walk.prefeed = None  # type: ignore[assignment]
        report = import_paths([str(log)], home=str(home)).as_dict()
    finally:
        copilot_events._Walk.prefeed = saved  # type: ignore[method-assign]
    [trace] = home.glob("sessions/copilot-cli/*/trace.jsonl")
    for session in report["sessions"]:
        session.pop("trace")
    for summary in report["files"]:
        summary.pop("file")
    return report, trace.read_bytes()


def test_lines_counted_before_the_gate_come_out_as_through_it(tmp_path: Path) -> None:
    log = tmp_path / "session-state" / "s1" / "events.jsonl"
    log.parent.mkdir(parents=True)
    log.write_text("\n".join(_TRICKY) + "\n")
    fast, fast_trace = _import_tricky(tmp_path / "fast", log, prefeed=True)
    slow, slow_trace = _import_tricky(tmp_path / "slow", log, prefeed=False)
    received = rb'"received_at":"[^"]*"'
    assert re.sub(received, b"", fast_trace) == re.sub(received, b"", slow_trace)
    assert fast == slow
    recorded = {json.loads(line)["uuid"] for line in fast_trace.splitlines()}
    assert recorded >= {"a1", "a3", "a6", "a7", "a8", "c1", "c5"}
    assert recorded.isdisjoint({"a2", "a4", "a5", "a9", "b0", "b1", "b2", "b3", "c2", "c6"})
    assert fast["lines_ignored"] == {
        "assistant.turn_end": 1,
        "assistant.turn_start": 2,
        "ephemeral": 1,
        "hook.end": 1,
        "hook.start": 8,
        "session.model_change": 3,
    }
    assert fast["lines_skipped"] == 5  # the list, the empty and non-string types, b9, b6
    ts = {json.loads(line)["uuid"]: json.loads(line)["ts"] for line in fast_trace.splitlines()}
    assert ts["c1"] == "2026-12-01T11:42:16.815000Z"  # b1's epoch ms: b2 and b3 are no times
    assert ts["c5"] == "2026-12-01T00:00:00.000000Z"  # c3's date; c4 is not a time
