"""The canonical tool table in trace_ingest.tools, shared by the hook and the importers."""

from __future__ import annotations

import pytest

from trace_ingest.events import CANONICAL_TOOLS
from trace_ingest.tools import CLAUDE_CODE_CANONICAL, canonical_tool, tool_path


def test_every_canonical_name_is_in_the_schema() -> None:
    assert set(CLAUDE_CODE_CANONICAL.values()) <= CANONICAL_TOOLS


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
    assert canonical_tool(name) == expected


def test_tool_path() -> None:
    assert tool_path({"file_path": "/a", "path": "/b"}) == "/a"
    assert tool_path({"notebook_path": "/n.ipynb"}) == "/n.ipynb"
    assert tool_path({"path": "/dir"}) == "/dir"
    assert tool_path({"path": ""}) is None
    assert tool_path("not a dict") is None
