"""trace_ingest.config: the one reader and validator of config.json, every section."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trace_ingest.config import DEFAULTS, check_config, load_config, user_section
from trace_ingest.errors import ConfigError
from trace_ingest.scrub import load_scrubber


def write(home: Path, data: object) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.json").write_text(json.dumps(data))


def test_no_file_is_every_default(trail_home: Path) -> None:
    config, problems = check_config(str(trail_home))
    assert (config, problems) == (DEFAULTS, [])
    assert config["eval"]["idle_gap_seconds"] == 300.0  # every default lives here


def test_a_broken_scrub_section_is_one_more_problem_and_falls_back(trail_home: Path) -> None:
    write(trail_home, {"scrub": {"extra_patterns": "oops"}, "eval": {"min_coverage": 2}})
    config, problems = check_config(str(trail_home))
    assert len(problems) == 2
    assert any("eval.min_coverage" in p for p in problems)
    assert any("extra_patterns must be a list" in p and "built-in rules" in p for p in problems)
    assert config["scrub"] == DEFAULTS["scrub"] and config["eval"]["min_coverage"] == 0.5
    # The hook skips the whole-section check (load_scrubber parses the section once) ...
    hook_config, hook_problems = check_config(str(trail_home), sections=False)
    assert len(hook_problems) == 1 and hook_config["scrub"] == {
        **DEFAULTS["scrub"],
        "extra_patterns": "oops",
    }
    # ... and a reader that must refuse still refuses, with the exact problem.
    with pytest.raises(ConfigError, match="extra_patterns"):
        load_scrubber(str(trail_home))


def test_a_valid_scrub_section_is_kept(trail_home: Path) -> None:
    scrub = {"extra_patterns": [{"id": "acme", "pattern": "ACME-[0-9]{6}"}], "pii": True}
    write(trail_home, {"scrub": scrub, "eval": {"idle_gap_seconds": 60}})
    config, problems = check_config(str(trail_home))
    assert problems == []
    assert config["scrub"]["extra_patterns"] == scrub["extra_patterns"]
    assert load_config(str(trail_home))["eval"] == {"min_coverage": 0.5, "idle_gap_seconds": 60}
    assert user_section(str(trail_home), "scrub") == scrub


def test_unreadable_files_raise(trail_home: Path) -> None:
    trail_home.mkdir(parents=True, exist_ok=True)
    (trail_home / "config.json").write_text("[1]")
    with pytest.raises(ConfigError, match="top level must be an object"):
        check_config(str(trail_home))
    with pytest.raises(ConfigError, match="top level"):
        user_section(str(trail_home), "scrub")
    (trail_home / "config.json").write_text("{nope")
    with pytest.raises(ConfigError):
        load_config(str(trail_home))
