"""Run the real Copilot CLI once, offline, against the fake OpenAI model, with trail's hooks.

One run = one folder (the layout of ``rig.py``)::

    <run>/home/             scratch HOME; Copilot's state in home/.copilot (COPILOT_HOME default):
                            hooks/trail.json (from `trail install`), session-state/<id>/events.jsonl
    <run>/tmp/              scratch TMPDIR
    <run>/project/          the project and the scenario's files (the working folder)
    <run>/trail-home/       TRAIL_HOME: what trail recorded
    <run>/fake-model.jsonl  every request the fake model received
    <run>/script.json       the script it played
    <run>/stream.jsonl      copilot's --output-format json output
    <run>/stderr.txt        copilot's stderr
    <run>/run.json          the run's summary (session id, exit code, timings)

The recipe is real-harnesses.md §2.1: BYOK against the fake (``COPILOT_PROVIDER_BASE_URL``),
``COPILOT_OFFLINE=true``, no GitHub sign-in, ``-p`` with every tool and path allowed and the
folder trusted. Hooks are registered with ``trail install --harness copilot-cli`` exactly as a
user runs it (user level: ``$COPILOT_HOME/hooks/trail.json``). The unpacked program is shared
between runs (``install.program_env``). Only 127.0.0.1 is ever contacted.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.harnesses import install
from tests.harnesses.fake_openai import MODEL, FakeOpenAI
from tests.harnesses.rig import (
    RunContext,
    RunPaths,
    RunResult,
    base_env,
    launch,
    settled,
    trail,
    turn_scripts,
)
from tests.harnesses.versions import PINS

PIN = PINS["copilot-cli"]


@dataclass
class CopilotScenario:
    name: str
    description: str
    prompt: Callable[[RunContext], str]
    script: Callable[[RunContext], dict[str, list[Any]]]
    files: Callable[[RunContext], dict[str, str]] = lambda ctx: {}
    prepare: Callable[[RunContext], None] | None = None
    # Edits the hooks file `trail install` wrote (home/.copilot/hooks/trail.json) before the run.
    patch_hooks: Callable[[dict[str, Any], RunContext], None] | None = None
    # More `trail install` runs in the project (e.g. ("--harness", "claude-code")): Copilot
    # also runs a project's .claude/settings.json hooks.
    also_install: tuple[tuple[str, ...], ...] = ()
    subagents: int = 0
    # Copilot's own exit code for the run (1 after a model error, real-harnesses.md §2.1).
    exit_code: int = 0
    # What the scenario is about, checked by its own test (e.g. "exit_code_2").
    facts: dict[str, Any] = field(default_factory=dict)
    # More copilot options for the run (e.g. ("--deny-tool", "shell(rm)")).
    args: tuple[str, ...] = ()
    # Prompts of later turns, each a new `copilot --resume=<session>` process (the script's
    # `{"text": ..., "end_turn": true}` steps end the turns: rig.turn_scripts).
    resumed: Callable[[RunContext], list[str]] = lambda ctx: []

    def prompts(self, ctx: RunContext) -> list[str]:
        """Every prompt typed, one per process run, in order."""
        return [self.prompt(ctx), *self.resumed(ctx)]


class CopilotRun(RunResult):
    """One Copilot run (the fields of ``rig.RunResult``)."""

    @property
    def copilot_home(self) -> Path:
        return self.paths.home / ".copilot"


def copilot_env(paths: RunPaths, base_url: str) -> dict[str, str]:
    """The run's environment: scratch HOME, the fake as BYOK provider, nothing of the caller's."""
    return base_env(
        paths,
        COPILOT_OFFLINE="true",
        COPILOT_AUTO_UPDATE="false",
        COPILOT_PROVIDER_BASE_URL=base_url + "/v1",
        COPILOT_PROVIDER_API_KEY="sk-fake",
        COPILOT_MODEL=MODEL,
        **install.program_env(PIN),
    )


def prepare_run(scenario: CopilotScenario, root: Path) -> RunContext:
    if root.exists():
        shutil.rmtree(root)
    paths = RunPaths(root)
    for d in (paths.home, paths.tmp, paths.project, paths.trail_home):
        d.mkdir(parents=True)
    ctx = RunContext(paths)
    if scenario.prepare:
        scenario.prepare(ctx)
    for rel, content in scenario.files(ctx).items():
        target = paths.project / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)
    # Exactly as a user: `trail install --harness copilot-cli` (user level, ~/.copilot/hooks).
    trail(paths, "install", "--harness", "copilot-cli")
    for args in scenario.also_install:
        trail(paths, "install", *args)
    if scenario.patch_hooks:
        hooks_file = paths.home / ".copilot" / "hooks" / "trail.json"
        data = json.loads(hooks_file.read_text())
        scenario.patch_hooks(data, ctx)
        hooks_file.write_text(json.dumps(data, indent=2) + "\n")
    return ctx


def run(scenario: CopilotScenario, root: Path, copilot: Path) -> CopilotRun:
    """Run ``scenario`` once in ``root`` (emptied first) and wait for its hooks to settle."""
    ctx = prepare_run(scenario, root)
    paths = ctx.paths
    script = scenario.script(ctx)
    (root / "script.json").write_text(json.dumps(script, indent=2) + "\n")
    prompts = scenario.prompts(ctx)
    seconds, settle, lingering, returncode = 0.0, 0.0, [], 0
    outputs: list[bytes] = []
    turns = zip(prompts, turn_scripts(script, len(prompts)), strict=True)
    for turn, (prompt, played) in enumerate(turns):
        resume = []
        if turn:
            earlier = sorted((paths.home / ".copilot" / "session-state").glob("*/events.jsonl"))
            assert len(earlier) == 1, f"{scenario.name}: no one session to resume: {earlier}"
            # 1.0.102 refuses `--resume` with `--trust-folder` (a usage error, exit 1); the
            # folder's trust is the session's already.
            resume = [f"--resume={earlier[0].parent.name}"]
        with FakeOpenAI(played, paths.server_log) as fake:
            cmd = [
                str(copilot),
                *resume,
                "-p",
                prompt,
                "--allow-all-tools",
                "--allow-all-paths",
                *([] if resume else ["--trust-folder"]),
                "--no-auto-update",
                "--output-format",
                "json",
                *scenario.args,
            ]
            env = copilot_env(paths, fake.base_url)
            label = f"{scenario.name}: copilot (turn {turn + 1})"
            pid, returncode, took = launch(cmd, paths, env, label)
            waited, lingering = settled(pid, paths)
        seconds, settle = seconds + took, settle + waited
        outputs.append(paths.stream.read_bytes())
        if turn + 1 < len(prompts):
            assert returncode == 0, f"{label} exited {returncode}; see {root}"
    paths.stream.write_bytes(b"".join(outputs))
    stream = []
    for line in paths.stream.read_text().splitlines():
        try:
            stream.append(json.loads(line))
        except ValueError:
            stream.append({"unparsed": line})
    logs = sorted((paths.home / ".copilot" / "session-state").glob("*/events.jsonl"))
    session_id = logs[0].parent.name if len(logs) == 1 else ""
    result = CopilotRun(
        scenario.name, paths, session_id, returncode, seconds, settle, lingering, stream, ctx
    )
    (root / "run.json").write_text(json.dumps(result.summary(), indent=2) + "\n")
    return result
