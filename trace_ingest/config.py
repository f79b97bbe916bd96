"""User configuration: ``$TRAIL_HOME/config.json`` (optional). The one reader and validator.

Hot-path safe: standard library only. JSON rather than TOML because the hook reads it on every
call and ``tomllib`` costs more to import than the whole scrubber (see docs/configuration.md).

Every section is validated here, with one policy: a value that is not what it must be is
reported (``check_config``'s problem list, which the hook logs and ``trail doctor`` shows) and
replaced by its default, so a typo degrades one setting, never capture as a whole. Every
default lives in ``DEFAULTS``.

- A setting is a ``DEFAULTS`` entry plus a ``_RULES`` entry ``(section, key) -> (check, what it
  must be)``. A new section (``serve``: port; ``otel``: endpoint) is new entries in those two
  tables, nothing else, as ``judge``'s are.
- A section validated as a whole is a ``_SECTIONS`` entry (``scrub``: its rules are parsed by
  ``trace_ingest.scrub.parse_config``; an invalid section falls back to the built-in rules).
"""

from __future__ import annotations

from trace_ingest import _os as os  # os without its import cost (see _os)
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
    # idle_gap_seconds: a pause longer than this between two events is an L0 idle gap.
    "eval": {"min_coverage": 0.5, "idle_gap_seconds": 300.0},
    # L2's judge (scorers.judge): no model by default, so nothing calls a provider unasked.
    "judge": {
        "max_input_tokens": 32_000,
        "max_field_chars": 4_000,
        "min_balanced_accuracy": 0.8,
        "timeout_seconds": 180,
    },
    # trail export otlp (telemetry/otlp, docs/export.md); flags override each key.
    "export": {"otlp": {}},
}

# export.otlp key -> (check, what it must be); validated as a whole by _check_export.
EXPORT_OTLP_RULES: dict[str, tuple[Any, str]] = {
    "endpoint": (
        lambda v: isinstance(v, str) and bool(v.strip()),
        "a collector URL (http://host:4318/v1/traces, or host:4317 for grpc)",
    ),
    "protocol": (lambda v: v in ("http/protobuf", "grpc"), "'http/protobuf' or 'grpc'"),
    "headers": (
        lambda v: isinstance(v, dict) and all(isinstance(x, str) for x in v.values()),
        "an object of header name -> string value",
    ),
    "timeout_seconds": (lambda v: _is_number(v) and 0 < v <= 600, "a number > 0 and <= 600"),
    "retries": (lambda v: _is_int(v) and 0 <= v <= 20, "an integer from 0 to 20"),
    "backoff_seconds": (lambda v: _is_number(v) and 0 <= v <= 60, "a number from 0 to 60"),
    "batch_spans": (lambda v: _is_int(v) and 1 <= v <= 100_000, "an integer from 1 to 100000"),
    "include_content": (lambda v: isinstance(v, bool), "true or false"),
    "max_content_chars": (
        lambda v: _is_int(v) and 16 <= v <= 1_000_000,
        "an integer from 16 to 1000000",
    ),
}


MAX_FIELD_CHARS = 16 << 20  # 16 Mi characters
MAX_PAYLOAD_BYTES = 256 << 20  # 256 MiB: the hook reads at most this much into memory
MAX_CONFIG_BYTES = 1 << 20  # config.json itself

# key -> (check, what it must be). A value failing its check falls back to its default.
_RULES: dict[tuple[str, str], tuple[Any, str]] = {
    ("capture", "max_field_chars"): (
        lambda v: _is_int(v) and 256 <= v <= MAX_FIELD_CHARS,
        f"an integer from 256 to {MAX_FIELD_CHARS}",
    ),
    ("capture", "max_payload_bytes"): (
        lambda v: _is_int(v) and 1024 <= v <= MAX_PAYLOAD_BYTES,
        f"an integer from 1024 to {MAX_PAYLOAD_BYTES}",
    ),
    ("lifecycle", "idle_minutes"): (
        lambda v: _is_number(v) and 0 < v <= 525_600,
        "a number > 0 and at most 525600 (a year)",
    ),
    ("eval", "min_coverage"): (lambda v: _is_number(v) and 0 <= v <= 1, "a number from 0 to 1"),
    ("eval", "idle_gap_seconds"): (
        lambda v: _is_number(v) and 0 < v <= 31_536_000,
        "a number > 0 and at most 31536000 (a year)",
    ),
    ("judge", "model"): (
        lambda v: isinstance(v, str) and bool(v.strip()),
        "an llm model id or alias, or replay:FILE",
    ),
    ("judge", "record_to"): (
        lambda v: isinstance(v, str) and bool(v.strip()),
        "a file path (a replay file every live answer is appended to)",
    ),
    ("judge", "max_input_tokens"): (
        lambda v: _is_int(v) and 1_000 <= v <= 2_000_000,
        "an integer from 1000 to 2000000",
    ),
    ("judge", "max_field_chars"): (
        lambda v: _is_int(v) and 64 <= v <= 1_000_000,
        "an integer from 64 to 1000000",
    ),
    ("judge", "min_balanced_accuracy"): (
        lambda v: _is_number(v) and 0 <= v <= 1,
        "a number from 0 to 1",
    ),
    ("judge", "timeout_seconds"): (
        lambda v: _is_number(v) and 1 <= v <= 3600,
        "a number of seconds from 1 to 3600",
    ),
    ("judge", "prices"): (
        lambda v: (
            isinstance(v, dict)
            and all(
                isinstance(p, dict)
                and all(
                    _is_number(p.get(k)) and p[k] >= 0
                    for k in ("input_per_mtok", "output_per_mtok")
                )
                for p in v.values()
            )
        ),
        "an object: model -> {input_per_mtok, output_per_mtok} (US dollars per million tokens)",
    ),
}


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    """A finite int or float (config.json may spell NaN, Infinity or 1e999)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return value - value == 0


def read_config_text(path: str) -> str:
    """The text of ``config.json``: a regular file of at most ``MAX_CONFIG_BYTES`` (a path
    pointing at ``/dev/zero`` or a FIFO raises OSError instead of reading forever).

    The file may be a symlink (a dotfiles checkout, say): trail only reads it.
    """
    import stat

    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(f"{path} is not a regular file")
        data = os.read(fd, MAX_CONFIG_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > MAX_CONFIG_BYTES:
        raise OSError(f"{path} is larger than {MAX_CONFIG_BYTES} bytes")
    return data.decode("utf-8-sig")


def _check_scrub(section: Any) -> str | None:
    """Why the ``scrub`` section cannot be used (None: it can)."""
    from trace_ingest.scrub import parse_config

    try:
        parse_config(section)
    except ConfigError as exc:
        return f"{exc}; scrubbing with the built-in rules only"
    return None


def _check_export(section: Any) -> str | None:
    """Why the ``export`` section cannot be used (None: it can). Header values are never
    quoted: they may carry keys."""
    otlp = section.get("otlp", {})
    if not isinstance(otlp, dict):
        return "export.otlp must be an object; using the defaults"
    for key, value in otlp.items():
        rule = EXPORT_OTLP_RULES.get(key)
        if rule is None:
            return f"export.otlp.{key} is not a setting; using the defaults"
        ok, what = rule
        if not ok(value):
            shown = "(value not shown)" if key == "headers" else repr(value)
            return f"export.otlp.{key} must be {what}, not {shown}; using the defaults"
    return None


# section -> check of the whole section: (why it cannot be used) or None. On a problem the
# section falls back to its defaults.
_SECTIONS: dict[str, Any] = {"scrub": _check_scrub, "export": _check_export}


def read_user_config(home: str) -> dict[str, Any]:
    """The user's ``config.json`` as written ({} when there is none), without defaults or
    validation. Raises ConfigError when the file cannot be read or is not a JSON object."""
    path = config_path(home)
    try:
        user = fastjson.loads(read_config_text(path))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{path}: {exc}") from exc
    if not isinstance(user, dict):
        raise ConfigError(f"{path}: the top level must be an object")
    return user


def user_section(home: str, section: str) -> Any:
    """One section of the user's ``config.json`` as written (None when absent): for a reader
    that validates it itself and must refuse, not fall back (``trail scrub``, importers)."""
    return read_user_config(home).get(section)


def load_config(home: str) -> dict[str, Any]:
    """Defaults overlaid with ``config.json`` (bad values replaced by their defaults).

    Raises ConfigError when the file is not a JSON object; use ``check_config`` to learn
    which values were replaced.
    """
    return check_config(home)[0]


def check_config(home: str, sections: bool = True) -> tuple[dict[str, Any], list[str]]:
    """``(config, problems)``: every value that is not what it must be is reported and
    replaced by its default, so a typo degrades one setting, never capture as a whole.

    ``sections=False`` skips the whole-section checks (``_SECTIONS``): the hook passes the
    ``scrub`` section straight to ``scrub.load_scrubber``, which parses it exactly once and
    logs the same problem, so the hot path does not parse the rules twice.
    """
    merged = {section: dict(values) for section, values in DEFAULTS.items()}
    path = config_path(home)
    if not os.path.exists(path):
        return merged, []
    user = read_user_config(home)
    problems = []
    for section, values in user.items():
        if not isinstance(values, dict):
            problems.append(f"{section} must be an object; using the defaults")
            continue
        merged.setdefault(section, {}).update(values)
    for (section, key), (ok, what) in _RULES.items():
        value = merged.get(section, {}).get(key, DEFAULTS.get(section, {}).get(key))
        if value is not None and not ok(value):
            problems.append(f"{section}.{key} must be {what}, not {value!r}; using the default")
            merged[section][key] = DEFAULTS[section].get(key)
            if merged[section][key] is None:
                del merged[section][key]
    for section, check in _SECTIONS.items() if sections else ():
        if section in user and isinstance(user[section], dict):
            why = check(user[section])
            if why is not None:
                problems.append(why)
                merged[section] = dict(DEFAULTS.get(section, {}))
    return merged, problems
