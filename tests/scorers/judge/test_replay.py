"""The replay model: a normal llm model (entry point), answering from recorded responses,
deterministically; recording a judge's answers and re-grading from them offline."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import llm
import pytest

from scorers.judge import replay
from scorers.judge.errors import (
    NetworkFailure,
    NoProvider,
    ProviderFailure,
    QuotaExceeded,
    ReplayMiss,
    UnparseableAnswer,
)
from scorers.judge.judge import judge_session
from scorers.judge.judge_input import build_input
from scorers.judge.provider import resolve
from tests.scorers.judge.conftest import builtin

LLM = str(Path(sys.executable).parent / "llm")


def write(path: Path, responses: list[dict[str, Any]]) -> str:
    path.write_text(json.dumps({"format": replay.FORMAT, "responses": responses}))
    return str(path)


def test_llm_lists_the_replay_model_from_trails_entry_point(llm_user_path: Path) -> None:
    env = {**os.environ, "LLM_USER_PATH": str(llm_user_path)}
    out = subprocess.run([LLM, "models"], capture_output=True, text=True, env=env, check=True)
    assert "trail-replay (aliases: replay)" in out.stdout


def test_the_llm_cli_can_prompt_the_replay_model_with_a_schema(
    tmp_path: Path, llm_user_path: Path
) -> None:
    book = write(tmp_path / "r.json", [{"default": True, "text": '{"ok": true}'}])
    env = {**os.environ, "LLM_USER_PATH": str(llm_user_path)}
    out = subprocess.run(
        [LLM, "-m", "replay", "-o", "file", book, "--schema", "ok bool", "-n", "anything"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    assert json.loads(out.stdout) == {"ok": True}


def test_replay_is_deterministic(tmp_path: Path) -> None:
    c = builtin("two-guides-mixed")
    book = write(tmp_path / "r.json", [{"session": c.session_key, "facts": c.answers["oracle"]}])
    judge = resolve(f"replay:{book}")
    first = judge_session(c.session_key, c.events, c.guides, judge).result().as_dict()
    second = judge_session(c.session_key, c.events, c.guides, judge).result().as_dict()
    for record in (first, second):
        record["judge"]["details"].pop("duration_ms")
    assert first == second
    assert first["verdict"] == "misaligned"
    assert first["judge"]["replayed"] is True
    assert first["judge"]["model"] == "replay:r.json"
    assert first["judge"]["costUsd"] is None  # a replay costs nothing and claims no price
    assert first["judge"]["inputTokens"] > 0


def test_match_order_input_hash_then_session_then_default(tmp_path: Path) -> None:
    c = builtin("npm-violation")
    inp = build_input(c.session_key, c.events, c.guides)
    wrong = {"findings": [], "guides_not_engaged": ["G1"]}
    book = write(
        tmp_path / "r.json",
        [
            {"default": True, "facts": wrong},
            {"session": c.session_key, "facts": wrong},
            {"input_sha256": inp.input_sha256, "facts": c.answers["oracle"]},
        ],
    )
    result = judge_session(c.session_key, c.events, c.guides, resolve(f"replay:{book}"))
    assert result.judgements.guide("G1").verdict == "misaligned"
    other = builtin("pnpm-followed")
    result = judge_session(other.session_key, other.events, other.guides, resolve(f"replay:{book}"))
    assert result.judgements.guide("G1").verdict == "not_applicable"  # the default answered


def test_no_recorded_answer_is_a_replay_miss(tmp_path: Path) -> None:
    c = builtin("npm-violation")
    book = write(tmp_path / "r.json", [{"session": "other/session", "facts": {}}])
    with pytest.raises(ReplayMiss, match="holds no response"):
        judge_session(c.session_key, c.events, c.guides, resolve(f"replay:{book}"))


def test_a_missing_replay_file_is_no_provider(tmp_path: Path) -> None:
    with pytest.raises(NoProvider, match="replay file not found"):
        resolve(f"replay:{tmp_path / 'nope.json'}")


@pytest.mark.parametrize(
    ("error", "raised"),
    [
        ("quota", QuotaExceeded),
        ("network", NetworkFailure),
        ("provider", ProviderFailure),
        ("no_provider", NoProvider),
    ],
)
def test_replayed_failures_are_the_named_errors(
    tmp_path: Path, error: str, raised: type[Exception]
) -> None:
    c = builtin("npm-violation")
    book = write(tmp_path / "r.json", [{"session": c.session_key, "error": error}])
    with pytest.raises(raised):
        judge_session(c.session_key, c.events, c.guides, resolve(f"replay:{book}"))


def test_a_replayed_text_answer_is_read_strictly(tmp_path: Path) -> None:
    c = builtin("npm-violation")
    book = write(tmp_path / "r.json", [{"session": c.session_key, "text": "looks fine"}])
    with pytest.raises(UnparseableAnswer):
        judge_session(c.session_key, c.events, c.guides, resolve(f"replay:{book}"))


def test_record_then_regrade_offline(tmp_path: Path) -> None:
    c = builtin("force-push")
    source = write(tmp_path / "live.json", [{"default": True, "facts": c.answers["oracle"]}])
    recorded = tmp_path / "recorded.json"
    live = judge_session(
        c.session_key, c.events, c.guides, resolve(f"replay:{source}"), record_to=str(recorded)
    )
    book = json.loads(recorded.read_text())
    [entry] = book["responses"]
    assert entry["input_sha256"] == live.input.input_sha256
    assert entry["session"] == c.session_key
    assert (recorded.stat().st_mode & 0o777) == 0o600
    again = judge_session(c.session_key, c.events, c.guides, resolve(f"replay:{recorded}"))
    assert again.result().as_dict()["guides"] == live.result().as_dict()["guides"]
    assert again.result().as_dict()["actions"] == live.result().as_dict()["actions"]


def test_replay_registers_itself_when_llm_skipped_entry_points() -> None:
    from scorers.judge.provider import PLUGIN_NAME, ensure_replay_plugin

    plugin = llm.plugins.pm.get_plugin(PLUGIN_NAME)
    if plugin is not None:
        llm.plugins.pm.unregister(plugin)
    assert "trail-replay" not in {m.model_id for m in llm.get_models()}
    ensure_replay_plugin()
    assert llm.get_model("replay").model_id == "trail-replay"


def test_the_shipped_replay_files_are_up_to_date() -> None:
    from tools.gen_l2_replay import JUDGES, text

    for judge in JUDGES:
        shipped = Path(replay.__file__).parent.parent / "data" / f"replay-calibration-{judge}.json"
        assert shipped.read_text(encoding="utf-8") == text(judge), (
            "run .venv/bin/python tools/gen_l2_replay.py"
        )


def test_a_session_may_be_named_by_its_id(tmp_path: Path) -> None:
    c = builtin("npm-violation")
    bare = c.session_key.split("/", 1)[1]
    book = write(tmp_path / "r.json", [{"session": bare, "facts": c.answers["oracle"]}])
    result = judge_session(c.session_key, c.events, c.guides, resolve(f"replay:{book}"))
    assert result.judgements.guide("G1").verdict == "misaligned"
