"""The real Copilot CLI 1.0.102, offline against the fake OpenAI model, hooks from `trail install`.

Every scenario runs ATTEMPTS times in a row. For each run the truth comes from Copilot's own
``events.jsonl`` (tests/harnesses/truth_copilot.py, plain json) and is compared with:

- trail's raw hook capture (trace.jsonl), for what holds with hooks alone (no call ids:
  compared by lane, tool and input);
- ``trail show --json`` with the hooks alone (the log moved away while it is read): one call
  per real call, every result paired (``pairing: "inferred"``), the same ok flags;
- ``trail show --json`` reconciled (sync reads the log named by the hooks' ``transcriptPath``):
  the log's real call ids, per lane in the log's order, both sources on every call, subagent
  links, and an explicit ``trail import copilot-cli`` afterwards adds nothing.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.harnesses.conftest import harness_binary
from tests.harnesses.rig import TRAIL, base_env, trail
from tests.harnesses.rig_copilot import CopilotRun, CopilotScenario, run
from tests.harnesses.scenarios_copilot import GUARD_SCENARIOS, SCENARIOS
from tests.harnesses.truth_copilot import MAIN, Truth, derive, hook_trace

pytestmark = pytest.mark.harness

ATTEMPTS = 3
RUNS = [
    pytest.param(name, attempt, id=f"{name}-{attempt}")
    for name, attempt in itertools.product(SCENARIOS, range(1, ATTEMPTS + 1))
]
RESULT_KINDS = ("tool_result", "tool_error")
TOOL_KINDS = ("tool_call", *RESULT_KINDS)


@dataclass
class Checked:
    scenario: CopilotScenario
    attempt: int
    result: CopilotRun
    truth: Truth
    raw_hooks: list[dict[str, Any]]  # trace.jsonl hook lines, before any sync
    hooks_show: Any  # trail show --json with the hooks alone
    show: Any  # trail show --json reconciled with events.jsonl
    import_again: Any  # trail import copilot-cli --json after the reconciled show
    score: Any
    score_exit: int

    @property
    def label(self) -> str:
        return f"{self.scenario.name}#{self.attempt} ({self.result.paths.root})"


@pytest.fixture(scope="session")
def copilot_binary() -> Path:
    return harness_binary("copilot-cli")


def _hooks_only_show(result: CopilotRun) -> Any:
    """``trail show --json`` of a copy of TRAIL_HOME while Copilot's log is out of reach."""
    paths = result.paths
    log = result.copilot_home / "session-state" / result.session_id / "events.jsonl"
    hidden = log.with_name("events.jsonl.away")
    copy = paths.root / "trail-home-hooks"
    shutil.copytree(paths.trail_home, copy)
    log.rename(hidden)
    try:
        env = {**base_env(paths), "TRAIL_HOME": str(copy)}
        done = subprocess.run(
            [str(TRAIL), "show", result.session_id, "--json"],
            cwd=paths.project,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
    finally:
        hidden.rename(log)
    return json.loads(done.stdout)


@pytest.fixture(scope="session")
def copilot_run(
    copilot_binary: Path, tmp_path_factory: pytest.TempPathFactory
) -> Callable[[str, int], Checked]:
    """``copilot_run(name, attempt)``: that run, done once per test session and then shared."""
    base = tmp_path_factory.mktemp("copilot-rig")
    done: dict[tuple[str, int], Checked] = {}

    def get(name: str, attempt: int) -> Checked:
        key = (name, attempt)
        if key not in done:
            scenario = SCENARIOS[name]
            result = run(scenario, base / f"{name}-{attempt}", copilot_binary)
            sid = result.session_id
            assert sid, f"{name}#{attempt}: no session-state/<id>/events.jsonl"
            raw = hook_trace(result.paths.trail_home, sid)
            truth = derive(result.copilot_home, sid)
            hooks_show = _hooks_only_show(result)
            show = json.loads(trail(result.paths, "show", sid, "--json").stdout)
            state = str(result.copilot_home / "session-state")
            again = json.loads(trail(result.paths, "import", "copilot-cli", state, "--json").stdout)
            scored = trail(
                result.paths, "eval", "score", "--session", sid, "--json", "--no-ledger",
                check=False,
            )  # fmt: skip
            try:
                score = json.loads(scored.stdout)
            except ValueError:
                score = {"unparsed": scored.stdout, "stderr": scored.stderr}
            done[key] = Checked(
                scenario, attempt, result, truth, raw, hooks_show, show, again, score,
                scored.returncode,
            )  # fmt: skip
        return done[key]

    return get


@pytest.fixture
def checked(copilot_run: Any, name: str, attempt: int) -> Checked:
    c: Checked = copilot_run(name, attempt)
    return c


def _lane(ev: dict[str, Any]) -> str:
    return str(ev.get("agent_id") or MAIN)


def _key(lane: str, name: str, value: Any) -> tuple[str, str, str]:
    """A call's identity without ids: lane, tool and input. Every scripted call has its own
    description or path, and the stored input is scrubbed (the secret scenario), so the
    description stands for the input where there is one."""
    if isinstance(value, dict) and isinstance(value.get("description"), str):
        return (lane, name, value["description"])
    return (lane, name, json.dumps(value, sort_keys=True))


def _truth_keys(t: Truth) -> Counter[tuple[str, str, str]]:
    return Counter(_key(c.lane, c.name, c.input) for c in t.calls)


# -- the run itself ----------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "attempt"), RUNS)
def test_copilot_ran_the_script(checked: Checked) -> None:
    r, t, sc = checked.result, checked.truth, checked.scenario
    assert r.returncode == sc.exit_code, f"{checked.label}: copilot exited {r.returncode}"
    assert not r.lingering_after_settle, f"{checked.label}: {r.lingering_after_settle}"
    script = json.loads((r.paths.root / "script.json").read_text())
    main_calls = [c["name"] for step in script["main"] if isinstance(step, list) for c in step]
    assert sorted(c.name for c in t.lanes().get(MAIN, [])) == sorted(main_calls), checked.label
    assert len(t.subagents) == sc.subagents, checked.label
    child_steps = script.get("child", [])
    child_calls = [c["name"] for step in child_steps if isinstance(step, list) for c in step]
    for agent_id, sub in t.subagents.items():
        assert sub.parent_call_id in {c.call_id for c in t.calls if c.name == "task"}
        assert sorted(c.name for c in t.lanes()[agent_id]) == sorted(child_calls), checked.label
    # Every request went to the fake on 127.0.0.1 and was logged.
    assert r.paths.server_log.stat().st_size > 0
    # The registration trail wrote is what Copilot ran: a hook per event kind it fired.
    assert "preToolUse" in t.hook_types and "postToolUse" in t.hook_types, checked.label


@pytest.mark.parametrize(("name", "attempt"), RUNS)
def test_hooks_quiet_and_successful(checked: Checked) -> None:
    """Every hook invocation succeeded (Copilot's own hook.end), printed nothing, and trail
    logged no error of its own."""
    t, r = checked.truth, checked.result
    assert t.hook_failures == [], f"{checked.label}: {t.hook_failures}"
    for line in t.lines:
        if line.get("type") == "hook.end":
            assert "output" not in (line.get("data") or {}), f"{checked.label}: {line}"
    log = r.paths.trail_home / "hook-errors.log"
    assert not log.exists() or not log.read_text().strip(), f"{checked.label}: {log.read_text()}"


# -- raw hook capture (holds without reconciliation) -------------------------------------------


@pytest.mark.parametrize(("name", "attempt"), RUNS)
def test_raw_hooks_record_every_call(checked: Checked) -> None:
    """One preToolUse and one result per real call, in the right lane, with its input."""
    t, raw = checked.truth, checked.raw_hooks
    assert not [e for e in raw if e.get("call_id")], "Copilot sends no call ids"
    pre = Counter(
        _key(_lane(e), e["tool_name"], e.get("input")) for e in raw if e["kind"] == "tool_call"
    )
    post = Counter(
        _key(_lane(e), e["tool_name"], e.get("input")) for e in raw if e["kind"] in RESULT_KINDS
    )
    assert pre == _truth_keys(t), f"{checked.label}: preToolUse per call"
    answered = Counter(_key(c.lane, c.name, c.input) for c in t.calls if c.ok is not None)
    assert post == answered, f"{checked.label}: one result per answered call"
    ok_by_key: dict[tuple[str, str, str], list[bool]] = {}
    for c in t.calls:
        if c.ok is not None:
            ok_by_key.setdefault(_key(c.lane, c.name, c.input), []).append(c.ok)
    for e in raw:
        if e["kind"] in RESULT_KINDS:
            key = _key(_lane(e), e["tool_name"], e.get("input"))
            assert e.get("ok") in ok_by_key[key], f"{checked.label}: ok of {key}"
    # One sessionStart, prompt and sessionEnd per process run (a resumed session has two).
    turns = len(checked.scenario.prompts(checked.result.ctx))
    kinds = Counter(e["kind"] for e in raw)
    assert kinds["session_start"] == turns == kinds["session_end"], checked.label
    main_prompts = [e for e in raw if e["kind"] == "prompt" and not e.get("agent_id")]
    assert len(main_prompts) == turns, checked.label
    # Every event carries Copilot's own time (epoch ms -> ISO), not only trail's stamp.
    assert all(e["ts"] != e["received_at"] for e in raw), checked.label


# -- hooks alone: inferred pairing -------------------------------------------------------------


def _calls(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e.get("kind") == "tool_call"]


@pytest.mark.parametrize(("name", "attempt"), RUNS)
def test_hooks_alone_pair_every_call(checked: Checked) -> None:
    t, events = checked.truth, checked.hooks_show["events"]
    calls = _calls(events)
    assert Counter(_key(_lane(e), e["tool_name"], e.get("input")) for e in calls) == _truth_keys(
        t
    ), checked.label
    assert all(e.get("pairing") == "inferred" for e in calls), checked.label
    assert all(e.get("sources") == ["hook"] for e in calls), checked.label
    ids = [e["call_id"] for e in calls]
    assert len(set(ids)) == len(ids), f"{checked.label}: inferred ids repeat"
    results = Counter(e.get("call_id") for e in events if e.get("kind") in RESULT_KINDS)
    answered = sum(1 for c in t.calls if c.ok is not None)
    assert sum(results.values()) == answered and set(results) <= set(ids), checked.label
    assert all(n == 1 for n in results.values()), f"{checked.label}: two results for one call"
    # The same ok flags, key by key (identical calls are interchangeable).
    want = Counter((_key(c.lane, c.name, c.input), c.ok) for c in t.calls)
    got = Counter((_key(_lane(e), e["tool_name"], e.get("input")), e.get("ok")) for e in calls)
    assert got == want, checked.label
    # A result never precedes its call.
    position = {e["call_id"]: i for i, e in enumerate(events) if e.get("kind") == "tool_call"}
    for i, e in enumerate(events):
        if e.get("kind") in RESULT_KINDS:
            assert i > position[e["call_id"]], f"{checked.label}: result above its call"


# -- reconciled with events.jsonl (the contract of `trail show --json`) ------------------------


@pytest.mark.parametrize(("name", "attempt"), RUNS)
def test_show_equals_log_truth(checked: Checked) -> None:
    """Every call once with its real id, per lane in the log's order, same ok flags and
    statuses, both sources on every call, subagents linked to their task call."""
    t, show = checked.truth, checked.show
    events = show["events"]
    calls = _calls(events)
    counts = Counter(e.get("call_id") for e in calls)
    truth_ids = [c.call_id for c in t.calls]
    assert sorted(counts) == sorted(truth_ids) and max(counts.values()) == 1, (
        f"{checked.label}: {sorted(counts)} != {sorted(truth_ids)}"
    )
    got_lanes: dict[str, list[str]] = {}
    for e in calls:
        got_lanes.setdefault(_lane(e), []).append(str(e["call_id"]))
    assert got_lanes == {k: [c.call_id for c in v] for k, v in t.lanes().items()}, checked.label
    by_id = {e["call_id"]: e for e in calls}
    for c in t.calls:
        ev = by_id[c.call_id]
        assert ev.get("tool_name") == c.name, f"{checked.label}: {c.call_id} name"
        assert ev.get("ok") == c.ok, f"{checked.label}: {c.call_id} ok {ev.get('ok')} != {c.ok}"
        assert ev.get("status") == c.status, f"{checked.label}: {c.call_id} status"
        assert ev.get("sources") == ["events-log", "hook"], f"{checked.label}: {c.call_id}"
        assert ev.get("pairing") is None, f"{checked.label}: {c.call_id} still inferred"
    results = Counter(e.get("call_id") for e in events if e.get("kind") in RESULT_KINDS)
    answered = {c.call_id for c in t.calls if c.ok is not None}
    assert dict(results) == dict.fromkeys(answered, 1), f"{checked.label}: results per call"
    starts = [e for e in events if e.get("kind") == "subagent_start"]
    got_subs = {e.get("agent_id"): e.get("parent_call_id") for e in starts}
    assert got_subs == {a: s.parent_call_id for a, s in t.subagents.items()}, checked.label
    assert show["disagreements"] == [], f"{checked.label}: {show['disagreements']}"
    # Every permission request is linked to the call it asked about (a create's is asked as an
    # edit, real-harnesses.md §2.3).
    asks = [e for e in events if e.get("kind") == "permission" and e.get("status") == "asked"]
    unlinked = [e for e in asks if e.get("call_id") not in by_id]
    assert not unlinked, f"{checked.label}: permission requests without their call {unlinked}"
    # Nothing the hooks saw is left over as an action of its own.
    alone = [e for e in events if e.get("sources") == ["hook"] and e.get("kind") in TOOL_KINDS]
    assert not alone, f"{checked.label}: hook-only tool events {alone}"


@pytest.mark.parametrize(("name", "attempt"), RUNS)
def test_import_after_hooks_adds_nothing_more(checked: Checked) -> None:
    """The reconciling sync already read the log: importing it again writes no event."""
    again = checked.import_again
    assert again["events_written"] == 0, f"{checked.label}: {again}"
    assert again["events_already_present"] > 0, checked.label
    assert again["errors"] == [] and again["lines_skipped"] == 0, checked.label


@pytest.mark.parametrize(("name", "attempt"), RUNS)
def test_prompts_are_what_was_typed(checked: Checked) -> None:
    typed = checked.scenario.prompts(checked.result.ctx)
    prompts = [
        e.get("text")
        for e in checked.show["events"]
        if e.get("kind") == "prompt" and not e.get("agent_id")
    ]
    if checked.scenario.name == "secret_in_command":
        assert len(prompts) == 1 and checked.result.ctx.secret not in str(prompts)
    else:
        assert prompts == typed == checked.truth.prompts, checked.label


@pytest.mark.parametrize(
    "attempt", [pytest.param(a, id=f"secret_in_command-{a}") for a in range(1, ATTEMPTS + 1)]
)
def test_secret_never_stored(copilot_run: Any, attempt: int) -> None:
    """No 12-character piece of the token anywhere under TRAIL_HOME, after sync, show, import
    and score (the hooks and the log both carried it)."""
    c: Checked = copilot_run("secret_in_command", attempt)
    secret = c.result.ctx.secret
    assert len(secret) == 40 and secret.startswith("ghp_")
    assert secret in c.truth.log.read_text()  # Copilot itself did see it
    pieces = {secret[i : i + 12].encode() for i in range(len(secret) - 11)}
    homes = [c.result.paths.trail_home, c.result.paths.root / "trail-home-hooks"]
    files = [p for home in homes for p in home.rglob("*") if p.is_file()]
    assert files, c.label
    for path in files:
        data = path.read_bytes()
        leaked = [p.decode() for p in pieces if p in data]
        assert not leaked, f"{c.label}: {path} holds {leaked[:3]}"
    for view in (c.show, c.hooks_show, c.score):
        assert secret not in json.dumps(view)


@pytest.mark.parametrize(("name", "attempt"), [p for p in RUNS if p.values[0] == "failing_tool"])
def test_exit_codes_are_facts_not_failures(checked: Checked) -> None:
    """bash exiting 2 is a success in Copilot 1.0.102; the exit code is kept from the result
    text (hooks) and from shellExecution (log)."""
    t, events = checked.truth, checked.show["events"]
    shells = [c for c in t.calls if c.name == "bash"]
    assert [c.exit_code for c in shells] == checked.scenario.facts["exit_codes"]
    assert [c.ok for c in shells] == [True, True], checked.label
    assert [c.status for c in t.calls if c.name == "view"] == ["failed"], checked.label
    raw_codes = [
        (e.get("extra") or {}).get("exit_code")
        for e in checked.raw_hooks
        if e["kind"] == "tool_result" and e["tool_name"] == "bash"
    ]
    assert raw_codes == [2, 0], checked.label
    results = [e for e in events if e.get("kind") == "tool_result" and e.get("tool") == "shell"]
    assert [(e.get("extra") or {}).get("exit_code") for e in results] == [2, 0], checked.label


@pytest.mark.parametrize(("name", "attempt"), [p for p in RUNS if p.values[0] == "read_edit"])
def test_the_edit_happened(checked: Checked) -> None:
    project = checked.result.paths.project
    assert (project / "notes.txt").read_text() == checked.scenario.facts["notes_after"]
    edits = [e for e in checked.show["events"] if e.get("kind") == "tool_call"]
    assert [e.get("tool") for e in edits] == ["read", "edit", "write", "shell"], checked.label
    assert edits[0].get("path") == edits[1].get("path") == str(project / "notes.txt")


@pytest.mark.parametrize(("name", "attempt"), [p for p in RUNS if p.values[0] == "read_edit"])
def test_guides_in_context_are_recorded_with_their_text(checked: Checked) -> None:
    """No Copilot hook announces its rule files: trail lists those it reads by construction at
    session start, with the text as it was."""
    project = checked.result.paths.project
    guides = [e for e in checked.show["events"] if e.get("kind") == "guide_loaded"]
    # One session-start instant: their order among themselves is the event ids'.
    assert sorted((e["path"], e["text"]) for e in guides) == sorted(
        [
            (str(project / "AGENTS.md"), (project / "AGENTS.md").read_text()),
            (
                str(project / ".github" / "copilot-instructions.md"),
                (project / ".github" / "copilot-instructions.md").read_text(),
            ),
        ]
    )
    first_prompt = next(i for i, e in enumerate(checked.show["events"]) if e["kind"] == "prompt")
    assert all(checked.show["events"].index(g) < first_prompt for g in guides)


@pytest.mark.parametrize(("name", "attempt"), [p for p in RUNS if p.values[0] == "model_error"])
def test_model_error_is_recorded(checked: Checked) -> None:
    raw = checked.raw_hooks
    errors = [e for e in raw if e.get("hook_event") == "errorOccurred"]
    assert len(errors) == 1 and "fake failure" in str(errors[0].get("error")), checked.label
    ends = [e for e in raw if e["kind"] == "session_end"]
    assert [(e.get("extra") or {}).get("reason") for e in ends] == ["error"], checked.label


def _runs_of(name: str) -> list[Any]:
    return [p for p in RUNS if p.values[0] == name]


@pytest.mark.parametrize(("name", "attempt"), _runs_of("denied_tool"))
def test_a_denied_tool_is_refused_and_never_runs(checked: Checked) -> None:
    """`--deny-tool shell(rm)` and `--deny-tool write`: Copilot refuses the rm and the create
    before they run (error.code denied); each call is `refused`, `ok` null, with a refusal from
    the log, and no result hook. A tool `--excluded-tools` took out fails as unknown."""
    project = checked.result.paths.project
    assert (project / "notes.txt").exists() and not (project / "new.txt").exists()
    calls = checked.truth.calls
    [rm] = [c for c in calls if c.name == "bash" and "rm" in str(c.input)]
    [create] = [c for c in calls if c.name == "create"]
    assert rm.status == create.status == "refused", checked.label
    assert [c.status for c in calls if c.name == "grep"] == ["failed"], checked.label
    events = checked.show["events"]
    for denied, rule in ((rm, "shell(rm)"), (create, "write")):
        [call] = [e for e in _calls(events) if e["call_id"] == denied.call_id]
        assert (call["status"], call["ok"]) == ("refused", None), checked.label
        [refusal] = [
            e
            for e in events
            if e["kind"] == "permission"
            and e.get("status") == "refused"
            and e.get("call_id") == denied.call_id
        ]
        assert f"`{rule}`" in str(refusal.get("error")), checked.label


@pytest.mark.parametrize(("name", "attempt"), _runs_of("odd_outputs"))
def test_odd_outputs_keep_their_exit_codes(checked: Checked) -> None:
    """A 400 KB output, non-UTF-8 bytes, exit 1 with stderr: each shell's exit code (the log's
    shellExecution) is on its result; the call to a tool Copilot lacks is one failed call."""
    shells = [c for c in checked.truth.calls if c.name == "bash"]
    results = {
        e["call_id"]: (e.get("extra") or {}).get("exit_code")
        for e in checked.show["events"]
        if e.get("kind") in RESULT_KINDS
    }
    assert [results[c.call_id] for c in shells] == [c.exit_code for c in shells], checked.label
    assert [c.exit_code for c in shells] == [0, 0, 1, 0], checked.label
    [unknown] = [c for c in checked.truth.calls if c.name == "frobnicate"]
    assert unknown.status == "failed", checked.label


@pytest.mark.parametrize(("name", "attempt"), _runs_of("files_and_search"))
def test_the_new_file_and_the_failed_edit(checked: Checked) -> None:
    project = checked.result.paths.project
    from tests.harnesses.scenarios_copilot import SPACED

    assert (project / SPACED).read_text() == checked.scenario.facts["created"]
    by_name = {c.name: c.status for c in checked.truth.calls}
    assert by_name["create"] == "ok" and by_name["edit"] == "failed", checked.label
    tools = [e.get("tool") for e in _calls(checked.show["events"])]
    assert tools == ["write", "read", "edit", "search", "search", "read"], checked.label


@pytest.mark.parametrize(("name", "attempt"), _runs_of("resumed"))
def test_a_resumed_session_is_one_session(checked: Checked) -> None:
    """Two processes, one session id: both turns' calls in one `trail show`, each turn opened
    by its prompt; `trail sessions` lists it once."""
    events = checked.show["events"]
    kinds = [e["kind"] for e in events if e["kind"] in ("prompt", "tool_call", "session_start")]
    assert kinds == ["session_start", "prompt", "tool_call", "tool_call"] * 2, checked.label
    assert checked.show["session"]["session_id"] == checked.result.session_id
    listed = json.loads(trail(checked.result.paths, "sessions", "--json").stdout)
    rows = listed if isinstance(listed, list) else listed.get("sessions", [])
    assert [r.get("session_id") for r in rows] == [checked.result.session_id], checked.label
    # The resume reopened it (seconds after its first end), the second end closed it again.
    [row] = rows
    assert (row["state"], row["reopen_count"]) == ("closed", 1), f"{checked.label}: {row}"
    ends = [e["ts"] for e in events if e["kind"] == "session_end"]
    assert len(ends) == 2 and row["closed_at"] > ends[0], f"{checked.label}: {row}"


@pytest.mark.parametrize(
    ("name", "attempt"), [p for p in RUNS if not SCENARIOS[str(p.values[0])].exit_code]
)
def test_reconciled_session_has_no_integrity_gap(checked: Checked) -> None:
    score = checked.score
    assert score.get("grades"), f"{checked.label}: {score}"
    grade = score["grades"][0]
    gaps = [
        f"{a.get('check')}: {a.get('status')}: {a.get('reason')}"
        for a in grade["atoms"]
        if a.get("level") == "L0" and a.get("status") not in ("pass", "unscored")
    ]
    assert not gaps, f"{checked.label}: {gaps}"


def test_record_observations(copilot_run: Any, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Per run: seconds, calls, hook events seen, to copilot-rig-observations.json."""
    rows = []
    for name, attempt in itertools.product(SCENARIOS, range(1, ATTEMPTS + 1)):
        c: Checked = copilot_run(name, attempt)
        rows.append(
            {
                "run": f"{name}#{attempt}",
                "seconds": round(c.result.seconds, 2),
                "calls": len(c.truth.calls),
                "hook_events": dict(Counter(str(e.get("hook_event")) for e in c.raw_hooks)),
                "hook_invocations_in_log": len(c.truth.hook_types),
            }
        )
    out = Path(os.environ.get("TRAIL_RIG_OBSERVATIONS") or tmp_path_factory.getbasetemp())
    if out.is_dir():
        out = out / "copilot-rig-observations.json"
    out.write_text(json.dumps(rows, indent=2) + "\n")
    assert len(rows) == len(SCENARIOS) * ATTEMPTS


# -- trail missing under a live registration ---------------------------------------------------


@pytest.fixture(scope="session")
def guard_runs(
    copilot_binary: Path, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, tuple[CopilotRun, Truth]]:
    base = tmp_path_factory.mktemp("copilot-guard")
    out = {}
    for name, scenario in GUARD_SCENARIOS.items():
        result = run(scenario, base / name, copilot_binary)
        out[name] = (result, derive(result.copilot_home, result.session_id))
    return out


def test_a_missing_trail_never_blocks_a_tool_call(
    guard_runs: dict[str, tuple[CopilotRun, Truth]],
) -> None:
    """The real CLI with trail's program gone: the command `trail install` writes still exits 0,
    so Copilot runs the tool (a failing preToolUse command would deny it)."""
    result, truth = guard_runs["trail_gone"]
    assert not Path(str(result.ctx.values["gone"])).exists()
    assert result.returncode == 0
    assert [(c.name, c.status) for c in truth.calls] == [("bash", "ok")]
    assert (result.paths.project / "ran.txt").read_text() == "ran\n"
    assert truth.hook_failures == []
    assert not list(result.paths.trail_home.glob("sessions/*/*/trace.jsonl"))  # nothing ran


def test_without_the_guard_the_same_registration_denies_the_tool(
    guard_runs: dict[str, tuple[CopilotRun, Truth]],
) -> None:
    """The control: the plain `<trail> hook copilot-cli` with trail gone makes Copilot deny
    the call (real-harnesses.md §2.2, fail-closed preToolUse), which is why trail adds
    `|| true`."""
    result, truth = guard_runs["trail_gone_unguarded"]
    assert [(c.name, c.status) for c in truth.calls] == [("bash", "refused")]
    assert not (result.paths.project / "ran.txt").exists()
    denied = [f for f in truth.hook_failures if f.get("hookType") == "preToolUse"]
    assert denied and "Denied by preToolUse hook" in json.dumps(denied[0])


def test_claude_settings_hooks_are_filed_under_copilot_once(
    guard_runs: dict[str, tuple[CopilotRun, Truth]],
) -> None:
    """Copilot runs a project's .claude/settings.json hooks too (observed on 1.0.102): with
    trail installed for both, every event reaches trail twice. All of it is filed under Copilot
    CLI (the sender sniff), and the canonical session counts each action once."""
    result, truth = guard_runs["claude_settings_too"]
    trail_home = result.paths.trail_home
    assert not list(trail_home.glob("sessions/claude-code/*/trace.jsonl"))
    raw = hook_trace(trail_home, result.session_id)
    via_claude = [e for e in raw if (e.get("extra") or {}).get("registered_as") == "claude-code"]
    assert via_claude and len(raw) > len(via_claude)  # both registrations fired
    show = json.loads(trail(result.paths, "show", result.session_id, "--json").stdout)
    events = show["events"]
    calls = _calls(events)
    assert sorted(e["call_id"] for e in calls) == sorted(c.call_id for c in truth.calls)
    for kind in ("session_start", "prompt", "agent_stop", "session_end"):
        assert sum(e["kind"] == kind for e in events) == 1, kind
    assert sum(e["kind"] in RESULT_KINDS for e in events) == len(truth.calls)
    assert sum(e["kind"] == "permission" for e in events) == 1  # bash asks, view does not
