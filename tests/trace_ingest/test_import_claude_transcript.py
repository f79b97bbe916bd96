"""`trail import claude-code`: Claude Code transcripts -> the same traces the hook writes."""

from __future__ import annotations

import json
import os
import secrets
import string
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import TRAIL, read_trace_lines, run_hook
from trace_ingest.errors import AdapterError, TrailError
from trace_ingest.events import LINE_PREFIX, validate
from trace_ingest.importers._pipeline import ImportReport, normalize_ts
from trace_ingest.importers.claude_transcript import (
    ClaudeTranscriptImporter,
    find_transcripts,
    import_transcripts,
)
from trace_ingest.paths import session_key, trace_path

REAL_SID = "29ccd257-68b1-427f-ae5f-6524b7cb6f20"


def cc(samples: Path) -> Path:
    return samples / "claude-code"


def trail(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [TRAIL, *args], capture_output=True, text=True, timeout=120, check=False
    )
    if check:
        assert result.returncode == 0, result.stderr + result.stdout
    return result


def session_events(home: Path, sid: str) -> list[dict[str, Any]]:
    path = Path(trace_path(str(home), "claude-code", session_key(sid)[0]))
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def write_jsonl(path: Path, lines: list[Any]) -> Path:
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


def line(kind: str, uuid: str, content: Any, sid: str = "sess-1", **more: Any) -> dict[str, Any]:
    role = "assistant" if kind == "assistant" else "user"
    return {
        "type": kind,
        "uuid": uuid,
        "parentUuid": None,
        "sessionId": sid,
        "timestamp": "2026-02-01T10:00:00.123Z",
        "cwd": "/work/proj",
        "message": {"role": role, "content": content},
        **more,
    }


# ---- every sample ------------------------------------------------------------------------


def all_sample_files(samples: Path) -> list[Path]:
    return sorted(p for p in cc(samples).rglob("*.jsonl"))


def test_every_sample_file_imports_and_every_line_validates(
    samples: Path, trail_home: Path
) -> None:
    files = all_sample_files(samples)
    assert len(files) > 80  # message-types, real sessions, subagents, vscode fixtures, ...
    for path in files:
        report = import_transcripts([str(path)], home=str(trail_home))
        assert report.errors == [], path
    traces = list(trail_home.glob("sessions/claude-code/*/trace.jsonl"))
    assert traces
    count = 0
    for trace in traces:
        for text in trace.read_text(encoding="utf-8").splitlines():
            assert text.startswith(LINE_PREFIX)
            event = json.loads(text)
            assert validate(event) == [], (trace, event)
            assert event["source"] == "transcript" and event["harness"] == "claude-code"
            assert event["ts"].endswith("Z") and len(event["ts"]) == 27
            count += 1
    assert count > 500


def test_named_samples_are_all_found_and_read(samples: Path, trail_home: Path) -> None:
    base = cc(samples)
    wanted = [
        base / "real-session-small-94604a7b.jsonl",
        base / "real-session-claude-p",
        base / "message-types",
        base / "edge-cases.jsonl",
        base / "dag-fork.jsonl",
        base / "hook-attachments.jsonl",
        base / "memory-sidechain.jsonl",
        base / "legacy-agent-file-agent-3430b97e.jsonl",
        base / "vscode-copilot-chat-fixtures",
    ]
    report = import_transcripts([str(p) for p in wanted], home=str(trail_home))
    assert report.errors == []
    read = {Path(f.file).name for f in report.files}
    assert "agent-a2271d1.jsonl" in read  # the subagent file under <session>/subagents/
    assert "agent-ac47f8c.jsonl" in read
    assert report.events_written > 100


# ---- mapping -------------------------------------------------------------------------------


def test_real_session_pairs_calls_with_results_and_links_its_subagent(
    samples: Path, trail_home: Path
) -> None:
    report = import_transcripts([str(cc(samples) / "real-session-claude-p")], str(trail_home))
    assert [s["session_id"] for s in report.sessions] == [REAL_SID]
    # The same folder the hook would use for this session id.
    expected = trace_path(str(trail_home), "claude-code", session_key(REAL_SID)[0])
    assert report.sessions[0]["trace"] == expected
    events = session_events(trail_home, REAL_SID)
    calls = {e["call_id"]: e for e in events if e["kind"] == "tool_call"}
    results = {e["call_id"]: e for e in events if e["kind"] in ("tool_result", "tool_error")}
    assert len(calls) >= 20
    assert set(calls) == set(results)
    for call_id, call in calls.items():
        result = results[call_id]
        assert result["tool_name"] == call["tool_name"]
        assert result["tool"] == call["tool"]
        assert result["ts"] >= call["ts"]
        assert result.get("agent_id") == call.get("agent_id")
    assert {c["tool"] for c in calls.values()} >= {"task", "shell", "read"}
    task = next(c for c in calls.values() if c["tool_name"] == "Task")
    assert task.get("agent_id") is None
    sub = [e for e in events if e.get("agent_id") == "a2271d1"]
    assert len(sub) > 20
    kinds = [e["kind"] for e in sub]
    assert kinds[0] == "subagent_start" and "subagent_stop" in kinds
    assert "prompt" not in kinds  # the Task prompt is the subagent's start, not a user prompt
    prompts = [e for e in events if e["kind"] == "prompt"]
    assert len(prompts) == 1 and prompts[0]["text"].startswith("Use the Explore task")
    stops = [e for e in events if e["kind"] == "agent_stop"]
    assert len(stops) == 1 and stops[0]["ok"] is True and stops[0]["text"]
    read = next(c for c in calls.values() if c["tool_name"] == "Read")
    assert read["path"] == read["input"]["file_path"]


def test_subagent_files_take_agent_id_and_type_from_file_and_sidecar(
    samples: Path, trail_home: Path
) -> None:
    folder = cc(samples) / "real-session-with-subagents"
    import_transcripts([str(folder)], str(trail_home))
    events = session_events(trail_home, "ef958aa1-0e93-49f0-bb71-150f63befcd1")
    agents = {e["agent_id"]: e.get("agent_type") for e in events if e.get("agent_id")}
    assert len(agents) == 6
    assert set(agents.values()) == {"general-purpose"}  # from agent-<id>.meta.json
    assert sum(1 for e in events if e["kind"] == "subagent_start") == 6
    assert any(e["kind"] == "skill_loaded" for e in events)


def test_legacy_agent_file_and_sidechain_lines(samples: Path, trail_home: Path) -> None:
    import_transcripts(
        [str(cc(samples) / "legacy-agent-file-agent-3430b97e.jsonl")], str(trail_home)
    )
    legacy = session_events(trail_home, "7acd37a8-2745-4b58-a8a9-46164b22ad9e")
    assert legacy and all(e.get("agent_id") == "3430b97e" for e in legacy)
    import_transcripts([str(cc(samples) / "memory-sidechain.jsonl")], str(trail_home))
    mem = session_events(trail_home, "mem_sc")
    kinds = [e["kind"] for e in mem]
    assert kinds.count("agent_stop") == 1  # main agent's "Subagent done."
    assert kinds.count("subagent_stop") == 1  # the sidechain's "Read the memory."
    read = next(e for e in mem if e["kind"] == "tool_result")
    assert read["tool_name"] == "Read" and read["ok"] is True


def test_mapping_of_kinds(tmp_path: Path, trail_home: Path) -> None:
    tool_err = "<tool_use_error>File does not exist.</tool_use_error>"
    path = write_jsonl(
        tmp_path / "sess-1.jsonl",
        [
            line("user", "u1", "fix the bug"),
            line(
                "assistant",
                "a1",
                [
                    {"type": "thinking", "thinking": "hmm", "signature": "x"},
                    {"type": "text", "text": "Let me look."},
                    {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/x"}},
                    {"type": "tool_use", "id": "t2", "name": "Skill", "input": {"skill": "pdf"}},
                    {"type": "tool_use", "id": "t3", "name": "mcp__gh__issue", "input": {}},
                ],
            ),
            line(
                "user",
                "u2",
                [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t1",
                        "content": tool_err,
                        "is_error": True,
                    }
                ],
                toolUseResult="Error: File does not exist.",
            ),
            line(
                "user",
                "u3",
                [{"type": "tool_result", "tool_use_id": "t2", "content": "loaded"}],
                toolUseResult={"success": True, "durationMs": 12},
            ),
            line("user", "u4", [{"type": "text", "text": "[Request interrupted by user]"}]),
            {
                "type": "system",
                "subtype": "compact_boundary",
                "uuid": "s1",
                "sessionId": "sess-1",
                "timestamp": "2026-02-01T10:00:01Z",
                "content": "Conversation compacted",
                "compactMetadata": {"trigger": "auto"},
            },
            line("user", "u5", "This session is being continued...", isCompactSummary=True),
            {
                "type": "attachment",
                "uuid": "m1",
                "sessionId": "sess-1",
                "timestamp": "2026-02-01T10:00:02Z",
                "attachment": {"type": "nested_memory", "path": "/work/proj/CLAUDE.md"},
            },
            {"type": "summary", "summary": "Fixing a bug", "leafUuid": "u5"},
            {
                "type": "system",
                "subtype": "api_error",
                "uuid": "s2",
                "sessionId": "sess-1",
                "timestamp": 1769940000000,
                "error": {"message": "overloaded"},
            },
            line("user", "u6", "thanks"),
            line("assistant", "a2", [{"type": "text", "text": "Done."}]),
        ],
    )
    report = import_transcripts([str(path)], str(trail_home))
    assert report.skipped == [] and report.errors == []
    events = session_events(trail_home, "sess-1")
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for e in events:
        by_kind.setdefault(e["kind"], []).append(e)
    assert [e["text"] for e in by_kind["prompt"]] == ["fix the bug", "thanks"]
    assert [(c["tool_name"], c["tool"]) for c in by_kind["tool_call"]] == [
        ("Read", "read"),
        ("Skill", "skill"),
        ("mcp__gh__issue", "mcp"),
    ]
    assert by_kind["skill_loaded"][0]["skill"] == "pdf"
    assert by_kind["skill_loaded"][0]["call_id"] == "t2"
    err = by_kind["tool_error"][0]
    assert (err["call_id"], err["ok"], err["error"]) == ("t1", False, "File does not exist.")
    assert err["extra"]["toolUseResult"] == "Error: File does not exist."
    ok = by_kind["tool_result"][0]
    assert (ok["ok"], ok["duration_ms"], ok["output"]) == (True, 12.0, "loaded")
    stops = by_kind["agent_stop"]
    assert stops[0]["interrupted"] is True and stops[0]["ok"] is False
    assert stops[1]["text"] == "Done." and stops[1]["ok"] is True
    # one compaction: the boundary line, with the summary line's text
    (compaction,) = by_kind["compaction"]
    assert compaction["text"] == "This session is being continued..."
    assert compaction["extra"]["boundary_text"] == "Conversation compacted"
    assert compaction["extra"]["trigger"] == "auto"
    assert compaction["uuid"] == "s1" and compaction["extra"]["summary_uuid"] == "u5"
    assert err["status"] == "failed" and ok["status"] == "ok"
    assert by_kind["guide_loaded"][0]["path"] == "/work/proj/CLAUDE.md"
    assert by_kind["notification"][0]["text"] == "overloaded"
    assert by_kind["notification"][0]["ts"] == "2026-02-01T10:00:00.000000Z"  # epoch ms
    summary = next(e for e in by_kind["other"] if e.get("text") == "Fixing a bug")
    assert summary["ts"] == "2026-02-01T10:00:02.000000Z"  # no timestamp: the previous line's
    assert summary["extra"]["timestamp_inferred"] is True
    # "Let me look." was narration before tool calls; "hmm" was thinking: neither recorded.
    assert report.not_recorded == {"text": 1, "thinking": 1}
    assert all(e["ts"] == "2026-02-01T10:00:00.123000Z" for e in by_kind["tool_call"])


def test_session_seen_by_hook_and_importer_is_one_session(tmp_path: Path, trail_home: Path) -> None:
    sid = "shared-0001"
    hook = run_hook(
        {
            "session_id": sid,
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "ls"},
            "tool_use_id": "toolu_1",
        }
    )
    assert hook.returncode == 0
    path = write_jsonl(
        tmp_path / f"{sid}.jsonl",
        [
            line("user", "u1", "list files", sid=sid),
            line(
                "assistant",
                "a1",
                [{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}}],
                sid=sid,
            ),
        ],
    )
    import_transcripts([str(path)], str(trail_home))
    traces = list(trail_home.glob("sessions/claude-code/*/trace.jsonl"))
    assert len(traces) == 1
    events = read_trace_lines(trail_home)
    assert {e["source"] for e in events} == {"hook", "transcript"}
    assert {e["call_id"] for e in events if e["kind"] == "tool_call"} == {"toolu_1"}


# ---- idempotence ----------------------------------------------------------------------------


def test_reimport_adds_nothing(samples: Path, trail_home: Path) -> None:
    first = import_transcripts([str(cc(samples))], str(trail_home))
    assert first.events_written > 500
    snapshot = {p: p.read_bytes() for p in trail_home.glob("sessions/**/trace.jsonl")}
    second = import_transcripts([str(cc(samples))], str(trail_home))
    assert second.events_written == 0
    assert second.events_already_present == first.events_written
    assert {p: p.read_bytes() for p in trail_home.glob("sessions/**/trace.jsonl")} == snapshot
    ids = [e["id"] for e in read_trace_lines(trail_home)]
    assert len(ids) == len(set(ids))


def test_growing_transcript_imports_only_new_lines(tmp_path: Path, trail_home: Path) -> None:
    path = write_jsonl(tmp_path / "grow.jsonl", [line("user", "u1", "one", sid="grow")])
    assert import_transcripts([str(path)], str(trail_home)).events_written == 1
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(line("user", "u2", "two", sid="grow")) + "\n")
    again = import_transcripts([str(path)], str(trail_home))
    assert (again.events_written, again.events_already_present) == (1, 1)
    assert [e["text"] for e in session_events(trail_home, "grow")] == ["one", "two"]


def test_torn_trace_line_does_not_swallow_imported_event(tmp_path: Path, trail_home: Path) -> None:
    trace = Path(trace_path(str(trail_home), "claude-code", "torn"))
    trace.parent.mkdir(parents=True)
    trace.write_text('{"v":1,"id":"0123', encoding="utf-8")  # a killed writer's torn line
    path = write_jsonl(tmp_path / "torn.jsonl", [line("user", "u1", "hi", sid="torn")])
    import_transcripts([str(path)], str(trail_home))
    lines = trace.read_text(encoding="utf-8").splitlines()
    assert lines[0] == '{"v":1,"id":"0123'
    assert json.loads(lines[1])["text"] == "hi"


# ---- bad input ----------------------------------------------------------------------------


def test_malformed_sample_lines_are_reported_and_the_rest_imported(
    samples: Path, trail_home: Path
) -> None:
    edge = cc(samples) / "edge-cases.jsonl"
    truncated = cc(samples) / "agentsview-truncated.jsonl"
    report = import_transcripts([str(edge), str(truncated)], str(trail_home))
    reasons = {(Path(s.file).name, s.line): s.reason for s in report.skipped}
    assert reasons[("edge-cases.jsonl", 13)] == "JSON value is a string, not an object"
    assert reasons[("edge-cases.jsonl", 14)] == 'object has no "type" field'
    assert reasons[("edge-cases.jsonl", 15)] == "JSON value is a number, not an object"
    assert reasons[("edge-cases.jsonl", 16)] == "JSON value is an array, not an object"
    assert reasons[("agentsview-truncated.jsonl", 3)].startswith("truncated last line")
    assert len(reasons) == 5
    edge_lines = sum(1 for _ in edge.open("rb"))
    edge_file = next(f for f in report.files if f.file == str(edge))
    assert edge_file.lines == edge_lines and edge_file.skipped == 4
    assert edge_file.written > 10
    assert session_events(trail_home, "edge_cases")
    assert report.as_dict()["lines_skipped"] == 5


def test_invalid_utf8_huge_and_broken_lines(tmp_path: Path, trail_home: Path) -> None:
    trail_home.mkdir(parents=True, exist_ok=True)
    (trail_home / "config.json").write_text(json.dumps({"capture": {"max_payload_bytes": 4096}}))
    good = json.dumps(line("user", "u1", "hello", sid="bad")).encode()
    huge = json.dumps(line("user", "u2", "x" * 10_000, sid="bad")).encode()
    utf8 = json.dumps(line("user", "u3", "caf", sid="bad")).encode().replace(b"caf", b"caf\xff")
    data = b"\n".join(
        [good, b"{not json", utf8, huge, b"", b'{"type": 5}', good.replace(b"u1", b"u4")]
    )
    path = tmp_path / "bad.jsonl"
    path.write_bytes(data + b"\n" + b'{"type":"user","mess')  # no final newline
    report = import_transcripts([str(path)], str(trail_home))
    reasons = {s.line: s.reason for s in report.skipped}
    assert reasons[2].startswith("malformed JSON:")
    assert reasons[3].startswith("invalid UTF-8 at byte")
    assert reasons[4].startswith("line of ") and "max_payload_bytes (4096)" in reasons[4]
    assert reasons[6].startswith('"type" is 5')
    assert reasons[8].startswith("truncated last line")
    assert set(reasons) == {2, 3, 4, 6, 8}  # the blank line 5 holds nothing
    assert [e["text"] for e in session_events(trail_home, "bad")] == ["hello", "hello"]
    assert all(s.file == str(path) for s in report.skipped)


def test_missing_path_raises_and_cli_reports_it(tmp_path: Path) -> None:
    with pytest.raises(TrailError, match="no such file"):
        find_transcripts([str(tmp_path / "nope.jsonl")])
    result = trail("import", "claude-code", str(tmp_path / "nope.jsonl"), check=False)
    assert result.returncode == 1
    assert "Error:" in result.stderr and "no such file" in result.stderr


def test_unreadable_file_is_an_adapter_error(tmp_path: Path, trail_home: Path) -> None:
    importer = ClaudeTranscriptImporter(str(trail_home))
    with pytest.raises(AdapterError, match="cannot read"):
        importer.import_file(str(tmp_path))  # a folder cannot be read as a file
    if os.geteuid() != 0:
        locked = write_jsonl(tmp_path / "locked.jsonl", [line("user", "u1", "hi")])
        locked.chmod(0)
        report = import_transcripts([str(locked)], str(trail_home))
        assert report.errors and "cannot read" in report.errors[0]["error"]
        result = trail("import", "claude-code", str(locked), check=False)
        assert result.returncode == 1 and "cannot read" in result.stderr


# ---- bounds and secrets ---------------------------------------------------------------------


def test_long_fields_are_cut_like_the_hook(tmp_path: Path, trail_home: Path) -> None:
    trail_home.mkdir(parents=True, exist_ok=True)
    (trail_home / "config.json").write_text(json.dumps({"capture": {"max_field_chars": 300}}))
    path = write_jsonl(tmp_path / "long.jsonl", [line("user", "u1", "y" * 1000, sid="long")])
    import_transcripts([str(path)], str(trail_home))
    (event,) = session_events(trail_home, "long")
    assert event["text"].startswith("y" * 300 + "…[trail: truncated, ")
    assert event["text"].endswith("+ chars cut]")
    assert event["truncated"] == {"text": 700}


def test_generated_secret_never_reaches_trail_home(tmp_path: Path, trail_home: Path) -> None:
    alnum = string.ascii_letters + string.digits
    secret = "gh" + "p_" + "".join(secrets.choice(alnum) for _ in range(36))
    sid = "secret-session"
    path = write_jsonl(
        tmp_path / f"{sid}.jsonl",
        [
            line("user", "u1", f"use token {secret} to push", sid=sid),
            line(
                "assistant",
                "a1",
                [
                    {
                        "type": "tool_use",
                        "id": "t1",
                        "name": "Bash",
                        "input": {"command": f"GITHUB_TOKEN={secret} git push"},
                    }
                ],
                sid=sid,
            ),
            line(
                "user",
                "u2",
                [{"type": "tool_result", "tool_use_id": "t1", "content": f"token={secret}"}],
                sid=sid,
                toolUseResult={"stdout": secret, "stderr": ""},
            ),
        ],
    )
    result = trail("import", "claude-code", str(path), "--json")
    report = json.loads(result.stdout)
    assert report["events_written"] == 3
    assert report["redactions"], "scrubber redacted nothing"
    trail("sync")
    trail("sessions", "--json")
    needle = secret.encode()
    files = [p for p in trail_home.rglob("*") if p.is_file()]
    assert any(p.name == "trail.db" for p in files)
    for p in files:
        assert needle not in p.read_bytes(), p
    events = session_events(trail_home, sid)
    assert all(e.get("redactions") for e in events)


# ---- CLI ------------------------------------------------------------------------------------


def test_cli_import_then_sync_lists_the_session(samples: Path, trail_home: Path) -> None:
    folder = cc(samples) / "real-session-claude-p"
    result = trail("import", "claude-code", str(folder), "--task", "explore-repo", "--json")
    report = json.loads(result.stdout)
    assert report["files_read"] == 2
    assert report["events_written"] > 40 and report["events_already_present"] == 0
    assert report["task"] == "explore-repo"
    assert report["task_commands"] == [f"trail eval task claude-code/{REAL_SID} explore-repo"]
    assert report["lines_skipped"] == 0
    again = json.loads(trail("import", "claude-code", str(folder), "--json").stdout)
    assert again["events_written"] == 0
    assert again["events_already_present"] == report["events_written"]
    trail("sync")
    rows = json.loads(trail("sessions", "--json").stdout)
    row = next(r for r in rows if r["session_id"] == REAL_SID)
    assert row["harness"] == "claude-code"
    assert row["event_count"] == report["events_written"]


def test_cli_human_report(samples: Path) -> None:
    out = trail("import", "claude-code", str(cc(samples) / "edge-cases.jsonl")).stdout
    assert "Read 1 file:" in out and "events written" in out
    assert "Skipped 4 lines:" in out
    assert "edge-cases.jsonl:13: JSON value is a string, not an object" in out
    out = trail(
        "import", "claude-code", str(cc(samples) / "edge-cases.jsonl"), "--task", "t"
    ).stdout
    assert "0 events written" in out and "already present" in out
    assert "trail eval task claude-code/edge_cases t" in out
    assert "task claude-code/edge-cases " not in out  # the summary line joined its session


def test_import_help_is_listed_without_importing(trail_home: Path) -> None:
    out = trail("--help").stdout
    assert "import" in out and "Import sessions recorded before trail was installed." in out


# ---- helpers ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("2025-11-23T04:53:43.058Z", "2025-11-23T04:53:43.058000Z"),
        ("2025-06-14T11:00:00Z", "2025-06-14T11:00:00.000000Z"),
        ("2025-06-14T13:00:00+02:00", "2025-06-14T11:00:00.000000Z"),
        ("2025-06-14T11:00:00", "2025-06-14T11:00:00.000000Z"),
        (1769940000000, "2026-02-01T10:00:00.000000Z"),
        (1769940000, "2026-02-01T10:00:00.000000Z"),
        ("[trimmed for fixture]", None),
        ("", None),
        (None, None),
        (True, None),
    ],
)
def test_normalize_ts(raw: Any, expected: str | None) -> None:
    assert normalize_ts(raw) == expected


def test_main_files_come_before_agent_files(samples: Path) -> None:
    files = find_transcripts([str(cc(samples) / "real-session-with-subagents")])
    names = [Path(f).name for f in files]
    assert names[0] == "ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"
    assert all(n.startswith("agent-") for n in names[1:]) and len(names) == 7


def test_report_as_dict_is_json(samples: Path, trail_home: Path) -> None:
    report = import_transcripts([str(cc(samples) / "dag-fork.jsonl")], str(trail_home))
    assert isinstance(report, ImportReport)
    data = json.loads(json.dumps(report.as_dict()))
    assert data["files_read"] == 1 and data["errors"] == []


def test_rule_files_in_context_keep_their_text(tmp_path: Path, trail_home: Path) -> None:
    # 2.1.328 lists the rule files in context from the start in one attachment, each with its
    # content (real-harnesses.md §3.4); L2 judges against exactly that text.
    secret = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    path = write_jsonl(
        tmp_path / "sess-g.jsonl",
        [
            {
                "type": "attachment",
                "uuid": "i1",
                "sessionId": "sess-g",
                "timestamp": "2026-02-01T10:00:00Z",
                "attachment": {
                    "type": "instructions",
                    "files": [
                        {"path": "/work/proj/CLAUDE.md", "type": "Project", "content": "Use pnpm."},
                        {
                            "path": "/home/u/.claude/CLAUDE.md",
                            "type": "User",
                            "content": f"token {secret}",
                        },
                    ],
                },
            },
            line("user", "u1", "go", sid="sess-g"),
        ],
    )
    report = import_transcripts([str(path)], str(trail_home))
    assert report.errors == []
    guides = [e for e in session_events(trail_home, "sess-g") if e["kind"] == "guide_loaded"]
    assert [(g["path"], g["text"][:9]) for g in guides] == [
        ("/work/proj/CLAUDE.md", "Use pnpm."),
        ("/home/u/.claude/CLAUDE.md", "token [RE"),
    ]
    assert secret not in json.dumps(guides)  # scrubbed like every field


def test_the_first_session_id_is_found_wherever_it_is_in_the_first_mib(tmp_path: Path) -> None:
    """Read 64 KiB at a time, the head still answers as one read of the first MiB would:
    an id past the first pieces, one cut by a piece's end, none past the MiB."""
    from trace_ingest.importers.claude_transcript import _first_session_id

    line = b'{"type": "user", "sessionId": "s-42"}\n'
    for lead in (0, 10, (64 << 10) - 20, (64 << 10) - 3, 200_000, (1 << 20) - len(line) - 1):
        path = tmp_path / f"t{lead}.jsonl"
        path.write_bytes(b"#" * lead + line)
        assert _first_session_id(str(path)) == "s-42", lead
    path.write_bytes(b"#" * (1 << 20) + line)
    assert _first_session_id(str(path)) is None
    path.write_bytes(b'{"sessionId": "a"} {"session_id": "b"}')
    assert _first_session_id(str(path)) == "a"
