"""``trail chronicle``: VS Code's chat records (docs/importers.md, "VS Code")."""

from __future__ import annotations

import json

import click

# Detail lines shown per list in the human report before "... and N more".
SHOW = 20


@click.group("chronicle")
def chronicle_group() -> None:
    """VS Code's chat records: chat sessions, Copilot Chat transcripts, the chronicle store."""


@chronicle_group.command("import")
@click.option(
    "--path",
    "paths",
    multiple=True,
    metavar="FILE_OR_DIR",
    help="A VS Code file or folder to read (repeatable). Default: every VS Code data folder "
    "found (Code, Code - Insiders, VSCodium, VS Code Server) for this user.",
)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.pass_context
def import_cmd(ctx: click.Context, paths: tuple[str, ...], as_json: bool) -> None:
    """Import VS Code chat sessions into trail, one trace per chat session.

    Reads chatSessions/*.json (version 3) and the *.jsonl mutation logs, Copilot Chat's
    transcripts (GitHub.copilot-chat/transcripts/*.jsonl), the chronicle session-store.db
    (read-only, also while VS Code has it open) and Export Chat JSON files. Files that describe
    one chat land in one session, beside what `trail hook vscode` recorded for it. Bad lines
    are skipped and listed with their reasons; importing again adds only what is new.
    Exit 1 only when nothing could be read.
    """
    from trace_ingest.importers.chronicle import import_chronicle

    report = import_chronicle(list(paths) or None)
    if as_json:
        click.echo(json.dumps(report.as_dict(), indent=2, ensure_ascii=False))
    else:
        _print(report)
    ctx.exit(report.exit_code)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _more(items: list[str]) -> list[str]:
    shown = items[:SHOW]
    if len(items) > SHOW:
        shown.append(f"  ... and {len(items) - SHOW} more (see --json)")
    return shown


def _print(report: object) -> None:
    from trace_ingest.importers.chronicle import ChronicleReport

    assert isinstance(report, ChronicleReport)
    echo = click.echo
    if not report.files:
        where = ", ".join(report.searched) if report.searched else "no VS Code data folder found"
        echo(f"No VS Code chat records found ({where}).", err=True)
        return
    echo(
        f"Read {report.readable} of {_plural(len(report.files), 'file')}: "
        f"{_plural(report.events_written, 'event')} written, "
        f"{report.events_already_present} already present, "
        f"{_plural(len(report.sessions), 'session')}."
    )
    for row in _more(
        [f"  {s['key']}: {s['events_written']} new -> {s['trace']}" for s in report.sessions]
    ):
        echo(row)
    run = report.run
    if run.redactions:
        total = sum(run.redactions.values())
        parts = ", ".join(f"{k}: {v}" for k, v in sorted(run.redactions.items()))
        echo(f"Redacted {_plural(total, 'secret')} ({parts}).")
    if run.truncated_fields:
        echo(f"Truncated {_plural(run.truncated_fields, 'field')} over capture.max_field_chars.")
    for err in run.errors:
        echo(f"Error: {err['file']}: {err['error']}", err=True)
    skipped = [f"  {f.file}:{line}: {reason}" for f in report.files for line, reason in f.skips]
    if skipped:
        echo(f"Skipped {_plural(len(skipped), 'line')}:")
        for row in _more(skipped):
            echo(row)
    for f in report.files:
        for warning in f.warnings:
            echo(f"Warning: {f.file}: {warning}", err=True)
    for row in _more([f"{f.file} ({f.format}): {f.error}" for f in report.files if f.error]):
        echo(f"Error: {row}", err=True)
