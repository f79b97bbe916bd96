"""Guides in context (seed 002): which reached the agent, from when, with the exact text."""

from __future__ import annotations

import stat
from pathlib import Path

from scorers.guides import guide_context
from telemetry import guide_store, queries
from telemetry.canonical import canonical
from tests.conftest import run_hook
from tests.scorers.conftest import write_session
from tests.scorers.test_l2_lifecycle import T0, bash, ev
from trace_ingest.guides import text_version

SECRET = "export API_TOKEN=abc123def456ghi"


def _events(sid: str, *extra: dict[str, object]) -> list[dict[str, object]]:
    t = T0 - 3600
    return canonical(
        [
            ev(sid, "session_start", t, 0, cwd="/proj"),
            ev(sid, "guide_loaded", t + 1, 1, path="/proj/CLAUDE.md", text="root rule"),
            *bash(sid, t + 10, 10, "ls src"),
            ev(sid, "guide_loaded", t + 20, 20, path="/proj/src/CLAUDE.md", text="src rule"),
            *bash(sid, t + 30, 30, "cat src/a.py"),
            *extra,
        ]
    ).events


def test_a_guide_loaded_after_an_action_is_never_applied_to_it() -> None:
    events = _events("g-order")
    ctx = guide_context(events, "/proj")
    first, second = [e["id"] for e in events if e["kind"] == "tool_call"]
    assert [g.name for g in ctx.guides] == ["CLAUDE.md", "src/CLAUDE.md"]
    assert [g.name for g in ctx.in_force_at(first)] == ["CLAUDE.md"]
    assert [g.name for g in ctx.in_force_at(second)] == ["CLAUDE.md", "src/CLAUDE.md"]
    assert ctx.in_force_at("no-such-event") == []
    root = ctx.guides[0]
    assert root.version == text_version("root rule") and root.text == "root rule"


def test_a_changed_guide_is_a_new_version_from_its_reload_on() -> None:
    t = T0 - 3000
    events = _events(
        "g-versions",
        ev("g-versions", "guide_loaded", t, 40, path="/proj/CLAUDE.md", text="root rule v2"),
        *bash("g-versions", t + 5, 41, "make"),
        ev("g-versions", "guide_loaded", t + 9, 43, path="/proj/CLAUDE.md", text="root rule v2"),
    )
    ctx = guide_context(events, "/proj")
    assert [(g.name, g.text) for g in ctx.guides] == [
        ("CLAUDE.md", "root rule"),
        ("src/CLAUDE.md", "src rule"),
        ("CLAUDE.md", "root rule v2"),  # the same text loaded again is not a third version
    ]
    last = [e["id"] for e in events if e["kind"] == "tool_call"][-1]
    assert {g.text for g in ctx.in_force_at(last)} == {"root rule v2", "src rule"}


def test_a_skill_is_a_guide_only_once_it_was_invoked(tmp_path: Path) -> None:
    sid = "g-skills"
    t = T0 - 2000
    skill_call = {"tool_name": "Skill", "tool": "skill"}
    events = _events(
        sid,
        # "deploy" was refused by a permission rule: it never reached the agent.
        ev(sid, "tool_call", t, 50, call_id="k0", input={"skill": "deploy"}, **skill_call),
        ev(sid, "skill_loaded", t, 51, call_id="k0", skill="deploy", text="deploy body"),
        ev(sid, "permission", t + 1, 52, call_id="k0", status="refused", **skill_call),
        # "greet" was invoked: a guide from its load on.
        ev(sid, "tool_call", t + 5, 53, call_id="k1", input={"skill": "greet"}, **skill_call),
        ev(sid, "skill_loaded", t + 5, 54, call_id="k1", skill="greet", text="greet body"),
        ev(sid, "tool_result", t + 6, 55, call_id="k1", ok=True, status="ok", **skill_call),
        *bash(sid, t + 9, 56, "echo hi"),
    )
    ctx = guide_context(events, "/proj")
    names = [g.name for g in ctx.guides]
    assert "skill:greet" in names and "skill:deploy" not in names
    # A skill lying in the project but never invoked ("lint") is no guide at all.
    assert not any("lint" in n for n in names)
    calls = [e["id"] for e in events if e["kind"] == "tool_call" and e.get("tool") == "shell"]
    assert "skill:greet" not in [g.name for g in ctx.in_force_at(calls[0])]
    assert "skill:greet" in [g.name for g in ctx.in_force_at(calls[-1])]


def test_the_hook_captures_the_scrubbed_text_and_the_store_keeps_one_snapshot_per_version(
    trail_home: Path, tmp_path: Path
) -> None:
    project = tmp_path / "proj"
    (project / ".claude" / "skills" / "greet").mkdir(parents=True)
    (project / ".claude" / "skills" / "lint").mkdir(parents=True)
    (project / "CLAUDE.md").write_text(f"Use pnpm.\n{SECRET}\n")
    (project / ".claude" / "skills" / "greet" / "SKILL.md").write_text("Say hello.\n")
    (project / ".claude" / "skills" / "lint" / "SKILL.md").write_text("Never used.\n")
    for sid in ("h-one", "h-two"):
        base = {"session_id": sid, "cwd": str(project), "transcript_path": "/t.jsonl"}
        for payload in (
            {**base, "hook_event_name": "SessionStart", "source": "startup"},
            {
                **base,
                "hook_event_name": "InstructionsLoaded",
                "file_path": str(project / "CLAUDE.md"),
                "memory_type": "Project",
                "load_reason": "session_start",
            },
            {
                **base,
                "hook_event_name": "PreToolUse",
                "tool_name": "Skill",
                "tool_use_id": f"{sid}-k",
                "tool_input": {"skill": "greet"},
            },
        ):
            done = run_hook(payload)
            assert done.returncode == 0 and done.stdout == b""
    home = str(trail_home)
    db, _ = queries.open_synced(home)
    assert guide_store.record_guides(db, home) == 4  # 2 sessions x (CLAUDE.md + greet)
    assert guide_store.record_guides(db, home) == 0  # once
    rows = db.execute(
        "SELECT name, kind, reason FROM session_guides ORDER BY session_key, name"
    ).fetchall()
    assert rows == [
        ("CLAUDE.md", "rule", "session_start"),
        ("skill:greet", "skill", ""),
        ("CLAUDE.md", "rule", "session_start"),
        ("skill:greet", "skill", ""),
    ]
    versions = dict(db.execute("SELECT name, version FROM guide_versions").fetchall())
    assert set(versions) == {"CLAUDE.md", "skill:greet"}  # one row per version
    folder = trail_home / "guides"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    files = sorted(folder.iterdir())
    assert len(files) == 2
    for f in files:
        assert stat.S_IMODE(f.stat().st_mode) == 0o600
    text = guide_store.read_snapshot(home, versions["CLAUDE.md"])
    assert text is not None and text.startswith("Use pnpm.")
    assert "abc123def456ghi" not in text  # the scrubber ran over it
    assert text_version(text) == versions["CLAUDE.md"]
    assert guide_store.read_snapshot(home, versions["skill:greet"]) == "Say hello.\n"
    assert guide_store.read_snapshot(home, "../etc/passwd") is None


def test_a_guide_that_cannot_be_read_is_listed_without_text(trail_home: Path) -> None:
    sid = "g-unreadable"
    t = T0 - 3600
    write_session(
        trail_home,
        [
            ev(sid, "session_start", t, 0, cwd="/proj"),
            ev(sid, "guide_loaded", t + 1, 1, path="/proj/CLAUDE.md", text=None),
            *bash(sid, t + 5, 2, "ls"),
        ],
    )
    db, _ = queries.open_synced(str(trail_home))
    events = queries.session_timeline(db, f"claude-code/{sid}").events
    ctx = guide_context(events, "/proj")
    assert [g.name for g in ctx.unreadable] == ["CLAUDE.md"]
    assert ctx.judgeable() == []


def test_rule_files_read_by_construction(tmp_path: Path) -> None:
    from trace_ingest.guides import COPILOT_RULE_FILES, VIBE_RULE_FILES, rule_files

    (tmp_path / ".github" / "instructions").mkdir(parents=True)
    for name in (
        "AGENTS.md",
        ".github/copilot-instructions.md",
        ".github/instructions/b.instructions.md",
        ".github/instructions/a.instructions.md",
        ".github/instructions/notes.md",
    ):
        (tmp_path / name).write_text("rule\n")
    found = [p[len(str(tmp_path)) + 1 :] for p in rule_files(str(tmp_path), COPILOT_RULE_FILES)]
    assert found == [
        "AGENTS.md",
        ".github/copilot-instructions.md",
        ".github/instructions/a.instructions.md",
        ".github/instructions/b.instructions.md",
    ]
    assert rule_files(str(tmp_path), VIBE_RULE_FILES) == [str(tmp_path / "AGENTS.md")]
    assert rule_files("relative/dir", VIBE_RULE_FILES) == []
    assert rule_files(str(tmp_path / "missing"), COPILOT_RULE_FILES) == []


def test_a_guide_cut_by_the_capture_says_how_much_was_cut() -> None:
    t = T0 - 3600
    events = canonical(
        [
            ev("g-cut", "session_start", t, 0, cwd="/proj"),
            ev(
                "g-cut",
                "guide_loaded",
                t + 1,
                1,
                path="/proj/CLAUDE.md",
                text="x" * 10,
                truncated={"text": 5000},
            ),
            *bash("g-cut", t + 5, 2, "ls"),
        ]
    ).events
    [guide] = guide_context(events, "/proj").guides
    assert guide.truncated == 5000 and guide.as_dict()["truncated"] == 5000
    assert guide.judgeable  # judged on what was kept; the cut is on record


def test_rule_files_the_capture_did_not_list_make_the_context_incomplete() -> None:
    t = T0 - 3600
    cut = "more than 100 rule files under /proj: only the first 100 were recorded"
    events = canonical(
        [
            ev("g-many", "session_start", t, 0, cwd="/proj", extra={"rule_files_cut": cut}),
            ev("g-many", "guide_loaded", t + 1, 1, path="/proj/AGENTS.md", text="Use pnpm."),
            *bash("g-many", t + 5, 2, "ls"),
        ]
    ).events
    ctx = guide_context(events, "/proj")
    assert [g.name for g in ctx.guides] == ["AGENTS.md"]
    [missing] = ctx.unreadable
    assert (missing.name, missing.reason, missing.text) == ("(rule files not recorded)", cut, None)
