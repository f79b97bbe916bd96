"""What every importer does with its events: finish (``trace_ingest.capture``: bound, scrub,
cut — exactly as the hook does), de-duplicate, append.

Ids are deterministic, so a sink reads the ids already in a trace file and appends only new
events, in one ``write()`` per batch.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

from trace_ingest.capture import bound, cut, finish, session_dir_key
from trace_ingest.events import SCHEMA_VERSION, to_line
from trace_ingest.paths import ensure_home, trace_path
from trace_ingest.scrub import Scrubber
from trace_ingest.store import append_lines

_ID = re.compile(rb'\{"v":' + str(SCHEMA_VERSION).encode() + rb',"id":"([0-9a-f]{32})"')

__all__ = ["TraceWriter", "bound", "cut", "finish", "read_ids"]


def read_ids(path: str) -> set[str]:
    """Ids of the events already in a trace file (also those glued after a torn line)."""
    ids: set[str] = set()
    if not os.path.exists(path):
        return ids
    with open(path, "rb") as fh:
        for line in fh:
            ids.update(m.decode() for m in _ID.findall(line))
    return ids


def _ends_torn(path: str) -> bool:
    """True when the file's last byte is not a newline (a writer was killed mid-line)."""
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            if fh.tell() == 0:
                return False
            fh.seek(-1, os.SEEK_END)
            return fh.read(1) != b"\n"
    except FileNotFoundError:
        return False


@dataclass
class SessionSink:
    """One session's trace file: the ids it holds and what this run appended to it."""

    session_id: str
    key: str
    path: str
    ids: set[str]
    written: int = 0


@dataclass
class TraceWriter:
    """Appends finished events to ``sessions/<harness>/<key>/trace.jsonl``, skipping known ids."""

    home: str
    harness: str
    scrubber: Scrubber
    sinks: dict[str, SessionSink] = field(default_factory=dict)

    def sink(self, session_id: str) -> SessionSink:
        found = self.sinks.get(session_id)
        if found is None:
            # The folder and the reported id come from the scrubbed id, as in the hook.
            key = session_dir_key(self.scrubber, session_id)[0]
            clean_id = self.scrubber.scrub_text(session_id)[0]
            path = trace_path(self.home, self.harness, key)
            found = SessionSink(clean_id, key, path, read_ids(path))
            self.sinks[session_id] = found
        return found

    def known(self, session_id: str, event_id: str) -> bool:
        return event_id in self.sink(session_id).ids

    def append(self, session_id: str, events: list[dict[str, Any]]) -> int:
        """Append the events whose ids the trace lacks, in one write; returns how many."""
        sink = self.sink(session_id)
        lines: list[str] = []
        for ev in events:
            eid = str(ev["id"])
            if eid in sink.ids:
                continue
            sink.ids.add(eid)
            lines.append(to_line(ev))
        if not lines:
            return 0
        ensure_home(self.home)
        data = "".join(lines)
        if _ends_torn(sink.path):
            data = "\n" + data  # keep our first event off a torn line; the mirror skips it
        append_lines(sink.path, data)
        sink.written += len(lines)
        return len(lines)
