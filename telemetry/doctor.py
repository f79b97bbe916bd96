"""``trail doctor``: is capture wired, does it run, is the store healthy, what went wrong."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any

import click

from telemetry import queries
from trace_ingest.errors import TrailError
from trace_ingest.harnesses.table import Harness, descriptors, get
from trace_ingest.paths import capture_off_path, ensure_home, home_problems, trail_home
from trace_ingest.settings_io import (
    DIRECT_FLAGS,
    direct_entry,
    own_executable,
    read_settings,
    trail_executable,
)
from trace_ingest.store import read_errors


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


def _check_harness(descriptor: Harness, project_dir: str, report: Report) -> None:
    """One harness's registration, read through its descriptor: the settings file of each
    scope, trail's entries in it (``handlers``/``command_of``), each command verified."""
    harness = descriptor.id
    if not descriptor.has_hooks or not descriptor.settings:
        report.checks.append(
            Check(f"{harness}: hook", True, "not supported yet (a later release)", applies=False)
        )
        return
    found = False
    for scope in descriptor.scopes:
        path = descriptor.settings_path(scope, project_dir)
        try:
            settings = read_settings(path, descriptor.settings_format)
        except TrailError as exc:
            report.checks.append(Check(f"{harness}: {scope} settings", False, str(exc)))
            continue
        commands: dict[str, int] = {}
        for _, handler in descriptor.handlers(settings):
            command = descriptor.command_of(handler)
            if isinstance(command, str) and (
                descriptor.is_trail_command(command) or own_executable(command, harness)
            ):
                commands[command] = commands.get(command, 0) + 1
        if not commands:
            continue
        found = True
        verdicts = [(c, *_verify(c, descriptor, project_dir)) for c in sorted(commands)]
        worst = "ok"
        if any(v[1] == "fail" for v in verdicts):
            worst = "fail"
        elif not any(v[1] == "ok" for v in verdicts):
            worst = "warn"
        parts = [
            f"{'runs' if v == 'ok' else 'FAILS' if v == 'fail' else 'not run'}: {detail}"
            for _, v, detail in verdicts
        ]
        report.checks.append(
            Check(
                f"{harness}: {scope} hook",
                worst == "ok",
                f"{sum(commands.values())} handlers in {path}; command " + "; ".join(parts),
                warn=worst == "warn",
            )
        )
        _check_collector(descriptor, scope, settings, report)
        problem = descriptor.registration_problem(scope, project_dir)
        if problem:
            report.checks.append(Check(f"{harness}: {scope} hook loads", False, problem, warn=True))
    if not found:
        # VS Code runs Claude Code's hooks too (trace_ingest/harnesses/vscode.py
        # ``recorded_through``): trail's Claude Code hook records it already.
        through = [
            h for h in getattr(descriptor, "recorded_through", ()) if _own_hook(get(h), project_dir)
        ]
        report.checks.append(
            Check(
                f"{harness}: hook",
                True,
                f"recorded through trail's {through[0]} hook, which {descriptor.name} also runs",
            )
            if through
            else Check(
                f"{harness}: hook",
                False,
                f"not registered (run `trail install --harness {harness}`)",
            )
        )


def _check_collector(
    descriptor: Harness, scope: str, settings: dict[str, Any], report: Report
) -> None:
    """With ``trail install --transport http``: does ``trail collect`` answer on the port the
    http hooks post to? While it does not, their events are lost (docs/collector.md)."""
    from trace_ingest import collector_address

    ports = collector_address.http_ports(descriptor.handlers(settings), descriptor.id)
    for port, count in sorted(ports.items()):
        problem = collector_address.probe(port, timeout=1.0)
        report.checks.append(
            Check(
                f"{descriptor.id}: {scope} collector",
                problem is None,
                f"{count} http handlers post to 127.0.0.1:{port}; "
                + (
                    "trail collect answers"
                    if problem is None
                    else f"{problem}: their events are lost until `trail collect"
                    f" --port {port}` runs (Claude Code carries on without them)"
                ),
            )
        )


def _not_registered_elsewhere(report: Report) -> None:
    """A harness trail is not registered with is worth saying, and a failure only when trail
    is registered with no harness at all: someone using Claude Code alone has no Vibe to
    register with."""
    found = any(c.name.endswith(" hook") and not c.name.endswith(": hook") for c in report.checks)
    if found:
        for check in report.checks:
            if check.applies and check.detail.startswith("not registered"):
                check.warn = True


def _own_hook(descriptor: Harness, project_dir: str) -> bool:
    """trail's exact entry for ``descriptor`` is in one of its settings files, as a command.

    A registration whose events post to ``trail collect`` (``--transport http``) does not
    count: a harness that runs ``descriptor``'s hooks as well (VS Code) documents command
    hooks only, so it would record no more than the ``SessionStart`` command left there."""
    from trace_ingest.collector_address import own_http

    found = False
    for scope in descriptor.scopes:
        try:
            settings = read_settings(
                descriptor.settings_path(scope, project_dir), descriptor.settings_format
            )
        except TrailError:
            continue
        for _, handler in descriptor.handlers(settings):
            if own_http(handler, descriptor.id):
                return False
            if own_executable(descriptor.command_of(handler), descriptor.id):
                found = True
    return found


def own_entry_points() -> set[str]:
    """This trail installation's own executables (resolved), the only ones doctor runs."""
    found = set()
    for candidate in (trail_executable(), sys.argv[0] if sys.argv else ""):
        if candidate and os.path.basename(candidate) == "trail" and os.path.isfile(candidate):
            found.add(os.path.realpath(candidate))
    return found


def _verify(command: str, descriptor: Harness, project_dir: str) -> tuple[str, str]:
    """Check one registered command without ever running it: ``("ok" | "fail" | "warn",
    detail)``. Only a plain ``<exe> hook <harness>`` whose executable resolves to this very
    trail installation is probed, by running that executable ourselves with a fixed argv."""
    harness = descriptor.id
    try:
        words = shlex.split(command)
    except ValueError as exc:
        return "fail", f"{command!r} cannot be parsed ({exc}); not run"
    if own_executable(command, harness) and len(words) == 5:
        return _verify_direct(command, words, descriptor)
    if len(words) != 3 or words[1:] != ["hook", harness] or shlex.join(words) != command:
        return "warn", (
            f"{command!r} is not a plain `trail hook {harness}` command (shell syntax, a"
            " wrapper or extra words); doctor never runs commands from settings files, so it"
            " cannot check this one"
        )
    exe = words[0]
    if "/" not in exe:
        resolved = shutil.which(exe)
        if resolved is None:
            return "fail", f"{command!r}: {exe!r} is not on PATH"
    else:
        resolved = os.path.join(project_dir, exe) if not os.path.isabs(exe) else exe
    if not os.path.isfile(resolved) or not os.access(resolved, os.X_OK):
        return "fail", f"{command!r}: {resolved} does not exist or is not executable"
    real = os.path.realpath(resolved)
    if real not in own_entry_points():
        return "warn", (
            f"{command!r}: {resolved} is not this trail installation"
            f" ({', '.join(sorted(own_entry_points())) or 'unknown'}); not run (check it with"
            " that installation's own `trail doctor`)"
        )
    return _probe([real, "hook", harness], command, descriptor)


def _verify_direct(command: str, words: list[str], descriptor: Harness) -> tuple[str, str]:
    """The direct form (``<python> -I -S <hooks/run.py> <harness>``): probed only when both
    the interpreter and the script are this installation's own (resolved paths)."""
    python, script = words[0], words[3]
    for path in (python, script):
        if not os.path.isfile(path):
            return "fail", f"{command!r}: {path} does not exist"
    if not os.access(python, os.X_OK):
        return "fail", f"{command!r}: {python} is not executable"
    entry = direct_entry()
    ours = entry is not None and (
        os.path.realpath(python) == os.path.realpath(entry[0])
        and os.path.realpath(script) == os.path.realpath(entry[1])
    )
    if not ours:
        return "warn", (
            f"{command!r} is not this trail installation's interpreter and hook script"
            f" ({' and '.join(entry) if entry else 'unknown'}); not run (check it with that"
            " installation's own `trail doctor`)"
        )
    return _probe([python, *DIRECT_FLAGS, script, descriptor.id], command, descriptor)


def _probe(argv: list[str], command: str, descriptor: Harness) -> tuple[str, str]:
    """Run this trail's hook with a synthetic payload into a scratch data dir: it must exit 0,
    print nothing and record the event. Nothing of the probe reaches the real data dir."""
    scratch = tempfile.mkdtemp(prefix="trail-doctor-")
    env = {k: v for k, v in os.environ.items() if k != "TRAIL_DISABLE"}
    env["TRAIL_HOME"] = scratch
    payload = {**descriptor.probe, "cwd": scratch}  # a payload this harness's adapter records
    start = time.perf_counter()
    try:
        done = subprocess.run(
            argv,
            input=json.dumps(payload).encode(),
            capture_output=True,
            env=env,
            cwd=scratch,
            timeout=20,
            check=False,
        )
        recorded = any(name == "trace.jsonl" for _, _, files in os.walk(scratch) for name in files)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return "fail", f"{command!r}: {exc}"
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    ms = (time.perf_counter() - start) * 1000
    if done.returncode != 0 or done.stdout or not recorded:
        return "fail", (
            f"{command!r}: exit {done.returncode}, stdout {len(done.stdout)} bytes,"
            f" {'recorded' if recorded else 'recorded nothing'}:"
            f" {done.stderr.decode(errors='replace')[:200]}"
        )
    return "ok", f"{command} ({ms:.0f} ms, probe recorded into a scratch data dir)"


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
        refused = home_problems(home)  # exactly why the hook would refuse the data dir
        report.checks.append(
            Check(
                "data dir",
                mode & 0o077 == 0 and not refused,
                f"{home} writable, mode {mode:o}"
                + ("" if mode & 0o077 == 0 else " (should be 700)")
                + "".join(f"; {why}: the hook records nothing there" for why in refused),
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


def _scrub_details(home: str, report: Report) -> None:
    """What doctor prints comes from settings files and logs: scrub it like an event (a hook
    command can carry a token, say in an env assignment)."""
    from trace_ingest.scrub import default_scrubber, load_scrubber

    try:
        scrubber = load_scrubber(home)
    except TrailError:
        scrubber = default_scrubber(home)
    for check in report.checks:
        check.detail = scrubber.scrub_text(check.detail)[0]
    for entry in report.hook_errors:
        for key, value in list(entry.items()):
            if isinstance(value, str):
                entry[key] = scrubber.scrub_text(value)[0]


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

    Never runs a command from a settings file: a registered command is parsed, its executable
    resolved, and only when it is this trail installation does doctor run that executable
    itself (`<exe> hook <harness>`, no shell) with a probe payload into a scratch data dir.
    Wrappers, shell syntax and other executables are reported, not run.

    Exit code 0 when everything needed works, 1 when something needs fixing.
    """
    home = trail_home()
    report = Report()
    for descriptor in descriptors():
        _check_harness(descriptor, project_dir or os.getcwd(), report)
    _not_registered_elsewhere(report)
    _check_config(home, report)
    _check_store(home, report)
    report.hook_errors = read_errors(home, 10)
    _scrub_details(home, report)
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
