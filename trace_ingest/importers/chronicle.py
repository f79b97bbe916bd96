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

import itertools
import os
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from trace_ingest.errors import AdapterError, TrailError
from trace_ingest.events import Event
from trace_ingest.importers._pipeline import ImportReport, ImportRun, open_regular
from trace_ingest.importers.vscode_files import read_chat_json
from trace_ingest.importers.vscode_mutation_log import read_mutation_log
from trace_ingest.importers.vscode_reading import FileReport
from trace_ingest.importers.vscode_store import read_store
from trace_ingest.importers.vscode_transcript import read_transcript
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
_LOOSE = (".json", ".jsonl", ".db")


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
            with open_regular(path) as fh:
                head = fh.read(4096).lstrip()
        except OSError:
            return MUTATION_LOG  # the reader reports why it cannot be read
        if head.startswith(b'{"type"') or b'"type":"session.start"' in head[:400]:
            return TRANSCRIPT
        return MUTATION_LOG
    return CHAT


def discover(paths: Iterable[str]) -> list[tuple[str, str]]:
    """``(format, file)`` for every VS Code chat record under the given files and folders, in
    read order: below a folder, the files in VS Code's own layout (``classify``), plus the
    ``.json``/``.jsonl``/``.db`` files right in the folder named (exports, copies). Symlinks
    are not followed. Raises TrailError for a path that does not exist."""
    found: dict[str, str] = {}
    for given in paths:
        if os.path.isdir(given):
            for root, dirs, files in os.walk(given):
                dirs.sort()
                for name in sorted(files):
                    full = os.path.join(root, name)
                    kind = classify(full)
                    if kind is None and root == given and name.endswith(_LOOSE):
                        kind = sniff(full)  # a file right in the folder named: an export, ...
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
    """What one ``trail chronicle import`` did: the shared ``ImportReport`` (sessions,
    redactions, truncations, scrub errors), the folders searched, and a ``FileReport`` per
    file (format, counts per kind, skipped lines with reasons, warnings, the error)."""

    run: ImportReport
    searched: list[str] = field(default_factory=list)

    @property
    def files(self) -> list[FileReport]:
        return [f for f in self.run.files if isinstance(f, FileReport)]

    @property
    def sessions(self) -> list[dict[str, Any]]:
        return self.run.sessions

    @property
    def events_written(self) -> int:
        return self.run.events_written

    @property
    def events_already_present(self) -> int:
        return self.run.events_already_present

    @property
    def readable(self) -> int:
        return sum(1 for f in self.files if f.ok)

    @property
    def exit_code(self) -> int:
        """1 only when nothing could be read (no file, or every file an error)."""
        return 0 if self.readable else 1

    def as_dict(self) -> dict[str, Any]:
        data = self.run.as_dict()
        data.update(
            command="chronicle import",
            searched=self.searched,
            files_found=len(self.files),
            files_read=self.readable,
            files_failed=len(self.files) - self.readable,
            lines_skipped=sum(f.skipped for f in self.files),
            skipped=[
                {"file": f.file, "line": n, "reason": r} for f in self.files for n, r in f.skips
            ],
            files=[f.as_dict() for f in self.files],
        )
        return data


class ChronicleImporter:
    """One run on the shared pipeline (``ImportRun``: dedupe, scrub, append, report)."""

    def __init__(self, home: str | None = None) -> None:
        self.run = ImportRun(HARNESS, "chronicle", home)
        self.report = ChronicleReport(self.run.report)
        self._requests: dict[str, str] = {}  # request id -> session id (to merge exports)

    def import_all(self, paths: Iterable[str] | None = None) -> ChronicleReport:
        given = list(paths) if paths else user_folders()
        self.report.searched = given
        for kind, path in discover(given):
            self.import_file(kind, path)
        self.run.finish()
        return self.report

    def _reader(self, kind: str, path: str) -> tuple[FileReport, Iterator[Event]]:
        run = self.run
        if kind == MUTATION_LOG:
            return read_mutation_log(path, run.received_at, run.limit, run.max_line, self._remember)
        if kind == TRANSCRIPT:
            return read_transcript(path, run.received_at, run.max_line)
        if kind == STORE:
            return read_store(path, run.received_at)
        return read_chat_json(path, run.received_at, self._requests.get, self._remember)

    def _remember(self, request_id: str, session_id: str) -> None:
        self._requests.setdefault(request_id, session_id)

    def import_file(self, kind: str, path: str) -> FileReport:
        """Read one file and write its events, ``BATCH`` at a time (each finished as it is
        taken: what is held is never bigger than what is written); never raises for what the
        file contains."""
        report, events = self._reader(kind, path)
        self.run.report.files.append(report)
        stream = self._counted(report, events)
        while True:
            before = report.events
            self.run.write(path, report, itertools.islice(stream, BATCH))
            if report.events == before:
                return report

    def _counted(self, report: FileReport, events: Iterator[Event]) -> Iterator[tuple[int, Any]]:
        try:
            for ev in events:
                report.kinds[str(ev["kind"])] += 1
                seq = ev.get("seq")
                yield (seq if isinstance(seq, int) else 0), ev
        except AdapterError as exc:
            report.error = str(exc).removeprefix(f"{report.file}: ")
        except (OSError, MemoryError) as exc:  # pragma: no cover - reported, never a traceback
            report.error = f"{type(exc).__name__}: {exc}"
        except Exception as exc:  # a value of a shape no reader expected: said, never a traceback
            report.error = (  # the type only: the message may quote a value (a secret)
                f"stopped at a value of an unexpected shape ({type(exc).__name__}); "
                f"the {report.events} event(s) read before it are kept"
            )


def import_chronicle(
    paths: Iterable[str] | None = None, home: str | None = None
) -> ChronicleReport:
    """Import VS Code chat records from ``paths`` (default: every VS Code data folder found)."""
    return ChronicleImporter(home).import_all(paths)
