"""Held-out bad input for the importers that landed with issue 11: `trail import vibe`,
`trail chronicle import`, `trail import copilot-cli` (and the shared line reader under
`trail import claude-code`).

What broke before the fixes:

- a FIFO (or `/dev/zero` behind a symlink) named on the command line or found in a walked
  folder hung every JSON-lines importer and `chronicle import` (a plain `open` of a FIFO
  waits for a writer; SQLite too); `_pipeline.open_regular` now refuses anything but a
  regular file, named in the file's error;
- a Vibe store whose `generations/`, generation folder, `chunks/` or a subagent's `child-*`
  folder is a symlink was read through it (only the last component was opened
  `O_NOFOLLOW`); a NUL byte in `CURRENT`'s generation was a traceback;
- `chronicle import`: a response part whose `kind` is an array, a kind-2 push with a negative
  start index, and a mutation entry nested 900 levels deep were tracebacks.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.adversarial._hook import all_bytes, secrets
from tests.conftest import TRAIL, read_trace_lines
from tests.trace_ingest import vscode_fixtures as fx

VIBE_DATA = Path(__file__).parent.parent / "trace_ingest" / "data" / "vibe-3.0.1"
FAIL = "b1f7d7cb-2b6f-77f3-6449-1f7d4957f3aa"  # a root store
SUB = "2df68db3-e078-0820-b452-6d20861bc6dd"  # a root store with a subagent
CHILD = "child-21de204dce7c979392e46863"


def trail(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """Run trail; a hang is a failure of its own (not a pytest timeout)."""
    try:
        return subprocess.run([TRAIL, *args], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        pytest.fail(f"trail {' '.join(args)} hung")


def clean(done: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in done.stdout + done.stderr, done.stderr[-3000:]


# ---- not a regular file: every importer -----------------------------------------------------


@pytest.mark.parametrize(
    "command", [("import", "claude-code"), ("import", "copilot-cli"), ("chronicle", "import")]
)
@pytest.mark.parametrize("what", ["fifo", "devzero"])
def test_a_fifo_or_device_never_hangs_an_importer(
    tmp_path: Path, command: tuple[str, str], what: str
) -> None:
    folder = tmp_path / "chatSessions"
    folder.mkdir()
    bad = folder / "events.jsonl"
    if what == "fifo":
        os.mkfifo(bad)
    else:
        bad.symlink_to("/dev/zero")
    args = [*command, *(["--path"] if command[0] == "chronicle" else []), str(bad)]
    done = trail(*args)
    clean(done)
    assert done.returncode == 1, done.stdout  # nothing could be read
    kind = "a FIFO" if what == "fifo" else "a device"
    assert f"not a regular file ({kind})" in done.stdout + done.stderr
    # In a walked folder, beside a good file: the good one is read, exit 0.
    if command[0] == "chronicle":
        fx.write_json(folder / "ok.json", fx.chat_session("ok"))
        done = trail("chronicle", "import", "--path", str(tmp_path), "--json")
        clean(done)
        assert done.returncode == 0
        files = {Path(f["file"]).name: f for f in json.loads(done.stdout)["files"]}
        assert files["ok.json"]["ok"] and files["ok.json"]["events_written"] > 0


@pytest.mark.parametrize("name", ["session-store.db", "chat.json"])
def test_a_fifo_store_or_chat_file_is_refused_by_chronicle(tmp_path: Path, name: str) -> None:
    bad = tmp_path / name
    os.mkfifo(bad)
    done = trail("chronicle", "import", "--path", str(bad), "--json")
    clean(done)
    [report] = json.loads(done.stdout)["files"]
    assert done.returncode == 1 and report["error"] == "cannot read: not a regular file (a FIFO)"


# ---- trail import vibe: links out of the store, hostile CURRENT ------------------------------


@pytest.fixture
def store(tmp_path: Path) -> Path:
    copy = tmp_path / "unified"
    shutil.copytree(VIBE_DATA, copy)
    return copy


def import_vibe(path: Path) -> tuple[int, dict[str, Any]]:
    done = trail("import", "vibe", str(path), "--json")
    clean(done)
    return done.returncode, json.loads(done.stdout)


def _move_out(inside: Path, outside: Path) -> None:
    shutil.move(str(inside), outside)
    inside.symlink_to(outside)


@pytest.mark.parametrize("linked", ["generations", "generation", "chunks"])
def test_a_vibe_store_folder_linked_out_of_the_store_is_not_followed(
    store: Path, tmp_path: Path, trail_home: Path, linked: str
) -> None:
    root = store / FAIL
    inside = {
        "generations": root / "generations",
        "generation": next((root / "generations").iterdir()),
        "chunks": root / "chunks",
    }[linked]
    _move_out(inside, tmp_path / "elsewhere")
    code, report = import_vibe(root)
    problems = json.dumps(report["errors"] + report["warnings"])
    assert "symbolic link" in problems and "not followed" in problems
    # nothing of what lies behind the link; with only the chunks linked out, the store's
    # token totals (projection-state.json, beside them) are still read
    assert report["events_written"] == (1 if linked == "chunks" else 0)
    assert code == (0 if linked == "chunks" else 1)  # CURRENT and the manifest were read
    if linked == "chunks":
        [ev] = [e for e in read_trace_lines(trail_home) if e["harness"] == "vibe"]
        assert ev["extra"]["usage_scope"] == "session" and "text" not in ev


def test_a_subagent_store_linked_out_is_not_followed(store: Path, tmp_path: Path) -> None:
    _move_out(store / CHILD, tmp_path / "elsewhere")
    code, report = import_vibe(store / SUB)
    assert code == 0  # the parent is read
    assert any(CHILD in w and "symbolic link" in w for w in report["warnings"])
    sessions = [s["session_id"] for s in report["sessions"]]
    assert sessions == [SUB]


@pytest.mark.parametrize(
    "generation", ["a\x00b", "..", "../../etc", "/etc", "", 1.5, [1], None, "x" * 5000]
)
def test_a_hostile_generation_in_current_is_a_precise_error(store: Path, generation: Any) -> None:
    current = store / FAIL / "CURRENT"
    data = json.loads(current.read_text())
    data["generation"] = generation
    current.write_text(json.dumps(data))
    code, report = import_vibe(store / FAIL)
    assert code == 1 and report["events_written"] == 0
    [error] = report["errors"]
    assert error["file"].startswith(str(store / FAIL))
    assert "bad generation" in error["error"] or "cannot be opened" in error["error"]


def test_a_vibe_import_through_a_symlink_loop_ends(store: Path) -> None:
    (store / "loop").symlink_to(store)
    (store / "a").symlink_to(store / "b")
    (store / "b").symlink_to(store / "a")
    code, first = import_vibe(store)
    assert code == 0 and sorted(s["session_id"] for s in first["sessions"]) == sorted([SUB, FAIL])
    code, again = import_vibe(store)
    assert (code, again["events_written"]) == (0, 0)


# ---- trail chronicle import: shapes no reader expected ---------------------------------------


def chronicle(*paths: Path) -> tuple[int, dict[str, Any]]:
    args = [a for p in paths for a in ("--path", str(p))]
    done = trail("chronicle", "import", *args, "--json")
    clean(done)
    return done.returncode, json.loads(done.stdout)


def test_wrong_types_in_a_chat_session_are_read_around(tmp_path: Path, trail_home: Path) -> None:
    session = fx.chat_session("wrong-types")
    session["requests"] = [
        5,
        None,
        {"requestId": [1], "message": 5, "response": {"a": 1}, "timestamp": "z"},
        {
            "requestId": "r-odd",
            "message": {"text": "hello"},
            "response": [
                5,
                {"kind": ["markdownContent"]},  # was: TypeError: unhashable type: 'list'
                {"kind": {"a": 1}},
                {"kind": "toolInvocationSerialized", "toolId": 5, "toolCallId": {"a": 1}},
            ],
            "result": {},
        },
    ]
    path = fx.write_json(tmp_path / "chatSessions" / "wrong.json", session)
    code, report = chronicle(path)
    [f] = report["files"]
    assert code == 0 and f["ok"], f
    assert f["kinds"].get("prompt", 0) >= 1  # the odd request still gave its prompt


def test_hostile_mutation_entries_are_skipped_with_reasons(tmp_path: Path) -> None:
    entries = fx.mutation_log(fx.chat_session("hostile-log"))
    lines = [json.dumps(e).encode() for e in entries]
    lines += [
        b'{"kind": 2, "k": ["requests"], "v": [{"requestId": "x"}], "i": -5}',  # was IndexError
        b'{"kind": 1, "k": ' + json.dumps(["a"] * 10_000).encode() + b', "v": 1}',
        b'{"kind": 1, "k": ["customTitle"], "v": ' + b"[" * 900 + b"]" * 900 + b"}",
        b'{"kind": 1, "k": [{"a": 1}], "v": 1}',
        b'{"kind": 1, "k": ["requests", 99999999999999999999, "x"], "v": 1}',
        b'{"kind": "1", "k": ["customTitle"], "v": 1}',
        b"[" * 100_000,
        b"\xff\xfe\x00",
    ]
    path = tmp_path / "chatSessions" / "hostile.jsonl"
    path.parent.mkdir()
    path.write_bytes(b"\n".join(lines) + b"\n")
    code, report = chronicle(path)
    [f] = report["files"]
    assert code == 0 and f["ok"], f
    reasons = " | ".join(s["reason"] for s in f["skipped"])
    assert "nested deeper than 100 levels" in reasons
    assert "path of 10000 steps" in reasons
    assert "path is not a list of keys and indices" in reasons
    assert "not a mutation entry" in reasons
    assert f["events_written"] > 0


def test_secrets_in_every_chat_field_never_reach_disk(tmp_path: Path, trail_home: Path) -> None:
    s = list(secrets(23).values())
    session = fx.chat_session(s[0])  # a token as the session id
    first = session["requests"][0]
    first["message"] = {"text": "use " + s[1]}
    first["response"].append(fx.tool_terminal("call_" + s[2], "export K=" + s[3], 0, "o " + s[4]))
    first["response"].append(fx.markdown("key " + s[5]))
    session["customTitle"] = s[6]
    fx.write_json(tmp_path / "chatSessions" / "secret.json", session)
    fx.write_jsonl(tmp_path / "chatSessions" / "secret.jsonl", fx.mutation_log(session))
    code, report = chronicle(tmp_path)
    assert code == 0 and report["events_written"] > 0
    names = "\n".join(str(p) for p in trail_home.rglob("*")).encode()
    on_disk = all_bytes(trail_home) + names
    for value in s:
        assert value.encode() not in on_disk
    assert not list(trail_home.glob("sessions/vscode/*/../../../*.jsonl"))


@pytest.mark.parametrize("sid", ["../../../../tmp/evil", "a\x00b", "..", "/etc/passwd"])
def test_a_hostile_chat_session_id_stays_in_the_data_dir(
    tmp_path: Path, trail_home: Path, sid: str
) -> None:
    path = fx.write_json(tmp_path / "in" / "chatSessions" / "h.json", fx.chat_session(sid))
    code, report = chronicle(path)
    assert code == 0
    [session] = report["sessions"]
    trace = Path(session["trace"]).resolve()
    assert trace.is_relative_to((trail_home / "sessions" / "vscode").resolve())
    assert trace.parent.parent == (trail_home / "sessions" / "vscode").resolve()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in", "trail-home"]
    again = chronicle(path)[1]
    assert again["events_written"] == 0  # idempotent


def test_a_chronicle_store_linked_in_a_walked_folder_is_not_followed(tmp_path: Path) -> None:
    real = fx.write_store(tmp_path / "real" / "session-store.db")
    logs = tmp_path / "walked" / "GitHub.copilot-chat" / "debug-logs"
    logs.mkdir(parents=True)
    (logs / "session-store.db").symlink_to(real)
    code, report = chronicle(tmp_path / "walked")
    assert code == 1 and report["files"] == []


def test_a_line_too_deep_to_scrub_is_named_and_the_rest_imported(
    tmp_path: Path, trail_home: Path
) -> None:
    """900 levels parse, but bounding and scrubbing recurse per level: the event is refused
    with that reason (it said "scrubbing failed (RecursionError)"), the others are written."""
    token = secrets(43)["github-token"]

    def line(n: int, type_: str, data: str) -> str:
        return (
            f'{{"type":"{type_}","data":{data},"id":"l{n}","timestamp":"2026-01-01T00:00:0{n}Z"}}'
        )

    lines = [
        line(1, "session.start", '{"sessionId":"../../../etc/deep"}'),
        line(
            2,
            "tool.execution_start",
            '{"toolCallId":"c1","toolName":"bash","arguments":' + "[" * 900 + "]" * 900 + "}",
        ),
        line(
            3,
            "tool.execution_complete",
            '{"toolCallId":["x"],"success":"yes","error":[1],"result":[1],'
            '"toolTelemetry":{"metrics":{"durationMs":1e999}}}',
        ),
        line(
            4,
            "tool.execution_start",
            '{"toolCallId":"c2","toolName":"bash","arguments":{"command":"echo ' + token + '"}}',
        ),
    ]
    log = tmp_path / "state" / "s1" / "events.jsonl"
    log.parent.mkdir(parents=True)
    log.write_text("\n".join(lines) + "\n")
    done = trail("import", "copilot-cli", str(tmp_path / "state"))
    clean(done)
    assert "line 2: nested too deeply to bound and scrub; event not written" in done.stderr
    [trace] = trail_home.glob("sessions/copilot-cli/*/trace.jsonl")
    assert trace.parent.parent == trail_home / "sessions" / "copilot-cli"
    assert len(trace.read_text().splitlines()) == 3
    assert token.encode() not in all_bytes(trail_home)
