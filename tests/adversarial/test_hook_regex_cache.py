"""Issue 8, item 4: a crafted compiled-regex cache must never switch redaction off.

The cache holds ``_sre`` programs that the hook runs instead of compiling the rules. The
attack replaces every program with one that matches nothing. The cache is now authenticated
(a keyed BLAKE2b under the install's key), so any such file is ignored, logged, and rebuilt.
"""

from __future__ import annotations

import json
import marshal
import re
from pathlib import Path

import pytest

from tests.adversarial._hook import BASE, all_bytes, errors, secrets
from tests.conftest import read_trace_lines, run_hook
from trace_ingest import _regex
from trace_ingest._blake import blake2b


def payload(session: str) -> dict[str, object]:
    text = " ".join(f"{rule}={value}" for rule, value in secrets().items())
    return {**BASE, "session_id": session, "hook_event_name": "UserPromptSubmit", "prompt": text}


def cache_file(home: Path) -> Path:
    [path] = (home / "cache").glob("regex-*.marshal")
    return path


def programs(data: bytes) -> dict[str, object]:
    head = len(_regex.MAGIC) + _regex.MAC_BYTES
    loaded = marshal.loads(data[head:])
    assert isinstance(loaded, dict)
    return loaded["programs"]  # type: ignore[no-any-return]


def nothing_program() -> tuple[object, ...]:
    """The program of a pattern that never matches, as the cache stores programs."""
    return _regex._program("(?!)", 0, re.compile("(?!)"))


def authentic(home: Path, data: bytes) -> bool:
    key = (home / "scrub.key").read_bytes()
    head = len(_regex.MAGIC) + _regex.MAC_BYTES
    mac = blake2b(data[head:], key=key, digest_size=_regex.MAC_BYTES, person=b"trail-rx-cache")
    return data.startswith(_regex.MAGIC) and data[len(_regex.MAGIC) : head] == mac.digest()


def crafted(home: Path, style: str) -> bytes:
    real = cache_file(home).read_bytes()
    body = marshal.dumps(
        {"tag": _regex._TAG, "programs": {k: nothing_program() for k in programs(real)}}
    )
    if style == "unauthenticated":  # the format before the fix: the attack as it was run
        return body
    if style == "wrong-key":
        mac = blake2b(body, key=b"k" * 32, digest_size=_regex.MAC_BYTES, person=b"trail-rx-cache")
        return _regex.MAGIC + mac.digest() + body
    return _regex.MAGIC + b"\0" * _regex.MAC_BYTES + body  # a zero MAC


@pytest.mark.parametrize("style", ["unauthenticated", "wrong-key", "zero-mac"])
def test_a_crafted_cache_still_redacts_7_of_7(trail_home: Path, style: str) -> None:
    assert run_hook(payload("s-warm")).returncode == 0  # builds the real cache
    [warm] = read_trace_lines(trail_home)
    assert sum(warm["redactions"].values()) == 7
    cache_file(trail_home).write_bytes(crafted(trail_home, style))

    done = run_hook(payload("s-attacked"))
    assert (done.returncode, done.stdout) == (0, b"")
    ev = next(e for e in read_trace_lines(trail_home) if e["session_id"] == "s-attacked")
    assert sum(ev["redactions"].values()) == 7, ev["redactions"]
    for value in secrets().values():
        assert value.encode() not in all_bytes(trail_home)
    assert any(e["stage"] == "regex-cache" for e in errors(trail_home))
    rebuilt = cache_file(trail_home).read_bytes()
    assert authentic(trail_home, rebuilt)  # rewritten under this install's key
    assert programs(rebuilt) != programs(crafted(trail_home, "wrong-key"))


def test_a_cache_from_another_install_is_not_trusted(trail_home: Path, tmp_path: Path) -> None:
    other = tmp_path / "other-home"
    assert run_hook(payload("s-other"), env={"TRAIL_HOME": str(other)}).returncode == 0
    assert run_hook(payload("s-mine")).returncode == 0
    # Copy the other install's (authentic there) cache over ours: its MAC is under another key.
    cache_file(trail_home).write_bytes(cache_file(other).read_bytes())
    assert run_hook(payload("s-mine-2")).returncode == 0
    ev = next(e for e in read_trace_lines(trail_home) if e["session_id"] == "s-mine-2")
    assert sum(ev["redactions"].values()) == 7
    assert any(e["stage"] == "regex-cache" for e in errors(trail_home))


def test_a_symlinked_cache_is_replaced_not_followed(trail_home: Path, tmp_path: Path) -> None:
    assert run_hook(payload("s-warm")).returncode == 0
    victim = tmp_path / "victim"
    victim.write_text("precious")
    path = cache_file(trail_home)
    path.unlink()
    path.symlink_to(victim)
    assert run_hook(payload("s-2")).returncode == 0
    assert victim.read_text() == "precious"
    ev = next(e for e in read_trace_lines(trail_home) if e["session_id"] == "s-2")
    assert sum(ev["redactions"].values()) == 7
    assert not path.is_symlink() and authentic(trail_home, path.read_bytes())
    assert json.dumps(ev).count("REDACTED") == 7
