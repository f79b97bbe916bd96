"""Issue 8, item 5: ``scrub.key`` is created atomically and validated on every read.

Before: the key was created with O_EXCL and then written; a full disk at that moment left a
0-byte key, and afterwards every event holding a secret became a scrub-error stub. Now the key
is written to a temporary file, fsynced and linked into place, so it never exists short; a
short, foreign or symlinked key is moved aside and replaced (logged); and when no key can be
stored at all, the process redacts with a temporary key instead of failing.

The full-disk case runs on a real full disk: a 256 KiB tmpfs (``mount -t tmpfs``, needs root
or CAP_SYS_ADMIN; skipped where mounting is not permitted). The 0-byte key it used to leave
is also tested directly (pre-made), which runs everywhere.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.adversarial._hook import BASE, all_bytes, errors, fill, secrets, small_disk
from tests.conftest import read_trace_lines, run_hook

TOKEN = secrets()["github-token"]


def prompt(session: str) -> dict[str, object]:
    return {**BASE, "session_id": session, "hook_event_name": "UserPromptSubmit",
            "prompt": f"push with {TOKEN}"}  # fmt: skip


def recorded(home: Path, session: str) -> dict[str, object]:
    return next(e for e in read_trace_lines(home) if e["session_id"] == session)


def test_full_disk_at_key_creation_leaves_no_short_key(tmp_path: Path) -> None:
    with small_disk(tmp_path / "disk") as disk:
        home = disk / "home"
        env = {"TRAIL_HOME": str(home)}
        # A first event without a secret: the data dir exists, no key yet.
        assert run_hook({**BASE, "hook_event_name": "Stop"}, env=env).returncode == 0
        assert not (home / "scrub.key").exists()
        filler = fill(disk)
        done = run_hook(prompt("s-full"), env=env)  # needs the key: the disk is full
        assert (done.returncode, done.stdout) == (0, b"")
        assert not (home / "scrub.key").exists()  # never a 0-byte key
        assert not list(home.glob("scrub.key.*"))  # nor a temporary file left behind
        filler.unlink()
        done = run_hook(prompt("s-after"), env=env)
        assert done.returncode == 0
        assert len((home / "scrub.key").read_bytes()) == 32
        ev = recorded(home, "s-after")
        assert ev["redactions"] == {"github-token": 1} and "scrub_error" not in str(ev)
        assert TOKEN.encode() not in all_bytes(home)


def test_a_zero_byte_key_is_replaced_and_logged(trail_home: Path) -> None:
    trail_home.mkdir(mode=0o700)
    (trail_home / "scrub.key").write_bytes(b"")  # what a full disk used to leave
    os.chmod(trail_home / "scrub.key", 0o600)
    for n in range(3):
        assert run_hook(prompt(f"s-{n}")).returncode == 0
    events = read_trace_lines(trail_home)
    assert [e["redactions"] for e in events] == [{"github-token": 1}] * 3
    assert all(e["session_id"] != "_scrub-error" for e in events)
    assert len((trail_home / "scrub.key").read_bytes()) == 32
    [aside] = trail_home.glob("scrub.key.bad-*")
    assert aside.read_bytes() == b""
    logged = [e for e in errors(trail_home) if e["stage"] == "scrub-key"]
    assert len(logged) == 1 and "0 bytes, not 32" in str(logged[0]["error"])
    # One key for all three: the same secret has the same fingerprint in each event.
    assert len({str(e["text"]) for e in events}) == 1


def test_a_symlinked_key_is_not_read_through(trail_home: Path, tmp_path: Path) -> None:
    known = tmp_path / "known-key"
    known.write_bytes(b"k" * 32)  # a key the attacker knows would make fingerprints guessable
    trail_home.mkdir(mode=0o700)
    (trail_home / "scrub.key").symlink_to(known)
    assert run_hook(prompt("s-link")).returncode == 0
    key = trail_home / "scrub.key"
    assert not key.is_symlink() and len(key.read_bytes()) == 32
    assert key.read_bytes() != b"k" * 32 and known.read_bytes() == b"k" * 32
    assert recorded(trail_home, "s-link")["redactions"] == {"github-token": 1}
    assert any(e["stage"] == "scrub-key" for e in errors(trail_home))


def test_no_storable_key_still_redacts(trail_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No key can be stored (ENOSPC on every attempt): a temporary key, logged, and the secret
    is redacted all the same."""
    from trace_ingest import scrub

    def no_space(folder: int) -> bytes | None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(scrub, "_create_key", no_space)
    trail_home.mkdir(mode=0o700)
    clean, counts = scrub.load_scrubber(str(trail_home)).scrub_text(f"push with {TOKEN}")
    assert counts == {"github-token": 1} and TOKEN not in clean
    assert not (trail_home / "scrub.key").exists()
    assert any("temporary key" in str(e["error"]) for e in errors(trail_home))
