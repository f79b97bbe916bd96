"""The Copilot CLI events.jsonl importer on logs written by the real 1.0.102 and on samples.

``data/copilot-cli-1.0.102-*/<session>/events.jsonl``: three real sessions (tests/harnesses
recipe) with their system prompt blanked and paths rewritten to ``/run``.
"""

from __future__ import annotations

import json
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
    assert report["events_written"] == 16
    events = _events(trail_home)
    assert all(validate(e) == [] for e in events)
    assert {e["session_id"] for e in events} == {"d9ec09e5-0f67-46e4-882d-cc988dab65ec"}
    child = "0d5499cd-dee5-4b14-8b1e-a1573865f943"
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
