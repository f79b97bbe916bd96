"""Click commands owned by the hooks package: hook, install, uninstall.

The choices come from the tables: ``trail hook`` takes every harness of
``trace_ingest.harnesses.table.HARNESSES``, ``--harness`` every registrar of
``hooks.install.REGISTRARS``, ``--scope`` every scope their descriptors list.
"""

from __future__ import annotations

import json

import click

from hooks import install as installer
from trace_ingest.harnesses.table import HARNESSES


def _scopes() -> list[str]:
    found: dict[str, None] = {}
    for reg in installer.REGISTRARS.values():
        found.update(dict.fromkeys(reg.descriptor.scopes))
    return list(found)


def _where() -> str:
    home = "~/"
    return "; ".join(
        f"{h}: "
        + ", ".join(
            f"{scope} {'./' if root == 'project' else home}{relative}"
            for scope, (root, relative) in reg.descriptor.settings.items()
        )
        for h, reg in installer.REGISTRARS.items()
    )


def _defaults() -> str:
    return ", ".join(f"{h}: {r.descriptor.default_scope}" for h, r in installer.REGISTRARS.items())


def _scope(harness: str, scope: str | None) -> str:
    return scope or installer.registrar(harness).descriptor.default_scope


harness_option = click.option(
    "--harness",
    type=click.Choice(list(installer.REGISTRARS)),
    default="claude-code",
    show_default=True,
    help="Which harness to register with.",
)
scope_option = click.option(
    "--scope",
    type=click.Choice(_scopes()),
    default=None,
    help=f"Where the registration goes ({_where()}). Default: the harness's own ({_defaults()}).",
)
project_option = click.option(
    "--project-dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Project folder for --scope project (default: the current folder).",
)


@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("harness", type=click.Choice(list(HARNESSES)))
def hook(harness: str) -> None:
    """Record one hook payload read from stdin.

    The harness runs this on every event. It prints nothing, always exits 0, and logs its own
    failures to $TRAIL_HOME/hook-errors.log (see `trail doctor`).
    """
    from hooks.entry import run

    run(harness)


@click.command()
@harness_option
@scope_option
@project_option
@click.option(
    "--transport",
    type=click.Choice(installer.TRANSPORTS),
    default="process",
    show_default=True,
    help="process: the harness runs trail's hook command per event. http (Claude Code only):"
    " it POSTs each event to `trail collect` on 127.0.0.1, which must be running;"
    " SessionStart keeps the process hook (docs/collector.md).",
)
@click.option(
    "--port",
    type=click.IntRange(1, 65535),
    default=None,
    help="The collector's port for --transport http (default: 8487).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the change as JSON.")
def install(
    harness: str,
    scope: str | None,
    project_dir: str | None,
    transport: str,
    port: int | None,
    as_json: bool,
) -> None:
    """Register trail's hook in the harness settings (idempotent, keeps everything else).

    Writes a backup of the previous settings file next to it, and records the absolute path
    of this trail installation so the hook works without trail on PATH. An event that already
    has your own hook running `trail hook` is left alone. A symlinked settings file has its
    target updated (for --scope project, only a target inside the project). A read-only file
    or folder, a FIFO or device, or a file over 16 MiB is refused unchanged (exit 1).
    Installing one transport replaces trail's handlers of the other.
    """
    if port is not None and transport != "http":
        raise click.UsageError("--port applies to --transport http only")
    change = installer.install(
        harness, _scope(harness, scope), project_dir, transport=transport, port=port
    )
    _report(change, as_json, "added", change.added)


@click.command()
@harness_option
@scope_option
@project_option
@click.option("--json", "as_json", is_flag=True, help="Print the change as JSON.")
def uninstall(harness: str, scope: str | None, project_dir: str | None, as_json: bool) -> None:
    """Remove exactly the hook entries `trail install` added; nothing else changes.

    trail's entries are recognised by their exact command (`<absolute path>/trail hook
    <harness>`); your own hooks that merely mention `trail hook` are kept.
    """
    change = installer.uninstall(harness, _scope(harness, scope), project_dir)
    _report(change, as_json, "removed", change.removed)


def _report(change: installer.Change, as_json: bool, verb: str, events: list[str]) -> None:
    if as_json:
        click.echo(json.dumps(change.__dict__, indent=2))
        return
    if change.target:
        click.echo(f"{change.path} is a symlink: its target {change.target} is the file used")
    if change.note:
        click.echo(f"{change.path}: nothing added: {change.note}")
        return
    if change.left:
        click.echo(
            f"left {len(change.left)} events to your own hook that already runs trail"
            f" (not trail's exact entry, so not {'duplicated' if verb == 'added' else 'removed'}):"
            f" {', '.join(change.left)}"
        )
    if change.updated:
        click.echo(
            f"updated trail's handler for {len(change.updated)} events"
            " (trail moved, or its transport changed)"
        )
    if not events and not change.updated:
        click.echo(
            f"{change.path}: nothing to do (already {'in' if verb == 'added' else 'un'}stalled)"
        )
        return
    if events:
        click.echo(f"{change.path}: {verb} trail for {len(events)} events: {', '.join(events)}")
    if change.command:
        shown = "url:    " if change.command.startswith("http://") else "command:"
        click.echo(f"{shown} {change.command}")
    if change.backup:
        click.echo(f"backup:  {change.backup}")


@click.command()
@click.option(
    "--port",
    type=click.IntRange(1, 65535),
    default=None,
    help="Port on 127.0.0.1 to listen on (default: 8487, the port `trail install --transport"
    " http` registers).",
)
def collect(port: int | None) -> None:
    """Receive Claude Code's http hooks on 127.0.0.1 and record them (runs until stopped).

    Each POSTed payload goes through the same path as `trail hook` (normalize, scrub, append
    to the session's trace.jsonl) into this process's $TRAIL_HOME. It answers every request
    with an empty 204, which can never block a tool call. Prints one JSON line once it
    listens; SIGTERM, Ctrl-C or a closed terminal (SIGHUP) stops it after recording what it
    has received. While it is not running, Claude Code carries on and the events are lost
    (docs/collector.md): `trail doctor` says whether it answers. Exit 1 when the port cannot
    be bound.
    """
    from hooks import collector
    from trace_ingest.collector_address import DEFAULT_PORT

    chosen = DEFAULT_PORT if port is None else port
    try:
        collector.serve(chosen, ready=lambda c: click.echo(collector.status_line(c)))
    except OSError as exc:
        message = f"cannot listen on 127.0.0.1:{chosen}: {exc.strerror or exc}"
        raise click.ClickException(message) from None
