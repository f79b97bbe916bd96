"""Run the real Claude Code once, offline, against the scripted fake model, with trail's hooks.

One run = one folder::

    <run>/home/             scratch HOME (Claude writes ~/.claude/projects/<slug>/<session>.jsonl)
    <run>/tmp/              scratch TMPDIR (else Claude writes /tmp/claude-<uid>/..., §3.1)
    <run>/project/          the project: CLAUDE.md, scenario files, .claude/settings.json
    <run>/trail-home/       TRAIL_HOME: what trail recorded
    <run>/fake-model.jsonl  every request the fake model received
    <run>/script.json       the script it played
    <run>/stream.jsonl      claude's --output-format stream-json output
    <run>/stderr.txt        claude's stderr
    <run>/run.json          the run's summary (session id, exit code, timings)

Hooks are registered with ``trail install --harness claude-code`` run in the project, exactly
as a user runs it (async hooks). Only 127.0.0.1 is ever contacted.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.harnesses.fake_anthropic import FakeAnthropic

TRAIL = Path(sys.executable).parent / "trail"
ALLOWED_TOOLS = "Bash Read Edit Write Skill Agent"
RUN_TIMEOUT = 120.0
# After claude exits, wait this long at most for the hook processes it started to finish.
SETTLE_TIMEOUT = 30.0
DEFAULT_CLAUDE_MD = "# Project notes\n\nKeep answers short. Run commands from the project root.\n"


@dataclass
class RunPaths:
    root: Path

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def tmp(self) -> Path:
        return self.root / "tmp"

    @property
    def project(self) -> Path:
        return self.root / "project"

    @property
    def trail_home(self) -> Path:
        return self.root / "trail-home"

    @property
    def server_log(self) -> Path:
        return self.root / "fake-model.jsonl"

    @property
    def stream(self) -> Path:
        return self.root / "stream.jsonl"

    @property
    def stderr(self) -> Path:
        return self.root / "stderr.txt"

    @property
    def settings(self) -> Path:
        return self.project / ".claude" / "settings.json"


@dataclass
class RunContext:
    """What a scenario may use to build its files, prompt and script."""

    paths: RunPaths
    secret: str = ""
    values: dict[str, Any] = field(default_factory=dict)


@dataclass
class Scenario:
    name: str
    description: str
    prompt: Callable[[RunContext], str]
    script: Callable[[RunContext], dict[str, list[Any]]]
    files: Callable[[RunContext], dict[str, str]] = lambda ctx: {}
    patch_settings: Callable[[dict[str, Any], RunContext], None] | None = None
    prepare: Callable[[RunContext], None] | None = None
    allowed_tools: str = ALLOWED_TOOLS
    # Expectations the checks read.
    stop_lost: bool = False
    expects_guide: bool = False
    expects_skill: str | None = None
    subagents: int = 0
    # The fake model's longest pause before the main agent's closing text, cut short once
    # trail has every executed call's PreToolUse and PostToolUse (see FakeAnthropic).
    final_delay: float = 10.0
    # Every PreToolUse/PostToolUse reaches trail's raw capture (false where the scenario
    # makes hooks be lost on purpose).
    hooks_complete: bool = True
    # More options for the harness program (e.g. Vibe's ("--time-limit", "4")).
    args: tuple[str, ...] = ()
    # The harness program's own exit code (Vibe exits 3 when --time-limit interrupts it).
    exit_code: int = 0
    # Prompts of later turns, each a new process resuming the session (the script's
    # `{"text": ..., "end_turn": true}` steps end the turns: turn_scripts).
    resumed: Callable[[RunContext], list[str]] = lambda ctx: []

    def prompts(self, ctx: RunContext) -> list[str]:
        """Every prompt typed, one per process run, in order."""
        return [self.prompt(ctx), *self.resumed(ctx)]


def turn_scripts(script: dict[str, list[Any]], turns: int) -> list[dict[str, list[Any]]]:
    """The script each of ``turns`` process runs of one session plays.

    A main step ``{"text": ..., "end_turn": true}`` ends a turn. The fake finds its step from
    the call ids already in the conversation, so a resumed run, whose requests carry the
    earlier turns, plays on from the step after the last call; each run's script is the whole
    script without the turn ends already passed (a text step sends no id to count)."""
    out = []
    for turn in range(turns):
        main, ends = [], 0
        for step in script["main"]:
            if isinstance(step, dict) and step.get("end_turn"):
                ends += 1
                if ends <= turn:
                    continue
            main.append(step)
        out.append({**script, "main": main})
    return out


@dataclass
class RunResult:
    scenario: str
    paths: RunPaths
    session_id: str
    returncode: int
    seconds: float
    settle_seconds: float
    lingering_after_settle: list[str]
    stream: list[dict[str, Any]]
    ctx: RunContext

    def summary(self) -> dict[str, Any]:
        return {
            "scenario": self.scenario,
            "session_id": self.session_id,
            "returncode": self.returncode,
            "seconds": round(self.seconds, 3),
            "settle_seconds": round(self.settle_seconds, 3),
            "lingering_after_settle": self.lingering_after_settle,
            "paths": {k: str(getattr(self.paths, k)) for k in ("home", "project", "trail_home")},
            "values": self.ctx.values,
        }


def base_env(paths: RunPaths, **extra: str) -> dict[str, str]:
    """A clean environment: nothing of the caller's Claude/Anthropic settings leaks in."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "HOME": str(paths.home),
        "TMPDIR": str(paths.tmp),
        "TRAIL_HOME": str(paths.trail_home),
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
    }
    env.update(extra)
    return env


def claude_launch(
    paths: RunPaths, base_url: str, claude: Path, prompt: str, allowed_tools: str
) -> tuple[dict[str, str], list[str]]:
    """The environment and ``claude -p`` command line of a run against the fake model at
    ``base_url`` (offline: no other traffic, no updater)."""
    env = base_env(
        paths,
        ANTHROPIC_BASE_URL=base_url,
        ANTHROPIC_API_KEY="sk-ant-fake",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        DISABLE_AUTOUPDATER="1",
    )
    cmd = [str(claude), "-p", prompt, "--allowedTools", allowed_tools]
    return env, [*cmd, "--output-format", "stream-json", "--verbose"]


def trail(paths: RunPaths, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run the venv's trail CLI against the run's TRAIL_HOME."""
    done = subprocess.run(
        [str(TRAIL), *args],
        cwd=paths.project,
        env=base_env(paths),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if check and done.returncode != 0:
        raise AssertionError(
            f"trail {' '.join(args)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
        )
    return done


def trail_json(paths: RunPaths, *args: str) -> Any:
    return json.loads(trail(paths, *args).stdout)


def _session_members(sid: int) -> list[str]:
    """Processes still alive in session ``sid`` (claude runs in its own session)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        # pid (comm) state ppid pgrp session ...; comm may hold spaces and parentheses
        fields = text[text.rindex(")") + 2 :].split()
        if len(fields) > 3 and int(fields[3]) == sid:
            try:
                cmd = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                cmd = "?"
            found.append(f"{stat.parent.name}: {cmd.strip()}")
    return found


def _run_members(trail_home: Path) -> list[str]:
    """Processes whose environment names this run's TRAIL_HOME, wherever they were started.

    Catches hook processes a harness might detach into another session.
    """
    needle = f"TRAIL_HOME={trail_home}\0".encode()
    found = []
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            if needle in environ.read_bytes() + b"\0":
                cmd = (environ.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode()
                found.append(f"{environ.parent.name}: {cmd.strip()}")
        except OSError:
            continue
    return found


def hooks_landed(paths: RunPaths, call_ids: set[str]) -> bool:
    """Has trail recorded a call and a result for every one of ``call_ids``?"""
    calls: set[str] = set()
    results: set[str] = set()
    for trace in paths.trail_home.glob("sessions/claude-code/*/trace.jsonl"):
        try:
            text = trace.read_text(encoding="utf-8")
        except OSError:
            return False
        for raw in text.splitlines():
            try:
                ev = json.loads(raw)
            except ValueError:
                continue  # a line still being written
            kind, cid = ev.get("kind"), ev.get("call_id")
            if kind == "tool_call":
                calls.add(str(cid))
            elif kind in ("tool_result", "tool_error"):
                results.add(str(cid))
    return call_ids <= calls and call_ids <= results


def prepare_run(scenario: Scenario, root: Path) -> RunContext:
    if root.exists():
        shutil.rmtree(root)
    paths = RunPaths(root)
    for d in (paths.home, paths.tmp, paths.project, paths.trail_home):
        d.mkdir(parents=True)
    ctx = RunContext(paths)
    if scenario.prepare:
        scenario.prepare(ctx)
    files = {"CLAUDE.md": DEFAULT_CLAUDE_MD, **scenario.files(ctx)}
    for rel, content in files.items():
        target = paths.project / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)
    # Exactly as a user: `trail install --harness claude-code` in the project folder.
    trail(paths, "install", "--harness", "claude-code")
    if scenario.patch_settings:
        settings = json.loads(paths.settings.read_text())
        scenario.patch_settings(settings, ctx)
        paths.settings.write_text(json.dumps(settings, indent=2) + "\n")
    return ctx


def launch(
    cmd: list[str], paths: RunPaths, env: dict[str, str], label: str, timeout: float = RUN_TIMEOUT
) -> tuple[int, int, float]:
    """Run a harness program in the project, in its own session, stdout to ``paths.stream`` and
    stderr to ``paths.stderr``: ``(pid, exit code, seconds)``. Killed (its whole process group)
    and an AssertionError raised when it runs past ``timeout``."""
    started = time.monotonic()
    with paths.stream.open("wb") as out, paths.stderr.open("wb") as err:
        proc = subprocess.Popen(
            cmd,
            cwd=paths.project,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            start_new_session=True,
        )
        try:
            returncode = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)  # our own process group
            proc.wait()
            raise AssertionError(
                f"{label} did not finish in {timeout}s; see {paths.root}"
            ) from None
    return proc.pid, returncode, time.monotonic() - started


def settled(pid: int, paths: RunPaths) -> tuple[float, list[str]]:
    """Wait (at most ``SETTLE_TIMEOUT``) until no process of the harness's session ``pid`` and
    none naming the run's TRAIL_HOME is left: ``(seconds waited, processes still alive)``."""
    start = time.monotonic()

    def alive() -> list[str]:
        return sorted(set(_session_members(pid)) | set(_run_members(paths.trail_home)))

    lingering = alive()
    while lingering and time.monotonic() - start < SETTLE_TIMEOUT:
        time.sleep(0.1)
        lingering = alive()
    return time.monotonic() - start, lingering


def run(scenario: Scenario, root: Path, claude: Path) -> RunResult:
    """Run ``scenario`` once in ``root`` (emptied first) and wait for its hooks to settle."""
    ctx = prepare_run(scenario, root)
    paths = ctx.paths
    script = scenario.script(ctx)
    (root / "script.json").write_text(json.dumps(script, indent=2) + "\n")
    prompts = scenario.prompts(ctx)
    seconds, settle, returncode, lingering, session_id = 0.0, 0.0, 0, [], ""
    outputs: list[bytes] = []
    turns = zip(prompts, turn_scripts(script, len(prompts)), strict=True)
    for turn, (prompt, played) in enumerate(turns):
        with FakeAnthropic(
            played, paths.server_log, scenario.final_delay, lambda ids: hooks_landed(paths, ids)
        ) as fake:
            env, cmd = claude_launch(paths, fake.base_url, claude, prompt, scenario.allowed_tools)
            # A later turn is a new process resuming the first one's session.
            resume = ["--resume", session_id] if turn else []
            cmd = [cmd[0], *resume, *cmd[1:], *scenario.args]
            label = f"{scenario.name}: claude (turn {turn + 1})"
            pid, returncode, took = launch(cmd, paths, env, label)
            # Async hooks Claude started may still run; wait for its session to empty.
            waited, lingering = settled(pid, paths)
        seconds, settle = seconds + took, settle + waited
        outputs.append(paths.stream.read_bytes())
        lines = [json.loads(line) for line in outputs[-1].decode().splitlines() if line.strip()]
        session_id = session_id or next(
            (
                str(m["session_id"])
                for m in lines
                if m.get("type") == "system" and "session_id" in m
            ),
            "",
        )
        if turn + 1 < len(prompts):
            assert returncode == 0 and session_id, f"{label} exited {returncode}; see {root}"
    paths.stream.write_bytes(b"".join(outputs))
    stream = [json.loads(line) for line in paths.stream.read_text().splitlines() if line.strip()]
    result = RunResult(
        scenario.name, paths, session_id, returncode, seconds, settle, lingering, stream, ctx
    )
    (root / "run.json").write_text(json.dumps(result.summary(), indent=2) + "\n")
    return result
