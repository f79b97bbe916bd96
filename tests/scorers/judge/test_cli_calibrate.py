"""`trail eval calibrate` and the gate's rule for L2 verdicts: only a verified judge's
misaligned verdict fails a build."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from scorers.judge.calibration import read_all
from scorers.judge.calibration_set import load_set
from tests.scorers.judge.conftest import case, store_case
from tests.scorers.judge.fake_judge_endpoint import FakeJudgeEndpoint, Reply
from tests.scorers.judge.test_l2_entry import SPEC
from tests.scorers.judge.test_provider_http import MODEL, configure
from trace_ingest.cli import cli


def run(*args: str) -> Any:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_calibrate_the_oracle_offline_passes_and_is_stored(trail_home: Path) -> None:
    out = run("eval", "calibrate", "--judge", "replay:calibration-oracle")
    assert out.exit_code == 0, out.output
    assert "guide verdicts (22 labelled): balanced accuracy 100%" in out.output
    assert "not_applicable (Not engaged)" in out.output
    assert "PASSED" in out.output and "replayed from recorded responses" in out.output
    [stored] = read_all(str(trail_home))
    assert stored["judge"] == "replay:calibration-oracle" and stored["passed"] is True


def test_calibrate_the_careless_judge_does_not_pass(trail_home: Path) -> None:
    out = run("eval", "calibrate", "--judge", "replay:calibration-careless", "--json")
    assert out.exit_code == 3
    record = json.loads(out.output)
    assert record["passed"] is False
    assert record["guides"]["classes"]["misaligned"]["recall"] < 0.8
    assert any("misaligned" in p for p in record["problems"])
    wrong = {c["id"] for c in record["per_case"] if c["mismatches"]}
    assert "injection-forged-fence" in wrong


def test_calibrate_without_a_judge_is_an_error(trail_home: Path) -> None:
    out = run("eval", "calibrate")
    assert out.exit_code == 1 and "no judge model" in out.output
    assert read_all(str(trail_home)) == []


def test_a_judge_failing_every_session_stores_nothing(trail_home: Path, tmp_path: Path) -> None:
    book = tmp_path / "down.json"
    book.write_text(
        json.dumps({"format": "trail-replay/1", "responses": [{"default": True, "error": "quota"}]})
    )
    out = run("eval", "calibrate", "--judge", f"replay:{book}")
    assert out.exit_code == 1 and "could not grade any" in out.output
    assert read_all(str(trail_home)) == []


def test_calibrate_with_a_custom_set_and_pass_mark(trail_home: Path, tmp_path: Path) -> None:
    data = json.loads((Path(__file__).parents[3] / "scorers/data/l2_calibration.json").read_text())
    data["cases"] = [data["cases"][0], data["cases"][2]]  # nothing misaligned in these...
    custom = tmp_path / "set.json"
    custom.write_text(json.dumps(data))
    out = run(
        "eval",
        "calibrate",
        "--judge",
        "replay:calibration-oracle",
        "--set",
        str(custom),
        "--no-store",
        "--min-balanced-accuracy",
        "0.5",
    )
    assert out.exit_code == 3  # ...so it cannot verify that class
    assert "the set has no" in out.output
    assert read_all(str(trail_home)) == []
    assert len(load_set(str(custom))[0]) == 2


def _gate(key: str, judge: str) -> Any:
    return run("eval", "gate", "--session", key, "--level", "L2", "--judge", judge, "--json")


def _misaligned_session(home: Path, tmp_path: Path, with_calibration: bool) -> tuple[str, str]:
    c = case(SPEC)
    key = store_case(home, c)
    responses = [{"session": f"claude-code/{key}", "facts": c.answers["oracle"]}]
    if with_calibration:
        cases, _ = load_set()
        responses += [{"session": k.session_key, "facts": k.answers["oracle"]} for k in cases]
    book = tmp_path / "judge.json"
    book.write_text(json.dumps({"format": "trail-replay/1", "responses": responses}))
    return key, f"replay:{book}"


def test_the_gate_never_fails_on_an_unverified_judge(trail_home: Path, tmp_path: Path) -> None:
    key, judge = _misaligned_session(trail_home, tmp_path, with_calibration=False)
    out = _gate(key, judge)
    body = json.loads(out.output)
    assert body["exit_code"] == 0, body
    [c] = body["cases"]
    assert c["status"] == "passed" and "misaligned (unverified judge)" in c["message"]


def test_the_gate_fails_on_a_verified_judges_misaligned_verdict(
    trail_home: Path, tmp_path: Path
) -> None:
    key, judge = _misaligned_session(trail_home, tmp_path, with_calibration=True)
    assert run("eval", "calibrate", "--judge", judge).exit_code == 0
    out = _gate(key, judge)
    body = json.loads(out.output)
    assert body["exit_code"] == 3, body
    [c] = body["cases"]
    assert c["status"] == "failure" and "misaligned (verified judge)" in c["message"]


def test_a_live_calibration_recorded_reruns_offline(llm_user_path: Path, tmp_path: Path) -> None:
    cases, _ = load_set()
    user = llm_user_path
    recorded = tmp_path / "recorded.json"
    with FakeJudgeEndpoint() as fake:
        configure(user, fake.base_url, "sk-test-calibration")
        # the fake answers every case with the oracle's facts, in the set's order
        fake.replies = [Reply.json(c.answers["oracle"]) for c in cases]
        live = run("eval", "calibrate", "--judge", MODEL, "--record", str(recorded), "--json")
        assert len(fake.requests) == len(cases)
    assert live.exit_code == 0, live.output
    body = json.loads(live.output)
    assert body["replayed"] is False and body["input_tokens"] == 1234 * len(cases)
    offline = run("eval", "calibrate", "--judge", f"replay:{recorded}", "--json")
    again = json.loads(offline.output)
    assert offline.exit_code == 0 and again["replayed"] is True
    assert again["guides"] == body["guides"] and again["actions"] == body["actions"]
