"""The shared importer pipeline: what every importer does, whatever it reads.

Two halves, so that any source can use what fits it:

- **The report and the writer** (``ImportRun``), for every importer, JSON lines or not (a JSON
  document, a SQLite store, VS Code's ``trail chronicle import``): an ``ImportReport`` with a
  ``FileSummary`` per file and every ``SkippedLine`` with its reason; ``write`` finishes each
  event (``trace_ingest.capture``: bound, scrub, cut, exactly as the hook does), drops ids seen
  earlier in this run or already in the trace, counts redactions and truncations, and appends
  per session through ``TraceWriter`` (one ``write()`` per batch). Ids are deterministic, so a
  re-import adds nothing and a grown file adds only its new events (resumable, idempotent).
- **The JSON-lines reader** (``LineImporter``): ``read_lines`` (bounded: a line past
  ``capture.max_payload_bytes`` is skipped without being held in memory, streaming, so memory
  stays flat on a 200 MB file) and ``json_line``, the gate every line passes (size, UTF-8,
  strict JSON, an object, a ``type`` field naming the line), then the importer's own
  ``FileWalk.feed`` for each object.

A JSON-lines importer module (listed in ``trace_ingest.importers.table.IMPORTERS``)::

    HARNESS, SOURCE, HELP = "copilot-cli", "events-log", "Import Copilot CLI sessions ..."

    class _Walk(FileWalk):
        def feed(self, number, obj, data):      # one gated JSON object -> events
            self.events.append((number, self.run.event(...)))

    class Importer(LineImporter):
        HARNESS, SOURCE = HARNESS, SOURCE
        def find_files(self, paths): return expand_paths(paths, "events.jsonl")
        def new_walk(self, path): return _Walk(self, path)

    def import_paths(paths, home=None, task=None):
        return Importer(home, task).run(list(paths))

A source that is not JSON lines makes an ``ImportRun(harness, source, home, task)``, appends a
``FileSummary`` per file to ``run.report.files``, calls ``run.write(path, summary, events)``
and returns ``run.finish()``.
"""

from __future__ import annotations

import errno
import io
import json
import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, ClassVar

import orjson

from trace_ingest import fastjson
from trace_ingest.capture import bound, cut, finish, session_dir_key
from trace_ingest.config import load_config
from trace_ingest.errors import AdapterError, TrailError
from trace_ingest.events import SCHEMA_VERSION, now_iso
from trace_ingest.importers import orjson_exact
from trace_ingest.importers.trace_lines import finish_line
from trace_ingest.paths import (
    ensure_home,
    open_dirs,
    open_file_stat,
    open_subdir,
    trace_path,
    trail_home,
)
from trace_ingest.progress import Progress
from trace_ingest.scrub import Scrubber, load_scrubber
from trace_ingest.store import write_all

_ID = re.compile(rb'\{"v":' + str(SCHEMA_VERSION).encode() + rb',"id":"([0-9a-f]{32})"')

__all__ = [
    "FileSummary",
    "FileWalk",
    "ImportReport",
    "ImportRun",
    "LineImporter",
    "SkippedLine",
    "TraceWriter",
    "bound",
    "cut",
    "expand_paths",
    "finish",
    "json_line",
    "normalize_ts",
    "open_regular",
    "read_ids",
    "read_lines",
]


def read_ids(path: str) -> set[str]:
    """Ids of the events already in a trace file (also those glued after a torn line)."""
    return _read_ids(path)[0]


def _read_ids(path: str) -> tuple[set[str], bool]:
    """``(read_ids(path), whether the file exists)``, in one open."""
    ids: set[str] = set()
    try:
        with open(path, "rb") as fh:
            for line in fh:
                ids.update(m.decode() for m in _ID.findall(line))
    except FileNotFoundError:
        return ids, False
    return ids, True


# Trace files an import keeps open at once (each session's file is opened once per run, not
# once per batch: a session read from several files gets several batches).
MAX_OPEN = 64
_APPEND = os.O_RDWR | os.O_APPEND | os.O_CREAT  # read too: the last byte, for a torn line


@dataclass
class SessionSink:
    """One session's trace file: the ids it holds and what this run appended to it."""

    session_id: str
    key: str
    path: str
    ids: set[str]
    written: int = 0
    existed: bool = True  # the trace file was there when its ids were read
    fd: int | None = None  # open for appending (TraceWriter keeps up to MAX_OPEN)
    end: int = -1  # the file's size after this run's last write through ``fd``


@dataclass
class TraceWriter:
    """Appends finished events to ``sessions/<harness>/<key>/trace.jsonl``, skipping known ids."""

    home: str
    harness: str
    scrubber: Scrubber
    sinks: dict[str, SessionSink] = field(default_factory=dict)
    _folder: int | None = None  # sessions/<harness>, opened and checked once per run
    _open: dict[str, SessionSink] = field(default_factory=dict)  # sinks with an fd, oldest first

    def sink(self, session_id: str) -> SessionSink:
        found = self.sinks.get(session_id)
        if found is None:
            # The folder and the reported id come from the scrubbed id, as in the hook.
            key, clean_id = session_dir_key(self.scrubber, session_id, with_clean=True)
            path = trace_path(self.home, self.harness, key)
            ids, existed = _read_ids(path)
            found = SessionSink(clean_id, key, path, ids, existed=existed)
            self.sinks[session_id] = found
        return found

    def close(self) -> None:
        while self._open:
            self._drop(next(iter(self._open)))
        if self._folder is not None:
            os.close(self._folder)
            self._folder = None

    def known(self, session_id: str, event_id: str) -> bool:
        return event_id in self.sink(session_id).ids

    def append(self, session_id: str, lines: list[tuple[str, bytes]]) -> int:
        """Append the ``(event id, trace line)`` pairs whose ids the trace lacks, in one write;
        returns how many."""
        sink = self.sink(session_id)
        kept: list[bytes] = []
        for eid, line in lines:
            if eid in sink.ids:
                continue
            sink.ids.add(eid)
            kept.append(line)
        if not kept:
            return 0
        fd, size = self._fd(session_id, sink)
        # A file that does not end in a newline was torn by a killed writer: keep our first
        # event off that line (the mirror skips it). What this run wrote last ends in one.
        if size > 0 and size != sink.end and os.pread(fd, 1, size - 1) != b"\n":
            kept.insert(0, b"\n")
        payload = b"".join(kept)
        write_all(fd, payload)
        sink.end = size + len(payload)
        sink.written += len(kept)
        return len(kept)

    def _fd(self, session_id: str, sink: SessionSink) -> tuple[int, int]:
        """The sink's trace file open for appending, and its size now."""
        if sink.fd is not None:
            st = os.fstat(sink.fd)
            if st.st_nlink > 0:  # still the file at its path (not removed meanwhile)
                self._open[session_id] = self._open.pop(session_id)  # most recently used
                return sink.fd, st.st_size
            self._drop(session_id)
        if self._folder is None:
            # Checked once (paths.open_dirs: no symlink, owned by this user, not writable by
            # others), then every session folder is opened relative to it: a session costs
            # its own folder and file, not the walk from the data dir down again.
            ensure_home(self.home)
            self._folder = open_dirs(self.home, ("sessions", self.harness))
        where = os.path.dirname(sink.path)
        sub = open_subdir(self._folder, sink.key, where, fresh=not sink.existed)
        try:
            fd, st = open_file_stat(sub, os.path.basename(sink.path), sink.path, _APPEND)
        finally:
            os.close(sub)
        while len(self._open) >= MAX_OPEN:
            self._drop(next(iter(self._open)))
        sink.fd = fd
        self._open[session_id] = sink
        return fd, st.st_size

    def _drop(self, session_id: str) -> None:
        sink = self._open.pop(session_id)
        if sink.fd is not None:
            os.close(sink.fd)
            sink.fd = None
            sink.end = -1


# ---- the report ----------------------------------------------------------------------------


@dataclass
class SkippedLine:
    file: str
    line: int
    reason: str


@dataclass
class FileSummary:
    file: str
    lines: int = 0
    events: int = 0
    written: int = 0
    already_present: int = 0
    duplicates: int = 0
    skipped: int = 0


@dataclass
class ImportReport:
    """What one import did: read, wrote, found already present, skipped (with reasons)."""

    task: str | None = None
    files: list[FileSummary] = field(default_factory=list)
    skipped: list[SkippedLine] = field(default_factory=list)
    ignored: dict[str, int] = field(default_factory=dict)
    not_recorded: dict[str, int] = field(default_factory=dict)
    errors: list[dict[str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    redactions: dict[str, int] = field(default_factory=dict)
    truncated_fields: int = 0
    sessions: list[dict[str, Any]] = field(default_factory=list)
    harness: str = ""
    source: str = ""

    @property
    def events_written(self) -> int:
        return sum(f.written for f in self.files)

    @property
    def events_already_present(self) -> int:
        return sum(f.already_present for f in self.files)

    @property
    def duplicates_in_input(self) -> int:
        return sum(f.duplicates for f in self.files)

    def as_dict(self) -> dict[str, Any]:
        return {
            "harness": self.harness,
            "source": self.source,
            "task": self.task,
            "files_read": len(self.files),
            "events_written": self.events_written,
            "events_already_present": self.events_already_present,
            "duplicates_in_input": self.duplicates_in_input,
            "lines_skipped": len(self.skipped),
            "skipped": [s.__dict__ for s in self.skipped],
            "lines_ignored": dict(sorted(self.ignored.items())),
            "content_not_recorded": dict(sorted(self.not_recorded.items())),
            "redactions": dict(sorted(self.redactions.items())),
            "truncated_fields": self.truncated_fields,
            "sessions": self.sessions,
            "files": [f.__dict__ for f in self.files],
            "errors": self.errors,
            "warnings": self.warnings,
        }


_MINUTES: dict[str, bool] = {}  # "YYYY-MM-DDTHH:MM" -> whether it is a real minute
_DIGITS = frozenset("0123456789")
_SECONDS: dict[int, str] = {}  # epoch second -> "YYYY-MM-DDTHH:MM:SS"
_MAX_MS = 4_000_000_000_000  # epoch ms of 2096: normalize_ts's integer short cut stops there


def normalize_ts(value: Any) -> str | None:
    """ISO 8601 UTC with microseconds and ``Z`` (like ``now_iso``); None when not a time.

    Accepts ISO strings (``Z``, offsets, or naive = UTC) and epoch seconds or milliseconds.
    """
    if type(value) is str and len(value) == 24 and value[19] == "." and value[23] == "Z":
        # What Claude Code and Copilot CLI write on every line (``…T17:30:15.183Z``): the
        # same answer as the datetime path below, without it. The date and minute are checked
        # once per minute seen; years before 1000 take the long way (strftime writes no
        # leading zeros for them).
        minute = value[:16]
        ok = _MINUTES.get(minute)
        if ok is None:
            ok = value[0] in "123456789" and _real_minute(minute)
            if len(_MINUTES) > 100_000:
                _MINUTES.clear()
            _MINUTES[minute] = ok
        if (
            ok
            and value[16] == ":"
            and value[17] in "012345"
            and value[18] in _DIGITS
            and value[20] in _DIGITS
            and value[21] in _DIGITS
            and value[22] in _DIGITS
        ):
            return value[:23] + "000Z"
    elif type(value) is int and 0 <= value < _MAX_MS:
        # Epoch seconds or milliseconds (Vibe's timestamps): the datetime path's answer by
        # integer arithmetic, the date and time looked up once per second. Below _MAX_MS,
        # ``value / 1000`` is within 0.25 µs of the exact time, so the datetime path's
        # rounding to microseconds gives exactly the milliseconds too.
        secs, ms = divmod(value, 1000) if value > 100_000_000_000 else (value, 0)
        head = _SECONDS.get(secs)
        if head is None:
            head = (_normalize_ts(secs) or "")[:19]
            if len(_SECONDS) > 100_000:
                _SECONDS.clear()
            _SECONDS[secs] = head
        return f"{head}.{ms:03d}000Z"
    return _normalize_ts(value)


def _real_minute(minute: str) -> bool:
    """Whether ``YYYY-MM-DDTHH:MM`` (ASCII digits) names a real minute."""
    if len(minute) != 16 or minute[4] != "-" or minute[7] != "-" or minute[10] != "T":
        return False
    if minute[13] != ":" or not all(minute[i] in _DIGITS for i in (0, 1, 2, 3, 5, 6, 8, 9)):
        return False
    if not all(minute[i] in _DIGITS for i in (11, 12, 14, 15)):
        return False
    try:
        datetime.fromisoformat(minute)
    except ValueError:
        return False
    return True


def _normalize_ts(value: Any) -> str | None:
    if isinstance(value, bool):
        return None
    try:
        if isinstance(value, int | float):
            secs = value / 1000 if abs(value) > 1e11 else value
            dt = datetime.fromtimestamp(secs, tz=UTC)
        elif isinstance(value, str) and value.strip():
            dt = datetime.fromisoformat(value.strip())
            if dt.tzinfo is None:
                dt = dt.replace(tzinfo=UTC)
        else:
            return None
        return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    except (ValueError, OverflowError, OSError):
        return None


# ---- the report and the writer: every importer ---------------------------------------------


class ImportRun:
    """One import into ``home``: its configuration, scrubber, writer and report."""

    def __init__(
        self, harness: str, source: str, home: str | None = None, task: str | None = None
    ) -> None:
        self.harness = harness
        self.source = source
        self.home = ensure_home(home or trail_home())
        capture = load_config(self.home)["capture"]
        self.limit = int(capture["max_field_chars"])
        self.max_line = int(capture["max_payload_bytes"])
        self.scrubber = load_scrubber(self.home, bulk=True)  # not the hook: may use pyahocorasick
        self.writer = TraceWriter(self.home, harness, self.scrubber)
        self.report = ImportReport(task=task, harness=harness, source=source)
        self.received_at = now_iso()
        self._seen_ids: set[tuple[str, str]] = set()  # (session, id) produced by this run
        self.progress = Progress(f"import {harness}")  # stderr, on a terminal only

    def write(
        self, path: str, summary: FileSummary, events: Iterable[tuple[int, dict[str, Any]]]
    ) -> None:
        """Finish and append ``(line number, event)`` pairs of one file, each id once."""
        by_session: dict[str, list[tuple[str, bytes]]] = {}
        seen = self._seen_ids
        sink_ids = None  # the ids in the trace of session ``last`` (events come by session)
        last = None
        for number, ev in events:
            sid = ev["session_id"]
            eid = ev["id"]
            key = (sid, eid)
            summary.events += 1
            if key in seen:
                summary.duplicates += 1
                continue
            seen.add(key)
            if sink_ids is None or sid != last:
                sink_ids = self.writer.sink(sid).ids
                last = sid
            if eid in sink_ids:
                summary.already_present += 1
                continue
            try:
                line, redactions, truncated = finish_line(ev, self.scrubber, self.limit)
            except RecursionError:  # parsed, but too deep for the recursive bound/scrub/cut
                self.report.errors.append(
                    {
                        "file": path,
                        "error": f"line {number}: nested too deeply to bound and scrub; "
                        "event not written",
                    }
                )
                continue
            except Exception as exc:  # fail closed: nothing of this event is written
                self.report.errors.append(
                    {
                        "file": path,
                        "error": f"line {number}: scrubbing failed "
                        f"({type(exc).__name__}); event not written",
                    }
                )
                continue
            for rule, n in redactions.items():
                self.report.redactions[rule] = self.report.redactions.get(rule, 0) + n
            self.report.truncated_fields += truncated
            by_session.setdefault(sid, []).append((str(eid), line))
        for sid, batch in by_session.items():
            summary.written += self.writer.append(sid, batch)
        self.progress.update(len(self.report.files), len(self._seen_ids))

    def finish(self) -> ImportReport:
        """The report, with one row per session written to."""
        self.progress.done()
        self.writer.close()
        self.report.sessions = [
            {
                "session_id": sink.session_id,
                "key": f"{self.harness}/{sink.key}",
                "trace": sink.path,
                "events_written": sink.written,
            }
            for sink in self.writer.sinks.values()
        ]
        return self.report


# ---- JSON lines ----------------------------------------------------------------------------


def expand_paths(paths: Iterable[str], suffix: str = ".jsonl") -> list[str]:
    """Files as given, folders searched recursively (sorted) for names ending in ``suffix``;
    each file once, in order. Raises TrailError for a path that does not exist."""
    found: dict[str, None] = {}
    for given in paths:
        if os.path.isdir(given):
            for root, dirs, files in os.walk(given):
                dirs.sort()
                for name in sorted(files):
                    if name.endswith(suffix):
                        found.setdefault(os.path.join(root, name))
        elif os.path.exists(given):
            found.setdefault(given)
        else:
            raise TrailError(f"{given}: no such file or directory")
    return list(found)


_READ_BUFFER = 1 << 16


def open_regular(path: str) -> io.BufferedReader:
    """``path`` opened to read, only if it is a regular file (OSError otherwise).

    A file named on the command line or found in a walk may be a FIFO or a device
    (``/dev/zero`` behind a symlink): a plain ``open`` of a FIFO blocks until a writer comes,
    and a device never ends. Opened ``O_NONBLOCK`` (no wait), checked with ``fstat``, then
    read as usual (the flag means nothing for a regular file)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            what = (
                "a folder"
                if stat.S_ISDIR(mode)
                else "a FIFO"
                if stat.S_ISFIFO(mode)
                else "a socket"
                if stat.S_ISSOCK(mode)
                else "a device"
            )
            raise OSError(errno.EINVAL, f"not a regular file ({what})", path)
        os.set_blocking(fd, True)
        # 64 KiB reads, not st_blksize's 4 KiB: 16x fewer read() calls on a log of MBs
        return io.BufferedReader(io.FileIO(fd, "rb"), buffer_size=_READ_BUFFER)
    except BaseException:
        os.close(fd)
        raise


def read_lines(path: str, limit: int) -> Iterator[tuple[int, bytes | None, int, bool]]:
    """Yield ``(line number, bytes or None when over limit, size, is last line)``; a line
    over ``limit`` is skipped in 1 MiB steps, never held whole. Raises AdapterError."""
    try:
        with open_regular(path) as fh:
            prev: tuple[int, bytes | None, int] | None = None
            number = 0
            while True:
                chunk = fh.readline(limit + 1)
                if not chunk:
                    break
                number += 1
                item: tuple[int, bytes | None, int]
                if len(chunk) > limit and not chunk.endswith(b"\n"):
                    size = len(chunk)
                    while True:  # skip the rest of the oversize line without holding it
                        more = fh.readline(1 << 20)
                        size += len(more)
                        if not more or more.endswith(b"\n"):
                            break
                    item = (number, None, size)
                else:
                    item = (number, chunk, len(chunk))
                if prev is not None:
                    yield (*prev, False)
                prev = item
            if prev is not None:
                yield (*prev, True)
    except OSError as exc:
        raise AdapterError(f"{path}: cannot read: {exc.strerror or exc}") from exc


_UNPARSED: Any = object()  # json_line's ``parsed`` when the caller did not parse the line
_JSON_TYPES = {
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "a boolean",
    list: "an array",
    type(None): "null",
}


def json_line(
    data: bytes | None,
    size: int,
    is_last: bool,
    max_line: int,
    type_key: str | None = "type",
    parsed: Any = _UNPARSED,
) -> tuple[dict[str, Any] | None, str | None]:
    """The gate every JSON line passes: ``(object, None)`` to record, ``(None, reason)`` to
    skip, ``(None, None)`` for a blank line (nothing to say).

    ``data`` is None for a line over ``max_line`` bytes (``read_lines``). With ``type_key``,
    the object must have that field, a non-empty string naming the line's type. ``parsed``,
    when given, is what ``orjson.loads(data)`` returned (``None`` also when it raised), so
    that the line is not parsed twice.
    """
    if data is None:
        return None, (
            f"line of {size} bytes exceeds capture.max_payload_bytes ({max_line}); not parsed"
        )
    # the same value as below, when it can tell
    obj = orjson_exact.loads(data) if parsed is _UNPARSED else orjson_exact.exact(parsed, data)
    if obj is None:
        if not data.strip():
            return None, None  # a blank line holds nothing
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            return None, f"invalid UTF-8 at byte {exc.start} of the line; not parsed"
        try:
            # Strict: NaN/Infinity, overflowing floats and integers past 64 bits come back as
            # their text, so every line can be written back as strict JSON (docs/events.md).
            obj, _ = fastjson.loads_strict(text)
        except RecursionError:
            return None, "nested too deeply to parse; not recorded"
        except ValueError as exc:
            if is_last:
                return None, (
                    f"truncated last line (incomplete JSON: {exc}); "
                    "the file may still be being written"
                )
            return None, f"malformed JSON: {exc}"
    if not isinstance(obj, dict):
        kind = _JSON_TYPES.get(type(obj), type(obj).__name__)
        return None, f"JSON value is {kind}, not an object"
    if type_key is not None:
        if type_key not in obj:
            return None, f'object has no "{type_key}" field'
        line_type = obj[type_key]
        if not isinstance(line_type, str) or not line_type:
            return None, f'"{type_key}" is {json.dumps(line_type)[:40]}, not a line type name'
    return obj, None


class FileWalk:
    """The walk through one file: ``feed`` turns each gated object into ``(line, event)``
    pairs in ``events``; ``close`` runs after the last line. ``quiet`` walks (a file read only
    for context) record no skipped lines in the report."""

    def __init__(self, run: ImportRun, path: str, quiet: bool = False) -> None:
        self.run = run
        self.path = path
        self.quiet = quiet
        self.summary = FileSummary(path)
        self.events: list[tuple[int, dict[str, Any]]] = []

    def skip(self, number: int, reason: str) -> None:
        self.summary.skipped += 1
        if not self.quiet:
            self.run.report.skipped.append(SkippedLine(self.path, number, reason))

    def feed(self, number: int, obj: dict[str, Any], data: bytes) -> None:
        raise NotImplementedError

    # ``prefeed(number, value) -> bool``, when a walk has one: a look at each line before the
    # gate, for lines the walk only counts (most of a Copilot log). ``value`` is orjson's
    # parse of a line with fewer brackets than ``orjson_exact.MAX_DEPTH`` levels, so the
    # strict parser (the gate's) reads the same keys, strings, booleans and nulls, and can
    # differ only in numbers (an integer literal past 64 bits is a float here). It returns
    # True only where the gate would pass the line (an object whose type field names it) and
    # ``feed`` would record nothing but what ``prefeed`` itself counted, deciding from
    # anything but numbers; the line then goes no further. False: the gate and ``feed``.
    prefeed: Callable[[int, Any], bool] | None = None

    def close(self) -> None:
        """After the last line (pending state becomes events, or waits for a later import)."""


class LineImporter(ImportRun):
    """An importer of JSON-lines files: ``find_files``, then per file a ``FileWalk``."""

    HARNESS: ClassVar[str]
    SOURCE: ClassVar[str]
    TYPE_KEY: ClassVar[str | None] = "type"  # the field every line must name its type in

    def __init__(self, home: str | None = None, task: str | None = None) -> None:
        super().__init__(self.HARNESS, self.SOURCE, home, task)

    def find_files(self, paths: Iterable[str]) -> list[str]:
        return expand_paths(paths)

    def new_walk(self, path: str) -> FileWalk:
        raise NotImplementedError

    def run(self, paths: Iterable[str]) -> ImportReport:
        for path in self.find_files(paths):
            try:
                self.import_file(path)
            except AdapterError as exc:
                self.report.errors.append({"file": path, "error": str(exc)})
        return self.finish()

    def import_file(self, path: str) -> FileSummary:
        """Import one file (raises AdapterError when it cannot be read)."""
        walk = self.walk(path, self.new_walk(path))
        self.report.files.append(walk.summary)
        self.write(walk.path, walk.summary, walk.events)
        return walk.summary

    def walk(self, path: str, walk: FileWalk) -> FileWalk:
        """Read ``path`` line by line through the gate into ``walk``, then close it."""
        pre = walk.prefeed
        loads = orjson.loads
        shallow = orjson_exact.shallow
        depth = orjson_exact.MAX_DEPTH
        for number, data, size, is_last in read_lines(path, self.max_line):
            walk.summary.lines += 1
            if pre is not None and data is not None:
                try:
                    value = loads(data)
                except orjson.JSONDecodeError:
                    value = None
                else:
                    # a line shorter than MAX_DEPTH bytes cannot hold that many brackets
                    if (len(data) < depth or shallow(data)) and pre(number, value):
                        continue
                obj, reason = json_line(
                    data, size, is_last, self.max_line, self.TYPE_KEY, parsed=value
                )
            else:
                obj, reason = json_line(data, size, is_last, self.max_line, self.TYPE_KEY)
            if reason is not None:
                walk.skip(number, reason)
            elif obj is not None and data is not None:
                walk.feed(number, obj, data)
        walk.close()
        return walk
