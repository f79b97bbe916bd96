"""Scoring throughput: L0 + L1 sessions per second, and growth with session length.

    .venv/bin/python bench/score_throughput.py [--sessions 1000] [--events 200]

Sessions are generated in memory as schema-v1 hook events (tool calls paired with results,
some failures and retry runs, reads and edits over a pool of files, a subagent lane, one
idle gap); only the grading (``scorers.grading.grade_events``: pairing, profile, L0 facts and
integrity, the five L1 rules, verdict) is timed. Growth: one session each of 100 ... 10,000
events, best of several repeats, with time/event normalised to the 100-event case (near 1.0
means linear).
"""

from __future__ import annotations

import argparse
import platform
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scorers.grader_config import load_grader_config
from scorers.grading import SessionData, grade_events

TOOLS = [
    ("Read", "read"),
    ("Edit", "edit"),
    ("Bash", "shell"),
    ("Grep", "search"),
    ("Write", "write"),
]


def _ts(seconds: float) -> str:
    whole = int(seconds)
    h, rem = divmod(whole, 3600)
    m, s = divmod(rem, 60)
    return f"2026-01-01T{h % 24:02d}:{m:02d}:{s:02d}.{int((seconds - whole) * 1e6):06d}Z"


def make_session(n_events: int, seed: int) -> SessionData:
    rng = random.Random(seed)
    sid = f"bench-{seed}"
    events: list[dict[str, Any]] = []
    t = 0.0

    def add(kind: str, **kw: Any) -> None:
        nonlocal t
        t += rng.uniform(0.2, 3.0)
        if len(events) == n_events // 2:
            t += 900.0  # one idle gap
        events.append(
            {
                "v": 1,
                "id": f"{sid}-{len(events)}",
                "harness": "claude-code",
                "source": "hook",
                "session_id": sid,
                "kind": kind,
                "ts": _ts(t),
                "received_at": _ts(t),
                **kw,
            }
        )

    add("session_start")
    add("prompt", text="do the thing")
    files = [f"/proj/src/mod{i}.py" for i in range(max(4, n_events // 20))]
    call = 0
    while len(events) < n_events - 2:
        name, canon = rng.choice(TOOLS)
        path = rng.choice(files)
        args: dict[str, Any] = {"command": "pytest -q"} if canon == "shell" else {"file_path": path}
        agent = "sub-1" if rng.random() < 0.1 else None
        cid = f"c{call}"
        call += 1
        common = {
            "tool_name": name,
            "tool": canon,
            "call_id": cid,
            "input": args,
            "path": None if canon == "shell" else path,
            "agent_id": agent,
        }
        add("tool_call", **common)
        if rng.random() < 0.97:  # a few calls lose their result
            failed = rng.random() < 0.15
            add(
                "tool_error" if failed else "tool_result",
                **common,
                ok=not failed,
                duration_ms=rng.uniform(5, 500),
                output={"ok": not failed},
            )
    add("agent_stop", ok=True)
    add("session_end")
    return SessionData(
        key=f"claude-code/{sid}",
        session_id=sid,
        harness="claude-code",
        state="closed",
        events=events[:n_events],
        outcome="pass",
    )


def grade(data: SessionData, config: Any) -> str:
    g = grade_events(data, config, levels=("L0", "L1"))
    assert g.l1 is not None
    return g.l1.verdict


def throughput(n_sessions: int, n_events: int) -> tuple[float, float]:
    config = load_grader_config(None)
    sessions = [make_session(n_events, seed) for seed in range(n_sessions)]
    start = time.perf_counter()
    for data in sessions:
        grade(data, config)
    elapsed = time.perf_counter() - start
    return elapsed, n_sessions / elapsed


def growth(sizes: list[int], repeats: int) -> list[tuple[int, float]]:
    config = load_grader_config(None)
    out = []
    for n in sizes:
        data = make_session(n, seed=n)
        best = float("inf")
        for _ in range(repeats):
            start = time.perf_counter()
            grade(data, config)
            best = min(best, time.perf_counter() - start)
        out.append((n, best))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sessions", type=int, default=1000)
    ap.add_argument("--events", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    print(f"python {platform.python_version()} on {platform.machine()} ({platform.system()})")
    elapsed, rate = throughput(args.sessions, args.events)
    print(
        f"L0+L1: {args.sessions} sessions x {args.events} events in {elapsed:.2f}s "
        f"= {rate:.0f} sessions/s ({1000 * elapsed / args.sessions:.2f} ms/session)"
    )
    rows = growth([100, 300, 1000, 3000, 10000], args.repeats)
    base = rows[0][1] / rows[0][0]
    print(f"{'events':>8} {'ms/session':>11} {'us/event':>9} {'ratio vs 100':>13}")
    for n, secs in rows:
        print(f"{n:>8} {1000 * secs:>11.2f} {1e6 * secs / n:>9.2f} {secs / n / base:>13.2f}")
    worst = max(secs / n / base for n, secs in rows)
    print(f"max time/event ratio: {worst:.2f} (near 1 = linear)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
