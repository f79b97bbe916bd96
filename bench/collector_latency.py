"""One event recorded by the collector (an http POST) against one process hook call.

trail installed as users install it (a wheel in a fresh venv, bench/_installed.py). Per event,
interleaved, the same 2 KB and 20 KB PostToolUse payloads (bench/hook_latency.py's):

- ``process``: the command ``trail install`` registers, run as Claude Code runs a command hook
  (``sh -c``, the payload on stdin), until it exits;
- ``http``: a POST of the payload to that venv's ``trail collect`` on 127.0.0.1 (a new
  connection, as the collector closes every one), until the answer; the collector records the
  event after answering, and its CPU time is counted per event (``/proc/<pid>/stat``).

Reports the median wall time per event (what Claude Code waits for a foreground call), the CPU
time per event (what competes with the agent for the cores) and the ratios http / process.
Both arms record into their own data dir; every event is checked to be there at the end.

    python bench/collector_latency.py [--events 200] [--no-doc]
"""

from __future__ import annotations

import argparse
import http.client
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from _doc import machine, publish  # noqa: E402
from _installed import setup  # noqa: E402
from hook_latency import payload  # noqa: E402

SIZES = {"2 KB": 2_000, "20 KB": 20_000}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def hook_call(command: str, body: bytes, env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one process hook call."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        ["/bin/sh", "-c", command], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, env=env
    )
    assert proc.stdin is not None
    proc.stdin.write(body)
    proc.stdin.close()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"the hook exited {os.waitstatus_to_exitcode(status)}")
    return wall, usage.ru_utime + usage.ru_stime


def post(port: int, body: bytes) -> float:
    start = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("POST", "/trail/hook/claude-code", body, {"Content-Type": "application/json"})
    answer = conn.getresponse()
    answer.read()
    conn.close()
    if answer.status != 204:
        raise SystemExit(f"the collector answered {answer.status}")
    return time.perf_counter() - start


def recorded(home: Path) -> int:
    return sum(
        len(trace.read_text().splitlines())
        for trace in home.glob("sessions/claude-code/*/trace.jsonl")
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=200)
    parser.add_argument("--no-doc", action="store_true")
    args = parser.parse_args()
    inst, command, work = setup("trail-bench-collector-")
    rows = [
        "| payload | process hook: wall median / CPU per event (ms) | collector: POST wall"
        " median / CPU per event (ms) | wall ratio http / process | CPU ratio http / process |",
        "|---|---|---|---|---|",
    ]
    load = os.getloadavg()[0]
    for label, size in SIZES.items():
        body = payload(size)
        hook_home, coll_home = work / f"hook-{size}", work / f"collector-{size}"
        hook_env = inst.env(work / "home", hook_home)
        port = free_port()
        collector = subprocess.Popen(
            [inst.trail, "collect", "--port", str(port)],
            env=inst.env(work / "home", coll_home),
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        assert collector.stdout is not None
        if not collector.stdout.readline():
            raise SystemExit("trail collect did not start")
        for _ in range(5):  # warm both: first calls compile and cache the scrubber's rules
            hook_call(command, body, hook_env)
            post(port, body)
        time.sleep(0.5)
        hook_wall, hook_cpu, post_wall = [], [], []
        before = cpu_seconds(collector.pid)
        for _ in range(args.events):
            wall, cpu = hook_call(command, body, hook_env)
            hook_wall.append(wall)
            hook_cpu.append(cpu)
            post_wall.append(post(port, body))
        deadline = time.monotonic() + 30
        while recorded(coll_home) < args.events + 5 and time.monotonic() < deadline:
            time.sleep(0.05)
        collector_cpu = (cpu_seconds(collector.pid) - before) / args.events
        collector.send_signal(signal.SIGTERM)
        collector.wait(60)
        for home in (hook_home, coll_home):
            if recorded(home) != args.events + 5:
                raise SystemExit(f"{home}: {recorded(home)} events, not {args.events + 5}")
        hw, hc = statistics.median(hook_wall) * 1000, statistics.median(hook_cpu) * 1000
        pw, pc = statistics.median(post_wall) * 1000, collector_cpu * 1000
        rows.append(
            f"| {label} | {hw:.1f} / {hc:.1f} | {pw:.1f} / {pc:.1f} | **{pw / hw:.2f}** |"
            f" {pc / hc:.2f} |"
        )
    publish(
        "Collector latency (bench/collector_latency.py)",
        [
            f"Measured {machine()}; load average {load:.1f} at the start. trail from a wheel in"
            f" its own venv; {args.events} events per arm, interleaved, after 5 warm-up calls;"
            " PostToolUse payloads of bench/hook_latency.py. Process hook: the registered"
            " command under `sh -c` until it exits (its CPU: `wait4`). Collector: a POST on a"
            " new connection until the 204 (the client's own CPU is not counted: in the agent"
            " it is Claude Code's); its CPU per event from /proc, recording included. Every"
            " event was found recorded in both arms' data dirs.",
            "",
            *rows,
            "",
            "Claude Code waits for each http hook (they cannot be `async`, docs/collector.md),"
            " while trail's process hooks are async: the wall column is what a foreground call"
            " costs, the CPU column what competes with the agent either way.",
            "Reproduce: `.venv/bin/python bench/collector_latency.py`.",
        ],
        not args.no_doc,
    )


if __name__ == "__main__":
    main()
