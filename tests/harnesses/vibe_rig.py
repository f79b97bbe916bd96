"""Run the real Mistral Vibe 3.0.1 once, offline, against the scripted fake OpenAI model, with
trail's hooks registered by ``trail install --harness vibe`` (real-harnesses.md §1.1).

One run = one folder (the Claude Code rig's layout, ``tests/harnesses/rig.RunPaths``)::

    <run>/home/              scratch HOME; Vibe's home is <run>/home/.vibe (config.toml written
                             here, hooks.toml by `trail install`, the session store under logs/)
    <run>/project/           the project (cwd); `--trust` trusts it for the run
    <run>/trail-home/        TRAIL_HOME: what trail recorded
    <run>/fake-model.jsonl   every request the fake model received
    <run>/stream.jsonl       vibe's `--output streaming` output (one history entry per line)
    <run>/outdir/            `--output-dir`: export.json and a copy of the store
    <run>/run.json           the run's summary

Vibe runs its hooks synchronously (§1.2), so every hook has finished when vibe exits; the rig
still waits for any process that carries the run's TRAIL_HOME. Only 127.0.0.1 is contacted.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

from tests.harnesses.fake_openai import MODEL, FakeOpenAI
from tests.harnesses.rig import (
    RunContext,
    RunPaths,
    RunResult,
    Scenario,
    _run_members,
    base_env,
    launch,
    trail,
    turn_scripts,
)

SETTLE_TIMEOUT = 30.0

CONFIG = """\
active_model = "fake"
enable_telemetry = false
enable_update_checks = false
enable_auto_update = false
enable_notifications = false

[[providers]]
name = "fakeprov"
api_base = "{base}/v1"
api_key_env_var = ""
api_style = "openai"
backend = "generic"

[[models]]
name = "{model}"
provider = "fakeprov"
alias = "fake"
temperature = 0.0
"""


def vibe_home(paths: RunPaths) -> Path:
    return paths.home / ".vibe"


def prepare_run(scenario: Scenario, root: Path) -> RunContext:
    if root.exists():
        shutil.rmtree(root)
    paths = RunPaths(root)
    for d in (paths.home, paths.tmp, paths.project, paths.trail_home, vibe_home(paths)):
        d.mkdir(parents=True, exist_ok=True)
    ctx = RunContext(paths)
    if scenario.prepare:
        scenario.prepare(ctx)
    for rel, content in scenario.files(ctx).items():
        target = paths.project / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)
    # Exactly as a user: `trail install --harness vibe` (default: the user's ~/.vibe/hooks.toml).
    trail(paths, "install", "--harness", "vibe")
    return ctx


def run(scenario: Scenario, root: Path, vibe: Path) -> RunResult:
    """Run ``scenario`` once in ``root`` (emptied first)."""
    ctx = prepare_run(scenario, root)
    paths = ctx.paths
    script = scenario.script(ctx)
    (root / "script.json").write_text(json.dumps(script, indent=2) + "\n")
    prompts = scenario.prompts(ctx)
    seconds, settle, returncode, lingering = 0.0, 0.0, 0, []
    outputs: list[bytes] = []
    turns = zip(prompts, turn_scripts(script, len(prompts)), strict=True)
    for turn, (prompt, played) in enumerate(turns):
        with FakeOpenAI(played, paths.server_log) as fake:
            (vibe_home(paths) / "config.toml").write_text(
                CONFIG.format(base=fake.base_url, model=MODEL)
            )
            env = base_env(paths)
            cmd = [
                str(vibe),
                # A later turn continues the most recent session (the only one in this HOME).
                *(["--continue"] if turn else []),
                "-p",
                prompt,
                "--auto-approve",
                "--trust",
                "--output",
                "streaming",
                "--output-dir",
                str(root / "outdir"),
                *scenario.args,
            ]
            label = f"{scenario.name}: vibe (turn {turn + 1})"
            _pid, returncode, took = launch(cmd, paths, env, label)
            settle_start = time.monotonic()
            lingering = _run_members(paths.trail_home)
            while lingering and time.monotonic() - settle_start < SETTLE_TIMEOUT:
                time.sleep(0.1)
                lingering = _run_members(paths.trail_home)
            settle += time.monotonic() - settle_start
        seconds += took
        outputs.append(paths.stream.read_bytes())
        if turn + 1 < len(prompts):
            assert returncode == 0, f"{label} exited {returncode}; see {root}"
    paths.stream.write_bytes(b"".join(outputs))
    stream = []
    for line in paths.stream.read_text().splitlines():
        try:
            stream.append(json.loads(line))
        except ValueError:
            continue  # vibe prints a non-JSON line now and then; the check reads JSON ones
    export = root / "outdir" / "export.json"
    session_id = (
        str(json.loads(export.read_text()).get("session_id") or "") if export.exists() else ""
    )
    if not session_id:
        session_id = next((str(m["sessionId"]) for m in stream if m.get("sessionId")), "")
    result = RunResult(
        scenario.name, paths, session_id, returncode, seconds, settle, lingering, stream, ctx
    )
    (root / "run.json").write_text(json.dumps(result.summary(), indent=2) + "\n")
    return result
