"""`trail import vibe`: Vibe 3.0.1's unified session store and 2.x folders -> trace events.

``data/vibe-3.0.1/`` holds two stores the real Vibe 3.0.1 wrote in the rig (scenarios
``subagent`` and ``read_shell_failure``), cut to the files the importer reads (CURRENT, the
current generation's manifest and projection-state, its chunks, meta.json).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import TRAIL, read_trace_lines
from trace_ingest.events import validate
from trace_ingest.importers.vibe_store import (
    LegacyReader,
    UnifiedReader,
    find_sessions,
    iso_ms,
)

DATA = Path(__file__).parent / "data" / "vibe-3.0.1"
SUB = "2df68db3-e078-0820-b452-6d20861bc6dd"  # run_typescript -> agents.spawn, wait, bash
CHILD = "child-21de204dce7c979392e46863"
FAIL = "b1f7d7cb-2b6f-77f3-6449-1f7d4957f3aa"  # read, bash exit 2, read of a missing file
NOW = "2026-12-01T12:00:00.000000Z"


def trail(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TRAIL, *args], capture_output=True, text=True, timeout=120)


def import_json(*paths: Path) -> tuple[int, dict[str, Any]]:
    done = trail("import", "vibe", *map(str, paths), "--json")
    assert not done.stderr.strip() or done.returncode, done.stderr
    return done.returncode, json.loads(done.stdout)


@pytest.fixture
def store(tmp_path: Path) -> Path:
    copy = tmp_path / "unified"
    shutil.copytree(DATA, copy)
    return copy


def calls(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["kind"] == "tool_call"]


def test_a_store_with_a_subagent() -> None:
    read = UnifiedReader(NOW).read(str(DATA / SUB))
    assert read.problems == [] and read.session_id == SUB
    assert read.children == [str(DATA / CHILD)]
    events = read.events
    assert all(validate(e) == [] for e in events)
    assert {e["session_id"] for e in events} == {SUB}
    by_call = {e["call_id"]: e for e in calls(events)}
    spawn = [e for e in by_call.values() if e["tool_name"] == "agents.spawn"]
    [spawn_call] = spawn
    # The spawn's id is the hook's synthetic one (the effect names it: spawnCallId).
    assert spawn_call["call_id"].startswith("typescript:3:call_fake_0_0_0_")
    outer = by_call[spawn_call["call_id"].split(":")[2]]
    assert (outer["tool_name"], outer["extra"]["timestamp_inferred"]) == ("run_typescript", True)
    assert outer["ts"] < spawn_call["ts"]  # called just before the call made inside it
    [start] = [e for e in events if e["kind"] == "subagent_start"]
    assert (start["agent_id"], start["parent_call_id"]) == (CHILD, spawn_call["call_id"])
    child = [e for e in calls(events) if e.get("agent_id") == CHILD]
    assert [(e["tool_name"], e["tool"]) for e in child] == [("file_system.bash", "shell")]
    [stop] = [e for e in events if e["kind"] == "subagent_stop"]
    assert stop["agent_id"] == CHILD and stop["ts"] > child[0]["ts"]
    main = [e["tool_name"] for e in calls(events) if not e.get("agent_id")]
    assert sorted(main) == sorted(
        ["run_typescript", "agents.spawn", "self.wait", "file_system.bash"]
    )
    # What no hook can see is marked so (a gap graders do not count): the subagent's calls and
    # run_typescript itself; the calls hooks do see are not.
    blind = {e["call_id"] for e in events if e.get("extra", {}).get("hooks_blind")}
    assert blind == {child[0]["call_id"], outer["call_id"]}
    [prompt] = [e for e in events if e["kind"] == "prompt" and not e.get("agent_id")]
    assert prompt["text"] == "Ask a helper to check the build."
    assert [e["kind"] for e in events].count("agent_stop") == 1


def test_outcomes_exit_codes_and_call_ids_from_the_checkpoint() -> None:
    events = UnifiedReader(NOW).read(str(DATA / FAIL)).events
    results = [e for e in events if e["kind"] in ("tool_result", "tool_error")]
    assert [(e["tool_name"], e["status"], e["ok"]) for e in results] == [
        ("file_system.read_file", "ok", True),
        ("file_system.bash", "ok", True),  # exit 2 is a success to Vibe 3.0.1 ...
        ("file_system.read_file", "failed", False),
    ]
    assert results[1]["extra"]["exit_code"] == 2  # ... and the code is kept
    assert results[2]["error"].startswith("File not found at:")
    ids = [e["call_id"] for e in calls(events)]
    assert [i.split("_")[3] for i in ids] == ["0", "1", "2"]  # call_fake_0_<step>_0_<rand>
    assert calls(events)[0]["input"] == {"file_path": results[0]["output"]["path"]}
    times = [e["ts"] for e in events]
    assert times == sorted(times)  # projection entries carry the harness's own times


ODD = Path(__file__).parent / "data" / "vibe-3.0.1-odd-outputs"
ODD_SID = "2b8d96db-f357-5a9b-2e88-8199595aaeb7"  # seq 1 4000; sleep past its timeout; frobnicate


def test_an_over_long_output_is_read_from_the_file_vibe_saved_it_to(tmp_path: Path) -> None:
    """3.0.1 keeps a result over 16 000 characters in the store only as an excerpt under a
    notice naming ``<store>/tool-results/bash-<call id>.json``: the whole output, and the exit
    code, come from that file (the store's own, wherever the store now is)."""
    moved = tmp_path / ODD_SID
    shutil.copytree(ODD / ODD_SID, moved)  # the notice names the folder it was written in
    events = UnifiedReader(NOW).read(str(moved)).events
    first = next(e for e in events if e["kind"] == "tool_result")
    assert first["output"]["stdout"].splitlines()[-1] == "4000"
    assert first["extra"]["exit_code"] == 0 and first["extra"]["output_from"] == "tool-results"
    # Without the file, the excerpt stays the output, and nothing is made up.
    for saved in (moved / "tool-results").iterdir():
        saved.unlink()
    first = next(
        e for e in UnifiedReader(NOW).read(str(moved)).events if e["kind"] == "tool_result"
    )
    assert "exit_code" not in first["extra"] and "output_from" not in first["extra"]


def test_a_call_to_a_tool_vibe_does_not_have() -> None:
    """The core answers `InvalidToolCall` without running anything: no effect, no hook. The call
    is failed, marked hooks_blind, and placed after the call before it settled (a timed-out
    shell that ran 1 s), not at that call's start."""
    events = UnifiedReader(NOW).read(str(ODD / ODD_SID)).events
    assert all(validate(e) == [] for e in events)
    [unknown] = [e for e in calls(events) if e["tool_name"] == "frobnicate"]
    [error] = [e for e in events if e["kind"] == "tool_error"]
    assert error["call_id"] == unknown["call_id"] and error["status"] == "failed"
    assert "unsupported top-level tool" in error["error"]
    assert unknown["extra"]["hooks_blind"] == error["extra"]["hooks_blind"]
    timed_out = next(e for e in events if e.get("extra", {}).get("exit_code") == -9)
    after = next(e for e in calls(events) if e["input"] == {"command": "echo after-unknown"})
    assert timed_out["ts"] < unknown["ts"] <= error["ts"] < after["ts"]


def test_import_is_idempotent_and_reports_sessions(store: Path) -> None:
    code, first = import_json(store)
    assert code == 0 and first["harness"] == "vibe" and first["source"] == "transcript"
    assert first["events_written"] > 20 and not first["warnings"]
    assert sorted(s["session_id"] for s in first["sessions"]) == sorted([SUB, FAIL])
    code, again = import_json(store)
    assert (code, again["events_written"]) == (0, 0)
    assert again["events_already_present"] == first["events_written"]
    # A child folder given on its own lands in the same session, adding nothing new.
    code, child = import_json(store / CHILD)
    assert (code, child["events_written"]) == (0, 0)


def test_a_missing_chunk_is_named_and_the_rest_imported(store: Path) -> None:
    manifest = next((store / FAIL / "generations").glob("*/manifest.json"))
    lost = json.loads(manifest.read_text())["projection_state"]["chunks"][0]
    (store / FAIL / "chunks" / f"{lost}.json").unlink()
    code, report = import_json(store / FAIL)
    assert code == 0
    [warning] = report["warnings"]
    assert f"chunks/{lost}.json" in warning and "projection_state chunk 1 of 1" in warning
    assert "missing" in warning
    events = read_trace_lines(Path(__import__("os").environ["TRAIL_HOME"]))
    # The checkpoint still gives every model call and its outcome (no times: inferred).
    assert len(calls(events)) == 3
    assert {e["extra"].get("timestamp_inferred") for e in calls(events)} == {True}


def test_a_corrupt_chunk_is_refused_by_its_digest(store: Path) -> None:
    chunk = next((store / FAIL / "chunks").glob("*.json"))
    chunk.write_bytes(chunk.read_bytes().replace(b"echo", b"ECHO"))
    _code, report = import_json(store / FAIL)
    assert any("does not match its sha256 name" in w for w in report["warnings"])


def test_a_missing_subagent_store_is_named(store: Path) -> None:
    shutil.rmtree(store / CHILD)
    code, report = import_json(store / SUB)
    assert code == 0
    assert any(CHILD in w and "store is missing" in w for w in report["warnings"])


def test_nothing_readable_exits_1(store: Path, tmp_path: Path) -> None:
    (store / FAIL / "CURRENT").write_text('{"store_format": "someone.else/v9"}')
    code, report = import_json(store / FAIL)
    assert code == 1 and "store_format" in json.dumps(report["errors"] + report["warnings"])
    empty = tmp_path / "nothing-here"
    empty.mkdir()
    code, report = import_json(empty)
    assert code == 1 and report["errors"]


def test_a_symlinked_chunk_is_not_followed(store: Path, tmp_path: Path) -> None:
    chunk = next((store / FAIL / "chunks").glob("*.json"))
    outside = tmp_path / "outside.json"
    shutil.move(str(chunk), outside)
    chunk.symlink_to(outside)
    _code, report = import_json(store / FAIL)
    assert any("symbolic link" in w for w in report["warnings"])


def test_find_sessions_walks_a_vibe_home(store: Path) -> None:
    found = find_sessions([str(store.parent)])
    assert sorted(Path(f).name for _, f in found) == sorted([SUB, FAIL])  # child read with SUB
    assert iso_ms(1796125137792) == "2026-12-01T11:38:57.792000Z"


def test_find_sessions_lists_a_child_store_without_its_parent(store: Path, tmp_path: Path) -> None:
    # A child store whose folder holds no parent store has no one to read it with: listed.
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.move(str(store / CHILD), alone / CHILD)
    found = find_sessions([str(store.parent), str(alone)])
    assert sorted(Path(f).name for _, f in found) == sorted([SUB, FAIL, CHILD])


# ---- 2.x -----------------------------------------------------------------------------------


def test_2x_folder_with_tools(samples: Path) -> None:
    read = LegacyReader(NOW).read(str(samples / "vibe" / "agentsview-session-with-tools"))
    assert read.problems == [] and read.session_id == "def456ghi-0000-0000-0000-000000000000"
    kinds = [e["kind"] for e in read.events]
    assert kinds == ["prompt", "tool_call", "tool_result", "agent_stop"]
    call = read.events[1]
    assert (call["tool_name"], call["tool"], call["call_id"]) == ("read_file", "read", "call_001")
    assert {e["ts"] for e in read.events} == {"2026-06-13T11:00:00.000000Z"}
    assert all(validate(e) == [] for e in read.events)


def test_2x_bad_lines_are_named(tmp_path: Path) -> None:
    folder = tmp_path / "session_20260203_191451_b9383361"
    folder.mkdir()
    (folder / "meta.json").write_text('{"session_id": "s-1", "start_time": "2026-02-03T19:14:51Z"}')
    (folder / "messages.jsonl").write_bytes(
        b'{"role":"user","content":"hi"}\n'
        b'{"role":"assistant","tool_calls":[{"id":"c1","function":{"name":"bash",'
        b'"arguments":"{\\"command\\":\\"ls\\"}"}}]}\n'
        b'{"role":"tool","tool_call_id":"c1","name":"bash","content":"<tool_error>bash failed: '
        b'boom</tool_error>"}\n'
        b"\xff\xfe not utf-8\n"
        b'{"role":"weird"}\n'
        b'{"role":"assistant","content":"do'
    )
    read = LegacyReader(NOW).read(str(folder))
    reasons = [p.reason for p in read.problems]
    assert reasons == ["line 4: not UTF-8 (byte 0)", "line 6: truncated"]
    [result] = [e for e in read.events if e["kind"] == "tool_error"]
    assert (result["status"], result["ok"], result["error"]) == (
        "failed",
        False,
        "bash failed: boom",
    )
    assert read.not_recorded == {"message role 'weird'": 1}
    code, report = import_json(folder)
    assert code == 0 and len(report["warnings"]) == 2


def test_2x_lines_stream_and_an_oversize_line_is_never_held(tmp_path: Path) -> None:
    import tracemalloc

    from trace_ingest.importers.vibe_store import read_lines

    path = tmp_path / "messages.jsonl"
    with path.open("wb") as fh:
        fh.write(b'{"role":"user","content":"hi"}\n')
        fh.write(b'{"role":"assistant","content":"' + b"x" * (32 << 20) + b'"}\n')  # 32 MiB
        for _ in range(20_000):
            fh.write(b'{"role":"assistant","content":"ok"}\n')
    tracemalloc.start()
    lines = 0
    oversize = []
    for number, data in read_lines(str(path), limit=1 << 20):
        lines += 1
        if data is None:
            oversize.append(number)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert (lines, oversize) == (20_002, [2])
    assert peak < 8 << 20, peak  # 1 MiB buffers for the line and its drain, not 32 MiB


def test_unknown_projection_entries_are_counted(store: Path) -> None:
    chunk_dir = store / FAIL / "chunks"
    manifest_path = next((store / FAIL / "generations").glob("*/manifest.json"))
    manifest = json.loads(manifest_path.read_text())
    [sha] = manifest["projection_state"]["chunks"]
    entries = json.loads((chunk_dir / f"{sha}.json").read_text())
    entries.append({"type": "hologram", "id": "x", "createdAt": 1})
    body = json.dumps(entries, separators=(",", ":")).encode()
    import hashlib

    new = hashlib.sha256(body).hexdigest()
    (chunk_dir / f"{new}.json").write_bytes(body + b"\n")
    manifest["projection_state"]["chunks"] = [new]
    manifest_path.write_text(json.dumps(manifest))
    read = UnifiedReader(NOW).read(str(store / FAIL))
    assert read.problems == [] and read.not_recorded == {"projection entry 'hologram'": 1}


def test_memory_holds_a_chunk_and_a_batch_not_the_store(tmp_path: Path) -> None:
    """Importing a store twice the size peaks at about the same memory (the outputs, most of
    the bytes, are never all held; what grows is the model's call list)."""
    import tracemalloc

    from tests.trace_ingest.vibe_store_gen import build
    from trace_ingest.importers.vibe_store import import_paths

    peaks, sizes = [], []
    for n in (1500, 3000):
        store = build(str(tmp_path / f"vh-{n}"), n)
        size = sum(f.stat().st_size for f in Path(store, "chunks").iterdir())
        tracemalloc.start()
        report = import_paths([store], home=str(tmp_path / f"th-{n}"))
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
        assert report.events_written == 2 * n + 2 and not report.warnings
        sizes.append(size)
    assert peaks[1] < sizes[1], (peaks, sizes)  # less than the store's bytes ...
    assert peaks[1] < 1.5 * peaks[0], peaks  # ... and 2x the store is not 2x the memory


REAL_2X = Path(__file__).parent / "data" / "vibe-2.18.4"


def test_a_real_2_18_4_folder_and_its_hooks_make_one_session(tmp_path: Path) -> None:
    """The folder and hook payloads the real Vibe 2.18.4 wrote in one run: imported alone,
    then hooked and reconciled by `trail show` (the hooks' transcript_path names the copy)."""
    folder = tmp_path / "logs" / "session"
    shutil.copytree(REAL_2X, folder)
    session = next(folder.glob("session_*"))
    read = LegacyReader(NOW).read(str(session))
    assert read.problems == [] and read.session_id == "6c7e3d22-3aa7-56f4-dc82-513b99a3dde8"
    results = [e for e in read.events if e["kind"] in ("tool_result", "tool_error")]
    assert [(e["tool_name"], e["status"]) for e in results] == [
        ("read_file", "failed"),  # "Unknown tool 'read_file'" in 2.18.4
        ("bash", "failed"),
        ("read_file", "failed"),
        ("bash", "ok"),
        ("bash", "ok"),
    ]
    assert results[1]["extra"]["exit_code"] == 2 and results[3]["extra"]["exit_code"] == 0
    old = "/tmp/vibe-obs/runs/v218b/home/.vibe/logs/session"
    for line in (folder / "hooks.jsonl").read_text().splitlines():
        payload = line.replace(old, str(folder))
        done = subprocess.run(
            [TRAIL, "hook", "vibe"], input=payload.encode(), capture_output=True, timeout=60
        )
        assert (done.returncode, done.stdout) == (0, b"")
    show = json.loads(trail("show", read.session_id, "--json").stdout)
    calls = [e for e in show["events"] if e["kind"] == "tool_call"]
    assert len(calls) == 5  # hooks saw 3 of them (2.18.4 runs no hook for an unknown tool)
    by_id = {e["call_id"]: e for e in calls}
    hooked = {
        json.loads(x)["tool_call_id"]
        for x in (folder / "hooks.jsonl").read_text().split("\n")
        if x and "tool_call_id" in x
    }
    assert all(set(by_id[c]["sources"]) == {"hook", "transcript"} for c in hooked)
    assert not show["disagreements"]


def test_store_json_reads_as_the_strict_parser_reads_it() -> None:
    """An integer past 64 bits stays exact (orjson alone would make it a float), as in every
    other importer (importers/orjson_exact.py); NaN is kept, not refused."""
    from trace_ingest import fastjson
    from trace_ingest.importers.vibe_store import _loads

    body = b'{"n": 123456789012345678901234567890, "x": NaN, "ok": [1, "a"]}'
    assert _loads(body) == fastjson.loads_strict(body.decode())[0]
    assert _loads(b'{"ok": [1, "a"]}') == {"ok": [1, "a"]}


def test_start_guides_found_once_are_every_store_s_guides(store: Path, tmp_path: Path) -> None:
    """Stores of one project share the start guides an import finds once (``guides``): each
    still gets its ``guide_loaded`` events (the git root's AGENTS.md, then the working
    folder's), the same as a reader of its own finds."""
    project = tmp_path / "project"
    cwd = project / "src"
    (project / ".git").mkdir(parents=True)
    cwd.mkdir()
    (project / "AGENTS.md").write_text("root rules\n")
    (cwd / "AGENTS.md").write_text("src rules\n")
    for sid in (SUB, FAIL):
        meta = store / sid / "meta.json"
        data = json.loads(meta.read_text())
        data["environment"]["working_directory"] = str(cwd)
        meta.write_text(json.dumps(data))
    shared: dict[Any, Any] = {}
    for sid in (SUB, FAIL):
        got = UnifiedReader(NOW, guides=shared).read(str(store / sid)).events
        alone = UnifiedReader(NOW).read(str(store / sid)).events
        assert got == alone
        guides = [(e["path"], e["text"]) for e in got if e["kind"] == "guide_loaded"]
        assert guides[:2] == [
            (str(project / "AGENTS.md"), "root rules\n"),
            (str(cwd / "AGENTS.md"), "src rules\n"),
        ]
    assert len(shared) == 1


def test_meta_json_missing_dangling_or_linked(store: Path, tmp_path: Path) -> None:
    """meta.json is optional: absent (or a dangling link: nothing exists there) is no problem,
    told from the failed read; a link to a file is one (never followed), as is a folder."""
    meta = store / FAIL / "meta.json"

    def meta_problems() -> list[str]:
        read = UnifiedReader(NOW).read(str(store / FAIL))
        assert read.readable
        return [p.reason for p in read.problems if p.file.endswith("meta.json")]

    assert meta.is_file() and meta_problems() == []
    outside = tmp_path / "meta-outside.json"
    shutil.move(str(meta), outside)
    assert meta_problems() == []
    meta.symlink_to(tmp_path / "nowhere.json")
    assert meta_problems() == []
    meta.unlink()
    meta.symlink_to(outside)
    assert meta_problems() == ["meta.json: cannot be opened (a symbolic link)"]
    meta.unlink()
    meta.mkdir()
    [problem] = meta_problems()
    assert problem.startswith("meta.json: ")


def test_a_symlinked_chunks_folder_is_named_for_every_chunk(store: Path, tmp_path: Path) -> None:
    chunks = store / FAIL / "chunks"
    count = len(list(chunks.glob("*.json")))
    outside = tmp_path / "chunks-outside"
    shutil.move(str(chunks), outside)
    chunks.symlink_to(outside)
    read = UnifiedReader(NOW).read(str(store / FAIL))
    linked = [p for p in read.problems if "its folder chunks/ is a symbolic link" in p.reason]
    assert count > 1 and len(linked) == count
