"""The Copilot CLI adapter against payloads captured from the real 1.0.102 and the docs' shapes.

``data/copilot-cli-1.0.102-hooks.jsonl``: every hook payload of four real runs (tests/harnesses
recipe), registered under both the camelCase and the PascalCase names, paths rewritten to
``/run``: ``{"run", "label": "camel:preToolUse", "payload"}``.
"""

from __future__ import annotations

import ast
import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from hooks import copilot_cli
from tests.conftest import TRAIL, read_trace_lines, run_hook
from tests.hooks import test_entry as entry_tests
from trace_ingest.events import validate

RECEIVED = "2026-12-01T12:00:00.000000Z"
CAPTURE = Path(__file__).parent / "data" / "copilot-cli-1.0.102-hooks.jsonl"


def captured() -> list[dict[str, Any]]:
    return [json.loads(line) for line in CAPTURE.read_text().splitlines()]


def norm(payload: dict[str, Any]) -> dict[str, Any]:
    [ev] = copilot_cli.normalize(payload, RECEIVED, "digest")
    return dict(ev)


def test_every_captured_payload_normalizes_to_a_valid_event() -> None:
    rows = captured()
    assert len(rows) == 81
    kinds: Counter[str] = Counter()
    for row in rows:
        ev = norm(row["payload"])
        assert validate(ev) == [], (row["label"], validate(ev))
        label = row["label"].split(":")[1]
        # The event is recognised from the payload alone, whichever registration fired it.
        assert copilot_cli.EVENT_KINDS[label] == ev["kind"] or ev["kind"] in ("permission",), row[
            "label"
        ]
        assert ev["ts"] != RECEIVED, row["label"]  # Copilot's own time, both shapes
        kinds[ev["kind"]] += 1
    assert set(kinds) == {
        "session_start",
        "session_end",
        "prompt",
        "other",
        "tool_call",
        "tool_result",
        "tool_error",
        "permission",
        "subagent_start",
        "subagent_stop",
        "agent_stop",
        "notification",
        "compaction",
    }


def test_both_shapes_of_one_event_agree() -> None:
    """camelCase and PascalCase registrations of one occurrence give the same facts (the
    tool name aside: PascalCase reports Claude's)."""
    rows = [r for r in captured() if r["run"] in ("r1", "r2")]
    camel = [norm(r["payload"]) for r in rows if r["label"].startswith("camel:")]
    pascal = [norm(r["payload"]) for r in rows if r["label"].startswith("pascal:")]
    camel = [e for e in camel if e["hook_event"] != "userPromptTransformed"]  # camel only
    assert len(camel) == len(pascal) == 32

    def facts(ev: dict[str, Any]) -> tuple[Any, ...]:
        return (
            ev["kind"],
            ev["session_id"],
            ev.get("agent_id"),
            ev["ts"],
            ev.get("tool"),
            json.dumps(ev.get("input"), sort_keys=True),
            ev.get("ok"),
            ev.get("status"),
        )

    assert sorted(map(repr, map(facts, camel))) == sorted(map(repr, map(facts, pascal)))
    claude_names = {e["tool_name"] for e in pascal if e.get("tool_name")}
    assert {"Read", "Bash", "Edit", "Agent"} <= claude_names
    # Except the two events 1.0.102 sends camelCase even to a PascalCase registration.
    assert {"permissionRequest", "subagentStart"} <= {e["hook_event"] for e in pascal}


def test_subagent_hooks_join_the_parent_session_in_the_childs_lane() -> None:
    rows = [r for r in captured() if r["run"] == "r2" and r["label"].startswith("camel:")]
    events = [norm(r["payload"]) for r in rows]
    parent = "d9ec09e5-0f67-46e4-882d-cc988dab65ec"
    child = "0d5499cd-dee5-4b14-8b1e-a1573865f943"
    assert {e["session_id"] for e in events} == {parent}
    # The child's own hooks had sessionId = the child: they are the child's lane here.
    raw_child = [r for r in rows if r["payload"].get("sessionId") == child]
    assert len(raw_child) == 7  # prompt, transformed, 2 pre, 2 post, agentStop
    lane = [e for e in events if e.get("agent_id") == child]
    assert Counter(e["kind"] for e in lane) == Counter(
        {
            "prompt": 1,
            "other": 1,
            "tool_call": 2,
            "tool_result": 2,
            "permission": 1,
            "agent_stop": 1,
            "subagent_start": 1,
            "subagent_stop": 1,
        }
    )
    start = next(e for e in events if e["kind"] == "subagent_start")
    assert (start["agent_type"], start["extra"]["parent_agent_id"]) == ("task", parent)
    stop = next(e for e in events if e["kind"] == "subagent_stop")
    assert stop["text"] == "Done."


def test_results_exit_codes_and_failures() -> None:
    rows = [r for r in captured() if r["run"] == "r1" and r["label"].startswith("camel:")]
    events = [norm(r["payload"]) for r in rows]
    results = [e for e in events if e["kind"] in ("tool_result", "tool_error")]
    got = [
        (e["tool_name"], e["ok"], e["status"], e.get("extra", {}).get("exit_code")) for e in results
    ]
    # bash exiting 2 is a postToolUse success; the code is read from the result text.
    assert got == [
        ("view", True, "ok", None),
        ("bash", True, "ok", 2),
        ("view", False, "failed", None),
        ("edit", True, "ok", None),
    ]
    failure = next(e for e in events if e["kind"] == "tool_error")
    assert failure["error"] == "Path does not exist"
    assert all(e["call_id"] is None for e in events if e.get("tool_name"))
    asked = [e for e in events if e["kind"] == "permission"]
    assert [(e["tool_name"], e["status"], e["ok"]) for e in asked] == [
        ("bash", "asked", None),
        ("edit", "asked", None),
    ]
    assert asked[1]["path"] == "/run/project/notes.txt"  # the permission's file_path


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("ok\n<shellId: 0 completed with exit code 0>", 0),
        ("x\n<shellId: 12 completed with exit code 127>", 127),
        ("<shellId: 1 completed with exit code -1>", -1),
        ("no marker here", None),
        ("<shellId: 1 completed with exit code abc>", None),
        (None, None),
    ],
)
def test_exit_code_from_the_result_text(text: Any, code: int | None) -> None:
    assert copilot_cli.exit_code(text) == code


@pytest.mark.parametrize(
    ("value", "iso"),
    [
        (1796125178926, "2026-12-01T11:39:38.926000Z"),
        ("2026-12-01T11:39:38.926Z", "2026-12-01T11:39:38.926000Z"),
        ("2026-12-01T11:39:38Z", "2026-12-01T11:39:38.000000Z"),
        ("2026-12-01T11:39:38.926+01:00", None),
        (True, None),
        (-5, None),
        ("yesterday", None),
    ],
)
def test_timestamps_of_both_shapes(value: Any, iso: str | None) -> None:
    assert copilot_cli.iso_of(value) == iso


def test_unreadable_timestamp_is_kept_and_stamped_on_receipt() -> None:
    ev = norm({"sessionId": "s", "timestamp": "yesterday", "cwd": "/w", "prompt": "hi"})
    assert ev["ts"] == RECEIVED and ev["extra"]["timestamp"] == "yesterday"


def test_notification_precompact_and_error_payloads() -> None:
    rows = [r for r in captured() if r["run"] in ("r4", "r5")]
    events = {r["label"] + str(i): norm(r["payload"]) for i, r in enumerate(rows)}
    notes = [e for e in events.values() if e["kind"] == "notification"]
    assert [e["extra"]["notification_type"] for e in notes] == ["shell_completed", "agent_idle"]
    assert notes[0]["text"].startswith('Shell command "bg"')
    [compaction] = [e for e in events.values() if e["kind"] == "compaction"]
    assert compaction["extra"]["trigger"] == "auto"
    [error] = [e for e in events.values() if e.get("hook_event") == "errorOccurred"]
    assert error["ok"] is False and "fake model error" in error["error"]
    assert error["extra"]["error_context"] == "model_call"
    [end] = [e for e in events.values() if e["kind"] == "session_end"]
    assert end["extra"]["reason"] == "error"


def test_older_payloads_with_string_args_and_no_session_id(
    samples: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The documented pre-1.0.11 shapes: no sessionId, toolArgs a JSON string. The session is
    the newest session-state folder whose workspace.yaml names the cwd."""
    home = tmp_path / "copilot"
    monkeypatch.setenv("COPILOT_HOME", str(home))
    for name, cwd, age in (("old-one", "/path/to/project", 100), ("new-one", "/path/to/project", 0),
                           ("elsewhere", "/other", -50)):  # fmt: skip
        folder = home / "session-state" / name
        folder.mkdir(parents=True)
        (folder / "workspace.yaml").write_text(f"id: {name}\ncwd: {cwd}\nclient_name: github/cli\n")
        log = folder / "events.jsonl"
        log.write_text("{}\n")
        os.utime(log, (1_700_000_000 - age, 1_700_000_000 - age))
    for path in sorted((samples / "copilot-cli" / "hooks").glob("docs-example-*.json")):
        payload = json.loads(path.read_text())
        if "permissionDecision" in payload:
            continue  # a hook's output, not an input
        ev = norm(payload)
        assert validate(ev) == [], path.name
        assert ev["session_id"] == "new-one", path.name
        assert ev["extra"]["session_id_source"] == "workspace.yaml", path.name
        if "toolArgs" in payload:
            assert isinstance(ev["input"], dict) and "command" in ev["input"], path.name
    # A cwd no workspace names: a provisional session, marked as such, stable for the day.
    lost = norm({"timestamp": 1704614500000, "cwd": "/nowhere", "prompt": "x"})
    again = norm({"timestamp": 1704614600000, "cwd": "/nowhere", "prompt": "y"})
    assert (
        lost["session_id"].startswith("provisional-") and lost["session_id"] == again["session_id"]
    )
    assert lost["extra"]["session_id_source"] == "provisional"


def test_a_git_root_workspace_matches_a_subfolder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "copilot"
    monkeypatch.setenv("COPILOT_HOME", str(home))
    folder = home / "session-state" / "abc"
    folder.mkdir(parents=True)
    (folder / "workspace.yaml").write_text("id: abc\ncwd: /repo\ngit_root: '/repo'\n")
    (folder / "events.jsonl").write_text("")
    assert copilot_cli.recover_session("/repo/src/deep") == ("abc", "workspace.yaml")
    assert copilot_cli.recover_session("/repository")[1] == "provisional"


def test_session_start_lists_the_rule_files_copilot_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    (project / ".github" / "instructions").mkdir(parents=True)
    (project / "AGENTS.md").write_text("Use pnpm.\n")
    (project / ".github" / "copilot-instructions.md").write_text("Be brief.\n")
    (project / ".github" / "instructions" / "py.instructions.md").write_text("Type hints.\n")
    (project / ".github" / "instructions" / "notes.md").write_text("not a rule file\n")
    monkeypatch.setenv("COPILOT_PROJECT_DIR", str(project))
    payload = {"sessionId": "s", "timestamp": 1796125178926, "cwd": str(project), "source": "new"}
    start, *guides = copilot_cli.normalize(payload, RECEIVED, "d")
    assert start["kind"] == "session_start"
    assert [(g["kind"], Path(str(g["path"])).name, g["text"]) for g in guides] == [
        ("guide_loaded", "AGENTS.md", "Use pnpm.\n"),
        ("guide_loaded", "copilot-instructions.md", "Be brief.\n"),
        ("guide_loaded", "py.instructions.md", "Type hints.\n"),
    ]
    assert all(g["ts"] == start["ts"] and g["extra"]["reason"] == "session_start" for g in guides)
    assert len({g["id"] for g in [start, *guides]}) == 4
    # Other events never look for files.
    assert len(copilot_cli.normalize({**payload, "prompt": "hi"}, RECEIVED, "d")) == 1


def test_unknown_payload_keeps_everything() -> None:
    ev = norm({"sessionId": "s", "timestamp": 1, "cwd": "/w", "brandNew": {"a": 1}})
    assert ev["kind"] == "other" and ev["extra"]["brandNew"] == {"a": 1}


# -- the real hook entry -----------------------------------------------------------------------


def test_the_hook_records_a_captured_payload_silently(trail_home: Path) -> None:
    row = next(r for r in captured() if r["label"] == "camel:postToolUse")
    done = run_hook(row["payload"], harness="copilot-cli")
    assert (done.returncode, done.stdout) == (0, b"")
    [ev] = read_trace_lines(trail_home)
    assert (ev["harness"], ev["kind"], ev["tool"]) == ("copilot-cli", "tool_result", "read")
    assert not (trail_home / "hook-errors.log").exists()


PROBE = entry_tests.PROBE.replace('"hook", "claude-code"', '"hook", "copilot-cli"')
assert "copilot-cli" in PROBE


def test_hot_path_imports_only_the_standard_library() -> None:
    import subprocess
    import sys

    row = next(r for r in captured() if r["label"] == "camel:preToolUse")
    payload = json.dumps(row["payload"]).encode()
    code = f"import sys; sys.argv_payload = {payload!r}; sys.trail_script = {TRAIL!r}\n" + PROBE
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True)
    loaded = set(ast.literal_eval(done.stdout.decode().splitlines()[-1]))
    assert "hooks.copilot_cli" in loaded
    third_party = (
        {m.split(".")[0] for m in loaded}
        - set(sys.stdlib_module_names)
        - {
            "trace_ingest",
            "hooks",
        }
    )
    assert third_party == set(), third_party
    # (``re`` is the scrubber's to decide: its prefilter may load it for a payload's long
    # token runs, such as the UUID session id every Copilot payload carries.)
    assert not loaded & {"json", "typing", "subprocess", "pathlib", "yaml"}, sorted(loaded)


def test_rule_files_past_the_bound_are_marked_on_the_session_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from trace_ingest.guides import MAX_RULE_FILES

    folder = tmp_path / "project" / ".github" / "instructions"
    folder.mkdir(parents=True)
    for n in range(MAX_RULE_FILES + 5):
        (folder / f"r{n:03d}.instructions.md").write_text(f"rule {n}\n")
    monkeypatch.setenv("COPILOT_PROJECT_DIR", str(tmp_path / "project"))
    payload = {"sessionId": "s", "timestamp": 1796125178926, "cwd": "/x", "source": "new"}
    start, *guides = copilot_cli.normalize(payload, RECEIVED, "d")
    assert len(guides) == MAX_RULE_FILES
    assert Path(str(guides[-1]["path"])).name == f"r{MAX_RULE_FILES - 1:03d}.instructions.md"
    assert f"more than {MAX_RULE_FILES} rule files" in start["extra"]["rule_files_cut"]
    # At the bound exactly, nothing is cut and nothing is marked.
    (folder / f"r{MAX_RULE_FILES:03d}.instructions.md").unlink()
    for n in range(MAX_RULE_FILES + 1, MAX_RULE_FILES + 5):
        (folder / f"r{n:03d}.instructions.md").unlink()
    start, *guides = copilot_cli.normalize(payload, RECEIVED, "d")
    assert len(guides) == MAX_RULE_FILES and "rule_files_cut" not in start.get("extra", {})
