"""Regexes for the hot path without importing ``re``, through a per-interpreter code cache.

``import re`` costs a fresh CPython 3.11 process about 8 ms (it pulls in ``enum``,
``functools`` and ``collections``) — as much as the rest of the hook's own work — and
compiling a pattern costs another 0.1–0.4 ms. Both buy nothing the second time: a pattern
compiles to the same ``_sre`` program in every process of the same interpreter. So the first
process that needs a pattern compiles it with ``re`` and stores the program
(``$TRAIL_HOME/cache/regex-<implementation>-<version>-<sre magic>.marshal``, 0600); later
processes hand the stored program straight to ``_sre.compile``, the C constructor
``re.compile`` itself ends in, and never import ``re``.

Anything unexpected (another interpreter, a changed ``_sre`` signature, an unreadable or
foreign cache) falls back to plain ``re.compile``: the cache can only make things faster,
never different. Keys include the flags; values are exactly what ``re._compiler.compile``
passes to ``_sre.compile``.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from typing import Any

# re's flag values (re.RegexFlag), fixed since Python 2; spelled out so callers need no `re`.
IGNORECASE = 2
MULTILINE = 8
DOTALL = 16

try:
    import _sre  # type: ignore[import-not-found]

    _TAG = f"{sys.implementation.name}-{sys.version_info[0]}.{sys.version_info[1]}-{_sre.MAGIC}"
except ImportError:  # pragma: no cover - not CPython
    _sre = None
    _TAG = ""

_cache_path: str | None = None
_programs: dict[str, Any] | None = None
_compiled: dict[str, re.Pattern[str]] = {}


def use_cache(home: str) -> None:
    """Keep compiled programs under ``home/cache`` (the data dir)."""
    global _cache_path, _programs
    path = os.path.join(home, "cache", f"regex-{_TAG}.marshal") if _TAG else None
    if path != _cache_path:
        _cache_path, _programs = path, None


def compile(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, from the cache when the program is there."""
    key = f"{flags}\x00{pattern}"
    found = _compiled.get(key)
    if found is not None:
        return found
    rx = _from_cache(key, pattern) or _compile_and_store(key, pattern, flags)
    _compiled[key] = rx
    return rx


def _load() -> dict[str, Any]:
    global _programs
    if _programs is None:
        _programs = {}
        if _cache_path and os.path.exists(_cache_path):
            try:
                import marshal

                with open(_cache_path, "rb") as fh:
                    data = marshal.loads(fh.read())
                if isinstance(data, dict) and data.get("tag") == _TAG:
                    _programs = data["programs"]
            except Exception:  # a bad cache is a cold cache
                _programs = {}
    return _programs


def _from_cache(key: str, pattern: str) -> re.Pattern[str] | None:
    entry = _load().get(key) if _sre is not None else None
    if entry is None:
        return None
    try:
        flags, code, groups, groupindex, indexgroup = entry
        rx: re.Pattern[str] = _sre.compile(pattern, flags, code, groups, groupindex, indexgroup)
    except Exception:
        return None
    return rx


def _compile_and_store(key: str, pattern: str, flags: int) -> re.Pattern[str]:
    import re

    rx = re.compile(pattern, flags)
    if _cache_path and _sre is not None:
        try:
            _store(key, _program(pattern, flags, rx))
        except Exception:
            return rx  # caching is an optimisation only
    return rx


def _program(pattern: str, flags: int, rx: re.Pattern[str]) -> tuple[Any, ...]:
    """What ``re._compiler.compile`` passes to ``_sre.compile`` (CPython 3.11-3.13)."""
    from re import _compiler, _parser  # type: ignore[attr-defined]

    parsed = _parser.parse(pattern, flags)
    code = _compiler._code(parsed, flags)
    groupindex = dict(parsed.state.groupdict)
    indexgroup = [None] * parsed.state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    # Opcodes are int subclasses (re._constants._NamedIntConstant): store plain ints.
    entry = (
        int(flags | parsed.state.flags),
        [int(op) for op in code],
        parsed.state.groups - 1,
        groupindex,
        tuple(indexgroup),
    )
    # Only keep a program that rebuilds the very same pattern.
    check = _sre.compile(pattern, *entry)
    if check.flags != rx.flags or check.groups != rx.groups:
        raise ValueError("rebuilt pattern differs")
    return entry


def _store(key: str, entry: tuple[Any, ...]) -> None:
    import marshal

    assert _cache_path is not None
    folder = os.path.dirname(_cache_path)
    if not os.path.isdir(os.path.dirname(folder)):
        return  # never create a data dir just for the cache
    programs = dict(_load())
    programs[key] = entry
    from trace_ingest.paths import FILE_MODE, ensure_dir

    ensure_dir(folder)
    data = marshal.dumps({"tag": _TAG, "programs": programs})
    tmp = f"{_cache_path}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, _cache_path)  # atomic: concurrent hooks never see half a file
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    global _programs
    _programs = programs
