"""Alignment rates, computed when read from the verdict rows (seed 002); nothing is stored.

- A guide's rate counts only the sessions that engaged it: ``aligned / (aligned +
  misaligned)``. ``not_applicable`` (shown "Not engaged") is in neither the numerator nor the
  denominator.
- A guide with no verdict row is **unevaluated** (rate None), never 100 % and never failing;
  one whose every verdict is not_applicable has no rate either ("not engaged").
- Each session counts with its newest L2 grade (telemetry.queries.current_guide_verdicts).
- An action without a verdict is **unjudged**, not unguided.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlite_utils import Database

from telemetry import queries


@dataclass
class GuideRate:
    """One guide version's verdicts over sessions."""

    guide: str
    version: str
    aligned: list[str] = field(default_factory=list)  # session keys
    misaligned: list[str] = field(default_factory=list)
    not_engaged: list[str] = field(default_factory=list)
    loaded_in: list[str] = field(default_factory=list)  # sessions it reached

    @property
    def engaged(self) -> list[str]:
        return sorted({*self.aligned, *self.misaligned})

    @property
    def rate(self) -> float | None:
        """aligned / engaged, or None when no session engaged it."""
        n = len(self.aligned) + len(self.misaligned)
        return None if n == 0 else len(self.aligned) / n

    @property
    def status(self) -> str:
        if self.rate is not None:
            return "rated"
        if self.not_engaged:
            return "not engaged"
        return "unevaluated"

    def as_dict(self) -> dict[str, Any]:
        return {
            "guide": self.guide,
            "version": self.version,
            "rate": self.rate,
            "status": self.status,
            "aligned": len(self.aligned),
            "misaligned": len(self.misaligned),
            "notEngaged": len(self.not_engaged),
            "engagedSessions": self.engaged,
            "loadedIn": sorted(self.loaded_in),
        }


def guide_rates(db: Database, guide: str | None = None) -> list[GuideRate]:
    """The rate of every guide version that reached an agent or has a verdict, by guide
    name then version (``guide``: only that one)."""
    rates: dict[tuple[str, str], GuideRate] = {}

    def row(name: str, version: str) -> GuideRate:
        return rates.setdefault((name, version), GuideRate(name, version))

    for name, version, key in queries.guide_loads(db):
        # A load whose text was not captured was never judgeable: listed as version "",
        # unevaluated, with the sessions it reached.
        r = row(name, version)
        if key not in r.loaded_in:
            r.loaded_in.append(key)
    for name, version, verdict, key in queries.current_guide_verdicts(db):
        r = row(name, version)
        {"aligned": r.aligned, "misaligned": r.misaligned}.get(verdict, r.not_engaged).append(key)
        if key not in r.loaded_in:
            r.loaded_in.append(key)
    out = sorted(rates.values(), key=lambda r: (r.guide, r.version))
    return [r for r in out if guide is None or r.guide == guide]


@dataclass(frozen=True)
class ActionCounts:
    """Actions of the graded sessions by verdict; ``unjudged``: actions without one."""

    aligned: int
    misaligned: int
    unguided: int
    unjudged: int

    def as_dict(self) -> dict[str, int]:
        return {
            "aligned": self.aligned,
            "misaligned": self.misaligned,
            "unguided": self.unguided,
            "unjudged": self.unjudged,
        }


def action_counts(
    verdicts: dict[str, str], action_ids: list[str] | tuple[str, ...]
) -> ActionCounts:
    """Count a session's actions by verdict; an action absent from ``verdicts`` is unjudged."""
    seen = [verdicts.get(a) for a in action_ids]
    return ActionCounts(
        aligned=seen.count("aligned"),
        misaligned=seen.count("misaligned"),
        unguided=seen.count("unguided"),
        unjudged=seen.count(None),
    )
