"""``trail import``: import sessions recorded before trail was installed (docs/importers.md).

The subcommands come from ``trace_ingest.importers.table.IMPORTERS`` (one per importer module,
same options and report for each); the report printer is shared with any other import command.
"""

from __future__ import annotations

import importlib
import json
import shlex
from collections.abc import Iterable

import click

from trace_ingest.importers._pipeline import ImportReport
from trace_ingest.importers.table import IMPORTERS

# Detail lines shown per list in the human report before "... and N more".
SHOW = 20


class ImportGroup(click.Group):
    """``trail import``: one subcommand per entry of ``IMPORTERS``, built on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *IMPORTERS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in IMPORTERS:
            return importer_command(cmd_name)
        return super().get_command(ctx, cmd_name)


@click.group("import", cls=ImportGroup)
def import_group() -> None:
    """Import sessions recorded before trail was installed.

    Imported events go into the same session folders the hooks write, through the same
    scrubber, with deterministic ids: importing the same file again adds nothing.
    """


def importer_command(harness: str) -> click.Command:
    """The ``trail import <harness>`` command of one importer module."""
    module = importlib.import_module(IMPORTERS[harness])

    @click.command(harness, help=module.HELP)
    @click.argument("paths", nargs=-1, required=True, metavar="FILE_OR_DIR...")
    @click.option(
        "--task",
        "task",
        default=None,
        metavar="LABEL",
        help="Task label for the imported sessions (reported; apply it with `trail eval task`).",
    )
    @click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
    @click.pass_context
    def command(
        ctx: click.Context, paths: tuple[str, ...], task: str | None, as_json: bool
    ) -> None:
        report: ImportReport = module.import_paths(paths, task=task)
        if as_json:
            data = report.as_dict()
            if task:
                data["task_commands"] = _task_commands(report, task)
            click.echo(json.dumps(data, indent=2, ensure_ascii=False))
        else:
            print_report(report, task)
        ctx.exit(1 if report.errors else 0)

    return command


def _task_commands(report: ImportReport, task: str) -> list[str]:
    return [f"trail eval task {s['key']} {_quote(task)}" for s in report.sessions]


def _quote(value: str) -> str:
    return shlex.quote(value)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _more(items: Iterable[str]) -> list[str]:
    listed = list(items)
    shown = listed[:SHOW]
    if len(listed) > SHOW:
        shown.append(f"... and {len(listed) - SHOW} more (see --json)")
    return shown


def print_report(report: ImportReport, task: str | None = None) -> None:
    """The human report of any import (`trail import`, `trail chronicle import`): what was
    written, ignored, redacted, truncated and skipped, with reasons; errors to stderr."""
    echo = click.echo
    echo(
        f"Read {_plural(len(report.files), 'file')}: "
        f"{_plural(report.events_written, 'event')} written, "
        f"{report.events_already_present} already present"
        + (
            f", {report.duplicates_in_input} duplicated in the input"
            if report.duplicates_in_input
            else ""
        )
        + "."
    )
    for row in _more(
        f"  {s['key']}: {s['events_written']} new -> {s['trace']}" for s in report.sessions
    ):
        echo(row)
    if report.ignored:
        parts = ", ".join(f"{k} {v}" for k, v in sorted(report.ignored.items()))
        echo(f"Lines not recorded (no agent activity): {parts}")
    if report.not_recorded:
        parts = ", ".join(f"{k} {v}" for k, v in sorted(report.not_recorded.items()))
        echo(f"Content blocks not recorded: {parts}")
    if report.redactions:
        total = sum(report.redactions.values())
        parts = ", ".join(f"{k}: {v}" for k, v in sorted(report.redactions.items()))
        echo(f"Redacted {_plural(total, 'secret')} ({parts}).")
    if report.truncated_fields:
        echo(f"Truncated {_plural(report.truncated_fields, 'field')} over capture.max_field_chars.")
    if report.skipped:
        echo(f"Skipped {_plural(len(report.skipped), 'line')}:")
        for line in _more(f"  {s.file}:{s.line}: {s.reason}" for s in report.skipped):
            echo(line)
    for warning in report.warnings:
        echo(f"Warning: {warning}", err=True)
    for err in _more(f"  {e['file']}: {e['error']}" for e in report.errors):
        echo(f"Error:{err}", err=True)
    if task:
        echo(f"Task label {task!r} is not stored by the import; apply it with:")
        for cmd in _task_commands(report, task):
            echo(f"  {cmd}")
