"""The check protocol shared by every level, and the one runner that applies the completeness
rule and turns a crashing check into a ``ScorerError`` (never a pass, never a zero).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from scorers.atoms import Atom, Severity, unscored
from scorers.completeness import Profile
from trace_ingest.errors import ScorerError

Ctx = TypeVar("Ctx")
Ctx_contra = TypeVar("Ctx_contra", contravariant=True)


class Check(Protocol[Ctx_contra]):
    """A check: a name, a level, a severity, a weight, the capabilities it requires, and a
    function from a context to one atom."""

    @property
    def name(self) -> str: ...

    @property
    def level(self) -> str: ...

    @property
    def severity(self) -> Severity: ...

    @property
    def requires(self) -> frozenset[str]: ...

    def weight(self) -> float: ...

    def disabled(self) -> str | None:
        """Why the check is switched off by configuration (an unscored reason), or None."""
        ...

    def __call__(self, ctx: Ctx_contra) -> Atom: ...


@dataclass(frozen=True)
class FnCheck(Generic[Ctx]):
    """A check made from a function (the usual way to write one)."""

    name: str
    level: str
    severity: Severity
    requires: frozenset[str]
    fn: Callable[[Ctx], Atom]
    weight_value: float = 1.0
    disabled_reason: str | None = None

    def weight(self) -> float:
        return self.weight_value

    def disabled(self) -> str | None:
        return self.disabled_reason

    def __call__(self, ctx: Ctx) -> Atom:
        return self.fn(ctx)


def run_checks(checks: Iterable[Check[Ctx]], ctx: Ctx, profile: Profile) -> list[Atom]:
    """Apply each check: unmet requirements -> unscored with the reason; an exception inside a
    check -> ScorerError (the grade is abandoned, nothing is written)."""
    atoms: list[Atom] = []
    for check in checks:
        # A check switched off by its context, or one whose capabilities the session lacks.
        reason = check.disabled() or profile.unmet(check.requires)
        if reason:
            atoms.append(
                unscored(
                    check.name,
                    check.level,
                    weight=check.weight(),
                    reason=reason,
                    severity=check.severity,
                )
            )
            continue
        try:
            atom = check(ctx)
        except ScorerError:
            raise
        except Exception as exc:
            raise ScorerError(
                f"check {check.name} ({check.level}) failed: {type(exc).__name__}: {exc}"
            ) from exc
        atoms.append(atom)
    return atoms
