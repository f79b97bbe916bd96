"""Helpers for the L2 judge tests: sessions written as calibration-style specs, llm isolated in a
scratch LLM_USER_PATH (no key or alias of the developer's can leak in)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from scorers.judge.calibration_set import Case, expand, load_set


@pytest.fixture(autouse=True)
def llm_user_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    path = tmp_path / "llm-user"
    path.mkdir()
    monkeypatch.setenv("LLM_USER_PATH", str(path))
    for var in ("OPENAI_API_KEY", "LLM_OPENAI_SHOW_RESPONSES", "TRAIL_REPLAY_FILE"):
        monkeypatch.delenv(var, raising=False)
    yield path


def case(spec: dict[str, Any]) -> Case:
    """A session from a calibration-style spec (defaults for the bookkeeping fields)."""
    full = {"expected": {"guides": {}, "actions": {}}, **spec}
    if not full["expected"]["guides"]:
        full["expected"] = {
            "guides": {g["key"]: "not_applicable" for g in spec["guides"]},
            "actions": {},
        }
    return expand(full)


def builtin(case_id: str) -> Case:
    cases, _ = load_set()
    return next(c for c in cases if c.id == case_id)


PNPM = {"key": "AGENTS.md", "text": "Use pnpm for every package operation. Never run npm."}


def store_case(home: Path, c: Case, *, project: str = "/proj") -> str:
    """Write case ``c`` as a recorded session (its trace file, stamped a minute ago, closed by
    its session end), each guide's load event carrying the guide's text as adapters record it.
    Rule guides must be loaded by a step (``loaded_by``), as in a real session. Returns the
    session key."""
    import time

    from trace_ingest.events import now_iso, to_line
    from trace_ingest.paths import session_key, trace_path
    from trace_ingest.store import append_lines

    key, _ = session_key(c.id)
    texts = {g.loaded_at: g.text for g in c.guides}
    assert all(g.loaded_at > 0 for g in c.guides), "stored guides need a load event"
    start = time.time_ns() - 60 * 10**9
    lines = []
    for n, ev in enumerate(c.events, start=1):
        stored = {k: v for k, v in ev.items() if k != "provenance"}
        stored["ts"] = stored["received_at"] = now_iso(start + n * 10**6)
        stored["cwd"] = project
        if n in texts:
            stored["text"] = texts[n]
        lines.append(to_line(stored))
    append_lines(trace_path(str(home), "claude-code", key), "".join(lines))
    return key
