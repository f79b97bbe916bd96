"""Why a judge attempt could not produce a grade. Each is a named ``JudgeError``; an attempt that
raises one writes nothing and the session stays queued (seed 002: "could not grade" is not a
verdict, and there is no attempt counter).

The ``kind`` of each class is the failure's stable name (shown by ``trail eval pending`` and in
logs): ``no_provider``, ``quota``, ``network``, ``provider``, ``unparseable``, ``incomplete``,
``malformed``, ``replay_miss``.
"""

from __future__ import annotations

from trace_ingest.errors import ScorerError


class JudgeError(ScorerError):
    """The judge could not grade the session; nothing was written."""

    kind = "judge"


class NoProvider(JudgeError):
    """No usable model: unknown to ``llm``, no plugin for it, no key, a key the provider
    rejected, or a model without structured output."""

    kind = "no_provider"


class QuotaExceeded(JudgeError):
    """The provider refused for rate or quota (HTTP 429, insufficient_quota)."""

    kind = "quota"


class NetworkFailure(JudgeError):
    """The request did not complete: connection refused or dropped, DNS, timeout."""

    kind = "network"


class ProviderFailure(JudgeError):
    """The provider answered with an error that is none of the above (HTTP 4xx/5xx)."""

    kind = "provider"


class MalformedAnswer(JudgeError):
    """The answer is not facts trail can use: it cites an id the input did not hold, names a
    guide twice, or contradicts itself."""

    kind = "malformed"


class UnparseableAnswer(MalformedAnswer):
    """The answer is not JSON, or not JSON of the facts schema (a truncated answer lands here)."""

    kind = "unparseable"


class IncompleteAnswer(MalformedAnswer):
    """The answer leaves out a guide it was asked about (neither cited nor declared not
    engaged)."""

    kind = "incomplete"


class ReplayMiss(JudgeError):
    """The replay file holds no recorded response for this input."""

    kind = "replay_miss"


class InputTooLarge(JudgeError):
    """Not one action fits in the token budget (``judge.max_input_tokens``) with the guides."""

    kind = "budget"
