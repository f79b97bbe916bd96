"""Helpers for the L2 judge tests: sessions written as calibration-style specs, llm isolated in a
scratch LLM_USER_PATH (no key or alias of the developer's can leak in)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from scorers.l2.calibration_set import Case, expand, load_set


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
