"""A variant of issue 8's item 11 through another writer: a Claude Code transcript.

A transcript is untrusted (docs/security.md: its path comes from a payload, and
reconciliation reads it on its own at session close). Its importer parsed it with
``json.loads``, which accepts ``NaN``, ``Infinity`` and ``1e999``; the event was written into
the trace as it came, and sync then quarantined the line: the tool call vanished from the DB.
``events.to_line``, which every writer uses, now writes strict JSON whatever it is given.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import TRAIL


def transcript(tmp_path: Path, tool_input: str) -> Path:
    lines = [
        '{"type":"user","sessionId":"imp-nan","uuid":"u1","timestamp":"2024-01-01T10:00:00Z",'
        '"message":{"role":"user","content":"hi"}}',
        '{"type":"assistant","sessionId":"imp-nan","uuid":"u2","parentUuid":"u1",'
        '"timestamp":"2024-01-01T10:00:05Z","message":{"model":"m","content":[{"type":'
        f'"tool_use","id":"toolu_1","name":"Bash","input":{tool_input}}}]}}}}',
    ]
    path = tmp_path / "imp-nan.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def import_and_sync(path: Path) -> tuple[dict[str, object], list[object]]:
    done = subprocess.run(
        [TRAIL, "import", "claude-code", str(path)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    synced = subprocess.run([TRAIL, "sync", "--json"], capture_output=True, text=True, timeout=60)
    assert synced.returncode == 0, synced.stderr
    report = json.loads(synced.stdout)
    return report, report["quarantined"]


def test_nan_and_infinity_in_a_transcript_reach_the_db(tmp_path: Path, trail_home: Path) -> None:
    path = transcript(tmp_path, '{"command":"ls","n":NaN,"i":Infinity,"m":-Infinity,"e":1e999}')
    _, quarantined = import_and_sync(path)
    assert quarantined == []
    [trace] = trail_home.glob("sessions/claude-code/*/trace.jsonl")
    for line in trace.read_text().splitlines():
        json.loads(line, parse_constant=lambda name: pytest.fail(f"{name} in the trace"))
    assert '"n":"NaN"' in trace.read_text() and '"e":"1e999"' in trace.read_text()  # as written


def test_a_huge_integer_in_a_transcript_reaches_the_db(tmp_path: Path) -> None:
    path = transcript(tmp_path, '{"command":"ls","n":' + "7" * 400 + "}")
    _, quarantined = import_and_sync(path)
    assert quarantined == []
