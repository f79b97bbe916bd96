"""The regex program cache: same matches as `re`, no `re` import once warm, safe when broken."""

from __future__ import annotations

import json
import re
import stat
import subprocess
import sys
from pathlib import Path

from tests.trace_ingest.scrub_corpus import corpus

SCRUB = """
import sys
from trace_ingest import fastjson
from trace_ingest.scrub import load_scrubber
home, values = sys.argv[1], fastjson.loads(sys.stdin.read())
scrubber = load_scrubber(home)
out = [scrubber.scrub_value(v) for v in values]
loaded = sorted(m for m in ("re", "enum") if m in sys.modules)
print(fastjson.dumps({"out": out, "loaded": loaded}))
"""


def scrub_in_fresh_process(home: Path, values: list[object]) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", SCRUB, str(home)],
        input=json.dumps(values),
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def without_fingerprints(value: object) -> str:
    return re.sub(r"(\[REDACTED:[a-z0-9-]+):[0-9a-f]{12}\]", r"\1]", json.dumps(value))


def values() -> list[object]:
    return [s.value for s in corpus(seed=99, per_cell=1)]


def test_warm_cache_gives_the_same_redactions_without_importing_re(tmp_path: Path) -> None:
    data = values()
    cold = scrub_in_fresh_process(tmp_path / "no-such-home", data)  # no cache: plain re
    home = tmp_path / "home"
    home.mkdir()
    first = scrub_in_fresh_process(home, data)  # fills the cache
    warm = scrub_in_fresh_process(home, data)
    assert cold["loaded"] == first["loaded"] == ["enum", "re"]
    assert warm["loaded"] == []
    assert warm["out"] == first["out"]
    # The cold run had another home, so another fingerprint key: compare without fingerprints.
    assert without_fingerprints(cold["out"]) == without_fingerprints(warm["out"])
    [cache] = (home / "cache").iterdir()
    assert stat.S_IMODE(cache.stat().st_mode) == 0o600
    assert stat.S_IMODE((home / "cache").stat().st_mode) == 0o700


def test_a_damaged_cache_falls_back_to_re(tmp_path: Path) -> None:
    data = values()
    home = tmp_path / "home"
    home.mkdir()
    expected = scrub_in_fresh_process(home, data)
    [cache] = (home / "cache").iterdir()
    cache.write_bytes(b"\x00garbage" * 100)
    again = scrub_in_fresh_process(home, data)
    assert again["out"] == expected["out"] and again["loaded"] == ["enum", "re"]
