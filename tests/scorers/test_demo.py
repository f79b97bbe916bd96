"""`trail demo` as a new user runs it: record through the real hook, sync, show, grade."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.conftest import TRAIL


def trail(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TRAIL, *args], capture_output=True, text=True, check=False)


def test_demo_records_shows_and_grades_every_session(trail_home: Path) -> None:
    done = trail("demo")
    assert done.returncode == 0, done.stderr
    everything = json.loads(trail("sessions", "--json").stdout)
    guided = [s for s in everything if s["session_id"].startswith("demo-guided-")]
    sessions = [s for s in everything if s not in guided]
    assert len(sessions) == 6 and len(guided) == 1  # + the L2 demo session
    [code] = [s for s in sessions if s["harness"] == "vscode"]
    sessions.remove(code)
    by_name = {s["session_id"].split("-")[1]: s for s in sessions}
    # VS Code: recorded under the chat session id decoded from the hook's sessionId URI
    assert code["key"] == f"vscode/{code['session_id']}" and len(code["session_id"]) == 36
    shown_code = json.loads(trail("show", code["session_id"], "--json").stdout)
    calls = {e["call_id"]: e["tool"] for e in shown_code["events"] if e["kind"] == "tool_call"}
    answered = {e["call_id"] for e in shown_code["events"] if e["kind"] == "tool_result"}
    assert sorted(calls.values()) == ["read", "shell", "shell", "write"]
    assert len(answered) == 3  # the Local harness fires PostToolUse only after a success
    assert by_name["failures"]["error_count"] == 3
    assert by_name["failures"]["redaction_count"] == 2  # the generated token, in call and result
    # Vibe sends no session end: its session stays open until the idle sweep.
    assert all(s["state"] == "closed" for s in sessions if s["harness"] == "claude-code")
    vibe = json.loads(trail("show", by_name["vibe"]["session_id"], "--json").stdout)
    results = [e for e in vibe["events"] if e["kind"] in ("tool_result", "tool_error")]
    assert [(e["tool"], e["status"]) for e in results] == [
        ("read", "ok"),
        ("shell", "ok"),
        ("read", "failed"),
    ]
    assert results[1]["extra"]["exit_code"] == 2  # a success to Vibe 3.0.1, kept as a fact
    assert by_name["vibe"]["harness"] == "vibe" and by_name["vibe"]["error_count"] == 1
    # Copilot CLI: recorded through `trail hook copilot-cli` from the real 1.0.102's payloads;
    # no call ids in them, so every call is paired by inference, bash's exit 2 kept as a fact.
    copilot = json.loads(trail("show", by_name["copilot"]["session_id"], "--json").stdout)
    calls = [e for e in copilot["events"] if e["kind"] == "tool_call"]
    assert sorted(e["tool"] for e in calls) == ["edit", "read", "read", "shell"]
    assert all(e["pairing"] == "inferred" for e in calls)
    assert sorted((e["tool"], e["status"]) for e in calls) == [
        ("edit", "ok"),
        ("read", "failed"),
        ("read", "ok"),
        ("shell", "ok"),
    ]
    [shell] = [e for e in copilot["events"] if e["kind"] == "tool_result" and e["tool"] == "shell"]
    assert shell["extra"]["exit_code"] == 2
    assert by_name["copilot"]["state"] == "closed" and by_name["copilot"]["error_count"] == 1
    sub = json.loads(trail("show", by_name["subagent"]["session_id"], "--json").stdout)
    kinds = [e["kind"] for e in sub["events"]]
    assert {"subagent_start", "subagent_stop", "skill_loaded", "guide_loaded"} <= set(kinds)
    assert "[REDACTED:github-token:" in done.stdout
    ledger = [json.loads(line) for line in (trail_home / "GRADES.jsonl").read_text().splitlines()]
    l2 = [r for r in ledger if r["rubric"] == "l2"]
    ledger = [r for r in ledger if r["rubric"] != "l2"]
    code_verdict = [r["verdict"] for r in ledger if r["sessionId"] == code["session_id"]]
    ledger = [r for r in ledger if r["sessionId"] != code["session_id"]]
    # VS Code's Local hooks send no failure event, so success flags are not a capability of
    # the source: L1 says insufficient-data rather than guessing (a chronicle import adds them)
    assert code_verdict == ["insufficient-data"], code_verdict
    verdicts = {r["sessionId"].split("-")[1]: r["verdict"] for r in ledger}
    # the L2 demo: judged by the replay model, labelled as replayed everywhere
    [judged] = l2
    assert judged["sessionId"] == guided[0]["session_id"]
    assert judged["l2"]["judge"]["replayed"] is True
    assert judged["verdict"] == "misaligned"  # npm install against CLAUDE.md's pnpm rule
    for made in (trail_home / "demo-project" / "CLAUDE.md", trail_home / "demo-replay.json"):
        assert made.stat().st_mode & 0o777 == 0o600
    assert (trail_home / "demo-project").stat().st_mode & 0o777 == 0o700
    assert sorted(a["verdict"] for a in judged["l2"]["actions"]) == ["aligned", "misaligned"]
    assert "REPLAYED" in done.stdout and "no model was called" in done.stdout
    assert verdicts == {
        "clean": "clean-pass",
        "failures": "corrupt-success",
        "subagent": "clean-pass",
        "copilot": "clean-pass",
        "vibe": "clean-pass",
    }
    assert "corrupt-success" in done.stdout
    shown = trail("show", by_name["failures"]["session_id"]).stdout
    assert "redacted  github-token 2" in shown and "[1 redacted]" in shown
    assert "redactions: github-token 2" in trail("doctor").stdout
    assert not (trail_home / "hook-errors.log").exists()
