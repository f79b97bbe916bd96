"""The real agent's wall time with trail's hooks, against a bare hook on the same events.

Runs the real Claude Code (the rig's pinned 2.1.328, tests/harnesses/install.py), offline
against the rig's scripted fake model on 127.0.0.1, on one scenario of ``--calls`` tool calls
(Read, Bash, Write and Edit in turn, one per model step), in three arms, round-robin:

- ``none``: no hooks at all;
- ``bare``: ``python -c pass`` of trail's venv as an async command hook on every event trail
  registers (same events, same ``async`` and ``timeout``);
- ``trail``: trail installed as users install it (a wheel in a fresh venv, bench/_installed.py)
  and registered by ``trail install --harness claude-code``.

The agent's wall time is ``claude -p``'s from start to exit. Reports medians per arm, the time
each hook arm adds to ``none`` and the ratio of the two. Target (issue 14): trail adds at most
1.5x what the bare hook adds. Also counts, per arm, the hook processes still running when
claude exited (async hooks are killed at teardown in ``-p``: real-harnesses.md) and whether
trail recorded every call.

    python bench/agent_walltime.py [--rounds 5] [--calls 30] [--no-doc]
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
from _doc import machine, publish  # noqa: E402
from _installed import Installed, setup  # noqa: E402

from tests.harnesses.fake_anthropic import FakeAnthropic  # noqa: E402
from tests.harnesses.install import ensure  # noqa: E402

ARMS = ("none", "bare", "trail")


def script(project: Path, calls: int) -> dict[str, list[Any]]:
    steps: list[Any] = []
    for i in range(calls):
        target = str(project / f"file{i % 5}.txt")
        kind = i % 4
        if kind == 0:
            steps.append([{"name": "Read", "input": {"file_path": target}}])
        elif kind == 1:
            steps.append(
                [
                    {
                        "name": "Bash",
                        "input": {"command": f"echo step-{i}", "description": f"step {i}"},
                    }
                ]
            )
        elif kind == 2:
            steps.append(
                [
                    {
                        "name": "Write",
                        "input": {"file_path": target, "content": f"line {i}\nsecond line\n"},
                    }
                ]
            )
        else:
            steps.append(
                [
                    {
                        "name": "Edit",
                        "input": {
                            "file_path": target,
                            "old_string": "second line",
                            "new_string": f"edited {i}",
                        },
                    }
                ]
            )
    return {"main": steps}


def bare_settings(trail_settings: dict[str, Any], python: str) -> dict[str, Any]:
    """trail's registration with every command replaced by ``python -c pass``."""
    hooks: dict[str, Any] = {}
    for event, groups in trail_settings["hooks"].items():
        hooks[event] = [
            {
                **g,
                "hooks": [{**h, "command": shlex.join([python, "-c", "pass"])} for h in g["hooks"]],
            }
            for g in groups
        ]
    return {"hooks": hooks}


def hook_processes(trail_home: Path, needle: bytes) -> int:
    """Processes whose command line holds ``needle`` and whose environment names this run."""
    mark = f"TRAIL_HOME={trail_home}".encode()
    count = 0
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if (
                needle in (proc / "cmdline").read_bytes()
                and mark in (proc / "environ").read_bytes()
            ):
                count += 1
        except OSError:
            continue
    return count


def run_once(
    claude: Path, arm: str, root: Path, inst: Installed, settings: dict[str, Any], calls: int
) -> dict[str, Any]:
    run = root / f"{arm}-{time.time_ns()}"
    home, tmp, project, trail_home = (run / d for d in ("home", "tmp", "project", "trail-home"))
    for d in (home, tmp, project / ".claude", trail_home):
        d.mkdir(parents=True)
    (project / "CLAUDE.md").write_text("# Notes\n\nKeep answers short.\n")
    for i in range(5):
        (project / f"file{i}.txt").write_text("first line\nsecond line\n")
    if arm != "none":
        (project / ".claude" / "settings.json").write_text(json.dumps(settings, indent=2))
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "HOME": str(home),
        "TMPDIR": str(tmp),
        "TRAIL_HOME": str(trail_home),
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "ANTHROPIC_API_KEY": "sk-ant-fake",
    }
    with FakeAnthropic(script(project, calls), run / "fake-model.jsonl", 0.0, None) as fake:
        env["ANTHROPIC_BASE_URL"] = fake.base_url
        cmd = [
            str(claude),
            "-p",
            "Work through the files.",
            "--allowedTools",
            "Bash Read Edit Write",
            "--output-format",
            "stream-json",
            "--verbose",
        ]
        start = time.perf_counter()
        with (run / "stream.jsonl").open("wb") as out, (run / "stderr.txt").open("wb") as err:
            proc = subprocess.Popen(
                cmd, cwd=project, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err
            )
            # wait4: claude's CPU time with that of every process it started and reaped
            # (the hooks' shells and interpreters), whatever else loads the machine.
            _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        returncode = os.waitstatus_to_exitcode(status)
        cpu = usage.ru_utime + usage.ru_stime
    needle = b"-c\0pass" if arm == "bare" else b"hook\0claude-code"
    lingering = hook_processes(trail_home, needle) if arm != "none" else 0
    deadline = time.monotonic() + 30
    while arm != "none" and hook_processes(trail_home, needle) and time.monotonic() < deadline:
        time.sleep(0.1)
    recorded = 0
    for trace in trail_home.glob("sessions/claude-code/*/trace.jsonl"):
        for line in trace.read_text().splitlines():
            if json.loads(line).get("kind") == "tool_call":
                recorded += 1
    if returncode != 0:
        raise SystemExit(f"{arm}: claude exited {returncode}; see {run}")
    return {"wall": wall, "cpu": cpu, "lingering": lingering, "calls_recorded": recorded}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=30)
    parser.add_argument("--no-doc", action="store_true")
    args = parser.parse_args()
    claude = ensure("claude-code")
    inst, _, work = setup("trail-bench-agent-")
    trail_settings = json.loads((work / "project" / ".claude" / "settings.json").read_text())
    settings = {
        "none": {},
        "bare": bare_settings(trail_settings, inst.python),
        "trail": trail_settings,
    }
    results: dict[str, list[dict[str, Any]]] = {arm: [] for arm in ARMS}
    run_once(claude, "none", work / "runs", inst, {}, args.calls)  # warm caches
    for _ in range(args.rounds):
        for arm in ARMS:
            results[arm].append(
                run_once(claude, arm, work / "runs", inst, settings[arm], args.calls)
            )
    med = {arm: statistics.median(r["wall"] for r in results[arm]) for arm in ARMS}
    cpu = {arm: statistics.median(r["cpu"] for r in results[arm]) for arm in ARMS}
    added_bare = med["bare"] - med["none"]
    added_trail = med["trail"] - med["none"]
    ratio = added_trail / added_bare if added_bare > 0 else float("inf")
    cpu_bare, cpu_trail = cpu["bare"] - cpu["none"], cpu["trail"] - cpu["none"]
    cpu_ratio = cpu_trail / cpu_bare if cpu_bare > 0 else float("inf")
    verdict = "met" if ratio <= 1.5 else "NOT met"
    rows = [
        "| arm | wall time median (s) | runs (s) | wall added vs none (s) | CPU median (s) |"
        " CPU added vs none (s) | hooks still running at exit (median) | calls recorded |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for arm in ARMS:
        walls = ", ".join(f"{r['wall']:.2f}" for r in results[arm])
        added = "—" if arm == "none" else f"{med[arm] - med['none']:+.2f}"
        cpu_added = "—" if arm == "none" else f"{cpu[arm] - cpu['none']:+.2f}"
        linger = statistics.median(r["lingering"] for r in results[arm])
        recorded = (
            "—" if arm != "trail" else ", ".join(str(r["calls_recorded"]) for r in results[arm])
        )
        rows.append(
            f"| {arm} | {med[arm]:.2f} | {walls} | {added} | {cpu[arm]:.2f} | {cpu_added} |"
            f" {linger:g} | {recorded} |"
        )
    publish(
        "Agent wall time (bench/agent_walltime.py)",
        [
            f"Measured {machine()}; real Claude Code 2.1.328 (`claude -p`, offline against the"
            f" rig's fake model), {args.calls} tool calls (Read, Bash, Write, Edit in turn, one"
            f" per model step), {args.rounds} rounds of the three arms in turn.",
            "",
            *rows,
            "",
            f"trail adds {added_trail:.2f} s, the bare `python -c pass` hook {added_bare:.2f} s:"
            f" **{ratio:.2f}x** (target <= 1.5x: {verdict}). CPU time (claude and every hook"
            f" process it reaped): trail adds {cpu_trail:.2f} s, the bare hook {cpu_bare:.2f} s:"
            f" {cpu_ratio:.2f}x.",
            "Reproduce: `.venv/bin/python bench/agent_walltime.py` (needs the pinned Claude Code:"
            " `make harnesses`).",
        ],
        not args.no_doc,
    )


if __name__ == "__main__":
    main()
