"""How the VS Code readers get at bytes (UTF-8 that never stops a read, the JSON-line gate of
the mutation log and the transcript) and what a reader reports about one file. Lines come from
the shared bounded reader, ``_pipeline.read_lines``.

A reader never raises for bad content: a line it cannot use is a ``skip`` with its reason, a
file it cannot use at all is ``error``. Only a file that cannot be opened raises ``AdapterError``.
"""

from __future__ import annotations

import codecs
import io
import json
import os
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from trace_ingest import fastjson
from trace_ingest.errors import AdapterError
from trace_ingest.importers import orjson_exact
from trace_ingest.importers._pipeline import FileSummary, open_regular

MAX_DEPTH = 100  # nesting levels of a JSON line, as the hook's (hooks/entry.py)


@dataclass
class FileReport(FileSummary):
    """One file, as the shared pipeline counts it (``FileSummary``: lines, events, written,
    already present, skipped) plus what VS Code's formats need said: which format, which
    sessions, the events per kind, every skipped line with its reason, what was left out, and
    the error that made the file unreadable (``ok`` is False then)."""

    format: str = ""
    sessions: set[str] = field(default_factory=set)
    kinds: Counter[str] = field(default_factory=Counter)
    skips: list[tuple[int, str]] = field(default_factory=list)
    not_recorded: Counter[str] = field(default_factory=Counter)
    warnings: list[str] = field(default_factory=list)
    error: str | None = None

    def skip(self, line: int, reason: str) -> None:
        self.skips.append((line, reason))
        self.skipped += 1

    @property
    def ok(self) -> bool:
        return self.error is None

    def as_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "format": self.format,
            "ok": self.ok,
            "lines": self.lines,
            "events": self.events,
            "events_written": self.written,
            "events_already_present": self.already_present,
            "duplicates_in_input": self.duplicates,
            "sessions": sorted(self.sessions),
            "kinds": dict(sorted(self.kinds.items())),
            "skipped": [{"line": n, "reason": r} for n, r in self.skips],
            "not_recorded": dict(sorted(self.not_recorded.items())),
            "warnings": self.warnings,
            "error": self.error,
        }


def decode_line(data: bytes) -> tuple[str, int | None]:
    """``(text, byte offset of the first invalid UTF-8 byte or None)``; invalid bytes become
    U+FFFD so the rest of the line is still read."""
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        return data.decode("utf-8", "replace"), exc.start


def parse_line(report: FileReport, number: int, data: bytes, is_last: bool) -> Any:
    """One JSON line, or None (skipped with its reason in ``report``; blank lines silently).

    Invalid UTF-8 is replaced and warned about, a last line without its newline is "cut short"
    (the writer was still writing it), anything else unparseable is "malformed JSON".
    """
    if not data.strip():
        return None
    value = orjson_exact.loads(data)  # json.loads' value, when it can tell (valid UTF-8)
    if value is not None:
        # Nesting past MAX_DEPTH takes more than MAX_DEPTH opening brackets: most lines have
        # fewer in all, and need no walk to know it.
        if data.count(b"{") + data.count(b"[") <= MAX_DEPTH:
            return value
        if fastjson.shape_problem(value, MAX_DEPTH, 1 << 62) is None:
            return value
        report.skip(number, f"nested deeper than {MAX_DEPTH} levels; not recorded")
        return None
    text, bad = decode_line(data)
    if bad is not None:
        report.warnings.append(f"line {number}: invalid UTF-8 at byte {bad}; replaced with U+FFFD")
    try:
        value = json.loads(text)
    except ValueError as exc:
        if is_last and not data.endswith(b"\n"):
            report.skip(number, f"last line cut short (VS Code was writing it): {exc}")
        else:
            report.skip(number, f"malformed JSON: {exc}")
    except RecursionError:
        report.skip(number, "nested too deeply to parse")
    else:
        # Parsed, but the walks after it (replay, bound, scrub, cut) recurse per level.
        if fastjson.shape_problem(value, MAX_DEPTH, 1 << 62) is None:
            return value
        report.skip(number, f"nested deeper than {MAX_DEPTH} levels; not recorded")
    return None


class Utf8Repair(io.RawIOBase):
    """A byte stream that passes valid UTF-8 through and replaces invalid bytes with U+FFFD,
    counting them: a streaming JSON parser over it never stops at a stray byte."""

    def __init__(self, raw: io.BufferedReader, chunk: int = 1 << 16) -> None:
        super().__init__()
        self._raw = raw
        self._chunk = chunk
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._pending = b""
        self.replaced = 0
        self.first_bad: int | None = None
        self._offset = 0

    def readable(self) -> bool:
        return True

    def close(self) -> None:
        self._raw.close()
        super().close()

    def readinto(self, buffer: Any) -> int:
        while not self._pending:
            data = self._raw.read(self._chunk)
            final = not data
            text = self._decoder.decode(data, final=final)
            bad = text.count("\ufffd") - data.decode("utf-8", "ignore").count("\ufffd")
            if bad > 0:
                if self.first_bad is None:
                    self.first_bad = self._offset
                self.replaced += bad
            self._offset += len(data)
            self._pending = text.encode("utf-8")
            if final:
                break
        n = min(len(buffer), len(self._pending))
        buffer[:n] = self._pending[:n]
        self._pending = self._pending[n:]
        return n


def open_repaired(path: str) -> tuple[io.BufferedReader, Utf8Repair]:
    """``(stream to parse, the repairer to ask how many bytes were replaced)``."""
    try:
        raw = open_regular(path)  # the caller closes the returned stream
    except OSError as exc:
        raise AdapterError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    repair = Utf8Repair(raw)
    return io.BufferedReader(repair, 1 << 16), repair


def file_size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0
