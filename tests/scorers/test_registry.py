"""The grader registry and the one grading entry point (issue 12 step 1)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from scorers import registry
from scorers.api import build_records, grade_and_record
from scorers.grader_config import load_grader_config
from scorers.grading import grade_events, load_session
from scorers.ledger import session_record
from scorers.registry import GRADERS, Kind, When, parse_levels, select
from scorers.session import GradeInput, RecordCtx
from telemetry import queries
from tests.scorers.conftest import invoke
from trace_ingest.errors import ScorerError


def test_every_level_and_rubric_is_an_entry() -> None:
    assert set(GRADERS) >= {"l0", "l1", "cleo", "l2"}
    assert registry.levels() == ("L0", "L1", "L2")
    assert registry.rubrics() == ("cleo",)
    assert GRADERS["l2"].when == "closed"
    assert all(g.when == "any" for n, g in GRADERS.items() if n != "l2")
    assert parse_levels(None) == ("L0", "L1")
    with pytest.raises(ScorerError, match="choose from L0, L1, L2"):
        parse_levels("L9")
    # The CLI's choices come from the table.
    help_text = invoke("eval", "score", "--help").output
    assert "L0,L1,L2" in help_text and "[cleo]" in help_text


def test_l0_and_l1_records_merge_into_the_one_trace_grader_entry(
    good_session: str, trail_home: Path
) -> None:
    db, _ = queries.open_synced(str(trail_home))
    config = load_grader_config(None)
    grade = grade_events(load_session(db, good_session, str(trail_home)), config)
    ts = "2026-12-01T00:00:00.000000Z"
    records, parts = build_records(grade, config, select(("L0", "L1")), ts)
    assert [g.name for g, _ in parts] == ["l0", "l1"]
    assert len(records) == 1
    whole = session_record(grade, config, ts)
    assert json.dumps(records[0], default=str) == json.dumps(whole, default=str)
    assert list(records[0]["levels"]) == ["L0", "L1"]
    # L0 alone is an entry of its own, with L0's headline.
    [alone], _ = build_records(grade, config, select(("L0",)), ts)
    assert list(alone["levels"]) == ["L0"] and alone["verdict"] == grade.l0.verdict  # type: ignore[union-attr]


@dataclass(frozen=True)
class CountingGrader:
    """A grader added through the registry: counts the session's tool calls."""

    name: str = "count"
    level: str = "L1"
    version: str = "count/1"
    requires: frozenset[str] = frozenset()
    when: When = "any"
    kind: Kind = "rubric"
    rubric: str = "count"

    def grade(self, inp: GradeInput) -> Any:
        return sum(1 for e in inp.data.events if e.get("kind") == "tool_call")

    def record(self, result: Any, ctx: RecordCtx) -> dict[str, Any]:
        return {
            "gradeId": f"count-{ctx.grade.data.key}-{ctx.timestamp}",
            "sessionKey": ctx.grade.data.key,
            "sessionId": ctx.grade.data.session_id,
            "rubric": self.rubric,
            "verdict": f"{result} calls",
            "timestamp": ctx.timestamp,
            "flags": [],
            "coverage": 1.0,
        }

    def render(self, result: Any, record: dict[str, Any]) -> list[str]:
        return [f"count rubric: {record['verdict']}"]


def test_a_new_grader_is_one_entry_graded_recorded_and_rendered(
    good_session: str, trail_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(GRADERS, "count", CountingGrader())
    db, _ = queries.open_synced(str(trail_home))
    graded = grade_and_record(db, str(trail_home), good_session, rubric="count")
    assert [r["rubric"] for r in graded.records] == ["trace-grader", "count"]
    assert graded.records[1]["verdict"] == "3 calls"
    assert "count rubric: 3 calls" in graded.render()
    assert "L1 verdict:" in graded.render()
    # Written to the ledger and its mirror, and listed back by telemetry's query.
    lines = (trail_home / "GRADES.jsonl").read_text().splitlines()
    assert [json.loads(x)["rubric"] for x in lines] == ["trace-grader", "count"]
    rows = queries.list_grades(db, session="claude-code/sess-g", rubric="count")
    assert [r["verdict"] for r in rows] == ["3 calls"]
    assert queries.list_grades(db, session="nobody") == []


def test_eval_list_filters_through_the_grades_query(good_session: str) -> None:
    assert invoke("eval", "score", "--session", good_session).exit_code == 0
    assert invoke("eval", "score", "--session", good_session, "--rubric", "cleo").exit_code in (
        0,
        4,
    )
    out = json.loads(invoke("eval", "list", "--rubric", "cleo", "--json").output)
    assert [r["rubric"] for r in out] == ["cleo"]
    out = json.loads(invoke("eval", "list", "--limit", "1", "--json").output)
    assert len(out) == 1 and out[0]["rubric"] == "cleo"
