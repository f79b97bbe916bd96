"""Helpers for the hook's attack tests: real files, real `trail hook` processes, real disks."""

from __future__ import annotations

import json
import os
import random
import string
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

BASE = {"session_id": "s-attack", "transcript_path": "/t.jsonl", "cwd": "/work"}
ALNUM = string.ascii_letters + string.digits


def errors(home: Path) -> list[dict[str, object]]:
    """Every entry of the hook error log (and its rotated ``.1``), oldest first."""
    out: list[dict[str, object]] = []
    for name in ("hook-errors.log.1", "hook-errors.log"):
        log = home / name
        if log.is_file() and not log.is_symlink():
            out += [json.loads(x) for x in log.read_text().splitlines() if x.strip()]
    return out


def all_bytes(home: Path) -> bytes:
    """Every byte of every regular file under ``home`` (trail.db included)."""
    return b"\n".join(
        p.read_bytes() for p in sorted(home.rglob("*")) if p.is_file() and not p.is_symlink()
    )


def snapshot(root: Path) -> dict[str, tuple[int, int]]:
    """``{path: (size, mtime_ns)}`` of everything under ``root``, not following links."""
    out = {}
    for p in root.rglob("*"):
        st = p.lstat()
        out[str(p)] = (st.st_size, st.st_mtime_ns)
    return out


def rand(seed: int, n: int, alphabet: str = ALNUM) -> str:
    rng = random.Random(seed)
    wanted = [set(alphabet) & set(group) for group in (string.ascii_uppercase,
              string.ascii_lowercase, string.digits)]  # fmt: skip
    for _ in range(1000):  # each character class the alphabet has, as real tokens do
        value = "".join(rng.choice(alphabet) for _ in range(n))
        if all(not group or group & set(value) for group in wanted):
            return value
    raise AssertionError("no value found")  # pragma: no cover


def secrets(seed: int = 7) -> dict[str, str]:
    """Seven secrets of seven known formats, assembled at run time (no literal in the source)."""
    return {
        "github-token": "gh" + "p_" + rand(seed, 36),
        "aws-access-key-id": "AK" + "IA" + rand(seed + 1, 16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"),
        "anthropic-key": "sk-" + "ant-api03-" + rand(seed + 2, 40),
        "openai-key": "sk-" + "proj-" + rand(seed + 3, 48),
        "slack-token": "xo" + "xb-" + "1234567890-" + rand(seed + 4, 24),
        "stripe-key": "sk" + "_live_" + rand(seed + 5, 24),
        "gcp-api-key": "AI" + "za" + rand(seed + 6, 35),
    }


def run_raw(
    argv: list[str],
    stdin: bytes | int | None = None,
    env: dict[str, str] | None = None,
    cwd: str | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess[bytes]:
    """Run a command with ``stdin`` as bytes or as an open descriptor (``/dev/zero``)."""
    kw: dict[str, object] = {"input": stdin} if isinstance(stdin, bytes) else {"stdin": stdin}
    return subprocess.run(  # type: ignore[call-overload, no-any-return]
        argv,
        capture_output=True,
        env={**os.environ, **(env or {})},
        cwd=cwd,
        timeout=timeout,
        check=False,
        **kw,
    )


@contextmanager
def small_disk(path: Path, size: str = "256k") -> Iterator[Path]:
    """A real, small filesystem at ``path``: a tmpfs of ``size`` (needs root or CAP_SYS_ADMIN).

    Skips the test, saying so, where mounting is not permitted.
    """
    path.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here ({done.stderr.strip()[:120]})")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], capture_output=True, check=False)


def fill(disk: Path) -> Path:
    """Fill ``disk`` to its last byte with one file; returns it (delete it to free the space)."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        for size in (65536, 4096, 1):
            try:
                while os.write(fd, b"\0" * size):
                    pass
            except OSError:
                continue
    finally:
        os.close(fd)
    return filler
