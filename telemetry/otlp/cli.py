"""``trail export otlp``: send sessions, tool calls and grades to an OpenTelemetry collector."""

from __future__ import annotations

from typing import Any

import click

from trace_ingest.errors import ConfigError
from trace_ingest.paths import trail_home


def settings_from(
    home: str,
    *,
    endpoint: str | None = None,
    protocol: str | None = None,
    headers: tuple[str, ...] = (),
    include_content: bool | None = None,
) -> Any:
    """``export.otlp`` from config.json, overridden by the flags given."""
    from telemetry.otlp.send import Settings
    from trace_ingest.config import load_config

    conf = dict(load_config(home).get("export", {}).get("otlp", {}))
    merged_headers = dict(conf.pop("headers", {}) or {})
    for number, item in enumerate(headers, 1):
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            # what was given may be a key (a bare token pasted without its name): never echoed
            raise ConfigError(
                f"--header #{number} must be NAME=VALUE (its text is not shown: it may be a key)"
            )
        merged_headers[name.strip()] = value
    settings = Settings(**conf)
    settings.headers = merged_headers
    if endpoint:
        settings.endpoint = endpoint
    if protocol:
        settings.protocol = protocol
    if include_content is not None and include_content:
        settings.include_content = True
    return settings


@click.group("export")
def export_group() -> None:
    """Export sessions to other systems."""


@export_group.command("otlp")
@click.option("--endpoint", default=None, help="Collector URL (default: config, else localhost).")
@click.option(
    "--protocol",
    type=click.Choice(["http/protobuf", "grpc"]),
    default=None,
    help="OTLP transport (default: config, else http/protobuf).",
)
@click.option(
    "--header", "headers", multiple=True, metavar="K=V", help="Request header (repeatable)."
)
@click.option(
    "--since", default=None, metavar="WHEN", help="Only sessions active since (ISO or 2h, 7d)."
)
@click.option("--session", default=None, metavar="ID", help="Only this session (any state).")
@click.option(
    "--include-open", is_flag=True, help="Also sessions still open (sent again as they grow)."
)
@click.option(
    "--include-content",
    is_flag=True,
    default=None,
    help="Also tool inputs/outputs and prompt text, bounded (export.otlp.max_content_chars).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def otlp(
    endpoint: str | None,
    protocol: str | None,
    headers: tuple[str, ...],
    since: str | None,
    session: str | None,
    include_open: bool,
    include_content: bool | None,
    as_json: bool,
) -> None:
    """Send sessions, tool calls and grades as OpenTelemetry GenAI traces (docs/export.md).

    One trace per session: an invoke_agent span for the agent, child invoke_agent spans for
    subagents, an execute_tool span per tool call, prompts as span events and every current
    grade as gen_ai.evaluation.result events. Ids derive from trail's event ids and a cursor
    in the data dir records what the endpoint accepted, so a repeated export sends only what
    changed; with the collector down nothing is recorded and the next export delivers it.
    Closed sessions only unless --include-open or --session. Exit 1 when the collector did
    not accept a batch (after retries with backoff).
    """
    import json

    from telemetry.otlp.send import parse_since, run_export
    from telemetry.queries import open_synced

    home = trail_home()
    settings = settings_from(
        home,
        endpoint=endpoint,
        protocol=protocol,
        headers=headers,
        include_content=include_content,
    )
    when = parse_since(since) if since else None
    db, _ = open_synced(home)
    try:
        report = run_export(
            db, home, settings, session=session, since=when, include_open=include_open
        )
    finally:
        db.close()
    if as_json:
        click.echo(json.dumps(report.__dict__))
        return
    click.echo(
        f"exported {report.sessions} session(s), {report.spans} span(s) to"
        f" {settings.target()} ({report.unchanged} unchanged, not sent again)"
    )
