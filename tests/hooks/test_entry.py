"""The real hook command in subprocesses: bad input, limits, permissions, concurrency."""

from __future__ import annotations

import ast
import io
import json
import os
import stat
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.conftest import TRAIL, read_trace_lines, run_hook

BASE = {"session_id": "sess-1", "transcript_path": "/t.jsonl", "cwd": "/work"}


def errors(home: Path) -> list[dict[str, object]]:
    log = home / "hook-errors.log"
    return [json.loads(x) for x in log.read_text().splitlines()] if log.exists() else []


def all_files(root: Path) -> list[Path]:
    return [p for p in root.rglob("*")]


def test_hook_records_one_event_silently(trail_home: Path) -> None:
    done = run_hook({**BASE, "hook_event_name": "UserPromptSubmit", "prompt": "hello"})
    assert (done.returncode, done.stdout) == (0, b"")
    [ev] = read_trace_lines(trail_home)
    assert (ev["kind"], ev["text"], ev["session_id"]) == ("prompt", "hello", "sess-1")
    assert errors(trail_home) == []


def test_files_are_0600_and_folders_0700(trail_home: Path) -> None:
    run_hook({**BASE, "hook_event_name": "Stop"})
    for path in [trail_home, *all_files(trail_home)]:
        mode = stat.S_IMODE(path.stat().st_mode)
        assert mode == (0o700 if path.is_dir() else 0o600), (path, oct(mode))


PROBE = """
import io, sys
before = set(sys.modules)  # nothing imported beyond interpreter startup: no json, no runpy
sys.argv = ["trail", "hook", "claude-code"]
sys.stdin = io.TextIOWrapper(io.BytesIO(sys.argv_payload))
with open(sys.trail_script) as fh:
    code = compile(fh.read(), sys.trail_script, "exec")
try:
    exec(code, {"__name__": "__main__"})
except SystemExit:
    pass
print(repr(sorted(set(sys.modules) - before)))
"""


def imported_modules(payload: bytes, env: dict[str, str] | None = None) -> set[str]:
    """Modules the real ``trail`` script imports to record ``payload`` in a fresh process.

    (``-X importtime`` cannot be used: it does not list modules loaded through
    ``importlib.import_module``, which is how the CLI root reaches the hooks package. Nor can
    ``runpy``: it imports ``typing``, which imports ``re``.)
    """
    code = f"import sys; sys.argv_payload = {payload!r}; sys.trail_script = {TRAIL!r}\n" + PROBE
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True, env=env)
    return set(ast.literal_eval(done.stdout.decode().splitlines()[-1]))


def test_hook_imports_only_the_standard_library_and_its_own_modules() -> None:
    payload = json.dumps(
        {
            **BASE,
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "export API_TOKEN=abc123def456ghi"},
        }
    )
    loaded = imported_modules(payload.encode())
    ours = {
        m for m in loaded if m.split(".")[0] in ("trace_ingest", "hooks", "telemetry", "scorers")
    }
    assert ours <= {
        "trace_ingest",
        "trace_ingest.entry",
        "trace_ingest._blake",
        "trace_ingest._os",
        "trace_ingest.events",
        "trace_ingest.paths",
        "trace_ingest.store",
        "trace_ingest.errors",
        "trace_ingest.config",
        "trace_ingest.harnesses",
        "trace_ingest.harnesses.table",
        "trace_ingest.harnesses.claude_code",
        "trace_ingest.scrub",
        "trace_ingest.scrub_rules",
        "trace_ingest.scrub_index",
        "trace_ingest.scrub_values",
        "trace_ingest.scrub_finders",
        "trace_ingest._regex",
        "trace_ingest.fastjson",
        "trace_ingest.capture",
        "trace_ingest.tools",
        "hooks",
        "hooks.entry",
        "hooks.sender",
        "hooks.claude_code",
    }, ours
    assert "hooks.entry" in ours and "trace_ingest.scrub" in ours  # the probe saw the hook
    third_party = (
        {m.split(".")[0] for m in loaded} - set(sys.stdlib_module_names) - {"trace_ingest", "hooks"}
    )
    assert third_party == set(), third_party
    forbidden = {
        "click",
        "sqlite_utils",
        "orjson",
        "watchdog",
        "sqlite3",
        "pathlib",
        "dataclasses",
        "logging",
        "typing",
        "hashlib",
        "importlib.metadata",
        "yaml",
        "tomllib",
        "subprocess",
    }
    assert loaded & forbidden == set(), loaded & forbidden


def test_a_payload_without_secret_keywords_never_imports_re_or_json() -> None:
    """``re`` + ``enum`` cost ~8 ms and ``json`` ~2 ms more: paid only when a rule may match."""
    payload = json.dumps(
        {
            **BASE,
            "hook_event_name": "PostToolUse",
            "tool_name": "Read",
            "tool_input": {"file_path": "/work/cart.py"},
            "tool_response": {"content": "def total(items):\n    return 1\n"},
        }
    )
    loaded = imported_modules(payload.encode())
    assert "hooks.entry" in loaded
    assert loaded & {"re", "json", "enum"} == set(), loaded & {"re", "json", "enum"}


def test_a_payload_without_candidates_loads_no_verdict_finder_or_bulk_code() -> None:
    """A fresh process pays for every byte of code it loads: the value verdicts, the rarer
    finders and the bulk prefilter are loaded only when a rule has a candidate, a keyword of
    theirs occurs, or never (docs/scrubbing.md, "What a hook call pays")."""
    payload = json.dumps(
        {
            **BASE,
            "hook_event_name": "PostToolUse",
            "tool_name": "Read",
            "tool_input": {"file_path": "/work/settings.py"},
            # keywords of context rules ("key", "token") without a value worth judging
            "tool_response": {"content": "def key_of(token):\n    return token.key\n"},
        }
    )
    loaded = imported_modules(payload.encode())
    assert "trace_ingest.scrub_rules" in loaded  # the rules ran
    cold = {"trace_ingest.scrub_values", "trace_ingest.scrub_finders", "trace_ingest.scrub_bulk"}
    assert loaded & cold == set(), loaded & cold


def test_garbage_stdin_is_recorded_as_malformed_and_logged(trail_home: Path) -> None:
    done = run_hook(b'{"session_id": "sess-g", "hook_event_name": "PreToolUse", oops')
    assert (done.returncode, done.stdout) == (0, b"")
    [ev] = read_trace_lines(trail_home)
    assert ev["kind"] == "other" and ev["session_id"] == "sess-g"
    assert ev["hook_event"] == "PreToolUse"
    assert "malformed JSON" in ev["extra"]["malformed"]
    assert any(e["stage"] == "parse" for e in errors(trail_home))


def test_non_object_json_is_recorded_as_malformed(trail_home: Path) -> None:
    done = run_hook(b"[1, 2, 3]")
    assert (done.returncode, done.stdout) == (0, b"")
    [ev] = read_trace_lines(trail_home)
    assert "not an object" in ev["extra"]["malformed"]


def test_empty_stdin_writes_nothing_but_logs(trail_home: Path) -> None:
    done = run_hook(b"")
    assert (done.returncode, done.stdout) == (0, b"")
    assert read_trace_lines(trail_home) == []
    assert [e["stage"] for e in errors(trail_home)] == ["read"]


def test_invalid_utf8_is_replaced_and_logged(trail_home: Path) -> None:
    raw = (
        b'{"session_id": "sess-u", "hook_event_name": "UserPromptSubmit", "prompt": "caf\xe9 \xff"}'
    )
    done = run_hook(raw)
    assert (done.returncode, done.stdout) == (0, b"")
    [ev] = read_trace_lines(trail_home)
    assert ev["text"] == "caf\ufffd \ufffd"
    assert any(e["stage"] == "decode" for e in errors(trail_home))


def test_50_mb_payload_is_stubbed_not_parsed(trail_home: Path) -> None:
    big = json.dumps(
        {
            **BASE,
            "hook_event_name": "PostToolUse",
            "tool_name": "Read",
            "tool_response": "x" * (50 * 1024 * 1024),
        }
    ).encode()
    done = run_hook(big)
    assert (done.returncode, done.stdout) == (0, b"")
    [ev] = read_trace_lines(trail_home)
    assert ev["session_id"] == "sess-1" and ev["extra"]["bytes"] == len(big)
    assert "exceeds max_payload_bytes" in ev["extra"]["malformed"]
    assert sum(p.stat().st_size for p in all_files(trail_home) if p.is_file()) < 100_000
    assert any("exceeds" in str(e["error"]) for e in errors(trail_home))


def test_hostile_session_id_stays_inside_the_data_dir(trail_home: Path, tmp_path: Path) -> None:
    outside = set(tmp_path.parent.rglob("*"))
    for sid in ("../../etc", "/etc/passwd", "..", "a/../../b", "x\x00y", ""):
        done = run_hook({**BASE, "session_id": sid, "hook_event_name": "Stop"})
        assert (done.returncode, done.stdout) == (0, b"")
    new = set(tmp_path.parent.rglob("*")) - outside
    assert new and all(trail_home in p.parents or p == trail_home for p in new), new
    traces = sorted(trail_home.glob("sessions/claude-code/*/trace.jsonl"))
    assert len(traces) == 6
    keys = {p.parent.name for p in traces}
    assert all(".." not in k and "/" not in k for k in keys)
    assert {e["stage"] for e in errors(trail_home)} == {"session-id"}
    recorded = {ev["session_id"] for ev in read_trace_lines(trail_home)}
    assert "../../etc" in recorded  # the id itself is kept as data, never as a path


def test_oversized_field_is_truncated_with_a_marker(trail_home: Path) -> None:
    (trail_home).mkdir(parents=True, exist_ok=True)
    (trail_home / "config.json").write_text(json.dumps({"capture": {"max_field_chars": 1000}}))
    run_hook(
        {
            **BASE,
            "hook_event_name": "PostToolUse",
            "tool_name": "Read",
            "tool_input": {"file_path": "/a"},
            "tool_response": {"content": "y" * 5000},
        }
    )
    [ev] = read_trace_lines(trail_home)
    content = ev["output"]["content"]
    assert content.startswith("y" * 1000) and "truncated, 4000+ chars cut" in content
    assert ev["truncated"] == {"output.content": 4000}


def test_unknown_harness_still_exits_zero_and_logs(trail_home: Path) -> None:
    done = subprocess.run([TRAIL, "hook", "nope"], input=b"{}", capture_output=True, check=False)
    assert (done.returncode, done.stdout) == (0, b"")
    assert any("unknown harness" in str(e["error"]) for e in errors(trail_home))


def test_capture_off_records_nothing(trail_home: Path) -> None:
    done = run_hook({**BASE, "hook_event_name": "Stop"}, env={"TRAIL_DISABLE": "1"})
    assert (done.returncode, done.stdout) == (0, b"")
    assert read_trace_lines(trail_home) == []


def test_unwritable_home_never_fails_the_agent(tmp_path: Path) -> None:
    blocked = tmp_path / "file-not-dir"
    blocked.write_text("x")
    done = run_hook({**BASE, "hook_event_name": "Stop"}, env={"TRAIL_HOME": str(blocked)})
    assert (done.returncode, done.stdout) == (0, b"")


WRITER = """
import json, subprocess, sys
trail, n, worker = sys.argv[1], int(sys.argv[2]), sys.argv[3]
for i in range(n):
    payload = {"session_id": "shared", "hook_event_name": "PostToolUse", "tool_name": "Bash",
               "tool_use_id": f"{worker}-{i}", "tool_input": {"command": "echo " + "z" * 3000},
               "tool_response": {"stdout": worker * 2000}}
    subprocess.run([trail, "hook", "claude-code"], input=json.dumps(payload).encode(), check=True)
"""


def test_concurrent_writers_lose_and_interleave_nothing(trail_home: Path, tmp_path: Path) -> None:
    """8 concurrent streams x 250 hook processes -> exactly 2000 whole lines and 2000 rows."""
    script = tmp_path / "writer.py"
    script.write_text(WRITER)

    def worker(w: int) -> int:
        return subprocess.run(
            [sys.executable, str(script), TRAIL, "250", f"w{w}"], check=False
        ).returncode

    with ThreadPoolExecutor(8) as pool:
        assert list(pool.map(worker, range(8))) == [0] * 8
    trace = trail_home / "sessions" / "claude-code" / "shared" / "trace.jsonl"
    lines = trace.read_bytes().split(b"\n")
    assert lines[-1] == b""
    events = [json.loads(line) for line in lines[:-1]]
    assert len(events) == 2000
    assert len({e["call_id"] for e in events}) == 2000
    assert all(e["output"]["stdout"] == e["call_id"].split("-")[0] * 2000 for e in events)
    from telemetry.queries import open_synced

    db, report = open_synced(str(trail_home))
    assert report.quarantined == []
    assert db.execute("SELECT count(*) FROM events").fetchone()[0] == 2000
    assert db.execute("SELECT event_count FROM sessions").fetchone()[0] == 2000


def test_with_a_warm_regex_cache_even_a_secret_needs_no_re(trail_home: Path) -> None:
    token = "gh" + "p_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"  # built at run time
    payload = json.dumps(
        {
            **BASE,
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": f"curl https://u:{token}@x.dev"},
        }
    ).encode()
    env = {**os.environ, "TRAIL_HOME": str(trail_home)}
    first = imported_modules(payload, env)  # compiles the rules and caches their programs
    second = imported_modules(payload, env)
    assert "re" in first and "re" not in second and "enum" not in second
    assert not any(token in json.dumps(ev) for ev in read_trace_lines(trail_home))


def test_invalid_scrub_config_still_scrubs_with_builtin_rules(trail_home: Path) -> None:
    trail_home.mkdir(parents=True, exist_ok=True)
    (trail_home / "config.json").write_text('{"scrub": {"extra_patterns": "oops"}}')
    token = "gh" + "p_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"  # built at run time
    done = run_hook({**BASE, "hook_event_name": "UserPromptSubmit", "prompt": f"use {token}"})
    assert (done.returncode, done.stdout) == (0, b"")
    [ev] = read_trace_lines(trail_home)
    assert token not in json.dumps(ev) and ev["redactions"] == {"github-token": 1}
    assert any(e["stage"] == "config" for e in errors(trail_home))
    # doctor reads the same validation: the config is not "ok" while its scrub section is broken
    doc = subprocess.run([TRAIL, "doctor", "--json"], capture_output=True, text=True)
    check = next(c for c in json.loads(doc.stdout)["checks"] if c["name"] == "config")
    assert check["status"] == "FAIL" and "extra_patterns" in check["detail"]


def gh_token(seed: str) -> str:
    """A GitHub-token-shaped value assembled at run time (never a literal in the source)."""
    body = (seed * 40)[:36]
    return "gh" + "p_" + body


def all_bytes(home: Path) -> bytes:
    return b"\n".join(p.read_bytes() for p in home.rglob("*") if p.is_file())


def test_a_secret_across_the_preview_cut_of_a_broken_payload_is_redacted(
    trail_home: Path,
) -> None:
    token = gh_token("u8jzPde0IgxLd6Gn")
    head = '{"session_id": "s-prev", "prompt": "' + "x" * 1925 + " "
    assert len(head) == 1962  # the token straddles the 2,000-character preview cut
    raw = (head + token + '", oops').encode()
    assert run_hook(raw).returncode == 0
    [ev] = read_trace_lines(trail_home)
    assert ev["redactions"] == {"github-token": 1}
    assert token[:16].encode() not in all_bytes(trail_home)
    assert "truncated" in ev["extra"]["preview"]


def test_a_secret_in_the_session_id_never_becomes_a_path(trail_home: Path) -> None:
    token = gh_token("Q1w2E3r4T5y6U7i8")
    done = run_hook({**BASE, "session_id": f"sess-{token}", "hook_event_name": "Stop"})
    assert done.returncode == 0
    subprocess.run([TRAIL, "sync"], check=True, capture_output=True)
    [trace] = trail_home.glob("sessions/claude-code/*/trace.jsonl")
    assert "REDACTED" in trace.parent.name and token[4:20] not in trace.parent.name
    assert token[4:20].encode() not in all_bytes(trail_home)  # trail.db included


def test_a_corrupt_key_is_replaced_and_the_secret_still_redacted(trail_home: Path) -> None:
    """A corrupt key no longer turns events into scrub-error stubs (issue 8, item 5)."""
    trail_home.mkdir(parents=True, exist_ok=True)
    (trail_home / "scrub.key").write_bytes(b"short")
    token = gh_token("Z1x2C3v4B5n6M7a8")
    started = time.monotonic()
    done = run_hook(
        {
            **BASE,
            "session_id": "s-stub",
            "hook_event_name": "UserPromptSubmit",
            "prompt": f"push with {token}",
        }
    )
    assert done.returncode == 0 and done.stdout == b""
    assert time.monotonic() - started < 5  # no waiting for a key race
    [ev] = read_trace_lines(trail_home)
    assert ev["session_id"] == "s-stub" and ev["redactions"] == {"github-token": 1}
    assert token[4:20].encode() not in all_bytes(trail_home)
    assert len((trail_home / "scrub.key").read_bytes()) == 32
    assert any("5 bytes, not 32" in str(e["error"]) for e in errors(trail_home))


def test_scrub_failure_writes_a_stub_with_nothing_from_the_payload(
    trail_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the scrubber itself fails, the event is a stub with nothing from the payload."""
    from hooks import entry
    from trace_ingest.errors import ScrubError
    from trace_ingest.scrub import Scrubber

    def broken(self: Scrubber, value: object) -> tuple[object, dict[str, int]]:
        raise ScrubError("scrubbing failed: boom")

    monkeypatch.setattr(Scrubber, "scrub_value", broken)
    token = gh_token("Z1x2C3v4B5n6M7a8")
    payload = {**BASE, "session_id": "s-stub", "hook_event_name": "UserPromptSubmit"}
    payload["prompt"] = f"push with {token}"
    entry.run("claude-code", io.BytesIO(json.dumps(payload).encode()))
    [ev] = read_trace_lines(trail_home)
    assert ev["extra"] == {"scrub_error": "ScrubError", "payload": "[SCRUB-ERROR]"}
    assert ev["session_id"] == "_scrub-error" and "text" not in ev
    assert token[4:20].encode() not in all_bytes(trail_home)
    assert any("boom" in str(e["error"]) for e in errors(trail_home))


def test_bad_config_values_fall_back_and_are_logged_once(trail_home: Path) -> None:
    trail_home.mkdir(parents=True, exist_ok=True)
    (trail_home / "config.json").write_text(
        json.dumps(
            {
                "capture": {"max_payload_bytes": "big", "max_field_chars": -5},
                "lifecycle": {"idle_minutes": "abc"},
            }
        )
    )
    for n in range(3):
        assert (
            run_hook({**BASE, "hook_event_name": "UserPromptSubmit", "prompt": f"p{n}"}).returncode
            == 0
        )
    events = read_trace_lines(trail_home)
    assert [e["text"] for e in events] == ["p0", "p1", "p2"]  # capture goes on, nothing cut
    config_errors = [e["error"] for e in errors(trail_home) if e["stage"] == "config"]
    assert len(config_errors) == len(set(config_errors)) == 3  # each problem once
    listed = subprocess.run([TRAIL, "sessions", "--json"], capture_output=True, text=True)
    assert listed.returncode == 0 and json.loads(listed.stdout)[0]["event_count"] == 3
    doc = subprocess.run([TRAIL, "doctor", "--json"], capture_output=True, text=True)
    check = next(c for c in json.loads(doc.stdout)["checks"] if c["name"] == "config")
    assert check["status"] == "FAIL" and "max_payload_bytes" in check["detail"]


def test_a_lone_surrogate_in_the_session_id_is_recorded(trail_home: Path) -> None:
    done = run_hook(b'{"session_id": "s\\ud800x", "hook_event_name": "Stop"}')
    assert done.returncode == 0
    assert len(read_trace_lines(trail_home)) == 1


def test_a_long_lived_recorder_builds_its_scrubber_once_and_sees_a_config_edit(
    trail_home: Path,
) -> None:
    """trail collect records many payloads in one process: the scrubber is built once per
    scrub section, and an edited config.json applies from the next payload on."""
    from hooks import entry as hook_entry

    def post(n: int, text: str) -> None:
        payload = {
            "session_id": "s-memo",
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_use_id": f"t{n}",
            "tool_input": {"command": "echo"},
            "tool_response": {"stdout": text},
        }
        hook_entry.record_payload(
            "claude-code", json.dumps(payload).encode(), "2026-12-01T10:00:00.000Z"
        )

    hook_entry._SCRUBBERS.clear()
    post(1, "ACME-123456789012")
    post(2, "ACME-123456789012")
    assert len(hook_entry._SCRUBBERS) == 1  # the second payload reused the first's scrubber
    (trail_home / "config.json").write_text(
        json.dumps(
            {"scrub": {"extra_patterns": [{"id": "acme-key", "pattern": "ACME-([0-9]{12})"}]}}
        )
    )
    post(3, "ACME-123456789012")
    outputs = [e["output"] for e in read_trace_lines(trail_home) if e["kind"] == "tool_result"]
    assert "ACME-123456789012" in str(outputs[0]) and "ACME-123456789012" in str(outputs[1])
    assert "ACME-" in str(outputs[2]) and "123456789012" not in str(outputs[2])
    assert "[REDACTED:acme-key:" in str(outputs[2])
