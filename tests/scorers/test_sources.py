"""A session recorded by hooks and imported from its transcript: graded once per action, its
sources compared in L0 (scorers.sources), end to end through the real hook and importer."""

from __future__ import annotations

import json
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from telemetry.lifecycle import to_epoch
from tests.conftest import TRAIL, read_trace_lines, run_hook

SID = "7a1b2c3d-0000-4000-8000-000000000001"
AGREEMENT = "l0.source_agreement"
BASE = {"session_id": SID, "transcript_path": "/t.jsonl", "cwd": "/p"}


def transcript(path: Path, calls: list[tuple[str, str, bool, str]]) -> Path:
    """A Claude Code transcript (harnesses.md §1.7) with one assistant tool_use per call,
    each ``(call id, command, ok, ISO time)``."""
    lines = []
    for n, (cid, command, ok, when) in enumerate(calls):
        lines.append(
            {
                "type": "assistant",
                "uuid": f"a{n}",
                "sessionId": SID,
                "timestamp": when,
                "message": {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": cid,
                            "name": "Bash",
                            "input": {"command": command},
                        }
                    ],
                },
            }
        )
        lines.append(
            {
                "type": "user",
                "uuid": f"u{n}",
                "sessionId": SID,
                "timestamp": when,
                "message": {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": cid,
                            "content": "out",
                            "is_error": not ok,
                        }
                    ],
                },
            }
        )
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    return path


def hook_stamps(home: Path) -> dict[str, str]:
    """call id -> when the hooks saw its PreToolUse (the hooks' own clock)."""
    return {
        e["call_id"]: e["ts"]
        for e in read_trace_lines(home)
        if e["kind"] == "tool_call" and e["source"] == "hook"
    }


def iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def hook_call(cid: str, command: str, ok: bool) -> None:
    run_hook(
        {
            **BASE,
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "tool_use_id": cid,
        }
    )
    if ok:
        run_hook(
            {
                **BASE,
                "hook_event_name": "PostToolUse",
                "tool_name": "Bash",
                "tool_input": {"command": command},
                "tool_use_id": cid,
                "tool_response": {"stdout": "out"},
            }
        )
    else:
        run_hook(
            {
                **BASE,
                "hook_event_name": "PostToolUseFailure",
                "tool_name": "Bash",
                "tool_input": {"command": command},
                "tool_use_id": cid,
                "error": "Exit 1",
            }
        )


def score(session: str) -> dict[str, object]:
    done = subprocess.run(
        [TRAIL, "eval", "score", "--session", session, "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode in (0, 3, 4), done.stderr
    return json.loads(done.stdout)["grades"][0]  # type: ignore[no-any-return]


def atom(grade: dict[str, object], name: str) -> dict[str, object]:
    return next(a for a in grade["atoms"] if a["check"] == name)  # type: ignore[attr-defined,index]


def _two_sources(trail_home: Path, tmp_path: Path) -> dict[str, object]:
    """Hooks saw three failing calls; the transcript saw those three (one of them succeeding),
    one more inside the hooks' recording span, and one an hour before the hooks started."""
    for cid in ("toolu_1", "toolu_2", "toolu_3"):
        hook_call(cid, "make test", ok=False)  # three failures: a retry storm (threshold 2)
    run_hook({**BASE, "hook_event_name": "Stop", "stop_hook_active": False})
    only_hooks = score(SID)
    storm = atom(only_hooks, AGREEMENT)
    assert storm["status"] == "unscored" and "two sources" in str(storm["reason"])
    assert atom(only_hooks, "retry_storm")["status"] == "warn"

    stamps = hook_stamps(trail_home)
    t3 = to_epoch(stamps["toolu_3"])
    assert t3 is not None
    path = transcript(
        tmp_path / f"{SID}.jsonl",
        [
            ("toolu_0", "make setup", True, iso(t3 - 3600)),  # before the hooks recorded
            ("toolu_1", "make test", False, stamps["toolu_1"]),
            ("toolu_2", "make test", True, stamps["toolu_2"]),
            ("toolu_3", "make test", False, stamps["toolu_3"]),
            ("toolu_4", "make lint", True, iso(t3 + 0.001)),  # the hooks missed it
        ],
    )
    done = subprocess.run(
        [TRAIL, "import", "claude-code", str(path)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    sessions = json.loads(
        subprocess.run(
            [TRAIL, "sessions", "--json"], capture_output=True, text=True, check=True
        ).stdout
    )
    assert len(sessions) == 1  # one session, two sources
    return score(SID)


def test_a_call_one_source_missed_while_both_recorded_is_an_integrity_finding(
    trail_home: Path, tmp_path: Path
) -> None:
    both = _two_sources(trail_home, tmp_path)
    agreement = atom(both, AGREEMENT)
    assert agreement["status"] == "warn"
    reason = str(agreement["reason"])
    assert "1 call(s) transcript saw and the hook never saw, while it was recording" in reason
    # toolu_0 happened an hour before the hooks recorded anything: counted apart.
    assert "1 call(s) outside the other source's recording span (not counted)" in reason
    facts = both["levels"]["L0"]["facts"]["source_agreement"]  # type: ignore[index]
    assert facts["actions"] == 5 and facts["checked"] == 4 and facts["outside_span"] == 1
    assert [f["call_id"] for f in facts["findings"] if f["kind"] == "missed"] == ["toolu_4"]
    # Behaviour is graded once per real action, not once per source.
    assert "in 5 steps" in str(atom(both, "excessive_steps")["reason"])


def test_sources_disagreeing_on_success_is_an_integrity_finding(
    trail_home: Path, tmp_path: Path
) -> None:
    both = _two_sources(trail_home, tmp_path)
    agreement = atom(both, AGREEMENT)
    assert "1 call(s) whose success the sources disagree on" in str(agreement["reason"])
    assert agreement["earned"] == 0.5  # toolu_1 and toolu_3 agree; toolu_2 and toolu_4 do not


def test_a_refused_call_no_hook_could_see_is_not_missed() -> None:
    """Claude Code 2.1.328 refuses a call to a tool a deny rule took out of the session before
    any hook fires (rig scenario permission_refusal): the hook did not miss it. A failure the
    hook lacks is still missed."""
    from scorers.sources import compare_sources

    def ev(cid: str, srcs: list[str], t: str, **f: Any) -> dict[str, Any]:
        return {"id": cid + t, "kind": "tool_call", "call_id": cid, "sources": srcs,
                "ts": f"2026-01-01T00:00:0{t}Z", **f}  # fmt: skip

    events = [
        ev("a", ["transcript", "hook"], "1", ok=True, status="ok"),
        ev("w", ["transcript"], "2", ok=None, status="refused"),
        ev("f", ["transcript"], "3", ok=False, status="failed"),
        ev("z", ["transcript", "hook"], "4", ok=True, status="ok"),
    ]
    agreement = compare_sources(events)
    assert [f.call_id for f in agreement.findings if f.kind == "missed"] == ["f"]
