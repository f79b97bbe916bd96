"""The cleo rubric (seed 000): every dimension, every deduction, letters, and unscored-not-zero."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scorers.cleo_ops import VISIBILITY, Op, OpStream
from scorers.rubric_cleo import (
    FLAG_DUPLICATE,
    FLAG_LIST_LATE,
    FLAG_LIST_USED,
    FLAG_NO_DESC,
    FLAG_NO_DISCLOSURE,
    FLAG_NO_END,
    FLAG_NO_HELP,
    FLAG_NO_LIST,
    FLAG_NO_OPS,
    FLAG_NO_PARENT,
    FLAG_NOT_FOUND,
    grade_cleo,
    letter,
)
from tests.scorers.conftest import call, end, feed, invoke, start

_n = 0


def op(name: str, gateway: str | None = "query", **params: Any) -> Op:
    global _n
    _n += 1
    domain, _, operation = name.partition(".")
    not_found = bool(params.pop("not_found", False))
    return Op(
        domain,
        operation,
        params,
        success=not not_found,
        not_found=not_found,
        gateway=gateway,
        origin="mcp",
        evidence=f"ev{_n}",
    )


def stream(ops: list[Op], blind: dict[str, str] | None = None) -> OpStream:
    b = {k: ("cannot-provide", v) for k, v in (blind or {}).items()}
    return OpStream("test", ops, frozenset(c for c in VISIBILITY if c not in b), b)  # type: ignore[arg-type]


def grade(ops: list[Op], *, session_open: bool = False, **kw: Any) -> Any:
    return grade_cleo(stream(ops, kw.get("blind")), session_open=session_open, min_coverage=0.5)


def dim(result: Any, name: str) -> Any:
    return result.dimensions[name]["score"]


def flags(result: Any) -> list[str]:
    return [f.text for f in result.flags]


PERFECT = [
    ("session.list", {}),
    ("tasks.find", {"query": "x"}),
    ("tasks.find", {"query": "y"}),
    ("tasks.find", {"query": "z"}),
    ("tasks.find", {"query": "w"}),
    ("tasks.list", {}),
    ("tasks.show", {"taskId": "T1"}),
    ("admin.help", {}),
]


def perfect_ops() -> list[Op]:
    ops = [op(n, **p) for n, p in PERFECT]
    ops.append(op("tasks.add", "mutate", title="A", description="does a"))
    ops.append(op("session.end", "mutate"))
    return ops


def test_perfect_session_is_100_A() -> None:
    r = grade(perfect_ops())
    assert {k: v["score"] for k, v in r.dimensions.items()} == {
        "sessionDiscipline": 20,
        "discoveryEfficiency": 20,
        "taskHygiene": 20,
        "errorProtocol": 20,
        "disclosureUse": 20,
    }
    assert (r.aggregate.earned, r.aggregate.possible, r.grade) == (100, 100, "A")
    assert r.flags == []
    assert r.dimensions["sessionDiscipline"]["evidence"]  # event ids per dimension


def test_s1_session_list_first_and_end() -> None:
    late = grade([op("tasks.find", query="q"), op("session.list")])
    assert dim(late, "sessionDiscipline") == 0
    assert FLAG_LIST_LATE in flags(late) and FLAG_NO_END in flags(late)
    never = grade([op("tasks.find", query="q"), op("session.end", "mutate")])
    assert dim(never, "sessionDiscipline") == 10 and FLAG_NO_LIST in flags(never)
    still_open = grade([op("session.list")], session_open=True)
    end_atom = next(a for a in still_open.atoms if a.check == "cleo.S1.session_end")
    assert end_atom.status == "unscored" and "still open" in end_atom.reason
    assert dim(still_open, "sessionDiscipline") == 10
    assert still_open.dimensions["sessionDiscipline"]["scoredMax"] == 10


@pytest.mark.parametrize(
    ("finds", "lists", "expected"),
    [
        (4, 1, 15),  # 80%: full
        (1, 1, 8),  # 50%: round(7.5) = 8 (half up, as CLEO's Math.round)
        (1, 3, 4),  # 25%: round(3.75) = 4
        (0, 2, 0),
    ],
)
def test_s2_find_ratio(finds: int, lists: int, expected: int) -> None:
    ops = [op("tasks.find", query="q")] * finds + [op("tasks.list")] * lists
    r = grade([op("session.list"), *ops, op("session.end", "mutate")])
    ratio = next(a for a in r.atoms if a.check == "cleo.S2.find_ratio")
    assert ratio.earned == expected
    assert (FLAG_LIST_USED.format(n=lists) in flags(r)) == (expected < 15)


def test_s2_show_and_no_discovery_is_unscored_not_baseline() -> None:
    r = grade([op("session.list"), op("tasks.show", taskId="T1"), op("session.end", "mutate")])
    ratio = next(a for a in r.atoms if a.check == "cleo.S2.find_ratio")
    assert ratio.status == "unscored"  # CLEO would hand out a 10-point baseline here
    assert r.dimensions["discoveryEfficiency"]["score"] == 5
    assert r.dimensions["discoveryEfficiency"]["scoredMax"] == 5


def test_s3_deductions() -> None:
    ops = [
        op("session.list"),
        op("tasks.add", "mutate", title="A"),  # -5
        op("tasks.add", "mutate", title="B", description=" "),  # -5 (blank)
        op("tasks.add", "mutate", title="C", description="ok", parent="T1"),
    ]  # -3
    r = grade(ops)
    assert dim(r, "taskHygiene") == 20 - 5 - 5 - 3
    assert flags(r).count(FLAG_NO_DESC) == 2 and FLAG_NO_PARENT in flags(r)
    checked = grade(
        [
            op("session.list"),
            op("tasks.exists", taskId="T1"),
            op("tasks.add", "mutate", title="C", description="ok", parent="T1"),
        ]
    )
    assert dim(checked, "taskHygiene") == 17  # seed 000: only tasks.find {exact:true} checks
    exact = grade(
        [
            op("tasks.find", query="T1", exact=True),
            op("tasks.add", "mutate", title="C", description="ok", parent="T1"),
        ]
    )
    assert dim(exact, "taskHygiene") == 20
    floor = grade([op("tasks.add", "mutate", title=f"t{i}") for i in range(5)])
    assert dim(floor, "taskHygiene") == 0
    none = grade([op("session.list")])
    assert none.dimensions["taskHygiene"]["status"] == "unscored"


def test_s4_deductions() -> None:
    ops = [
        op("tasks.show", taskId="T9", not_found=True),  # recovered: find 2 ops later
        op("session.list"),
        op("tasks.find", query="T9"),
        op("tasks.show", taskId="T8", not_found=True),  # not recovered in next 5: -5
        op("session.list"),
        op("session.list"),
        op("session.list"),
        op("session.list"),
        op("session.list"),
        op("tasks.find", query="late"),
        op("tasks.add", "mutate", title="Fix bug", description="d"),
        op("tasks.add", "mutate", title="fix bug ", description="d"),
    ]  # duplicate: -5
    r = grade(ops)
    assert dim(r, "errorProtocol") == 10
    assert flags(r).count(FLAG_NOT_FOUND) == 1
    assert FLAG_DUPLICATE.format(n=1) in flags(r)
    nothing = grade([op("session.list")])
    assert nothing.dimensions["errorProtocol"]["status"] == "unscored"


def test_s5_help_and_mcp_query() -> None:
    cli_only = grade([op("session.list", "cli"), op("session.end", "cli")])
    assert dim(cli_only, "disclosureUse") == 0
    assert FLAG_NO_HELP in flags(cli_only) and FLAG_NO_DISCLOSURE in flags(cli_only)
    skill = grade(
        [
            Op(
                "skills",
                "show",
                {"skill": "ct-cleo"},
                True,
                gateway=None,
                origin="skill",
                evidence="sk",
            ),
            op("session.list", "cli"),
        ]
    )
    assert dim(skill, "disclosureUse") == 10
    both = grade([op("admin.help", "query")])
    assert dim(both, "disclosureUse") == 20


@pytest.mark.parametrize(
    ("pct", "grade_"),
    [
        (100, "A"),
        (90, "A"),
        (89.9, "B"),
        (75, "B"),
        (74.9, "C"),
        (60, "C"),
        (59, "D"),
        (45, "D"),
        (44.9, "F"),
        (0, "F"),
    ],
)
def test_letter_grades(pct: float, grade_: str) -> None:
    assert letter(pct) == grade_


def test_no_operations_is_unscored_not_zero_cleo_814(samples: Path) -> None:
    rows = [json.loads(x) for x in (samples / "cleo" / "GRADES.jsonl").read_text().splitlines()]
    assert rows and all(r["totalScore"] == 0 and r["entryCount"] == 0 for r in rows)
    r = grade([])
    assert all(a.status == "unscored" for a in r.atoms)
    assert r.aggregate.score is None and r.grade == "insufficient-data"
    assert all(d["score"] is None for d in r.dimensions.values())
    assert flags(r) == [FLAG_NO_OPS]


def test_blind_stream_leaves_dimensions_unscored() -> None:
    # A mutation-only audit (no queries, no gateway, no errors): only session.end is judged.
    ops = [op("session.start", None), op("tasks.add", None, title="A"), op("session.end", None)]
    r = grade(
        ops, blind={"queries": "no query rows", "gateway": "no gateway", "errors": "no codes"}
    )
    scored = {a.check for a in r.atoms if a.scored}
    assert scored == {"cleo.S1.session_end", "cleo.S3.task_hygiene"}
    reason = next(a.reason for a in r.atoms if a.check == "cleo.S2.find_ratio")
    assert reason.startswith("missing queries: the harness cannot provide it")
    assert r.aggregate.coverage == pytest.approx(30 / 100)
    assert r.grade == "insufficient-data"


def test_todo_log_sample_is_mostly_unscored(samples: Path) -> None:
    res = invoke(
        "eval",
        "score",
        "--audit",
        str(samples / "cleo" / "todo-log-audit.json"),
        "--rubric",
        "cleo",
        "--json",
    )
    assert res.exit_code == 4, res.output
    rec = json.loads(res.output)["grades"][0]
    assert rec["grade"] == "insufficient-data"
    assert rec["dimensions"]["sessionDiscipline"]["score"] == 10  # session_end is recorded
    assert rec["dimensions"]["discoveryEfficiency"]["score"] is None
    assert rec["dimensions"]["taskHygiene"]["score"] is None  # descriptions never logged
    assert rec["coverage"] == 0.1


def test_hook_session_with_cleo_calls(trail_home: Path) -> None:
    sid = "sess-cleo"
    mcp = "mcp__cleo__cleo_query"
    feed(
        [
            start(sid),
            *call(sid, mcp, "m1", {"domain": "session", "operation": "list"}),
            *call(sid, "Bash", "b1", {"command": "ct find auth --exact"}),
            *call(
                sid,
                "Bash",
                "b2",
                {"command": "ct show T001"},
                ok=False,
                error="Exit code 4\nE_NOT_FOUND: task T001",
            ),
            *call(sid, "Bash", "b3", {"command": "ct find T001"}),
            *call(sid, "Bash", "b4", {"command": 'ct add "Login form" --parent T002'}),
            *call(sid, "Bash", "b5", {"command": "ct session end"}),
            end(sid),
        ]
    )
    res = invoke("eval", "score", "--session", sid, "--rubric", "cleo", "--level", "L1", "--json")
    assert res.exit_code == 0, res.output
    grades = json.loads(res.output)["grades"]
    rec = next(g for g in grades if g["rubric"] == "cleo")
    d = {k: v["score"] for k, v in rec["dimensions"].items()}
    # S1 20; S2 find 2/2 -> 15, show 5; S3 20-5 (no description), parent checked by the exact
    # find -> 15; S4 E_NOT_FOUND recovered, no duplicates -> 20; S5 no help (0) + MCP query 10.
    assert d == {
        "sessionDiscipline": 20,
        "discoveryEfficiency": 20,
        "taskHygiene": 15,
        "errorProtocol": 20,
        "disclosureUse": 10,
    }
    assert (rec["totalScore"], rec["maxScore"], rec["grade"]) == (85, 100, "B")
    assert rec["entryCount"] == 6 and rec["coverage"] == 1.0
    assert FLAG_NO_DESC in rec["flags"] and FLAG_NO_HELP in rec["flags"]
    assert rec["rubricVersion"].startswith("cleo-5x20")
    ledger = [json.loads(x) for x in (trail_home / "GRADES.jsonl").read_text().splitlines()]
    sample_fields = {
        "sessionId",
        "totalScore",
        "maxScore",
        "dimensions",
        "flags",
        "timestamp",
        "entryCount",
        "evaluator",
    }
    assert all(sample_fields <= set(r) for r in ledger)
