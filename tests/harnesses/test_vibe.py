"""The real Mistral Vibe 3.0.1, offline against the fake OpenAI model, hooks from `trail install
--harness vibe`.

Every scenario runs ATTEMPTS times. For each run the truth comes from Vibe's own session store
(tests/harnesses/vibe_truth.py, plain json) and is compared with trail's raw hook capture and
with ``trail show --json``: the reconciled session (hooks + store, read by the sync that
``show`` runs), one event per real action.
"""

from __future__ import annotations

import itertools
import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.harnesses.conftest import harness_binary
from tests.harnesses.rig import RunResult, trail
from tests.harnesses.truth import hook_trace
from tests.harnesses.vibe_rig import run, vibe_home
from tests.harnesses.vibe_scenarios import SCENARIOS
from tests.harnesses.vibe_truth import MAIN, QUALIFIED, Truth, derive

pytestmark = pytest.mark.harness

ATTEMPTS = 3
RESULT_KINDS = ("tool_result", "tool_error")
RUNS = [
    pytest.param(name, attempt, id=f"{name}-{attempt}")
    for name, attempt in itertools.product(SCENARIOS, range(1, ATTEMPTS + 1))
]


@dataclass
class Checked:
    result: RunResult
    truth: Truth
    raw_hooks: list[dict[str, Any]]  # trace.jsonl hook lines, read before any sync
    show: Any
    reimport: Any  # `trail import vibe <store> --json` after show
    score: Any  # `trail eval score --json` (L0, L1)

    @property
    def label(self) -> str:
        return f"{self.result.scenario} ({self.result.paths.root})"


@pytest.fixture(scope="session")
def vibe_binary() -> Path:
    return harness_binary("vibe")


@pytest.fixture(scope="session")
def vibe_run(
    vibe_binary: Path, tmp_path_factory: pytest.TempPathFactory
) -> Callable[[str, int], Checked]:
    base = tmp_path_factory.mktemp("vibe-rig")
    done: dict[tuple[str, int], Checked] = {}

    def get(name: str, attempt: int) -> Checked:
        if (name, attempt) not in done:
            result = run(SCENARIOS[name], base / f"{name}-{attempt}", vibe_binary)
            sid = result.session_id
            assert sid, f"{name}#{attempt}: no session id in vibe's export.json or stream"
            trace = hook_trace(result.paths.trail_home, sid, "vibe")
            raw = [e for e in trace if e["source"] == "hook"]
            truth = derive(vibe_home(result.paths), sid)
            show = json.loads(trail(result.paths, "show", sid, "--json").stdout)
            again = trail(result.paths, "import", "vibe", str(truth.store), "--json")
            scored = trail(
                result.paths,
                "eval",
                "score",
                "--session",
                sid,
                "--json",
                "--no-ledger",
                check=False,
            )
            done[(name, attempt)] = Checked(
                result, truth, raw, show, json.loads(again.stdout), json.loads(scored.stdout)
            )
        return done[(name, attempt)]

    return get


@pytest.fixture
def checked(vibe_run: Callable[[str, int], Checked], name: str, attempt: int) -> Checked:
    return vibe_run(name, attempt)


def _lane(ev: dict[str, Any]) -> str:
    return str(ev.get("agent_id") or MAIN)


def _calls(c: Checked) -> list[dict[str, Any]]:
    return [e for e in c.show["events"] if e.get("kind") == "tool_call"]


# -- the run itself ----------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "attempt"), RUNS)
def test_vibe_ran_the_script(checked: Checked) -> None:
    r, t = checked.result, checked.truth
    sc = SCENARIOS[r.scenario]
    assert r.returncode == sc.exit_code, f"{checked.label}: vibe exited {r.returncode}"
    assert not r.lingering_after_settle, checked.label
    script = json.loads((r.paths.root / "script.json").read_text())
    scripted = [call["name"] for step in script["main"] if isinstance(step, list) for call in step]
    assert [c.name for c in t.calls if c.lane == MAIN] == scripted, checked.label
    assert len(t.children) == sc.subagents, checked.label
    for child in t.children:
        child_script = [call["name"] for step in script["child"] for call in step]
        assert [c.name for c in t.calls if c.lane == child] == child_script, checked.label


@pytest.mark.parametrize(("name", "attempt"), RUNS)
def test_hooks_quiet_and_successful(checked: Checked) -> None:
    """trail's hook prints nothing and logs no error; Vibe notes no failed hook run."""
    r = checked.result
    log = r.paths.trail_home / "hook-errors.log"
    assert not log.exists() or not log.read_text().strip(), f"{checked.label}: {log.read_text()}"
    export = json.loads((r.paths.root / "outdir" / "export.json").read_text())
    assert not export.get("warnings"), f"{checked.label}: {export.get('warnings')}"
    for entry in r.stream:
        detail = entry.get("detail") if isinstance(entry.get("detail"), dict) else {}
        name = detail.get("hookName")
        if isinstance(name, str) and not name.startswith("trail-"):
            continue  # the user's own hook (hook_denial's guard denies on purpose)
        if entry.get("type") == "notice" and str(detail.get("kind", "")).startswith("hook_"):
            assert entry.get("level") in ("info", None), f"{checked.label}: {entry}"


# -- raw hook capture --------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "attempt"), RUNS)
def test_raw_hooks_record_every_call_the_main_agent_ran(checked: Checked) -> None:
    """One pre_tool and one post_tool per tool Vibe ran in the main agent, none for
    run_typescript itself, none for a subagent's calls (real-harnesses.md §1.3)."""
    t, raw = checked.truth, checked.raw_hooks
    pre = [e for e in raw if e["kind"] == "tool_call"]
    post = [e for e in raw if e["kind"] in RESULT_KINDS]
    # A call a user's hook denied never ran, and Vibe skipped trail's later pre_tool for it.
    main_effects = [e for e in t.effects if e.lane == MAIN and e.status != "refused"]
    assert Counter(e["tool_name"] for e in pre) == Counter(e.tool_name for e in main_effects)
    # A call the run's interruption stopped never gets its post_tool (Vibe exits first).
    stopped = {c.call_id for c in t.interrupted_calls()}
    assert stopped <= {e["call_id"] for e in pre}, checked.label
    assert Counter(e["call_id"] for e in pre if e["call_id"] not in stopped) == Counter(
        e["call_id"] for e in post
    ), checked.label
    assert all(not str(e.get("agent_id") or "") for e in raw), checked.label
    model_ids = {
        c.call_id for c in t.calls if c.lane == MAIN and c.name in QUALIFIED and c.ok is not None
    }
    hooked = {e["call_id"] for e in pre}
    assert model_ids <= hooked, f"{checked.label}: {model_ids - hooked}"
    for ev in post:
        assert "duration_ms" not in ev, f"{checked.label}: 3.0.1 sends a stub 0"
    stops = [e for e in raw if e["kind"] == "agent_stop"]
    scenario = SCENARIOS[checked.result.scenario]
    turns = len(scenario.prompts(checked.result.ctx))
    # post_agent once per turn; a run --time-limit interrupts ends before its turn does.
    assert len(stops) == (turns if not scenario.exit_code else 0), f"{checked.label}: post_agent"


# -- the reconciled session: `trail show --json` equals the store --------------------------------


@pytest.mark.parametrize(("name", "attempt"), RUNS)
def test_show_equals_store_truth(checked: Checked) -> None:
    t, show = checked.truth, checked.show
    calls = _calls(checked)
    counts = Counter(e.get("call_id") for e in calls)
    twice = sorted(str(k) for k, n in counts.items() if n > 1)
    assert not twice, f"{checked.label}: calls listed twice {twice}"
    by_id = {e["call_id"]: e for e in calls}
    # Every model call, with its name, lane and outcome.
    for c in t.calls:
        ev = by_id.get(c.call_id)
        assert ev is not None, f"{checked.label}: model call {c.call_id} ({c.name}) missing"
        assert ev.get("tool_name") == QUALIFIED.get(c.name, c.name), checked.label
        assert _lane(ev) == c.lane, f"{checked.label}: {c.call_id} lane"
        if c.name in QUALIFIED:
            assert ev.get("ok") == c.ok, f"{checked.label}: {c.call_id} ok"
        assert "transcript" in ev.get("sources", []), checked.label
        if c.lane == MAIN and c.name in QUALIFIED and c.ok is not None:
            assert "hook" in ev.get("sources", []), f"{checked.label}: {c.call_id} not merged"
    # Per lane, calls follow the model's messages (parallel calls of one message may come in
    # the order they started).
    message = {c.call_id: (c.lane, c.message) for c in t.calls}
    for lane in {c.lane for c in t.calls}:
        order = [
            message[e["call_id"]][1] for e in calls if message.get(e["call_id"], ("",))[0] == lane
        ]
        assert order == sorted(order), f"{checked.label}: {lane} calls out of order {order}"
    # Every tool Vibe ran (calls made inside run_typescript included), once, same status; and
    # every call to a tool Vibe does not have (no effect), failed.
    want = Counter((e.lane, e.tool_name, e.status) for e in t.effects)
    want += Counter((c.lane, c.name, "failed") for c in t.unknown_tool_calls())
    got = Counter(
        (_lane(e), str(e.get("tool_name")), str(e.get("status")))
        for e in calls
        if e.get("tool_name") != "run_typescript"
    )
    assert got == want, f"{checked.label}: {got} != {want}"
    nested = t.nested_effects()
    inner = [e for e in calls if str(e.get("call_id", "")).startswith("typescript:")]
    assert len(inner) == len(nested), f"{checked.label}: calls inside run_typescript"
    for ev in inner:
        if _lane(ev) == MAIN:
            assert set(ev.get("sources", [])) == {"hook", "transcript"}, checked.label
    # A shell's exit code is kept as a fact, beside Vibe's "success".
    codes = sorted(e.exit_code for e in t.effects if e.exit_code is not None)
    results = [e for e in show["events"] if e.get("kind") in (*RESULT_KINDS, "permission")]
    got_codes = sorted(
        e["extra"]["exit_code"] for e in results if "exit_code" in (e.get("extra") or {})
    )
    assert got_codes == codes, f"{checked.label}: exit codes"
    # One result per settled call, never above its call.
    position = {e["call_id"]: i for i, e in enumerate(show["events"]) if e["kind"] == "tool_call"}
    for i, e in enumerate(show["events"]):
        if e.get("kind") in (*RESULT_KINDS, "permission"):
            assert i > position[e["call_id"]], f"{checked.label}: result above its call"
    assert Counter(e["call_id"] for e in results) == Counter(e["call_id"] for e in calls)
    # Subagents: started by the spawn call, in their own lane.
    starts = [e for e in show["events"] if e.get("kind") == "subagent_start"]
    assert sorted(e["agent_id"] for e in starts) == sorted(t.children), checked.label
    spawn_ids = {e["call_id"] for e in calls if e.get("tool_name") == "agents.spawn"}
    assert all(e.get("parent_call_id") in spawn_ids for e in starts), checked.label
    assert not show["disagreements"], f"{checked.label}: {show['disagreements']}"
    prompts = [
        e.get("text") for e in show["events"] if e.get("kind") == "prompt" and not e.get("agent_id")
    ]
    secret = checked.result.ctx.secret
    typed = [p.replace(secret, "<secret>") if secret else p for p in t.prompts]
    assert [re.sub(r"\[REDACTED:[^\]]*\]", "<secret>", str(p)) for p in prompts] == typed


@pytest.mark.parametrize(("name", "attempt"), RUNS)
def test_an_import_after_the_hooks_adds_only_what_they_missed(checked: Checked) -> None:
    """The sync that `show` ran already read the store; importing it again adds nothing, and
    what the store added beside the hooks is exactly what hooks cannot see."""
    assert checked.reimport["events_written"] == 0, checked.label
    assert checked.reimport["events_already_present"] > 0, checked.label
    unknown = {c.call_id for c in checked.truth.unknown_tool_calls()}
    stopped = {c.call_id for c in checked.truth.interrupted_calls()}
    for ev in checked.show["events"]:
        if ev.get("sources") == ["transcript"]:
            tool = ev.get("tool_name")
            lane = _lane(ev)
            missed = (
                lane != MAIN  # a subagent: no hooks (§1.3)
                or ev.get("status") == "refused"  # a hook denied it before trail's ran
                or ev.get("kind")
                in ("prompt", "subagent_start", "subagent_stop", "other", "guide_loaded")
                or tool in ("run_typescript", "search_tool_functions")
                or ev.get("call_id") in unknown  # no such tool: nothing ran, no hook
                # the interruption stopped it before its post_tool
                or (ev.get("kind") in RESULT_KINDS and ev.get("call_id") in stopped)
            )
            assert missed, (
                f"{checked.label}: store-only {ev.get('kind')} {tool} {ev.get('call_id')}"
            )


@pytest.mark.parametrize(
    "attempt", [pytest.param(a, id=f"secret-{a}") for a in range(1, ATTEMPTS + 1)]
)
def test_secret_never_stored(vibe_run: Callable[[str, int], Checked], attempt: int) -> None:
    c = vibe_run("secret", attempt)
    secret = c.result.ctx.secret
    assert len(secret) == 40 and secret in c.truth.raw_text  # Vibe itself saw it
    pieces = {secret[i : i + 12].encode() for i in range(len(secret) - 11)}
    files = [p for p in c.result.paths.trail_home.rglob("*") if p.is_file()]
    assert files
    for path in files:
        data = path.read_bytes()
        leaked = [p.decode() for p in pieces if p in data]
        assert not leaked, f"{c.label}: {path} holds {leaked[:3]}"
    assert secret not in json.dumps(c.show)


@pytest.mark.parametrize(
    "attempt", [pytest.param(a, id=f"guides-{a}") for a in range(1, ATTEMPTS + 1)]
)
def test_guides_in_context(vibe_run: Callable[[str, int], Checked], attempt: int) -> None:
    """The root AGENTS.md was in the system prompt the model got (the fake's request log is
    the truth of the context); the subfolder's reached it with the first read below it."""
    c = vibe_run("guides", attempt)
    project = c.result.paths.project
    root, sub = str(project / "AGENTS.md"), str(project / "sub" / "AGENTS.md")
    first = json.loads(c.result.paths.server_log.read_text().splitlines()[0])
    system = first["body"]["messages"][0]["content"]
    assert f"Contents of {root}" in system and f"Contents of {sub}" not in system
    events = c.show["events"]
    guides = {e["path"]: (i, e) for i, e in enumerate(events) if e["kind"] == "guide_loaded"}
    assert set(guides) == {root, sub}, c.label
    assert guides[root][1]["text"] == (project / "AGENTS.md").read_text()
    assert guides[sub][1]["text"].strip() == (project / "sub" / "AGENTS.md").read_text().strip()
    assert guides[sub][1]["extra"]["reason"] == "nested_traversal"
    [read_call] = [e for e in events if e["kind"] == "tool_call" and e["tool"] == "read"]
    first_prompt = next(i for i, e in enumerate(events) if e["kind"] == "prompt")
    assert guides[root][0] < first_prompt  # in context from the start
    assert guides[sub][0] > events.index(read_call)  # in context after the read


@pytest.mark.parametrize(
    "attempt", [pytest.param(a, id=f"hook_denial-{a}") for a in range(1, ATTEMPTS + 1)]
)
def test_a_call_a_hook_denied_is_refused(
    vibe_run: Callable[[str, int], Checked], attempt: int
) -> None:
    """It never ran (the file is still there): one call, refused, ok null, from the store
    alone (Vibe skipped trail's pre_tool after the user's hook denied it)."""
    c = vibe_run("hook_denial", attempt)
    assert (c.result.paths.project / "notes.txt").exists()
    [bash] = [e for e in _calls(c) if e["tool"] == "shell"]
    assert (bash["status"], bash["ok"], bash["sources"]) == ("refused", None, ["transcript"])
    [refusal] = [e for e in c.show["events"] if e["kind"] == "permission"]
    assert refusal["call_id"] == bash["call_id"] and "not allowed" in refusal["error"]
    assert not [e for e in c.raw_hooks if e.get("call_id") == bash["call_id"]]


@pytest.mark.parametrize(("name", "attempt"), RUNS)
def test_a_complete_session_has_no_integrity_gap(checked: Checked) -> None:
    """Every hook reached trail: L0 finds nothing missing, although the store holds calls no
    hook can see (a subagent's, run_typescript) and the hooks never saw."""
    grade = checked.score["grades"][0]
    gaps = [
        f"{a.get('check')}: {a.get('status')}: {a.get('reason')}"
        for a in grade["atoms"]
        if a.get("level") == "L0" and a.get("status") not in ("pass", "unscored")
    ]
    l0 = grade["levels"]["L0"]
    assert not gaps and l0.get("verdict") == "complete", f"{checked.label}: {gaps}"
    agreement = l0["facts"]["source_agreement"]
    assert agreement["sources"] == ["hook", "transcript"] and agreement["checked"] > 0
