"""VS Code's whole-object chat files: ``chatSessions/<id>.json`` (version 3) and Export Chat JSON.

Both are one JSON object whose ``requests`` array can be hundreds of MB. Up to ``WHOLE_LIMIT``
the file is parsed whole (orjson); past it, it is streamed one request at a time with ``ijson``
(an iterative parser with a C backend; docs/importers.md says why it earns its place), so
memory stays flat whatever the file's size. Streaming takes two passes: the top-level fields
VS Code writes *after* ``requests`` (``sessionId``, ``creationDate``: chatModel ``toJSON``
spreads ``toExport()`` first) are read before the requests are mapped. A file that does not
parse whole is streamed too, which keeps the requests before a cut.

An Export Chat file (``IExportableChatData``: ``requests``, ``responderUsername``,
``initialLocation``, no ``sessionId``) takes the id of the chatSessions session holding its
first request when one was read in the same run, else a stable id derived from that request
(``export-<digest>``): importing the same export twice, or a longer export of the same chat,
lands in one session.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Iterator
from typing import Any

import orjson

from trace_ingest._blake import blake2b
from trace_ingest.errors import AdapterError
from trace_ingest.events import Event
from trace_ingest.importers._pipeline import open_regular
from trace_ingest.importers.vscode_chat import ChatContext, prompt_text, request_events
from trace_ingest.importers.vscode_reading import FileReport, file_size, open_repaired
from trace_ingest.vscode_facts import ms_iso

_TOP_SCALARS = frozenset(
    {"sessionId", "version", "creationDate", "lastMessageDate", "customTitle", "exportedAt"}
)
_SCALAR_EVENTS = frozenset({"string", "number", "boolean", "null"})
# Files up to this size are parsed whole with orjson (6x faster than streaming, NC: a usual
# session is a few MB); larger ones are streamed with ijson at flat memory.
WHOLE_LIMIT = 32 << 20


def _parse_errors() -> tuple[type[BaseException], ...]:
    """What a parse of a broken file raises (``ijson.JSONError`` is not a ValueError)."""
    ijson = _ijson()
    return (ValueError, OSError) if ijson is None else (ValueError, OSError, ijson.JSONError)


def _ijson() -> Any:
    try:
        import ijson  # type: ignore[import-untyped]
    except ImportError:  # pragma: no cover - a dependency; reported, then read whole
        return None
    return ijson


def _scan(path: str, report: FileReport) -> dict[str, Any] | None:
    """Top-level scalars and which arrays the object has (None: not readable as JSON)."""
    ijson = _ijson()
    stream, repair = open_repaired(path)
    meta: dict[str, Any] = {"_arrays": set()}
    try:
        with stream:
            if ijson is None:
                obj = json.load(stream)
                if not isinstance(obj, dict):
                    report.error = f"a JSON {type(obj).__name__}, not a chat object"
                    return None
                for key, value in obj.items():
                    if key in _TOP_SCALARS and not isinstance(value, dict | list):
                        meta[key] = value
                    elif isinstance(value, list):
                        meta["_arrays"].add(key)
                report.warnings.append("ijson is not installed: the file was read whole")
                return meta
            depth_ok = False
            for prefix, event, value in ijson.parse(stream, use_float=True):
                if prefix == "" and event == "start_map":
                    depth_ok = True
                elif prefix == "" and event == "start_array":
                    report.error = "a JSON array, not a chat object"
                    return None
                elif prefix in _TOP_SCALARS and event in _SCALAR_EVENTS:
                    meta.setdefault(prefix, value)
                elif event == "start_array" and "." not in prefix:
                    meta["_arrays"].add(prefix)
            if not depth_ok:
                report.error = "not a JSON object"
                return None
    except _parse_errors() as exc:
        if meta.get("_arrays"):
            meta["_truncated"] = _reason(exc)
            return meta
        report.error = f"not readable as JSON: {_reason(exc)}"
        return None
    finally:
        if repair.replaced:
            report.warnings.append(
                f"{repair.replaced} invalid UTF-8 byte(s) (first near byte {repair.first_bad}) "
                "replaced with U+FFFD"
            )
    return meta


def _load_whole(path: str, report: FileReport) -> Any:
    """The whole file parsed at once (orjson), or None to stream it instead (it does not
    parse: the streaming parser then keeps the requests before a cut)."""
    try:
        with open_regular(path) as fh:
            data = fh.read()
    except OSError as exc:
        raise AdapterError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8", "replace")
        report.warnings.append(
            f"invalid UTF-8 byte(s) (first at byte {exc.start}) replaced with U+FFFD"
        )
    del data
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        report.warnings.clear()  # the streaming pass says it again
        return None


def _whole_meta(obj: dict[str, Any]) -> dict[str, Any]:
    meta: dict[str, Any] = {"_arrays": {k for k, v in obj.items() if isinstance(v, list)}}
    for key in _TOP_SCALARS:
        if key in obj and not isinstance(obj[key], dict | list):
            meta[key] = obj[key]
    return meta


def _reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:200] if text else type(exc).__name__


def export_session_id(first: dict[str, Any]) -> str:
    """A stable session id for an Export Chat file, from its first request."""
    rid = first.get("requestId")
    basis: list[object] = (
        [rid]
        if isinstance(rid, str) and rid
        else [
            prompt_text(first.get("message")),
            first.get("timestamp"),
        ]
    )
    digest = blake2b(json.dumps(basis, default=str).encode("utf-8"), digest_size=8).hexdigest()
    return f"export-{digest}"


def read_chat_json(
    path: str,
    received_at: str,
    known_request: Callable[[str], str | None],
    remember: Callable[[str, str], None],
) -> tuple[FileReport, Iterator[Event]]:
    """The report for ``path`` and its events (read lazily; the report fills in as they go).

    ``known_request(request id)`` gives the session of a request read earlier in the run (for
    exports); ``remember(request id, session id)`` records this file's requests.
    """
    report = FileReport(path, format="chatSessions .json")
    return report, _events(path, received_at, report, known_request, remember)


def _events(
    path: str,
    received_at: str,
    report: FileReport,
    known_request: Callable[[str], str | None],
    remember: Callable[[str, str], None],
) -> Iterator[Event]:
    # A file of usual size is parsed whole (fast); a large one is streamed, one request at a
    # time, so memory stays flat (WHOLE_LIMIT).
    whole = _load_whole(path, report) if file_size(path) <= WHOLE_LIMIT else None
    if whole is not None and not isinstance(whole, dict):
        report.error = f"a JSON {type(whole).__name__}, not a chat object"
        return
    meta = _whole_meta(whole) if whole is not None else _scan(path, report)
    if meta is None:
        return
    arrays = meta["_arrays"]
    if "exportedAt" in meta and "prompts" in arrays:
        report.format = "Copilot Chat replay export"
        report.error = (
            "a Copilot Chat debug replay export (exportedAt, prompts[].logs[]): model requests, "
            "not a chat session; not read"
        )
        return
    if "requests" not in arrays:
        report.error = "no top-level requests array: not a VS Code chat session or export"
        return
    sid = meta.get("sessionId") if isinstance(meta.get("sessionId"), str) else None
    if sid:
        version = meta.get("version")
        report.format = (
            f"chatSessions .json (version {version})" if version else "chatSessions .json"
        )
        if version not in (None, 3):
            report.warnings.append(f"version {version!r}: read as version 3")
    elif os.path.basename(os.path.dirname(path)) in ("chatSessions", "emptyWindowChatSessions"):
        # VS Code names the file after the session (chatSessions/<sessionId>.json).
        sid = os.path.splitext(os.path.basename(path))[0]
        report.format = "chatSessions .json (no sessionId: file name used)"
    else:
        report.format = "Export Chat JSON"
    ctx: ChatContext | None = None
    if sid:
        ctx = _context(sid, path, received_at, meta)
        report.sessions.add(sid)
    ijson = _ijson()
    if whole is not None:
        stream: Any = contextlib.nullcontext()
        items: Iterator[Any] = iter(whole.get("requests") or [])
    else:
        stream, _repair = open_repaired(path)
        items = (
            ijson.items(stream, "requests.item", use_float=True)
            if ijson is not None
            else iter(json.load(stream).get("requests") or [])
        )
    try:
        with stream:
            for index, request in enumerate(items):
                report.lines += 1
                if ctx is None:
                    first = request if isinstance(request, dict) else {}
                    rid = first.get("requestId")
                    sid = (known_request(rid) if isinstance(rid, str) else None) or (
                        export_session_id(first)
                    )
                    ctx = _context(sid, path, received_at, meta)
                    report.sessions.add(sid)
                    if known_request(rid) if isinstance(rid, str) else False:
                        report.warnings.append(
                            f"export merged into chat session {sid} (its first request)"
                        )
                if isinstance(request, dict) and isinstance(request.get("requestId"), str):
                    remember(request["requestId"], ctx.session_id)
                yield from request_events(ctx, request, index)
    except _parse_errors() as exc:
        report.skip(
            report.lines + 1, f"file cut short after {report.lines} request(s): {_reason(exc)}"
        )
    if ctx is not None:
        report.not_recorded.update(ctx.not_recorded)
        if ctx.pending:
            report.not_recorded["request still running (no end recorded yet)"] += ctx.pending
    elif not report.skips:
        report.warnings.append("no requests: nothing to record")


def _context(sid: str, path: str, received_at: str, meta: dict[str, Any]) -> ChatContext:
    return ChatContext(
        session_id=sid,
        file=path,
        received_at=received_at,
        session_ts=ms_iso(meta.get("creationDate")),
    )
