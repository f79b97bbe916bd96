"""Issue 8, items 7 and 11 and the BOM: hostile payload shapes.

- 16 MiB of tiny containers used to take 10-12 s to parse and walk (past the harness's 10 s
  timeout: the event was lost). The parse is now bounded by depth and element count and such
  a payload becomes a bounded stub, well under 1 s of the hook's CPU time.
- ``NaN``, ``Infinity``, ``-Infinity`` and ``1e999`` were written into the trace as they came,
  then quarantined by sync (the session vanished from the DB). trail now writes strict JSON.
- A payload starting with a UTF-8 BOM was recorded as malformed.
"""

from __future__ import annotations

import json
import resource
import subprocess
from pathlib import Path

from tests.adversarial._hook import BASE
from tests.conftest import TRAIL, read_trace_lines, run_hook

CAP = 16 * 1024 * 1024
HEAD = b'{"session_id": "s-big", "hook_event_name": "PreToolUse", "tool_name": "Bash", '


def timed_hook(payload: bytes) -> tuple[subprocess.CompletedProcess[bytes], float]:
    """Run the hook; return it and the CPU seconds it used (robust on a shared machine)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = run_hook(payload)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return done, cpu


def just_under_cap(item: bytes, opening: bytes = b"[", closing: bytes = b"]") -> bytes:
    head = HEAD + b'"tool_input": ' + opening
    tail = closing + b"}"
    n = (CAP - len(head) - len(tail) - 16) // len(item)
    body = head + item * n + tail
    assert len(body) < CAP
    return body


def assert_bounded_stub(home: Path, why: str) -> None:
    [ev] = read_trace_lines(home)
    assert (ev["kind"], ev["session_id"], ev["hook_event"]) == ("other", "s-big", "PreToolUse")
    assert why in ev["extra"]["malformed"], ev["extra"]["malformed"]
    assert len(json.dumps(ev)) < 20_000


def test_millions_of_empty_lists_just_under_the_cap(trail_home: Path) -> None:
    payload = just_under_cap(b"[],", closing=b"[]]")
    done, cpu = timed_hook(payload)
    assert (done.returncode, done.stdout) == (0, b"")
    assert cpu < 1.0, f"{cpu:.2f} s of CPU"
    assert_bounded_stub(trail_home, "more than 100000 elements")


def test_millions_of_empty_objects_and_numbers(trail_home: Path) -> None:
    payload = just_under_cap(b"{},0,", closing=b"{}]")
    done, cpu = timed_hook(payload)
    assert done.returncode == 0 and cpu < 1.0, f"{cpu:.2f} s of CPU"
    assert_bounded_stub(trail_home, "more than 100000 elements")


def test_tiny_containers_just_under_the_pre_scan_size(trail_home: Path) -> None:
    """Below PRESCAN_BYTES nothing is counted: the parse runs and the walk is bounded."""
    from hooks.entry import PRESCAN_BYTES

    n = (PRESCAN_BYTES - 200) // 3
    payload = HEAD + b'"tool_input": [' + b"[]," * n + b"[]]}"
    assert len(payload) <= PRESCAN_BYTES
    done, cpu = timed_hook(payload)
    assert done.returncode == 0 and cpu < 1.0, f"{cpu:.2f} s of CPU"
    assert_bounded_stub(trail_home, "more than 100000 elements")


def test_sixteen_mib_of_nesting(trail_home: Path) -> None:
    n = CAP // 2 - 200
    payload = HEAD + b'"tool_input": ' + b"[" * n + b"]" * n + b"}"
    done, cpu = timed_hook(payload)
    assert done.returncode == 0 and cpu < 1.0, f"{cpu:.2f} s of CPU"
    assert_bounded_stub(trail_home, "more than 100000 elements")  # caught by the pre-scan


def test_nesting_past_the_depth_bound_but_within_the_interpreter(trail_home: Path) -> None:
    payload = HEAD + b'"tool_input": ' + b"[" * 500 + b"]" * 500 + b"}"
    assert run_hook(payload).returncode == 0
    assert_bounded_stub(trail_home, "nested deeper than 100 levels")


def test_brackets_inside_text_do_not_cost_a_payload_its_parse(trail_home: Path) -> None:
    text = "[x], {y}, " * 200_000  # 2 MB of text with 600,000 brackets and commas
    done = run_hook({**BASE, "hook_event_name": "UserPromptSubmit", "prompt": text})
    assert done.returncode == 0
    [ev] = read_trace_lines(trail_home)
    assert ev["kind"] == "prompt" and ev["text"].startswith("[x], {y}, ")


def test_json_in_a_string_with_a_million_containers_stays_fast(trail_home: Path) -> None:
    inner = "[" + "[]," * 1_000_000 + "[]]"
    trail_home.mkdir(mode=0o700)
    (trail_home / "config.json").write_text(json.dumps({"capture": {"max_field_chars": 4_000_000}}))
    payload = json.dumps({**BASE, "hook_event_name": "PostToolUse", "tool_name": "Bash",
                          "tool_response": {"stdout": inner}}).encode()  # fmt: skip
    done, cpu = timed_hook(payload)
    assert done.returncode == 0 and cpu < 2.0, f"{cpu:.2f} s of CPU"
    [ev] = read_trace_lines(trail_home)
    assert ev["kind"] == "tool_result"


def strict(line: str) -> object:
    def refuse(name: str) -> object:
        raise ValueError(f"non-strict JSON constant {name}")

    return json.loads(line, parse_constant=refuse)


def test_nan_and_infinity_are_written_as_strict_json(trail_home: Path) -> None:
    raw = (
        b'{"session_id": "s-nan", "hook_event_name": "PostToolUse", "tool_name": "Bash",'
        b' "tool_input": {"a": NaN, "b": Infinity, "c": -Infinity, "d": 1e999, "e": 1.5},'
        b' "duration_ms": NaN}'
    )
    done = run_hook(raw)
    assert (done.returncode, done.stdout) == (0, b"")
    [trace] = trail_home.glob("sessions/claude-code/*/trace.jsonl")
    [line] = trace.read_text().splitlines()
    ev = strict(line)
    assert isinstance(ev, dict)
    assert ev["input"] == {"a": "NaN", "b": "Infinity", "c": "-Infinity", "d": "1e999", "e": 1.5}
    assert ev["extra"]["nonfinite_numbers"] == 5 and ev["extra"]["duration_ms"] == "NaN"
    synced = subprocess.run([TRAIL, "sync", "--json"], capture_output=True, text=True)
    assert synced.returncode == 0, synced.stderr
    assert "quarantin" not in synced.stdout.lower() or '"quarantined": []' in synced.stdout
    listed = subprocess.run([TRAIL, "sessions", "--json"], capture_output=True, text=True)
    sessions = json.loads(listed.stdout)
    assert [(s["session_id"], s["event_count"]) for s in sessions] == [("s-nan", 1)]


def test_a_payload_starting_with_a_bom_is_parsed(trail_home: Path) -> None:
    body = json.dumps({**BASE, "hook_event_name": "UserPromptSubmit", "prompt": "hi"})
    done = run_hook(b"\xef\xbb\xbf" + body.encode())
    assert done.returncode == 0
    [ev] = read_trace_lines(trail_home)
    assert (ev["kind"], ev["text"]) == ("prompt", "hi")
    assert "extra" not in ev or "malformed" not in ev["extra"]
