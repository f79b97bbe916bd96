"""trace_ingest/_os.py: ``os`` for the hook without importing ``os`` — the same answers as
``os`` and ``posixpath`` for every input, computed here or handed to them."""

from __future__ import annotations

import os
import posixpath
import subprocess
import sys
from pathlib import Path

import pytest

from trace_ingest import _os

PATHS = [
    "",
    "/",
    "//",
    "///",
    "a",
    "a/",
    "/a",
    "/a/",
    "/a//b",
    "/a/b/c.jsonl",
    "a/b/c",
    "/a/./b",
    "/a/../b",
    "/a/b/.",
    "/a/b/..",
    "//a/b",
    "~",
    "~/x",
    "~root/x",
    "/home/u/.local/share/trail/sessions/claude-code/s-1/trace.jsonl",
    "./x",
    "x/./y/../z",
]


@pytest.mark.parametrize("p", PATHS)
def test_path_functions_agree_with_posixpath(p: str) -> None:
    assert _os.path.dirname(p) == posixpath.dirname(p)
    assert _os.path.split(p) == posixpath.split(p)
    assert _os.path.isabs(p) == posixpath.isabs(p)
    assert _os.path.abspath(p) == posixpath.abspath(p)
    assert _os.path.expanduser(p) == posixpath.expanduser(p)
    for q in PATHS:
        assert _os.path.join(p, q) == posixpath.join(p, q), (p, q)
        if p and q:
            assert _os.path.relpath(p, q) == posixpath.relpath(p, q), (p, q)


def test_exists_and_isdir(tmp_path: Path) -> None:
    f = tmp_path / "f"
    f.write_text("x")
    for p in (str(tmp_path), str(f), str(tmp_path / "missing"), "bad\x00path"):
        assert _os.path.exists(p) == os.path.exists(p)
        assert _os.path.isdir(p) == os.path.isdir(p)


def test_environ_reads_os_environ_once_os_is_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    """A changed ``os.environ`` (a CLI or a test setting TRAIL_HOME) is what is read."""
    monkeypatch.setenv("TRAIL_OS_PROBE", "é-value")
    assert _os.environ.get("TRAIL_OS_PROBE") == "é-value"
    assert _os.environ["TRAIL_OS_PROBE"] == "é-value"
    assert "TRAIL_OS_PROBE" in _os.environ
    monkeypatch.delenv("TRAIL_OS_PROBE")
    assert _os.environ.get("TRAIL_OS_PROBE") is None
    assert _os.environ.get("TRAIL_OS_PROBE", "d") == "d"
    assert "TRAIL_OS_PROBE" not in _os.environ
    with pytest.raises(KeyError):
        _os.environ["TRAIL_OS_PROBE"]


def test_other_names_come_from_os_itself() -> None:
    assert _os.open is os.open and _os.O_NOFOLLOW == os.O_NOFOLLOW
    assert _os.fdopen is os.fdopen  # not re-exported: found through os
    assert _os.path.normpath is os.path.normpath


PROBE = """
import sys
sys.path.insert(0, {root!r})
from trace_ingest import _os
home = _os.path.abspath(_os.path.expanduser(_os.environ.get("TRAIL_OS_PROBE", "")))
rel = _os.path.relpath(_os.path.join(home, "sessions", "x"), home)
print(home, rel, _os.path.split(home)[1], "os" in sys.modules)
_os.fdopen  # a name it does not re-export: os is imported for it
print("os" in sys.modules)
"""


def test_the_hooks_uses_never_import_os() -> None:
    """In a fresh ``-I -S`` process (the hook's), with the environment ``posix`` read."""
    root = str(Path(__file__).resolve().parents[2])
    env = {"PATH": "/usr/bin:/bin", "HOME": "/home/probe", "TRAIL_OS_PROBE": "~/données"}
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", PROBE.format(root=root)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    assert done.stdout.splitlines() == [
        "/home/probe/données sessions/x données False",
        "True",
    ]
