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
