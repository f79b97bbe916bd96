"""Why a judge attempt could not produce a grade. Every one is a
``trace_ingest.errors.GradeAttemptFailed`` (under the four kinds the grading queue knows:
NoProvider, ProviderQuota, ProviderUnreachable, MalformedAnswer), so an attempt that raises
one writes nothing and the session stays queued (seed 002: "could not grade" is not a verdict,
and there is no attempt counter).

``kind_of(exc)`` is the failure's stable name, shown by ``trail eval calibrate`` and in logs:
``no_provider``, ``replay_miss``, ``quota``, ``network``, ``provider``, ``unparseable``,
``incomplete``, ``malformed``, ``budget``.
"""

from __future__ import annotations

from trace_ingest.errors import (
    GradeAttemptFailed,
    MalformedAnswer,
    NoProvider,
    ProviderQuota,
    ProviderUnreachable,
)

JudgeError = GradeAttemptFailed
QuotaExceeded = ProviderQuota  # HTTP 429, insufficient_quota, a rate limit

__all__ = [
    "IncompleteAnswer",
    "InputTooLarge",
    "JudgeError",
    "MalformedAnswer",
    "NetworkFailure",
    "NoProvider",
    "ProviderFailure",
    "QuotaExceeded",
    "ReplayMiss",
    "UnparseableAnswer",
    "kind_of",
]


class ReplayMiss(NoProvider):
    """The replay file holds no recorded response for this input."""


class NetworkFailure(ProviderUnreachable):
    """The request did not complete: connection refused or dropped, DNS, timeout."""


class ProviderFailure(ProviderUnreachable):
    """The provider answered with an error that is neither quota nor a rejected key
    (HTTP 5xx after the SDK's retries, a 4xx the request caused)."""


class UnparseableAnswer(MalformedAnswer):
    """The answer is not JSON, or not JSON of the facts schema (a truncated answer lands
    here)."""


class IncompleteAnswer(MalformedAnswer):
    """The answer leaves out a guide it was asked about (neither cited nor declared not
    engaged)."""


class InputTooLarge(GradeAttemptFailed):
    """Not one action fits in the token budget (``judge.max_input_tokens``) with the guides."""


_KINDS: tuple[tuple[type[Exception], str], ...] = (
    (ReplayMiss, "replay_miss"),
    (NoProvider, "no_provider"),
    (ProviderQuota, "quota"),
    (NetworkFailure, "network"),
    (ProviderUnreachable, "provider"),
    (UnparseableAnswer, "unparseable"),
    (IncompleteAnswer, "incomplete"),
    (MalformedAnswer, "malformed"),
    (InputTooLarge, "budget"),
)


def kind_of(exc: BaseException) -> str:
    """The stable name of a failed attempt (see the module docstring)."""
    for cls, kind in _KINDS:
        if isinstance(exc, cls):
            return kind
    return "failed"
