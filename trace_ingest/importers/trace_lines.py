"""Finished events as trace lines, for the importers: ``capture.finish`` then ``events.to_line``
in one step, byte for byte the same, without walking or re-serializing what need not be.

The usual event is short (its compact JSON is within ``capture.max_field_chars``, so no
string in it can be longer: each character takes at least one byte) and holds nothing to
redact. Its body is serialized once, by orjson (``orjson_exact``), handed to the scrubber with
the value (``Scrubber.scrub_event``), and, when nothing is redacted, written as it is behind
``{"v":…,"id":…,``. Anything else (a long field to bound and cut, a redaction, a float, a type
orjson would write differently) takes ``capture.finish`` and ``events.to_line``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from trace_ingest.capture import assemble, finish
from trace_ingest.events import to_line
from trace_ingest.importers import orjson_exact
from trace_ingest.scrub import Scrubber


def finish_line(
    event: Mapping[str, Any], scrubber: Scrubber, limit: int
) -> tuple[bytes, dict[str, int], int]:
    """``(trace line with its newline, redactions by rule, fields truncated)`` for one event,
    exactly ``to_line(finish(event, scrubber, limit))`` encoded as the trace file holds it.

    Raises whatever the scrubber raises (and RecursionError for a value too deep to walk):
    the caller then writes no part of the event.
    """
    body = dict(event)  # its fields but v and id, in order (a copy: the caller's stays whole)
    body.pop("v", None)
    body.pop("id", None)
    text = orjson_exact.dumps(body)
    if text is not None and len(text) <= limit:
        clean, counts = scrubber.scrub_event(body, text)
        v, eid = event["v"], event["id"]
        head = None
        if not counts and type(v) is int and type(eid) is str and (1 << 63) > v >= 0:
            # {"v":1,"id":"…" then the body's fields: what to_line writes for this event.
            try:
                head = b'{"v":%d,"id":%b' % (v, orjson.dumps(eid))
            except TypeError:  # a surrogate in the id: to_line's way
                head = None
        if head is not None:
            if text == b"{}":
                return head + b"}\n", {}, 0
            return b"".join((head, b",", text[1:], b"\n")), {}, 0
        if not counts:
            clean = body
        out = assemble(event, clean, counts, True, limit)
    else:
        out = finish(event, scrubber, limit)
    line = orjson_exact.dumps(out)
    data = line + b"\n" if line is not None else to_line(out).encode("utf-8", "replace")
    return data, out.get("redactions", {}), len(out.get("truncated", {}))
