"""Finished events as trace lines (trace_ingest.importers.trace_lines): the importers' one-step
``finish_line`` writes exactly what ``to_line(finish(...))`` writes, whatever the event holds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.trace_ingest.scrub_corpus import corpus
from trace_ingest.capture import finish
from trace_ingest.events import new_event, to_line
from trace_ingest.importers.trace_lines import finish_line
from trace_ingest.paths import ensure_home
from trace_ingest.scrub import Scrubber, load_scrubber

LIMIT = 300


@pytest.fixture
def scrubber(trail_home: Path) -> Scrubber:
    return load_scrubber(ensure_home(str(trail_home)), bulk=True)


def event(n: int, **fields: Any) -> dict[str, Any]:
    ev: dict[str, Any] = dict(
        new_event(
            harness="claude-code",
            source="transcript",
            session_id="s-1",
            kind="tool_result",
            received_at="2026-01-01T00:00:00.000000Z",
            id_parts=(n,),
        )
    )
    ev.update(fields)
    return ev


def old_way(ev: dict[str, Any], scrubber: Scrubber, limit: int) -> tuple[bytes, Any, int]:
    out = finish(ev, scrubber, limit)
    line = to_line(out).encode("utf-8", "replace")
    return line, out.get("redactions", {}), len(out.get("truncated", {}))


def events() -> list[dict[str, Any]]:
    """Plain events and every kind the fast path must hand back: long fields, floats, NaN,
    big integers, tuples, bytes, non-string keys, surrogates, an empty body, secrets."""
    out = [
        event(1, text="hello", extra={"a": [1, None, True], "é": "\u2028"}),
        event(2, output="x" * (LIMIT - 150)),  # just within the limit as JSON
        event(3, output="x" * (LIMIT + 5)),  # one field over: bounded and cut
        event(4, output="y" * 10, extra={"deep": ["z" * (LIMIT * 3)]}),
        event(5, duration_ms=1e-05, extra={"cost": 0.1}),
        event(6, extra={"n": float("nan"), "i": float("inf")}),
        event(7, extra={"n": 1 << 70, "m": -(1 << 64)}),
        event(8, extra={"t": (1, "a")}),
        event(9, extra={"b": b"bytes\xff"}),
        event(10, extra={1: "int key", None: "null key"}),
        event(11, text="lone \ud800 surrogate"),
        {"v": 1, "id": "0" * 32},
        {"v": True, "id": "2" * 32, "kind": "other"},
        {"v": 1, "id": "\ud800 in an id", "kind": "other"},
        {"v": 1 << 70, "id": "3" * 32},
        {"harness": "claude-code", "v": 1, "id": "1" * 32, "kind": "other"},  # v/id not first
        event(12, text='\x00\x1f\x7f "q" \\ 😀'),
        # floats orjson writes as the standard library does: the fast path, secrets or not
        event(13, extra={"cost": 0.0, "z": -0.0, "f": [0.0001, 9999999999999998.0, 1234.5]}),
        event(14, text="GITHUB_TOKEN=ghp_R8s2kLq9ZxW4mN7pT1vY3bC6dF0hJ5gE2aQu", extra={"t": 0.5}),
    ]
    for n, sample in enumerate(corpus(seed=5, per_cell=1)[:400]):
        value = sample.value
        out.append(event(100 + n, text=value) if isinstance(value, str) else event(100 + n))
        out.append(event(1000 + n, input={"payload": value}, output="ok"))
    return out


def test_finish_line_is_finish_then_to_line(scrubber: Scrubber) -> None:
    redacted = cut = 0
    for ev in events():
        got = finish_line(ev, scrubber, LIMIT)
        assert got == old_way(ev, scrubber, LIMIT), ev
        redacted += bool(got[1])
        cut += bool(got[2])
        orjson.loads(got[0])  # strict JSON, one line
        assert got[0].endswith(b"\n") and got[0].count(b"\n") == 1
    assert redacted > 50 and cut >= 2  # both the fast and the full path were taken


def test_sample_events_come_out_the_same(scrubber: Scrubber, samples: Path) -> None:
    """Every sample transcript line, as an event's payload, at the real limit and a small one."""
    n = 0
    for path in sorted((samples / "claude-code").rglob("*.jsonl")):
        for line in path.read_bytes().splitlines():
            try:
                obj = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            n += 1
            ev = event(n, extra=obj)
            for limit in (65536, 2000):
                assert finish_line(ev, scrubber, limit) == old_way(ev, scrubber, limit)
    assert n > 500


def test_the_scrubber_is_asked_once_per_event_with_the_text(scrubber: Scrubber) -> None:
    seen: list[bytes] = []
    original = scrubber.scrub_event

    def spy(body: dict[str, Any], text: bytes) -> tuple[Any, dict[str, int]]:
        seen.append(text)
        return original(body, text)

    scrubber.scrub_event = spy  # type: ignore[method-assign]
    ev = event(1, text="hello")
    line, _, _ = finish_line(ev, scrubber, LIMIT)
    assert len(seen) == 1
    body = {k: v for k, v in ev.items() if k not in ("v", "id")}
    assert seen[0] == orjson.dumps(body)
    assert line == b'{"v":1,"id":"' + ev["id"].encode() + b'",' + seen[0][1:] + b"\n"
