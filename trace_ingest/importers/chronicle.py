"""``trail chronicle import``: every VS Code chat record on this machine, merged per session.

Finds VS Code's data folders (``discover``) or takes ``--path``, reads each file with the reader
for its format (``vscode_files``, ``vscode_mutation_log``, ``vscode_transcript``,
``vscode_store``), and writes the events to ``sessions/vscode/<session>/trace.jsonl`` through
the same bound-scrub-cut as the hook (``capture.finish``), de-duplicated by id.

**One session, however many files.** Every reader names the session by VS Code's chat session
id, which is also what the hook records (``sessionId`` decoded, ``trace_ingest.vscode_facts``),
so a chat's ``.jsonl``, the ``.json`` VS Code keeps beside it after migrating, its Copilot Chat
transcript, its chronicle rows, an export of it and its hook events all land in one trace.
Files of one format give equal ids for equal actions (request and call ids, never the file),
so the newest file of a session is read first (``.jsonl`` before ``.json``) and the older copy
adds only what the newer lacks; the sources differ (``transcript``, ``events-log``,
``chronicle``, ``hook``) and ``telemetry.canonical`` merges what they say of one action.

**Streaming, resumable, idempotent.** Events are written in batches as files are read; ids are
deterministic and the trace's ids are read before writing, so an import stopped half way and
run again writes only what is missing, and a second run writes nothing.
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from trace_ingest.config import load_config
from trace_ingest.errors import AdapterError, TrailError
from trace_ingest.events import Event, now_iso
from trace_ingest.importers._pipeline import TraceWriter, finish
from trace_ingest.importers.vscode_files import read_chat_json
from trace_ingest.importers.vscode_mutation_log import read_mutation_log
from trace_ingest.importers.vscode_reading import FileReport
from trace_ingest.importers.vscode_store import read_store
from trace_ingest.importers.vscode_transcript import read_transcript
from trace_ingest.paths import ensure_home, trail_home
from trace_ingest.scrub import load_scrubber
from trace_ingest.vscode_facts import HARNESS

BATCH = 500  # events held per session before they are written

# Folder names VS Code's variants use under the platform's config dir (the product's
# ``dataFolderName``); stable first.
PRODUCTS = ("Code", "Code - Insiders", "VSCodium", "Code - OSS", "Code - Exploration")
# VS Code Server (Remote-SSH, WSL, Codespaces) keeps ``data/User`` under these in $HOME.
SERVER_DIRS = (".vscode-server", ".vscode-server-insiders", ".vscode-remote")

CHAT = "chat-json"
MUTATION_LOG = "mutation-log"
TRANSCRIPT = "transcript"
STORE = "store"
# Read order: the newest form of a session first, exports last (they merge into what was read).
ORDER = {MUTATION_LOG: 0, CHAT: 1, TRANSCRIPT: 2, STORE: 3}
_CHAT_DIRS = frozenset({"chatSessions", "emptyWindowChatSessions"})
_EXTENSION_DIRS = frozenset({"github.copilot-chat"})  # compared lower-cased


def user_folders(env: dict[str, str] | None = None, platform: str | None = None) -> list[str]:
    """VS Code ``User`` folders that exist, for every product variant on this platform."""
    env = dict(os.environ) if env is None else env
    platform = sys.platform if platform is None else platform
    home = env.get("HOME") or env.get("USERPROFILE") or os.path.expanduser("~")
    roots: list[str] = []
    if platform.startswith("win"):
        appdata = env.get("APPDATA") or os.path.join(home, "AppData", "Roaming")
        roots = [os.path.join(appdata, p, "User") for p in PRODUCTS]
    elif platform == "darwin":
        base = os.path.join(home, "Library", "Application Support")
        roots = [os.path.join(base, p, "User") for p in PRODUCTS]
    else:
        base = env.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
        roots = [os.path.join(base, p, "User") for p in PRODUCTS]
    roots += [os.path.join(home, d, "data", "User") for d in SERVER_DIRS]
    return [r for r in roots if os.path.isdir(r)]


def classify(path: str) -> str | None:
    """The format of a file found in a data folder (None: not a VS Code chat record)."""
    name = os.path.basename(path)
    parent = os.path.basename(os.path.dirname(path))
    grand = os.path.basename(os.path.dirname(os.path.dirname(path))).lower()
    if name == "session-store.db":
        return STORE
    if parent in _CHAT_DIRS:
        if name.endswith(".jsonl"):
            return MUTATION_LOG
        if name.endswith(".json"):
            return CHAT
    if parent == "transcripts" and grand in _EXTENSION_DIRS and name.endswith(".jsonl"):
        return TRANSCRIPT
    return None


def sniff(path: str) -> str:
    """The format of a file named on the command line: by name, else by its first bytes."""
    found = classify(path)
    if found:
        return found
    if path.endswith(".db") or path.endswith(".sqlite"):
        return STORE
    if path.endswith(".jsonl"):
        try:
            with open(path, "rb") as fh:
                head = fh.read(4096).lstrip()
        except OSError:
            return MUTATION_LOG  # the reader reports why it cannot be read
        if head.startswith(b'{"type"') or b'"type":"session.start"' in head[:400]:
            return TRANSCRIPT
        return MUTATION_LOG
    return CHAT


def discover(paths: Iterable[str]) -> list[tuple[str, str]]:
    """``(format, file)`` for every VS Code chat record under the given files and folders, in
    read order. Symlinks are not followed. Raises TrailError for a path that does not exist."""
    found: dict[str, str] = {}
    for given in paths:
        if os.path.isdir(given):
            for root, dirs, files in os.walk(given):
                dirs.sort()
                for name in sorted(files):
                    full = os.path.join(root, name)
                    kind = classify(full)
                    if kind and not os.path.islink(full):
                        found.setdefault(full, kind)
        elif os.path.exists(given):
            found.setdefault(given, sniff(given))
        else:
            raise TrailError(f"{given}: no such file or directory")
    # Within a format, files in VS Code's own folders before files named elsewhere (exports):
    # an export then finds the session of its first request already read.
    return sorted(
        ((k, p) for p, k in found.items()),
        key=lambda kp: (ORDER[kp[0]], classify(kp[1]) is None, kp[1]),
    )


@dataclass
class ChronicleReport:
    """What one ``trail chronicle import`` did, file by file."""

    searched: list[str] = field(default_factory=list)
    files: list[FileReport] = field(default_factory=list)
    redactions: Counter[str] = field(default_factory=Counter)
    truncated_fields: int = 0
    sessions: list[dict[str, Any]] = field(default_factory=list)

    @property
    def events_written(self) -> int:
        return sum(f.written for f in self.files)

    @property
    def events_already_present(self) -> int:
        return sum(f.already_present for f in self.files)

    @property
    def readable(self) -> int:
        return sum(1 for f in self.files if f.ok)

    @property
    def exit_code(self) -> int:
        """1 only when nothing could be read (no file, or every file an error)."""
        return 0 if self.readable else 1

    def as_dict(self) -> dict[str, Any]:
        return {
            "harness": HARNESS,
            "command": "chronicle import",
            "searched": self.searched,
            "files_found": len(self.files),
            "files_read": self.readable,
            "files_failed": len(self.files) - self.readable,
            "events_written": self.events_written,
            "events_already_present": self.events_already_present,
            "lines_skipped": sum(len(f.skipped) for f in self.files),
            "redactions": dict(sorted(self.redactions.items())),
            "truncated_fields": self.truncated_fields,
            "sessions": self.sessions,
            "files": [f.as_dict() for f in self.files],
        }


class ChronicleImporter:
    """One run: reads files, writes events; ``run`` returns the report."""

    def __init__(self, home: str | None = None) -> None:
        self.home = ensure_home(home or trail_home())
        capture = load_config(self.home)["capture"]
        self.limit = int(capture["max_field_chars"])
        self.max_line = int(capture["max_payload_bytes"])
        self.scrubber = load_scrubber(self.home)
        self.writer = TraceWriter(self.home, HARNESS, self.scrubber)
        self.report = ChronicleReport()
        self.received_at = now_iso()
        self._requests: dict[str, str] = {}  # request id -> session id (to merge exports)

    def run(self, paths: Iterable[str] | None = None) -> ChronicleReport:
        given = list(paths) if paths else user_folders()
        self.report.searched = given
        for kind, path in discover(given):
            self.import_file(kind, path)
        self.report.sessions = [
            {
                "session_id": sink.session_id,
                "key": f"{HARNESS}/{sink.key}",
                "trace": sink.path,
                "events_written": sink.written,
            }
            for sink in self.writer.sinks.values()
        ]
        return self.report

    def _reader(self, kind: str, path: str) -> tuple[FileReport, Iterator[Event]]:
        if kind == MUTATION_LOG:
            return read_mutation_log(
                path, self.received_at, self.limit, self.max_line, self._remember
            )
        if kind == TRANSCRIPT:
            return read_transcript(path, self.received_at, self.max_line)
        if kind == STORE:
            return read_store(path, self.received_at)
        return read_chat_json(path, self.received_at, self._requests.get, self._remember)

    def _remember(self, request_id: str, session_id: str) -> None:
        self._requests.setdefault(request_id, session_id)

    def import_file(self, kind: str, path: str) -> FileReport:
        """Read one file and write its events; never raises for what the file contains."""
        report, events = self._reader(kind, path)
        self.report.files.append(report)
        pending: dict[str, list[dict[str, Any]]] = {}
        held = 0
        try:
            for ev in events:
                report.events += 1
                report.kinds[str(ev["kind"])] += 1
                done = self._finish(report, ev)
                if done is None:
                    continue
                pending.setdefault(ev["session_id"], []).append(done)
                held += 1
                if held >= BATCH:
                    self._flush(report, pending)
                    held = 0
        except AdapterError as exc:
            report.error = str(exc).removeprefix(f"{path}: ")
        except (OSError, MemoryError) as exc:  # pragma: no cover - reported, never a traceback
            report.error = f"{type(exc).__name__}: {exc}"
        self._flush(report, pending)
        return report

    def _finish(self, report: FileReport, ev: Event) -> dict[str, Any] | None:
        """The event bound, scrubbed and cut at once (what is held is never bigger than what
        is written), or None when the trace has it already or scrubbing failed."""
        if self.writer.known(ev["session_id"], ev["id"]):
            report.already_present += 1
            return None
        try:
            done = finish(ev, self.scrubber, self.limit)
        except Exception as exc:  # fail closed: nothing of an unscrubbed event is kept
            seq = ev.get("seq")
            report.skip(
                seq if isinstance(seq, int) else 0,
                f"event not written: scrubbing failed ({type(exc).__name__})",
            )
            return None
        for rule, count in (done.get("redactions") or {}).items():
            self.report.redactions[rule] += count
        if done.get("truncated"):
            self.report.truncated_fields += len(done["truncated"])
        return done

    def _flush(self, report: FileReport, pending: dict[str, list[dict[str, Any]]]) -> None:
        for sid, events in pending.items():
            written = self.writer.append(sid, events)
            report.written += written
            report.already_present += len(events) - written
        pending.clear()


def import_chronicle(
    paths: Iterable[str] | None = None, home: str | None = None
) -> ChronicleReport:
    """Import VS Code chat records from ``paths`` (default: every VS Code data folder found)."""
    return ChronicleImporter(home).run(paths)
