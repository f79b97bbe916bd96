"""``trail chronicle import`` over every VS Code format: counts, pairings and ok flags per file.

Fixtures are generated (tests/trace_ingest/vscode_fixtures.py says where each shape comes
from); the shared samples are read too.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SAMPLES, TRAIL
from tests.trace_ingest import vscode_fixtures as fx
from trace_ingest.importers.chronicle import (
    ChronicleReport,
    discover,
    import_chronicle,
    user_folders,
)
from trace_ingest.importers.vscode_files import export_session_id
from trace_ingest.vscode_facts import decode_session_id, encode_session_id


def trace(home: Path, session: str = fx.SESSION) -> list[dict[str, Any]]:
    path = home / "sessions" / "vscode" / session / "trace.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def by_file(report: ChronicleReport) -> dict[str, Any]:
    return {Path(f.file).name: f for f in report.files}


def pairs(events: list[dict[str, Any]]) -> dict[str, tuple[str, Any]]:
    """call id -> (kind of what answered it, its ok), for every tool call."""
    answered = {
        e["call_id"]: (e["kind"], e.get("ok"), e.get("status"))
        for e in events
        if e["kind"] in ("tool_result", "tool_error", "permission")
    }
    return {e["call_id"]: answered.get(e["call_id"]) for e in events if e["kind"] == "tool_call"}


RICH_KINDS = {
    "prompt": 3,
    "tool_call": 7,
    "tool_result": 3,
    "tool_error": 2,
    "permission": 1,
    "agent_stop": 3,
}
RICH_PAIRS = {
    "call_read_1": ("tool_result", True, "ok"),
    "call_sh_1": ("tool_result", True, "ok"),
    "call_sh_2": ("tool_error", False, "failed"),  # exit code 2
    "call_edit_1": ("tool_error", False, "failed"),  # resultDetails.isError
    "call_sh_3": ("permission", None, "refused"),  # isConfirmed {type: 0}
    "call_grep_1": None,  # isComplete false: no result yet
    "call_mcp_1": ("tool_result", True, "ok"),  # __vscode-3 suffix stripped
}


def test_chat_session_json_counts_pairs_and_flags(tmp_path: Path, trail_home: Path) -> None:
    path = fx.write_json(tmp_path / "ws" / "chatSessions" / f"{fx.SESSION}.json", fx.chat_session())
    report = import_chronicle([str(path)])
    (f,) = report.files
    assert f.ok and f.format == "chatSessions .json (version 3)"
    assert dict(f.kinds) == RICH_KINDS
    assert f.written == sum(RICH_KINDS.values())
    events = trace(trail_home)
    assert pairs(events) == RICH_PAIRS
    stops = [e for e in events if e["kind"] == "agent_stop"]
    assert [(s["prompt_id"], s["ok"], s["status"]) for s in stops] == [
        ("request_1", True, "ok"),
        ("request_2", True, "ok"),
        ("request_3", False, "failed"),
    ]
    assert stops[0]["text"] == "Tests pass." and stops[0]["extra"]["usage"]["input_tokens"] == 18561
    assert stops[2]["error"] == "429"
    read = next(e for e in events if e.get("call_id") == "call_read_1" and e["kind"] == "tool_call")
    assert read["tool"] == "read" and read["path"] == "/w/README.md"
    shell = next(e for e in events if e.get("call_id") == "call_sh_2" and e["kind"] == "tool_error")
    assert shell["tool"] == "shell" and shell["extra"]["exit_code"] == 2
    assert shell["duration_ms"] == 1200.0
    mcp = next(e for e in events if e.get("call_id") == "call_mcp_1" and e["kind"] == "tool_result")
    assert mcp["tool"] == "mcp" and "image/png data omitted" in mcp["output"]
    assert f.not_recorded["response part thinking"] == 1
    assert f.not_recorded["tool invocation without a result (not complete)"] == 1
    prompt = events[0]
    assert prompt["kind"] == "prompt" and prompt["ts"] == "2026-01-21T20:50:00.647000Z"


def test_mutation_log_replays_to_the_same_session(tmp_path: Path, trail_home: Path) -> None:
    session = fx.chat_session()
    log = fx.write_jsonl(
        tmp_path / "chatSessions" / f"{fx.SESSION}.jsonl", fx.mutation_log(session)
    )
    report = import_chronicle([str(log)])
    (f,) = report.files
    assert f.ok and f.format == "chatSessions .jsonl mutation log"
    assert dict(f.kinds) == RICH_KINDS and f.skips == []
    assert pairs(trace(trail_home)) == RICH_PAIRS
    # VS Code keeps the old .json beside the migrated .jsonl (NC §1.4): one session, no
    # duplicate, the .jsonl read first.
    old = fx.write_json(tmp_path / "chatSessions" / f"{fx.SESSION}.json", session)
    again = import_chronicle([str(tmp_path)])
    files = by_file(again)
    assert [Path(f.file).suffix for f in again.files] == [".jsonl", ".json"]
    assert files[log.name].written == 0 and files[old.name].written == 0
    assert files[log.name].already_present == sum(RICH_KINDS.values())  # the earlier run's
    assert files[old.name].duplicates == sum(RICH_KINDS.values())  # the .jsonl's, this run
    assert len(trace(trail_home)) == sum(RICH_KINDS.values())


def test_mutation_log_kinds_push_with_index_and_delete(tmp_path: Path, trail_home: Path) -> None:
    head = {"sessionId": "s-kinds", "creationDate": fx.T0, "requests": []}
    r1 = fx.request("r1", "first", fx.T0, [fx.markdown("one")])
    r2 = fx.request("r2", "second", fx.T0 + 1, [fx.markdown("two")])
    r3 = fx.request("r3", "edited second", fx.T0 + 2, [fx.markdown("three")])
    entries = [
        {"kind": 0, "v": head},
        {"kind": 2, "k": ["requests"], "v": [r1, r2]},
        {"kind": 2, "k": ["requests"], "v": [r3], "i": 1},  # r2 replaced (edit and resend)
        {"kind": 3, "k": ["requests", 0, "result"]},  # r1 loses its result: still done by state
        {"kind": 1, "k": ["requests", 0, "modelState"], "v": {"value": 2}},  # cancelled
    ]
    path = fx.write_jsonl(tmp_path / "chatSessions" / "s-kinds.jsonl", entries)
    report = import_chronicle([str(path)])
    (f,) = report.files
    assert f.ok and f.skips == []
    events = trace(trail_home, "s-kinds")
    assert [e["text"] for e in events if e["kind"] == "prompt"] == ["first", "edited second"]
    stops = {e["prompt_id"]: e["status"] for e in events if e["kind"] == "agent_stop"}
    assert stops == {"r1": "interrupted", "r3": "ok"}


def test_mutation_log_without_initial_entry_is_a_precise_error(tmp_path: Path) -> None:
    entries = fx.mutation_log(fx.chat_session())[1:]
    path = fx.write_jsonl(tmp_path / "chatSessions" / "no-initial.jsonl", entries)
    done = subprocess.run(
        [TRAIL, "chronicle", "import", "--path", str(path)], capture_output=True, text=True
    )
    assert done.returncode == 1, done
    assert "no initial entry (kind 0): line 1 is a kind 2 entry" in done.stderr
    assert ("Traceback" not in done.stderr and done.stdout == "") or "Read 0 of 1" in done.stdout


def test_bad_lines_are_skipped_with_reasons(tmp_path: Path, trail_home: Path) -> None:
    lines = [json.dumps(e).encode() for e in fx.mutation_log(fx.chat_session())]
    lines.insert(3, b'{"kind": 7, "k": ["requests"], "v": []}')  # unknown kind
    lines.insert(4, b'{"kind": 1, "k": ["nowhere", 3, "x"], "v": 1}')  # path that is not there
    lines.insert(5, b"not json at all")
    lines.insert(6, b'{"kind": 1, "k": ["customTitle"], "v": "caf\xe9 \xff"}')  # not UTF-8
    data = b"\n".join(lines) + b"\n" + b'{"kind": 1, "k": ["customTitle"], "v": "cut'  # torn
    path = tmp_path / "chatSessions" / "bad.jsonl"
    path.parent.mkdir()
    path.write_bytes(data)
    report = import_chronicle([str(path)])
    (f,) = report.files
    assert f.ok and dict(f.kinds) == RICH_KINDS
    reasons = {line: reason for line, reason in f.skips}
    assert reasons[4] == "kind 7 at ['requests']: unknown mutation kind 7"
    assert "'nowhere' does not exist" in reasons[5]
    assert reasons[6].startswith("malformed JSON")
    assert reasons[len(lines) + 1].startswith("last line cut short (VS Code was writing it)")
    assert f.warnings == ["line 7: invalid UTF-8 at byte 43; replaced with U+FFFD"]
    assert report.exit_code == 0


def test_nesting_limit_counts_levels_not_brackets(tmp_path: Path, trail_home: Path) -> None:
    # vscode_reading.MAX_DEPTH (100) levels: a line nested deeper is skipped with its reason;
    # one whose strings hold hundreds of brackets but whose value is shallow is read.
    lines = [json.dumps(e).encode() for e in fx.mutation_log(fx.chat_session())]
    deep = b'{"kind": 1, "k": ["customTitle"], "v": ' + b"[" * 101 + b"]" * 101 + b"}"
    title = "[{" * 300
    shallow = json.dumps({"kind": 1, "k": ["customTitle"], "v": title}).encode()
    path = tmp_path / "chatSessions" / "nested.jsonl"
    path.parent.mkdir()
    path.write_bytes(b"\n".join([*lines, deep, shallow]) + b"\n")
    report = import_chronicle([str(path)])
    (f,) = report.files
    # the shallow line is applied (not skipped); only the deep one is
    assert f.ok and f.skips == [(len(lines) + 1, "nested deeper than 100 levels; not recorded")]
    assert f.lines == len(lines) + 2 and dict(f.kinds) == RICH_KINDS


def test_non_utf8_json_file_is_read(tmp_path: Path, trail_home: Path) -> None:
    raw = json.dumps(fx.chat_session()).encode().replace(b"Fix the typo", b"Fix the t\xffpo")
    path = tmp_path / "chatSessions" / f"{fx.SESSION}.json"
    path.parent.mkdir()
    path.write_bytes(raw)
    report = import_chronicle([str(path)])
    (f,) = report.files
    assert f.ok and dict(f.kinds) == RICH_KINDS
    assert any("invalid UTF-8 byte" in w for w in f.warnings)
    assert "Fix the t\ufffdpo" in [e.get("text") for e in trace(trail_home)]


def test_truncated_json_file_keeps_the_requests_before_the_cut(
    tmp_path: Path, trail_home: Path
) -> None:
    raw = json.dumps(fx.chat_session(), indent=1)
    cut = raw[: raw.index('"requestId": "request_3"')]
    path = tmp_path / "chatSessions" / f"{fx.SESSION}.json"
    path.parent.mkdir()
    path.write_text(cut)
    report = import_chronicle([str(path)])
    (f,) = report.files
    # sessionId comes after requests in VS Code's files: a cut file names the session by file
    assert f.ok and f.sessions == {fx.SESSION}
    assert f.kinds["prompt"] == 2 and f.skips[0][1].startswith("file cut short after 2 request")


def test_copilot_chat_transcript(tmp_path: Path, trail_home: Path) -> None:
    path = fx.write_jsonl(
        tmp_path / "ws" / "GitHub.copilot-chat" / "transcripts" / f"{fx.SESSION}.jsonl",
        fx.transcript(),
    )
    path.write_text(
        path.read_text() + '{"type": "assistant.reasoning_delta", "data": {}, "id": "x"}\n'
    )
    report = import_chronicle([str(tmp_path)])
    (f,) = report.files
    assert f.ok and f.format == "Copilot Chat transcript"
    assert dict(f.kinds) == {
        "session_start": 1,
        "prompt": 2,
        "tool_call": 2,
        "tool_result": 1,
        "tool_error": 1,
        "agent_stop": 2,
        "other": 2,  # assistant.usage, and the unknown type kept as other
    }
    events = trace(trail_home)
    assert pairs(events) == {
        "call_read_1": ("tool_result", True, "ok"),
        "call_sh_2": ("tool_error", False, "failed"),
    }
    assert {e["source"] for e in events} == {"events-log"}
    call = next(e for e in events if e.get("call_id") == "call_sh_2" and e["kind"] == "tool_call")
    assert call["input"] == {"command": "ls /missing"} and call["tool"] == "shell"
    stops = [e["text"] for e in events if e["kind"] == "agent_stop"]
    assert stops == ["Tests pass.", "You're welcome."]
    assert f.not_recorded["unknown entry type assistant.reasoning_delta (kept as other)"] == 1


def test_chronicle_store_read_only(tmp_path: Path, trail_home: Path) -> None:
    db = fx.write_store(tmp_path / "GitHub.copilot-chat" / "debug-logs" / "session-store.db")
    writer = sqlite3.connect(db)  # VS Code holding it open, mid-write
    writer.execute("BEGIN IMMEDIATE")
    writer.execute(
        "INSERT INTO turns (session_id, turn_index, user_message) VALUES (?, 9, 'x')", (fx.SESSION,)
    )
    before = db.read_bytes()
    report = import_chronicle([str(db)])
    (f,) = report.files
    assert f.ok and f.format == "chronicle session-store.db (schema 3)", f.error
    assert dict(f.kinds) == {"other": 4, "prompt": 2, "agent_stop": 2, "compaction": 1}
    writer.rollback()
    writer.close()
    assert db.read_bytes() == before  # never written
    events = trace(trail_home)
    assert {e["source"] for e in events} == {"chronicle"}
    ckpt = next(e for e in events if e["kind"] == "compaction")
    assert ckpt["text"] == "Read and tested" and ckpt["extra"]["work_done"] == "ran pytest"
    files = [e["path"] for e in events if e.get("hook_event") == "session_file"]
    assert files == ["/w/README.md", "/w/setup.py"]


def test_locked_store_in_rollback_mode_is_read_as_immutable(
    tmp_path: Path, trail_home: Path
) -> None:
    db = fx.write_store(tmp_path / "session-store.db", wal=False)
    writer = sqlite3.connect(db)
    writer.execute("BEGIN EXCLUSIVE")  # a remote workspace's rollback journal, locked
    try:
        report = import_chronicle([str(db)])
    finally:
        writer.rollback()
        writer.close()
    (f,) = report.files
    assert f.ok, f.error
    assert f.kinds["prompt"] == 2
    assert any("immutable=1" in w for w in f.warnings)


def test_corrupt_store_is_a_precise_error(tmp_path: Path) -> None:
    db = tmp_path / "session-store.db"
    db.write_bytes(b"SQLite format 3\x00" + b"\x13" * 4000)
    other = fx.write_json(tmp_path / "chatSessions" / "ok.json", fx.chat_session("ok"))
    done = subprocess.run(
        [TRAIL, "chronicle", "import", "--path", str(db), "--path", str(other), "--json"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr  # one file could be read
    data = json.loads(done.stdout)
    (bad,) = [f for f in data["files"] if not f["ok"]]
    assert bad["file"] == str(db)
    assert bad["error"].startswith("corrupt SQLite file (") or "not a database" in bad["error"]
    alone = subprocess.run(
        [TRAIL, "chronicle", "import", "--path", str(db)], capture_output=True, text=True
    )
    assert alone.returncode == 1 and "Traceback" not in alone.stderr
    assert f"Error: {db} (chronicle session-store.db): corrupt" in alone.stderr


def test_export_gets_a_stable_id_or_joins_its_session(tmp_path: Path, trail_home: Path) -> None:
    session = fx.chat_session()
    export = fx.write_json(tmp_path / "exports" / "chat.json", fx.export_of(session))
    first = import_chronicle([str(export)])
    (f,) = first.files
    derived = export_session_id(session["requests"][0])
    assert f.format == "Export Chat JSON" and f.sessions == {derived}
    assert derived.startswith("export-") and dict(f.kinds) == RICH_KINDS
    assert import_chronicle([str(export)]).events_written == 0  # idempotent, same id
    # with its chat session in the same run, the export merges into it
    chat = fx.write_json(tmp_path / "ws" / "chatSessions" / f"{fx.SESSION}.json", session)
    merged = import_chronicle([str(export), str(chat)])
    files = by_file(merged)
    assert files["chat.json"].sessions == {fx.SESSION}
    assert files["chat.json"].written == 0
    assert files["chat.json"].duplicates == sum(RICH_KINDS.values())  # its chat's events


def test_every_format_of_one_session_meets_the_hook_in_one_trace(
    tmp_path: Path, trail_home: Path
) -> None:
    user = tmp_path / "Code" / "User"
    ws = user / "workspaceStorage" / "07ef241ffb818c9c0a56c99733ce899e"
    fx.write_jsonl(ws / "chatSessions" / f"{fx.SESSION}.jsonl", fx.mutation_log(fx.chat_session()))
    fx.write_jsonl(
        ws / "GitHub.copilot-chat" / "transcripts" / f"{fx.SESSION}.jsonl", fx.transcript()
    )
    fx.write_store(ws / "GitHub.copilot-chat" / "debug-logs" / "session-store.db")
    (ws / "other-extension").mkdir()
    (ws / "other-extension" / "state.json").write_text("{}")
    payload = fx.hook_payload(
        "PreToolUse",
        tool_name="copilot_readFile",
        tool_input={"filePath": "/w/README.md"},
        tool_use_id="call_read_1",
    )
    subprocess.run([TRAIL, "hook", "vscode"], input=json.dumps(payload), text=True, check=True)
    report = import_chronicle([str(user)])
    assert [f.format.split(" (")[0] for f in report.files] == [
        "chatSessions .jsonl mutation log",
        "Copilot Chat transcript",
        "chronicle session-store.db",
    ]
    assert [s["key"] for s in report.sessions] == [f"vscode/{fx.SESSION}"]
    sources = Counter(e["source"] for e in trace(trail_home))
    assert set(sources) == {"hook", "transcript", "events-log", "chronicle"}
    assert import_chronicle([str(user)]).events_written == 0


def test_discovery_per_platform(tmp_path: Path) -> None:
    for rel in (
        ".config/Code/User",
        ".config/Code - Insiders/User",
        "Library/Application Support/Code/User",
        "AppData/Roaming/VSCodium/User",
        ".vscode-server/data/User",
    ):
        (tmp_path / rel).mkdir(parents=True)
    home = {"HOME": str(tmp_path)}
    linux = user_folders(home, "linux")
    assert linux == [
        str(tmp_path / ".config/Code/User"),
        str(tmp_path / ".config/Code - Insiders/User"),
        str(tmp_path / ".vscode-server/data/User"),
    ]
    assert user_folders(home, "darwin")[0] == str(
        tmp_path / "Library/Application Support/Code/User"
    )
    win = {"USERPROFILE": str(tmp_path), "APPDATA": str(tmp_path / "AppData" / "Roaming")}
    assert user_folders(win, "win32")[0] == str(tmp_path / "AppData/Roaming/VSCodium/User")


def test_discover_classifies_and_orders(tmp_path: Path) -> None:
    ws = tmp_path / "workspaceStorage" / "abc"
    fx.write_json(ws / "chatSessions" / "a.json", {})
    fx.write_jsonl(ws / "chatSessions" / "a.jsonl", [])
    fx.write_json(tmp_path / "globalStorage" / "emptyWindowChatSessions" / "b.json", {})
    fx.write_jsonl(ws / "GitHub.copilot-chat" / "transcripts" / "a.jsonl", [])
    fx.write_json(ws / "GitHub.copilot-chat" / "unrelated.json", {})
    kinds = [(k, Path(p).relative_to(tmp_path).as_posix()) for k, p in discover([str(tmp_path)])]
    assert kinds == [
        ("mutation-log", "workspaceStorage/abc/chatSessions/a.jsonl"),
        ("chat-json", "globalStorage/emptyWindowChatSessions/b.json"),
        ("chat-json", "workspaceStorage/abc/chatSessions/a.json"),
        ("transcript", "workspaceStorage/abc/GitHub.copilot-chat/transcripts/a.jsonl"),
    ]


def test_nothing_found_exits_1(tmp_path: Path) -> None:
    done = subprocess.run(
        [TRAIL, "chronicle", "import", "--path", str(tmp_path)], capture_output=True, text=True
    )
    assert done.returncode == 1 and "No VS Code chat records found" in done.stderr


def test_session_id_decoding() -> None:
    uri = "vscode-chat-session://local/YzhkYTIyMzAtZjNmZC00YTdmLTg5NzEtZGU4MGUwOGJkOThm"
    assert decode_session_id(uri) == (fx.SESSION, "local")
    assert encode_session_id(fx.SESSION) == uri
    assert decode_session_id("plain-id") == ("plain-id", None)
    assert decode_session_id("vscode-chat-session://local/%%%") == (
        "vscode-chat-session://local/%%%",
        None,
    )
    assert decode_session_id("vscode-chat-session://local/AAEC")[1] is None  # not printable


@pytest.mark.parametrize(
    "name, kinds, error",
    [
        ("chatSessions-sample-session-1.json", {"prompt": 2, "agent_stop": 2}, None),
        ("chatSessions-sample-session-2.json", {"prompt": 3, "agent_stop": 3}, None),
        ("chatSessions-sample-session-3.json", {"prompt": 1, "agent_stop": 1}, None),
        ("chatSessions-fixture-with-thinking.json", {"prompt": 3, "agent_stop": 3}, None),
        ("chatSessions-incremental-example.jsonl", {"prompt": 1}, None),
        ("chatreplay-export-first-2-prompts.json", {}, "a Copilot Chat debug replay export"),
        ("session-file-schema-doc.json", {}, "no top-level requests array"),
    ],
)
def test_shared_samples(
    samples: Path, name: str, kinds: dict[str, int], error: str | None, trail_home: Path
) -> None:
    report = import_chronicle([str(SAMPLES / "vscode" / name)])
    (f,) = report.files
    assert dict(f.kinds) == kinds
    assert (f.error or "").startswith(error or "") and f.ok == (error is None)


@pytest.mark.parametrize("hook_call_id", ["call_read_1", "call_read_1__vscode-7"])
def test_a_hooked_and_imported_session_is_one_session(
    tmp_path: Path, trail_home: Path, hook_call_id: str
) -> None:
    """Hooks for liveness, the chat session for truth: one call seen by both is one action,
    with both sources as provenance (docs/reconciliation.md), where the call ids agree. The
    hook may send Copilot Chat's internal id (``__vscode-<n>`` appended): it is the same call."""
    read = {
        "tool_name": "copilot_readFile",
        "tool_input": {"filePath": "/w/README.md"},
        "tool_use_id": hook_call_id,
    }
    for payload in (
        fx.hook_payload("UserPromptSubmit", prompt="Read README.md and run the tests"),
        fx.hook_payload("PreToolUse", **read),
        fx.hook_payload("PostToolUse", **read, tool_response="# Demo\n"),
    ):
        subprocess.run([TRAIL, "hook", "vscode"], input=json.dumps(payload), text=True, check=True)
    chat = fx.write_json(tmp_path / "chatSessions" / f"{fx.SESSION}.json", fx.chat_session())
    assert import_chronicle([str(chat)]).files[0].ok
    shown = subprocess.run(
        [TRAIL, "show", fx.SESSION, "--json"], capture_output=True, text=True, check=True
    )
    events = json.loads(shown.stdout)["events"]
    mine = [e for e in events if e.get("call_id") == "call_read_1"]
    assert [e["kind"] for e in mine] == ["tool_call", "tool_result"]
    assert all(sorted(e["sources"]) == ["hook", "transcript"] for e in mine)
    assert mine[1]["ok"] is True and mine[0]["input"]["startLine"] == 1  # the file's truth
    prompts = [e for e in events if e["kind"] == "prompt"]
    assert len(prompts) == 3 and sorted(prompts[0]["sources"]) == ["hook", "transcript"]
