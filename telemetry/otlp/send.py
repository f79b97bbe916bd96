"""An export run: select the sessions, map them, send them in batches, advance the cursor.

Delivery is at least once per changed session and, with the cursor, exactly once per
unchanged one: a batch is recorded in the cursor only after the collector accepted it, so an
export while the collector is down records nothing and the next one delivers all of it.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import orjson
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult
from sqlite_utils import Database

from telemetry.lifecycle import to_epoch
from telemetry.otlp import cursor
from telemetry.otlp.mapping import Options, session_spans
from telemetry.queries import list_grades, list_sessions, resolve_session, session_timeline
from trace_ingest._blake import blake2b
from trace_ingest.errors import ConfigError, ExportError

PROTOCOLS = ("http/protobuf", "grpc")
DEFAULT_ENDPOINTS = {"http/protobuf": "http://localhost:4318/v1/traces", "grpc": "localhost:4317"}


@dataclass
class Settings:
    """What an export run needs (``export.otlp`` in config.json, overridden by the flags)."""

    endpoint: str = ""
    protocol: str = "http/protobuf"
    headers: dict[str, str] = field(default_factory=dict)
    timeout_seconds: float = 10.0
    retries: int = 3
    backoff_seconds: float = 1.0
    batch_spans: int = 512
    include_content: bool = False
    max_content_chars: int = 4096

    def target(self) -> str:
        """The endpoint as sent to: an HTTP base URL without a path gets ``/v1/traces``."""
        url = self.endpoint or DEFAULT_ENDPOINTS[self.protocol]
        if self.protocol == "http/protobuf":
            parts = urlsplit(url)
            if parts.path in ("", "/"):
                url = url.rstrip("/") + "/v1/traces"
        return url


@dataclass
class Report:
    sessions: int = 0  # sessions sent
    spans: int = 0  # spans sent
    unchanged: int = 0  # sessions the endpoint already holds as they are
    batches: int = 0
    retried: int = 0


def make_exporter(settings: Settings) -> SpanExporter:
    """The SDK's OTLP exporter for ``settings`` (gRPC imported only when asked for)."""
    headers = dict(settings.headers)
    if settings.protocol == "grpc":
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import (
            OTLPSpanExporter as GrpcExporter,
        )

        target = settings.target()
        insecure = not target.startswith("https://")
        host = target.split("://", 1)[-1]
        return GrpcExporter(
            endpoint=host, insecure=insecure, headers=headers, timeout=settings.timeout_seconds
        )
    if settings.protocol != "http/protobuf":
        raise ConfigError(f"protocol must be one of {', '.join(PROTOCOLS)}")
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    return OTLPSpanExporter(
        endpoint=settings.target(), headers=headers, timeout=settings.timeout_seconds
    )


def parse_since(when: str, now: float | None = None) -> float:
    """``WHEN`` as epoch seconds: an ISO 8601 date or time, or an age (``30m``, ``2h``,
    ``7d``)."""
    text = when.strip()
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
    if text[-1:] in units and text[:-1].replace(".", "", 1).isdigit():
        return (now if now is not None else time.time()) - float(text[:-1]) * units[text[-1]]
    epoch = to_epoch(text if "T" in text else text + "T00:00:00+00:00")
    if epoch is None:
        raise ConfigError(f"--since {when!r}: give an ISO date or time, or an age like 2h or 7d")
    return epoch


def select_sessions(
    db: Database, *, session: str | None, since: float | None, include_open: bool
) -> list[dict[str, Any]]:
    """The sessions to consider, oldest first: one by id (whatever its state), else every
    closed session (open ones with ``include_open``) last active at or after ``since``."""
    if session:
        return [resolve_session(db, session)]
    rows = []
    for row in reversed(list_sessions(db)):
        if row.get("state") == "open" and not include_open:
            continue
        last = to_epoch(row.get("last_event_at"))
        if since is not None and (last is None or last < since):
            continue
        rows.append(row)
    return rows


def current_grades(db: Database, key: str) -> list[dict[str, Any]]:
    """The newest ledger entry of each rubric for a session (older ones are history)."""
    newest: dict[str, dict[str, Any]] = {}
    for grade in list_grades(db, session=key):
        if grade.get("sessionKey") == key:
            newest[str(grade.get("rubric"))] = grade
    return list(newest.values())


def digest(spans: Sequence[ReadableSpan]) -> str:
    """What a session maps to, as one hash: every field a span sends (ids, name, times,
    status, attributes, events). Hashed from the span model rather than the protobuf bytes:
    the SDK's encoder is the slowest step of an export, and it would run twice."""
    h = blake2b(digest_size=16)
    for span in spans:
        ctx = span.context
        parent = span.parent
        h.update(
            orjson.dumps(
                [
                    f"{ctx.trace_id:x}" if ctx else "",
                    f"{ctx.span_id:x}" if ctx else "",
                    f"{parent.span_id:x}" if parent else "",
                    span.name,
                    span.start_time,
                    span.end_time,
                    span.status.status_code.value,
                    span.status.description,
                    dict(span.attributes or {}),
                    [[e.name, e.timestamp, dict(e.attributes or {})] for e in span.events],
                ],
                option=orjson.OPT_SORT_KEYS,
                default=str,
            )
        )
    return h.hexdigest()


@contextmanager
def _quiet_sdk() -> Iterator[None]:
    """The SDK logs each failed attempt itself; trail reports once, in its own words (and
    nothing it logs can carry a header: trail never passes them to a logger)."""
    logger = logging.getLogger("opentelemetry")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        logger.setLevel(level)


def send_batch(
    exporter: SpanExporter,
    spans: Sequence[ReadableSpan],
    settings: Settings,
    report: Report,
    sleep: Callable[[float], None] = time.sleep,
) -> None:
    """Send one batch, retrying with exponential backoff; raises ExportError after the last
    attempt."""
    delay = settings.backoff_seconds
    for attempt in range(settings.retries + 1):
        with _quiet_sdk():
            try:
                result = exporter.export(spans)
            except Exception:  # an exporter raising is one more failed attempt
                result = SpanExportResult.FAILURE
        if result is SpanExportResult.SUCCESS:
            return
        if attempt < settings.retries:
            report.retried += 1
            sleep(delay)
            delay = min(delay * 2, 60.0)
    raise ExportError(
        f"the collector at {settings.target()} did not accept the spans after"
        f" {settings.retries + 1} attempt(s); nothing more was recorded as exported,"
        " the next export sends the rest"
    )


class Progress:
    """``exported 12/340 sessions`` on stderr, rewritten in place, only on a terminal."""

    def __init__(self, total: int, stream: Any = None) -> None:
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        self.on = total > 1 and bool(getattr(self.stream, "isatty", lambda: False)())

    def update(self, done: int, spans: int) -> None:
        if self.on:
            self.stream.write(f"\rexported {done}/{self.total} sessions ({spans} spans)")
            self.stream.flush()

    def close(self) -> None:
        if self.on:
            self.stream.write("\n")
            self.stream.flush()


def run_export(
    db: Database,
    home: str,
    settings: Settings,
    *,
    session: str | None = None,
    since: float | None = None,
    include_open: bool = False,
    exporter: SpanExporter | None = None,
    progress: Progress | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> Report:
    """Export what the endpoint does not hold yet; the cursor advances batch by batch."""
    endpoint = settings.target()
    delivered = cursor.load(home, endpoint)
    sessions = select_sessions(db, session=session, since=since, include_open=include_open)
    options = Options(settings.include_content, settings.max_content_chars)
    own = exporter is None
    exporter = exporter or make_exporter(settings)
    progress = progress or Progress(len(sessions))
    report = Report()
    batch: list[ReadableSpan] = []
    pending: dict[str, str] = {}

    def flush() -> None:
        if not batch:
            return
        send_batch(exporter, batch, settings, report, sleep)
        report.batches += 1
        report.spans += len(batch)
        report.sessions += len(pending)
        delivered.update(pending)
        cursor.save(home, endpoint, delivered)
        batch.clear()
        pending.clear()

    try:
        for done, row in enumerate(sessions, 1):
            key = str(row["key"])
            spans = session_spans(
                row, session_timeline(db, key).events, current_grades(db, key), options
            )
            mark = digest(spans)
            if delivered.get(key) == mark:
                report.unchanged += 1
            else:
                batch.extend(spans)
                pending[key] = mark
                if len(batch) >= settings.batch_spans:
                    flush()
            progress.update(done, report.spans + len(batch))
        flush()
    finally:
        progress.close()
        if own:
            with _quiet_sdk():
                exporter.shutdown()
    return report
