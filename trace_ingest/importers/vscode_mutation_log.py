"""``chatSessions/<id>.jsonl``: VS Code's chat session as an append-only mutation log, replayed.

The format is VS Code's ``ObjectMutationLog`` (``microsoft/vscode``
``src/vs/workbench/contrib/chat/common/model/objectMutationLog.ts``, MIT, read through the code
index), one JSON entry per line:

- ``{"kind": 0, "v": <whole session>}``: Initial, valid only first (VS Code rewrites the file
  with a fresh Initial when it compacts after 512 entries);
- ``{"kind": 1, "k": [path], "v": value}``: Set one property (the path mixes keys and indices,
  e.g. ``["requests", 1, "result"]``: token counts and results arrive this way, NC §1.4);
- ``{"kind": 2, "k": [path], "v": [items], "i": n}``: Push onto an array, after truncating it
  to ``i`` when ``i`` is given;
- ``{"kind": 3, "k": [path]}``: Delete a property.

A log whose first entry is not an Initial cannot be replayed (VS Code cannot read it either:
``microsoft/vscode#317478``): that file is an error, named with the line where the first
entry is. Other bad lines are skipped with their reason and the replay goes on.

Memory stays flat: every string entering the replayed state is shortened to what the writer
keeps anyway (``capture.bound``: ``max_field_chars`` plus the scrub margin), and requests more
than ``KEEP`` behind the newest are mapped and written as soon as they fall back, then dropped
(VS Code only ever updates the request in progress). A later entry that still changes such a
request is counted, not applied.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from trace_ingest.capture import SCRUB_MARGIN, bound
from trace_ingest.events import Event
from trace_ingest.importers._pipeline import read_lines
from trace_ingest.importers.vscode_chat import ChatContext, request_events
from trace_ingest.importers.vscode_reading import FileReport, parse_line
from trace_ingest.vscode_facts import ms_iso

INITIAL, SET, PUSH, DELETE = 0, 1, 2, 3
KEEP = 8  # requests kept in memory behind the newest
# With entries nested at most MAX_DEPTH (vscode_reading.parse_line) set at paths of at most
# MAX_PATH steps, the replayed state stays shallow enough for the recursive bound/scrub/cut.
MAX_PATH = 64
_WRITTEN = "__trail_written__"


class _PathError(Exception):
    """A mutation's path does not exist in the replayed state."""


def read_mutation_log(
    path: str, received_at: str, limit: int, max_line: int, remember: Any = None
) -> tuple[FileReport, Iterator[Event]]:
    report = FileReport(path, format="chatSessions .jsonl mutation log")
    return report, _Replay(path, received_at, limit, max_line, report, remember).events()


class _Replay:
    def __init__(
        self,
        path: str,
        received_at: str,
        limit: int,
        max_line: int,
        report: FileReport,
        remember: Any,
    ) -> None:
        self.path = path
        self.received_at = received_at
        self.bound = limit + SCRUB_MARGIN
        self.max_line = max_line
        self.report = report
        self.remember = remember
        self.state: dict[str, Any] | None = None
        self.ctx: ChatContext | None = None
        self.written = 0  # requests [0, written) are mapped, written and dropped
        self.late = 0

    def events(self) -> Iterator[Event]:
        report = self.report
        for number, data, size, is_last in read_lines(self.path, self.max_line):
            report.lines += 1
            if data is None:
                reason = f"entry of {size} bytes exceeds capture.max_payload_bytes={self.max_line}"
                if self.state is None:
                    report.error = f"line {number}: the initial entry: {reason}; file not replayed"
                    return
                report.skip(number, reason)
                continue
            entry = parse_line(report, number, data, is_last)
            if entry is None:
                continue
            if not isinstance(entry, dict) or not isinstance(entry.get("kind"), int):
                report.skip(number, "not a mutation entry (no numeric kind)")
                continue
            kind = entry["kind"]
            if kind == INITIAL:
                yield from self._flush_all()
                self._initial(entry.get("v"), number)
                continue
            if self.state is None:
                report.error = (
                    f"no initial entry (kind 0): line {number} is a kind {kind} entry with "
                    "nothing to apply it to; the log cannot be replayed (VS Code cannot open "
                    "it either)"
                )
                return
            try:
                self._apply(kind, entry, number)
            except _PathError as exc:
                report.skip(number, f"kind {kind} at {entry.get('k')!r}: {exc}")
                continue
            yield from self._retire()
        yield from self._flush_all()
        if self.late:
            report.not_recorded["change to a request already written (not applied)"] += self.late
        if self.state is None and report.error is None:
            report.error = "empty log: no entries"

    # ---- replay ------------------------------------------------------------------------------

    def _initial(self, value: Any, number: int) -> None:
        if not isinstance(value, dict):
            self.report.skip(number, "initial entry without an object value")
            value = {}
        self.state = bound(value, self.bound)
        sid = value.get("sessionId")
        if not isinstance(sid, str) or not sid:
            sid = os.path.splitext(os.path.basename(self.path))[0]
            self.report.warnings.append("initial entry has no sessionId: file name used")
        self.ctx = ChatContext(
            session_id=sid,
            file=self.path,
            received_at=self.received_at,
            session_ts=ms_iso(value.get("creationDate")),
        )
        self.report.sessions.add(sid)
        self.written = 0
        if not isinstance(self.state.get("requests"), list):
            self.state["requests"] = []

    def _apply(self, kind: int, entry: dict[str, Any], number: int) -> None:
        path = entry.get("k")
        if not isinstance(path, list) or not all(isinstance(p, str | int) for p in path):
            raise _PathError("path is not a list of keys and indices")
        if len(path) > MAX_PATH:
            raise _PathError(f"path of {len(path)} steps (at most {MAX_PATH} are replayed)")
        if not path:
            if kind == SET:
                return  # VS Code ignores a root Set ("handled by caller")
            raise _PathError("empty path")
        if self._touches_written(path, kind, entry):
            self.late += 1
            return
        assert self.state is not None
        if kind == SET:
            parent = self._walk(path[:-1])
            _assign(parent, path[-1], bound(entry.get("v"), self.bound))
        elif kind == DELETE:
            parent = self._walk(path[:-1])
            _assign(parent, path[-1], None, delete=True)
        elif kind == PUSH:
            parent = self._walk(path[:-1])
            key = path[-1]
            current = _get(parent, key)
            array = current if isinstance(current, list) else []
            start = entry.get("i")
            if isinstance(start, int) and not isinstance(start, bool):
                if path == ["requests"] and start < self.written:
                    self.report.not_recorded["requests removed after they were written"] += (
                        self.written - max(start, 0)
                    )
                    self.written = max(start, 0)
                del array[max(start, 0) :]
            values = entry.get("v")
            if isinstance(values, list):
                array.extend(bound(values, self.bound))
            elif values is not None:
                raise _PathError("push value is not an array (kind 2 appends array items)")
            _assign(parent, key, array)
        else:
            raise _PathError(f"unknown mutation kind {kind}")

    def _touches_written(self, path: list[Any], kind: int, entry: dict[str, Any]) -> bool:
        if len(path) >= 2 and path[0] == "requests" and isinstance(path[1], int):
            return path[1] < self.written
        return False

    def _walk(self, path: list[Any]) -> Any:
        node: Any = self.state
        for step in path:
            node = _get(node, step)
            if node is None:
                raise _PathError(f"{step!r} does not exist in the replayed session")
        return node

    # ---- mapping -----------------------------------------------------------------------------

    def _retire(self) -> Iterator[Event]:
        assert self.state is not None and self.ctx is not None
        requests = self.state.get("requests")
        if not isinstance(requests, list):
            return
        while len(requests) - self.written > KEEP:
            yield from self._map(requests, self.written)
            requests[self.written] = {_WRITTEN: True}
            self.written += 1

    def _flush_all(self) -> Iterator[Event]:
        if self.state is None or self.ctx is None:
            return
        requests = self.state.get("requests")
        if isinstance(requests, list):
            for index in range(self.written, len(requests)):
                yield from self._map(requests, index)
            self.written = len(requests)
        self.report.not_recorded.update(self.ctx.not_recorded)
        self.ctx.not_recorded.clear()
        if self.ctx.pending:
            self.report.not_recorded["request still running (no end recorded yet)"] += (
                self.ctx.pending
            )
            self.ctx.pending = 0

    def _map(self, requests: list[Any], index: int) -> Iterator[Event]:
        assert self.ctx is not None
        request = requests[index]
        if self.remember is not None and isinstance(request, dict):
            rid = request.get("requestId")
            if isinstance(rid, str):
                self.remember(rid, self.ctx.session_id)
        yield from request_events(self.ctx, request, index)


def _get(node: Any, key: str | int) -> Any:
    if isinstance(node, dict) and isinstance(key, str):
        return node.get(key)
    if isinstance(node, list) and isinstance(key, int) and not isinstance(key, bool):
        return node[key] if -len(node) <= key < len(node) else None
    return None


def _assign(node: Any, key: str | int, value: Any, delete: bool = False) -> None:
    if isinstance(node, dict) and isinstance(key, str):
        if delete:
            node.pop(key, None)
        else:
            node[key] = value
        return
    if isinstance(node, list) and isinstance(key, int) and not isinstance(key, bool):
        if 0 <= key < len(node):
            node[key] = value
            return
        if key == len(node) and not delete:
            node.append(value)
            return
        raise _PathError(f"index {key} is outside an array of {len(node)}")
    raise _PathError(f"cannot set {key!r} on a {type(node).__name__}")
