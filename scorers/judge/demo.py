"""The L2 part of ``trail demo``: one guided session recorded through the real hook, judged by
the replay model, shown as replayed.

The session's project is a folder the demo writes under ``$TRAIL_HOME/demo-project`` with a
``CLAUDE.md`` (the hook reads a guide's text when Claude Code reports it loaded). The agent
installs with npm although the guide says pnpm, then tests with pnpm. The judge's answer is
written by the demo into ``$TRAIL_HOME/demo-replay.json`` (matched by session) and replayed
through the ``replay`` llm model: no provider is called, and the report says so.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

from sqlite_utils import Database

from trace_ingest.paths import open_dirs, open_file
from trace_ingest.store import write_all

GUIDE = "Use pnpm for every package operation. Never run npm or yarn.\n"
COMMANDS = ("npm install", "pnpm test")


def session(session_id: str, project: str) -> list[dict[str, Any]]:
    """The hook payloads of the guided demo session (Claude Code's field names)."""
    b = {"session_id": session_id, "cwd": project}
    out: list[dict[str, Any]] = [
        {**b, "hook_event_name": "SessionStart", "source": "startup", "model": "claude-demo"},
        {
            **b,
            "hook_event_name": "InstructionsLoaded",
            "file_path": os.path.join(project, "CLAUDE.md"),
            "memory_type": "Project",
            "load_reason": "session_start",
        },
        {**b, "hook_event_name": "UserPromptSubmit", "prompt": "Install and run the tests."},
    ]
    for n, command in enumerate(COMMANDS, start=1):
        call = {
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "tool_use_id": f"toolu_l2_{n}",
        }
        out.append({**b, "hook_event_name": "PreToolUse", **call})
        out.append({**b, "hook_event_name": "PostToolUse", **call, "tool_response": {"ok": True}})
    out.append({**b, "hook_event_name": "SessionEnd", "reason": "prompt_input_exit"})
    return out


def _write(home: str, parts: tuple[str, ...], name: str, text: str) -> str:
    """Write ``home/parts…/name`` (0600, folders 0700, never through a symlink)."""
    folder = open_dirs(home, parts)
    try:
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
        fd = open_file(folder, name, os.path.join(home, *parts, name), flags)
        try:
            write_all(fd, text.encode("utf-8"))
        finally:
            os.close(fd)
    finally:
        os.close(folder)
    return os.path.join(home, *parts, name)


def write_project(home: str) -> str:
    return os.path.dirname(_write(home, ("demo-project",), "CLAUDE.md", GUIDE))


def write_replay(home: str, key: str, events: list[dict[str, Any]]) -> str:
    """The demo judge's answer: the npm install violates the guide, the pnpm test follows it."""
    position = {
        (e.get("input") or {}).get("command"): n
        for n, e in enumerate(events, start=1)
        if e.get("kind") == "tool_call" and isinstance(e.get("input"), dict)
    }
    install, test = (position.get(c) for c in COMMANDS)
    facts = {
        "findings": [
            {
                "guide": "G1",
                "event": f"E{install}",
                "relation": "violates",
                "explanation": "ran `npm install` although CLAUDE.md says pnpm",
            },
            {
                "guide": "G1",
                "event": f"E{test}",
                "relation": "satisfies",
                "explanation": "ran the tests with `pnpm test`",
            },
        ],
        "guides_not_engaged": [],
    }
    book = {
        "format": "trail-replay/1",
        "recorded_with": "written by trail demo (not a live model)",
        "responses": [{"session": key, "facts": facts}],  # tokens: estimated by replay
    }
    return _write(home, (), "demo-replay.json", json.dumps(book, indent=1) + "\n")


def show(
    home: str,
    stamp: str,
    feed: Callable[[list[dict[str, Any]]], None],
    open_db: Callable[[], Database],
    echo: Callable[[str], None],
) -> None:
    """Record, judge by replay, and print the L2 report of the guided demo session."""
    from scorers.api import grade_and_record
    from telemetry import queries

    sid = f"demo-guided-{stamp}"
    feed(session(sid, write_project(home)))
    db = open_db()
    key = str(queries.resolve_session(db, sid)["key"])
    book = write_replay(home, key, queries.session_timeline(db, key).events)
    graded = grade_and_record(db, home, key, levels=("L2",), judge=f"replay:{book}")
    echo(
        f"\nL2 (the judge, REPLAYED: answers from {book}, written by the demo; no model was "
        f"called) for {key}:"
    )
    for line in graded.render().splitlines():
        echo(line)
