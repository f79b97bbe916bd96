"""The real Claude Code 2.1.328, offline against the fake model, hooks from `trail install`.

Every scenario runs ATTEMPTS times in a row. For each run the truth comes from Claude's own
transcript files (tests/harnesses/truth.py) and is compared with:

- trail's raw hook capture (trace.jsonl), for what holds with hooks alone;
- ``trail show --json`` (the reconciled canonical session: one event per real action, hooks and
  transcript merged) and ``trail eval score --json`` (no integrity gap for a complete session).
"""

from __future__ import annotations

import itertools
import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.harnesses.conftest import ATTEMPTS, Checked
from tests.harnesses.scenarios import SCENARIOS
from tests.harnesses.truth import MAIN, arrival_inversions

pytestmark = pytest.mark.harness

RUNS = [
    pytest.param(name, attempt, id=f"{name}-{attempt}")
    for name, attempt in itertools.product(SCENARIOS, range(1, ATTEMPTS + 1))
]
# Runs in which every hook reached trail: their sessions are complete, so no integrity gap.
COMPLETE_RUNS = [p for p in RUNS if SCENARIOS[p.values[0]].hooks_complete]  # type: ignore[index]
RESULT_KINDS = ("tool_result", "tool_error")


@pytest.fixture
def checked(rig_run: Any, name: str, attempt: int) -> Checked:
    c: Checked = rig_run(name, attempt)
    return c


def _lane(ev: dict[str, Any]) -> str:
    return str(ev.get("agent_id") or MAIN)


# -- the run itself ----------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "attempt"), RUNS)
def test_claude_ran_the_script(checked: Checked) -> None:
    r, t = checked.result, checked.truth
    assert r.returncode == 0, f"{checked.label}: claude exited {r.returncode}"
    results = [m for m in r.stream if m.get("type") == "result"]
    assert results and results[-1].get("subtype") == "success", checked.label
    assert not r.lingering_after_settle, (
        f"{checked.label}: still running: {r.lingering_after_settle}"
    )
    # The fake played every step of the script: each scripted call is in the transcript.
    script = json.loads((r.paths.root / "script.json").read_text())
    main_calls = [c["name"] for step in script["main"] if isinstance(step, list) for c in step]
    assert [c.name for c in t.lanes().get(MAIN, [])] == main_calls, checked.label
    assert len(t.subagents) == checked.scenario.subagents, checked.label
    if checked.scenario.name == "subagents":
        shapes = sorted(str(sub.request_shape) for sub in t.subagents.values())
        assert shapes == ["background", "foreground"], f"{checked.label}: {shapes}"
    for agent_id, sub in t.subagents.items():
        assert sub.parent_call_id in {c.call_id for c in t.calls if c.name == "Agent"}
        child_calls = [c["name"] for step in script["child"] for c in step]
        assert [c.name for c in t.lanes().get(agent_id, [])] == child_calls, checked.label
    # Everything the fake saw came to 127.0.0.1 (the server binds nowhere else) and was logged.
    assert r.paths.server_log.stat().st_size > 0


@pytest.mark.parametrize(("name", "attempt"), RUNS)
def test_hooks_quiet_and_successful(checked: Checked) -> None:
    """trail's hook prints nothing, exits 0, logs no error; Claude reports no hook error."""
    r, t = checked.result, checked.truth
    for m in r.stream:
        if m.get("type") == "system" and m.get("subtype") == "hook_response":
            # `cancelled` (exit_code 1): claude stopped waiting for an async hook as it exited
            # (SessionStart of a `-p /compact` run); the hook itself still ran and was recorded
            # (the raw-hook checks count those events).
            if m.get("outcome") != "cancelled":
                assert m.get("exit_code") == 0, f"{checked.label}: {m}"
            assert m.get("stdout") == "" and m.get("output") == "", f"{checked.label}: {m}"
    assert t.hook_errors == [], f"{checked.label}: stop_hook_summary hookErrors {t.hook_errors}"
    for path in [t.transcript, *t.transcript.with_suffix("").glob("subagents/*.jsonl")]:
        for raw in path.read_text().splitlines():
            line = json.loads(raw)
            att = line.get("attachment") if isinstance(line.get("attachment"), dict) else {}
            kind = str(att.get("type", ""))
            assert not (kind.startswith("hook_") and "error" in kind), f"{checked.label}: {line}"
    log = r.paths.trail_home / "hook-errors.log"
    assert not log.exists() or not log.read_text().strip(), f"{checked.label}: {log.read_text()}"


# -- raw hook capture (holds without reconciliation) -------------------------------------------


@pytest.mark.parametrize(("name", "attempt"), RUNS)
def test_raw_hooks_record_every_call(checked: Checked) -> None:
    t, raw, sc = checked.truth, checked.raw_hooks, checked.scenario
    truth = {c.call_id: c for c in t.calls}
    pre = Counter(e["call_id"] for e in raw if e["kind"] == "tool_call")
    post = Counter(e["call_id"] for e in raw if e["kind"] in RESULT_KINDS)
    # Nothing invented: every call id the hooks saw is a real call.
    assert set(pre) | set(post) <= set(truth), checked.label
    for ev in raw:
        if ev.get("call_id") in truth and ev["kind"] in ("tool_call", *RESULT_KINDS):
            call = truth[ev["call_id"]]
            assert ev.get("tool_name") == call.name, checked.label
            assert _lane(ev) == call.lane, f"{checked.label}: {ev['call_id']} lane"
            if ev["kind"] in RESULT_KINDS:
                assert ev.get("ok") == call.ok, f"{checked.label}: {ev['call_id']} ok"
    if sc.hooks_complete:
        hooked = [cid for cid, c in truth.items() if not c.rejected]
        assert dict(pre) == dict.fromkeys(hooked, 1), f"{checked.label}: PreToolUse per call"
        # A call that never ran (refused) gets no PostToolUse or PostToolUseFailure in 2.1.328.
        ran = [
            cid
            for cid, c in truth.items()
            if c.status in ("ok", "failed", "interrupted") and not c.rejected
        ]
        assert dict(post) == dict.fromkeys(ran, 1), f"{checked.label}: PostToolUse per call"


@pytest.mark.parametrize(("name", "attempt"), RUNS)
def test_raw_hooks_scenario_facts(checked: Checked) -> None:
    t, raw, sc, r = checked.truth, checked.raw_hooks, checked.scenario, checked.result
    kinds = Counter(e["kind"] for e in raw)
    # One SessionStart per process run (a resumed session has two), and one (source
    # "compact") after each compaction.
    starts_by = Counter(
        (e.get("extra") or {}).get("source") == "compact"
        for e in raw
        if e["kind"] == "session_start"
    )
    assert starts_by[False] == len(sc.prompts(r.ctx)), checked.label
    # The compact SessionStart hook is async and fires as `claude -p /compact` exits: claude
    # cancels async hooks still running then (docs/benchmarks.md, "Agent wall time"), and a
    # hook it cancelled may not have written yet. Only a start claude reports cancelled may be
    # missing.
    cancelled = sum(
        1
        for m in r.stream
        if m.get("type") == "system"
        and m.get("subtype") == "hook_response"
        and m.get("hook_name") == "SessionStart:compact"
        and m.get("outcome") == "cancelled"
    )
    assert len(t.compactions) - cancelled <= starts_by[True] <= len(t.compactions), checked.label
    assert kinds["prompt"] >= 1, checked.label
    if sc.expects_guide:
        guides = [e for e in raw if e["kind"] == "guide_loaded"]
        assert [Path(str(e.get("path"))).name for e in guides] == ["CLAUDE.md"], checked.label
        assert [Path(g).name for g in t.guides] == ["CLAUDE.md"], checked.label
    if sc.expects_skill:
        skills = [e.get("skill") for e in raw if e["kind"] == "skill_loaded"]
        assert skills == [sc.expects_skill] == t.skills, checked.label
    starts = {e.get("agent_id"): e.get("agent_type") for e in raw if e["kind"] == "subagent_start"}
    assert starts == {a: s.agent_type for a, s in t.subagents.items()}, checked.label
    if sc.stop_lost:
        # Claude launched the Stop handler (stop_hook_summary lists it), the handler was killed
        # when claude exited (nothing of the run is alive any more, well before its 20 s
        # sleep ends), and so trail never saw the final Stop. Its marker tells whether the
        # shell got as far as its first command before the kill; both happen.
        assert any("sleep 20" in cmd for cmd in t.hook_commands), checked.label
        assert not r.lingering_after_settle
        assert r.seconds + r.settle_seconds < 20, checked.label
        assert kinds["agent_stop"] == 0, f"{checked.label}: the Stop was not lost"


@pytest.mark.parametrize(
    "attempt", [pytest.param(a, id=f"secret_in_command-{a}") for a in range(1, ATTEMPTS + 1)]
)
def test_secret_never_stored(rig_run: Any, attempt: int) -> None:
    """No 12-character piece of the token anywhere under TRAIL_HOME, after sync, show, score."""
    c: Checked = rig_run("secret_in_command", attempt)
    secret = c.result.ctx.secret
    assert len(secret) == 40 and secret.startswith("ghp_")
    # The harness itself did see it (else the test proves nothing).
    assert secret in c.truth.transcript.read_text()
    assert any(secret in json.dumps(e) for e in c.result.stream)
    pieces = {secret[i : i + 12].encode() for i in range(len(secret) - 11)}
    files = [p for p in c.result.paths.trail_home.rglob("*") if p.is_file()]
    assert files, c.label
    for path in files:
        data = path.read_bytes()
        leaked = [p.decode() for p in pieces if p in data]
        assert not leaked, f"{c.label}: {path} holds {leaked[:3]}"
    assert secret not in json.dumps(c.show)
    assert secret not in json.dumps(c.score)


# -- the reconciled session (the contract of `trail show --json`) ------------------------------


@pytest.mark.parametrize(("name", "attempt"), RUNS)
def test_show_equals_transcript_truth(checked: Checked) -> None:
    """Every tool call once, per lane in transcript order, same ok flags and subagent links."""
    t, show = checked.truth, checked.show
    assert set(show) >= {"session", "redactions", "events"}, checked.label
    events = show["events"]
    calls = [e for e in events if e.get("kind") == "tool_call"]
    counts = Counter(e.get("call_id") for e in calls)
    truth_ids = [c.call_id for c in t.calls]
    extra = sorted(str(k) for k in set(counts) - set(truth_ids))
    missing = sorted(set(truth_ids) - set(counts))
    twice = sorted(str(k) for k, n in counts.items() if n > 1)
    assert not (extra or missing or twice), (
        f"{checked.label}: calls not in the transcript {extra}; missing {missing}; twice {twice}"
    )
    got_lanes: dict[str, list[str]] = {}
    for e in calls:
        got_lanes.setdefault(_lane(e), []).append(str(e["call_id"]))
    want_lanes = {lane: [c.call_id for c in cs] for lane, cs in t.lanes().items()}
    assert got_lanes == want_lanes, f"{checked.label}: lane order"
    by_id = {e["call_id"]: e for e in calls}
    for c in t.calls:
        ev = by_id[c.call_id]
        assert ev.get("tool_name") == c.name, f"{checked.label}: {c.call_id} name"
        assert ev.get("ok") == c.ok, f"{checked.label}: {c.call_id} ok {ev.get('ok')} != {c.ok}"
        assert ev.get("status") == c.status, (
            f"{checked.label}: {c.call_id} status {ev.get('status')} != {c.status}"
        )
        assert "transcript" in (ev.get("sources") or []), f"{checked.label}: {c.call_id} sources"
        if checked.scenario.hooks_complete and not c.rejected:
            assert "hook" in (ev.get("sources") or []), f"{checked.label}: {c.call_id} sources"
        assert ev.get("provenance"), f"{checked.label}: {c.call_id} has no provenance"
    # One result per answered call, after its call (never above it, whatever arrived first).
    position = {e["call_id"]: i for i, e in enumerate(events) if e.get("kind") == "tool_call"}
    results = [(i, e) for i, e in enumerate(events) if e.get("kind") in RESULT_KINDS]
    per_call = Counter(e.get("call_id") for _, e in results)
    answered = {c.call_id for c in t.calls if c.ok is not None}
    assert dict(per_call) == dict.fromkeys(answered, 1), f"{checked.label}: results per call"
    above = [str(e["call_id"]) for i, e in results if i < position[e["call_id"]]]
    assert not above, f"{checked.label}: results listed above their calls: {above}"
    starts = [e for e in events if e.get("kind") == "subagent_start"]
    got_subs = {e.get("agent_id"): (e.get("parent_call_id"), e.get("agent_type")) for e in starts}
    want_subs = {a: (s.parent_call_id, s.agent_type) for a, s in t.subagents.items()}
    assert len(starts) == len(got_subs), f"{checked.label}: a subagent started twice"
    assert got_subs == want_subs, f"{checked.label}: subagent links"


def _runs_of(name: str) -> list[Any]:
    return [p for p in RUNS if p.values[0] == name]


@pytest.mark.parametrize(("name", "attempt"), _runs_of("compacted"))
def test_a_compaction_is_one_event(checked: Checked) -> None:
    """`-p /compact` in the resumed session: the transcript's compact_boundary, PreCompact and
    PostCompact are one compaction (not an attempt); the compactor's own agent (a
    SubagentStop with agent_type "" and no start) is internal, not a subagent."""
    t, raw, events = checked.truth, checked.raw_hooks, checked.show["events"]
    assert [b.get("trigger") for b in t.compactions] == ["manual"], checked.label
    # PostCompact's async hook may die with `claude -p`, which exits right after it fires (it
    # did in 1 of 3 runs); the transcript's boundary still makes it a compaction.
    hooked = [e.get("hook_event") for e in raw if e["kind"] == "compaction"]
    assert hooked in (["PreCompact"], ["PreCompact", "PostCompact"]), f"{checked.label}: {hooked}"
    [compaction] = [e for e in events if e["kind"] == "compaction"]
    assert compaction.get("status") != "attempted", checked.label
    assert set(compaction["sources"]) == {"transcript", "hook"}, checked.label
    # Its async SubagentStop hook may die with `claude -p` (it did in some runs).
    stops = [e for e in events if e["kind"] == "subagent_stop"]
    assert all(e.get("internal") for e in stops), f"{checked.label}: {stops}"
    assert not [e for e in events if e["kind"] == "subagent_start"], checked.label


@pytest.mark.parametrize(("name", "attempt"), _runs_of("permission_refusal"))
def test_refusal_is_a_permission_event(checked: Checked) -> None:
    """A call the permission policy refused never ran: one call with status refused, a
    ``permission`` event (refused, ok null) linked by call_id, no failure, nothing to retry."""
    t, raw, events = checked.truth, checked.raw_hooks, checked.show["events"]
    refused = [c for c in t.calls if c.status == "refused"]
    # 2.1.328: the deny rule stamps permission-rule, the tool outside --allowedTools user-rejected.
    kinds = [(c.denial_kind, c.disabled) for c in refused]
    assert kinds == [("permission-rule", False), ("user-rejected", False), (None, True)], kinds
    assert [c.status for c in t.calls] == ["refused", "refused", "refused", "ok"], checked.label
    for c in refused:
        mine = [e for e in events if e.get("call_id") == c.call_id]
        calls = [e for e in mine if e.get("kind") == "tool_call"]
        assert len(calls) == 1 and calls[0].get("status") == "refused", checked.label
        assert calls[0].get("ok") is None, checked.label
        assert not [e for e in mine if e.get("kind") in RESULT_KINDS], checked.label
        denied = [e for e in mine if e.get("kind") == "permission" and e.get("status") == "refused"]
        assert len(denied) == 1 and denied[0].get("ok") is None, f"{checked.label}: {mine}"
        assert "transcript" in denied[0]["sources"], checked.label
        # Hooks: a PreToolUse (none for the disabled tool), and no result of any kind (no
        # PermissionDenied either).
        hooked = [e["hook_event"] for e in raw if e.get("call_id") == c.call_id]
        assert hooked == ([] if c.disabled else ["PreToolUse"]), f"{checked.label}: {hooked}"
    # The Edit outside --allowedTools fired PermissionRequest (no tool_use_id in its payload);
    # the canonical view links it to the call.
    asked = [e for e in raw if e.get("hook_event") == "PermissionRequest"]
    assert [(e.get("tool_name"), e.get("call_id")) for e in asked] == [("Edit", None)]
    linked = [e for e in events if e.get("kind") == "permission" and e.get("status") == "asked"]
    assert [e.get("call_id") for e in linked] == [refused[1].call_id], checked.label
    assert not any(e.get("hook_event") == "PermissionDenied" for e in raw), checked.label
    # Grading: refusals are not failures; no retry storm, no error.
    assert checked.score_exit == 0, checked.label
    grade = checked.score["grades"][0]
    errors = grade["levels"]["L0"]["facts"]["errors"]
    assert (errors["failed"], errors["refused"], errors["error_rate"]) == (0, 3, 0.0), errors
    storm = [a for a in grade["atoms"] if a.get("check") == "retry_storm"]
    assert [a.get("status") for a in storm] == ["pass"], f"{checked.label}: {storm}"


@pytest.mark.parametrize(("name", "attempt"), _runs_of("failing_siblings"))
def test_failing_bash_cancels_no_sibling(checked: Checked) -> None:
    """2.1.328 has no sibling cancellation: a Bash exiting 1 leaves its Bash, Read and Edit
    siblings running to success. A Bash past its own ``timeout`` is a failure, not an interrupt."""
    t = checked.truth
    assert [c.status for c in t.calls] == ["failed", "ok", "ok", "ok", "failed"], checked.label
    assert not [c for c in t.calls if c.denial_kind], checked.label
    assert (checked.result.paths.project / "notes.txt").read_text() == "final\n"
    statuses = [e.get("status") for e in checked.show["events"] if e.get("kind") == "tool_call"]
    assert "cancelled" not in statuses and "interrupted" not in statuses, checked.label
    timed_out = [e for e in checked.raw_hooks if e.get("call_id") == t.calls[-1].call_id]
    errors = [e for e in timed_out if e.get("hook_event") == "PostToolUseFailure"]
    assert len(errors) == 1 and errors[0].get("interrupted") is False, checked.label
    assert "timed out" in str(errors[0].get("error")), checked.label


@pytest.mark.parametrize(("name", "attempt"), RUNS)
def test_show_prompts_are_what_was_typed(checked: Checked) -> None:
    """One prompt: the one given to `claude -p`. A background agent's task-notification turn
    (a second UserPromptSubmit in 2.1.328) is not a prompt of the main agent (issue 7 item 4)."""
    # `/compact` instructs the compactor; it is not a prompt to the agent.
    typed = [p for p in checked.scenario.prompts(checked.result.ctx) if p != "/compact"]
    prompts = [
        e
        for e in checked.show["events"]
        if e.get("kind") == "prompt" and not e.get("internal") and not e.get("agent_id")
    ]
    texts = [e.get("text") for e in prompts]
    if checked.scenario.name == "secret_in_command":  # stored scrubbed
        assert len(texts) == 1 and checked.result.ctx.secret not in str(texts), checked.label
    else:
        assert texts == typed, f"{checked.label}: prompts {texts}"


@pytest.mark.parametrize(("name", "attempt"), COMPLETE_RUNS)
def test_complete_session_has_no_integrity_gap(checked: Checked) -> None:
    score = checked.score
    assert score.get("grades"), f"{checked.label}: {score}"
    grade = score["grades"][0]
    l0 = grade["levels"]["L0"]
    gaps = [
        f"{a.get('check')}: {a.get('status')}: {a.get('reason')}"
        for a in grade["atoms"]
        if a.get("level") == "L0" and a.get("status") not in ("pass", "unscored")
    ]
    assert not gaps and l0.get("verdict") == "complete", f"{checked.label}: {gaps} {l0['verdict']}"


# -- what Claude Code did (not assertions about trail; kept for the record) --------------------


def test_record_observations(rig_run: Any, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Arrival inversions and hook losses of every run, written to rig-observations.json."""
    rows = []
    for name, attempt in itertools.product(SCENARIOS, range(1, ATTEMPTS + 1)):
        c: Checked = rig_run(name, attempt)
        rows.append(observe(c))
    out = Path(os.environ.get("TRAIL_RIG_OBSERVATIONS") or tmp_path_factory.getbasetemp())
    if out.is_dir():
        out = out / "rig-observations.json"
    out.write_text(json.dumps(rows, indent=2) + "\n")
    assert len(rows) == len(SCENARIOS) * ATTEMPTS


def observe(c: Checked) -> dict[str, Any]:
    raw = c.raw_hooks
    ids = {x.call_id for x in c.truth.calls}
    pre = {e["call_id"]: e["received_at"] for e in raw if e["kind"] == "tool_call"}
    post = {e["call_id"]: e["received_at"] for e in raw if e["kind"] in RESULT_KINDS}
    return {
        "run": f"{c.scenario.name}#{c.attempt}",
        "seconds": round(c.result.seconds, 2),
        "calls": len(ids),
        "result_line_before_call_line": arrival_inversions(raw),
        "result_started_before_call": sorted(
            k for k in pre.keys() & post.keys() if post[k] < pre[k]
        ),
        "calls_without_pre_hook": sorted(ids - pre.keys()),
        "calls_without_post_hook": sorted(ids - post.keys()),
        "stop_hooks": sum(1 for e in raw if e["kind"] == "agent_stop"),
        "prompts_hooked": sum(1 for e in raw if e["kind"] == "prompt"),
        "prompt_ids_in_transcript": len(c.truth.prompt_ids),
        "session_end_hooked": any(e["kind"] == "session_end" for e in raw),
        "stop_handler_started": Path(str(c.result.ctx.values.get("stop_marker", "-"))).exists(),
    }
