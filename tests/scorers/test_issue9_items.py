"""Issue 9: one test per item where trail disagreed with seed 001's engine or CLEO's ct-grade.

Each test reproduces the item as reported and states the expected behaviour by hand (from the
seeds and the references' documented behaviour), never from trail's own output.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from scorers.cleo_ops import Op, OpStream, load_audit, merge, ops_from_steps
from scorers.grader_config import load_grader_config
from scorers.rubric_cleo import grade_cleo
from scorers.steps import Step, lanes, pair_events
from scorers.trace_grader import find_retry_storm, grade_run
from scorers.traces_input import traces_from_text
from tests.scorers.conftest import invoke

ALL = frozenset({"queries", "mutations", "params", "errors", "gateway"})


def _stream(ops: list[Op], visible: frozenset[str] = ALL) -> OpStream:
    return OpStream("test", ops, visible)


def _cleo(ops: list[Op]) -> Any:
    return grade_cleo(_stream(ops), session_open=False, min_coverage=0.5)


def _dims(result: Any) -> dict[str, Any]:
    return {k: v["score"] for k, v in result.dimensions.items()}


def _op(name: str, ts: str | None = None, gateway: str = "query", **params: Any) -> Op:
    domain, _, operation = name.partition(".")
    return Op(domain, operation, params, success=True, gateway=gateway, evidence=name, ts=ts)


# ───────────────────────────── 1. --task on a canonical traces.json ─────────────────────────────


def test_item01_task_does_not_relabel_canonical_runs(samples: Path) -> None:
    path = samples / "trace-grader" / "trace-grader.fixtures.json"
    tf = traces_from_text(path.read_text(), str(path), task="my-task")
    assert [r.task for r in tf.runs] == [
        "T1-clean",
        "T2-corrupt",
        "T3-flaky",
        "T3-flaky",
        "T3-flaky",
    ]
    res = invoke("eval", "score", "--traces", str(path), "--task", "my-task", "--json")
    out = json.loads(res.stdout)
    # seed 001: three tasks, T3-flaky is 2 of 3 -> pass^3 fails; T1 and T2 pass^1.
    assert set(out["pass_k"]) == {"T1-clean", "T2-corrupt", "T3-flaky"}
    assert (out["pass_k"]["T3-flaky"]["n"], out["pass_k"]["T3-flaky"]["c"]) == (3, 2)
    assert out["pass_k"]["T1-clean"]["status"] == "pass"
    assert "--task my-task ignored" in res.stderr
    assert res.exit_code == 3


def test_item01_task_still_labels_audit_runs() -> None:
    line = {"session_id": "s1", "tool_name": "Read", "file_path": "a.py"}
    tf = traces_from_text(json.dumps(line) + "\n", "audit.jsonl", task="my-task")
    assert [r.task for r in tf.runs] == ["my-task"]


# ───────────────────────────── 2. ok: null is unknown ─────────────────────────────


def test_item02_ok_null_is_unknown_not_success() -> None:
    doc = {
        "runs": [
            {
                "run_id": "r1",
                "task": "t",
                "steps": [
                    {"tool": "Read", "args": {"file_path": "a.py"}, "ok": True},
                    {"tool": "Bash", "args": {"command": "make"}, "ok": None},
                ],
            }
        ]
    }
    run = traces_from_text(json.dumps(doc), "t.json").runs[0]
    assert [s.ok for s in run.steps] == [True, None]
    # No run ok: one step succeeded, one is unknown -> whether the run delivered is unknown.
    assert run.delivered is None
    result = grade_run(run, load_grader_config(None), traces_from_text("[]", "x").profile, 0.5)
    assert result.verdict.startswith("flags-only")


# ───────────────────────────── 3. ok: 0 / 1 ─────────────────────────────


def test_item03_ok_zero_is_a_failure_and_storms() -> None:
    steps = [{"tool": "Bash", "args": {"command": "make"}, "ok": 0} for _ in range(3)]
    doc = {"runs": [{"run_id": "r", "task": "t", "ok": 1, "steps": steps}]}
    tf = traces_from_text(json.dumps(doc), "t.json")
    run = tf.runs[0]
    assert [s.ok for s in run.steps] == [False, False, False] and run.delivered is True
    # shipped retry_threshold 2: three consecutive same-tool failures > 2 -> retry_storm.
    result = grade_run(run, load_grader_config(None), tf.profile, 0.5)
    assert [(f.check, f.step) for f in result.findings] == [("retry_storm", 1)]
    assert result.verdict == "pass-with-warnings"


# ───────────────────────────── 4. sidechains never join the main lane ─────────────────────────────


def _ev(n: int, kind: str, cid: str, **more: Any) -> dict[str, Any]:
    return {
        "id": f"e{n}",
        "kind": kind,
        "tool_name": "Bash",
        "tool": "shell",
        "call_id": cid,
        "input": {"command": "make"},
        **more,
    }


def test_item04_sidechain_events_without_agent_id_get_their_own_lane() -> None:
    side = {"extra": {"isSidechain": True}, "parent_call_id": "task1"}
    events = [
        _ev(1, "tool_call", "m1"),
        _ev(2, "tool_error", "m1", ok=False, status="failed"),
        _ev(3, "tool_call", "s1", **side),
        _ev(4, "tool_error", "s1", ok=False, status="failed", **side),
        _ev(5, "tool_call", "m2"),
        _ev(6, "tool_error", "m2", ok=False, status="failed"),
    ]
    steps = pair_events(events).steps
    assert [s.agent for s in steps] == ["", "sidechain-task1", ""]
    assert [len(v) for v in lanes(steps).values()] == [2, 1]
    # Two main-agent failures with a subagent's between them: 2 consecutive, not 3 (> 2).
    from scorers.steps import Run

    run = Run("r", steps, None)
    assert find_retry_storm(run, load_grader_config(None)) == []


def test_item04_audit_lines_of_a_sidechain_keep_their_lane() -> None:
    lines = [
        {"session_id": "s", "tool_name": "Bash", "command": "make"},
        {"session_id": "s", "tool_name": "Bash", "command": "ls", "isSidechain": True},
        {"session_id": "s", "tool_name": "Bash", "command": "make", "agent_id": "a7"},
    ]
    run = traces_from_text("\n".join(json.dumps(x) for x in lines), "a.jsonl").runs[0]
    assert [s.agent for s in run.steps] == ["", "sidechain", "a7"]


# ───────────────────────────── 5. "not found" is not E_NOT_FOUND ─────────────────────────────


def _jsonl(tmp_path: Path, entries: list[dict[str, Any]], name: str = "a.jsonl") -> str:
    path = tmp_path / name
    path.write_text("".join(json.dumps(e) + "\n" for e in entries))
    return str(path)


def _db(tmp_path: Path, samples: Path, rows: list[tuple[Any, ...]]) -> str:
    path = tmp_path / "tasks.db"
    conn = sqlite3.connect(path)
    for name in (
        "audit-log-table-initial-migration.sql",
        "audit-log-idempotency-key-migration.sql",
    ):
        for stmt in (samples / "cleo" / name).read_text().split("--> statement-breakpoint"):
            if stmt.strip():
                conn.execute(stmt)
    for rid, ts, domain, operation, sess, ok, gw, details, err in rows:
        conn.execute(
            "INSERT INTO audit_log (id, timestamp, action, task_id, details_json, domain,"
            " operation, session_id, success, gateway, error_message) VALUES"
            " (?,?,?,?,?,?,?,?,?,?,?)",
            [rid, ts, f"{domain}.{operation}", "T1", details, domain, operation, sess, ok, gw, err],
        )
    conn.commit()
    conn.close()
    return str(path)


def test_item05_parent_task_not_found_is_not_e_not_found(tmp_path: Path, samples: Path) -> None:
    desc = json.dumps({"title": "Child", "description": "d", "parent": "T404"})
    db = _db(
        tmp_path,
        samples,
        [
            ("a1", "2026-05-24T08:00:00Z", "session", "list", "S1", 1, "query", "{}", None),
            ("a2", "2026-05-24T08:00:01Z", "tasks", "add", "S1", 0, "mutate", desc, None),
        ],
    )
    conn = sqlite3.connect(db)
    conn.execute("UPDATE audit_log SET error_message = 'Parent task not found' WHERE id = 'a2'")
    conn.commit()
    conn.close()
    stream = load_audit(db, cleo_session="S1")
    assert [o.not_found for o in stream.ops] == [False, False]
    from scorers.cleo_ops import is_not_found

    assert [
        is_not_found(t)
        for t in (
            "Task not found",
            "Error: Task T9 not found",
            "Task or resource not found",
            '{"code": "E_NOT_FOUND"}',
            "Parent task not found",
            "Parent task T1 not found",
            "Session S1 not found",
            "E_EPIC_NOT_FOUND",
            "file not found",
        )
    ] == [True, True, True, True, False, False, False, False, False]
    step = Step(1, "Bash", "shell", {"command": "ct add Child --parent T404"}, ok=False)
    step.error = "Error: Parent task not found (exit code 10)"
    assert [o.not_found for o in ops_from_steps([step])] == [False]


# ───────────────────────────── 6. tools.skill.install is not a lookup ─────────────────────────────


def test_item06_skill_install_is_not_a_skill_lookup() -> None:
    r = _cleo([_op("session.list"), _op("tools.skill.install", gateway="mutate")])
    assert r.dimensions["disclosureUse"]["score"] == 10  # query gateway 10, help 0
    help_atom = next(a for a in r.atoms if a.check == "cleo.S5.help_or_skill")
    assert help_atom.earned == 0


# ───────────────────────────── 7. the audit's gateway wins a merge ─────────────────────────────


def test_item07_merge_keeps_the_audits_query_gateway() -> None:
    tool = Op(
        "session", "list", gateway="cli", origin="cli", evidence="e1", ts="2026-05-24T08:00:00Z"
    )
    row = Op(
        "session",
        "list",
        gateway="query",
        origin="audit",
        evidence="audit:a1",
        ts="2026-05-24T08:00:01Z",
        records=frozenset({"errors", "gateway"}),
    )
    merged = merge([OpStream("tool calls", [tool], ALL), OpStream("audit", [row], ALL)])
    assert [(o.name, o.gateway) for o in merged.ops] == [("session.list", "query")]


# ───────────────────────────── 8. the audit JSONL reader ─────────────────────────────


def test_item08_audit_jsonl_reads_exit_code_4_and_task_not_found(tmp_path: Path) -> None:
    path = _jsonl(
        tmp_path,
        [
            {
                "timestamp": "2026-05-24T08:00:00Z",
                "sessionId": "S1",
                "domain": "tasks",
                "operation": "show",
                "params": {"taskId": "T9"},
                "result": {"success": False, "exitCode": 4, "duration": 3},
                "metadata": {"gateway": "query", "source": "cli"},
            },
            {
                "timestamp": "2026-05-24T08:00:01Z",
                "sessionId": "S1",
                "domain": "tasks",
                "operation": "show",
                "params": {"taskId": "T8"},
                "result": {"success": False, "exitCode": 1, "duration": 3},
                "metadata": {"gateway": "query"},
                "error": "Task not found",
            },
            {
                "timestamp": "2026-05-24T08:00:02Z",
                "sessionId": "S1",
                "domain": "tasks",
                "operation": "add",
                "params": {"title": "x", "parent": "T7"},
                "result": {"success": False, "exitCode": 10, "duration": 3},
                "metadata": {"gateway": "mutate"},
                "error": "Parent task not found",
            },
        ],
    )
    stream = load_audit(path, cleo_session="S1")
    assert [(o.name, o.success, o.not_found, o.gateway) for o in stream.ops] == [
        ("tasks.show", False, True, "query"),
        ("tasks.show", False, True, "query"),
        ("tasks.add", False, False, "mutate"),
    ]
    assert {"errors", "gateway", "params"} <= stream.visible


# ───────────────────────────── 9. visibility over the session's rows ─────────────────────────────


def test_item09_visibility_is_judged_over_the_graded_rows(tmp_path: Path) -> None:
    mine = {"sessionId": "S1", "timestamp": "2026-05-24T08:00:00Z"}
    other = {"sessionId": "S2", "timestamp": "2026-05-24T09:00:00Z"}
    path = _jsonl(
        tmp_path,
        [
            {**mine, "domain": "session", "operation": "list"},
            {**mine, "domain": "session", "operation": "end"},
            {
                **other,
                "domain": "tasks",
                "operation": "add",
                "params": {"title": "t"},
                "result": {"success": True, "exitCode": 0},
                "metadata": {"gateway": "mutate"},
            },
        ],
    )
    alone = load_audit(path, cleo_session="S1")
    # S1's rows record no gateway, no params, no success: those stay unseen for S1.
    assert not {"gateway", "params", "errors"} & alone.visible
    assert load_audit(path, cleo_session="S2").visible >= {"gateway", "params", "errors"}


# ───────────────────────────── 10. --config governs alone ─────────────────────────────


def test_item10_seed_config_alone_governs(tmp_path: Path, samples: Path) -> None:
    seed = samples / "trace-grader" / "trace-grader.config.yaml"
    cfg = load_grader_config(str(seed))
    assert cfg.forbidden_commands == ()  # not merged with trail's built-in regexes
    assert cfg.forbidden_tools == frozenset({"force_push", "rm_rf", "prod_write"})
    doc = {
        "tasks": [
            {
                "task": "push",
                "runs": [
                    {
                        "run_id": "r1",
                        "ok": True,
                        "steps": [
                            {"tool": "Bash", "args": {"command": "git push --force"}, "ok": True}
                        ],
                    }
                ],
            }
        ]
    }
    traces = tmp_path / "traces.json"
    traces.write_text(json.dumps(doc))
    res = invoke("eval", "score", "--traces", str(traces), "--config", str(seed), "--json")
    assert res.exit_code == 0, res.output  # the reference exits 0: Bash is not forbidden
    run = json.loads(res.stdout)["runs"][0]
    assert run["flags"] == []
    partial = tmp_path / "partial.yaml"
    partial.write_text("forbidden_tools: [force_push]\n")
    only = load_grader_config(str(partial))
    # Omitted keys: seed 001's engine defaults, not trail's shipped file (2, 25, [read, edit]).
    assert (only.retry_threshold, only.step_budget, only.must_precede) == (3, 40, ())
    assert only.grounding_enabled and only.forbidden_commands == () and not only.verified


# ───────────────────────────── 11. cleo's parent check is seed 000's ─────────────────────────────


def test_item11_show_of_the_parent_is_not_seed_000s_parent_check() -> None:
    base = [_op("session.list"), _op("tasks.find", query="x"), _op("session.end", gateway="mutate")]
    child = _op("tasks.add", gateway="mutate", title="Child", description="d", parent="T1")
    shown = _cleo([*base[:2], _op("tasks.show", taskId="T1"), child, base[2]])
    # Seed 000 S3: -3 for subtasks created without a tasks.find {exact:true} parent check.
    assert _dims(shown)["taskHygiene"] == 17
    exact = _cleo([*base[:2], _op("tasks.find", query="T1", exact=True), child, base[2]])
    assert _dims(exact)["taskHygiene"] == 20


# ───────────────────── 12. session.list and a task op at the same time ─────────────────────


def test_item12_same_timestamp_counts_as_before() -> None:
    t = "2026-05-24T08:00:00.000Z"
    r = _cleo([_op("tasks.find", ts=t, query="x"), _op("session.list", ts=t)])
    atom = next(a for a in r.atoms if a.check == "cleo.S1.session_list_first")
    assert atom.earned == 10  # CLEO: firstListTime <= firstTaskTime
    later = _cleo(
        [_op("tasks.find", ts=t, query="x"), _op("session.list", ts="2026-05-24T08:00:00.001Z")]
    )
    assert next(a for a in later.atoms if a.check == "cleo.S1.session_list_first").earned == 0


def test_item04_stored_sidechain_events_graded_end_to_end(trail_home: Path) -> None:
    from tests.scorers.conftest import stored_event, tool, write_session

    sid = "sess-side"
    side = {"extra": {"isSidechain": True}, "parent_call_id": "task1"}
    cmd = {"command": "make"}
    write_session(
        trail_home,
        [
            stored_event(sid, "session_start"),
            *tool(sid, "Bash", "m1", "shell", cmd, "failed"),
            *tool(sid, "Bash", "s1", "shell", cmd, "failed", **side),
            *tool(sid, "Bash", "m2", "shell", cmd, "failed"),
            stored_event(sid, "session_end"),
        ],
    )
    res = invoke("eval", "score", "--session", sid, "--level", "L1", "--json", "--no-ledger")
    atoms = {a["check"]: a["status"] for a in json.loads(res.stdout)["grades"][0]["atoms"]}
    # main lane: failed, failed (2, not > 2); the sidechain's failure is its own lane.
    assert atoms["retry_storm"] == "pass"


def test_item07_session_with_its_audit_grades_as_the_audit_alone(
    trail_home: Path, tmp_path: Path
) -> None:
    from tests.scorers.conftest import stored_event, tool, write_session

    sid = "sess-cleo-audit"
    commands = [
        ("ct session list", "session", "list", {}),
        ("ct find login", "tasks", "find", {"query": "login"}),
        ("ct show T1", "tasks", "show", {"taskId": "T1"}),
        ("ct --help", "admin", "help", {}),
        (
            'ct add "Login form" --description d',
            "tasks",
            "add",
            {"title": "Login form", "description": "d"},
        ),
        ("ct session end", "session", "end", {}),
    ]
    events = [stored_event(sid, "session_start", ts="2026-05-24T08:00:00.000000Z")]
    audit = []
    for i, (cmd, domain, operation, params) in enumerate(commands, 1):
        ts = f"2026-05-24T08:00:{i:02d}.000000Z"
        events += tool(sid, "Bash", f"b{i}", "shell", {"command": cmd}, ts=ts)
        audit.append(
            {
                "timestamp": ts,
                "sessionId": "C1",
                "domain": domain,
                "operation": operation,
                "params": params,
                "result": {"success": True, "exitCode": 0, "duration": 1},
                "metadata": {"gateway": "mutate" if operation in ("add", "end") else "query"},
            }
        )
    events.append(stored_event(sid, "session_end", ts="2026-05-24T08:00:09.000000Z"))
    write_session(trail_home, events)
    path = _jsonl(tmp_path, audit)
    both = invoke(
        "eval", "score", "--session", sid, "--rubric", "cleo", "--level", "L1",
        "--audit", path, "--audit-session", "C1", "--json", "--no-ledger",
    )  # fmt: skip
    alone = invoke(
        "eval", "score", "--audit", path, "--audit-session", "C1", "--rubric", "cleo",
        "--json", "--no-ledger",
    )  # fmt: skip
    rec = next(g for g in json.loads(both.stdout)["grades"] if g["rubric"] == "cleo")
    solo = json.loads(alone.stdout)["grades"][0]
    assert (solo["totalScore"], solo["maxScore"]) == (100, 100)
    assert (rec["totalScore"], rec["maxScore"], rec["entryCount"]) == (100, 100, 6)
