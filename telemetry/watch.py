"""Live mirroring with watchdog: sync a trace file whenever it changes, sweep periodically."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable

from sqlite_utils import Database
from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from telemetry.db import open_db
from telemetry.lifecycle import sweep
from telemetry.sync import MirrorBusy, SyncReport, sync
from trace_ingest.config import load_config
from trace_ingest.paths import ensure_dir, sessions_dir


class _Changed(FileSystemEventHandler):
    def __init__(self, wake: threading.Event) -> None:
        self.wake = wake

    def on_any_event(self, event: FileSystemEvent) -> None:
        if str(event.src_path).endswith("trace.jsonl") or event.is_directory:
            self.wake.set()


def run_watch(
    home: str,
    interval: float,
    *,
    once: bool = False,
    echo: Callable[[str], None] = print,
    after_sweep: Callable[[Database], None] | None = None,
) -> None:
    """Sync now, then on every change under ``sessions/`` and sweep every ``interval`` s.

    ``after_sweep(db)`` runs after each sweep (``trail watch`` grades the sessions due, from
    scorers: telemetry never imports upward). Ctrl-C (SIGINT) and SIGTERM stop it cleanly,
    whatever it is doing at that moment.
    """
    idle = float(load_config(home)["lifecycle"]["idle_minutes"])
    wake = threading.Event()
    stop = threading.Event()

    def request_stop(signum: int, frame: object) -> None:
        stop.set()
        wake.set()

    previous = {sig: signal.signal(sig, request_stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    db = open_db(home)
    root = ensure_dir(sessions_dir(home))
    observer = Observer()
    observer.schedule(_Changed(wake), root, recursive=True)
    observer.start()
    echo(f"watching {root} (Ctrl-C to stop)")
    try:
        last_sweep = 0.0
        while not stop.is_set():
            try:
                _say(sync(db, home, idle), echo)
                if time.monotonic() - last_sweep >= interval:
                    closed = sweep(db, idle)
                    if closed:
                        echo(f"closed {closed} idle session(s)")
                    last_sweep = time.monotonic()
                    if after_sweep is not None:
                        after_sweep(db)
            except MirrorBusy as exc:
                # Another sync held the lock for a whole step's wait: it is mirroring the
                # same files; try again on the next change or interval.
                echo(f"{time.strftime('%H:%M:%S')} {exc}; retrying")
            if once:
                return
            wake.wait(timeout=interval)
            wake.clear()
        echo("stopped")
    finally:
        observer.stop()
        observer.join(timeout=5)
        db.close()
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _say(report: SyncReport, echo: Callable[[str], None]) -> None:
    if report.new_events:
        echo(f"{time.strftime('%H:%M:%S')} +{report.new_events} events")
    for item in report.quarantined:
        echo(
            f"skipped {os.path.basename(os.path.dirname(item.path))} at byte {item.offset}: "
            f"{item.reason}"
        )
