"""``trail doctor``: is capture wired, does it run, is the store healthy, what went wrong."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import time
from dataclasses import dataclass, field
from typing import Any

import click

from telemetry import queries
from trace_ingest.errors import TrailError
from trace_ingest.paths import HARNESSES, capture_off_path, ensure_home, trail_home
from trace_ingest.registry import SCOPES, read_settings, registered_commands, settings_path
from trace_ingest.store import read_errors

SUPPORTED = ("claude-code",)


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    warn: bool = False  # a failure worth saying that does not fail the doctor
    applies: bool = True  # False: nothing to check yet (a harness trail does not wire yet)

    @property
    def mark(self) -> str:
        if not self.applies:
            return "n/a "
        return "ok  " if self.ok else ("warn" if self.warn else "FAIL")


@dataclass
class Report:
    checks: list[Check] = field(default_factory=list)
    hook_errors: list[dict[str, object]] = field(default_factory=list)
    redactions: dict[str, int] = field(default_factory=dict)

    @property
    def failed(self) -> bool:
        return any(not c.ok and not c.warn for c in self.checks)


def _check_harness(harness: str, project_dir: str, report: Report) -> None:
    if harness not in SUPPORTED:
        report.checks.append(
            Check(f"{harness}: hook", True, "not supported yet (a later release)", applies=False)
        )
        return
    found = False
    for scope in SCOPES:
        path = settings_path(harness, scope, project_dir)
        try:
            commands = registered_commands(read_settings(path), harness)
        except TrailError as exc:
            report.checks.append(Check(f"{harness}: {scope} settings", False, str(exc)))
            continue
        if not commands:
            continue
        found = True
        command = sorted({c for cs in commands.values() for c in cs})[0]
        ok, detail = _runnable(command)
        report.checks.append(
            Check(
                f"{harness}: {scope} hook",
                ok,
                f"{len(commands)} events in {path}; command {'runs' if ok else 'FAILS'}: {detail}",
            )
        )
    if not found:
        report.checks.append(
            Check(
                f"{harness}: hook",
                False,
                "not registered (run `trail install --harness claude-code`)",
            )
        )


def _runnable(command: str) -> tuple[bool, str]:
    """Run the registered command with capture disabled: it must exit 0 and print nothing."""
    env = {**os.environ, "TRAIL_DISABLE": "1"}
    start = time.perf_counter()
    try:
        done = subprocess.run(
            command, shell=True, input=b"{}", capture_output=True, env=env, timeout=20, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, str(exc)
    ms = (time.perf_counter() - start) * 1000
    if done.returncode != 0 or done.stdout:
        return False, (
            f"exit {done.returncode}, stdout {len(done.stdout)} bytes: "
            f"{done.stderr.decode(errors='replace')[:200]}"
        )
    return True, f"{command} ({ms:.0f} ms)"


def _check_config(home: str, report: Report) -> None:
    from trace_ingest.config import check_config
    from trace_ingest.paths import config_path

    try:
        _, problems = check_config(home)
    except TrailError as exc:
        report.checks.append(Check("config", False, f"{exc} (the hook uses the defaults)"))
        return
    detail = (
        "; ".join(problems)
        if problems
        else (
            config_path(home) if os.path.exists(config_path(home)) else "defaults (no config.json)"
        )
    )
    report.checks.append(Check("config", not problems, detail))


def _check_store(home: str, report: Report) -> None:
    try:
        ensure_home(home)
        mode = stat.S_IMODE(os.stat(home).st_mode)
        probe = os.path.join(home, f".doctor-{os.getpid()}")
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        os.remove(probe)
        report.checks.append(
            Check(
                "data dir",
                mode & 0o077 == 0,
                f"{home} writable, mode {mode:o}"
                + ("" if mode & 0o077 == 0 else " (should be 700)"),
            )
        )
    except OSError as exc:
        report.checks.append(Check("data dir", False, f"{home}: {exc}"))
        return
    try:
        db, _ = queries.open_synced(home)
    except TrailError as exc:
        report.checks.append(Check("database", False, str(exc)))
        return
    sessions = db.execute("SELECT count(*) FROM sessions").fetchone()[0]
    skipped = db.execute("SELECT count(*) FROM quarantine").fetchone()[0]
    report.checks.append(Check("database", True, f"{sessions} sessions mirrored"))
    report.checks.append(
        Check(
            "quarantine",
            skipped == 0,
            f"{skipped} malformed trace lines skipped (see `trail sync`)",
            warn=True,
        )
    )
    report.redactions = queries.redaction_counts(db)
    off = os.path.exists(capture_off_path(home)) or os.environ.get("TRAIL_DISABLE") == "1"
    report.checks.append(
        Check("capture", not off, "off (`trail capture on`)" if off else "on", warn=True)
    )


@click.command()
@click.option(
    "--project-dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Project whose .claude/settings.json to check (default: current folder).",
)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def doctor(project_dir: str | None, as_json: bool) -> None:
    """Check that capture works: hook registered and runnable per harness, store writable,
    the last hook errors and redaction counts.

    Exit code 0 when everything needed works, 1 when something needs fixing.
    """
    home = trail_home()
    report = Report()
    for harness in HARNESSES:
        _check_harness(harness, project_dir or os.getcwd(), report)
    _check_config(home, report)
    _check_store(home, report)
    report.hook_errors = read_errors(home, 10)
    if as_json:
        payload: dict[str, Any] = {
            "ok": not report.failed,
            "checks": [{**c.__dict__, "status": c.mark.strip()} for c in report.checks],
            "hook_errors": report.hook_errors,
            "redactions": report.redactions,
        }
        click.echo(json.dumps(payload, indent=2))
    else:
        for c in report.checks:
            click.echo(f"[{c.mark}] {c.name}: {c.detail}")
        click.echo(
            "redactions: " + (", ".join(f"{r} {n}" for r, n in report.redactions.items()) or "none")
        )
        click.echo(f"last hook errors ({len(report.hook_errors)}):")
        for e in report.hook_errors:
            click.echo(f"  {e.get('ts')} {e.get('harness')} {e.get('stage')}: {e.get('error')}")
    raise click.exceptions.Exit(1 if report.failed else 0)
