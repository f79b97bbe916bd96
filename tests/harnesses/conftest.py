"""Fixtures of the real-harness rig: the pinned Claude Code, and each scenario's runs (3 each)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.harnesses import install
from tests.harnesses.rig import RunResult, Scenario, run, trail
from tests.harnesses.scenarios import SCENARIOS
from tests.harnesses.truth import Truth, derive, hook_trace

ATTEMPTS = 3  # async hooks are nondeterministic: every scenario runs this many times in a row


@dataclass
class Checked:
    """One run plus everything the tests compare: truth, raw hooks, and trail's views."""

    scenario: Scenario
    attempt: int
    result: RunResult
    truth: Truth
    raw_hooks: list[dict[str, Any]]  # trace.jsonl hook lines, read before any sync
    show: Any
    score: Any
    score_exit: int

    @property
    def label(self) -> str:
        return f"{self.scenario.name}#{self.attempt} ({self.result.paths.root})"


def harness_binary(harness: str) -> Path:
    """The pinned real program of ``harness``, installed if needed; a missing prerequisite
    fails the test loudly, saying what to install (never a skip)."""
    try:
        return install.ensure(harness)
    except install.HarnessUnavailable as exc:
        pytest.fail(f"real-harness rig cannot run: {exc}", pytrace=False)


@pytest.fixture(scope="session")
def claude_binary() -> Path:
    return harness_binary("claude-code")


@pytest.fixture(scope="session")
def rig_run(
    claude_binary: Path, tmp_path_factory: pytest.TempPathFactory
) -> Callable[[str, int], Checked]:
    """``rig_run(name, attempt)``: that run, done once per test session and then shared."""
    base = tmp_path_factory.mktemp("rig")
    done: dict[tuple[str, int], Checked] = {}

    def get(name: str, attempt: int) -> Checked:
        key = (name, attempt)
        if key not in done:
            scenario = SCENARIOS[name]
            result = run(scenario, base / f"{name}-{attempt}", claude_binary)
            sid = result.session_id
            assert sid, f"{name}#{attempt}: no session id in claude's stream-json output"
            raw = [e for e in hook_trace(result.paths.trail_home, sid) if e["source"] == "hook"]
            truth = derive(result.paths.home, sid)
            trail(result.paths, "sync", "--json")
            show = json.loads(trail(result.paths, "show", sid, "--json").stdout)
            scored = trail(
                result.paths,
                "eval",
                "score",
                "--session",
                sid,
                "--json",
                "--no-ledger",
                check=False,
            )
            try:
                score = json.loads(scored.stdout)
            except ValueError:
                score = {"unparsed": scored.stdout, "stderr": scored.stderr}
            done[key] = Checked(
                scenario, attempt, result, truth, raw, show, score, scored.returncode
            )
        return done[key]

    return get
