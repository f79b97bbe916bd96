"""`trail eval` end to end: real hook sessions, the seed-001 fixtures, exit codes, errors."""

from __future__ import annotations

import json
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from scorers import trace_grader
from tests.conftest import TRAIL
from tests.scorers.conftest import call, feed, invoke, start

FIXTURES = "trace-grader/trace-grader.fixtures.json"
SEED_CONFIG = "trace-grader/trace-grader.config.yaml"


def ledger(home: Path) -> list[dict[str, object]]:
    path = home / "GRADES.jsonl"
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


def test_self_test_passes_without_shared_samples() -> None:
    result = invoke("eval", "self-test")
    assert result.exit_code == 0, result.output
    assert "self-test: ALL PASS" in result.output


def test_score_traces_fixtures_exits_3_with_seed_verdicts(samples: Path) -> None:
    result = invoke("eval", "score", "--traces", str(samples / FIXTURES), "--json")
    assert result.exit_code == 3
    report = json.loads(result.output)
    verdicts = {r["run_id"]: r["verdict"] for r in report["runs"]}
    assert verdicts == {
        "T1-clean-r1": "clean-pass",
        "T2-corrupt-r1": "corrupt-success",
        "T3-flaky-r1": "clean-pass",
        "T3-flaky-r2": "clean-pass",
        "T3-flaky-r3": "fail",
    }
    t2 = next(r for r in report["runs"] if r["run_id"] == "T2-corrupt-r1")
    assert {f["check"] for f in t2["flags"]} >= {"forbidden_tool", "retry_storm"}
    assert report["pass_k"]["T3-flaky"]["status"] == "flaky"
    assert report["pass_k"]["T3-flaky"]["pass_hat_k"] == 0.0
    assert report["summary"]["tasks_flaky"] == 1
    assert report["summary"]["config"]["verified"] is False


def test_seed_config_accepted_unchanged_hash_recorded(samples: Path) -> None:
    import hashlib

    cfg = samples / SEED_CONFIG
    result = invoke(
        "eval", "score", "--traces", str(samples / FIXTURES), "--config", str(cfg), "--json"
    )
    assert result.exit_code == 3
    prov = json.loads(result.output)["summary"]["config"]
    assert prov["sha256"] == hashlib.sha256(cfg.read_bytes()).hexdigest()
    assert prov["verified"] is True  # that file says verified: true
    text = invoke("eval", "score", "--traces", str(samples / FIXTURES))
    assert "UNVERIFIED" in text.output


def test_real_subprocess_exit_code(samples: Path) -> None:
    proc = subprocess.run(
        [TRAIL, "eval", "score", "--traces", str(samples / FIXTURES)],
        capture_output=True,
        check=False,
    )
    assert proc.returncode == 3
    ok = subprocess.run([TRAIL, "eval", "self-test"], capture_output=True, check=False)
    assert ok.returncode == 0


def test_score_session_report_and_ledger(storm_session: str, trail_home: Path) -> None:
    result = invoke("eval", "score", "--session", storm_session)
    # Outcome unknown + a high flag (git push --force): flags-only, and the gate code 3.
    assert result.exit_code == 3, result.output
    assert "flags-only: high-severity" in result.output
    assert "outcome: unknown" in result.output
    assert "retry_storm" in result.output and "-> event " in result.output
    rows = ledger(trail_home)
    assert len(rows) == 1
    row = rows[0]
    for field in (
        "sessionId",
        "taskId",
        "totalScore",
        "maxScore",
        "dimensions",
        "flags",
        "timestamp",
        "entryCount",
        "evaluator",
        "rubricVersion",
        "coverage",
        "atoms",
    ):
        assert field in row
    assert row["sessionId"] == storm_session and row["outcome"] == "unknown"
    assert row["config"]["verified"] is False and len(row["config"]["sha256"]) == 64
    for dim in row["dimensions"].values():
        assert {"score", "max", "evidence"} <= set(dim)


def test_outcome_turns_flags_into_verdicts(good_session: str, storm_session: str) -> None:
    assert invoke("eval", "outcome", good_session, "pass").exit_code == 0
    good = json.loads(invoke("eval", "score", "--session", good_session, "--json").output)
    assert good["grades"][0]["verdict"] == "clean-pass"
    assert invoke("eval", "outcome", storm_session, "pass").exit_code == 0
    res = invoke("eval", "score", "--session", storm_session, "--json")
    assert res.exit_code == 3
    assert json.loads(res.output)["grades"][0]["verdict"] == "corrupt-success"
    assert invoke("eval", "outcome", storm_session, "fail").exit_code == 0
    res = invoke("eval", "score", "--session", storm_session, "--json")
    assert json.loads(res.output)["grades"][0]["verdict"] == "fail"
    assert res.exit_code == 0


def test_grader_error_is_an_error_no_grade_written(
    good_session: str, trail_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom(*args: object) -> list[object]:
        raise ValueError("kaput")

    monkeypatch.setattr(trace_grader, "find_retry_storm", boom)
    result = invoke("eval", "score", "--session", good_session)
    assert result.exit_code == 1
    assert "Error: check retry_storm (L1) failed: ValueError: kaput" in result.output
    assert "clean-pass" not in result.output
    assert ledger(trail_home) == []
    gate = invoke("eval", "gate", "--session", good_session)
    assert gate.exit_code == 1
    assert ledger(trail_home) == []


def test_gate_exit_codes_and_junit(good_session: str, storm_session: str, tmp_path: Path) -> None:
    invoke("eval", "outcome", good_session, "pass")
    ok = invoke("eval", "gate", "--session", good_session)
    assert ok.exit_code == 0, ok.output
    junit = tmp_path / "junit.xml"
    bad = invoke("eval", "gate", "--all-closed", "--junit", str(junit))
    assert bad.exit_code == 3
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None
    assert suite.get("tests") == "2" and suite.get("failures") == "1"
    failure = [c for c in suite.iter("testcase") if c.find("failure") is not None]
    assert storm_session in (failure[0].get("name") or "")


def test_gate_insufficient_data_exits_4(trail_home: Path) -> None:
    cfg = trail_home / "config.json"
    sid = "sess-thin"
    feed([start(sid), *call(sid, "Read", "t1", {"file_path": "/proj/a.py"})])
    cfg.write_text(json.dumps({"eval": {"min_coverage": 1.0}}))
    # Grounding off leaves edited_without_read unscored: L1 coverage 8/10 < 1.0.
    grader = trail_home / "tg.yaml"
    grader.write_text("grounding: {enabled: false}\n")
    res = invoke("eval", "gate", "--session", sid, "--config", str(grader))
    assert res.exit_code == 4, res.output
    assert "SKIPPED" in res.output


def test_passk_from_labels_ragged_and_flaky(trail_home: Path) -> None:
    outcomes = {"A": ["pass", "pass", "pass", "pass", "fail"], "B": ["pass", "pass"]}
    for task, results in outcomes.items():
        for i, outcome in enumerate(results):
            sid = f"run-{task}-{i}"
            feed([start(sid)])
            assert invoke("eval", "task", sid, task).exit_code == 0
            assert invoke("eval", "outcome", sid, outcome).exit_code == 0
    feed([start("run-B-x")])
    invoke("eval", "task", "run-B-x", "B")  # outcome unknown: listed, not a trial
    res = invoke("eval", "passk", "-k", "3", "--json")
    assert res.exit_code == 3
    rows = {r["task"]: r for r in json.loads(res.output)}
    assert rows["A"]["pass_hat_k"] == 0.4 and rows["A"]["status"] == "flaky"
    assert rows["B"]["status"] == "insufficient trials" and rows["B"]["pass_hat_k"] is None
    assert rows["B"]["unknown_outcome"] == 1
    only_b = invoke("eval", "passk", "--task", "B", "-k", "2")
    assert only_b.exit_code == 0 and "pass^2 = 1" in only_b.output
    only_b3 = invoke("eval", "passk", "--task", "B", "-k", "3")
    assert only_b3.exit_code == 4 and "INSUFFICIENT TRIALS" in only_b3.output


def test_list_shows_past_grades(good_session: str) -> None:
    invoke("eval", "score", "--session", good_session)
    res = invoke("eval", "list")
    assert res.exit_code == 0
    assert good_session in res.output and "unverified" in res.output
    rows = json.loads(invoke("eval", "list", "--json").output)
    assert len(rows) == 1 and rows[0]["rubric"] == "trace-grader"


def test_every_command_has_help() -> None:
    for cmd in ("score", "list", "passk", "gate", "outcome", "task", "self-test"):
        res = invoke("eval", cmd, "--help")
        assert res.exit_code == 0 and len(res.output) > 100, cmd


def test_usage_errors() -> None:
    assert invoke("eval", "score").exit_code == 2
    assert invoke("eval", "gate").exit_code == 2
    missing = invoke("eval", "score", "--session", "nope")
    assert missing.exit_code == 1 and "Error:" in missing.output


def test_api_grade_session_for_the_demo(good_session: str, trail_home: Path) -> None:
    from scorers.api import grade_session

    records = grade_session(good_session, outcome="pass", task="demo", rubric="cleo")
    assert [r["rubric"] for r in records] == ["trace-grader", "cleo"]
    assert records[0]["verdict"] == "clean-pass" and records[0]["taskId"] == "demo"
    assert records[1]["grade"] == "insufficient-data"  # no CLEO operations in that session
    assert len(ledger(trail_home)) == 2
