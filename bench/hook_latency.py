"""Hook wall time per call, as a ratio to a bare interpreter start in the same run.

For 1 KB, 20 KB and 1 MB payloads, runs ``trail hook claude-code`` (the installed console
script, exactly what Claude Code runs) and ``python -c pass`` (same interpreter, same
environment) round-robin, so machine noise hits both alike. Reports median and p95 of each and
the ratio of medians. Target (issue 2): median ratio <= 2.0 at 20 KB.

    python bench/hook_latency.py [--runs 60] [--no-doc]
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import random
import statistics
import string
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _doc import machine, write_section

TRAIL = str(Path(sys.executable).parent / "trail")
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


def timed(cmd: list[str], stdin: bytes, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, input=stdin, stdout=subprocess.DEVNULL, check=True, env=env)
    return (time.perf_counter() - start) * 1000


def p95(values: list[float]) -> float:
    return sorted(values)[max(0, round(0.95 * len(values)) - 1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--no-doc", action="store_true", help="Do not update docs/benchmarks.md")
    args = parser.parse_args()
    # A regular install compiles bytecode when it installs; an editable checkout (or an
    # environment with PYTHONDONTWRITEBYTECODE=1) would otherwise recompile on every call.
    root = Path(__file__).resolve().parent.parent
    for package in ("hooks", "trace_ingest"):
        compileall.compile_dir(str(root / package), quiet=1)
    home = tempfile.mkdtemp(prefix="trail-bench-")
    env = {**os.environ, "TRAIL_HOME": home}
    rows = []
    for label, size in SIZES.items():
        data = payload(size, with_secrets="secrets" in label)
        base: list[float] = []
        hook: list[float] = []
        for _ in range(3):  # warm the page cache and bytecode
            timed([sys.executable, "-c", "pass"], b"", env)
            timed([TRAIL, "hook", "claude-code"], data, env)
        for _ in range(args.runs):
            base.append(timed([sys.executable, "-c", "pass"], b"", env))
            hook.append(timed([TRAIL, "hook", "claude-code"], data, env))
        ratio = statistics.median(hook) / statistics.median(base)
        rows.append(
            (label, statistics.median(base), p95(base), statistics.median(hook), p95(hook), ratio)
        )
    errors = Path(home, "hook-errors.log")
    if errors.exists():
        raise SystemExit(f"the hook logged errors during the bench:\n{errors.read_text()}")
    table = [
        "| payload | `python -c pass` median / p95 (ms) | hook median / p95 (ms) | median ratio |",
        "|---|---|---|---|",
    ]
    for label, bm, bp, hm, hp, ratio in rows:
        table.append(f"| {label} | {bm:.1f} / {bp:.1f} | {hm:.1f} / {hp:.1f} | {ratio:.2f} |")
    at20 = next(r[5] for r in rows if r[0] == "20 KB")
    verdict = "met" if at20 <= 2.0 else "NOT met"
    body = "\n".join(
        [
            f"Measured {machine()}, {args.runs} runs per cell, round-robin with the baseline.",
            "",
            *table,
            "",
            f"Target: median ratio <= 2.0 at 20 KB — **{verdict}** ({at20:.2f}).",
            "The baseline is the same interpreter and environment starting and exiting; the",
            "hook adds reading stdin, parsing, normalizing, scrubbing and one append. The hook",
            "never imports `json` or `re`: JSON goes through `_json`, and the scrubber's regexes",
            "come compiled from a per-interpreter cache in the data dir (docs/scrubbing.md),",
            "filled by the warm-up calls here; an installation's very first call with a",
            "secret-looking",
            "payload pays ~8 ms more to import `re` and compile. Fields over",
            "`capture.max_field_chars` (64 Ki chars) are bounded to the limit plus 4 KiB before",
            "scrubbing and cut to the limit after it, which bounds the",
            "1 MB case. Reproduce: `.venv/bin/python bench/hook_latency.py`.",
        ]
    )
    print(body)
    if not args.no_doc:
        write_section("Hook latency (bench/hook_latency.py)", body)


if __name__ == "__main__":
    main()
