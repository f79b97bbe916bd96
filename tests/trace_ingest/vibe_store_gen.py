"""A synthetic Vibe 3.0.1 unified store of N ``bash`` calls, built from the shapes of the real
stores in ``data/vibe-3.0.1/`` (projection effects, checkpoint calls and results, chunks sealed
near 64 KiB and named by their sha256): for the importer's memory test, and by hand::

    python -m tests.trace_ingest.vibe_store_gen N VIBE_HOME
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from typing import Any

SESSION = "big00000-0000-0000-0000-000000000000"
T0 = 1796125137792
OUTPUT = "x" * 2000


def build(vibe_home: str, n: int) -> str:
    """Write the store under ``vibe_home``; returns its folder."""
    root = os.path.join(vibe_home, "logs", "session", "unified", SESSION)
    gen = "0000000000000002"
    os.makedirs(os.path.join(root, "chunks"), exist_ok=True)
    os.makedirs(os.path.join(root, "generations", gen), exist_ok=True)

    def chunks(entries: list[dict[str, Any]]) -> list[str]:
        names: list[str] = []
        current: list[dict[str, Any]] = []
        size = 0
        for entry in [*entries, None]:
            if entry is not None:
                current.append(entry)
                size += len(json.dumps(entry))
            if current and (entry is None or size > 64 * 1024):
                body = json.dumps(current, separators=(",", ":")).encode()
                sha = hashlib.sha256(body).hexdigest()
                with open(os.path.join(root, "chunks", sha + ".json"), "wb") as fh:
                    fh.write(body + b"\n")
                names.append(sha)
                current, size = [], 0
        return names

    text = [{"type": "text", "text": "go"}]
    projection: list[dict[str, Any]] = [
        {
            "type": "message",
            "role": "user",
            "id": "user-1",
            "turnId": "turn-1",
            "source": "turn_start",
            "content": text,
            "createdAt": T0,
            "updatedAt": T0,
            "sessionId": SESSION,
        }
    ]
    checkpoint: list[dict[str, Any]] = [
        {"message": {"role": "user", "content": text}, "source": "history", "turn_index": 0}
    ]
    for i in range(n):
        cid, cmd = f"call_{i:08d}", f"echo step-{i}"
        out = {"command": cmd, "returncode": 0, "stdout": OUTPUT, "stderr": ""}
        projection.append(
            {
                "type": "effect",
                "id": f"effect-{i:08d}",
                "turnId": "turn-1",
                "sessionId": SESSION,
                "createdAt": T0 + 10 * i,
                "updatedAt": T0 + 10 * i + 5,
                "title": "file_system.bash",
                "detail": {
                    "toolName": "file_system.bash",
                    "kind": "tool",
                    "input": {"command": cmd},
                },
                "state": {
                    "status": "completed",
                    "outputText": "",
                    "output": {"structured_content": out, "type": "success"},
                },
            }
        )
        args = {"type": "json", "value": {"command": cmd}, "raw": json.dumps({"command": cmd})}
        checkpoint += [
            {
                "message": {
                    "role": "assistant",
                    "content": [
                        {"type": "tool_call", "id": cid, "name": "bash", "arguments": args}
                    ],
                },
                "source": "history",
                "turn_index": 0,
            },
            {
                "message": {
                    "role": "tool",
                    "tool_call_id": cid,
                    "name": "bash",
                    "outcome": "success",
                    "content": [{"type": "text", "text": json.dumps(out)}],
                },
                "source": "history",
                "turn_index": 0,
            },
        ]
    end = T0 + 10 * n + 20
    projection.append(
        {
            "type": "message",
            "role": "assistant",
            "id": "assistant-1",
            "turnId": "turn-1",
            "content": [{"type": "text", "text": "Done."}],
            "createdAt": end,
            "updatedAt": end,
            "sessionId": SESSION,
        }
    )
    manifest = {
        "projection_state": {"chunks": chunks(projection)},
        "checkpoint": {"chunks": chunks(checkpoint)},
        "session_id": SESSION,
        "generation": gen,
    }
    state = {
        "snapshot": {
            "session": {"id": SESSION, "rootSessionId": SESSION, "createdAt": T0},
            "latestTurn": {"id": "turn-1", "status": "completed"},
        }
    }
    current = {
        "generation": gen,
        "session_id": SESSION,
        "store_format": "mistral.vibe.unified-session-store/v1",
        "store_format_minor": 9,
    }
    for name, doc in (
        (os.path.join("generations", gen, "manifest.json"), manifest),
        (os.path.join("generations", gen, "projection-state.json"), state),
        ("CURRENT", current),
    ):
        with open(os.path.join(root, name), "w") as fh:
            json.dump(doc, fh)
    return root


if __name__ == "__main__":
    print(build(sys.argv[2], int(sys.argv[1])))
