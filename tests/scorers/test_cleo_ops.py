"""Recognising CLEO operations: ct command lines, MCP calls, and CLEO's audit logs."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from scorers.cleo_ops import Op, OpStream, load_audit, merge, ops_from_steps, parse_cli
from scorers.steps import Step


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("ct session list", [("session", "list", {})]),
        ("cd /x && ct find auth --exact", [("tasks", "find", {"query": "auth", "exact": True})]),
        (
            'ct add "Fix login" --description "why" --parent T002',
            [("tasks", "add", {"title": "Fix login", "description": "why", "parent": "T002"})],
        ),
        ("ct show T001; cleo list", [("tasks", "show", {"taskId": "T001"}), ("tasks", "list", {})]),
        ("ct --help", [("admin", "help", {})]),
        ("ct admin help", [("admin", "help", {})]),
        ("ct skills list", [("skills", "list", {})]),
        ("CLEO_SESSION_GRADE=true npx cleo session end", [("session", "end", {})]),
        ("echo ct; act find x; git status", []),
    ],
)
def test_parse_cli(command: str, expected: list[tuple[str, str, dict[str, object]]]) -> None:
    assert parse_cli(command) == expected


def test_mcp_and_shell_steps_with_outcomes() -> None:
    steps = [
        Step(
            1,
            "mcp__cleo__cleo_query",
            "mcp",
            {"domain": "tasks", "operation": "show", "params": {"taskId": "T1"}},
            ok=True,
            event_id="e1",
            observation=[
                {
                    "type": "text",
                    "text": json.dumps(
                        {"success": False, "error": {"code": "E_NOT_FOUND", "exitCode": 4}}
                    ),
                }
            ],
        ),
        Step(
            2,
            "mcp__cleo__cleo_mutate",
            "mcp",
            {"domain": "tasks", "operation": "add", "params": {"title": "A"}},
            ok=True,
            event_id="e2",
            observation={"success": True},
        ),
        Step(
            3,
            "Bash",
            "shell",
            {"command": "ct exists T1"},
            ok=False,
            event_id="e3",
            error="Exit code 1",
        ),
        Step(4, "mcp__github__create_issue", "mcp", {"title": "x"}, ok=True, event_id="e4"),
    ]
    ops = ops_from_steps(steps)
    assert [(o.name, o.gateway, o.success, o.not_found, o.evidence) for o in ops] == [
        ("tasks.show", "query", False, True, "e1"),
        ("tasks.add", "mutate", True, False, "e2"),
        ("tasks.exists", "query", False, False, "e3"),  # CLEO's CLI reads via the query gateway
    ]


def _tasks_db(samples: Path, path: Path) -> None:
    conn = sqlite3.connect(path)
    for name in (
        "audit-log-table-initial-migration.sql",
        "audit-log-idempotency-key-migration.sql",
    ):
        for stmt in (samples / "cleo" / name).read_text().split("--> statement-breakpoint"):
            if stmt.strip():
                conn.execute(stmt)
    rows = [
        ("a1", "2026-05-24T08:00:00Z", "session.list", "", "session", "list", "S1", 1, "query"),
        ("a2", "2026-05-24T08:00:05Z", "tasks.add", "T9", "tasks", "add", "S1", 1, "mutate"),
        ("a3", "2026-05-24T08:00:09Z", "tasks.show", "T8", "tasks", "show", "S1", 0, "query"),
        ("a4", "2026-05-24T09:00:00Z", "session.end", "", "session", "end", "S2", 1, "mutate"),
    ]
    for rid, ts, action, task, domain, operation, sess, ok, gw in rows:
        details = json.dumps({"title": "t", "description": "d"} if operation == "add" else {})
        conn.execute(
            "INSERT INTO audit_log (id, timestamp, action, task_id, details_json, domain,"
            " operation, session_id, success, gateway, error_message) VALUES"
            " (?,?,?,?,?,?,?,?,?,?,?)",
            [
                rid,
                ts,
                action,
                task,
                details,
                domain,
                operation,
                sess,
                ok,
                gw,
                "E_NOT_FOUND: T8" if not ok else None,
            ],
        )
    conn.commit()
    conn.close()


def test_tasks_db_audit_log_from_the_real_schema(samples: Path, tmp_path: Path) -> None:
    db = tmp_path / "tasks.db"
    _tasks_db(samples, db)
    s1 = load_audit(str(db), cleo_session="S1")
    assert [(o.name, o.success, o.not_found, o.evidence) for o in s1.ops] == [
        ("session.list", True, False, "audit:a1"),
        ("tasks.add", True, False, "audit:a2"),
        ("tasks.show", False, True, "audit:a3"),
    ]
    assert s1.visible == frozenset({"queries", "mutations", "params", "errors", "gateway"})
    folder = tmp_path / "proj" / ".cleo"
    folder.mkdir(parents=True)
    db.rename(folder / "tasks.db")
    assert len(load_audit(str(tmp_path / "proj")).ops) == 4


def test_audit_jsonl_samples_are_mutation_only(samples: Path) -> None:
    stream = load_audit(str(samples / "cleo" / "audit-worktree-lifecycle.jsonl"))
    assert [o.name for o in stream.ops] == [
        "tasks.complete",
        "tasks.complete-conflict",
        "tasks.complete",
    ]
    assert "queries" not in stream.visible and "errors" in stream.visible
    assert "CLEO issue 814" in stream.blind["queries"][1]


def test_merge_dedups_the_same_operation_seen_twice() -> None:
    calls = OpStream(
        "tool calls",
        [Op("session", "list", evidence="e1", ts="2026-05-24T08:00:00Z")],
        frozenset({"queries", "mutations"}),
    )
    audit = OpStream(
        "audit",
        [
            Op("session", "list", evidence="audit:a1", ts="2026-05-24T08:00:02Z"),
            Op("session", "end", evidence="audit:a4", ts="2026-05-24T08:10:00Z"),
        ],
        frozenset({"mutations", "errors"}),
    )
    merged = merge([calls, audit])
    assert [(o.name, o.evidence) for o in merged.ops] == [
        ("session.list", "e1"),
        ("session.end", "audit:a4"),
    ]
    assert merged.visible == frozenset({"queries", "mutations", "errors"})


def test_each_harness_names_its_mcp_and_shell_tools_its_own_way() -> None:
    # Vibe names an MCP tool <server>.<tool> and its shell file_system.bash (real-harnesses.md
    # §1.3): recognised through Vibe's descriptor, not through Claude Code's names.
    args = {"domain": "tasks", "operation": "show", "params": {"taskId": "T1"}}
    vibe = [
        Step(1, "cleo.cleo_query", "mcp", args, ok=True, event_id="v1", harness="vibe"),
        Step(2, "file_system.bash", "shell", {"command": "cleo add 'B'"}, ok=True, event_id="v2"),
        # Claude Code's naming in a Vibe session is not Vibe's MCP rule: no operation.
        Step(3, "mcp__cleo__cleo_query", "other", args, ok=True, event_id="v3", harness="vibe"),
    ]
    ops = ops_from_steps(vibe)
    assert [(o.origin, o.domain, o.operation, o.evidence) for o in ops] == [
        ("mcp", "tasks", "show", "v1"),
        ("cli", "tasks", "add", "v2"),
    ]
