"""orjson on the import path (trace_ingest.importers.orjson_exact): its answer, when it gives
one, is exactly the standard-library path's; everything else is left to that path."""

from __future__ import annotations

import random
import struct
from pathlib import Path
from typing import Any

import pytest

from trace_ingest import fastjson
from trace_ingest.importers import orjson_exact


def typed(value: Any) -> Any:
    """``value`` with every scalar paired with its type: 1, 1.0 and True compare unequal."""
    if isinstance(value, dict):
        return {k: typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [typed(v) for v in value]
    return (type(value).__name__, value)


def strict(data: bytes) -> Any:
    return fastjson.loads_strict(data.decode("utf-8"))[0]


# Lines where orjson and the strict parser part ways: orjson must step aside.
LEFT_TO_STRICT = [
    b'{"n": NaN}',
    b'{"n": -Infinity}',
    b'{"n": 1e999}',
    b'{"n": 18446744073709551616}',  # 2**64: orjson reads a float, strict keeps the text
    b'{"n": -9223372036854775809}',
    b'{"n": [123456789012345678901234567890]}',
    b'{"s": "\\ud800"}',  # a lone surrogate escape
    b'{"s": "\\udc00\\ud800"}',
    b"[" * orjson_exact.MAX_DEPTH + b"]" * orjson_exact.MAX_DEPTH,
    b'{"a":' * 600 + b"1" + b"}" * 600,
    b"\xef\xbb\xbf{}",
    b"\xff{}",
    b'{"s": "\xed\xa0\x80"}',
    b'{"a": 1',
    b"",
    b"   \n",
    b"null",
]
# Lines orjson reads exactly as the strict parser does.
SAME = [
    b'{"type": "user", "n": 1, "f": 1.5, "e": 1e-05, "z": -0.0, "i": -0}\n',
    b'{"n": 18446744073709551615, "m": -9223372036854775808}',
    b'{"n": 1e18, "tiny": 1e-400, "x": 12345678901234567.0, "y": -9.2e18}',
    # Floats written as floats, however large, are read alike: only an integer literal of 19
    # digits or more can become a float that the strict parser keeps as text.
    b'{"n": 1e308, "m": -1.5E+300, "k": 9.3e18}',
    # What the byte pre-check sends to the walk, read alike there: 19 digits and 400
    # brackets inside strings, a 19-digit integer in range.
    b'{"s": "1234567890123456789", "b": "' + b"[" * orjson_exact.MAX_DEPTH + b'"}',
    b'{"n": 1234567890123456789, "f": 1234567890123456789.5}',
    b'{"a": 1, "b": 2, "a": 3}',
    b'{"s": "\\u0000\\t\\"\\\\ \\ud83d\\ude00 \xc3\xa9 \xe2\x80\xa8"}',
    b"[" * (orjson_exact.MAX_DEPTH - 1) + b"]" * (orjson_exact.MAX_DEPTH - 1),
    b' {"type": "x"} \r\n',
    b'[1, true, false, null, "x"]',
    b'"just a string"',
    b"3",
]


@pytest.mark.parametrize("data", LEFT_TO_STRICT)
def test_orjson_steps_aside_where_it_would_differ(data: bytes) -> None:
    assert orjson_exact.loads(data) is None


@pytest.mark.parametrize("data", SAME)
def test_orjson_reads_what_the_strict_parser_reads(data: bytes) -> None:
    value = orjson_exact.loads(data)
    assert value is not None
    assert typed(value) == typed(strict(data))


def test_every_sample_line_reads_the_same_either_way(samples: Path) -> None:
    read = 0
    for path in sorted(samples.rglob("*.jsonl")):
        for line in path.read_bytes().splitlines():
            value = orjson_exact.loads(line)
            if value is None:
                continue
            read += 1
            assert typed(value) == typed(strict(line)), (path, line[:200])
    assert read > 900


def test_random_floats_read_the_same() -> None:
    rng = random.Random(7)
    for _ in range(20_000):
        value = struct.unpack("d", rng.randbytes(8))[0]
        text = repr(value).encode()
        got = orjson_exact.loads(b"[" + text + b"]")
        if value != value or value in (float("inf"), float("-inf")):
            assert got is None
        elif got is not None:
            assert repr(got[0]) == repr(strict(b"[" + text + b"]")[0])


PLAIN = [
    {},
    [],
    {"v": 1, "id": "ab", "text": 'é \u2028 \x00\x1f\x7f "q" \\ 😀', "n": None, "ok": True},
    {"big": (1 << 64) - 1, "small": -(1 << 63), "nested": [[{"a": [False, 0]}]]},
    {"s": "".join(chr(c) for c in range(0x20)) + "".join(chr(c) for c in range(0x7F, 0xA1))},
    "text",
    7,
    {"f": 1.5, "z": [0.0, -0.0], "d": {"deep": [1.0, 1e-4, -9999999999999998.0, 0.1]}},
    123456.789,
]
NOT_PLAIN = [
    {"f": 1e-05},
    {"f": [float("nan")]},
    {"f": float("inf")},
    {"f": -1e16},
    {"f": [0.0, 1e-4, 5e-324]},
    {"t": (1, 2)},
    {"b": b"x"},
    {1: "int key"},
    {"n": 1 << 64},
    {"n": -(1 << 63) - 1},
    {"s": "\ud800"},
    {"d": {"deep": [1e300]}},
    9.9e-5,
]


@pytest.mark.parametrize("value", PLAIN)
def test_plain_values_serialize_byte_for_byte(value: Any) -> None:
    assert orjson_exact.dumps(value) == fastjson.dumps(value).encode("utf-8")


@pytest.mark.parametrize("value", NOT_PLAIN)
def test_other_values_are_left_to_the_standard_library(value: Any) -> None:
    assert orjson_exact.dumps(value) is None


def test_random_text_serializes_byte_for_byte() -> None:
    rng = random.Random(11)
    for _ in range(2000):
        text = "".join(
            chr(rng.choice([rng.randrange(0x80), rng.randrange(0xD800), rng.randrange(0x10FFFF)]))
            for _ in range(rng.randrange(40))
        )
        want = fastjson.dumps({"t": text})
        got = orjson_exact.dumps({"t": text})
        if any(0xD800 <= ord(c) < 0xE000 for c in text):
            assert got is None  # a surrogate: the standard library writes it (then replaced)
        else:
            assert got == want.encode("utf-8")


def test_floats_plain_exactly_where_both_write_them_alike() -> None:
    """A float is plain (``orjson_exact.plain``) exactly where orjson writes it as the
    standard library does: 0.0 and magnitudes in [1e-4, 1e16), checked on random bit patterns,
    random magnitudes and the neighbours of each bound."""
    import math

    import orjson

    rng = random.Random(12)
    values = [struct.unpack("d", struct.pack("Q", rng.getrandbits(64)))[0] for _ in range(20000)]
    values += [rng.choice((1, -1)) * 10 ** rng.uniform(-6, 18) for _ in range(100000)]
    for bound in (1e-4, 1e16, 1e15, 1.0):
        up = down = bound
        for _ in range(300):
            values += [up, -up, down, -down]
            up, down = math.nextafter(up, math.inf), math.nextafter(down, 0.0)
    values += [0.0, -0.0, float("nan"), float("inf"), -float("inf"), 5e-324]
    alike = 0
    for x in values:
        plain = orjson_exact.plain(x)
        assert plain == (x == 0.0 or 1e-4 <= abs(x) < 1e16)
        if plain:
            assert orjson.dumps(x) == repr(x).encode()
            assert orjson_exact.dumps([x]) == fastjson.dumps([x]).encode()
        alike += plain
    assert alike > len(values) // 2
