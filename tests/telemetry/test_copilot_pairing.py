"""Copilot CLI's inferred call/result pairing, and a hooked session meeting its own log.

Hook events: the payloads captured from the real 1.0.102 (tests/hooks/data); the log: the same
sessions' events.jsonl (tests/trace_ingest/data). Run r1 = parallel view+bash, a failing view,
an edit; r2 = a task subagent with parallel bash+view.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from hooks import copilot_cli
from telemetry.canonical import canonical
from telemetry.copilot_pairing import needs_pairing, pair
from tests.conftest import read_trace_lines
from trace_ingest.importers.copilot_events import import_paths

ROOT = Path(__file__).parents[1]
CAPTURE = ROOT / "hooks" / "data" / "copilot-cli-1.0.102-hooks.jsonl"
LOGS = {
    "r1": ROOT / "trace_ingest" / "data" / "copilot-cli-1.0.102-parallel-failure-edit",
    "r2": ROOT / "trace_ingest" / "data" / "copilot-cli-1.0.102-subagent",
}


def hook_events(run: str) -> list[dict[str, Any]]:
    out = []
    for n, line in enumerate(CAPTURE.read_text().splitlines()):
        row = json.loads(line)
        if row["run"] == run and row["label"].startswith("camel:"):
            received = f"2026-12-01T12:00:{n:02d}.000000Z"  # arrival: not the harness's time
            out += [dict(e) for e in copilot_cli.normalize(row["payload"], received, str(n))]
    return out


def log_events(run: str, home: Path) -> list[dict[str, Any]]:
    import_paths([str(LOGS[run])], home=str(home))
    return [e for e in read_trace_lines(home) if e["source"] == "events-log"]


def tool_calls(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e.get("kind") == "tool_call"]


def test_hooks_alone_pair_each_result_with_its_call() -> None:
    events = canonical(hook_events("r1")).events
    calls = tool_calls(events)
    # The parallel view and bash share one timestamp: their order is the event ids'.
    assert sorted([c["tool_name"] for c in calls[:2]]) == ["bash", "view"]
    assert [c["tool_name"] for c in calls[2:]] == ["view", "edit"]
    assert all(
        c["pairing"] == "inferred" and c["call_id"].startswith("copilot-inferred-") for c in calls
    )
    by_id = {c["call_id"]: c for c in calls}
    results = [e for e in events if e["kind"] in ("tool_result", "tool_error")]
    assert sorted(r["call_id"] for r in results) == sorted(by_id)
    for r in results:
        call = by_id[r["call_id"]]
        assert (call["tool_name"], call["input"]) == (r["tool_name"], r["input"])
        assert call["ok"] == r["ok"]  # the call carries its result's outcome
    missing = next(c for c in calls if str(c.get("path")).endswith("missing.txt"))
    assert (missing["ok"], missing["status"]) == (False, "failed")
    # Each permission request is linked to the call it asked about.
    asked = [e for e in events if e["kind"] == "permission"]
    assert [by_id[a["call_id"]]["tool_name"] for a in asked] == ["bash", "edit"]


def test_a_create_is_asked_for_as_an_edit_and_linked() -> None:
    """1.0.102 asks permission for `create` with `toolName: "edit"` and `{file_path, diff}`
    (rig scenarios read_edit, denied_tool): the request is linked to the create call."""
    base = {"sessionId": "s-create", "cwd": "/p"}
    args = {"path": "/p/new.txt", "file_text": "x\n"}
    payloads = [
        {**base, "timestamp": 1796138843000, "toolName": "create", "toolArgs": args},
        {**base, "timestamp": 1796138843024, "hookName": "permissionRequest",
         "permissionSuggestions": [], "toolName": "edit",
         "toolInput": {"file_path": "/p/new.txt", "diff": "create file mode 100644\n+x\n"}},
        {**base, "timestamp": 1796138843100, "toolName": "create", "toolArgs": args,
         "toolResult": {"resultType": "success", "textResultForLlm": "Created file"}},
    ]  # fmt: skip
    names = ("preToolUse", "permissionRequest", "postToolUse")
    events = []
    for n, (name, payload) in enumerate(zip(names, payloads, strict=True)):
        received = f"2026-12-01T12:00:0{n}.000000Z"
        events += copilot_cli.normalize({**payload, "hook_event_name": name}, received, str(n))
    out = canonical(events).events
    [call] = tool_calls(out)
    [asked] = [e for e in out if e["kind"] == "permission"]
    assert (call["tool"], asked["tool"]) == ("write", "edit")
    assert asked["call_id"] == call["call_id"] and asked["pairing"] == "inferred"


def test_hooks_alone_link_the_subagent_to_its_task_call() -> None:
    events = canonical(hook_events("r2")).events
    [task] = [c for c in tool_calls(events) if c["tool_name"] == "task"]
    [start] = [e for e in events if e["kind"] == "subagent_start"]
    assert start["parent_call_id"] == task["call_id"] and start["pairing"] == "inferred"
    child = [c for c in tool_calls(events) if c.get("agent_id") == start["agent_id"]]
    assert sorted(c["tool_name"] for c in child) == ["bash", "view"]
    position = {id(e): i for i, e in enumerate(events)}
    assert position[id(start)] > position[id(task)]


def test_the_pairing_ignores_arrival_order() -> None:
    events = hook_events("r2")
    expected = canonical(events).events
    for seed in range(5):
        shuffled = list(events)
        random.Random(seed).shuffle(shuffled)
        assert canonical(shuffled).events == expected


def test_identical_calls_are_counted_not_merged() -> None:
    def ev(kind: str, ts: str, n: int) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "sessionId": "s",
            "timestamp": ts,
            "cwd": "/w",
            "toolName": "bash",
            "toolArgs": {"command": "echo same", "description": "same"},
        }
        if kind == "post":
            payload["toolResult"] = {"resultType": "success", "textResultForLlm": "same\n"}
        [e] = copilot_cli.normalize(payload, f"2026-12-01T12:00:0{n}.000000Z", f"d{n}")
        return dict(e)

    t = 1796125179003
    events = [ev("pre", t, 1), ev("pre", t, 2), ev("post", t + 20, 3), ev("post", t + 25, 4)]
    out = canonical(events).events
    calls = tool_calls(out)
    assert len(calls) == 2 and len({c["call_id"] for c in calls}) == 2
    results = [e for e in out if e["kind"] == "tool_result"]
    assert sorted(r["call_id"] for r in results) == sorted(c["call_id"] for c in calls)
    # A third result with no call left is kept as a result of its own (an integrity fact).
    extra = pair([*events, ev("post", t + 30, 5)])
    ids = [e["call_id"] for e in extra if e["kind"] == "tool_result"]
    assert len(set(ids)) == 3


def test_hooks_and_log_are_one_session_with_the_real_ids(tmp_path: Path) -> None:
    for run in ("r1", "r2"):
        hooks = hook_events(run)
        logged = log_events(run, tmp_path / run)
        alone = canonical(hooks)
        both = canonical([*hooks, *logged])
        real = {e["call_id"] for e in logged if e["kind"] == "tool_call"}
        calls = tool_calls(both.events)
        assert {c["call_id"] for c in calls} == real, run
        assert all(c["sources"] == ["events-log", "hook"] for c in calls), run
        assert all("pairing" not in c for c in calls), run
        assert both.disagreements == [], run
        # Nothing the hooks saw stays an action of its own.
        kinds = ("tool_call", "tool_result", "tool_error", "subagent_start", "subagent_stop")
        hook_only = [e for e in both.events if e["sources"] == ["hook"] and e["kind"] in kinds]
        assert hook_only == [], run
        assert len(tool_calls(alone.events)) == len(calls), run
        asked = [e for e in both.events if e["kind"] == "permission"]
        assert asked and all(a["call_id"] in real for a in asked), run


def test_other_sessions_are_untouched() -> None:
    claude = [
        {
            "harness": "claude-code",
            "source": "hook",
            "kind": "tool_call",
            "call_id": None,
            "id": "x",
        }
    ]
    assert not needs_pairing(claude)
    assert canonical(claude).events[0]["call_id"] is None  # nothing inferred for Claude Code


def test_a_session_hooked_under_both_spellings_counts_each_call_once() -> None:
    """Copilot runs every registered command: camelCase and PascalCase registrations both fire
    for one occurrence. The PascalCase copies are dropped."""
    both = []
    for n, line in enumerate(CAPTURE.read_text().splitlines()):
        row = json.loads(line)
        if row["run"] == "r1":
            received = f"2026-12-01T12:00:{n:02d}.000000Z"
            both += [dict(e) for e in copilot_cli.normalize(row["payload"], received, str(n))]
    camel_only = canonical(hook_events("r1")).events
    merged = canonical(both).events
    assert len(tool_calls(merged)) == len(tool_calls(camel_only)) == 4
    results = [e for e in merged if e["kind"] in ("tool_result", "tool_error")]
    assert len(results) == 4
    for kind in ("prompt", "session_start", "session_end", "agent_stop"):
        assert sum(e["kind"] == kind for e in merged) == 1, kind
