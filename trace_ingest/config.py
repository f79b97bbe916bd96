"""User configuration: ``$TRAIL_HOME/config.json`` (optional).

Hot-path safe: standard library only. JSON rather than TOML because the hook reads it on every
call and ``tomllib`` costs more to import than the whole scrubber (see docs/configuration.md).
"""

from __future__ import annotations

import os

from trace_ingest import fastjson
from trace_ingest.errors import ConfigError
from trace_ingest.paths import config_path

TYPE_CHECKING = False  # not `from typing import`: typing costs the hook ~5 ms
if TYPE_CHECKING:
    from typing import Any

DEFAULTS: dict[str, Any] = {
    "capture": {
        # A single string field longer than this is cut, with a marker saying how much.
        "max_field_chars": 65536,
        # A payload larger than this is not parsed; a stub event records its size.
        "max_payload_bytes": 16 * 1024 * 1024,
    },
    "lifecycle": {"idle_minutes": 30},
    "scrub": {"extra_patterns": [], "allow": [], "pii": False},
    "eval": {"min_coverage": 0.5},
}


def load_config(home: str) -> dict[str, Any]:
    """Defaults overlaid with ``config.json``; raises ConfigError when the file is invalid."""
    merged = {section: dict(values) for section, values in DEFAULTS.items()}
    path = config_path(home)
    if not os.path.exists(path):
        return merged
    try:
        with open(path, encoding="utf-8") as fh:
            user = fastjson.loads(fh.read())
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{path}: {exc}") from exc
    if not isinstance(user, dict):
        raise ConfigError(f"{path}: the top level must be an object")
    for section, values in user.items():
        if not isinstance(values, dict):
            raise ConfigError(f"{path}: section {section!r} must be an object")
        merged.setdefault(section, {}).update(values)
    return merged
