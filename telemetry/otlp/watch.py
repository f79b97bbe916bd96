"""``trail watch --export``: export after each sweep, like ``trail export otlp``."""

from __future__ import annotations

import time
from collections.abc import Callable

from sqlite_utils import Database

from trace_ingest.errors import ExportError


def export_step(home: str, echo: Callable[[str], None]) -> Callable[[Database], None]:
    """What runs after each sweep: export what changed; a failure is said once until it
    clears (the cursor did not advance: the next sweep delivers it)."""
    from telemetry.otlp.cli import settings_from
    from telemetry.otlp.send import Progress, run_export

    settings = settings_from(home)
    failing = False

    def step(db: Database) -> None:
        nonlocal failing
        try:
            report = run_export(db, home, settings, progress=Progress(0))
        except ExportError as exc:
            if not failing:
                echo(f"{time.strftime('%H:%M:%S')} export: {exc}")
            failing = True
            return
        failing = False
        if report.sessions:
            echo(
                f"{time.strftime('%H:%M:%S')} exported {report.sessions} session(s),"
                f" {report.spans} span(s)"
            )

    return step
