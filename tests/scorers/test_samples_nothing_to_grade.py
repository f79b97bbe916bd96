"""Over the real Claude Code transcripts in shared/samples: a session with no agent action is
nothing-to-grade (never 10/10, never coverage 100%), and every session with one is graded."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from trace_ingest.cli import cli


def trail(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return res.exit_code, res.stdout


def grades(samples: Path) -> dict[str, tuple[int, dict[str, Any]]]:
    base = samples / "claude-code"
    files = sorted(base.glob("*.jsonl")) + sorted(base.glob("real-session-*/*.jsonl"))
    for f in files:
        code, text = trail("import", "claude-code", str(f))
        assert code == 0, (f, text)
    out = {}
    for s in json.loads(trail("sessions", "--json")[1]):
        code, text = trail("eval", "score", "--session", s["key"], "--json", "--no-ledger")
        assert code in (0, 3, 4, 5), text
        out[s["session_id"]] = (code, json.loads(text)["grades"][0])
    return out


def test_sample_sessions_without_agent_actions_are_nothing_to_grade(
    samples: Path, trail_home: Path
) -> None:
    graded = grades(samples)
    assert len(graded) > 10
    nothing = 0
    for sid, (code, rec) in graded.items():
        steps = rec["levels"]["L0"]["facts"]["errors"]["steps"]
        if rec["verdict"] == "nothing-to-grade":
            nothing += 1
            assert steps == 0, sid
            assert code == 5 and rec["totalScore"] is None and rec["percent"] is None, sid
            assert rec["coverage"] == 0.0 and rec["nothingToGrade"], sid
        else:
            assert steps > 0, (sid, rec["verdict"])
            assert rec["nothingToGrade"] is None
    assert nothing >= 5
    # A real session (Claude Code, one prompt and an answer) and a real one with tool calls.
    assert graded["94604a7b-062f-4369-bdf0-da948381c3e5"][1]["verdict"] == "nothing-to-grade"
    assert graded["29ccd257-68b1-427f-ae5f-6524b7cb6f20"][1]["verdict"] != "nothing-to-grade"
