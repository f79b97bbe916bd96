"""A 200 MB VS Code chat file imports with flat memory (peak RSS of the importing process).

Each file is written twice, at 20 MB and at 200 MB, with the same shape; the import runs in a
fresh process whose peak RSS (``ru_maxrss``) is read. Flat means the tenfold file costs less
than 40 MB more than the small one; read whole, the 200 MB file alone would take over 1 GB.
No time is asserted.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.trace_ingest import vscode_fixtures as fx

PROBE = """
import json, resource, sys
from trace_ingest.importers.chronicle import import_chronicle
report = import_chronicle([sys.argv[1]])
f = report.files[0]
print(json.dumps({"rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                  "ok": f.ok, "kinds": dict(f.kinds), "written": f.written,
                  "skipped": f.skips, "error": f.error}))
"""
BLOCK = "x" * 1023 + "\n"  # 1 KiB of terminal output


def _request(i: int, kib: int) -> dict[str, object]:
    output = BLOCK * kib
    return fx.request(
        f"request_{i}",
        f"step {i}",
        fx.T0 + i * 1000,
        [fx.tool_terminal(f"call_{i}", f"make step{i}", 0, output), fx.markdown(f"done {i}")],
    )


def write_log(path: Path, megabytes: int) -> int:
    """A mutation log of 2 MiB lines: an Initial, then requests pushed and their ends set."""
    path.parent.mkdir(parents=True, exist_ok=True)
    count = megabytes // 2
    with path.open("w") as fh:
        fh.write(
            json.dumps({"kind": 0, "v": {**fx.chat_session("big", []), "requests": []}}) + "\n"
        )
        for i in range(count):
            req = _request(i, 2040)
            fh.write(json.dumps({"kind": 2, "k": ["requests"], "v": [req]}) + "\n")
            fh.write(json.dumps({"kind": 1, "k": ["requests", i, "promptTokens"], "v": i}) + "\n")
    return count


def write_json(path: Path, megabytes: int) -> int:
    """A chatSessions .json of ``megabytes`` with requests first, as VS Code writes it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    count = megabytes // 2
    head = fx.chat_session("bigjson", [])
    with path.open("w") as fh:
        fh.write('{"version": 3, "requests": [')
        for i in range(count):
            fh.write(("," if i else "") + json.dumps(_request(i, 2040)))
        rest = {k: v for k, v in head.items() if k not in ("version", "requests")}
        fh.write("], " + json.dumps(rest)[1:])
    return count


def peak(path: Path, home: Path) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(path)],
        capture_output=True,
        text=True,
        check=True,
        env={"TRAIL_HOME": str(home), "PATH": "/usr/bin:/bin"},
    )
    result: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return result


@pytest.mark.slow
@pytest.mark.parametrize(
    "writer, name", [(write_log, "big.jsonl"), (write_json, "bigjson.json")], ids=["jsonl", "json"]
)
def test_200_mb_file_with_flat_memory(tmp_path: Path, writer: object, name: str) -> None:
    assert callable(writer)
    results = {}
    for mb in (20, 200):
        path = tmp_path / f"{mb}" / "chatSessions" / name
        count = writer(path, mb)
        assert path.stat().st_size >= mb * 1_000_000
        result = peak(path, tmp_path / f"home{mb}")
        path.unlink()
        assert result["ok"] and result["skipped"] == [], result
        assert result["kinds"] == {
            "prompt": count,
            "tool_call": count,
            "tool_result": count,
            "agent_stop": count,
        }
        results[mb] = int(str(result["rss_kb"]))
    grew = (results[200] - results[20]) / 1024
    assert grew < 40, f"peak RSS grew {grew:.0f} MB from a 20 MB to a 200 MB file: {results}"
