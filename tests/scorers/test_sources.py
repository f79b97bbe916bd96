"""A session recorded by hooks and imported from its transcript: graded once, compared in L0."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.conftest import TRAIL, run_hook

SID = "7a1b2c3d-0000-4000-8000-000000000001"
BASE = {"session_id": SID, "transcript_path": "/t.jsonl", "cwd": "/p"}


def transcript(path: Path, calls: list[tuple[str, str, bool]]) -> Path:
    """A Claude Code transcript (harnesses.md §1.7) with one assistant tool_use per call."""
    lines = []
    for n, (cid, command, ok) in enumerate(calls):
        lines.append(
            {
                "type": "assistant",
                "uuid": f"a{n}",
                "sessionId": SID,
                "timestamp": f"2026-01-05T10:00:{n:02d}.000Z",
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
                "timestamp": f"2026-01-05T10:00:{n:02d}.500Z",
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


def test_two_sources_are_graded_once_and_compared(trail_home: Path, tmp_path: Path) -> None:
    for cid in ("toolu_1", "toolu_2", "toolu_3"):
        hook_call(cid, "make test", ok=False)  # three failures: a retry storm (threshold 2)
    only_hooks = score(SID)
    storm = atom(only_hooks, "retry_storm")
    assert storm["status"] == "warn" and "failed 3x in a row" in str(storm["reason"])
    assert atom(only_hooks, "l0.transcript_agreement")["status"] == "unscored"

    # The transcript saw one more call the hooks missed, and disagrees on one outcome.
    path = transcript(
        tmp_path / f"{SID}.jsonl",
        [
            ("toolu_1", "make test", False),
            ("toolu_2", "make test", True),
            ("toolu_3", "make test", False),
            ("toolu_4", "make lint", True),
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

    both = score(SID)
    agreement = atom(both, "l0.transcript_agreement")
    assert agreement["status"] == "warn"
    assert "1 call(s) in the transcript the hooks never saw" in str(agreement["reason"])
    assert "1 call(s) whose success the two sources disagree on" in str(agreement["reason"])
    assert agreement["earned"] == 0.5  # 2 of 4 calls agree
    # L1 still sees three steps from the hooks, not seven from both sources.
    assert atom(both, "retry_storm")["reason"] == storm["reason"]
    assert atom(both, "excessive_steps")["reason"] == atom(only_hooks, "excessive_steps")["reason"]
