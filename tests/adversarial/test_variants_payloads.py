"""Variants of issue 8's item 11 (strict JSON) that the first suite missed: integers.

- An integer of more than about 309 digits was written into the trace as it came; the
  mirror's reader (orjson) reads it as infinity and rejects the line, so sync quarantined it
  and the session vanished from the DB (as `1e999` did before item 11 was fixed).
- An integer of more than 4,300 digits (Python's int/str conversion limit) made a valid
  payload a "malformed JSON" stub: the event was lost.
- Integers of 20 to 309 digits reached the DB as floats (rounded).

Integers outside -2**63..2**64-1 are now written as the text they were written as, counted
with the non-finite numbers in `extra.nonfinite_numbers`.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.adversarial._hook import errors
from tests.conftest import TRAIL, read_trace_lines, run_hook


def strict(line: str) -> object:
    def refuse(name: str) -> object:
        raise ValueError(name)

    return json.loads(line, parse_constant=refuse)


@pytest.mark.parametrize("digits", [20, 400, 5000, 100_000])
def test_huge_integers_keep_the_event_and_reach_the_db(trail_home: Path, digits: int) -> None:
    big = "7" * digits
    raw = (
        '{"session_id": "s-int", "hook_event_name": "PreToolUse", "tool_name": "Bash",'
        f' "tool_input": {{"n": {big}, "m": -{big}, "small": 12, "edge": 18446744073709551615,'
        ' "neg": -9223372036854775808, "z": -0}}'
    ).encode()
    done = run_hook(raw)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    [trace] = trail_home.glob("sessions/claude-code/*/trace.jsonl")
    [line] = trace.read_text().splitlines()
    ev = strict(line)
    assert isinstance(ev, dict) and "malformed" not in ev.get("extra", {})
    n, m = ev["input"]["n"], ev["input"]["m"]
    if digits <= 65536:  # longer text is cut at max_field_chars, as any string is
        assert n == big and m == "-" + big
    assert n.startswith(big[:65536]) and m.startswith("-" + big[:65535])
    assert ev["input"]["small"] == 12 and ev["input"]["edge"] == 2**64 - 1
    assert ev["input"]["neg"] == -(2**63) and ev["input"]["z"] == 0
    assert ev["extra"]["nonfinite_numbers"] == 2
    synced = subprocess.run([TRAIL, "sync", "--json"], capture_output=True, text=True, timeout=60)
    assert synced.returncode == 0, synced.stderr
    listed = subprocess.run(
        [TRAIL, "sessions", "--json"], capture_output=True, text=True, timeout=60
    )
    assert [(s["session_id"], s["event_count"]) for s in json.loads(listed.stdout)] == [
        ("s-int", 1)
    ]
    shown = subprocess.run([TRAIL, "show", "s-int"], capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0 and "Traceback" not in shown.stderr


def test_integers_in_range_are_still_integers(trail_home: Path) -> None:
    done = run_hook(
        {"session_id": "s-ok", "hook_event_name": "PostToolUse", "tool_name": "Bash",
         "tool_input": {"a": 2**63 - 1, "b": -(2**62), "c": 10**18}, "duration_ms": 5}
    )  # fmt: skip
    assert done.returncode == 0
    [ev] = read_trace_lines(trail_home)
    assert ev["input"] == {"a": 2**63 - 1, "b": -(2**62), "c": 10**18}
    assert "nonfinite_numbers" not in ev.get("extra", {})


def test_a_closed_stdin_is_an_empty_payload(trail_home: Path) -> None:
    """`trail hook` with stdin closed (`<&-`) used to log an AttributeError."""
    done = subprocess.run(
        ["sh", "-c", f"exec '{TRAIL}' hook claude-code <&-"], capture_output=True, timeout=30
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    [entry] = errors(trail_home)
    assert entry["stage"] == "read" and "empty payload" in str(entry["error"])
