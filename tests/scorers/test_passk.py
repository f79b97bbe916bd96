"""pass^k: the unbiased estimator per task with its own n, and the all-k gate."""

from __future__ import annotations

import pytest

from scorers.passk import pass_hat_k, passk_by_task, task_passk
from trace_ingest.errors import ScorerError


def test_ragged_n_each_task_its_own_n() -> None:
    runs = [("A", f"a{i}", i != 4) for i in range(5)]  # task A: n=5, c=4
    runs += [("B", "b0", True), ("B", "b1", True)]  # task B: n=2
    a, b = passk_by_task(runs, k=3)
    # C(4,3)/C(5,3) = 4/10
    assert (a.task, a.n, a.c, a.k, a.pass_hat_k) == ("A", 5, 4, 3, 0.4)
    assert a.status == "flaky" and a.gate_failed
    # n=2 < k=3: never computed
    assert (b.task, b.n, b.pass_hat_k, b.status) == ("B", 2, None, "insufficient trials")
    assert not b.gate_failed


def test_estimator_values() -> None:
    assert pass_hat_k(5, 5, 3) == 1.0
    assert pass_hat_k(5, 2, 3) == 0.0  # C(2,3) = 0
    assert pass_hat_k(4, 3, 1) == 0.75  # pass^1 = average success
    assert pass_hat_k(6, 5, 2) == pytest.approx(10 / 15)
    assert pass_hat_k(2, 2, 3) is None


def test_bad_arguments_are_errors() -> None:
    with pytest.raises(ScorerError):
        pass_hat_k(3, 4, 1)
    with pytest.raises(ScorerError):
        pass_hat_k(3, 1, 0)


def test_default_k_is_n_all_runs_must_deliver() -> None:
    flaky = task_passk("T3", [("r1", True), ("r2", True), ("r3", False)])
    assert (flaky.k, flaky.pass_hat_k, flaky.status) == (3, 0.0, "flaky")
    steady = task_passk("T1", [("r1", True)])
    assert (steady.k, steady.pass_hat_k, steady.status) == (1, 1.0, "pass")
    failing = task_passk("T4", [("r1", False), ("r2", False)])
    assert (failing.status, failing.gate_failed) == ("failing", True)


def test_unknown_outcomes_are_not_trials() -> None:
    t = task_passk("T", [("r1", True), ("r2", None), ("r3", True)], k=2)
    assert (t.n, t.c, t.unknown, t.pass_hat_k, t.status) == (2, 2, 1, 1.0, "pass")
    only_unknown = task_passk("U", [("r1", None)])
    assert only_unknown.status == "insufficient trials"
