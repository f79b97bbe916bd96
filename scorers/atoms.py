"""The scoring atom: the one shape every check at every level yields (docs/grading.md).

A grade is only ever an aggregate of atoms: ``score = earned / possible`` over the *scored*
atoms, shown beside ``coverage = scored possible / total possible``. An ``unscored`` atom keeps
its ``possible`` (so coverage can say what was not judged) but leaves both the numerator and the
denominator of the score: missing data is never a deduction and never a free pass.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

Status = Literal["pass", "fail", "warn", "unscored"]
Severity = Literal["high", "medium", "low", "info"]

STATUSES: tuple[str, ...] = ("pass", "fail", "warn", "unscored")
MAX_EVIDENCE = 50  # event ids kept per atom; the reason says how many there were


@dataclass(frozen=True, slots=True)
class Atom:
    """One judgement: ``{check, level, status, severity, weight, earned, possible, evidence,
    reason}``. ``evidence`` holds event ids (or step / audit-row references for file inputs)."""

    check: str
    level: str
    status: Status
    severity: Severity
    weight: float
    earned: float
    possible: float
    evidence: tuple[str, ...] = ()
    reason: str = ""

    @property
    def scored(self) -> bool:
        return self.status != "unscored"

    def as_dict(self) -> dict[str, Any]:
        return {
            "check": self.check,
            "level": self.level,
            "status": self.status,
            "severity": self.severity,
            "weight": self.weight,
            "earned": self.earned,
            "possible": self.possible,
            "evidence": list(self.evidence),
            "reason": self.reason,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Atom:
        return cls(
            check=str(data["check"]),
            level=str(data["level"]),
            status=data["status"],
            severity=data["severity"],
            weight=float(data["weight"]),
            earned=float(data["earned"]),
            possible=float(data["possible"]),
            evidence=tuple(str(e) for e in data.get("evidence") or ()),
            reason=str(data.get("reason") or ""),
        )


def _evidence(ids: Iterable[str | None]) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for i in ids:
        if i and i not in seen:
            seen[i] = None
            if len(seen) >= MAX_EVIDENCE:
                break
    return tuple(seen)


def passed(
    check: str,
    level: str,
    *,
    weight: float,
    severity: Severity = "info",
    evidence: Iterable[str | None] = (),
    reason: str = "",
) -> Atom:
    """A check that held: earns its full weight."""
    return Atom(check, level, "pass", severity, weight, weight, weight, _evidence(evidence), reason)


def flagged(
    check: str,
    level: str,
    *,
    weight: float,
    severity: Severity,
    evidence: Iterable[str | None] = (),
    reason: str = "",
    earned: float = 0.0,
) -> Atom:
    """A check that did not hold: ``fail`` for high severity, ``warn`` otherwise."""
    status: Status = "fail" if severity == "high" else "warn"
    return Atom(check, level, status, severity, weight, earned, weight, _evidence(evidence), reason)


def graded(
    check: str,
    level: str,
    *,
    earned: float,
    possible: float,
    ok: bool,
    severity: Severity = "info",
    evidence: Iterable[str | None] = (),
    reason: str = "",
    fail_status: Status = "fail",
) -> Atom:
    """A check with partial credit (``earned`` of ``possible`` points)."""
    status: Status = "pass" if ok else fail_status
    return Atom(
        check, level, status, severity, possible, earned, possible, _evidence(evidence), reason
    )


def unscored(
    check: str, level: str, *, weight: float, reason: str, severity: Severity = "info"
) -> Atom:
    """A check that could not be judged: ``reason`` names the missing capability."""
    return Atom(check, level, "unscored", severity, weight, 0.0, weight, (), reason)


@dataclass(frozen=True)
class Aggregate:
    """earned / possible over scored atoms, with coverage = scored possible / total possible."""

    earned: float
    possible: float  # scored possible
    total_possible: float
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def score(self) -> float | None:
        """None when nothing was scored (never 0: absence stays absence)."""
        return self.earned / self.possible if self.possible > 0 else None

    @property
    def coverage(self) -> float:
        if self.total_possible <= 0:
            return 1.0 if not self.counts.get("unscored") else 0.0
        return self.possible / self.total_possible

    def as_dict(self) -> dict[str, Any]:
        score = self.score
        return {
            "earned": round(self.earned, 6),
            "possible": round(self.possible, 6),
            "total_possible": round(self.total_possible, 6),
            "score": None if score is None else round(score, 6),
            "coverage": round(self.coverage, 6),
            "counts": dict(self.counts),
        }


def aggregate(atoms: Sequence[Atom]) -> Aggregate:
    """Aggregate atoms: the only way a number is made from checks."""
    earned = possible = total = 0.0
    counts = dict.fromkeys(STATUSES, 0)
    for atom in atoms:
        counts[atom.status] += 1
        total += atom.possible
        if atom.scored:
            earned += atom.earned
            possible += atom.possible
    return Aggregate(earned, possible, total, counts)


def level_verdict(agg: Aggregate, min_coverage: float) -> str | None:
    """``insufficient-data`` below the coverage threshold, else None (the level decides)."""
    if agg.total_possible > 0 and agg.coverage < min_coverage:
        return "insufficient-data"
    if agg.possible <= 0:
        return "insufficient-data"
    return None
