"""Loading the L1 trace-grader thresholds: one YAML file, its sha256 recorded with every grade.

The built-in file is ``scorers/data/trace-grader.yaml`` (``verified: false``, every value an
``# ASSUMPTION``), used when no file is given. A file given with ``--config`` governs alone
(seed 001 RULE-01: the config file is the only place rule parameters live): it is *not* merged
with the built-in file. Keys it omits take seed 001's engine defaults (``SEED_DEFAULTS``:
no forbidden tools, ``retry_threshold`` 3, ``step_budget`` 40, no ``must_precede`` pairs,
grounding on, judge off, ``verified: false``), and trail's additions their neutral values
(no ``forbidden_commands``; ``weights`` high 3, medium 2, low 1).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import yaml

from trace_ingest.errors import ConfigError

BUILTIN_NAME = "trace-grader.yaml"
# Seed 001's engine defaults (trace-grader.py DEFAULT_CONFIG), for keys a given file omits,
# plus trail's additions at their neutral values.
SEED_DEFAULTS: dict[str, Any] = {
    "verified": False,
    "forbidden_tools": [],
    "retry_threshold": 3,
    "step_budget": 40,
    "order_constraints": {"must_precede": []},
    "grounding": {"enabled": True},
    "judge": {"enabled": False, "model": None, "rubric": []},
    "forbidden_commands": [],
    "weights": {"high": 3, "medium": 2, "low": 1},
}
SEVERITIES = ("high", "medium", "low")


@dataclass(frozen=True)
class GraderConfig:
    forbidden_tools: frozenset[str]
    forbidden_commands: tuple[re.Pattern[str], ...]
    retry_threshold: int
    step_budget: int
    must_precede: tuple[tuple[str, str], ...]
    grounding_enabled: bool
    weights: dict[str, float]
    judge_enabled: bool
    verified: bool
    source: str  # the file given, or "builtin"
    sha256: str  # of the given file's bytes (the built-in file's when none was given)
    builtin_sha256: str
    raw: dict[str, Any] = field(default_factory=dict)

    def weight(self, severity: str) -> float:
        return float(self.weights.get(severity, 1.0))

    def provenance(self) -> dict[str, Any]:
        """What a grade records about the thresholds it used."""
        out: dict[str, Any] = {
            "source": self.source,
            "sha256": self.sha256,
            "verified": self.verified,
        }
        if self.source != "builtin":
            out["builtin_sha256"] = self.builtin_sha256
        return out


def builtin_bytes() -> bytes:
    return resources.files("scorers").joinpath("data", BUILTIN_NAME).read_bytes()


def _parse(data: bytes, where: str) -> dict[str, Any]:
    try:
        loaded = yaml.safe_load(data.decode("utf-8")) or {}
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{where}: not valid YAML: {exc}") from exc
    if not isinstance(loaded, dict):
        raise ConfigError(f"{where}: the top level must be a mapping")
    return loaded


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = {**out[key], **value}
        else:
            out[key] = value
    return out


def _str_list(value: Any, key: str, where: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: {key} must be a list of strings")
    return list(value)


def _int(value: Any, key: str, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigError(f"{where}: {key} must be a non-negative integer, not {value!r}")
    return value


def load_grader_config(path: str | None = None) -> GraderConfig:
    """The effective thresholds; raises ConfigError on an unreadable or invalid file."""
    base_bytes = builtin_bytes()
    builtin_sha = hashlib.sha256(base_bytes).hexdigest()
    merged = _parse(base_bytes, "builtin " + BUILTIN_NAME)
    source, sha, verified = "builtin", builtin_sha, bool(merged.get("verified") is True)
    if path:
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError as exc:
            raise ConfigError(f"cannot read config {path}: {exc}") from exc
        user = _parse(data, path)
        merged = _merge(SEED_DEFAULTS, user)
        source, sha = path, hashlib.sha256(data).hexdigest()
        verified = user.get("verified") is True
    where = source
    order = merged.get("order_constraints") or {}
    if not isinstance(order, dict):
        raise ConfigError(f"{where}: order_constraints must be a mapping")
    pairs: list[tuple[str, str]] = []
    for pair in order.get("must_precede") or []:
        if (
            not isinstance(pair, list | tuple)
            or len(pair) != 2
            or not all(isinstance(p, str) for p in pair)
        ):
            raise ConfigError(f"{where}: must_precede entries must be [before, after] pairs")
        pairs.append((pair[0], pair[1]))
    patterns = []
    for text in _str_list(merged.get("forbidden_commands"), "forbidden_commands", where):
        try:
            patterns.append(re.compile(text))
        except re.error as exc:
            raise ConfigError(f"{where}: forbidden_commands {text!r}: {exc}") from exc
    weights_raw = merged.get("weights") or {}
    if not isinstance(weights_raw, dict):
        raise ConfigError(f"{where}: weights must be a mapping")
    weights = {s: float(weights_raw.get(s, 1.0)) for s in SEVERITIES}
    grounding = merged.get("grounding")
    grounding = grounding if isinstance(grounding, dict) else {}
    judge = merged.get("judge") or {}
    return GraderConfig(
        forbidden_tools=frozenset(
            _str_list(merged.get("forbidden_tools"), "forbidden_tools", where)
        ),
        forbidden_commands=tuple(patterns),
        retry_threshold=_int(merged.get("retry_threshold", 3), "retry_threshold", where),
        step_budget=_int(merged.get("step_budget", 40), "step_budget", where),
        must_precede=tuple(pairs),
        grounding_enabled=bool(grounding.get("enabled", True)),
        weights=weights,
        judge_enabled=bool(isinstance(judge, dict) and judge.get("enabled")),
        verified=verified,
        source=source,
        sha256=sha,
        builtin_sha256=builtin_sha,
        raw=merged,
    )
