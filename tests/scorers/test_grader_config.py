"""The one thresholds file: shipped unverified, seed file accepted, hash recorded, errors loud."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from scorers.grader_config import builtin_bytes, load_grader_config
from trace_ingest.errors import ConfigError


def test_builtin_is_unverified_and_every_value_an_assumption() -> None:
    cfg = load_grader_config(None)
    assert cfg.verified is False and cfg.source == "builtin"
    assert cfg.sha256 == hashlib.sha256(builtin_bytes()).hexdigest()
    text = builtin_bytes().decode()
    values = [
        ln
        for ln in text.splitlines()
        if ln.strip() and not ln.lstrip().startswith("#") and not ln.rstrip().endswith(":")
    ]
    assert values and all("# ASSUMPTION" in ln for ln in values)
    assert (cfg.retry_threshold, cfg.step_budget) == (2, 25)
    assert "force_push" in cfg.forbidden_tools and cfg.grounding_enabled


def test_seed_file_overlays_the_builtin(samples: Path) -> None:
    path = samples / "trace-grader" / "trace-grader.config.yaml"
    cfg = load_grader_config(str(path))
    assert cfg.verified is True
    assert cfg.must_precede == (("read", "edit"), ("read", "write"), ("plan", "act"))
    assert cfg.grounding_enabled  # the seed file has no grounding key: builtin value
    prov = cfg.provenance()
    assert prov["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert prov["builtin_sha256"] == hashlib.sha256(builtin_bytes()).hexdigest()


@pytest.mark.parametrize(
    "text",
    [
        "retry_threshold: -1\n",
        "forbidden_tools: force_push\n",
        "order_constraints: {must_precede: [[a]]}\n",
        "[1, 2]\n",
        "forbidden_commands: ['(']\n",
        "a: [\n",
    ],
)
def test_invalid_config_is_an_error(tmp_path: Path, text: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError):
        load_grader_config(str(path))


def test_invalid_config_on_the_cli_exits_1(tmp_path: Path, samples: Path) -> None:
    from tests.scorers.conftest import invoke

    path = tmp_path / "bad.yaml"
    path.write_text("retry_threshold: lots\n")
    res = invoke(
        "eval",
        "score",
        "--traces",
        str(samples / "trace-grader" / "trace-grader.fixtures.json"),
        "--config",
        str(path),
    )
    assert res.exit_code == 1 and "Error:" in res.output and "retry_threshold" in res.output
