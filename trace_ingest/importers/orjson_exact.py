"""orjson on the import path, only where it gives exactly what the standard-library path gives.

The importers parse every line and serialize every event. The standard-library path
(``fastjson.loads_strict``, ``events.to_line``) defines what trail reads and writes; orjson is
about 2x faster to parse and 5x faster to serialize, but differs at the edges. Each function
here returns orjson's result only when it is provably the same, and ``None`` otherwise, so the
caller takes the standard-library path for that one line or event:

- **parsing** (``loads``): orjson refuses NaN/Infinity, ``1e999``, lone surrogate escapes and
  nesting past 1,024 levels (the strict parser keeps the first three as text, and gives up
  at the interpreter's recursion limit); it reads an integer outside -2**63..2**64-1 as a float
  (the strict parser keeps its text). So a line orjson refuses, one whose value holds a float
  at least 2**63 in size (what such an integer becomes), or one nested ``MAX_DEPTH`` levels or
  more, goes the strict way.
- **serializing** (``dumps``): orjson formats some floats differently (``1e-05`` is
  ``0.00001``), writes NaN as ``null``, serializes datetimes, enums, dataclasses and tuples
  natively and refuses integers past 64 bits, surrogates and non-string keys. Only a *plain*
  value is serialized by orjson: dicts with string keys, lists, strings, integers, booleans and
  ``None`` (exact types, no floats); for those the bytes are identical to
  ``fastjson.dumps(value, ensure_ascii=False)`` encoded as UTF-8
  (tests/trace_ingest/test_orjson_exact.py checks both directions).
"""

from __future__ import annotations

from typing import Any

import orjson

# Nesting at which the strict parser could run out of recursion where orjson does not (its own
# limit is 1,024; the strict parser's is the interpreter's, 1,000 minus the caller's stack).
MAX_DEPTH = 400
_BIG = float(1 << 63)  # an out-of-range integer literal becomes a float at least this large
_DIGIT = bytes(48 <= b <= 57 for b in range(256))  # translate: ASCII digits to 1, the rest 0
_BIG_RUN = b"\x01" * len(str(1 << 63))  # the digits of the shortest integer past -2**63..


def loads(data: bytes) -> Any:
    """The JSON value of ``data`` exactly as ``fastjson.loads_strict(data.decode())`` reads it,
    or ``None`` when only the strict path can tell (including every error)."""
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        return None
    return exact(value, data)


def shallow(data: bytes) -> bool:
    """Whether ``data`` holds fewer brackets than ``MAX_DEPTH`` levels: then, where orjson
    parses it, the strict parser parses it too (no recursion limit to hit), to the same value
    but perhaps for numbers (``exact``)."""
    return data.count(b"[") + data.count(b"{") < MAX_DEPTH


def exact(value: Any, data: bytes) -> Any:
    """``value``, what ``orjson.loads(data)`` returned, when it is exactly the strict parser's
    value of ``data``; else ``None`` (``loads``)."""
    if shallow(data) and _BIG_RUN not in data.translate(_DIGIT):
        # Fewer brackets than MAX_DEPTH levels, and no run of 19 digits (2**63 has 19): no
        # integer literal out of range, so no float at least _BIG in size but one written as
        # a float, which both parsers read alike. Two byte passes instead of the walk below.
        return value
    if type(value) is dict or type(value) is list:
        level: list[Any] = [value]
        depth = 0
        while level:
            depth += 1
            if depth >= MAX_DEPTH:
                return None
            below: list[Any] = []
            for node in level:
                for item in node.values() if type(node) is dict else node:
                    kind = type(item)
                    if kind is dict or kind is list:
                        below.append(item)
                    elif kind is float and (item >= _BIG or item <= -_BIG):
                        return None
            level = below
    elif type(value) is float and (value >= _BIG or value <= -_BIG):
        return None
    return value


def plain(value: Any) -> bool:
    """Whether ``value`` holds only dicts, lists, strings, integers, booleans, ``None`` and
    floats that both write in positional notation (exact types; orjson itself refuses a
    non-string key and an integer past 64 bits): what orjson serializes byte for byte as
    ``fastjson.dumps`` does.

    Both write a float's shortest round-trip digits; ``repr`` switches to an exponent below
    1e-4 and from 1e16 on (``1e-05``, ``1e+16``), orjson elsewhere (``0.00001``), so only 0.0
    and magnitudes in [1e-4, 1e16) are plain (a test compares millions of them). NaN and the
    infinities are not (orjson writes ``null``)."""
    kind = type(value)
    if kind is not dict and kind is not list:
        return (
            kind is str
            or kind is int
            or kind is bool
            or value is None
            or (kind is float and (value == 0.0 or _FLOAT_LOW <= abs(value) < _FLOAT_HIGH))
        )
    stack: list[Any] = [value]
    while stack:
        node = stack.pop()
        for item in node.values() if type(node) is dict else node:
            kind = type(item)
            if kind is str or kind is int or kind is bool or item is None:
                continue
            if kind is dict or kind is list:
                stack.append(item)
            elif kind is not float or not (item == 0.0 or _FLOAT_LOW <= abs(item) < _FLOAT_HIGH):
                return False
    return True


# floats whose repr has no exponent (besides 0.0): orjson writes them alike (``plain``)
_FLOAT_LOW = 1e-4
_FLOAT_HIGH = 1e16


def dumps(value: Any) -> bytes | None:
    """``fastjson.dumps(value).encode()`` (compact, non-ASCII kept) by orjson, or ``None`` when
    ``value`` is not plain or orjson refuses it (an integer past 64 bits, a surrogate)."""
    if not plain(value):
        return None
    try:
        return orjson.dumps(value)
    except TypeError:  # orjson.JSONEncodeError
        return None
