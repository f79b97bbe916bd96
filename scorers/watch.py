"""``trail watch``: mirror traces live, sweep idle sessions, and run the L2 grading queue.

The mirroring is telemetry's (telemetry.watch); after each sweep the sessions due for grading
(scorers.queue.pending: closed, not graded yet, inside their 24 h window) are graded once. A
failed attempt (no judge configured, quota, network, a malformed answer) writes nothing; the
session stays queued and is tried again after the next sweep.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import click
from sqlite_utils import Database

from trace_ingest.paths import trail_home


def grading_step(
    home: str, echo: Callable[[str], None], judge: str | None = None
) -> Callable[[Database], None]:
    """What runs after each sweep: the grading queue, reported in one line per change (a
    failure repeated run after run, like no judge configured, is said once)."""
    said: set[tuple[str, str]] = set()

    def step(db: Database) -> None:
        from scorers import queue

        report = queue.run_queue(db, home, judge=judge)
        for key in report.graded:
            echo(f"{time.strftime('%H:%M:%S')} graded {key} (L2)")
        for key, why in report.failed:
            if (key, why) not in said:
                said.add((key, why))
                echo(f"{time.strftime('%H:%M:%S')} not graded yet {key}: {why} (stays queued)")

    return step


@click.command()
@click.option(
    "--interval", type=float, default=60.0, show_default=True, help="Seconds between idle sweeps."
)
@click.option("--judge", default=None, help="L2 judge model for the queue (default: configured).")
@click.option("--no-grade", is_flag=True, help="Only mirror and sweep; grade nothing.")
@click.option(
    "--export",
    "export",
    is_flag=True,
    help="Also export to the export.otlp collector after each sweep (trail export otlp).",
)
@click.option("--once", is_flag=True, hidden=True, help="Sync, sweep and exit (for tests).")
def watch(interval: float, judge: str | None, no_grade: bool, export: bool, once: bool) -> None:
    """Mirror traces into SQLite live as hooks write them, and grade sessions as they close.

    Every --interval seconds idle sessions are swept closed, then each closed session not
    graded yet is graded once at L2 (a reopened session again when it closes; never more
    than 24 h after it closed). A failed attempt writes nothing and is retried after the next
    sweep. `trail eval pending` shows the queue. With --export, what closed or was graded is
    then exported like `trail export otlp` (a collector that is down is said once and
    tried again after the next sweep; nothing is lost). Ctrl-C to stop.
    """
    from telemetry.watch import run_watch

    home = trail_home()
    steps = [] if no_grade else [grading_step(home, click.echo, judge)]
    if export:
        from telemetry.otlp.watch import export_step

        steps.append(export_step(home, click.echo))

    def after_sweep(db: Database) -> None:
        for step in steps:
            step(db)

    run_watch(
        home, interval, once=once, echo=click.echo, after_sweep=after_sweep if steps else None
    )
