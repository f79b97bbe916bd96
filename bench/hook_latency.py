"""The hook as users install it: wall time per call, as a ratio to a bare interpreter start.

Builds a wheel from this checkout and ``pip install``-s it into a fresh venv (bench/_installed.py;
no dev checkout path), runs ``trail install --harness claude-code`` in a scratch project and
times the exact command it registered against ``python -c pass`` of the same venv, round-robin,
for 1 KB, 20 KB and 1 MB payloads (and 20 KB with secrets). Reports median and p95 of each and
the ratio of medians; the dev checkout's ``trail hook claude-code`` is one more row. Target
(issue 14): median ratio <= 1.5 at 20 KB.

    python bench/hook_latency.py [--runs 60] [--no-doc]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import statistics
import string
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _doc import load, machine, publish
from _installed import setup

DEV_TRAIL = str(Path(sys.executable).parent / "trail")
SIZES = {"1 KB": 1024, "20 KB": 20 * 1024, "1 MB": 1024 * 1024, "20 KB with secrets": 20 * 1024}
CODE_LINE = "    result = compute_total(items, discount=0.1)  # keep the cart in sync\n"


def secrets_block() -> str:
    """Secret-shaped values generated now (never stored): they make every rule family run."""
    rng = random.Random(5)
    alnum = string.ascii_letters + string.digits
    token = "gh" + "p_" + "".join(rng.choice(alnum) for _ in range(36))
    aws = "AK" + "IA" + "".join(rng.choice(string.ascii_uppercase + "234567") for _ in range(16))
    return (
        f"export GITHUB_TOKEN={token}\nAWS_ACCESS_KEY_ID={aws}\n"
        f"DATABASE_URL=postgres://app:{token[4:20]}@db:5432/app\n"
        f"Authorization: Bearer {token[::-1]}\n"
    )


def payload(size: int, with_secrets: bool = False) -> bytes:
    body = (CODE_LINE * (size // len(CODE_LINE) + 1))[:size]
    if with_secrets:
        block = secrets_block()
        body = block + body[len(block) :]
    data = {
        "session_id": "bench-0000-4000-8000-000000000000",
        "transcript_path": "/home/u/.claude/projects/-p/bench.jsonl",
        "cwd": "/home/u/project",
        "permission_mode": "default",
        "hook_event_name": "PostToolUse",
        "tool_name": "Read",
        "tool_input": {"file_path": "/home/u/project/cart.py"},
        "tool_response": {
            "type": "text",
            "file": {"filePath": "/home/u/project/cart.py", "content": body},
        },
        "tool_use_id": "toolu_01BENCH",
    }
    return json.dumps(data).encode()


CPU: dict[tuple[str, ...], list[float]] = {}  # user + system ms of each command's runs


def timed(cmd: list[str], stdin: bytes, env: dict[str, str]) -> float:
    """Wall ms of one run (and its CPU ms into CPU: steady however loaded the machine is)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, env=env)
    assert proc.stdin is not None
    proc.stdin.write(stdin)
    proc.stdin.close()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = (time.perf_counter() - start) * 1000
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{cmd} exited {os.waitstatus_to_exitcode(status)}")
    CPU.setdefault(tuple(cmd), []).append((usage.ru_utime + usage.ru_stime) * 1000)
    return wall


def p95(values: list[float]) -> float:
    return sorted(values)[max(0, round(0.95 * len(values)) - 1)]


def cell(
    base_cmd: list[str], hook_cmd: list[str], data: bytes, env: dict[str, str], runs: int
) -> tuple[float, float, float, float, float, float]:
    base: list[float] = []
    hook: list[float] = []
    CPU.clear()
    for _ in range(3):  # warm the page cache (and the scrubber's regex cache)
        timed(base_cmd, b"", env)
        timed(hook_cmd, data, env)
    for _ in range(runs):
        base.append(timed(base_cmd, b"", env))
        hook.append(timed(hook_cmd, data, env))
    bm, hm = statistics.median(base), statistics.median(hook)
    cpu = statistics.median(CPU[tuple(hook_cmd)]) / statistics.median(CPU[tuple(base_cmd)])
    return bm, p95(base), hm, p95(hook), hm / bm, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--no-doc", action="store_true", help="Do not update docs/benchmarks.md")
    args = parser.parse_args()
    inst, command, work = setup("trail-bench-hook-")
    load_before = load()
    home = work / "trail-home"
    home.mkdir()
    env = inst.env(work / "home", home)
    base_cmd = [inst.python, "-c", "pass"]
    hook_cmd = shlex.split(command)
    rows = []
    for label, size in SIZES.items():
        data = payload(size, with_secrets="secrets" in label)
        rows.append((label, *cell(base_cmd, hook_cmd, data, env, args.runs)))
    dev_env = {**env, "TRAIL_HOME": str(work / "dev-home")}
    dev = cell(
        [sys.executable, "-c", "pass"],
        [DEV_TRAIL, "hook", "claude-code"],
        payload(SIZES["20 KB"]),
        dev_env,
        args.runs,
    )
    for folder in (home, work / "dev-home"):
        errors = folder / "hook-errors.log"
        if errors.exists():
            raise SystemExit(f"the hook logged errors during the bench:\n{errors.read_text()}")
    table = [
        "| payload | `python -c pass` median / p95 (ms) | hook median / p95 (ms) | median ratio"
        " | CPU time ratio |",
        "|---|---|---|---|---|",
    ]
    for label, bm, bp, hm, hp, ratio, cpu in rows:
        table.append(
            f"| {label} | {bm:.1f} / {bp:.1f} | {hm:.1f} / {hp:.1f} | {ratio:.2f} | {cpu:.2f} |"
        )
    bm, bp, hm, hp, ratio, cpu = dev
    table.append(
        f"| 20 KB, dev checkout (`.venv/bin/trail hook claude-code`) | {bm:.1f} / {bp:.1f} |"
        f" {hm:.1f} / {hp:.1f} | {ratio:.2f} | {cpu:.2f} |"
    )
    at20 = next(r[5] for r in rows if r[0] == "20 KB")
    cpu20 = next(r[6] for r in rows if r[0] == "20 KB")
    verdict = "met" if at20 <= 1.5 else "NOT met"
    shown = command.replace(str(work), "$VENV_PARENT")
    publish(
        "Hook latency (bench/hook_latency.py)",
        [
            f"Measured {machine()}, {args.runs} runs per cell, round-robin with the baseline;"
            f" load average {load_before} at the start, {load()} at the end (2 cores: CPU"
            " time is the steadier ratio on a loaded machine).",
            "",
            "trail as users install it: a wheel of this checkout `pip install`-ed into a fresh"
            " venv (its own pip), `trail install --harness claude-code` run in a scratch"
            f" project; the command timed is the one it registered: `{shown}`. The baseline is"
            " `python -c pass` of the same venv, same environment.",
            "",
            *table,
            "",
            f"Target (issue 14): median ratio <= 1.5 at 20 KB — **{verdict}** ({at20:.2f}; CPU"
            f" time {cpu20:.2f}: user + system time of the process, which the machine's other"
            " load does not inflate).",
            "The hook adds reading stdin, parsing, normalizing, scrubbing and one append, and"
            " ends with `posix._exit` (no interpreter teardown); it never imports `os`"
            " (trace_ingest/_os.py), `json` or `re` (JSON through `_json`; the scrubber's"
            " regexes come compiled from a per-interpreter cache in the data dir, filled by the"
            " warm-up calls"
            " here: an installation's very first call with a secret-looking payload pays ~8 ms"
            " more). Fields over `capture.max_field_chars` (64 Ki chars) are bounded before"
            " scrubbing, which bounds the 1 MB case.",
            "Reproduce: `.venv/bin/python bench/hook_latency.py` (builds the wheel and the venv"
            " in a temporary folder; needs the package index for trail's dependencies).",
        ],
        not args.no_doc,
    )


if __name__ == "__main__":
    main()
