"""A hooked session reads its own transcript once it closes (telemetry.reconcile): real hook
processes, a real transcript file, the real CLI and SQLite mirror."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from tests.conftest import TRAIL, run_hook

SID = "5e551011-0000-4000-8000-000000000042"


def _transcript(path: Path, calls: list[tuple[str, str, bool]]) -> None:
    lines: list[dict[str, Any]] = [
        {
            "type": "user",
            "uuid": "u-prompt",
            "sessionId": SID,
            "promptId": "p-1",
            "timestamp": "2026-01-05T10:00:00.000Z",
            "message": {"role": "user", "content": "run the checks"},
        }
    ]
    for n, (cid, command, ok) in enumerate(calls):
        lines.append(
            {
                "type": "assistant",
                "uuid": f"a{n}",
                "parentUuid": "u-prompt" if n == 0 else f"r{n - 1}",
                "sessionId": SID,
                "timestamp": f"2026-01-05T10:00:{n + 1:02d}.000Z",
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
                "uuid": f"r{n}",
                "parentUuid": f"a{n}",
                "sessionId": SID,
                "promptId": "p-1",
                "timestamp": f"2026-01-05T10:00:{n + 1:02d}.500Z",
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
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))


def _hook_session(transcript: Path, calls: list[tuple[str, str, bool]], end: bool = True) -> None:
    base = {"session_id": SID, "transcript_path": str(transcript), "cwd": "/p", "prompt_id": "p-1"}
    run_hook({**base, "hook_event_name": "UserPromptSubmit", "prompt": "run the checks"})
    for cid, command, ok in calls:
        tool = {"tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": cid}
        run_hook({**base, **tool, "hook_event_name": "PreToolUse"})
        post = "PostToolUse" if ok else "PostToolUseFailure"
        run_hook({**base, **tool, "hook_event_name": post, "tool_response": {}, "error": "x"})
    if end:
        run_hook({**base, "hook_event_name": "SessionEnd", "reason": "other"})


def _show() -> dict[str, Any]:
    done = subprocess.run([TRAIL, "show", SID, "--json"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


CALLS = [("toolu_a", "make", True), ("toolu_b", "make test", False)]


def test_a_closed_session_is_reconciled_with_its_transcript(tmp_path: Path) -> None:
    transcript = tmp_path / f"{SID}.jsonl"
    _transcript(transcript, CALLS)
    _hook_session(transcript, CALLS)
    shown = _show()
    calls = [e for e in shown["events"] if e["kind"] == "tool_call"]
    assert [(e["call_id"], e["ok"]) for e in calls] == [("toolu_a", True), ("toolu_b", False)]
    assert all(e["sources"] == ["transcript", "hook"] for e in calls)
    # The transcript's times, not the hooks' stamps, are the events' times.
    assert calls[0]["ts"].startswith("2026-01-05T10:00:01")
    assert shown["disagreements"] == []
    # Reading again adds nothing.
    assert _show()["events"] == shown["events"]


def test_an_open_session_is_not_reconciled_yet(tmp_path: Path) -> None:
    transcript = tmp_path / f"{SID}.jsonl"
    _transcript(transcript, CALLS)
    _hook_session(transcript, CALLS, end=False)
    calls = [e for e in _show()["events"] if e["kind"] == "tool_call"]
    assert all(e["sources"] == ["hook"] for e in calls)


def test_a_growing_transcript_is_read_again_and_adds_only_new_facts(tmp_path: Path) -> None:
    transcript = tmp_path / f"{SID}.jsonl"
    _transcript(transcript, CALLS[:1])
    _hook_session(transcript, CALLS[:1])
    assert len([e for e in _show()["events"] if e["kind"] == "tool_call"]) == 1
    _transcript(transcript, CALLS)  # the session was resumed and the file grew
    calls = [e for e in _show()["events"] if e["kind"] == "tool_call"]
    assert [(e["call_id"], e["sources"]) for e in calls] == [
        ("toolu_a", ["transcript", "hook"]),
        ("toolu_b", ["transcript"]),
    ]


def test_untrusted_transcript_paths_are_refused(tmp_path: Path, trail_home: Path) -> None:
    # A payload naming a file that is not this session's transcript: never read.
    secret = tmp_path / "notes.jsonl"
    secret.write_text(json.dumps({"type": "user", "sessionId": SID, "message": "private"}) + "\n")
    _hook_session(secret, CALLS)
    shown = _show()
    assert all(e["sources"] == ["hook"] for e in shown["events"])
    assert "private" not in json.dumps(shown)
    state = json.loads((trail_home / "reconcile.json").read_text())
    assert "not <session id>.jsonl" in next(iter(state.values()))["refused"]


def test_a_symlinked_transcript_is_refused(tmp_path: Path, trail_home: Path) -> None:
    real = tmp_path / "elsewhere.jsonl"
    _transcript(real, CALLS)
    link = tmp_path / f"{SID}.jsonl"
    os.symlink(real, link)
    _hook_session(link, CALLS)
    assert all(e["sources"] == ["hook"] for e in _show()["events"])
    state = json.loads((trail_home / "reconcile.json").read_text())
    assert "symbolic link" in next(iter(state.values()))["refused"]


def test_state_that_cannot_be_saved_does_not_fail_the_read(
    tmp_path: Path, trail_home: Path
) -> None:
    """The state only spares re-reading unchanged transcripts: a reconcile.json that cannot be
    replaced (here a folder; a full disk alike) leaves the command working and the result
    exact."""
    transcript = tmp_path / f"{SID}.jsonl"
    _transcript(transcript, CALLS)
    _hook_session(transcript, CALLS)
    (trail_home / "reconcile.json").mkdir()
    calls = [e for e in _show()["events"] if e["kind"] == "tool_call"]
    assert all(e["sources"] == ["transcript", "hook"] for e in calls)
    assert not list(trail_home.glob("reconcile.json.*.tmp"))
