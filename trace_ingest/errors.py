"""Named exceptions raised by library code; the CLI maps them to messages and exit codes.

Hot-path safe: standard library only.
"""

from __future__ import annotations


class TrailError(Exception):
    """Base class for every error trail raises on purpose."""


class ConfigError(TrailError):
    """A configuration file is missing, unreadable or invalid."""


class StoreError(TrailError):
    """The data directory or the SQLite mirror cannot be used."""


class UnknownHarness(TrailError):
    """A harness identifier that trail does not know."""


class AdapterError(TrailError):
    """A payload that an adapter cannot normalize."""


class SessionNotFound(TrailError):
    """No session matches the identifier given."""


class InstallError(TrailError):
    """A harness configuration file could not be read or written safely."""


class ScrubError(TrailError):
    """The scrubber could not process a value (the caller must fail closed)."""


class ScorerError(TrailError):
    """A grader could not run; never a verdict, always reported as an error."""


class GradeAttemptFailed(ScorerError):
    """An attempt to grade could not produce a verdict (seed 002, "A missing verdict is not a
    verdict"): nothing is written, the session stays queued and is tried again on the next
    run of the queue. There is no attempt counter. Judges raise one of the subclasses below
    (or their own subclass of this class); the queue catches this class only."""


class NoProvider(GradeAttemptFailed):
    """No judge model is configured, or the configured one is not installed."""


class ProviderQuota(GradeAttemptFailed):
    """The provider refused for quota, rate limit or spend: try again later."""


class ProviderUnreachable(GradeAttemptFailed):
    """The request failed: network, timeout, or a server error."""


class MalformedAnswer(GradeAttemptFailed):
    """The answer was unparseable, incomplete, or cited an event id that was not given."""


class ExportError(TrailError):
    """An export could not be delivered (the collector is down or refused it); the export
    cursor did not advance past what was not accepted, so the next export sends it."""
