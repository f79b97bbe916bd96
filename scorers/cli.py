"""``trail eval``: grade sessions (L0, L1, rubric profiles), pass^k, and a CI gate.

Exit codes (every command): 0 ok; 1 error (bad input, or a grader error: a check that crashed
is reported and nothing is written — never a pass, never a zero); 2 usage error; 3 gate failure
(a corrupt-success run, a high-severity flag on a run of unknown outcome, or a task that fails
pass^k: flaky or failing); 4 insufficient data (coverage below eval.min_coverage, or too few
trials for pass^k) when nothing failed; 5 nothing to grade (every graded session or run held
no agent action, seed 002's intentional empty grade: neither a pass nor a failure). A session
with nothing to grade among others that were judged leaves the others to decide the code.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from typing import Any

import click
import orjson

from scorers import cleo_ops, ledger
from scorers.api import Graded, build_records, grade_and_record, set_label
from scorers.contents import NOTHING
from scorers.gate import (
    GATE_VERDICTS,
    NODATA,
    error_case,
    gate_verdict,
    passk_case,
    record_case,
    write_junit,
)
from scorers.grader_config import GraderConfig, load_grader_config
from scorers.grading import SessionData, eval_settings, grade_events
from scorers.judge.cli import calibrate_cmd
from scorers.passk import TaskPassK, passk_by_task
from scorers.registry import LEVELS, RUBRICS, parse_levels, select
from scorers.report import RULE, render_passk, render_traces, traces_json
from scorers.trace_grader import grade_trace_file
from telemetry import queries
from telemetry.render import paint_verdict
from trace_ingest.errors import ScorerError, TrailError
from trace_ingest.paths import trail_home

EXIT_OK, EXIT_ERROR, EXIT_GATE, EXIT_NODATA, EXIT_NOTHING = 0, 1, 3, 4, 5
LEVEL_HELP = f"Levels to grade: {','.join(LEVELS)} (default L0,L1; L2 calls the judge)."


class EvalGroup(click.Group):
    """Turns library errors into ``Error: ...`` and exit 1, however the group is invoked."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except TrailError as exc:
            raise click.ClickException(str(exc)) from exc


@click.group("eval", cls=EvalGroup)
def eval_group() -> None:
    """Grade sessions: L0 facts, L1 trace-grader rules, the cleo rubric, pass^k, CI gate.

    Every score is shown with its coverage; checks a session cannot support are unscored
    (with the missing capability), never zero. A session whose agents took no action is
    "nothing-to-grade": no score, neither a pass nor a failure. Exit codes: 0 ok, 1 error,
    3 corrupt-success or flaky, 4 insufficient data, 5 nothing to grade. See docs/grading.md.
    """


json_option = click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
config_option = click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="Trace-grader thresholds YAML (seed 001's trace-grader.config.yaml works as is).",
)


def exit_code(verdicts: Iterable[str | None], passk: Iterable[TaskPassK] = ()) -> int:
    """3 gate failure > 4 insufficient data > 5 nothing to grade (only when nothing at all was
    judged: every verdict is nothing-to-grade and no task's pass^k was computed) > 0 ok."""
    verdicts = list(verdicts)
    rows = list(passk)
    if any(v in GATE_VERDICTS for v in verdicts) or any(t.gate_failed for t in rows):
        return EXIT_GATE
    if any(v == NODATA for v in verdicts) or any(t.pass_hat_k is None for t in rows):
        return EXIT_NODATA
    if verdicts and all(v == NOTHING for v in verdicts) and not rows:
        return EXIT_NOTHING
    return EXIT_OK


def _dump(obj: Any) -> None:
    """Indented JSON. orjson writes the same layout many times faster (grading a 50 MB traces
    file reports 10 MB); json takes what orjson refuses (an integer past 64 bits)."""
    try:
        option = orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS
        text = orjson.dumps(obj, default=str, option=option).decode()
    except TypeError:
        text = json.dumps(obj, indent=2, default=str, ensure_ascii=False)
    click.echo(text)


def _verdicts(records: Sequence[dict[str, Any]]) -> list[str | None]:
    return [r.get("verdict") for r in records]


@eval_group.command("score")
@click.option(
    "--session",
    "session",
    default=None,
    help="Session key, harness session id, or a unique prefix.",
)
@click.option(
    "--traces",
    "traces",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="Grade a seed-001 traces.json or audit JSONL file instead of a session.",
)
@click.option(
    "--task",
    default=None,
    help="Task label for the runs of an audit --traces file (ignored for a canonical "
    "traces.json, whose runs name their tasks).",
)
@click.option("--level", "level", default=None, help=LEVEL_HELP)
@click.option(
    "--rubric",
    type=click.Choice(RUBRICS),
    default=None,
    help="Also grade with a rubric profile (cleo: seed 000's 5 x 20 rubric).",
)
@config_option
@click.option(
    "--audit",
    "audit",
    type=click.Path(exists=True),
    default=None,
    help="Attach a CLEO audit log (tasks.db, .cleo/audit/*.jsonl, todo-log.json, or "
    "a .cleo folder) for --rubric cleo; alone, grade that audit log.",
)
@click.option(
    "--audit-session",
    default=None,
    help="Only audit rows of this CLEO session id (default: the session's time window).",
)
@click.option(
    "--judge",
    default=None,
    help="L2 judge model (an `llm` model id, or replay:FILE); default: the configured one.",
)
@click.option("--no-ledger", is_flag=True, help="Do not append the grade to GRADES.jsonl.")
@json_option
@click.pass_context
def score(
    ctx: click.Context,
    session: str | None,
    traces: str | None,
    task: str | None,
    level: str | None,
    rubric: str | None,
    config_path: str | None,
    audit: str | None,
    audit_session: str | None,
    judge: str | None,
    no_ledger: bool,
    as_json: bool,
) -> None:
    """Grade one session (or a trace file) and print the report.

    With --session: L0 facts and integrity, L1 trace-grader verdict (clean-pass,
    pass-with-warnings, corrupt-success, fail; "flags-only: ..." while the outcome is unknown),
    and with --rubric cleo the 5 x 20 rubric; the grade is appended to GRADES.jsonl.
    With --traces FILE: seed 001's canonical traces.json (JSON with "tasks") or audit JSONL
    (one run per session_id; --task labels them), graded per run with pass^k; nothing is written.
    A session or run with no agent action is "nothing-to-grade" (no score; the ledger records
    it as a finished grade of zero judged work). Exit 3 on corrupt-success or a flaky task, 4 on
    insufficient data, 5 when there was nothing to grade.
    """
    if sum(x is not None for x in (session, traces)) != 1 and not (
        audit and not traces and not session
    ):
        raise click.UsageError(
            "give exactly one of --session ID or --traces FILE (or --audit PATH --rubric cleo)"
        )
    config = load_grader_config(config_path)
    home = trail_home()
    if traces:
        _score_traces(ctx, traces, task, config, as_json, home)
        return
    settings = eval_settings(home)
    db, _ = queries.open_synced(home)
    levels = parse_levels(level)
    if session is None:
        if rubric != "cleo":
            raise click.UsageError("--audit without --session grades with --rubric cleo only")
        assert audit is not None
        stream = cleo_ops.load_audit(audit, audit_session)
        name = audit_session or os.path.basename(os.path.normpath(audit))
        data = SessionData(
            key=f"cleo-audit/{name}", session_id=name, harness="cleo", state="closed", events=[]
        )
        grade = grade_events(
            data,
            config,
            levels=(),
            rubric="cleo",
            audit=stream,
            min_coverage=settings["min_coverage"],
        )
        records, parts = build_records(grade, config, select((), "cleo"))
        graded = Graded(grade, records, parts)
        if not no_ledger:
            ledger.append(home, records, db)
    else:
        graded = grade_and_record(
            db,
            home,
            session,
            levels=levels,
            rubric=rubric,
            config=config,
            audit=audit,
            audit_session=audit_session,
            judge=judge,
            record=not no_ledger,
        )
    records = graded.records
    if as_json:
        out: dict[str, Any] = {"grades": records}
        if graded.not_graded:
            out["notGraded"] = [st.as_dict() for st in graded.not_graded]
        _dump(out)
    else:
        click.echo(graded.render())
    ctx.exit(exit_code(_verdicts(records)))


def _score_traces(
    ctx: click.Context, path: str, task: str | None, config: GraderConfig, as_json: bool, home: str
) -> None:
    settings = eval_settings(home)
    tf = grade_trace_file(path, task, config, settings["min_coverage"])
    if task and tf.format == "canonical":
        click.echo(
            f"note: --task {task} ignored: a canonical traces.json names each run's task "
            "(--task labels the runs of an audit file)",
            err=True,
        )
    results, passk = tf.results, tf.passk
    if as_json:
        _dump(traces_json(tf.format, results, passk, config))
    else:
        click.echo(render_traces(results, passk, tf.format))
    ctx.exit(exit_code([r.verdict for r in results], passk))


@eval_group.command("list")
@click.option("--session", default=None, help="Only grades of this session key or id.")
@click.option("--rubric", default=None, help="Only grades of this rubric (trace-grader, cleo).")
@click.option("--limit", type=int, default=None, help="At most this many, newest last.")
@json_option
def list_cmd(session: str | None, rubric: str | None, limit: int | None, as_json: bool) -> None:
    """List past grades from the ledger (like `ct grade --list`).

    Columns: time, session, rubric, verdict or letter grade, scored points, coverage, and
    whether the thresholds were verified.
    """
    home = trail_home()
    db, _ = queries.open_synced(home)
    ledger.sync(db, home)
    rows = queries.list_grades(db, session=session, rubric=rubric, limit=limit)
    if as_json:
        _dump(rows)
        return
    if not rows:
        click.echo("No grades yet. Grade a session with `trail eval score --session ID`.")
        return
    click.echo(
        f"{'TIME':20} {'SESSION':36} {'RUBRIC':12} {'VERDICT':26} {'SCORE':>9} "
        f"{'COVER':>6} THRESHOLDS"
    )
    for r in rows:
        cfg = r.get("config") or {}
        verified = "—" if not cfg else ("verified" if cfg.get("verified") else "unverified")
        pts = (
            "n/a"
            if r.get("maxScore") in (None, 0)
            else f"{r.get('totalScore'):g}/{r.get('maxScore'):g}"
        )
        cov = r.get("coverage")
        cov_s = "n/a" if cov is None else f"{100 * cov:.0f}%"
        verdict = f"{str(r.get('verdict'))[:26]:26}"
        click.echo(
            f"{str(r.get('timestamp'))[:19]:20} {str(r.get('sessionKey'))[:36]:36} "
            f"{r.get('rubric')!s:12} {paint_verdict(r.get('verdict'), verdict)} {pts:>9} "
            f"{cov_s:>6} {verified}"
        )


@eval_group.command("passk")
@click.option("--task", "tasks", multiple=True, help="Only this task label (repeatable).")
@click.option(
    "-k",
    "k",
    type=click.IntRange(min=1),
    default=None,
    help="k (default: each task's own n, i.e. every recorded trial must deliver).",
)
@json_option
@click.pass_context
def passk_cmd(ctx: click.Context, tasks: tuple[str, ...], k: int | None, as_json: bool) -> None:
    """pass^k per task label: C(c,k)/C(n,k) with each task's own n, and the all-k gate.

    Runs are sessions labelled with `trail eval task`; a run counts as a trial only when its
    outcome was recorded with `trail eval outcome` (unknown outcomes are listed, not counted).
    n < k is "insufficient trials" (exit 4 unless something failed); a flaky or failing task
    exits 3.
    """
    home = trail_home()
    db, _ = queries.open_synced(home)
    rows = passk_by_task(queries.labelled_runs(db, list(tasks) or None), k)
    if tasks:
        missing = [t for t in tasks if t not in {r.task for r in rows}]
        if missing:
            raise ScorerError(f"no sessions labelled with task {', '.join(missing)}")
    if as_json:
        _dump([r.as_dict() for r in rows])
    else:
        click.echo("\n".join(render_passk(rows)))
    ctx.exit(exit_code([], rows))


@eval_group.command("gate")
@click.option("--session", "sessions", multiple=True, help="A session to gate (repeatable).")
@click.option("--all-closed", is_flag=True, help="Gate every closed session.")
@click.option("--level", "level", default=None, help=LEVEL_HELP)
@click.option(
    "--rubric", type=click.Choice(RUBRICS), default=None, help="Also grade with a rubric profile."
)
@config_option
@click.option(
    "-k",
    "k",
    type=click.IntRange(min=1),
    default=None,
    help="k for pass^k of the gated sessions' tasks (default: each task's n).",
)
@click.option(
    "--junit",
    "junit",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write a JUnit XML report here (one test case per session and task).",
)
@click.option(
    "--judge",
    "judge",
    default=None,
    help="L2 judge model (an `llm` model id, or replay:FILE); default: judge.model.",
)
@json_option
@click.pass_context
def gate(
    ctx: click.Context,
    sessions: tuple[str, ...],
    all_closed: bool,
    level: str | None,
    rubric: str | None,
    config_path: str | None,
    k: int | None,
    junit: str | None,
    judge: str | None,
    as_json: bool,
) -> None:
    """CI gate: grade sessions, check pass^k of their tasks, exit with a code CI can act on.

    Exit codes: 0 ok; 3 a corrupt-success run, a high-severity flag on a run of unknown
    outcome, a flaky/failing task, or (with --level L2) a guide an L2 judge verified by
    calibration found misaligned (an unverified judge's verdicts never fail the gate);
    4 insufficient data (coverage below eval.min_coverage,
    or too few trials) when nothing failed; 5 nothing to grade: every gated session held no
    agent action (neither a pass nor a failure; such sessions are JUnit "skipped" and leave
    the code to the others); 1 a grader error (reported; that session gets no grade). Grades
    are appended to GRADES.jsonl.
    """
    if not sessions and not all_closed:
        raise click.UsageError("give --session ID (repeatable) or --all-closed")
    home = trail_home()
    config = load_grader_config(config_path)
    db, _ = queries.open_synced(home)
    levels = parse_levels(level)
    idents = list(sessions)
    if all_closed:
        idents += [
            r["key"]
            for r in queries.list_sessions(db)
            if r["state"] == "closed" and r["key"] not in idents
        ]
    cases: list[dict[str, Any]] = []
    verdicts: list[str | None] = []
    tasks: set[str] = set()
    errors = 0
    for ident in idents:
        try:
            graded = grade_and_record(
                db, home, ident, levels=levels, rubric=rubric, config=config, judge=judge
            )
        except ScorerError as exc:
            errors += 1
            cases.append(error_case(ident, str(exc)))
            click.echo(f"Error: {ident}: {exc}", err=True)
            continue
        if graded.grade.data.task:
            tasks.add(graded.grade.data.task)
        for rec in graded.records:
            verdicts.append(gate_verdict(rec))
            cases.append(record_case(rec))
    rows = passk_by_task(queries.labelled_runs(db, sorted(tasks)), k) if tasks else []
    cases += [passk_case(t) for t in rows]
    code = EXIT_ERROR if errors else exit_code(verdicts, rows)
    if not idents:
        code = EXIT_NODATA
    if junit:
        write_junit(junit, cases)
    if as_json:
        _dump({"exit_code": code, "cases": cases, "pass_k": [t.as_dict() for t in rows]})
    else:
        for c in cases:
            click.echo(
                f"{c['status'].upper():8} {c['class']:14} {c['name']}: {c.get('message', '')}"
            )
        if not idents:
            click.echo("No sessions to gate.")
        click.echo(RULE)
        click.echo(f"gate exit code {code}")
    ctx.exit(code)


@eval_group.command("outcome")
@click.argument("session")
@click.argument("outcome", type=click.Choice(["pass", "fail", "unknown"]))
def outcome_cmd(session: str, outcome: str) -> None:
    """Record whether a session delivered its task: pass, fail (or unknown to clear it).

    L1 verdicts use it (clean-pass / corrupt-success / fail need a known outcome), and
    pass^k counts only runs with a recorded outcome.
    """
    key = set_label(session, "outcome", None if outcome == "unknown" else outcome)
    click.echo(f"{key}: outcome {outcome}")


@eval_group.command("task")
@click.argument("session")
@click.argument("label")
def task_cmd(session: str, label: str) -> None:
    """Label a session as a run of task LABEL (pass^k groups runs by this label)."""
    key = set_label(session, "task", label)
    click.echo(f"{key}: task {label}")


@eval_group.command("self-test")
@json_option
@click.pass_context
def self_test(ctx: click.Context, as_json: bool) -> None:
    """Check the grader on seed 001's three fixture cases (shipped with trail).

    T1-clean must be clean-pass with no flags; T2-corrupt corrupt-success with forbidden_tool
    and retry_storm; T3-flaky must fail pass^3 (2 of 3 delivered). Exit 0 when all hold, 1
    otherwise. (Grading the same file with `score --traces` exits 3.)
    """
    from scorers.selftest import run_self_test

    report, checks = run_self_test()
    ok = all(passed for _, passed in checks)
    if as_json:
        _dump({"ok": ok, "checks": [{"check": c, "ok": p} for c, p in checks], "report": report})
    else:
        click.echo(report)
        click.echo(RULE)
        for text, passed in checks:
            click.echo(f"  [{'ok' if passed else 'FAIL'}] {text}")
        click.echo("self-test: " + ("ALL PASS" if ok else "FAILED"))
    ctx.exit(EXIT_OK if ok else EXIT_ERROR)


# `trail eval calibrate` (scorers.judge.cli): the judge's own command, one table entry here.
eval_group.add_command(calibrate_cmd)


@eval_group.command("pending")
@click.option("--all", "show_all", is_flag=True, help="Every closed session, whatever its state.")
@click.option(
    "--grade",
    "run",
    is_flag=True,
    help="Grade the queue now, once (what `trail watch` does after each sweep).",
)
@click.option("--judge", default=None, help="With --grade: the L2 judge model.")
@json_option
@click.pass_context
def pending_cmd(
    ctx: click.Context, show_all: bool, run: bool, judge: str | None, as_json: bool
) -> None:
    """Show the L2 grading queue: closed sessions not graded yet.

    A closed session is graded once (by `trail watch`); later actions reopen it and it is
    graded again when it closes. It stays gradeable for 24 h after it closed: "not graded
    yet" inside that window, "not graded" (permanently) after it. A failed attempt (no judge
    configured, quota, network, a malformed answer) writes nothing: the session stays here.
    With --all: every closed session with its state (graded, not graded yet, not graded).
    With --grade: grade every session waiting, once (for a cron job or CI instead of
    `trail watch`); exit 1 when an attempt failed (those sessions stay queued).
    See docs/grading.md.
    """
    from scorers import queue

    home = trail_home()
    db, _ = queries.open_synced(home)
    if run:
        report = queue.run_queue(db, home, judge=judge)
        if as_json:
            _dump(report.as_dict())
        else:
            for key in report.graded:
                click.echo(f"graded {key}")
            for key, why in report.failed:
                click.echo(f"not graded yet {key}: {why} (stays queued)")
            if not report.graded and not report.failed:
                click.echo("Nothing waiting.")
        ctx.exit(EXIT_ERROR if report.failed else EXIT_OK)
    if show_all:
        keys = [r["key"] for r in queries.list_sessions(db) if r["state"] == "closed"]
        states = [queue.state_of(db, k, rubric) for rubric in queue.closed_rubrics() for k in keys]
    else:
        states = queue.pending(db)
    if as_json:
        _dump([s.as_dict() for s in states])
        return
    if not states:
        click.echo("Nothing waiting: every closed session is graded or past its window.")
        return
    click.echo(f"{'SESSION':40} {'STATE':15} {'CLOSED':20} {'WINDOW ENDS':20} WHY")
    for s in states:
        click.echo(
            f"{s.key[:40]:40} {s.state:15} {str(s.closed_at or '-')[:19]:20} "
            f"{str(s.window_ends or '-')[:19]:20} {s.reason}"
        )


@eval_group.command("guides")
@click.option("--guide", default=None, help="Only this guide (its name as listed).")
@json_option
def guides_cmd(guide: str | None, as_json: bool) -> None:
    """Alignment rate per guide and version, and the sessions that engaged it.

    The rate is computed now from the L2 verdicts: aligned / (aligned + misaligned) over the
    sessions that engaged the guide. Sessions where it was "Not engaged" (not_applicable)
    count in neither. A guide with no verdict is "unevaluated" (no rate), never 100%. Each
    session counts with its newest L2 grade. See docs/grading.md.
    """
    from scorers.rates import guide_rates
    from telemetry.guide_store import record_guides

    home = trail_home()
    db, _ = queries.open_synced(home)
    ledger.sync(db, home)
    record_guides(db, home)
    rows = guide_rates(db, guide)
    if as_json:
        _dump([r.as_dict() for r in rows])
        return
    if not rows:
        click.echo("No guides yet: none reached a recorded agent (see docs/grading.md).")
        return
    click.echo(
        f"{'GUIDE':32} {'VERSION':12} {'RATE':>6} {'ALIGNED':>7} {'MISALIGNED':>10} "
        f"{'NOT ENGAGED':>11} ENGAGED IN"
    )
    for r in rows:
        rate = "n/a" if r.rate is None else f"{100 * r.rate:.0f}%"
        engaged = ", ".join(r.engaged) or f"({r.status}; loaded in {len(r.loaded_in)} session(s))"
        version = r.version[:12] or "(no text)"
        click.echo(
            f"{r.guide[:32]:32} {version:12} {rate:>6} {len(r.aligned):>7} "
            f"{len(r.misaligned):>10} {len(r.not_engaged):>11} {engaged}"
        )
    from scorers.judge.calibration import judges_of

    for line in judges_of(home, ledger.read(home)):  # whose verdicts these rates count
        click.echo(line)
