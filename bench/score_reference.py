"""Grading one large traces.json: trail vs seed 001's reference trace-grader engine.

Writes one canonical ``traces.json`` (default 1,000 runs x 200 steps, about 50 MB: reads,
edits, writes, greps and shell steps over a pool of files, 12% failed steps with retry runs,
a few forbidden tools, 4 runs per task) and grades it, in fresh processes, alternately with

- the reference engine: ``python trace-grader.py --traces FILE --config CFG [--json]``;
- trail: ``trail eval score --traces FILE --config CFG [--json]``;

same interpreter, same config file (the reference's own ``trace-grader.config.yaml``
shape), output to /dev/null. Wall time and peak RSS (``wait4``) of each process; medians over
``--runs`` alternated rounds. Targets (issue 14): trail >= 1.0x the reference's speed and
<= 1.0x its memory, in both output modes.

The reference engine is not part of trail and is never committed: the script looks for it
at ``--reference PATH``, else ``$TRAIL_REFERENCE_GRADER``, else
``~/.cache/trail/reference/trace-grader.py``, and stops with what to do when it is missing
(it is ``harness/scripts/trace-grader.py`` of the Rheinmir/setup repository, commit
24bdb6b981d4, the seed's engine; docs/benchmarks.md).

    python bench/score_reference.py [--runs 5] [--n-runs 1000] [--steps 200] [--no-doc]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _doc import machine, publish

TRAIL = str(Path(sys.executable).parent / "trail")
DEFAULT_REFERENCE = Path.home() / ".cache" / "trail" / "reference" / "trace-grader.py"
CONFIG = """\
verified: false
forbidden_tools: [force_push, rm_rf]
retry_threshold: 2
step_budget: 150
order_constraints:
  must_precede:
    - [Read, Edit]
    - [Grep, Write]
grounding:
  enabled: true
judge:
  enabled: false
"""
OBSERVATIONS = (
    "loaded {n} lines from the file; nothing unusual in the header or the imports, the"
    " module defines the cart and its totals",
    "applied 1 edit: replaced the loop with a comprehension and kept the guard clause that"
    " rejects an empty cart",
    "3 passed, 1 skipped in 0.{n}s (tests/test_cart.py tests/test_orders.py); coverage"
    " unchanged at 91% over 14 files",
    "found {n} matches in 4 files: src/cart.py:12 src/orders.py:40 src/tax.py:7 docs/x.md:3"
    " src/cli.py:88 src/api.py:19",
    "Traceback (most recent call last): File src/cart.py line {n} KeyError: 'discount' while"
    " computing the total of an order",
)


def write_traces(path: Path, n_runs: int, n_steps: int, seed: int = 14) -> None:
    """A canonical traces.json, streamed to disk (the generator never holds it whole)."""
    rng = random.Random(seed)
    files = [f"/proj/src/pkg{i % 7}/mod{i}.py" for i in range(60)]
    with path.open("w", encoding="utf-8") as fh:
        fh.write('{"tasks": [')
        per_task = 4
        for t in range(0, n_runs, per_task):
            fh.write(", " if t else "")
            fh.write(f'{{"task": "task-{t // per_task:04d}", "runs": [')
            for r in range(t, min(n_runs, t + per_task)):
                steps = []
                i = 0
                while i < n_steps:
                    kind = rng.random()
                    f = rng.choice(files)
                    if kind < 0.3:
                        tool, args = "Read", {"file_path": f}
                    elif kind < 0.5:
                        tool, args = "Edit", {"file_path": f, "old_string": "x", "new_string": "y"}
                    elif kind < 0.6:
                        tool, args = "Write", {"file_path": f}
                    elif kind < 0.75:
                        tool, args = "Grep", {"pattern": "def total", "path": f.rsplit("/", 1)[0]}
                    elif kind < 0.995:
                        tool, args = "Bash", {"command": f"pytest -q tests/test_{i % 40}.py"}
                    else:
                        tool, args = rng.choice(("force_push", "rm_rf")), {"ref": "main"}
                    repeat = rng.randint(2, 4) if rng.random() < 0.04 else 1
                    for _ in range(repeat):
                        if i >= n_steps:
                            break
                        i += 1
                        ok = repeat == 1 and rng.random() > 0.08
                        steps.append(
                            {
                                "step": i,
                                "tool": tool,
                                "args": args,
                                "observation": rng.choice(OBSERVATIONS).format(n=i),
                                "ok": ok,
                            }
                        )
                run = {"run_id": f"run-{r:05d}", "ok": rng.random() > 0.1, "steps": steps}
                fh.write(", " if r > t else "")
                fh.write(json.dumps(run))
            fh.write("]}")
        fh.write("]}\n")


def measure(cmd: list[str]) -> tuple[float, float, int]:
    """Wall seconds, peak RSS (MiB) and exit code of ``cmd`` run to completion."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.stderr:
        proc.stderr.close()
    if proc.returncode not in (0, 3):  # 3: corrupt-success or flaky tasks, expected here
        raise SystemExit(f"{cmd[:2]} exited {proc.returncode}:\n{err[-2000:]}")
    return wall, usage.ru_maxrss / 1024, proc.returncode


def reference_path(given: str | None) -> Path:
    path = Path(given or os.environ.get("TRAIL_REFERENCE_GRADER") or DEFAULT_REFERENCE)
    if not path.is_file():
        raise SystemExit(
            f"the reference engine is missing at {path}. Put seed 001's engine there "
            "(harness/scripts/trace-grader.py of the Rheinmir/setup repository, commit "
            "24bdb6b981d4), or pass --reference PATH / set TRAIL_REFERENCE_GRADER."
        )
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="alternated rounds per mode")
    parser.add_argument("--n-runs", type=int, default=1000, help="runs in the traces file")
    parser.add_argument("--steps", type=int, default=200, help="steps per run")
    parser.add_argument("--reference", default=None, help="path of trace-grader.py")
    parser.add_argument("--traces", default=None, help="grade this file instead of generating")
    parser.add_argument("--no-doc", action="store_true")
    args = parser.parse_args()
    ref = reference_path(args.reference)
    work = Path(tempfile.mkdtemp(prefix="trail-score-ref-"))
    traces = Path(args.traces) if args.traces else work / "traces.json"
    if not args.traces:
        write_traces(traces, args.n_runs, args.steps)
    config = work / "trace-grader.config.yaml"
    config.write_text(CONFIG)
    size_mb = traces.stat().st_size / 1e6
    env_home = work / "trail-home"
    env_home.mkdir()
    os.environ["TRAIL_HOME"] = str(env_home)
    rows = []
    for mode, flag in (("text", []), ("--json", ["--json"])):
        reference = [sys.executable, str(ref), "--traces", str(traces), "--config", str(config)]
        ours = [TRAIL, "eval", "score", "--traces", str(traces), "--config", str(config)]
        measure(reference + flag)  # warm the page cache and bytecode for both
        measure(ours + flag)
        got: dict[str, list[tuple[float, float]]] = {"reference": [], "trail": []}
        for _ in range(args.runs):
            for name, cmd in (("reference", reference + flag), ("trail", ours + flag)):
                wall, rss, _ = measure(cmd)
                got[name].append((wall, rss))
        ref_t = statistics.median(w for w, _ in got["reference"])
        ref_m = statistics.median(m for _, m in got["reference"])
        our_t = statistics.median(w for w, _ in got["trail"])
        our_m = statistics.median(m for _, m in got["trail"])
        rows.append((mode, ref_t, ref_m, our_t, our_m))
    table = [
        "| output | reference s / MiB | trail s / MiB | speed (ref time / trail time) | memory"
        " (trail / ref) | verdict |",
        "|---|---|---|---|---|---|",
    ]
    for mode, rt, rm, ot, om in rows:
        speed, mem = rt / ot, om / rm
        ok = "met" if speed >= 1.0 and mem <= 1.0 else "NOT met"
        table.append(
            f"| {mode} | {rt:.2f} / {rm:.0f} | {ot:.2f} / {om:.0f} | **{speed:.2f}x** |"
            f" **{mem:.2f}x** | {ok} |"
        )
    publish(
        "Scoring against the reference engine (bench/score_reference.py)",
        [
            f"Measured {machine()}; one traces.json of {size_mb:.1f} MB ({args.n_runs:,} runs x"
            f" {args.steps} steps, 4 runs per task); medians of {args.runs} alternated runs per"
            " output mode, each a fresh process of the same interpreter (wall time, peak RSS).",
            "",
            *table,
            "",
            "Target (issue 14): speed >= 1.0x and memory <= 1.0x of the reference engine (seed"
            " 001's `trace-grader.py`, run from a local copy that is not part of trail). Both"
            " programs read the same file and config; trail also writes every atom and its"
            " coverage into the JSON report.",
            "Reproduce: `.venv/bin/python bench/score_reference.py` (`--reference PATH` names"
            " the engine).",
        ],
        not args.no_doc,
    )


if __name__ == "__main__":
    main()
