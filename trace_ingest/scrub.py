"""The scrubber: removes secrets from every value before anything reaches disk.

Hot-path safe: standard library only; rules compile lazily.

CONTRACT (used by the hook, importers, error log and ``trail scrub``):

    scrubber = load_scrubber(home)                 # reads home/config.json "scrub" section
    clean, counts = scrubber.scrub_value(obj)      # any JSON value -> same shape, redacted
    clean_text, counts = scrubber.scrub_text(s)    # one string

``counts`` maps rule id -> number of redactions. Redactions look like
``[REDACTED:<rule>:<fingerprint>]``. Scrubbing twice changes nothing.
"""

from __future__ import annotations

from typing import Any


class Scrubber:
    """Placeholder until the rule engine lands (issue 3)."""

    def scrub_text(self, text: str) -> tuple[str, dict[str, int]]:
        return text, {}

    def scrub_value(self, value: Any) -> tuple[Any, dict[str, int]]:
        return value, {}


def load_scrubber(home: str) -> Scrubber:
    """The scrubber configured for this data directory."""
    return Scrubber()
