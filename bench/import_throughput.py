"""Import throughput per importer: ``trail import <harness>`` vs a bare ``orjson.loads`` pass.

For every importer in ``trace_ingest.importers.table.IMPORTERS`` that has a workload here,
builds about ``--mb`` MB of its real recorded sessions (shared/samples, copied under fresh
session ids so that no copy de-duplicates against another) and, in fresh processes of the
same interpreter, alternately runs

- ``trail import <harness> FOLDER`` into an empty data dir;
- a bare pass: read every file of the folder and ``orjson.loads`` each line (a JSON document
  whole), nothing else;

``--runs`` times each. Reports MB/s (input bytes / wall time) and peak RSS of each, medians,
and the ratio of the two speeds. Target (issue 14): ratio >= 0.3 for every importer.

    python bench/import_throughput.py [--mb 48] [--runs 3] [--no-doc]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
from _doc import machine, publish  # noqa: E402

from trace_ingest.importers.table import IMPORTERS  # noqa: E402

TRAIL = str(Path(sys.executable).parent / "trail")
SAMPLES = Path(os.environ.get("TRAIL_SHARED", ROOT / ".." / "shared")) / "samples"
UUID = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
BARE = """
import orjson, os, sys
n = 0
for root, _, files in os.walk(sys.argv[1]):
    for name in files:
        with open(os.path.join(root, name), "rb") as fh:
            data = fh.read()
        if name.endswith(".jsonl"):
            for line in data.split(b"\\n"):
                if line.strip():
                    try:
                        orjson.loads(line)
                    except orjson.JSONDecodeError:
                        pass
                    n += 1
        else:
            orjson.loads(data)
            n += 1
print(n)
"""


def _renamed(data: bytes, copy: int) -> bytes:
    """Every UUID replaced by one derived from it and the copy number (same everywhere)."""
    return UUID.sub(
        lambda m: str(uuid.uuid5(uuid.NAMESPACE_URL, f"{copy}:{m[0]!r}")).encode(), data
    )


def copies_of(sources: list[Path], base: Path, out: Path, mb: float) -> int:
    """Copy ``sources`` (files under ``base``) again and again under fresh UUIDs until the
    copies hold ``mb`` MB; returns the bytes written."""
    total, copy = 0, 0
    while total < mb * 1e6:
        for src in sources:
            rel = _renamed(str(src.relative_to(base)).encode(), copy).decode()
            target = out / f"copy{copy:04d}" / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            data = _renamed(src.read_bytes(), copy)
            target.write_bytes(data)
            total += len(data)
        copy += 1
    return total


def claude_code(out: Path, mb: float) -> int:
    """Real Claude Code transcripts (main sessions with their subagents' files)."""
    base = SAMPLES / "claude-code"
    sources = sorted(
        p
        for folder in ("real-session-with-subagents", "real-session-claude-p")
        for p in (base / folder).rglob("*.jsonl")
    )
    sources.append(base / "real-session-small-94604a7b.jsonl")
    return copies_of(sources, base, out, mb)


def copilot_cli(out: Path, mb: float) -> int:
    """Real Copilot CLI 1.0.102 logs (session-state/<id>/events.jsonl, subagent lines inside),
    as the rig captured them (tests/trace_ingest/data)."""
    base = ROOT / "tests" / "trace_ingest" / "data"
    return copies_of(sorted(base.glob("copilot-cli-1.0.102-*/*/events.jsonl")), base, out, mb)


_VIBE_ID = re.compile(rb'("(?:session_id|parent_session_id)"\s*:\s*")([^"]+)"')


def vibe(out: Path, mb: float) -> int:
    """Real Vibe 2.x session folders (meta.json + messages.jsonl); each copy gets its own
    session ids (Vibe's are not all UUIDs) and its own folder name."""
    base = SAMPLES / "vibe"
    folders = sorted(p for p in base.iterdir() if (p / "messages.jsonl").is_file())
    total, copy = 0, 0
    while total < mb * 1e6:
        for n, src in enumerate(folders):
            target = out / f"copy{copy:04d}" / f"session_20260101_000000_{copy:04x}{n:04x}"
            target.mkdir(parents=True)
            for f in src.iterdir():
                tag = f"{copy}-".encode()
                data = _VIBE_ID.sub(lambda m, t=tag: m[1] + t + m[2] + b'"', f.read_bytes())
                data = _renamed(data, copy)
                (target / f.name).write_bytes(data)
                total += len(data)
        copy += 1
    return total


WORKLOADS: dict[str, Callable[[Path, float], int]] = {
    "claude-code": claude_code,
    "copilot-cli": copilot_cli,
    "vibe": vibe,
}


def events_written(home: Path) -> int:
    return sum(t.read_bytes().count(b"\n") for t in home.glob("sessions/*/*/trace.jsonl"))


def measure(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    err = proc.stderr.read().decode() if proc.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd[:3])} failed:\n{err[-2000:]}")
    return wall, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=float, default=48.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-doc", action="store_true")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="trail-bench-import-"))
    rows = []
    counts: list[str] = []
    missing = sorted(set(IMPORTERS) - set(WORKLOADS))
    for harness in sorted(set(IMPORTERS) & set(WORKLOADS)):
        folder = work / harness
        size = WORKLOADS[harness](folder, args.mb)
        ours: list[tuple[float, float]] = []
        bare: list[tuple[float, float]] = []
        for _ in range(args.runs):
            bare.append(measure([sys.executable, "-c", BARE, str(folder)], dict(os.environ)))
            home = work / f"home-{harness}"
            shutil.rmtree(home, ignore_errors=True)
            env = {**os.environ, "TRAIL_HOME": str(home)}
            ours.append(measure([TRAIL, "import", harness, str(folder)], env))
            written = events_written(home)
            if written == 0:
                raise SystemExit(f"trail import {harness} wrote nothing from {folder}")
        ot, om = statistics.median(w for w, _ in ours), statistics.median(m for _, m in ours)
        bt, bm = statistics.median(w for w, _ in bare), statistics.median(m for _, m in bare)
        rows.append((harness, size / 1e6, size / 1e6 / ot, om, size / 1e6 / bt, bm, bt / ot))
        counts.append(f"{harness} {written:,}")
    table = [
        "| importer | input (MB) | `trail import` MB/s / peak MiB | bare `orjson.loads` MB/s /"
        " peak MiB | ratio | verdict |",
        "|---|---|---|---|---|---|",
    ]
    for harness, mb, os_, om, bs, bm, ratio in rows:
        ok = "met" if ratio >= 0.3 else "NOT met"
        table.append(
            f"| {harness} | {mb:.1f} | {os_:.1f} / {om:.0f} | {bs:.1f} / {bm:.0f} |"
            f" **{ratio:.2f}** | {ok} |"
        )
    note = f"Importers without a workload here yet: {', '.join(missing)}." if missing else ""
    publish(
        "Import throughput (bench/import_throughput.py)",
        [
            f"Measured {machine()}; medians of {args.runs} alternated runs, fresh processes,"
            " empty data dir per import. Input: the real recorded sessions of shared/samples,"
            " copied under fresh session ids (every UUID renamed per copy) to the size shown.",
            "",
            *table,
            "",
            "Target (issue 14): ratio >= 0.3 (import speed / bare parse speed). " + note,
            f"Events written per import: {', '.join(counts)}.",
            "Reproduce: `.venv/bin/python bench/import_throughput.py`.",
        ],
        not args.no_doc,
    )


if __name__ == "__main__":
    main()
