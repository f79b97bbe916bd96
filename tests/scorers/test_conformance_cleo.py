"""Conformance with seed 000's 5 x 20 rubric (CLEO ct-grade): cases per dimension and deduction.

Each case is a CLEO session as CLEO's audit records it (``AuditEntry``: domain, operation,
params, ``result: {success, exitCode}``, ``metadata: {gateway, source}``), written to an audit
JSONL and read back by trail's reader, then graded with ``--rubric cleo``. The expected
dimension scores are computed by hand from seed 000's tables:

    S1 10 session.list before the first task operation + 10 session.end
    S2 15 for find:(find+list) >= 80%, else round(15 x ratio); + 5 tasks.show used
    S3 20, -5 per tasks.add without a description, -3 subtasks without a
       tasks.find {exact:true} parent check
    S4 20, -5 per E_NOT_FOUND not followed by a recovery lookup within 5 ops, -5 duplicates
    S5 10 admin.help or a skill lookup + 10 progressive disclosure (the query gateway)

``None`` is a dimension trail leaves unscored (docs/grading.md). Where CLEO's
``session-grade.ts`` gives another number, ``CLEO`` records it and docs/grading.md lists the
departure with its reason. The tests never run CLEO.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from scorers.cleo_ops import VISIBILITY, OpStream, load_audit, ops_from_steps
from scorers.rubric_cleo import CleoResult, grade_cleo
from scorers.steps import Step

QUERIES = {"list", "find", "show", "exists", "help", "skill.show", "skill.list"}
Dims = tuple[float | None, float | None, float | None, float | None, float | None]


def E(name: str, ok: bool = True, code: int = 0, **params: Any) -> dict[str, Any]:
    """One CLEO audit entry; ``ts`` (seconds after 08:00:00) and ``error`` are optional."""
    domain, _, operation = name.partition(".")
    ts = params.pop("ts", None)
    error = params.pop("error", None)
    gateway = params.pop("gateway", "query" if operation in QUERIES else "mutate")
    entry: dict[str, Any] = {
        "sessionId": params.pop("session", "S1"),
        "domain": domain,
        "operation": operation,
        "params": params,
        "result": {"success": ok, "exitCode": code if not ok else 0, "duration": 1},
        "metadata": {"source": "cli", **({"gateway": gateway} if gateway else {})},
    }
    if ts is not None:
        entry["ts_offset"] = ts
    if error is not None:
        entry["error"] = error
    return entry


L = E("session.list")
F = E("tasks.find", query="x")
SH = E("tasks.show", taskId="T1")
H = E("admin.help")
A = E("tasks.add", title="Write docs", description="d")
END = E("session.end")
SUB = E("tasks.add", title="Child", description="d", parent="T1")
NF = E("tasks.show", ok=False, code=4, taskId="T9")
BASE = [L, F, SH, H, A, END]


def recovered_after(k: int) -> list[dict[str, Any]]:
    """E_NOT_FOUND, k-1 other operations, then the recovery lookup (tasks.find) as the k-th."""
    return [L, F, H, A, NF, *[SH] * (k - 1), E("tasks.find", query="T9"), END]


# name -> (entries, trail's dimension scores S1..S5)
CASES: dict[str, tuple[list[dict[str, Any]], Dims]] = {
    "all-criteria-met": (BASE, (20, 20, 20, 20, 20)),
    # S1
    "list-after-first-task-op": ([F, L, SH, H, A, END], (10, 20, 20, 20, 20)),
    "list-never": ([F, SH, H, A, END], (10, 20, 20, 20, 20)),
    "end-never": ([L, F, SH, H, A], (10, 20, 20, 20, 20)),
    "list-same-time-as-first-task-op": (
        [{**F, "ts_offset": 0}, {**L, "ts_offset": 0}, SH, H, A, END],
        (20, 20, 20, 20, 20),  # equal timestamps: CLEO's <= counts the list as first
    ),
    # S2: find:list ratios and tasks.show
    "ratio-0.5": ([L, F, E("tasks.list"), SH, H, A, END], (20, 13, 20, 20, 20)),  # 8 + 5
    "ratio-0.79": (
        [L, *[F] * 79, *[E("tasks.list")] * 21, SH, H, A, END],
        (20, 17, 20, 20, 20),  # round(11.85) = 12, + 5
    ),
    "ratio-0.8": ([L, *[F] * 4, E("tasks.list"), SH, H, A, END], (20, 20, 20, 20, 20)),
    "no-tasks-show": ([L, F, H, A, END], (20, 15, 20, 20, 20)),
    # no discovery at all: the ratio is unscored (CLEO: a 10-point baseline); show earns 5.
    "no-discovery": ([L, SH, H, A, END], (20, 5, 20, 20, 20)),
    # S3: descriptions and the parent check
    "add-without-description": (
        [L, F, SH, H, E("tasks.add", title="A"), E("tasks.add", title="B", description=" "), END],
        (20, 20, 10, 20, 20),
    ),
    "descriptions-floor-0": (
        [L, F, SH, H, *[E("tasks.add", title=f"t{i}") for i in range(5)], END],
        (20, 20, 0, 20, 20),
    ),
    "parent-check-exact-find": (
        [L, F, SH, H, A, E("tasks.find", query="T1", exact=True), SUB, END],
        (20, 20, 20, 20, 20),
    ),
    "parent-check-exists": (
        [L, F, SH, H, A, E("tasks.exists", taskId="T1"), SUB, END],
        (20, 20, 17, 20, 20),
    ),
    "parent-check-show": (
        [L, F, SH, H, A, E("tasks.show", taskId="T1"), SUB, END],
        (20, 20, 17, 20, 20),
    ),
    "parent-check-none": ([L, F, SH, H, A, SUB, END], (20, 20, 17, 20, 20)),
    "parent-check-exact-find-after": (
        [L, F, SH, H, A, SUB, E("tasks.find", query="T1", exact=True), END],
        (20, 20, 17, 20, 20),
    ),
    # a failed add created nothing: no description deduction, no duplicate
    "failed-add": (
        [L, F, SH, H, A, E("tasks.add", ok=False, code=6, title="Write docs"), END],
        (20, 20, 20, 20, 20),
    ),
    # S4: E_NOT_FOUND recovery window, duplicates, other "not found" errors
    "not-found-recovered-after-4": (recovered_after(4), (20, 20, 20, 20, 20)),
    "not-found-recovered-after-5": (recovered_after(5), (20, 20, 20, 20, 20)),
    "not-found-recovered-after-6": (recovered_after(6), (20, 20, 20, 15, 20)),
    "not-found-floor-0": ([L, F, SH, H, A, *[NF] * 5, END], (20, 20, 20, 0, 20)),
    "duplicate-titles-differing-in-case": (
        [
            L,
            F,
            SH,
            H,
            E("tasks.add", title="Fix Login", description="d"),
            E("tasks.add", title="fix login ", description="d"),
            END,
        ],
        (20, 20, 20, 15, 20),
    ),
    "three-duplicates-deduct-once": (
        [L, F, SH, H, A, A, A, END],
        (20, 20, 20, 15, 20),
    ),
    "parent-task-not-found-is-not-e-not-found": (
        [
            L,
            F,
            SH,
            H,
            A,
            E(
                "tasks.add",
                ok=False,
                code=10,
                title="C",
                parent="T404",
                error="Parent task not found",
            ),
            END,
        ],
        (20, 20, 20, 20, 20),
    ),
    "not-found-by-message": (
        [L, F, H, A, E("tasks.show", ok=False, code=1, taskId="T9", error="Task not found"), END],
        (20, 20, 20, 15, 20),  # the failed show still counts as a show; unrecovered -5
    ),
    # S5: admin.help vs skill lookups; the query gateway
    "help-skill-show": (
        [L, F, SH, E("tools.skill.show", skill="ct-cleo"), A, END],
        (20, 20, 20, 20, 20),
    ),
    "help-skills-list": ([L, F, SH, E("skills.list"), A, END], (20, 20, 20, 20, 20)),
    "help-skill-install-is-not-a-lookup": (
        [L, F, SH, E("tools.skill.install", skill="ct-cleo"), A, END],
        (20, 20, 20, 20, 10),
    ),
    "no-help": ([L, F, SH, A, END], (20, 20, 20, 20, 10)),
    # rows that record no gateway at all: the criterion cannot be judged (CLEO: 0)
    "no-gateway-recorded": (
        [{**e, "metadata": {"source": "cli"}} for e in BASE],
        (20, 20, 20, 20, 10),
    ),
}

# CLEO session-grade.ts's dimension scores where they differ from trail's, and why
# (docs/grading.md, "Departures from the references").
CLEO: dict[str, Dims] = {
    "no-discovery": (20, 15, 20, 20, 20),  # CLEO: 10-point baseline for no find/list
    "parent-check-exact-find": (20, 20, 17, 20, 20),  # CLEO accepts only tasks.exists
    "parent-check-exists": (20, 20, 20, 20, 20),  # CLEO: any tasks.exists in the session
    "not-found-recovered-after-5": (20, 20, 20, 15, 20),  # CLEO looks at the next 4 ops
    "not-found-by-message": (20, 20, 20, 20, 20),  # CLEO reads exitCode 4 only
    "no-gateway-recorded": (20, 20, 20, 20, 10),  # same points: CLEO scores 0 of 10
}


def _write(tmp_path: Path, entries: list[dict[str, Any]]) -> str:
    lines = []
    for i, raw in enumerate(entries):
        e = dict(raw)
        offset = e.pop("ts_offset", i)
        e["timestamp"] = f"2026-05-24T08:{offset // 60:02d}:{offset % 60:02d}.000Z"
        lines.append(json.dumps(e))
    path = tmp_path / "audit.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def _grade(stream: OpStream) -> CleoResult:
    return grade_cleo(stream, session_open=False, min_coverage=0.5)


def _scores(result: CleoResult) -> Dims:
    d = result.dimensions
    names = ("sessionDiscipline", "discoveryEfficiency", "taskHygiene", "errorProtocol")
    return (*(d[n]["score"] for n in names), d["disclosureUse"]["score"])


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name: str, tmp_path: Path) -> None:
    entries, expected = CASES[name]
    stream = load_audit(_write(tmp_path, entries), cleo_session="S1")
    result = _grade(stream)
    assert _scores(result) == expected
    assert result.entry_count == len(entries)


def test_no_gateway_recorded_leaves_the_gateway_criterion_unscored(tmp_path: Path) -> None:
    entries, _ = CASES["no-gateway-recorded"]
    result = _grade(load_audit(_write(tmp_path, entries), cleo_session="S1"))
    atom = next(a for a in result.atoms if a.check == "cleo.S5.query_gateway")
    assert atom.status == "unscored"
    assert result.aggregate.earned == 90 and result.aggregate.possible == 90
    assert result.grade == "A"


def test_letters_and_totals(tmp_path: Path) -> None:
    # ratio 0.5 case: 20 + 13 + 20 + 20 + 20 = 93 -> A; no-help: 90 -> A; the 0.79 case 97.
    entries, _ = CASES["parent-check-none"]
    r = _grade(load_audit(_write(tmp_path, entries), cleo_session="S1"))
    assert (r.aggregate.earned, r.aggregate.possible, r.grade) == (97, 100, "A")
    entries, _ = CASES["descriptions-floor-0"]
    r = _grade(load_audit(_write(tmp_path, entries), cleo_session="S1"))
    assert (r.aggregate.earned, r.grade) == (80, "B")
    entries = [F, SH, E("tasks.add", title="x"), E("tasks.list"), E("tasks.list")]
    r = _grade(load_audit(_write(tmp_path, entries), cleo_session="S1"))
    # S1 0; S2 round(15/3)=5 + 5 = 10; S3 15; S4 20; S5 10 -> 55 -> D
    assert _scores(r) == (0, 10, 15, 20, 10)
    assert (r.aggregate.earned, r.grade) == (55, "D")


# ───────────────────────────── CLI vs MCP ─────────────────────────────


def _steps(commands: list[Any]) -> list[Step]:
    out = []
    for i, cmd in enumerate(commands, 1):
        if isinstance(cmd, str):
            out.append(Step(i, "Bash", "shell", {"command": cmd}, ok=True, event_id=f"e{i}"))
        else:
            tool = "mcp__cleo__cleo_" + cmd[0]
            out.append(Step(i, tool, "mcp", cmd[1], ok=True, event_id=f"e{i}"))
    return out


def _q(domain: str, operation: str, **params: Any) -> tuple[str, dict[str, Any]]:
    return ("query", {"domain": domain, "operation": operation, "params": params})


def _m(domain: str, operation: str, **params: Any) -> tuple[str, dict[str, Any]]:
    return ("mutate", {"domain": domain, "operation": operation, "params": params})


def test_cli_and_mcp_sessions_grade_alike() -> None:
    cli = _steps(
        [
            "ct session list",
            "ct find x",
            "ct show T1",
            "ct --help",
            'ct add "Write docs" --description d',
            "ct session end",
        ]
    )
    mcp = _steps(
        [
            _q("session", "list"),
            _q("tasks", "find", query="x"),
            _q("tasks", "show", taskId="T1"),
            _q("admin", "help"),
            _m("tasks", "add", title="Write docs", description="d"),
            _m("session", "end"),
        ]
    )
    everything = frozenset(VISIBILITY)
    for steps in (cli, mcp):
        ops = ops_from_steps(steps)
        assert [o.gateway for o in ops] == ["query"] * 4 + ["mutate"] * 2
        r = _grade(OpStream("tool calls", ops, everything))
        assert _scores(r) == (20, 20, 20, 20, 20)
    # MCP mutations only: no query-gateway call -> S5 second criterion 0.
    only_mutate = ops_from_steps(_steps([_m("session", "end")]))
    r = _grade(OpStream("tool calls", only_mutate, everything))
    assert next(a for a in r.atoms if a.check == "cleo.S5.query_gateway").earned == 0


# ───────────────────────────── one session inside a multi-session tasks.db ─────────────────────


def _tasks_db(samples: Path, path: Path, rows: list[tuple[str, str, dict[str, Any]]]) -> None:
    conn = sqlite3.connect(path)
    for name in (
        "audit-log-table-initial-migration.sql",
        "audit-log-idempotency-key-migration.sql",
    ):
        for stmt in (samples / "cleo" / name).read_text().split("--> statement-breakpoint"):
            if stmt.strip():
                conn.execute(stmt)
    for i, (session, ts, entry) in enumerate(rows, 1):
        gateway = entry.get("metadata", {}).get("gateway")
        conn.execute(
            "INSERT INTO audit_log (id, timestamp, action, task_id, details_json, domain,"
            " operation, session_id, success, gateway, error_message) VALUES"
            " (?,?,?,?,?,?,?,?,?,?,?)",
            [
                f"r{i}",
                ts,
                entry["operation"],
                "T1",
                json.dumps(entry["params"]),
                entry["domain"],
                entry["operation"],
                session,
                1 if entry["result"]["success"] else 0,
                gateway,
                entry.get("error"),
            ],
        )
    conn.commit()
    conn.close()


def test_one_session_inside_a_multi_session_tasks_db(samples: Path, tmp_path: Path) -> None:
    mine = [("S1", f"2026-05-24T08:00:0{i}.000Z", e) for i, e in enumerate(BASE)]
    # S2 in the same database: no session.list, lists only, no description, and rows that
    # record no gateway.
    theirs = [
        ("S2", f"2026-05-24T09:00:0{i}.000Z", {**e, "metadata": {}})
        for i, e in enumerate([E("tasks.list"), E("tasks.add", title="t"), END])
    ]
    alone = tmp_path / "alone.db"
    shared = tmp_path / "shared.db"
    _tasks_db(samples, alone, mine)
    _tasks_db(samples, shared, sorted(mine + theirs, key=lambda r: r[1]))
    solo = _grade(load_audit(str(alone), cleo_session="S1"))
    inside = _grade(load_audit(str(shared), cleo_session="S1"))
    assert _scores(solo) == _scores(inside) == (20, 20, 20, 20, 20)
    assert inside.entry_count == 6 and inside.aggregate.possible == 100
    other = _grade(load_audit(str(shared), cleo_session="S2"))
    # S2: S1 10 (end only); S2 ratio 0 -> 0, no show -> 0; S3 -5 -> 15; S4 20;
    # S5 help 0, gateway not recorded by S2's rows -> unscored.
    assert _scores(other) == (10, 0, 15, 20, 0)
    gateway_atom = next(a for a in other.atoms if a.check == "cleo.S5.query_gateway")
    assert gateway_atom.status == "unscored"


def test_e_not_found_in_a_tasks_db_error_message(samples: Path, tmp_path: Path) -> None:
    # CLEO's tasks.db reader maps every failure to exitCode 1, so ct-grade never deducts for an
    # E_NOT_FOUND read from tasks.db (S4 20); trail reads the error message: -5 (departure).
    nf = {**NF, "error": "E_NOT_FOUND: task T9"}
    rows = [
        ("S1", f"2026-05-24T08:00:0{i}.000Z", e) for i, e in enumerate([L, F, SH, H, A, nf, END])
    ]
    db = tmp_path / "tasks.db"
    _tasks_db(samples, db, rows)
    r = _grade(load_audit(str(db), cleo_session="S1"))
    assert _scores(r)[3] == 15
