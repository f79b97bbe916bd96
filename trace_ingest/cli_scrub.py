"""``trail scrub``: run the scrubber on any text or JSON, or re-scan the stored traces."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import click

from trace_ingest.errors import ConfigError, ScrubError
from trace_ingest.paths import sessions_dir, trail_home
from trace_ingest.scrub import Scrubber, load_scrubber


def _merge(into: dict[str, int], sub: dict[str, int]) -> None:
    for k, v in sub.items():
        into[k] = into.get(k, 0) + v


def _format_counts(counts: dict[str, int]) -> str:
    if not counts:
        return "no redactions"
    total = sum(counts.values())
    parts = ", ".join(f"{rule}: {n}" for rule, n in sorted(counts.items(), key=lambda kv: -kv[1]))
    return f"{total} redaction{'s' if total != 1 else ''} ({parts})"


def scrub_any(scrubber: Scrubber, data: str) -> tuple[Any, dict[str, int], str]:
    """Scrub ``data`` as JSON, JSON lines or plain text; returns (output, counts, mode)."""
    stripped = data.strip()
    if stripped[:1] in ("{", "[", '"'):
        try:
            value = json.loads(stripped)
        except ValueError:
            value = None
        else:
            clean, counts = scrubber.scrub_value(value)
            return clean, counts, "json"
    lines = data.splitlines(keepends=True)
    if len(lines) > 1 and all(
        not ln.strip() or (ln.lstrip()[:1] in ("{", "[") and _is_json(ln)) for ln in lines
    ):
        out: list[str] = []
        counts = {}
        for ln in lines:
            if not ln.strip():
                out.append(ln)
                continue
            clean, sub = scrubber.scrub_value(json.loads(ln))
            _merge(counts, sub)
            end = "\n" if ln.endswith("\n") else ""
            out.append(json.dumps(clean, ensure_ascii=False, separators=(",", ":")) + end if sub
                       else ln)  # fmt: skip
        return "".join(out), counts, "jsonl"
    text, counts = scrubber.scrub_text(data)
    return text, counts, "text"


def _is_json(line: str) -> bool:
    try:
        json.loads(line)
    except ValueError:
        return False
    return True


def check_traces(scrubber: Scrubber, home: str) -> dict[str, dict[str, int]]:
    """Per trace file under ``<home>/sessions``: what the current rules would still redact."""
    found: dict[str, dict[str, int]] = {}
    root = sessions_dir(home)
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            if name != "trace.jsonl":
                continue
            path = os.path.join(dirpath, name)
            counts: dict[str, int] = {}
            with open(path, encoding="utf-8", errors="replace") as fh:
                for line in fh:
                    if not line.strip():
                        continue
                    try:
                        value: Any = json.loads(line)
                    except ValueError:
                        _, sub = scrubber.scrub_text(line)
                    else:
                        _, sub = scrubber.scrub_value(value)
                    _merge(counts, sub)
            if counts:
                found[os.path.relpath(path, home)] = counts
    return found


@click.command("scrub")
@click.argument("source", required=False, default="-", metavar="[FILE|-]")
@click.option("--json", "as_json", is_flag=True, help='Print {"output": ..., "counts": ...}.')
@click.option(
    "--check",
    is_flag=True,
    help="Re-scan every stored trace and report what the current rules would still redact.",
)
def scrub(source: str, as_json: bool, check: bool) -> None:
    """Redact secrets from FILE (or stdin) and print the result.

    Input that parses as JSON is scrubbed as JSON (string leaves and keys, JSON nested in
    strings) and printed as JSON; JSON lines are scrubbed line by line; anything else is
    scrubbed as text. Redaction counts by rule go to stderr.

    With --check, every sessions/**/trace.jsonl under the data directory is re-scanned with
    the current rules (for when the rules improve); each file that still holds something to
    redact is listed with its counts, and the exit code is 1 if any file does, 0 if none.

    Exit codes: 0 ok (or nothing found by --check), 1 findings (--check) or an error.
    """
    home = trail_home()
    try:
        scrubber = load_scrubber(home, bulk=True)
    except ConfigError as exc:
        click.echo(f"trail scrub: {exc}", err=True)
        sys.exit(1)
    try:
        if check:
            _run_check(scrubber, home, as_json)
            return
        if source == "-":
            data = sys.stdin.read()
        else:
            try:
                with open(source, encoding="utf-8", errors="surrogateescape") as fh:
                    data = fh.read()
            except OSError as exc:
                click.echo(f"trail scrub: cannot read {source}: {exc.strerror}", err=True)
                sys.exit(1)
        output, counts, mode = scrub_any(scrubber, data)
    except ScrubError as exc:
        click.echo(f"trail scrub: {exc}", err=True)
        sys.exit(1)
    if as_json:
        click.echo(json.dumps({"output": output, "counts": counts}, ensure_ascii=False))
    elif mode == "json":
        click.echo(json.dumps(output, ensure_ascii=False, indent=2))
    else:
        click.echo(output, nl=False)
    click.echo(_format_counts(counts), err=True)


def _run_check(scrubber: Scrubber, home: str, as_json: bool) -> None:
    found = check_traces(scrubber, home)
    if as_json:
        click.echo(json.dumps({"home": home, "files": found}, ensure_ascii=False))
    else:
        for path, counts in found.items():
            click.echo(f"{path}: {_format_counts(counts)}")
        if found:
            total = sum(sum(c.values()) for c in found.values())
            click.echo(f"{len(found)} trace file(s) hold {total} value(s) the rules now redact")
        else:
            click.echo(f"no findings in {sessions_dir(home)}")
    sys.exit(1 if found else 0)
