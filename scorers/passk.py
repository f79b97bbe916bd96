"""pass^k: how reliably a task is delivered when it is run again (tau-bench, anchors A12).

Per task, with its own ``n`` trials (ragged n across tasks is fine) of which ``c`` delivered::

    pass^k = C(c, k) / C(n, k)        (the unbiased estimator; requires n >= k)

``n < k`` is reported as ``insufficient trials`` and never computed. The gate is
"all k succeed": a task passes only when every one of its trials delivered (c == n >= k);
``0 < c < n`` is ``flaky``, ``c == 0`` is ``failing`` — both fail the gate (exit 3).
Runs whose outcome is unknown are not trials; they are counted apart and reported.
When ``k`` is not given it is each task's own ``n`` (seed 001: all provided runs must deliver).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from math import comb
from typing import Any

from trace_ingest.errors import ScorerError


@dataclass(frozen=True)
class TaskPassK:
    task: str
    n: int  # trials with a known outcome
    c: int  # of which delivered
    k: int
    unknown: int  # runs of this task with no recorded outcome (not trials)
    pass_hat_k: float | None  # None when n < k
    status: str  # pass | flaky | failing | insufficient trials
    runs: tuple[str, ...] = ()

    @property
    def gate_failed(self) -> bool:
        return self.status in ("flaky", "failing")

    def as_dict(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "n": self.n,
            "c": self.c,
            "k": self.k,
            "unknown_outcome": self.unknown,
            "pass_hat_k": self.pass_hat_k,
            "status": self.status,
            "all_k_succeed": self.status == "pass",
            "runs": list(self.runs),
        }


def pass_hat_k(n: int, c: int, k: int) -> float | None:
    """C(c,k)/C(n,k); None when n < k (insufficient trials)."""
    if k < 1:
        raise ScorerError(f"k must be at least 1, not {k}")
    if not 0 <= c <= n:
        raise ScorerError(f"successes c={c} must lie between 0 and n={n}")
    if n < k:
        return None
    return comb(c, k) / comb(n, k)


def task_passk(
    task: str, outcomes: Iterable[tuple[str, bool | None]], k: int | None = None
) -> TaskPassK:
    """``outcomes`` = (run id, delivered or None) for every run of the task."""
    runs = list(outcomes)
    known = [d for _, d in runs if d is not None]
    n, c = len(known), sum(1 for d in known if d)
    unknown = len(runs) - n
    kk = k if k is not None else max(n, 1)
    value = pass_hat_k(n, c, kk)
    if value is None:
        status = "insufficient trials"
    elif c == n:
        status = "pass"
    elif c == 0:
        status = "failing"
    else:
        status = "flaky"
    return TaskPassK(task, n, c, kk, unknown, value, status, tuple(r for r, _ in runs))


def passk_by_task(
    runs: Iterable[tuple[str, str, bool | None]], k: int | None = None
) -> list[TaskPassK]:
    """``runs`` = (task, run id, delivered); one result per task, sorted by task."""
    grouped: dict[str, list[tuple[str, bool | None]]] = {}
    for task, run_id, delivered in runs:
        grouped.setdefault(task, []).append((run_id, delivered))
    return [task_passk(t, grouped[t], k) for t in sorted(grouped)]
