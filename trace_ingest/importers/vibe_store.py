"""Read Mistral Vibe sessions into schema-v1 events: the 3.x unified session store and the 2.x
``meta.json`` + ``messages.jsonl`` folders.

**3.x** (``$VIBE_HOME/logs/session/unified/<session id>/``, real-harnesses.md §1.4) is read the
way Vibe reads it: ``CURRENT`` names the generation, its ``manifest.json`` lists the
content-addressed chunks (``chunks/<sha256>.json``, JSON arrays) of each section:

- ``projection_state``: the UI history, one entry per user or assistant message and one
  ``effect`` per tool the harness ran, with epoch-ms ``createdAt``/``updatedAt`` (the only time
  source), the qualified tool name, the runtime input, status and structured output;
- ``checkpoint``: the model context: the model's ``tool_call`` parts (call id, model-facing
  name, arguments) and the ``tool`` messages with ``outcome``; no times.

An effect names no call id (the recovery journal that did is pruned after a turn, §1.4), so
effects are joined to the model's calls **by order, tool name and input**: each effect takes the
first not yet joined call of the same qualified tool whose arguments agree with its input
(``trace_ingest.vibe_tools.legacy_input`` puts both under the hook's argument names). The exact
links where the store has them win: a tool-discovery effect is named after its call, a
subagent's spawn effect names its ``spawnCallId``, and a call made inside ``run_typescript`` (no
model call of its own) takes the id of the hook run Vibe noted for it (``notice`` entries with
``toolCallId``, present when hooks were installed), so hooked and imported copies meet.
Calls with no effect (``run_typescript`` itself, which fires no hook) come from the checkpoint.

A subagent's store is the sibling folder ``child-<hex>`` named by the spawn effect's
``childSessionId``: its events join the root session in the child's lane (``agent_id``), with a
``subagent_start`` at the spawn and a ``subagent_stop`` at its last answer. Hooks never see
them (§1.3), so this is the only record of what a subagent did.

**2.x** (``session_<ts>_<short id>/``, harnesses.md §3.3): one ``LLMMessage`` per line, no
times (every event gets ``meta.json``'s ``start_time``, ordered by line), failures as
``<tool_error>`` tags.

Every file is read as a bounded regular file, never through a symlink. A missing or corrupt
chunk is reported by name, with the section it held; the rest of the session is still read.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from trace_ingest import fastjson
from trace_ingest.errors import TrailError
from trace_ingest.events import event_id, new_event
from trace_ingest.importers import orjson_exact
from trace_ingest.importers._pipeline import ImportReport, normalize_ts
from trace_ingest.tools import STATUS_OK
from trace_ingest.vibe_tools import (
    canonical_tool,
    legacy_input,
    qualified,
    shell_exit_code,
    tool_path,
)

HARNESS = "vibe"
SOURCE = "transcript"
STORE_FORMAT = "mistral.vibe.unified-session-store/"
MAX_FILE_BYTES = 256 << 20  # one store file or 2.x line file; chunks are sealed at 64 KiB
MAX_LINE_BYTES = 64 << 20
BATCH = 1000  # events handed to the writer at a time
CHILD_PREFIX = "child-"
_SUBAGENT_META = "mistral.vibe.subagent"
_DISCOVERY_PREFIX = "effect-tool-discovery-"
_TS_PREFIX = "typescript:"
_UNNAMED = "tool"  # the name 3.0.1 stores for an effect it could not name (a skipped call)

# Effect ``state.status`` -> trail status (docs/events.md).
_EFFECT_STATUS = {
    "completed": "ok",
    "failed": "failed",
    "cancelled": "cancelled",
}


class StoreError(TrailError):
    """A store file cannot be read; the message names the file and why."""


@dataclass
class Problem:
    """Something of a session that could not be read: which file, and what was lost."""

    file: str
    reason: str


@dataclass
class SessionRead:
    """One session folder read: its events (unfinished: not scrubbed) and what went wrong."""

    path: str
    kind: str  # "unified" or "legacy"
    session_id: str = ""
    events: list[dict[str, Any]] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    files: list[str] = field(default_factory=list)  # files read
    children: list[str] = field(default_factory=list)  # child store folders read with it
    not_recorded: dict[str, int] = field(default_factory=dict)
    readable: bool = False  # the session itself could be read (its events may still be few)


# ---- finding sessions ----------------------------------------------------------------------


def is_unified(path: str) -> bool:
    return os.path.isfile(os.path.join(path, "CURRENT"))


def is_legacy(path: str) -> bool:
    return os.path.isfile(os.path.join(path, "messages.jsonl"))


def find_sessions(paths: Iterable[str]) -> list[tuple[str, str]]:
    """``(kind, folder)`` of every session under ``paths`` (a store folder, a 2.x folder or
    its ``messages.jsonl``/``meta.json``, or any folder above them such as ``~/.vibe``).

    A subagent's ``child-*`` store is listed only when its parent is not (the parent reads it).
    Raises TrailError for a path that does not exist.
    """
    found: dict[str, str] = {}
    for given in paths:
        path = os.path.abspath(os.path.expanduser(given))
        if not os.path.lexists(path):
            raise TrailError(f"{given}: no such file or folder")
        if os.path.isfile(path):
            name = os.path.basename(path)
            folder = os.path.dirname(path)
            if name in ("messages.jsonl", "meta.json") and is_legacy(folder):
                found.setdefault(folder, "legacy")
            elif name == "CURRENT":
                found.setdefault(folder, "unified")
            else:
                raise TrailError(
                    f"{given}: not a Vibe session (give a store folder with CURRENT, or a 2.x "
                    "folder with messages.jsonl)"
                )
            continue
        for folder, kind in _walk(path):
            found.setdefault(folder, kind)
    # The folders holding a store that is not a child's: a child store there is read with
    # that parent (one set, so the check is one lookup per child, not a scan of every store).
    parents = {
        os.path.dirname(f)
        for f, k in found.items()
        if k == "unified" and not os.path.basename(f).startswith(CHILD_PREFIX)
    }
    out = []
    for folder, kind in sorted(found.items()):
        if (
            kind == "unified"
            and os.path.basename(folder).startswith(CHILD_PREFIX)
            and os.path.dirname(folder) in parents
        ):
            continue  # read with its parent (its parent names it)
        out.append((kind, folder))
    return out


def _walk(root: str) -> Iterator[tuple[str, str]]:
    if is_unified(root):
        yield root, "unified"
        return
    if is_legacy(root):
        yield root, "legacy"
        return
    for folder, dirs, _files in os.walk(root, followlinks=False):
        keep = []
        for name in sorted(dirs):
            full = os.path.join(folder, name)
            if os.path.islink(full):
                continue
            if is_unified(full):
                yield full, "unified"
            elif is_legacy(full):
                yield full, "legacy"
            elif name not in ("chunks", "generations", "journal", "plugins"):
                keep.append(name)
        dirs[:] = keep


# ---- bounded reads -------------------------------------------------------------------------


def _open_regular(path: str) -> int:
    """A read descriptor of a regular file, never through a symlink (StoreError)."""
    return _open_sized(path)[0]


def _open_sized(path: str) -> tuple[int, int]:
    """``_open_regular``'s descriptor and the file's size then (one ``fstat`` for both)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise StoreError("missing") from None
    except OSError as exc:
        reason = "a symbolic link" if exc.errno == errno.ELOOP else (exc.strerror or str(exc))
        raise StoreError(f"cannot be opened ({reason})") from None
    except ValueError:  # a NUL byte in a name taken from the store (CURRENT's generation)
        raise StoreError("cannot be opened (a NUL byte in its name)") from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise StoreError("not a regular file")
    return fd, st.st_size


def _linked(root: str, *inside: str) -> str | None:
    """The first of the folders ``inside`` (relative to ``root``) that is a symbolic link:
    files are opened ``O_NOFOLLOW``, which guards only their last component."""
    for rel in inside:
        full = os.path.join(root, rel)
        if os.path.islink(full):
            return full
    return None


def read_bytes(path: str, limit: int = MAX_FILE_BYTES) -> bytes:
    """A regular file's bytes, never through a symlink, at most ``limit`` (StoreError)."""
    fd, size = _open_sized(path)
    try:
        if size > limit:
            raise StoreError(f"larger than {limit} bytes")
        # read(n) allocates n bytes up front: ask for what the file holds, not the cap. A
        # plain read loop on the descriptor: a store is many small files, and a buffered file
        # object costs each of them a dup, an fstat and an ioctl more. Done once the size
        # fstat gave is read (no read() more to see the end: the file as it was then).
        data = b""
        while len(data) < max(size, 1):  # a size of 0: one read, as for any size
            part = os.read(fd, size + 1 - len(data))
            if not part:
                break
            data += part
        if len(data) > limit:
            raise StoreError(f"larger than {limit} bytes")
        return data
    finally:
        os.close(fd)


def read_json(path: str, limit: int = MAX_FILE_BYTES) -> Any:
    return _loads(read_bytes(path, limit))


# Epoch milliseconds (the store's createdAt) or ISO text -> ISO 8601 UTC with ``Z``.
iso_ms = normalize_ts


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _shift(stamp: str, ms: int) -> str:
    """An ISO time ``ms`` milliseconds later (earlier when negative)."""
    from datetime import timedelta

    try:
        dt = datetime.fromisoformat(stamp.replace("Z", "+00:00")) + timedelta(milliseconds=ms)
    except ValueError:
        return stamp
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _text(content: Any) -> str | None:
    """The text of a message's ``content`` (a string, or ``text`` parts of a list)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            str(p.get("text"))
            for p in content
            if isinstance(p, dict) and p.get("type") == "text" and p.get("text") is not None
        ]
        return "\n".join(parts) if parts else None
    return None


# ---- the unified store ---------------------------------------------------------------------


@dataclass
class _Call:
    """One model tool call of the checkpoint, with its result."""

    call_id: str
    name: str
    args: Any
    position: int
    result: str | None = None
    outcome: str | None = None
    joined: bool = False
    ts: str | None = None  # the joined effect's time
    done: str | None = None  # when the joined effect settled


@dataclass
class _Store:
    """What one store folder holds, read through CURRENT -> manifest -> chunks."""

    path: str
    session_id: str
    root_id: str
    parent_id: str | None
    created_at: Any
    projection: list[str]  # the projection's chunk names, read one at a time (memory: a chunk)
    calls: list[_Call]  # the checkpoint's model calls
    cwd: str | None
    gen: str = ""
    open_turn: str | None = None  # the turn still running when the store was published
    # the session's running token totals (projection-state ``session.tokenUsage``) and when
    # they were last updated
    usage: dict[str, Any] | None = None
    updated_at: Any = None


class UnifiedReader:
    """Reads one unified store folder (and its subagents' folders) into events.

    With a ``sink``, events go to it in batches of ``BATCH`` as they are made (the projection
    is read one chunk at a time), so memory holds one chunk, the model's calls and a batch;
    without, they collect in ``SessionRead.events``."""

    def __init__(
        self,
        received_at: str,
        sink: Callable[[list[dict[str, Any]]], None] | None = None,
        guides: dict[tuple[str, str | None], list[tuple[str, str | None]]] | None = None,
    ) -> None:
        self.received_at = received_at
        self.sink = sink
        # The start guides (path, text) by (working folder, $VIBE_HOME): an import of many
        # sessions of one project finds them once (a walk up to the git root, a stat and a
        # read per folder), not once per store. Shared by the readers of one import.
        self._guides = {} if guides is None else guides
        self._inner: dict[str, tuple[str, str]] = {}  # outer call id -> first, last inner ts
        # store folder -> whether its chunks/ is a symbolic link (``_linked``), looked at once
        # per store, not once per chunk
        self._chunks_linked: dict[str, str | None] = {}

    def read(self, folder: str) -> SessionRead:
        out = SessionRead(folder, "unified")
        store = self._load(folder, out)
        if store is None:
            return out
        out.session_id = store.root_id
        out.readable = True
        lane = None if store.parent_id is None else store.session_id
        if lane is None:
            self._start_guides(store, out)
        self._events(store, out, lane=lane)
        if self.sink is not None and out.events:
            self.sink(out.events)
            out.events = []
        return out

    # -- loading

    def _file(self, out: SessionRead, path: str, what: str, optional: bool = False) -> Any:
        """``path``'s JSON, or None with a problem noted. ``optional``: a file that does not
        exist (``os.path.exists``) is None without one, told from the failed read, not by a
        stat before every read."""
        try:
            value = read_json(path)
        except StoreError as exc:
            if optional and not os.path.exists(path):
                return None
            out.problems.append(Problem(path, f"{what}: {exc}"))
            return None
        out.files.append(path)
        return value

    def _load(self, folder: str, out: SessionRead) -> _Store | None:
        current = self._file(out, os.path.join(folder, "CURRENT"), "CURRENT")
        if not isinstance(current, dict):
            if current is not None:
                out.problems.append(Problem(os.path.join(folder, "CURRENT"), "not an object"))
            return None
        fmt = current.get("store_format")
        if not (isinstance(fmt, str) and fmt.startswith(STORE_FORMAT)):
            out.problems.append(
                Problem(
                    os.path.join(folder, "CURRENT"),
                    f"store_format {fmt!r} is not {STORE_FORMAT}*; not read",
                )
            )
            return None
        gen = current.get("generation")
        gen_name = gen if isinstance(gen, str) else f"{gen:016d}" if isinstance(gen, int) else ""
        if not gen_name or "/" in gen_name or "\0" in gen_name or gen_name.startswith("."):
            out.problems.append(Problem(os.path.join(folder, "CURRENT"), f"bad generation {gen!r}"))
            return None
        gen_dir = os.path.join(folder, "generations", gen_name)
        linked = _linked(folder, "generations", f"generations/{gen_name}")
        if linked:
            out.problems.append(Problem(linked, "a symbolic link; not followed"))
            return None
        manifest = self._file(out, os.path.join(gen_dir, "manifest.json"), "manifest")
        if not isinstance(manifest, dict):
            return None
        listing = self._listing(folder, gen_name, manifest, "projection_state", out)
        checkpoint = _checkpoint_calls(
            e
            for chunk in self._listing(folder, gen_name, manifest, "checkpoint", out)
            for e in self._chunk(folder, gen_name, "checkpoint", chunk, out)
        )
        state = self._file(out, os.path.join(gen_dir, "projection-state.json"), "projection")
        session: dict[str, Any] = {}
        open_turn = None
        if isinstance(state, dict) and isinstance(state.get("snapshot"), dict):
            found = state["snapshot"].get("session")
            session = found if isinstance(found, dict) else {}
            latest = _obj(state["snapshot"].get("latestTurn"))
            if latest.get("status") in ("in_progress", "running", "queued", "pending"):
                open_turn = _str(latest.get("id"))
        meta_path = os.path.join(folder, "meta.json")
        meta = self._file(out, meta_path, "meta.json", optional=True)
        sid = (
            _str(session.get("id"))
            or _str(current.get("session_id"))
            or _str(manifest.get("session_id"))
            or os.path.basename(folder)
        )
        parent = _str(session.get("parentSessionId"))
        root = _str(session.get("rootSessionId")) or (parent or sid)
        cwd = None
        if isinstance(meta, dict) and isinstance(meta.get("environment"), dict):
            cwd = _str(meta["environment"].get("working_directory"))
        return _Store(
            folder,
            sid,
            root,
            parent,
            session.get("createdAt"),
            listing,
            checkpoint,
            cwd,
            gen_name,
            open_turn,
            _obj(session.get("tokenUsage")) or None,
            session.get("updatedAt"),
        )

    def _listing(
        self, folder: str, gen: str, manifest: dict[str, Any], section: str, out: SessionRead
    ) -> list[str]:
        """The chunk names ``manifest`` lists for ``section`` (each reported if malformed)."""
        where = os.path.join(folder, f"generations/{gen}/manifest.json")
        part = manifest.get(section)
        listed = part.get("chunks") if isinstance(part, dict) else None
        if not isinstance(listed, list):
            out.problems.append(Problem(where, f"no {section} chunk list"))
            return []
        names = []
        for n, sha in enumerate(listed):
            if isinstance(sha, str) and sha.isalnum():
                names.append(f"{n + 1}/{len(listed)}/{sha}")
            else:
                out.problems.append(Problem(where, f"{section} chunk {n + 1}: bad name {sha!r}"))
        return names

    def _chunk(
        self, folder: str, gen: str, section: str, listed: str, out: SessionRead
    ) -> list[dict[str, Any]]:
        """One chunk's entries, checked against its name; [] (and a problem) when it cannot be
        read."""
        n, total, sha = listed.split("/")
        where = f"generations/{gen}/manifest.json"
        path = os.path.join(folder, "chunks", f"{sha}.json")
        try:
            linked = self._chunks_linked.get(folder, False)
            if linked is False:
                linked = self._chunks_linked[folder] = _linked(folder, "chunks")
            if linked:
                raise StoreError("its folder chunks/ is a symbolic link; not followed")
            data = read_bytes(path)
            # Vibe names a chunk by the sha256 of its body without the closing newline
            # ([SRC] _storage.py ``_read_document_body``).
            body = data[:-1] if data.endswith(b"\n") else data
            if hashlib.sha256(body).hexdigest() != sha.lower():
                raise StoreError("content does not match its sha256 name (corrupt)")
            value = _loads(body)
        except StoreError as exc:
            out.problems.append(
                Problem(
                    path,
                    f"{section} chunk {n} of {total} ({where}): {exc}; "
                    "its entries are not imported",
                )
            )
            return []
        out.files.append(path)
        if not isinstance(value, list):
            out.problems.append(Problem(path, f"{section} chunk is not a JSON array"))
            return []
        return [e for e in value if isinstance(e, dict)]

    # -- events

    def _new(
        self,
        store: _Store,
        kind: str,
        ident: Any,
        ts: str | None,
        lane: str | None,
        turn: str | None,
        seq: int,
    ) -> dict[str, Any]:
        ev = _event(store.root_id, kind, self.received_at, ts, (store.session_id, ident))
        _lane_fields(ev, store.cwd, lane, seq)
        if turn:
            ev["prompt_id"] = turn
        return ev

    def _events(self, store: _Store, out: SessionRead, lane: str | None) -> None:
        calls = store.calls
        by_name: dict[str, deque[_Call]] = {}
        for call in calls:
            by_name.setdefault(qualified(call.name) or call.name, deque()).append(call)
        by_id = {c.call_id: c for c in calls}
        notices: list[tuple[Any, str]] = []  # pre_tool hook runs seen so far (nested call ids)
        used_notices: set[str] = {c.call_id for c in calls}
        last_ts: str | None = iso_ms(store.created_at)
        folder = os.path.basename(store.path)
        # A turn's last assistant message is its stop: held until the next one of its turn.
        pending: dict[Any, tuple[dict[str, Any], Any]] = {}
        seq = 0
        for chunk in store.projection:
            for entry in self._chunk(store.path, store.gen, "projection_state", chunk, out):
                seq += 1
                etype = entry.get("type")
                ts = iso_ms(entry.get("createdAt")) or last_ts
                last_ts = ts or last_ts
                turn = _str(entry.get("turnId"))
                if etype == "message":
                    self._message(store, entry, ts, lane, turn, seq, folder, pending, out)
                elif etype == "effect":
                    joined = self._join(entry, by_name, by_id, notices, used_notices)
                    self._effect(store, entry, joined, ts, lane, turn, seq, out)
                elif etype == "notice":
                    notice = _pre_tool_notice(entry)
                    if notice is not None:
                        notices.append(notice)
                else:
                    key = f"projection entry {etype!r}"
                    out.not_recorded[key] = out.not_recorded.get(key, 0) + 1
        if store.usage:
            self._usage(store, lane, seq, last_ts, out)
        for turn, (ev, n) in pending.items():
            if turn is not None and turn == store.open_turn:
                continue  # the turn is still running: its stop comes with a later read
            ev["kind"] = "subagent_stop" if lane else "agent_stop"
            ev["id"] = event_id(HARNESS, SOURCE, store.root_id, ev["kind"], store.session_id, n)
            ev["ok"] = True
            self._emit(out, ev)
        # Model calls no effect stands for: run_typescript (no hook, no effect), and calls of a
        # store whose projection chunk is missing, a call to a tool Vibe does not have. Their
        # times: the calls made inside them (run_typescript), else just after the call joined
        # before settled (the model made this call after that one's result came back).
        before: str | None = iso_ms(store.created_at)
        for call in sorted(calls, key=lambda c: c.position):
            if call.joined:
                before = _shift(call.done, 1) if call.done else (call.ts or before)
                continue
            times = self._inner.pop(call.call_id, None)
            if times:
                ts, done = _shift(times[0], -1), _shift(times[1], 1)
                self._checkpoint_only(store, call, ts, done, lane, out)
            else:
                self._checkpoint_only(store, call, before, before, lane, out)

    def _usage(
        self, store: _Store, lane: str | None, seq: int, last_ts: str | None, out: SessionRead
    ) -> None:
        """The store's token totals so far (``tokenUsage``: ``inputTokens``, ``outputTokens``,
        ``cachedInputTokens``, ``totalTokens``, Vibe 3.0.1) as an ``other`` event, one per
        generation: a later import of the grown store adds the larger totals, and
        ``usage_totals`` takes a store's largest (``usage_scope: "session"``)."""
        ts = iso_ms(store.updated_at) or last_ts
        ev = self._new(store, "other", ("usage", store.gen), ts, lane, None, seq + 1)
        ev["extra"] = {
            "file": os.path.basename(store.path),
            "line_type": "tokenUsage",
            "usage": store.usage,
            "usage_scope": "session",
            "store": store.session_id,
        }
        self._emit(out, ev)

    def _message(
        self,
        store: _Store,
        entry: dict[str, Any],
        ts: str | None,
        lane: str | None,
        turn: str | None,
        seq: int,
        folder: str,
        pending: dict[Any, tuple[dict[str, Any], Any]],
        out: SessionRead,
    ) -> None:
        role = entry.get("role")
        if role == "user":
            if entry.get("source") not in (None, "turn_start"):
                out.not_recorded["injected user message"] = (
                    out.not_recorded.get("injected user message", 0) + 1
                )
                return
            ev = self._new(store, "prompt", entry.get("id"), ts, lane, turn, seq)
        elif role == "assistant":
            ev = self._new(store, "other", entry.get("id"), ts, lane, turn, seq)
        else:
            return
        ev["text"] = _text(entry.get("content"))
        ev["extra"] = {"file": folder, "entry": _str(entry.get("id")), "line_type": role}
        if role == "user":
            self._emit(out, ev)
            return
        earlier = pending.get(turn)
        if earlier is not None:
            self._emit(out, earlier[0])  # not the turn's last: narration (kind other)
        pending[turn] = (ev, entry.get("id"))

    def _emit(self, out: SessionRead, ev: dict[str, Any]) -> None:
        """One event out: to the sink in batches (memory stays a batch), else into ``out``."""
        cid = str(ev.get("call_id") or "")
        if cid.startswith(_TS_PREFIX) and cid.count(":") >= 3:
            outer = cid.split(":")[2]
            lo, hi = self._inner.get(outer, (str(ev["ts"]), str(ev["ts"])))
            self._inner[outer] = (min(lo, str(ev["ts"])), max(hi, str(ev["ts"])))
        out.events.append(ev)
        if self.sink is not None and len(out.events) >= BATCH:
            self.sink(out.events)
            out.events = []

    def _join(
        self,
        entry: dict[str, Any],
        by_name: dict[str, deque[_Call]],
        by_id: dict[str, _Call],
        notices: list[tuple[Any, str]],
        used: set[str],
    ) -> _Call | str | None:
        """The model call an effect is (a ``_Call``), a nested call's id (``str``), or None."""
        eid = str(entry.get("id") or "")
        if eid.startswith(_DISCOVERY_PREFIX):
            found = by_id.get(eid[len(_DISCOVERY_PREFIX) :])
            if found is not None and not found.joined:
                found.joined = True
                return found
        detail = _obj(entry.get("detail"))
        name = _str(detail.get("toolName")) or _str(entry.get("title"))
        spawn = _spawn_meta(entry).get("spawnCallId")
        if isinstance(spawn, str) and spawn:
            used.add(spawn)
            if spawn in by_id and not by_id[spawn].joined:
                by_id[spawn].joined = True
                return by_id[spawn]
            return spawn
        state = _obj(entry.get("state"))
        if name in (None, _UNNAMED) and state.get("status") == "skipped":
            # A call the harness did not run (a pre_tool hook denied it, ...): 3.0.1 stores it
            # as "tool" with no input. It is the first model call not yet joined whose result
            # is the skip's reason (the checkpoint's tool message holds that text).
            reason = state.get("reason")
            for call in by_id.values():
                if not call.joined and call.outcome == "failure" and call.result == reason:
                    call.joined = True
                    used.add(call.call_id)
                    return call
        effect_input = legacy_input(name, detail.get("input"))
        candidates = by_name.get(name or "", deque())
        # Calls are joined nearly in order: skip the joined head once, not on every effect.
        while candidates and candidates[0].joined:
            candidates.popleft()
        for call in candidates:
            if call.joined:
                continue
            if _agree(legacy_input(name, call.args), effect_input):
                call.joined = True
                used.add(call.call_id)
                return call
        # A call made inside run_typescript: the hook run Vibe noted for it, if any.
        created = entry.get("createdAt")
        for when, cid in notices:
            if cid in used or not cid.startswith(_TS_PREFIX):
                continue
            timed = isinstance(when, int | float) and isinstance(created, int | float)
            if timed and when > created:
                break
            used.add(cid)
            return cid
        return None

    def _effect(
        self,
        store: _Store,
        entry: dict[str, Any],
        call: _Call | str | None,
        ts: str | None,
        lane: str | None,
        turn: str | None,
        seq: int,
        out: SessionRead,
    ) -> None:
        detail = _obj(entry.get("detail"))
        state = _obj(entry.get("state"))
        name = _str(detail.get("toolName")) or _str(entry.get("title"))
        eid = str(entry.get("id") or "")
        raw_input = detail.get("input")
        if isinstance(call, _Call):
            call_id: str = call.call_id
            call.ts = ts
            if not name or name == _UNNAMED or eid.startswith(_DISCOVERY_PREFIX):
                name = qualified(call.name) or call.name
            if raw_input is None:
                raw_input = call.args
        elif isinstance(call, str):
            call_id = call
        else:
            call_id = f"vibe-effect:{eid.removeprefix('effect-')}"
        tool_input = legacy_input(name, raw_input)
        extra: dict[str, Any] = {"file": os.path.basename(store.path), "entry": eid}
        if isinstance(call, _Call):
            extra["model_tool_name"] = call.name
        elif call is None:
            extra["call_id_inferred"] = "none in the store: a call made inside run_typescript"
        kind_of = _str(detail.get("kind"))
        if kind_of:
            extra["effect_kind"] = kind_of
        ev = self._new(store, "tool_call", ("call", eid), ts, lane, turn, seq)
        ev.update(tool_name=name, tool=canonical_tool(name), call_id=call_id, input=tool_input)
        ev["path"] = tool_path(tool_input)
        ev["ok"] = None
        ev["extra"] = dict(extra)
        _blind(ev, lane)
        self._emit(out, ev)
        child = _str(detail.get("childSessionId"))
        if child:
            self._subagent(store, entry, child, call_id, ts, turn, seq, out)
        status_raw = _str(state.get("status"))
        if status_raw in (None, "running", "pending"):
            return  # not settled yet: a later import adds its result
        status = _status(status_raw, state)
        output = _effect_output(state)
        saved = _saved_output(store.path, output)
        if saved is not None:
            output = saved
        error = state.get("error") if isinstance(state.get("error"), dict) else None
        done = iso_ms(entry.get("updatedAt")) or ts
        if isinstance(call, _Call):
            call.done = done
        kind = {"ok": "tool_result", "refused": "permission"}.get(status, "tool_error")
        res = self._new(store, kind, ("result", eid), done, lane, turn, seq)
        res.update(tool_name=name, tool=canonical_tool(name), call_id=call_id)
        res["output"] = output
        res["status"] = status
        res["ok"] = STATUS_OK[status]
        res["error"] = _str(error.get("message")) if error else _str(state.get("reason"))
        rextra = dict(extra, effect_status=status_raw)
        if saved is not None:
            rextra["output_from"] = _SAVED_DIR
        code = shell_exit_code(name, output)
        if code is not None:
            rextra["exit_code"] = code
        if isinstance(call, _Call) and call.outcome:
            rextra["checkpoint_outcome"] = call.outcome
        res["extra"] = rextra
        _blind(res, lane)
        self._emit(out, res)
        self._lazy_guides(store, state, call_id, done, lane, turn, seq, out)

    def _start_guides(self, store: _Store, out: SessionRead) -> None:
        """The rule files Vibe puts in the system prompt at start (real-harnesses.md; next-
        capabilities.md §1.2): ``$VIBE_HOME/AGENTS.md`` and each ``AGENTS.md`` from the
        project's git root (else the working folder alone) down to the working folder. The
        store keeps no system prompt, so the text is the file's now: ``extra.text_read_at``
        says so."""
        from trace_ingest.guides import VIBE_RULE_FILES, read_guide_text, rule_files

        if not store.cwd or not os.path.isabs(store.cwd):
            return
        vibe_home = _vibe_home_of(store.path)
        found = self._guides.get((store.cwd, vibe_home))
        if found is None:
            paths = []
            if vibe_home:
                paths += rule_files(vibe_home, VIBE_RULE_FILES)
            for folder in _project_chain(store.cwd):
                paths += rule_files(folder, VIBE_RULE_FILES)
            found = [(path, read_guide_text(path)) for path in paths]
            if len(self._guides) < _GUIDES_KEPT:
                self._guides[(store.cwd, vibe_home)] = found
        ts = iso_ms(store.created_at)
        for n, (path, text) in enumerate(found):
            ev = self._new(store, "guide_loaded", ("guide", path), ts, None, None, n)
            ev["path"] = path
            ev["text"] = text
            ev["extra"] = {
                "file": os.path.basename(store.path),
                "reason": "session_start",
                "text_read_at": "import",
            }
            self._emit(out, ev)

    def _lazy_guides(
        self,
        store: _Store,
        state: dict[str, Any],
        call_id: str,
        ts: str | None,
        lane: str | None,
        turn: str | None,
        seq: int,
        out: SessionRead,
    ) -> None:
        """A subfolder's ``AGENTS.md`` that a read below it put in the context: Vibe appends
        ``<vibe_warning>Contents of <path> (project instructions for this directory):\n\n<text>
        </vibe_warning>`` to the tool's output (observed in 3.0.1), exactly as the model saw it."""
        text = state.get("outputText")
        if not isinstance(text, str) or _GUIDE_OPEN not in text:
            return
        for n, (path, body) in enumerate(_injected_guides(text)):
            ev = self._new(store, "guide_loaded", ("guide", path, call_id), ts, lane, turn, seq)
            ev["path"] = path
            ev["text"] = body
            ev["extra"] = {
                "file": os.path.basename(store.path),
                "reason": "nested_traversal",
                "via_call_id": call_id,
                "n": n,
            }
            self._emit(out, ev)

    def _subagent(
        self,
        store: _Store,
        entry: dict[str, Any],
        child: str,
        call_id: str,
        ts: str | None,
        turn: str | None,
        seq: int,
        out: SessionRead,
    ) -> None:
        """A spawn: the child's start, then everything its own store folder holds."""
        detail = _obj(entry.get("detail"))
        spawn_input = _obj(detail.get("input"))
        start = self._new(store, "subagent_start", ("subagent", child), ts, child, turn, seq)
        start["parent_call_id"] = call_id
        agent_type = _str(spawn_input.get("agent")) or _str(_spawn_meta(entry).get("agentType"))
        if agent_type:
            start["agent_type"] = agent_type
        start["text"] = _str(spawn_input.get("task"))
        start["extra"] = {
            "file": os.path.basename(store.path),
            "entry": entry.get("id"),
            "agent_name": detail.get("agentName"),
        }
        self._emit(out, start)
        if os.path.basename(child) != child or not child.startswith(CHILD_PREFIX):
            out.problems.append(Problem(store.path, f"unsafe child session id {child!r}"))
            return
        folder = os.path.join(os.path.dirname(store.path), child)
        if _linked(os.path.dirname(store.path), child):
            out.problems.append(
                Problem(folder, f"subagent {child}'s store is a symbolic link; not followed")
            )
            return
        if not is_unified(folder):
            out.problems.append(
                Problem(folder, f"subagent {child}'s store is missing; its calls are not imported")
            )
            return
        sub = self._load(folder, out)
        if sub is None:
            return
        out.children.append(folder)
        sub.root_id = store.root_id
        sub.cwd = sub.cwd or store.cwd
        self._events(sub, out, lane=child)

    def _checkpoint_only(
        self,
        store: _Store,
        call: _Call,
        ts: str | None,
        done: str | None,
        lane: str | None,
        out: SessionRead,
    ) -> None:
        """A model call no effect stands for, at the times its neighbours give (``ts`` just
        before the calls made inside it, ``done`` just after them; marked inferred)."""
        extra = {
            "file": os.path.basename(store.path),
            "timestamp_inferred": True,
            "from": "checkpoint",
        }
        ev = self._new(store, "tool_call", ("call", call.call_id), ts, lane, None, call.position)
        ev.update(tool_name=call.name, tool=canonical_tool(call.name), call_id=call.call_id)
        ev["input"] = call.args
        ev["path"] = tool_path(call.args)
        parsed = fastjson.parse_or_none(call.result) if call.result else None
        if _error_name(parsed) == _UNKNOWN_TOOL_ERROR:
            extra["hooks_blind"] = BLIND_UNKNOWN
        ev["ok"] = None
        ev["extra"] = dict(extra)
        _blind(ev, lane)
        self._emit(out, ev)
        if call.outcome is None:
            return
        status = "ok" if call.outcome == "success" else "failed"
        kind = "tool_result" if status == "ok" else "tool_error"
        res = self._new(store, kind, ("result", call.call_id), done, lane, None, call.position)
        res.update(tool_name=call.name, tool=canonical_tool(call.name), call_id=call.call_id)
        res["output"] = parsed if parsed is not None else call.result
        res["status"] = status
        res["ok"] = STATUS_OK[status]
        if status == "failed":
            res["error"] = _failure_message(parsed) or call.result
        res["extra"] = dict(extra, checkpoint_outcome=call.outcome)
        _blind(res, lane)
        self._emit(out, res)


_GUIDES_KEPT = 4096  # (working folder, $VIBE_HOME) pairs whose start guides one import keeps
_GUIDE_OPEN = "<vibe_warning>\nContents of "
_GUIDE_MID = " (project instructions for this directory):\n\n"
_GUIDE_CLOSE = "\n</vibe_warning>"


def _injected_guides(text: str) -> list[tuple[str, str]]:
    """``(path, text)`` of every guide Vibe appended to a tool's output text."""
    found = []
    start = text.find(_GUIDE_OPEN)
    while start >= 0:
        head = start + len(_GUIDE_OPEN)
        mid = text.find(_GUIDE_MID, head)
        end = text.find(_GUIDE_CLOSE, mid) if mid >= 0 else -1
        if mid < 0 or end < 0:
            break
        path = text[head:mid]
        if os.path.isabs(path) and "\n" not in path:
            found.append((path, text[mid + len(_GUIDE_MID) : end]))
        start = text.find(_GUIDE_OPEN, end)
    return found


def _project_chain(cwd: str) -> list[str]:
    """The folders from the git root above ``cwd`` (if any, below the home folder) down to
    ``cwd``; just ``cwd`` outside a repository."""
    home = os.path.realpath(os.path.expanduser("~"))
    chain = [cwd]
    current = cwd
    while True:
        if os.path.isdir(os.path.join(current, ".git")):
            return chain[::-1]
        parent = os.path.dirname(current)
        if parent == current or os.path.realpath(parent) == home:
            return [cwd]
        chain.append(parent)
        current = parent


def _vibe_home_of(store_path: str) -> str | None:
    """``$VIBE_HOME`` of a store at ``<VIBE_HOME>/logs/session/unified/<id>``, else None."""
    unified = os.path.dirname(os.path.abspath(store_path))
    session = os.path.dirname(unified)
    logs = os.path.dirname(session)
    names = (os.path.basename(unified), os.path.basename(session), os.path.basename(logs))
    if names != ("unified", "session", "logs"):
        return None
    return os.path.dirname(logs)


def _event(
    session_id: str, kind: str, received_at: str, ts: str | None, ident: tuple[Any, ...]
) -> dict[str, Any]:
    return dict(
        new_event(
            harness=HARNESS,
            source=SOURCE,
            session_id=session_id,
            kind=kind,
            received_at=received_at,
            ts=ts,
            id_parts=ident,
        )
    )


def _lane_fields(ev: dict[str, Any], cwd: str | None, lane: str | None, seq: int) -> None:
    if cwd:
        ev["cwd"] = cwd
    if lane:
        ev["agent_id"] = lane
    ev["seq"] = seq


# Why Vibe 3.0.1 fires no hook for a call (real-harnesses.md §1.3): graders do not count its
# absence from the hooks as a gap (scorers.sources, ``extra.hooks_blind``).
BLIND_SUBAGENT = "a subagent's tool calls fire no hook"
BLIND_TOOLS: dict[str, str] = {
    "run_typescript": "run_typescript itself fires no hook (the calls inside it do)",
    "search_tool_functions": "tool discovery runs in the core and fires no hook",
}
# A call to a tool name Vibe does not have: its core answers `InvalidToolCall` ("unsupported
# top-level tool") without running anything, so no hook fires and no effect is stored
# (observed on 3.0.1, docs/testing.md "Vibe").
BLIND_UNKNOWN = "a call to a tool Vibe does not have runs nothing and fires no hook"
_UNKNOWN_TOOL_ERROR = "InvalidToolCall"


def _blind(ev: dict[str, Any], lane: str | None) -> None:
    why = BLIND_SUBAGENT if lane else BLIND_TOOLS.get(str(ev.get("tool_name") or ""))
    if why:
        ev.setdefault("extra", {})["hooks_blind"] = why


def _checkpoint_calls(entries: Iterable[dict[str, Any]]) -> list[_Call]:
    """The model's tool calls with their outcomes, in order. A result's text is kept only
    where it may be needed (the store's effect has the output of a call that succeeded)."""
    calls: list[_Call] = []
    by_id: dict[str, _Call] = {}
    for position, entry in enumerate(entries, 1):
        msg = entry.get("message") if isinstance(entry.get("message"), dict) else None
        if msg is None:
            continue
        role = msg.get("role")
        content = msg.get("content")
        if role == "assistant" and isinstance(content, list):
            for part in content:
                if not isinstance(part, dict) or part.get("type") != "tool_call":
                    continue
                cid = _str(part.get("id"))
                if cid is None or cid in by_id:
                    continue
                args = part.get("arguments")
                value = args.get("value") if isinstance(args, dict) else args
                if value is None and isinstance(args, dict) and isinstance(args.get("raw"), str):
                    value = fastjson.parse_or_none(args["raw"])
                call = _Call(cid, str(part.get("name") or ""), value, position)
                calls.append(call)
                by_id[cid] = call
        elif role == "tool":
            cid = _str(msg.get("tool_call_id"))
            if cid in by_id:
                call = by_id[cid]
                outcome = msg.get("outcome")
                call.outcome = outcome if isinstance(outcome, str) else "success"
                if call.outcome != "success" or qualified(call.name) is None:
                    call.result = _text(content)
    return calls


def _pre_tool_notice(entry: dict[str, Any]) -> tuple[Any, str] | None:
    """(createdAt, toolCallId) of a pre_tool hook run Vibe noted, else None."""
    detail = _obj(entry.get("detail"))
    if detail.get("kind") == "hook_run_started" and detail.get("scope") == "pre_tool":
        cid = _str(detail.get("toolCallId"))
        if cid:
            return entry.get("createdAt"), cid
    return None


def _loads(body: bytes) -> Any:
    """JSON of a store file: orjson where it reads exactly what the strict parser reads
    (``orjson_exact``), else the strict parser (NaN and the like, and integers past 64 bits,
    which orjson would turn into floats, kept as text); StoreError when it is not JSON."""
    value = orjson_exact.loads(body)
    if value is not None:
        return value
    try:
        value, _ = fastjson.loads_strict(body.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise StoreError(f"not UTF-8 (byte {exc.start})") from None
    except ValueError as exc:
        raise StoreError(f"not JSON ({exc})") from None
    except RecursionError:
        raise StoreError("nested too deeply to parse") from None
    return value


def _spawn_meta(entry: dict[str, Any]) -> dict[str, Any]:
    state = _obj(entry.get("state"))
    output = _obj(state.get("output"))
    meta = _obj(output.get("_meta"))
    found = meta.get(_SUBAGENT_META)
    return found if isinstance(found, dict) else {}


def _agree(args: Any, effect_input: Any) -> bool:
    """The model's arguments and an effect's input describe one call: every argument the model
    gave has the same value in the input (Vibe adds defaults such as ``replace_all`` and
    ``deadline_unix_ms``)."""
    if not isinstance(args, dict) or not isinstance(effect_input, dict):
        return args == effect_input or effect_input is None
    return all(effect_input.get(k, v) == v for k, v in args.items())


def _status(raw: str, state: dict[str, Any]) -> str:
    """A ``skipped`` call never ran: a hook, the user or a permission rule said no
    (``refused``), unless its reason says it was cancelled."""
    if raw == "skipped":
        reason = str(state.get("reason") or "").lower()
        return "cancelled" if "cancel" in reason or "interrupt" in reason else "refused"
    return _EFFECT_STATUS.get(raw, "failed")


def _effect_output(state: dict[str, Any]) -> Any:
    output = state.get("output")
    if isinstance(output, dict):
        if "structured_content" in output:
            return output["structured_content"]
        if isinstance(output.get("error"), dict):
            return None
    text = state.get("outputText")
    return text if text else None


# Vibe 3.0.1 keeps a tool output over 16 000 characters out of the context and the store: the
# effect's output (and the model's tool message) become an excerpt that starts with this notice
# and names the file under ``<store>/tool-results/`` holding the whole structured output
# (observed: `seq 1 70000`, docs/testing.md "Vibe"). A shell's exit code is only there.
_SAVED_NOTICE = "<system>The tool output is large."
_SAVED_UNDER = "saved to the file system under "
_SAVED_DIR = "tool-results"


def _saved_output(store_path: str, output: Any) -> Any:
    """The structured output Vibe saved aside for an over-long result, or None.

    Only the file name is taken from the notice (untrusted text, and a store that was moved
    or copied names its old place): the file is the store's own ``tool-results/<name>.json``,
    read without following a link and within MAX_FILE_BYTES."""
    text = output if isinstance(output, str) else None
    if isinstance(output, dict) and isinstance(output.get("content"), list):
        parts = [p.get("text") for p in output["content"] if isinstance(p, dict)]
        text = next((t for t in parts if isinstance(t, str)), None)
    if not text or not text.startswith(_SAVED_NOTICE):
        return None
    start = text.find(_SAVED_UNDER)
    end = text.find(".json", start)
    if start < 0 or end < 0:
        return None
    base = os.path.basename(text[start + len(_SAVED_UNDER) : end + len(".json")])
    folder = os.path.join(store_path, _SAVED_DIR)
    if base in ("", ".json") or _linked(store_path, _SAVED_DIR):
        return None
    try:
        parsed = _loads(read_bytes(os.path.join(folder, base)))
    except StoreError:
        return None
    return parsed if isinstance(parsed, dict) else None


def _result_error(parsed: Any) -> dict[str, Any]:
    """``{"result": {"type": "error", "error": {...}}}`` -> the error object (else empty)."""
    if isinstance(parsed, dict) and isinstance(parsed.get("result"), dict):
        error = parsed["result"].get("error")
        if isinstance(error, dict):
            return error
    return {}


def _failure_message(parsed: Any) -> str | None:
    """``{"result": {"type": "error", "error": {"message": ...}}}`` -> the message."""
    return _str(_result_error(parsed).get("message"))


def _error_name(parsed: Any) -> str | None:
    """The error's ``name`` (``InvalidToolCall``, ``Interrupted``, ``tool_failed``)."""
    return _str(_result_error(parsed).get("name"))


# ---- 2.x folders ---------------------------------------------------------------------------

_TAG_STATUS = (
    ("<user_cancellation>", "cancelled"),
    ("<tool_error>", "failed"),
)


def _legacy_status(text: str | None) -> tuple[str, str | None]:
    """What became of a 2.x call, from its tool message (harnesses.md §3.3)."""
    body = (text or "").strip()
    for tag, status in _TAG_STATUS:
        if body.startswith(tag):
            inner = body[len(tag) :]
            close = "</" + tag[1:]
            inner = inner[: inner.rfind(close)] if close in inner else inner
            if status == "failed" and "was denied by hook" in inner:
                return "refused", inner.strip()
            return status, inner.strip()
    return "ok", None


def read_lines(path: str, limit: int = MAX_LINE_BYTES) -> Iterator[tuple[int, bytes | None]]:
    """``(line number, bytes)`` of a JSON-lines file, streaming; a line over ``limit`` bytes
    comes back as None (its rest is skipped, never held). Opens at once (StoreError)."""
    return _lines_of(os.fdopen(_open_regular(path), "rb"), limit)


def _lines_of(fh: Any, limit: int) -> Iterator[tuple[int, bytes | None]]:
    with fh:
        number = 0
        while True:
            line = fh.readline(limit + 1)
            if not line:
                return
            number += 1
            if len(line) > limit and not line.endswith(b"\n"):
                while True:  # drain the rest of the oversize line in bounded pieces
                    more = fh.readline(1 << 20)
                    if not more or more.endswith(b"\n"):
                        break
                yield number, None
                continue
            yield number, line


class LegacyReader:
    """Reads one 2.x session folder (``meta.json`` + ``messages.jsonl``) into events."""

    def __init__(self, received_at: str) -> None:
        self.received_at = received_at

    def read(self, folder: str) -> SessionRead:
        out = SessionRead(folder, "legacy")
        meta_path = os.path.join(folder, "meta.json")
        meta: dict[str, Any] = {}
        if os.path.exists(meta_path):
            try:
                found = read_json(meta_path)
                meta = found if isinstance(found, dict) else {}
                out.files.append(meta_path)
            except StoreError as exc:
                out.problems.append(Problem(meta_path, f"meta.json: {exc}; session id from name"))
        name = os.path.basename(folder)
        sid = _str(meta.get("session_id")) or name
        parent = _str(meta.get("parent_session_id"))
        out.session_id = parent or sid
        lane = sid if parent else None
        start = iso_ms(meta.get("start_time")) or self.received_at
        env = _obj(meta.get("environment"))
        cwd = _str(env.get("working_directory"))
        path = os.path.join(folder, "messages.jsonl")
        calls: dict[str, tuple[str, int]] = {}  # call id -> (tool name, line)
        pending_stop: dict[str, Any] | None = None
        try:
            lines = self._lines(read_lines(path), path, out)  # streamed: memory stays flat
        except StoreError as exc:
            out.problems.append(Problem(path, f"messages.jsonl: {exc}"))
            return out
        out.files.append(path)
        out.readable = True

        def new(kind: str, ident: Any, number: int) -> dict[str, Any]:
            ev = _event(out.session_id, kind, self.received_at, start, (sid, number, ident))
            _lane_fields(ev, cwd, lane, number)
            ev["extra"] = {
                "file": f"{name}/messages.jsonl",
                "line": number,
                "timestamp_inferred": True,
            }
            return ev

        for number, msg in lines:
            role = msg.get("role")
            if role == "system":
                out.not_recorded["system prompt"] = out.not_recorded.get("system prompt", 0) + 1
                continue
            if role == "user":
                if pending_stop is not None:
                    out.events.append(pending_stop)
                    pending_stop = None
                if msg.get("injected"):
                    ev = new("other", "injected", number)
                    ev["text"] = _text(msg.get("content"))
                    ev["extra"]["text_kind"] = "injected"
                else:
                    ev = new("prompt", "prompt", number)
                    ev["text"] = _text(msg.get("content"))
                out.events.append(ev)
            elif role == "assistant":
                tool_calls = msg.get("tool_calls")
                text = _text(msg.get("content"))
                if isinstance(tool_calls, list) and tool_calls:
                    pending_stop = None
                    for n, call in enumerate(tool_calls):
                        self._legacy_call(call, n, number, new, calls, out)
                    continue
                pending_stop = new("agent_stop" if not lane else "subagent_stop", "stop", number)
                pending_stop["text"] = text
                pending_stop["ok"] = True
            elif role == "tool":
                cid = _str(msg.get("tool_call_id"))
                text = _text(msg.get("content"))
                status, error = _legacy_status(text)
                tool = _str(msg.get("name")) or (calls.get(cid or "", ("", 0))[0] or None)
                kind = "tool_result" if status == "ok" else "tool_error"
                ev = new(kind, ("result", cid), number)
                ev.update(tool_name=tool, tool=canonical_tool(tool), call_id=cid, output=text)
                ev["status"] = status
                ev["ok"] = STATUS_OK[status]
                ev["error"] = error
                code = shell_exit_code(tool, None, text)
                if code is not None:
                    ev["extra"]["exit_code"] = code
                out.events.append(ev)
            else:
                key = f"message role {role!r}"
                out.not_recorded[key] = out.not_recorded.get(key, 0) + 1
        if pending_stop is not None:
            out.events.append(pending_stop)
        return out

    def _lines(
        self, raw: Iterator[tuple[int, bytes | None]], path: str, out: SessionRead
    ) -> Iterator[tuple[int, dict[str, Any]]]:
        for number, data in raw:
            if data is None:
                out.problems.append(Problem(path, f"line {number}: longer than the line limit"))
                continue
            if not data.strip():
                continue
            value = orjson_exact.loads(data)  # the strict parser's value, when it can tell
            try:
                if value is None:
                    value, _ = fastjson.loads_strict(data.decode("utf-8"))
            except UnicodeDecodeError as exc:
                out.problems.append(Problem(path, f"line {number}: not UTF-8 (byte {exc.start})"))
                continue
            except (ValueError, RecursionError) as exc:
                reason = "truncated" if not data.endswith(b"\n") else f"not JSON ({exc})"
                out.problems.append(Problem(path, f"line {number}: {reason}"))
                continue
            if not isinstance(value, dict):
                out.problems.append(Problem(path, f"line {number}: not a JSON object"))
                continue
            yield number, value

    def _legacy_call(
        self,
        call: Any,
        n: int,
        number: int,
        new: Any,
        calls: dict[str, tuple[str, int]],
        out: SessionRead,
    ) -> None:
        if not isinstance(call, dict):
            out.problems.append(
                Problem("messages.jsonl", f"line {number}: tool call {n} not an object")
            )
            return
        fn = _obj(call.get("function"))
        tool = _str(fn.get("name"))
        args = fn.get("arguments")
        if isinstance(args, str):
            parsed = fastjson.parse_or_none(args)
            args = parsed if parsed is not None else args
        cid = _str(call.get("id"))
        ev = new("tool_call", ("call", cid, n), number)
        ev.update(tool_name=tool, tool=canonical_tool(tool), call_id=cid, input=args)
        ev["path"] = tool_path(args)
        ev["ok"] = None
        if cid:
            calls[cid] = (tool or "", number)
        out.events.append(ev)


# ---- the import ----------------------------------------------------------------------------

HELP = """Import Mistral Vibe sessions: the 3.x unified session store and 2.x session folders.

FILE_OR_DIR is a session's store folder (``~/.vibe/logs/session/unified/<id>``, the one with
CURRENT), a 2.x ``session_<time>_<id>`` folder (meta.json + messages.jsonl), or any folder
above them, such as ~/.vibe or ~/.vibe/logs/session (every session under it). A subagent's
``child-*`` store is read with its parent, its calls in the subagent's lane. A missing or
corrupt file (a chunk, the manifest) is named with what it held; the rest is still imported.
Exit 1 only when nothing could be read, or an event could not be scrubbed.
"""


class VibeImporter:
    """Imports Vibe session folders into ``$TRAIL_HOME`` on the shared pipeline
    (``_pipeline.ImportRun``: report, dedupe, scrub, append); one per ``trail import``."""

    def __init__(self, home: str | None = None, task: str | None = None) -> None:
        from trace_ingest.importers._pipeline import ImportRun

        self.run_ = ImportRun(HARNESS, SOURCE, home, task)

    def run(self, paths: Iterable[str]) -> ImportReport:
        from trace_ingest.importers._pipeline import FileSummary

        listed = list(paths)
        read_any = False
        report = self.run_.report
        guides: dict[tuple[str, str | None], list[tuple[str, str | None]]] = {}
        for kind, folder in find_sessions(listed):
            summary = FileSummary(folder)
            report.files.append(summary)

            def sink(
                batch: list[dict[str, Any]], folder: str = folder, summary: FileSummary = summary
            ) -> None:
                self.run_.write(folder, summary, ((ev.get("seq") or 0, ev) for ev in batch))

            if kind == "unified":
                session = UnifiedReader(self.run_.received_at, sink, guides).read(folder)
            else:
                session = LegacyReader(self.run_.received_at).read(folder)
                sink(session.events)
            summary.lines = len(session.files)
            read_any = read_any or session.readable
            self._report(session)
        if not read_any and not report.errors:
            report.errors.append(
                {"file": ", ".join(listed), "error": "no Vibe session could be read there"}
            )
        return self.run_.finish()

    def _report(self, session: SessionRead) -> None:
        report = self.run_.report
        if not session.readable:
            for problem in session.problems:
                report.errors.append({"file": problem.file, "error": problem.reason})
            return
        for problem in session.problems:
            report.warnings.append(f"{problem.file}: {problem.reason}")
        for key, n in session.not_recorded.items():
            report.not_recorded[key] = report.not_recorded.get(key, 0) + n


def import_paths(
    paths: Iterable[str], home: str | None = None, task: str | None = None
) -> ImportReport:
    """Import Vibe session folders (see ``HELP``); returns the report."""
    return VibeImporter(home, task).run(paths)
