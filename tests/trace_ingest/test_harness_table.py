"""The harness table and descriptors (trace_ingest.harnesses): tool tables, MCP naming, path
keys, settings locations, recognising trail's own entries."""

from __future__ import annotations

import os

import pytest

from trace_ingest.capabilities import CAPABILITY_NAMES, capabilities_of
from trace_ingest.errors import InstallError, UnknownHarness
from trace_ingest.events import CANONICAL_TOOLS, KINDS
from trace_ingest.harnesses.table import (
    HARNESSES,
    Harness,
    canonical_tool,
    descriptors,
    get,
    mcp_parts,
)


def test_every_descriptor_is_its_table_entry() -> None:
    for harness in HARNESSES:
        found = get(harness)
        assert isinstance(found, Harness) and found.id == harness and found.name
        assert get(harness) is found  # imported once


def test_an_unknown_harness_names_the_known_ones() -> None:
    with pytest.raises(UnknownHarness, match="claude-code, copilot-cli"):
        get("nope")
    # A name whose harness is not known is read with every harness's table.
    assert canonical_tool("", "Read") == "read" and canonical_tool("", "Nope") == "other"
    assert mcp_parts("", "mcp__x__y") == ("x", "y") and mcp_parts("", "Read") is None


def test_every_table_speaks_the_schema() -> None:
    for d in descriptors():
        assert set(d.tools.values()) <= CANONICAL_TOOLS, d.id
        assert set(d.events.values()) <= KINDS, d.id
        assert set(d.hook_events) <= set(d.events), d.id
        for source, caps in d.capabilities.items():
            assert caps <= CAPABILITY_NAMES, (d.id, source)
        assert d.default_scope in d.scopes or not d.scopes, d.id


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Read", "read"),
        ("MultiEdit", "edit"),
        ("Write", "write"),
        ("Bash", "shell"),
        ("Glob", "search"),
        ("WebFetch", "fetch"),
        ("Task", "task"),
        ("Agent", "task"),
        ("Skill", "skill"),
        ("mcp__github__create_issue", "mcp"),
        ("TodoWrite", "other"),
        ("", "other"),
        (None, "other"),
    ],
)
def test_canonical_tool(name: str | None, expected: str) -> None:
    assert canonical_tool("claude-code", name) == expected


def test_mcp_parts() -> None:
    assert mcp_parts("claude-code", "mcp__cleo__cleo_query") == ("cleo", "cleo_query")
    assert mcp_parts("claude-code", "mcp__my_server__a__b") == ("my_server", "a__b")
    assert mcp_parts("claude-code", "mcp__lonely") == ("lonely", "")
    assert mcp_parts("claude-code", "Bash") is None
    assert mcp_parts("claude-code", None) is None


def test_tool_path() -> None:
    tool_path = get("claude-code").tool_path
    assert tool_path({"file_path": "/a", "path": "/b"}) == "/a"
    assert tool_path({"notebook_path": "/n.ipynb"}) == "/n.ipynb"
    assert tool_path({"path": "/dir"}) == "/dir"
    assert tool_path({"path": ""}) is None
    assert tool_path("not a dict") is None


def test_capabilities_come_from_the_descriptor() -> None:
    assert capabilities_of("claude-code", "hook") == get("claude-code").capabilities["hook"]
    assert "session_bounds" not in capabilities_of("claude-code", "transcript")
    assert capabilities_of("claude-code", "nope") == frozenset()
    assert "task_outcome" in capabilities_of("trace-grader", "traces")
    assert capabilities_of("nope", "hook") == frozenset()


def test_settings_locations(tmp_path: object) -> None:
    cc = get("claude-code")
    project = str(tmp_path)
    assert cc.settings_path("project", project) == os.path.join(project, ".claude", "settings.json")
    assert cc.settings_path("user") == os.path.expanduser("~/.claude/settings.json")
    with pytest.raises(InstallError, match="unknown scope"):
        cc.settings_path("global")
    # Every harness trail knows is wired now; a descriptor without settings locations is what
    # a harness added before its registrar looks like.
    unwired = Harness(id="later", name="A later harness")
    with pytest.raises(UnknownHarness, match="not supported yet"):
        unwired.settings_path("user")


def test_registered_finds_mentions_of_this_harness_only() -> None:
    settings = {
        "hooks": {
            "Stop": [
                {"hooks": [{"type": "command", "command": "/x/trail hook claude-code"}]},
                {"hooks": [{"type": "command", "command": "trail hook vibe"}]},
                {"hooks": "not a list"},
            ],
            "PreToolUse": [{"hooks": [{"command": "echo hi"}]}],
            "Bad": "not a list",
        }
    }
    assert get("claude-code").registered(settings) == {"Stop": ["/x/trail hook claude-code"]}
    assert get("claude-code").registered({"hooks": []}) == {}
