"""The ``trail`` command line: a lazy click group.

Subcommands are named as ``"module:attribute"`` strings and imported only when run, so
``trail sessions`` never pays for the scorers, and no package imports another upward
(ARCHITECTURE.md). Library errors (``TrailError``) and operating-system errors (a full disk,
a path the data dir refuses) become one-line messages with exit code 1.

Exit codes: 0 success; 1 error (bad input, store or config problem, grader error);
2 usage error (click); 3 gate failure (corrupt-success or flaky); 4 insufficient data.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import click

from trace_ingest.errors import TrailError

COMMANDS: dict[str, tuple[str, str]] = {
    "hook": ("hooks.cli:hook", "Record one hook payload from stdin (run by the harness)."),
    "install": ("hooks.cli:install", "Register trail's hook in a harness's settings."),
    "uninstall": ("hooks.cli:uninstall", "Remove exactly what `trail install` added."),
    "collect": (
        "hooks.cli:collect",
        "Receive Claude Code's http hooks on 127.0.0.1 and record them.",
    ),
    "doctor": ("telemetry.doctor:doctor", "Check hooks, store and recent hook errors."),
    "sessions": ("telemetry.cli:sessions", "List recorded sessions."),
    "show": ("telemetry.cli:show", "Show one session's timeline."),
    "sync": ("telemetry.cli:sync_cmd", "Mirror every trace.jsonl into SQLite."),
    "watch": (
        "scorers.watch:watch",
        "Mirror traces live as they are written, and grade sessions as they close.",
    ),
    "export": (
        "telemetry.otlp.cli:export_group",
        "Export sessions, tool calls and grades over OpenTelemetry (OTLP).",
    ),
    "capture": ("telemetry.cli:capture", "Turn capture on or off, or show its state."),
    "scrub": ("trace_ingest.cli_scrub:scrub", "Scrub secrets from a file or stdin."),
    "demo": ("scorers.demo:demo", "Record, list and grade the built-in demo sessions."),
    "eval": ("scorers.cli:eval_group", "Grade sessions (L0, L1) and gate CI on the result."),
    "chronicle": (
        "trace_ingest.cli_chronicle:chronicle_group",
        "Import VS Code chat sessions (chatSessions, transcripts, chronicle store).",
    ),
    "import": (
        "trace_ingest.cli_import:import_group",
        "Import sessions recorded before trail was installed.",
    ),
    "serve": ("dashboard.cli:serve", "Serve the dashboard on 127.0.0.1 (sessions, grades)."),
    "report": ("dashboard.cli:report", "Write one session's page as a self-contained HTML file."),
}


class LazyGroup(click.Group):
    """A click group whose subcommands are imported on first use."""

    def __init__(self, *args: Any, lazy: dict[str, tuple[str, str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = lazy

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.lazy:
            target = self.lazy[cmd_name][0]
            module_name, attr = target.split(":")
            command = getattr(importlib.import_module(module_name), attr)
            if not isinstance(command, click.Command):
                raise TypeError(f"{target} is not a click command")
            return command
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # Help lists every command without importing any of them.
        rows = [(name, self.lazy[name][1]) for name in sorted(self.lazy)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, lazy=COMMANDS)
@click.version_option(package_name="trail")
def cli() -> None:
    """trail: record what coding agents do, and grade how they did it.

    Data lives in $TRAIL_HOME (default ~/.local/share/trail). Every listing takes --json.
    """


def main(argv: list[str] | None = None) -> int:
    try:
        code = cli.main(args=argv, prog_name="trail", standalone_mode=False)
    except TrailError as exc:
        click.echo(f"Error: {exc}", err=True)
        return 1
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        return 1
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except OSError as exc:
        # A full disk, a refused path in the data dir (paths.UnsafePath), a permission: say
        # which file and why, never a traceback.
        where = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
        click.echo(f"Error: {where}{exc.strerror or exc}", err=True)
        return 1
    # With standalone_mode=False click returns a command's ctx.exit(code) as the value.
    return code if isinstance(code, int) else 0


if __name__ == "__main__":
    sys.exit(main())
