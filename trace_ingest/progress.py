"""A one-line progress meter on stderr for long imports and syncs: files, events, rate.

Shown only when stderr is a terminal (never in a pipe, a log, CI or a hook), redrawn at most
every ``INTERVAL`` seconds and only after ``DELAY`` seconds (a quick run prints nothing), and
erased when the run ends, so the command's own report is all that stays on screen.
"""

from __future__ import annotations

import os
import sys
import time
from typing import TextIO

DELAY = 1.0  # seconds before the first line: short runs stay silent
INTERVAL = 0.2


class Progress:
    """``update(files, events)`` as work advances; ``done()`` at the end."""

    def __init__(self, label: str, stream: TextIO | None = None, force: bool = False) -> None:
        self.label = label
        self.stream = stream or sys.stderr
        try:
            tty = self.stream.isatty()
        except (AttributeError, ValueError):
            tty = False
        self.on = (force or tty) and not os.environ.get("TRAIL_NO_PROGRESS")
        self.start = time.monotonic()
        self.last = 0.0
        self.shown = False

    def update(self, files: int, events: int) -> None:
        if not self.on:
            return
        now = time.monotonic()
        if now - self.start < DELAY or now - self.last < INTERVAL:
            return
        self.last = now
        rate = events / max(now - self.start, 1e-9)
        self.stream.write(
            f"\r\x1b[K{self.label}: {files:,} files, {events:,} events, {rate:,.0f} events/s"
        )
        self.stream.flush()
        self.shown = True

    def done(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False
