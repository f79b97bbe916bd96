"""Click commands owned by telemetry: sessions, show, sync, capture (`trail watch` is
scorers.watch: it mirrors and grades).

Every read command syncs first (and sweeps idle sessions), so it never shows stale data.
"""

from __future__ import annotations

import json
import os
from typing import Any

import click

from telemetry import queries
from telemetry.canonical import Canonical
from telemetry.render import describe, short_time, table
from telemetry.sync import SyncReport
from trace_ingest.paths import capture_off_path, ensure_home

json_option = click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")


def _warn_sync(report: SyncReport) -> None:
    for item in report.quarantined:
        click.echo(
            f"warning: skipped line at byte {item.offset} of {item.path}: {item.reason}", err=True
        )
    for done in report.resynced:
        click.echo(f"note: re-read {done.path}: {done.reason}", err=True)


@click.command()
@click.option("--harness", default=None, help="Only sessions of this harness.")
@click.option("--limit", type=int, default=None, help="At most this many, newest first.")
@json_option
def sessions(harness: str | None, limit: int | None, as_json: bool) -> None:
    """List recorded sessions, newest first.

    Columns: session key, harness, project dir, start, last event, state
    (open / closed / reopened) and event count.
    """
    db, report = queries.open_synced()
    _warn_sync(report)
    rows = queries.list_sessions(db, harness, limit)
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    if not rows:
        click.echo("No sessions yet. Register the hook with `trail install`, or try `trail demo`.")
        return
    shown = [
        {
            **r,
            "started_at": short_time(r["started_at"]),
            "last_event_at": short_time(r["last_event_at"]),
        }
        for r in rows
    ]
    click.echo(
        table(
            shown,
            [
                ("key", "SESSION"),
                ("harness", "HARNESS"),
                ("project_dir", "PROJECT"),
                ("started_at", "STARTED"),
                ("last_event_at", "LAST EVENT"),
                ("state", "STATE"),
                ("event_count", "EVENTS"),
            ],
        )
    )


@click.command()
@click.argument("session")
@click.option(
    "--all",
    "show_all",
    is_flag=True,
    help="Also list recorded lines that hold no agent activity (attachments, bookkeeping).",
)
@json_option
def show(session: str, show_all: bool, as_json: bool) -> None:
    """Show one session's timeline: one row per real action, in the harness's own order.

    SESSION is a session key (as `trail sessions` prints it), the harness's session id, or a
    unique prefix of either. A session seen by hooks and by its transcript is shown once, each
    event naming the sources that saw it (docs/reconciliation.md).
    """
    db, report = queries.open_synced()
    _warn_sync(report)
    meta = queries.resolve_session(db, session)
    timeline = queries.session_timeline(db, meta["key"])
    events = timeline.events if show_all else timeline.visible()
    redactions = queries.redaction_counts(db, meta["key"])
    if as_json:
        click.echo(
            json.dumps(
                {
                    "session": meta,
                    "redactions": redactions,
                    "events": events,
                    "hidden": 0 if show_all else timeline.hidden,
                    "merged": timeline.merged,
                    "disagreements": [d.as_dict() for d in timeline.disagreements],
                },
                indent=2,
                default=str,
            )
        )
        return
    click.echo(_header(meta, redactions, timeline))
    for ev in events:
        agent = f" (subagent {ev['agent_id'][:8]})" if ev.get("agent_id") else ""
        marks = ""
        if ev.get("redactions"):
            marks += f"  [{sum(ev['redactions'].values())} redacted]"
        if ev.get("truncated"):
            marks += "  [truncated]"
        click.echo(
            f"{short_time(ev.get('ts'))[11:]}  {ev.get('kind', ''):<15} "
            f"{describe(ev)}{agent}{marks}"
        )
    notes = []
    if timeline.hidden and not show_all:
        notes.append(f"{timeline.hidden} line(s) without agent activity hidden (--all shows them)")
    if timeline.disagreements:
        notes.append(
            f"{len(timeline.disagreements)} disagreement(s) between sources (see trail eval score)"
        )
    for note in notes:
        click.echo(f"\n{note}")


def _sources(timeline: Canonical) -> str:
    seen: dict[str, None] = {}
    for ev in timeline.events:
        for src in ev.get("sources") or ():
            seen.setdefault(str(src))
    return " + ".join(seen)


def _header(meta: dict[str, Any], redactions: dict[str, int], timeline: Canonical) -> str:
    lines = [
        f"session   {meta['key']}  ({meta['harness']}, id {meta['session_id']})",
        f"project   {meta.get('project_dir') or '-'}",
        f"time      {short_time(meta['started_at'])} → {short_time(meta['last_event_at'])}",
        f"state     {meta['state']}"
        + (f" ({meta['close_reason']})" if meta.get("close_reason") else "")
        + (f", reopened {meta['reopen_count']}x" if meta.get("reopen_count") else ""),
        f"events    {len(timeline.events) - timeline.hidden} actions"
        + (f" from {sources}" if (sources := _sources(timeline)) else "")
        + f" ({meta['event_count']} recorded)  errors {meta['error_count']}",
        "redacted  " + (", ".join(f"{rule} {n}" for rule, n in redactions.items()) or "nothing"),
        "",
    ]
    return "\n".join(lines)


@click.command("sync")
@json_option
def sync_cmd(as_json: bool) -> None:
    """Mirror every trace.jsonl into SQLite, from where the last sync stopped.

    Idempotent: running it again adds nothing. Malformed lines are quarantined and reported;
    an incomplete last line is left until it is complete. Commits every 4 MiB, so an
    interrupted sync keeps its progress. A trace that was truncated, replaced or edited is
    re-read from the start. Waits up to 10 s for another sync's step, then exits 1.
    """
    _, report = queries.open_synced(wait=True)
    if as_json:
        click.echo(json.dumps(report.as_dict(), indent=2))
        return
    click.echo(
        f"synced {report.files} trace files: {report.new_events} new events, "
        f"{len(report.quarantined)} lines skipped, {report.closed} sessions closed idle"
    )
    for item in report.quarantined:
        click.echo(f"  skipped {item.path} at byte {item.offset}: {item.reason}")
    for item in report.pending:
        click.echo(f"  waiting {item.path} at byte {item.offset}: {item.reason}")
    for done in report.resynced:
        click.echo(f"  re-read {done.path}: {done.reason}")
    for item in report.ignored:
        click.echo(f"  ignored {item.path}: {item.reason}")


@click.command()
@click.argument("state", type=click.Choice(["on", "off", "status"]), default="status")
def capture(state: str) -> None:
    """Turn capture on or off for every harness (or show whether it is on).

    Off creates $TRAIL_HOME/capture-off; hooks then drain stdin and record nothing. The
    environment variable TRAIL_DISABLE=1 does the same for one process tree.
    """
    flag = capture_off_path(ensure_home())
    if state == "off":
        os.close(os.open(flag, os.O_WRONLY | os.O_CREAT, 0o600))
    elif state == "on" and os.path.exists(flag):
        os.remove(flag)
    off = os.path.exists(flag) or os.environ.get("TRAIL_DISABLE") == "1"
    click.echo(f"capture is {'off' if off else 'on'}")
