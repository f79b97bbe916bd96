"""Import throughput per importer: ``trail import <harness>`` / ``trail chronicle import`` vs a
bare ``orjson.loads`` pass over the same input.

For every importer in ``trace_ingest.importers.table.IMPORTERS`` and for VS Code's
``trail chronicle import``, builds about ``--mb`` MB of its real recorded sessions (copied again
and again under fresh session ids, so that no copy de-duplicates against another; see each
workload's docstring) and, in fresh processes of the same interpreter, alternately runs

- the import of the folder into an empty data dir (but for trail's compiled-regex cache and
  the fingerprint key that authenticates it, which any earlier trail command leaves there: an
  untimed import makes them first; without the key the cache is refused and every regex
  compiled again); each run has
  its own, made before the first run and removed after the last, and the file system is
  synced before each timed run (``settle``), so no run pays for an earlier one's files;
- the bare pass: read every file the importer reads and parse it the cheapest way its format
  allows, nothing else: ``orjson.loads`` of each line of a ``.jsonl`` file, of a whole JSON
  document otherwise (a Vibe 3.x store's ``CURRENT``, manifest, chunks and ``meta.json``; a
  VS Code ``chatSessions/*.json`` or export), and every row of every table of a SQLite file
  (VS Code's ``session-store.db``). It opens the same files the importer opens, so a format of
  many small files (a Vibe store) costs the bare pass its opens too.

``--runs`` times each, the two arms interleaved (bare first in even runs, import first in odd
ones). Reports, as medians, MB/s (input bytes / wall time), CPU seconds (user + system, the
figure the machine's other load disturbs least) and peak RSS of each, the ratio of the two
speeds by wall time and by CPU time, and the load average at the start and the end.
Target (issue 14): ratio >= 0.3 for every importer.

    python bench/import_throughput.py [--mb 48] [--runs 5] [--only NAME ...] [--no-doc]
        [--scrub-share] [--write-floor]

``--scrub-share`` also times each import with an identity scrubber (a third arm, same data
dirs scheme) and says how much of the import's CPU time the scrubber takes. ``--write-floor``
times a script that only writes the import's trace files again, one folder and file per
session as the import does: with the bare pass, the least any import of that input costs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
from _doc import machine, publish  # noqa: E402

from trace_ingest.importers.table import IMPORTERS  # noqa: E402

TRAIL = str(Path(sys.executable).parent / "trail")
SAMPLES = Path(os.environ.get("TRAIL_SHARED", ROOT / ".." / "shared")) / "samples"
DATA = ROOT / "tests" / "trace_ingest" / "data"
UUID = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
# The bare pass: what the importer must at least do with the same files (module docstring).
BARE = """
import orjson, os, sqlite3, sys
n = 0
for root, _, files in os.walk(sys.argv[1]):
    for name in files:
        path = os.path.join(root, name)
        if name.endswith(".db"):
            db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'"):
                n += len(db.execute(f'SELECT * FROM "{table}"').fetchall())
            db.close()
            continue
        with open(path, "rb") as fh:
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


# --scrub-share: the same import with an identity scrubber (every event comes out as it went
# in), to tell the scrubber's share of the import's time from the rest of its work.
NO_SCRUB = """
import sys
from trace_ingest import scrub, scrub_bulk
# both classes: the import's scrubber is a BulkScrubber (load_scrubber(bulk=True)), whose
# scrub_event overrides Scrubber's
for cls in (scrub.Scrubber, scrub_bulk.BulkScrubber):
    cls.scrub_event = lambda self, body, text: (None, {})
    cls.scrub_text = lambda self, text: (text, {})
from trace_ingest.entry import main
sys.argv = ["trail", *sys.argv[1:]]
sys.exit(main())
"""


# --write-floor: what writing the import's output costs alone. Reads the trace files of the
# data dir argv[1] into memory, then, as the import's writer does for a new session, makes
# each session's folder (0700) and appends its bytes to a new trace.jsonl (0600) in one write.
FLOOR = """
import os, sys
src, dst = sys.argv[1], sys.argv[2]
files = []
for harness in sorted(os.listdir(os.path.join(src, "sessions"))):
    for key in sorted(os.listdir(os.path.join(src, "sessions", harness))):
        with open(os.path.join(src, "sessions", harness, key, "trace.jsonl"), "rb") as fh:
            files.append((harness, key, fh.read()))
os.makedirs(os.path.join(dst, "sessions"), 0o700)
made = set()
for harness, key, data in files:
    if harness not in made:
        os.mkdir(os.path.join(dst, "sessions", harness), 0o700)
        made.add(harness)
    folder = os.path.join(dst, "sessions", harness, key)
    os.mkdir(folder, 0o700)
    fd = os.open(os.path.join(folder, "trace.jsonl"), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.write(fd, data)
    os.close(fd)
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
    return copies_of(sorted(DATA.glob("copilot-cli-1.0.102-*/*/events.jsonl")), DATA, out, mb)


_CHILD = re.compile(rb"child-[0-9a-f]{24}")


def vibe(out: Path, mb: float) -> int:
    """Real Vibe 3.0.1 unified session stores (CURRENT, generations/<n>/manifest.json, chunks,
    meta.json; a subagent's child-<hex> store beside its parent), as the rig captured them
    (tests/trace_ingest/data/vibe-3.0.1). Each copy gets fresh session and child ids; its chunks
    are renamed by the sha256 of their new bodies (the importer checks it) and its manifests
    list the new names."""
    base = DATA / "vibe-3.0.1"
    stores = sorted(p for p in base.iterdir() if (p / "CURRENT").is_file())
    total, copy = 0, 0
    while total < mb * 1e6:

        def fresh(data: bytes, copy: int = copy) -> bytes:
            data = _renamed(data, copy)
            return _CHILD.sub(
                lambda m: b"child-" + hashlib.sha256(b"%d" % copy + m[0]).hexdigest()[:24].encode(),
                data,
            )

        for store in stores:
            target = out / f"copy{copy:04d}" / fresh(store.name.encode()).decode()
            shas: dict[bytes, bytes] = {}
            for chunk in sorted((store / "chunks").glob("*.json")):
                data = fresh(chunk.read_bytes())
                sha = hashlib.sha256(data.rstrip(b"\n")).hexdigest()
                shas[chunk.stem.encode()] = sha.encode()
                (target / "chunks").mkdir(parents=True, exist_ok=True)
                (target / "chunks" / f"{sha}.json").write_bytes(data)
                total += len(data)
            for src in sorted(store.rglob("*")):
                if src.is_dir() or src.parent.name == "chunks":
                    continue
                data = fresh(src.read_bytes())
                for old, new in shas.items():
                    data = data.replace(old, new)
                dest = target / src.relative_to(store)
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_bytes(data)
                total += len(data)
        copy += 1
    return total


_VIBE_ID = re.compile(rb'("(?:session_id|parent_session_id)"\s*:\s*")([^"]+)"')


def vibe_2x(out: Path, mb: float) -> int:
    """Real Vibe 2.x session folders (meta.json + messages.jsonl); each copy gets its own
    session ids (Vibe's are not all UUIDs) and its own folder name."""
    base = SAMPLES / "vibe"
    folders = sorted(p for p in base.iterdir() if (p / "messages.jsonl").is_file())
    total, copy = 0, 0
    while total < mb * 1e6:
        for n, src in enumerate(folders):
            target = out / f"copy{copy:04d}" / f"session_20260101_000000_{copy:04x}{n:04x}"
            target.mkdir(parents=True)
            tag = f"{copy}-".encode()

            def tagged(m: re.Match[bytes], t: bytes = tag) -> bytes:
                return m[1] + t + m[2] + b'"'

            for f in src.iterdir():
                data = _VIBE_ID.sub(tagged, f.read_bytes())
                data = _renamed(data, copy)
                (target / f.name).write_bytes(data)
                total += len(data)
        copy += 1
    return total


_VSCODE_IDS = re.compile(rb'"(request_|response_|call_|e)([0-9A-Za-z_]*")')


def vscode(out: Path, mb: float) -> int:
    """VS Code chat records in a data folder's layout, every format ``trail chronicle import``
    reads: the chatSessions/*.json and mutation log samples (shared/samples/vscode) and, where
    no real file exists (SOURCES.md "vscode" gaps), the shapes
    tests/trace_ingest/vscode_fixtures.py builds from VS Code's source: a v3 chat session
    with tool calls as a .jsonl mutation log, a Copilot Chat transcript, a session-store.db and
    an Export Chat file. Each copy gets fresh session, request and call ids."""
    from tests.trace_ingest import vscode_fixtures as fx

    base = SAMPLES / "vscode"
    chats = sorted(base.glob("chatSessions-*.json"))
    logs = sorted(base.glob("chatSessions-*.jsonl"))
    total, copy = 0, 0

    def put(path: Path, data: bytes) -> int:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return len(data)

    while total < mb * 1e6:
        tag = b"c%d_" % copy

        def fresh(data: bytes, tag: bytes = tag, copy: int = copy) -> bytes:
            return _VSCODE_IDS.sub(lambda m: b'"' + m[1] + tag + m[2], _renamed(data, copy))

        def sid(name: str, copy: int = copy) -> str:
            return str(uuid.uuid5(uuid.NAMESPACE_URL, f"vscode:{copy}:{name}"))

        ws = out / "User" / "workspaceStorage" / f"ws{copy:04d}"
        for src in chats + logs:
            total += put(
                ws / "chatSessions" / f"{sid(src.name)}{src.suffix}", fresh(src.read_bytes())
            )
        session = fx.chat_session(sid("generated"))
        log = "".join(json.dumps(e) + "\n" for e in fx.mutation_log(session)).encode()
        total += put(ws / "chatSessions" / f"{sid('generated')}.jsonl", fresh(log))
        text = "".join(json.dumps(e) + "\n" for e in fx.transcript(sid("transcript"))).encode()
        copilot = ws / "GitHub.copilot-chat"
        total += put(copilot / "transcripts" / f"{sid('transcript')}.jsonl", fresh(text))
        _add_store_session(fx, out / "store", sid("store"))
        exported = json.dumps(fx.export_of(fx.chat_session(sid("exported"))), indent=1).encode()
        exported = fresh(exported, b"x%d_" % copy)  # its own requests: not merged into one read
        total += put(out / f"export-{copy:04d}.json", exported)
        copy += 1
    store = out / "store" / "session-store.db"
    target = out / "User" / "workspaceStorage" / "ws0000" / "GitHub.copilot-chat" / "debug-logs"
    target.mkdir(parents=True, exist_ok=True)
    store.rename(target / store.name)
    shutil.rmtree(out / "store")
    return total + (target / store.name).stat().st_size


def _add_store_session(fx: Any, folder: Path, session_id: str) -> None:
    """One more session in the chronicle store ``folder/session-store.db`` (one store holds
    every session, as VS Code's does): the fixture's rows under ``session_id``."""
    store = folder / "session-store.db"
    if not store.exists():
        fx.write_store(store, session_id, wal=False)
        return
    one = fx.write_store(folder / "one.db", session_id, wal=False)
    db = sqlite3.connect(store)
    db.execute("ATTACH DATABASE ? AS one", (str(one),))
    tables = [r[0] for r in db.execute("SELECT name FROM one.sqlite_master WHERE type='table'")]
    for table in tables:
        if table in ("schema_version", "sqlite_sequence"):
            continue
        cols = [r[1] for r in db.execute(f'PRAGMA one.table_info("{table}")')]
        keep = ", ".join(f'"{c}"' for c in cols if c != "id" or table == "sessions")
        db.execute(f'INSERT INTO main."{table}" ({keep}) SELECT {keep} FROM one."{table}"')
    db.commit()
    db.execute("DETACH DATABASE one")
    db.close()
    one.unlink()


@dataclass(frozen=True)
class Workload:
    build: Callable[[Path, float], int]
    command: Callable[[Path], list[str]]
    importer: str  # the IMPORTERS name, or "chronicle"


def _import(harness: str) -> Callable[[Path], list[str]]:
    return lambda folder: [TRAIL, "import", harness, str(folder)]


WORKLOADS: dict[str, Workload] = {
    "claude-code": Workload(claude_code, _import("claude-code"), "claude-code"),
    "copilot-cli": Workload(copilot_cli, _import("copilot-cli"), "copilot-cli"),
    "vibe": Workload(vibe, _import("vibe"), "vibe"),
    "vibe (2.x folders)": Workload(vibe_2x, _import("vibe"), "vibe"),
    "vscode (chronicle import)": Workload(
        vscode, lambda folder: [TRAIL, "chronicle", "import", "--path", str(folder)], "chronicle"
    ),
}


def events_written(home: Path) -> int:
    return sum(t.read_bytes().count(b"\n") for t in home.glob("sessions/*/*/trace.jsonl"))


@dataclass(frozen=True)
class Run:
    wall: float
    cpu: float  # user + system seconds
    rss: float  # MiB


def measure(cmd: list[str], env: dict[str, str]) -> Run:
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    err = proc.stderr.read().decode() if proc.stderr else ""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd[:4])} failed:\n{err[-2000:]}")
    return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def settle() -> None:
    """Let the file system finish what came before (written data, removed folders) before
    the next timed run: a journaling file system mounted with ``discard`` does much of that
    work later, and whichever process runs then pays for it in system time."""
    os.sync()
    time.sleep(0.5)


def _median(runs: list[Run], what: str) -> float:
    return float(statistics.median(getattr(r, what) for r in runs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=float, default=48.0)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", nargs="*", default=None, help="workload names (default: all)")
    parser.add_argument("--no-doc", action="store_true")
    parser.add_argument(
        "--write-floor",
        action="store_true",
        help="also time writing the import's trace files alone: the ceiling the layout sets",
    )
    parser.add_argument(
        "--scrub-share",
        action="store_true",
        help="also time each import with an identity scrubber: the scrubber's share of it",
    )
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="trail-bench-import-"))
    load_start = os.getloadavg()
    rows = []
    counts: list[str] = []
    shares: list[str] = []
    floors: list[str] = []
    budgets: list[str] = []
    names = [n for n in WORKLOADS if args.only is None or n in args.only]
    missing = sorted(set(IMPORTERS) - {w.importer for w in WORKLOADS.values()})
    try:
        for name in names:
            load = WORKLOADS[name]
            folder = work / re.sub(r"\W+", "-", name)
            size = load.build(folder, args.mb)
            ours: list[Run] = []
            unscrubbed: list[Run] = []
            bare: list[Run] = []
            written = 0
            home = work / "home"
            # One untimed import first: it leaves trail's compiled-regex cache (cache/ in the
            # data dir, what any earlier trail command or hook call leaves), which each timed
            # import then starts with; its sessions are not kept.
            shutil.rmtree(home, ignore_errors=True)
            measure(load.command(folder), {**os.environ, "TRAIL_HOME": str(home)})
            cache = work / "cache"
            shutil.rmtree(cache, ignore_errors=True)
            if (home / "cache").is_dir():
                shutil.copytree(home / "cache", cache)
                # the cache is authenticated with this key (trace_ingest._regex): with a new
                # key, each import would refuse it and compile every regex it uses again
                shutil.copy2(home / "scrub.key", cache / "scrub.key")
            shutil.rmtree(home, ignore_errors=True)
            homes = [work / f"home{run}" for run in range(args.runs)]
            if args.scrub_share:
                homes += [work / f"plain{run}" for run in range(args.runs)]
            for home in homes:  # made now: no timed run pays for another's files
                if cache.is_dir():
                    shutil.copytree(cache, home / "cache", ignore=shutil.ignore_patterns("*.key"))
                    shutil.copy2(cache / "scrub.key", home / "scrub.key")
                home.mkdir(exist_ok=True)
            settle()
            for run in range(args.runs):
                arms = ("bare", "ours") if run % 2 == 0 else ("ours", "bare")
                for arm in arms:
                    if arm == "bare":
                        bare.append(
                            measure([sys.executable, "-c", BARE, str(folder)], dict(os.environ))
                        )
                        continue
                    env = {**os.environ, "TRAIL_HOME": str(homes[run])}
                    ours.append(measure(load.command(folder), env))
                    written = events_written(homes[run])
                    if written == 0:
                        raise SystemExit(f"{name}: the import wrote nothing from {folder}")
                    settle()
                    if args.scrub_share:
                        env = {**os.environ, "TRAIL_HOME": str(homes[args.runs + run])}
                        cmd = [sys.executable, "-c", NO_SCRUB, *load.command(folder)[1:]]
                        unscrubbed.append(measure(cmd, env))
                        settle()
            floor: list[Run] = []
            sessions = len(list(homes[0].glob("sessions/*/*")))
            if args.write_floor:
                for run in range(args.runs):
                    target = work / f"floor{run}"
                    floor.append(
                        measure(
                            [sys.executable, "-c", FLOOR, str(homes[0]), str(target)],
                            dict(os.environ),
                        )
                    )
                    shutil.rmtree(target, ignore_errors=True)
                    settle()
            for home in homes:
                shutil.rmtree(home, ignore_errors=True)
            mb = size / 1e6
            ow, bw = _median(ours, "wall"), _median(bare, "wall")
            oc, bc = _median(ours, "cpu"), _median(bare, "cpu")
            rows.append(
                (
                    name,
                    mb,
                    mb / ow,
                    oc,
                    _median(ours, "rss"),
                    mb / bw,
                    bc,
                    _median(bare, "rss"),
                    bw / ow,
                    bc / oc,
                )
            )
            counts.append(f"{name} {written:,}")
            budgets.append(
                f"{name} {bc / 0.3 / mb * 1000:.0f} ms/MB (the import took {oc / mb * 1000:.0f})"
            )
            if floor:
                fc = _median(floor, "cpu")
                floors.append(
                    f"{name}: {fc:.2f} CPU s for {sessions:,} sessions, so at most"
                    f" {bc / (bc + fc):.2f} (CPU)"
                )
            if unscrubbed:
                uc = _median(unscrubbed, "cpu")
                shares.append(
                    f"{name}: scrubbing {max(0.0, oc - uc):.2f} of {oc:.2f} CPU s"
                    f" ({max(0.0, oc - uc) / oc:.0%}); without it the ratio (CPU) would be"
                    f" {bc / uc:.2f}"
                )
            shutil.rmtree(folder, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    load_end = os.getloadavg()
    table = [
        "| importer | input (MB) | import: MB/s, CPU s, peak MiB | bare parse: MB/s, CPU s,"
        " peak MiB | ratio (wall) | ratio (CPU) | verdict |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, mb, os_, oc, om, bs, bc, bm, ratio, cpu_ratio in rows:
        ok = "met" if min(ratio, cpu_ratio) >= 0.3 else "NOT met"
        table.append(
            f"| {name} | {mb:.1f} | {os_:.1f}, {oc:.2f}, {om:.0f} | {bs:.1f}, {bc:.2f}, {bm:.0f} |"
            f" **{ratio:.2f}** | {cpu_ratio:.2f} | {ok} |"
        )
    note = f"Importers without a workload here yet: {', '.join(missing)}." if missing else ""
    publish(
        "Import throughput (bench/import_throughput.py)",
        [
            f"Measured {machine()}; load average {load_start[0]:.2f} at the start,"
            f" {load_end[0]:.2f} at the end; medians of {args.runs} interleaved runs, fresh"
            " processes, a fresh empty data dir per import (its regex cache warm: the cache"
            " and its key copied in), the file system"
            " synced before each timed run. Input: real"
            " recorded sessions (see each workload in the script), copied under fresh session"
            " ids to the size shown. The"
            " bare pass reads the same files and parses them the cheapest way each format"
            " allows (orjson per line or per document, every SQLite row).",
            "",
            *table,
            "",
            "Target (issue 14): ratio >= 0.3 (import speed / bare parse speed), by wall and by"
            " CPU time. " + note,
            f"Events written per import: {', '.join(counts)}.",
            "CPU time per MB an import may take to meet 0.3 (the bare pass's / 0.3, process"
            f" start included): {', '.join(budgets)}.",
            *(
                [
                    "",
                    "The storage layout's floor (--write-floor: the import's trace files written"
                    " again into a fresh data dir, one folder, file and write() per session, by"
                    " a script that does nothing else; an import must do at least that and the"
                    " bare parse): " + "; ".join(floors) + ".",
                ]
                if floors
                else []
            ),
            *(
                [
                    "",
                    "The scrubber's share (--scrub-share: the same import with an identity"
                    " scrubber, medians): " + "; ".join(shares) + ".",
                ]
                if shares
                else []
            ),
            f"Reproduce: `.venv/bin/python bench/import_throughput.py --mb {args.mb:g}"
            f" --runs {args.runs}{' --scrub-share' if args.scrub_share else ''}"
            f"{' --write-floor' if args.write_floor else ''}`.",
        ],
        not args.no_doc,
    )


if __name__ == "__main__":
    main()
