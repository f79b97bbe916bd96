"""Calibration metrics on a known confusion matrix, the shipped set and replay judges, the
stored result and what "verified" means."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from scorers.judge.calibration import (
    NONE,
    agreement,
    calibrate,
    calibrations_path,
    may_gate,
    store,
    verification,
)
from scorers.judge.calibration_set import load_set
from scorers.judge.judge import JudgeSettings
from scorers.judge.provider import resolve
from scorers.judge.rules import ACTION_VERDICTS, GUIDE_VERDICTS


def test_metrics_of_a_known_confusion_matrix() -> None:
    # expected -> predicted counts:
    #              aligned  misaligned  not_applicable  none
    # aligned         8         2             0          0
    # misaligned      1         6             2          1
    # not_applicable  0         0             5          0
    matrix = {
        ("aligned", "aligned"): 8,
        ("aligned", "misaligned"): 2,
        ("misaligned", "aligned"): 1,
        ("misaligned", "misaligned"): 6,
        ("misaligned", "not_applicable"): 2,
        ("misaligned", NONE): 1,
        ("not_applicable", "not_applicable"): 5,
    }
    pairs = [pair for pair, n in matrix.items() for _ in range(n)]
    a = agreement(pairs, GUIDE_VERDICTS)
    assert a.n == 25
    aligned, misaligned, na = (a.of(x) for x in GUIDE_VERDICTS)
    assert (aligned.tp, aligned.support, aligned.predicted) == (8, 10, 9)
    assert aligned.precision == pytest.approx(8 / 9)
    assert aligned.recall == pytest.approx(8 / 10)
    assert aligned.balanced_accuracy == pytest.approx((8 / 10 + 14 / 15) / 2)
    assert misaligned.precision == pytest.approx(6 / 8)
    assert misaligned.recall == pytest.approx(6 / 10)
    assert misaligned.balanced_accuracy == pytest.approx((6 / 10 + 13 / 15) / 2)
    assert na.precision == pytest.approx(5 / 7)
    assert na.recall == 1.0
    assert na.balanced_accuracy == pytest.approx((1.0 + 18 / 20) / 2)
    assert a.balanced_accuracy == pytest.approx((0.8 + 0.6 + 1.0) / 3)
    assert a.confusion["misaligned"] == {
        "aligned": 1,
        "misaligned": 6,
        "not_applicable": 2,
        NONE: 1,
    }


def test_a_class_never_predicted_has_no_precision() -> None:
    a = agreement([("aligned", "unguided"), ("unguided", "unguided")], ACTION_VERDICTS)
    assert a.of("aligned").precision is None and a.of("aligned").recall == 0.0
    assert a.of("misaligned").support == 0 and a.of("misaligned").recall is None


def test_the_set_covers_every_verdict_class_and_injections() -> None:
    cases, _ = load_set()
    guides = {v for c in cases for v in c.expected_guides.values()}
    actions = {v for c in cases for v in c.expected_actions.values()}
    assert guides == set(GUIDE_VERDICTS) and actions == set(ACTION_VERDICTS)
    assert {c.split for c in cases} == {"dev", "test"}
    assert sum(c.injection for c in cases) >= 3
    assert any(g.loaded_at > 0 and g.kind == "skill" for c in cases for g in c.guides)


def test_the_oracle_replay_passes_and_the_careless_one_fails() -> None:
    cases, sha = load_set()
    good = calibrate(resolve("replay:calibration-oracle"), cases, sha)
    assert good.passed and good.guides.balanced_accuracy == 1.0
    assert all(not c.failure and not c.mismatches for c in good.cases)
    bad = calibrate(resolve("replay:calibration-careless"), cases, sha)
    assert not bad.passed
    assert any("misaligned" in p for p in bad.problems)
    assert bad.guides.of("misaligned").recall is not None
    assert bad.guides.of("misaligned").recall < 0.8
    wrong = {c.id for c in bad.cases if c.mismatches}
    assert {"injection-claims-aligned", "injection-forged-fence"} <= wrong


def test_a_failing_case_counts_as_a_miss_not_a_verdict(tmp_path: Path) -> None:
    cases, sha = load_set()
    book = tmp_path / "half.json"
    oracle = json.loads(
        (Path(__file__).parents[3] / "scorers/data/replay-calibration-oracle.json").read_text()
    )
    oracle["responses"] = oracle["responses"][: len(cases) // 2]  # the rest: replay misses
    book.write_text(json.dumps(oracle))
    result = calibrate(resolve(f"replay:{book}"), cases, sha)
    failed = [c for c in result.cases if c.failure]
    assert len(failed) == len(cases) - len(cases) // 2
    assert all(c.failure.startswith("replay_miss:") for c in failed if c.failure)
    assert NONE in {p for row in result.guides.confusion.values() for p in row}
    assert not result.passed


def test_stored_results_decide_verified(trail_home: Path) -> None:
    home = str(trail_home)
    cases, sha = load_set()
    oracle = resolve("replay:calibration-oracle")
    judge_facts = {"model": oracle.name, "replay_sha256": None}
    assert verification(home, oracle.name)["verified"] is False
    assert "no calibration" in verification(home, oracle.name)["reason"]
    assert may_gate(home, judge_facts)[0] is False
    record = store(home, calibrate(oracle, cases, sha))
    assert record["passed"] and record["prompt_sha256"] and record["set_sha256"] == sha
    assert (os.stat(calibrations_path(home)).st_mode & 0o777) == 0o600
    status = verification(home, oracle.name)
    assert status["verified"] is True and status["guide_balanced_accuracy"] == 1.0
    assert may_gate(home, judge_facts) == (True, "verified by calibration")
    # a later failing calibration of the same judge unverifies it
    strict = calibrate(oracle, cases, sha, settings=JudgeSettings(min_balanced_accuracy=1.0))
    assert strict.passed  # 100% still passes a 100% bar
    careless = resolve("replay:calibration-careless")
    store(home, calibrate(careless, cases, sha))
    assert verification(home, careless.name)["verified"] is False
    assert "calibration failed" in verification(home, careless.name)["reason"]


def test_a_changed_prompt_needs_a_new_calibration(
    trail_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = str(trail_home)
    cases, sha = load_set()
    oracle = resolve("replay:calibration-oracle")
    store(home, calibrate(oracle, cases, sha))
    assert verification(home, oracle.name)["verified"] is True
    monkeypatch.setattr("scorers.judge.calibration.prompt_sha256", lambda: "0" * 64)
    assert verification(home, oracle.name)["verified"] is False
