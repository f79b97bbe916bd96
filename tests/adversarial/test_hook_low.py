"""Issue 8, the low items on the hook's path, each reproduced with the real `trail hook`."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from hooks import entry
from tests.adversarial._hook import (
    BASE,
    all_bytes,
    errors,
    fill,
    run_raw,
    secrets,
    small_disk,
)
from tests.conftest import REPO, TRAIL, read_trace_lines, run_hook
from trace_ingest.events import now_iso

STOP = {**BASE, "hook_event_name": "Stop"}


def sync_and_list(env: dict[str, str] | None = None) -> list[dict[str, object]]:
    full = {**os.environ, **(env or {})}
    assert subprocess.run([TRAIL, "sync"], capture_output=True, env=full).returncode == 0
    listed = subprocess.run([TRAIL, "sessions", "--json"], capture_output=True, text=True, env=full)
    assert listed.returncode == 0, listed.stderr
    return json.loads(listed.stdout)  # type: ignore[no-any-return]


# ----------------------------------------------------------------- the harness argument


def test_a_token_as_the_harness_argument_goes_nowhere(trail_home: Path) -> None:
    token = secrets()["github-token"]
    done = run_raw([TRAIL, "hook", token], json.dumps(STOP).encode())
    assert (done.returncode, done.stdout) == (0, b"")
    names = [p.name for p in trail_home.rglob("*")]
    assert not any(token[4:20] in n for n in names), names
    assert token[4:20].encode() not in all_bytes(trail_home)  # nor in the log or the trace
    assert (trail_home / "sessions" / "unknown").is_dir()
    assert any(e["stage"] == "args" for e in errors(trail_home))
    [ev] = read_trace_lines(trail_home)
    assert ev["harness"] == "unknown"


def test_a_long_junk_harness_argument_is_bounded(trail_home: Path) -> None:
    done = run_raw([TRAIL, "hook", "../" * 500 + "x"], json.dumps(STOP).encode())
    assert done.returncode == 0
    [entry] = [e for e in errors(trail_home) if e["stage"] == "args"]
    assert len(str(entry["error"])) < 300
    assert [p.name for p in (trail_home / "sessions").iterdir()] == ["unknown"]


# ----------------------------------------------------------------- glued tokens, tool_name


def test_tokens_glued_after_a_word_character_are_redacted(trail_home: Path) -> None:
    s = secrets(11)
    glued = {
        "xghp": "x" + s["github-token"],
        "key_": "key_" + s["anthropic-key"],
        "9sk": "9" + s["openai-key"],
        "_xox": "MY_" + s["slack-token"],
        "aws": "ID" + s["aws-access-key-id"],
        "stripe": "v_" + s["stripe-key"],
        "gcp": "k" + s["gcp-api-key"],
    }
    text = " ".join(glued.values())
    assert run_hook({**BASE, "hook_event_name": "UserPromptSubmit", "prompt": text}).returncode == 0
    [ev] = read_trace_lines(trail_home)
    assert sum(ev["redactions"].values()) == 7, ev["redactions"]
    for value in s.values():
        assert value[6:].encode() not in all_bytes(trail_home)


def test_glued_lookalikes_in_ordinary_words_are_kept(trail_home: Path) -> None:
    text = (
        "task-proj-management-dashboard-service-backend-v2 bookshelf_organizationalstructuredefinit"
    )
    assert run_hook({**BASE, "hook_event_name": "UserPromptSubmit", "prompt": text}).returncode == 0
    [ev] = read_trace_lines(trail_home)
    assert ev["text"] == text and "redactions" not in ev


FORMATS = ["github-token", "anthropic-key", "openai-key", "slack-token", "stripe-key",
           "gcp-api-key", "aws-access-key-id"]  # fmt: skip


@pytest.mark.parametrize("rule", FORMATS)
def test_an_mcp_tool_name_holding_a_token_is_redacted_everywhere(
    trail_home: Path, rule: str
) -> None:
    token = secrets(23)[rule]
    name = f"mcp__srv__{token}"
    for event in ("PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest"):
        payload = {**BASE, "hook_event_name": event, "tool_name": name, "tool_use_id": "t1",
                   "tool_input": {"q": 1}}  # fmt: skip
        assert run_hook(payload).returncode == 0
    events = read_trace_lines(trail_home)
    assert len(events) == 4
    assert all(e["tool"] == "mcp" and e["tool_name"].startswith("mcp__srv__[REDACTED:")
               for e in events), [e["tool_name"] for e in events]  # fmt: skip
    sync_and_list()
    assert token[6:].encode() not in all_bytes(trail_home)  # trace, log, trail.db


# ----------------------------------------------------------------- the error log


def test_the_error_log_is_capped_with_one_rotation(trail_home: Path) -> None:
    from trace_ingest.store import MAX_ERROR_LOG

    trail_home.mkdir(mode=0o700)
    line = json.dumps({"ts": now_iso(), "harness": "x", "stage": "old", "error": "e" * 200})
    log = trail_home / "hook-errors.log"
    log.write_text((line + "\n") * (MAX_ERROR_LOG // (len(line) + 1)))
    os.chmod(log, 0o600)
    for _ in range(30):
        assert run_hook(b"{broken").returncode == 0  # each logs a parse error
    assert log.stat().st_size < 100_000
    assert (trail_home / "hook-errors.log.1").stat().st_size <= MAX_ERROR_LOG
    assert sum(p.stat().st_size for p in trail_home.glob("hook-errors.log*")) <= 2 * MAX_ERROR_LOG
    assert [e["stage"] for e in errors(trail_home)].count("parse") == 30
    from trace_ingest.store import read_errors

    recent = [e["stage"] for e in read_errors(str(trail_home), 100)]  # reads across .1 too
    assert recent.count("parse") == 30 and "old" in recent


# ----------------------------------------------------------------- TRAIL_HOME and the cwd


def test_a_relative_home_with_the_working_folder_deleted(tmp_path: Path) -> None:
    gone = tmp_path / "project"
    gone.mkdir()
    xdg = tmp_path / "xdg"
    script = f'cd "{gone}" && rmdir "{gone}" && exec "{TRAIL}" hook claude-code'
    env = {"TRAIL_HOME": "rel-home", "XDG_DATA_HOME": str(xdg)}
    done = run_raw(["sh", "-c", script], json.dumps(STOP).encode(), env=env)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    fallback = xdg / "trail"
    assert [e["kind"] for e in read_trace_lines(fallback)] == ["agent_stop"]
    assert any("relative" in str(e["error"]) for e in errors(fallback))
    assert not gone.exists()  # the deleted folder was not recreated


# ----------------------------------------------------------------- session keys


def test_two_session_ids_never_share_a_folder(trail_home: Path) -> None:
    from trace_ingest.paths import session_key

    changed = session_key("a.b")[0]  # "a_b-<hash>"
    ids = ["a.b", changed, "", "_unknown", "_scrub-error", "x" * 96 + "y", "x" * 96 + "z"]
    for sid in ids:
        assert run_hook({**STOP, "session_id": sid}).returncode == 0
    traces = list(trail_home.glob("sessions/claude-code/*/trace.jsonl"))
    assert len(traces) == len(ids)
    by_folder = {p.parent.name: {e["session_id"] for e in map(json.loads, p.read_text().split())}
                 for p in traces}  # fmt: skip
    assert all(len(v) == 1 for v in by_folder.values()), by_folder
    assert "_unknown" in by_folder and by_folder["_unknown"] == {""}
    assert "_scrub-error" not in by_folder


# ----------------------------------------------------------------- config values


@pytest.mark.parametrize("value", ["1e11", "100000000000", "-1", "Infinity", "NaN", "true"])
def test_absurd_max_payload_bytes_falls_back_to_the_default(trail_home: Path, value: str) -> None:
    trail_home.mkdir(mode=0o700)
    config = '{"capture": {"max_payload_bytes": VALUE}}'.replace("VALUE", value)
    (trail_home / "config.json").write_text(config)
    done = run_hook({**BASE, "hook_event_name": "UserPromptSubmit", "prompt": "kept"})
    assert done.returncode == 0
    [ev] = read_trace_lines(trail_home)
    assert ev["text"] == "kept"
    assert any("max_payload_bytes" in str(e["error"]) for e in errors(trail_home))


def test_config_pointing_at_dev_zero_does_not_hang(trail_home: Path) -> None:
    trail_home.mkdir(mode=0o700)
    (trail_home / "config.json").symlink_to("/dev/zero")
    started = time.monotonic()
    done = run_hook({**BASE, "hook_event_name": "UserPromptSubmit", "prompt": "kept"})
    assert done.returncode == 0 and time.monotonic() - started < 10
    [ev] = read_trace_lines(trail_home)
    assert ev["text"] == "kept"
    assert any(e["stage"] == "config" for e in errors(trail_home))


# ----------------------------------------------------------------- stdin


@pytest.mark.parametrize("disabled", [False, True])
def test_stdin_from_dev_zero_is_not_drained_forever(trail_home: Path, disabled: bool) -> None:
    env = {"TRAIL_DISABLE": "1"} if disabled else {}
    started = time.monotonic()
    with open("/dev/zero", "rb") as zero:
        done = run_raw([TRAIL, "hook", "claude-code"], zero.fileno(), env=env, timeout=30)
    assert (done.returncode, done.stdout) == (0, b"")
    assert time.monotonic() - started < 10
    if disabled:
        assert read_trace_lines(trail_home) == []
    else:
        [ev] = read_trace_lines(trail_home)
        assert "exceeds max_payload_bytes" in ev["extra"]["malformed"]
        assert "not drained" in ev["extra"]["malformed"]


# Both forms a harness runs: the console script and the direct form install registers.
HOOK_FORMS = {
    "trail-hook": [TRAIL, "hook", "claude-code"],
    "run-py": [sys.executable, "-I", "-S", str(REPO / "hooks" / "run.py"), "claude-code"],
}
# How long the hook may take with stdin that never ends (entry.READ_SECONDS, then parse and
# write), with room for a loaded machine; before the bound it waited for ever.
STDIN_BOUND = entry.READ_SECONDS + entry.MAX_DRAIN_SECONDS + 15


def hook_with_stdin(form: str, stdin: int, feed: Callable[[], bool] | None = None) -> float:
    """Run the hook with ``stdin``; call ``feed`` every 0.2 s while it runs (it returns False
    once it cannot write). Returns how long the hook took; fails when it outlives 60 s."""
    started = time.monotonic()
    proc = subprocess.Popen(HOOK_FORMS[form], stdin=stdin, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)  # fmt: skip
    try:
        while proc.poll() is None and time.monotonic() - started < 60:
            if feed is not None and not feed():
                feed = None
            time.sleep(0.2)
        assert proc.poll() is not None, "the hook still waits on stdin after 60 s"
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert (proc.returncode, out, err) == (0, b"", b"")
    return time.monotonic() - started


@pytest.mark.parametrize("form", list(HOOK_FORMS))
def test_stdin_that_is_a_terminal_is_not_read(trail_home: Path, form: str) -> None:
    """No harness sends a payload from a terminal (a person typed the hook's command): the
    hook reads nothing and exits at once, where it used to wait for the terminal's EOF."""
    primary, secondary = pty.openpty()
    try:
        took = hook_with_stdin(form, secondary)
    finally:
        os.close(primary)
        os.close(secondary)
    assert took < STDIN_BOUND
    assert read_trace_lines(trail_home) == []
    assert any("stdin is a terminal" in str(e["error"]) for e in errors(trail_home))


@pytest.mark.parametrize("form", list(HOOK_FORMS))
def test_a_payload_on_a_pipe_that_stays_open_is_recorded_within_the_bound(
    trail_home: Path, form: str
) -> None:
    """A complete payload, then a byte of whitespace every 0.2 s and no EOF: the hook stops
    reading after READ_SECONDS and records what had arrived."""
    reader, writer = os.pipe()
    os.write(writer, json.dumps({**STOP, "session_id": "left-open"}).encode())

    def trickle() -> bool:
        try:
            os.write(writer, b" ")
        except BrokenPipeError:
            return False
        return True

    try:
        took = hook_with_stdin(form, reader, trickle)
    finally:
        os.close(reader)
        os.close(writer)
    assert took < STDIN_BOUND
    [ev] = read_trace_lines(trail_home)
    assert ev["session_id"] == "left-open" and ev["hook_event"] == "Stop"
    assert any("did not end within" in str(e["error"]) for e in errors(trail_home))


@pytest.mark.parametrize("form", list(HOOK_FORMS))
def test_an_oversize_payload_that_then_trickles_is_drained_within_the_bound(
    trail_home: Path, form: str
) -> None:
    """Past max_payload_bytes the rest is drained for at most MAX_DRAIN_SECONDS, also when it
    arrives a byte at a time (each read used to wait for a whole 1 MiB chunk)."""
    (trail_home / "config.json").parent.mkdir(mode=0o700, exist_ok=True)
    (trail_home / "config.json").write_text(json.dumps({"capture": {"max_payload_bytes": 4096}}))
    reader, writer = os.pipe()
    sent = [0]

    def fill_then_trickle() -> bool:
        try:
            if sent[0] < 65536:  # past the limit, then less than one read chunk
                sent[0] += os.write(writer, b"x" * 65536)
            else:
                os.write(writer, b"x")
        except BrokenPipeError:
            return False
        return True

    try:
        took = hook_with_stdin(form, reader, fill_then_trickle)
    finally:
        os.close(reader)
        os.close(writer)
    assert took < STDIN_BOUND
    [ev] = read_trace_lines(trail_home)
    assert "exceeds max_payload_bytes=4096" in ev["extra"]["malformed"]


# ----------------------------------------------------------------- received_at


def test_received_at_is_the_moment_the_hook_started(trail_home: Path) -> None:
    proc = subprocess.Popen([TRAIL, "hook", "claude-code"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    started = now_iso()
    time.sleep(1.5)  # the harness is slow to write the payload
    proc.communicate(json.dumps(STOP).encode(), timeout=30)
    written = now_iso()
    assert proc.returncode == 0
    [ev] = read_trace_lines(trail_home)
    assert started <= ev["received_at"] or ev["received_at"][:19] == started[:19]
    from datetime import datetime

    def t(s: str) -> float:
        return datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()

    assert t(written) - t(ev["received_at"]) > 1.0, (ev["received_at"], written)


# ----------------------------------------------------------------- a full disk


@pytest.mark.parametrize("form", list(HOOK_FORMS))
def test_a_full_disk_loses_events_with_a_record(tmp_path: Path, form: str) -> None:
    """On a real full disk (a 256 KiB tmpfs): the loss is counted in the pre-allocated
    ``lost-events`` record, readable by doctor, and logged once there is space again; also
    by the direct form, which ends with posix._exit (nothing of it may be left unwritten)."""
    from trace_ingest.store import read_errors

    with small_disk(tmp_path / "disk") as disk:
        home = disk / "home"
        env = {"TRAIL_HOME": str(home)}
        token = secrets()["github-token"]
        first = {**BASE, "hook_event_name": "UserPromptSubmit", "prompt": f"k {token}"}

        def hook(payload: dict[str, object]) -> subprocess.CompletedProcess[bytes]:
            return run_raw(HOOK_FORMS[form], json.dumps(payload).encode(), env=env)

        assert hook(first).returncode == 0  # key, cache, lost-events exist
        assert (home / "lost-events").is_file()
        filler = fill(disk)
        big = "z" * 20_000  # more than any page left in a file's tail
        for n in range(3):
            done = hook({**BASE, "hook_event_name": "UserPromptSubmit", "prompt": f"{n}{big}"})
            assert (done.returncode, done.stdout) == (0, b"")
        lost = [e for e in read_errors(str(home)) if e["stage"] == "lost"]
        assert lost and str(lost[-1]["error"]).startswith("3 event(s) could not be written")
        filler.unlink()
        assert hook({**BASE, "hook_event_name": "Stop"}).returncode == 0
        logged = [e for e in errors(home) if e["stage"] == "lost"]
        assert logged and str(logged[-1]["error"]).startswith("3 event(s)")
        assert not [e for e in read_errors(str(home)) if e["stage"] == "lost" and e["ts"] is None]
