"""The atom and its aggregation: unscored leaves numerator and denominator."""

from __future__ import annotations

from scorers.atoms import Atom, aggregate, flagged, graded, level_verdict, passed, unscored


def test_unscored_leaves_the_score_and_lowers_coverage() -> None:
    atoms = [
        passed("a", "L1", weight=3),
        flagged("b", "L1", weight=2, severity="medium"),
        unscored("c", "L1", weight=5, reason="missing success_flags"),
    ]
    agg = aggregate(atoms)
    assert (agg.earned, agg.possible, agg.total_possible) == (3.0, 5.0, 10.0)
    assert agg.score == 0.6
    assert agg.coverage == 0.5
    assert agg.counts == {"pass": 1, "fail": 0, "warn": 1, "unscored": 1}


def test_flag_status_follows_severity() -> None:
    assert flagged("x", "L1", weight=1, severity="high").status == "fail"
    assert flagged("x", "L1", weight=1, severity="low").status == "warn"


def test_nothing_scored_is_no_score_not_zero() -> None:
    agg = aggregate([unscored("c", "L1", weight=5, reason="r")])
    assert agg.score is None
    assert agg.coverage == 0.0
    assert level_verdict(agg, 0.5) == "insufficient-data"


def test_coverage_threshold() -> None:
    atoms = [passed("a", "L1", weight=4), unscored("b", "L1", weight=6, reason="r")]
    assert level_verdict(aggregate(atoms), 0.5) == "insufficient-data"
    assert level_verdict(aggregate(atoms), 0.4) is None


def test_atom_round_trip_and_fields() -> None:
    a = graded(
        "p",
        "L0",
        earned=0.5,
        possible=1,
        ok=False,
        evidence=["e1", "e1", None, "e2"],
        reason="half",
        fail_status="warn",
    )
    d = a.as_dict()
    assert set(d) == {
        "check",
        "level",
        "status",
        "severity",
        "weight",
        "earned",
        "possible",
        "evidence",
        "reason",
    }
    assert d["evidence"] == ["e1", "e2"]
    assert Atom.from_dict(d) == a
