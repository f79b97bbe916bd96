"""``trail demo``: built-in sessions recorded through the real hook, then synced and listed."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import time

import click

from scorers.api import grade_session
from scorers.demo_data import harness_sessions
from scorers.demo_data import sessions as demo_sessions
from telemetry import queries
from telemetry.render import describe, short_time, table
from trace_ingest.paths import trail_home
from trace_ingest.settings_io import trail_executable


def feed(payloads: list[dict[str, object]], executable: str, harness: str = "claude-code") -> None:
    """Send each payload to ``trail hook`` in its own process, as the harness would."""
    for payload in payloads:
        done = subprocess.run(
            [executable, "hook", harness],
            input=json.dumps(payload).encode(),
            capture_output=True,
            timeout=60,
            check=False,
        )
        if done.returncode != 0 or done.stdout:
            raise click.ClickException(
                f"the hook misbehaved (exit {done.returncode}, {len(done.stdout)} bytes on stdout)"
            )


def _session_id(payload: dict[str, object]) -> str:
    """The session a payload is recorded under (VS Code's ``sessionId`` URI decoded)."""
    from trace_ingest.vscode_facts import decode_session_id

    sid = payload.get("session_id")
    return str(sid) if sid is not None else decode_session_id(str(payload.get("sessionId")))[0]


@click.command()
def demo() -> None:
    """Record the built-in demo sessions through the real hook, then list, show and grade them.

    Three Claude Code sessions written for trail (a clean one, one with failures and retries,
    one with a subagent) are sent to `trail hook claude-code` one payload per process, exactly
    as Claude Code sends them, one GitHub Copilot CLI session captured from the real Copilot
    CLI 1.0.102 to `trail hook copilot-cli`, one Mistral Vibe session captured from the real
    Vibe 3.0.1 to `trail hook vibe`, and one VS Code (Local agent) session to `trail hook
    vscode`; then the traces are synced into SQLite, shown, and graded at L0 + L1 (grades go to
    GRADES.jsonl). Data goes to $TRAIL_HOME (`make demo` uses ./.demo-home).
    """
    home = trail_home()
    click.echo(f"trail demo — data in {home}\n")
    stamp = time.strftime("%Y%m%d-%H%M%S")
    executable = trail_executable()
    env_off = os.environ.get("TRAIL_DISABLE") == "1"
    if env_off:
        raise click.ClickException("TRAIL_DISABLE=1 is set: the demo would record nothing")
    recorded = []
    sessions = [(name, "claude-code", p) for name, p in demo_sessions(stamp)]
    for name, harness, payloads in [*sessions, *harness_sessions(stamp)]:
        started = time.perf_counter()
        feed(payloads, executable, harness)
        ms = (time.perf_counter() - started) * 1000 / len(payloads)
        click.echo(f"recorded {name:<9} {len(payloads):>3} hook calls, {ms:.0f} ms per call")
        recorded.append(_session_id(payloads[0]))
    db, report = queries.open_synced(home)
    click.echo(f"\nsynced: {report.new_events} events into {home}/trail.db\n")
    rows = [queries.resolve_session(db, str(sid)) for sid in recorded]
    shown = [{**r, "started_at": short_time(r["started_at"])} for r in rows]
    click.echo(
        table(
            shown,
            [
                ("key", "SESSION"),
                ("state", "STATE"),
                ("event_count", "EVENTS"),
                ("error_count", "ERRORS"),
                ("redaction_count", "REDACTED"),
                ("started_at", "STARTED"),
            ],
        )
    )
    failing = rows[1]
    click.echo(f"\ntimeline of {failing['key']} (trail show {failing['session_id']}):")
    for ev in queries.session_events(db, failing["key"]):
        if ev["kind"] in ("tool_result", "tool_error", "prompt", "session_end"):
            click.echo(f"  {ev['kind']:<12} {describe(ev)}")
    click.echo("\ngrades (L0 + L1 trace-grader; each demo task was delivered, so outcome = pass):")
    graded = []
    for row in rows:
        [record] = grade_session(str(row["key"]), outcome="pass", home=home)
        graded.append(
            {
                "key": row["key"],
                "verdict": record["verdict"],
                "score": "n/a"
                if record["maxScore"] is None
                else f"{record['totalScore']:g}/{record['maxScore']:g}",
                "coverage": f"{record['coverage']:.0%}",
                "flags": ", ".join(f.split(":")[0] for f in record["flags"]) or "-",
            }
        )
    click.echo(
        table(
            graded,
            [
                ("key", "SESSION"),
                ("verdict", "VERDICT"),
                ("score", "L1 SCORE"),
                ("coverage", "COVERAGE"),
                ("flags", "FLAGS"),
            ],
        )
    )
    # L2: one guided session judged by the replay model, labelled as replayed (scorers.judge).
    from scorers.judge.demo import show as show_l2

    show_l2(
        home,
        stamp,
        lambda payloads: feed(payloads, executable),
        lambda: queries.open_synced(home)[0],
        click.echo,
    )
    click.echo(
        "\nnext: trail sessions | trail show SESSION | trail eval score --session SESSION"
        " | trail doctor"
    )
    click.echo(f"\nopen the dashboard on the demo data:\n  {dashboard_command(home, executable)}")


def dashboard_command(home: str, executable: str) -> str:
    """The exact command that serves the dashboard on ``home`` with this installation's
    trail (`make demo`: .venv/bin/trail and .demo-home)."""
    return f"TRAIL_HOME={shlex.quote(os.path.abspath(home))} {shlex.quote(executable)} serve"
