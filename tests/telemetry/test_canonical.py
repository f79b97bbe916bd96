"""Canonical order and reconciliation (telemetry.canonical): order from the harness's ids, never
from arrival; one event per real action when hooks and a transcript saw the same session."""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path
from typing import Any

from hooks.claude_code import normalize
from scorers.grader_config import load_grader_config
from scorers.grading import SessionData, grade_events
from scorers.ledger import session_record
from telemetry.canonical import canonical, is_quiet
from telemetry.lifecycle import from_epoch
from tests.conftest import TRAIL
from trace_ingest.events import to_line

SID = "c0ffee00-0000-4000-8000-00000000c0de"
T0 = 1_780_000_000.0  # an arbitrary epoch second
BASE = {"session_id": SID, "transcript_path": f"/nowhere/{SID}.jsonl", "cwd": "/p"}


def _payloads() -> list[tuple[str, dict[str, Any]]]:
    """A Claude Code 2.1.x session as its hooks fire it, in true order, labelled.

    One prompt; Read then Edit of a.py; a parallel Read + Bash batch; three failing Bash calls
    in a row (a retry storm); an Edit of a file never read; a final Bash; Stop; SessionEnd.
    """
    p = {"prompt_id": "p-1", "permission_mode": "default"}
    out: list[tuple[str, dict[str, Any]]] = [
        ("start", {"hook_event_name": "SessionStart", "source": "startup"}),
        (
            "guide",
            {
                "hook_event_name": "InstructionsLoaded",
                "file_path": "/p/CLAUDE.md",
                "memory_type": "Project",
                "load_reason": "session_start",
            },
        ),
        ("prompt", {"hook_event_name": "UserPromptSubmit", **p, "prompt": "fix the bug"}),
    ]

    def batch(*calls: tuple[str, str]) -> None:
        listed = [{"tool_name": tool, "tool_use_id": cid} for cid, tool in calls]
        out.append((f"batch:{calls[0][0]}", {"hook_event_name": "PostToolBatch", **p,
                                             "tool_calls": listed}))  # fmt: skip

    def call(label: str, cid: str, tool: str, tool_input: dict[str, Any], ok: bool = True) -> None:
        base = {**p, "tool_name": tool, "tool_input": tool_input, "tool_use_id": cid}
        out.append((f"pre:{label}", {"hook_event_name": "PreToolUse", **base}))
        if ok:
            post = {"hook_event_name": "PostToolUse", "tool_response": {"ok": 1}}
        else:
            post = {
                "hook_event_name": "PostToolUseFailure",
                "error": "Exit code 2\nboom",
                "is_interrupt": False,
            }
        out.append((f"post:{label}", {**base, **post, "duration_ms": 40}))

    call("read-a", "toolu_01", "Read", {"file_path": "/p/a.py"})
    batch(("toolu_01", "Read"))
    call("edit-a", "toolu_02", "Edit", {"file_path": "/p/a.py", "old_string": "x"})
    batch(("toolu_02", "Edit"))
    call("read-c", "toolu_03", "Read", {"file_path": "/p/c.py"})
    call("bash-1", "toolu_04", "Bash", {"command": "make"})
    batch(("toolu_03", "Read"), ("toolu_04", "Bash"))
    for n in range(3):
        call(f"fail-{n}", f"toolu_1{n}", "Bash", {"command": "deploy"}, ok=False)
        batch((f"toolu_1{n}", "Bash"))
    call("edit-b", "toolu_20", "Edit", {"file_path": "/p/b.py", "old_string": "y"})
    batch(("toolu_20", "Edit"))
    call("bash-2", "toolu_21", "Bash", {"command": "make test"})
    batch(("toolu_21", "Bash"))
    out.append(("stop", {"hook_event_name": "Stop", **p, "stop_hook_active": False}))
    out.append(("end", {"hook_event_name": "SessionEnd", "prompt_id": "p-1", "reason": "other"}))
    return out


def _events(stamps: dict[str, float], drop: frozenset[str] = frozenset()) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    for label, payload in _payloads():
        if label in drop:
            continue
        digest = format(abs(hash(label)) % (1 << 64), "016x")
        events += normalize({**BASE, **payload}, from_epoch(stamps[label]), digest)
    return events


def _ordered_stamps() -> dict[str, float]:
    return {label: T0 + 0.1 * n for n, (label, _) in enumerate(_payloads())}


def _shuffled_stamps() -> dict[str, float]:
    """What async hooks did in real runs (real-harnesses.md §3.3)."""
    s = _ordered_stamps()
    # The parallel batch: both PreToolUse hooks start within a few ms, in either order.
    s["pre:bash-1"], s["pre:read-c"] = s["pre:read-c"] - 0.002, s["pre:read-c"]
    # A PostToolUse recorded 12 ms before its own PreToolUse (the Pre started late).
    s["pre:read-a"] = s["post:read-a"] + 0.012
    # A PreToolUse that started after its own tool had run.
    s["pre:edit-b"] = s["post:edit-b"] + 0.2
    # A PostToolUse that landed after the next call's PreToolUse (and its Post).
    s["post:fail-0"] = s["post:fail-1"] + 0.05
    # The prompt's hook started after the first tool call's.
    s["prompt"] = s["pre:read-a"] + 0.3
    return s


def _grade(events: list[dict[str, Any]]) -> dict[str, Any]:
    data = SessionData(key=f"claude-code/{SID}", session_id=SID, harness="claude-code",
                       state="closed", events=events)  # fmt: skip
    grade = grade_events(data, load_grader_config())
    record = session_record(grade, load_grader_config(), "2026-12-01T00:00:00.000000Z")
    # Evidence names events by id, and ids derive from the receipt stamps: name them by what
    # they are instead, so two recordings of one session compare equal.
    names = {e["id"]: f"{e['kind']}:{e.get('call_id') or e.get('prompt_id')}" for e in events}
    names |= {
        p["id"]: f"{e['kind']}:{e.get('call_id') or e.get('prompt_id')}"
        for e in grade.data.events
        for p in e.get("provenance", [])
    }
    text = json.dumps(record, sort_keys=True)
    for eid, name in names.items():
        text = text.replace(eid, name)
    out: dict[str, Any] = json.loads(text)
    out.pop("gradeId", None)
    return out


def _steps(events: list[dict[str, Any]]) -> list[tuple[str, str, Any]]:
    return [
        (e["call_id"], e["tool_name"], e.get("ok"))
        for e in canonical(events).events
        if e["kind"] == "tool_call"
    ]


def test_shuffled_arrival_orders_and_grades_exactly_as_in_order() -> None:
    ordered = _events(_ordered_stamps())
    shuffled = _events(_shuffled_stamps())
    random.Random(7).shuffle(shuffled)  # and the lines land in the file in any order
    assert _steps(shuffled) == _steps(ordered)
    assert [c for c, _, _ in _steps(ordered)] == [
        "toolu_01", "toolu_02", "toolu_03", "toolu_04",
        "toolu_10", "toolu_11", "toolu_12", "toolu_20", "toolu_21",
    ]  # fmt: skip
    graded = _grade(ordered)
    assert graded == _grade(shuffled)
    # The session is graded for what it did, and has no integrity gap from the shuffle.
    text = json.dumps(graded)
    assert "retry" in text.lower()
    assert "without call" not in text and "without result" not in text


def _without_counts(graded: dict[str, Any]) -> dict[str, Any]:
    out = json.loads(json.dumps(graded))
    out.pop("entryCount", None)
    out["levels"]["L0"].pop("facts", None)
    return out


def test_a_lost_final_stop_grades_like_the_complete_session() -> None:
    complete = _grade(_events(_ordered_stamps()))
    lost = _events(_shuffled_stamps(), drop=frozenset({"stop"}))
    random.Random(3).shuffle(lost)
    graded = _grade(lost)
    # Every verdict, score, check and flag is the same; the facts honestly count one
    # agent_stop fewer, because it never arrived.
    assert _without_counts(graded) == _without_counts(complete)
    assert graded["levels"]["L0"]["facts"]["events"] == (
        complete["levels"]["L0"]["facts"]["events"] - 1
    )


def test_results_follow_calls_and_prompt_opens_the_turn() -> None:
    events = canonical(_events(_shuffled_stamps())).events
    kinds = [e["kind"] for e in events]
    assert kinds[0] == "session_start" and kinds[-1] == "session_end"
    assert kinds.index("prompt") < kinds.index("tool_call")
    assert kinds.index("agent_stop") > max(i for i, k in enumerate(kinds) if k == "tool_error")
    seen: set[str] = set()
    for ev in events:
        if ev["kind"] == "tool_call":
            seen.add(ev["call_id"])
        elif ev["kind"] in ("tool_result", "tool_error"):
            assert ev["call_id"] in seen, f"result of {ev['call_id']} above its call"


def _transcript_copy(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The same tool calls as a transcript importer records them: own ids, own times."""
    out = []
    for n, ev in enumerate(e for e in events if e["kind"] in ("tool_call", "tool_result",
                                                              "tool_error")):  # fmt: skip
        copy = {
            k: ev.get(k)
            for k in ("v", "harness", "session_id", "kind", "tool_name", "tool", "call_id", "ok")
        }
        copy |= {
            "id": f"t{n:031d}",
            "source": "transcript",
            "ts": from_epoch(T0 - 50 + n),  # the harness's own clock, earlier than any hook
            "received_at": from_epoch(T0 + 999),
            "seq": n + 1,
            "input": ev.get("input"),
        }
        out.append(copy)
    return out


def test_hooks_and_transcript_reconcile_to_one_event_per_action() -> None:
    hooks = _events(_shuffled_stamps())
    both = hooks + _transcript_copy(_events(_ordered_stamps()))
    result = canonical(both)
    calls = [e for e in result.events if e["kind"] == "tool_call"]
    assert len(calls) == 9
    assert all(e["sources"] == ["transcript", "hook"] for e in calls)
    assert all(len(e["provenance"]) == 2 for e in calls)
    assert not result.disagreements
    # The transcript's own times decide the order.
    assert [e["call_id"] for e in calls] == [c for c, _, _ in _steps(_events(_ordered_stamps()))]


def test_sources_that_disagree_are_reported() -> None:
    hooks = _events(_ordered_stamps())
    transcript = _transcript_copy(hooks)
    for ev in transcript:
        if ev["call_id"] == "toolu_21" and ev["kind"] == "tool_result":
            ev["ok"] = False
            ev["kind"] = "tool_error"
    result = canonical(hooks + transcript)
    assert [(d.call_id, d.field) for d in result.disagreements] == [("toolu_21", "ok")]


def test_an_exit_code_only_the_hook_saw_is_kept() -> None:
    """The transcript's fields win, but a fact it lacks is not lost: Vibe 3.0.1's store keeps an
    over-long shell result as an excerpt without its return code, which the hook's payload had
    (docs/testing.md, "Vibe")."""
    hooks = _events(_ordered_stamps())
    for ev in hooks:
        if ev["kind"] == "tool_result":
            ev["extra"] = {**(ev.get("extra") or {}), "exit_code": 0}
    transcript = _transcript_copy(hooks)
    coded = next(e for e in transcript if e["kind"] == "tool_result")
    coded["extra"] = {"exit_code": 3}  # where both have one, the transcript's stands
    results = [e for e in canonical(hooks + transcript).events if e["kind"] == "tool_result"]
    assert results and all(e["sources"] == ["transcript", "hook"] for e in results)
    codes = {e["call_id"]: e["extra"]["exit_code"] for e in results}
    assert codes.pop(coded["call_id"]) == 3 and set(codes.values()) == {0}


def test_canonical_is_idempotent() -> None:
    once = canonical(_events(_shuffled_stamps())).events
    assert canonical(once).events == once


def test_lines_without_agent_activity_are_kept_but_quiet() -> None:
    quiet = {"v": 1, "id": "q" * 32, "kind": "other", "source": "transcript", "extra": {"t": 1}}
    stub = {**quiet, "id": "m" * 32, "extra": {"malformed": "bad JSON"}}
    assert is_quiet(quiet) and not is_quiet(stub)
    before = canonical(_events(_ordered_stamps())).hidden  # PostToolBatch bookkeeping
    result = canonical([*_events(_ordered_stamps()), quiet, stub])
    assert quiet["id"] in {e["id"] for e in result.events}
    assert quiet["id"] not in {e["id"] for e in result.visible()}
    assert stub["id"] in {e["id"] for e in result.visible()}
    assert result.hidden == before + 1


def test_show_json_lists_each_hooked_action_once_in_canonical_order(trail_home: Path) -> None:
    """End to end: shuffled lines in a real trace file, the real mirror, the real CLI."""
    events = _events(_shuffled_stamps())
    random.Random(11).shuffle(events)
    folder = trail_home / "sessions" / "claude-code" / SID
    folder.mkdir(parents=True)
    (folder / "trace.jsonl").write_text("".join(to_line(e) for e in events))
    shown = json.loads(
        subprocess.run(
            [TRAIL, "show", SID, "--json"], capture_output=True, text=True, check=True
        ).stdout
    )
    calls = [(e["call_id"], e["ok"]) for e in shown["events"] if e["kind"] == "tool_call"]
    assert calls == [(c, ok) for c, _, ok in _steps(_events(_ordered_stamps()))]
    assert [ok for _, ok in calls].count(False) == 3


def test_permission_request_without_call_id_is_linked_to_its_call() -> None:
    """Claude Code 2.1.328's PermissionRequest names no tool_use_id (the rig's
    permission_refusal scenario): it is linked to the call of the same lane, tool and input."""

    def hook(event: str, ts: float, **fields: Any) -> dict[str, Any]:
        payload = {"session_id": "s", "hook_event_name": event, **fields}
        return dict(normalize(payload, from_epoch(ts), f"d{ts}")[0])

    edit = {"file_path": "/p/a.txt", "old_string": "x", "new_string": "y"}
    events = [
        hook("PreToolUse", 1.0, tool_name="Edit", tool_use_id="t1", tool_input=edit),
        hook("PermissionRequest", 1.1, tool_name="Edit", tool_input=dict(reversed(edit.items()))),
        hook("PreToolUse", 2.0, tool_name="Bash", tool_use_id="t2", tool_input={"command": "ls"}),
        hook("PreToolUse", 3.0, tool_name="Bash", tool_use_id="t3", tool_input={"command": "ls"}),
        hook("PermissionRequest", 3.1, tool_name="Bash", tool_input={"command": "ls"}),
        hook("PermissionRequest", 4.0, tool_name="Read", tool_input={"file_path": "/q"}),
    ]
    before = json.dumps(events)
    asked = [e for e in canonical(events).events if e["kind"] == "permission"]
    assert [(e["tool_name"], e.get("call_id"), e["status"]) for e in asked] == [
        ("Edit", "t1", "asked"),
        ("Bash", "t3", "asked"),  # the same command twice: the call nearest before it
        ("Read", None, "asked"),  # no such call: left unlinked
    ]
    assert json.dumps(events) == before  # stored events are not changed


def test_failed_compaction_attempts_are_marked_not_counted_as_compactions() -> None:
    """2.1.328 fires PreCompact for each auto-compaction it starts, PostCompact only for one
    that finished (docs/testing.md): three failed attempts, then one real compaction."""
    payloads = [{"hook_event_name": "PreCompact", "trigger": "auto"} for _ in range(3)]
    payloads += [
        {"hook_event_name": "PreCompact", "trigger": "auto"},
        {"hook_event_name": "PostCompact", "trigger": "auto", "compact_summary": "s"},
    ]
    events = []
    for n, payload in enumerate(payloads):
        events += normalize({**BASE, **payload}, from_epoch(T0 + n), f"{n:016x}")
    compactions = [e for e in canonical(events).events if e["kind"] == "compaction"]
    assert [e.get("status") for e in compactions] == ["attempted"] * 3 + [None]
    assert len(compactions[-1]["provenance"]) == 2  # PreCompact + PostCompact: one event
