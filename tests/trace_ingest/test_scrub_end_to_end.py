"""No secret reaches disk: the labelled corpus through the real hook, then everywhere on disk."""

from __future__ import annotations

import json
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


def everything_on_disk(home: Path) -> bytes:
    return b"\n".join(p.read_bytes() for p in sorted(home.rglob("*")) if p.is_file())


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
    leaks = []
    for sample in positives:
        for secret in sample.secrets:
            window = min(12, len(secret))
            pieces = {secret[i : i + window] for i in range(len(secret) - window + 1)}
            escaped = {json.dumps(p)[1:-1] for p in pieces}
            if any(p.encode() in disk for p in pieces | escaped):
                leaks.append((sample.family, sample.context))
    assert leaks == [], f"{len(leaks)} secrets reached disk: {leaks[:10]}"
    assert not (trail_home / "hook-errors.log").exists()
