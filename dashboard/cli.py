"""Click commands owned by the dashboard: ``trail serve`` and ``trail report``."""

from __future__ import annotations

import os

import click

from dashboard import pages, server, views
from scorers import ledger
from telemetry import queries
from trace_ingest.errors import TrailError
from trace_ingest.paths import FILE_MODE, trail_home


@click.command("serve")
@click.option(
    "--port",
    default=8765,
    show_default=True,
    type=click.IntRange(0, 65535),
    help="Port on 127.0.0.1 (0: any free port).",
)
@click.option(
    "--sync-every",
    default=5.0,
    show_default=True,
    type=click.FloatRange(0.5, 3600),
    help="Seconds between syncs of the mirror with the traces.",
)
def serve(port: int, sync_every: float) -> None:
    """Serve the dashboard on http://127.0.0.1:PORT/ (sessions, session, guides, tasks).

    Bound to 127.0.0.1 only; a request with any other Host header is refused (DNS
    rebinding). The mirror is synced on start and every --sync-every seconds, never per
    request; pages update when it changes. See docs/dashboard.md.
    """
    try:
        server.serve(trail_home(), port, sync_every, lambda m: click.echo(m, err=True))
    except OSError as exc:
        raise TrailError(f"cannot serve on 127.0.0.1:{port}: {exc.strerror or exc}") from exc


@click.command("report")
@click.argument("session")
@click.option(
    "--html",
    "html_path",
    required=True,
    type=click.Path(dir_okay=False),
    help="Write the session page here, as one self-contained HTML file.",
)
def report(session: str, html_path: str) -> None:
    """Write SESSION's dashboard page as one HTML file: no script, no network, no external
    assets (for a pull request or an issue).

    SESSION is a key, a harness session id, or a unique prefix (as `trail show` takes).
    """
    home = trail_home()
    db, _ = queries.open_synced(home)
    ledger.sync(db, home)
    view = views.session(db, home, session)
    doc = pages.session_page(view, served=False)
    fd = os.open(html_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, FILE_MODE)
    with os.fdopen(fd, "w", encoding="utf-8", errors="replace") as fh:
        fh.write(doc)
    click.echo(
        f"wrote {html_path} ({len(doc.encode('utf-8', 'replace')):,} bytes) for {view.meta['key']}"
    )
