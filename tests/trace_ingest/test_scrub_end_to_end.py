"""No secret reaches disk: the labelled corpus through the real hook and the importer, then
every byte of every file under the data dir, SQLite included."""

from __future__ import annotations

import json
import marshal
import subprocess
from pathlib import Path
from typing import Any

from tests.conftest import TRAIL, run_hook
from tests.trace_ingest.scrub_corpus import Sample, corpus

BASE = {"session_id": "e2e-secrets", "transcript_path": "/t.jsonl", "cwd": "/work"}
CHUNK = 60


def as_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def payloads(samples: list[Sample]) -> list[dict[str, Any]]:
    """Spread the samples over every place a payload can carry text."""
    out: list[dict[str, Any]] = []
    for n, start in enumerate(range(0, len(samples), CHUNK)):
        values = [s.value for s in samples[start : start + CHUNK]]
        shape = n % 5
        if shape == 0:
            out.append(
                {
                    **BASE,
                    "hook_event_name": "UserPromptSubmit",
                    "prompt": "\n".join(as_text(v) for v in values),
                }
            )
        elif shape == 1:
            out.append(
                {
                    **BASE,
                    "hook_event_name": "PreToolUse",
                    "tool_name": "Bash",
                    "tool_use_id": f"t{n}",
                    "tool_input": {"values": values},
                }
            )
        elif shape == 2:
            out.append(
                {
                    **BASE,
                    "hook_event_name": "PostToolUseFailure",
                    "tool_name": "Bash",
                    "tool_use_id": f"t{n}",
                    "tool_input": {},
                    "error": "\n".join(as_text(v) for v in values),
                }
            )
        elif shape == 3:  # an event type trail does not know: everything lands in `extra`
            out.append(
                {
                    **BASE,
                    "hook_event_name": "FutureEvent",
                    **{f"field_{i}": v for i, v in enumerate(values)},
                }
            )
        else:  # Copilot-style: tool arguments as a JSON string inside the JSON payload
            out.append(
                {
                    **BASE,
                    "hook_event_name": "PostToolUse",
                    "tool_name": "Bash",
                    "tool_use_id": f"t{n}",
                    "tool_input": {"toolArgs": json.dumps(values)},
                    "tool_response": {"stdout": "\n".join(as_text(v) for v in values)},
                }
            )
    return out


def leaked_samples(disk: bytes, samples: list[Sample]) -> list[tuple[str, str]]:
    """Samples any 12-character piece of whose secrets is on disk, raw or JSON-escaped."""
    leaks = []
    for sample in samples:
        for secret in sample.secrets:
            window = min(12, len(secret))
            pieces = {secret[i : i + window] for i in range(len(secret) - window + 1)}
            escaped = {json.dumps(p)[1:-1] for p in pieces}
            if any(p.encode() in disk for p in pieces | escaped):
                leaks.append((sample.family, sample.context))
    return leaks


def known_patterns() -> set[str]:
    """Every regex the scrubber compiles: rule patterns and its helper patterns."""
    from trace_ingest import scrub_index, scrub_rules

    found = {r.pattern for r in scrub_rules.builtin_rules() if r.pattern}
    found |= set(scrub_index.TRIES.values())  # the hook prefilter's keyword tries
    return found | scrub_rules.helper_patterns()  # finders' and the engine's own helpers


def everything_on_disk(home: Path) -> bytes:
    """Every byte under the data dir, except the regex program cache, which is checked to
    hold nothing but the scrubber's own patterns (format prefixes such as PyPI's are public
    and would otherwise look like a leaked piece of a token)."""
    cache = home / "cache"
    from trace_ingest import _regex

    for path in cache.glob("regex-*.marshal"):
        data = path.read_bytes()
        assert data.startswith(_regex.MAGIC)  # then the MAC, then the programs
        programs = marshal.loads(data[len(_regex.MAGIC) + _regex.MAC_BYTES :])["programs"]
        assert {key.split("\x00", 1)[1] for key in programs} <= known_patterns()
    return b"\n".join(
        p.read_bytes() for p in sorted(home.rglob("*")) if p.is_file() and cache not in p.parents
    )


def test_corpus_through_the_real_hook_leaves_no_secret_on_disk(trail_home: Path) -> None:
    samples = corpus(seed=4242, per_cell=1)
    positives = [s for s in samples if s.kind != "negative"]
    assert len(positives) > 300
    for payload in payloads(positives):
        done = run_hook(payload)
        assert (done.returncode, done.stdout) == (0, b"")
    # The mirror too: sync into SQLite, then look at every byte of every file.
    assert subprocess.run([TRAIL, "sync"], capture_output=True, check=False).returncode == 0
    disk = everything_on_disk(trail_home)
    assert (trail_home / "trail.db").exists() and b"e2e-secrets" in disk
    leaks = leaked_samples(disk, positives)
    assert leaks == [], f"{len(leaks)} secrets reached disk: {leaks[:10]}"
    assert not (trail_home / "hook-errors.log").exists()


def transcript_lines(samples: list[Sample]) -> list[dict[str, Any]]:
    """A Claude Code transcript (harnesses.md §1.7) carrying the samples in prompts, tool
    inputs and tool results."""
    sid = "e2e-transcript"
    lines: list[dict[str, Any]] = []
    for n, sample in enumerate(samples):
        stamp = f"2026-01-05T10:{n // 60 % 60:02d}:{n % 60:02d}.000Z"
        head = {"sessionId": sid, "timestamp": stamp, "cwd": "/work"}
        if n % 3 == 0:
            lines.append(
                {
                    **head,
                    "type": "user",
                    "uuid": f"p{n}",
                    "message": {"role": "user", "content": as_text(sample.value)},
                }
            )
        elif n % 3 == 1:
            lines.append(
                {
                    **head,
                    "type": "assistant",
                    "uuid": f"a{n}",
                    "message": {
                        "role": "assistant",
                        "content": [
                            {
                                "type": "tool_use",
                                "id": f"toolu_{n}",
                                "name": "Bash",
                                "input": {"command": sample.value},
                            }
                        ],
                    },
                }
            )
        else:
            lines.append(
                {
                    **head,
                    "type": "user",
                    "uuid": f"r{n}",
                    "message": {
                        "role": "user",
                        "content": [
                            {
                                "type": "tool_result",
                                "tool_use_id": f"toolu_{n}",
                                "content": as_text(sample.value),
                            }
                        ],
                    },
                }
            )
    return lines


def test_corpus_through_the_importer_leaves_no_secret_on_disk(
    trail_home: Path, tmp_path: Path
) -> None:
    positives = [s for s in corpus(seed=777, per_cell=1) if s.kind != "negative"]
    path = tmp_path / "e2e-transcript.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in transcript_lines(positives)) + "\n")
    done = subprocess.run(
        [TRAIL, "import", "claude-code", str(path)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert subprocess.run([TRAIL, "sync"], capture_output=True, check=False).returncode == 0
    disk = everything_on_disk(trail_home)
    assert b"e2e-transcript" in disk and (trail_home / "trail.db").exists()
    leaks = leaked_samples(disk, positives)
    assert leaks == [], f"{len(leaks)} secrets reached disk: {leaks[:10]}"
