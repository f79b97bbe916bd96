"""Write docs/cli.md from the CLI's own --help (run by `make docs`; a test keeps it current)."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from trace_ingest.cli import cli  # noqa: E402

DOC = ROOT / "docs" / "cli.md"
HEADER = """# Command reference

Generated from `trail --help` and every subcommand's `--help` by `tools/gen_cli_docs.py`
(`make docs`); `tests/test_docs.py` fails when this file and the CLI disagree.
"""


def command_paths(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    ctx = click.Context(group)
    paths: list[tuple[str, ...]] = []
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if command is None or command.hidden:
            continue
        paths.append((*prefix, name))
        if isinstance(command, click.Group):
            paths += command_paths(command, (*prefix, name))
    return paths


def render() -> str:
    runner = CliRunner()
    parts = [HEADER]
    for path in [(), *command_paths(cli)]:
        result = runner.invoke(cli, [*path, "--help"], prog_name="trail", terminal_width=88)
        if result.exit_code != 0:
            raise SystemExit(f"trail {' '.join(path)} --help failed: {result.output}")
        title = " ".join(("trail", *path))
        parts.append(f"## {title}\n\n```\n{result.output.rstrip()}\n```\n")
    return "\n".join(parts)


if __name__ == "__main__":
    DOC.write_text(render())
    print(f"wrote {DOC}")
