"""Import Claude Code session transcripts: ``~/.claude/projects/<project>/<session>.jsonl``.

Also ``<session>/subagents/agent-<id>.jsonl`` (with its ``agent-<id>.meta.json`` sidecar) and
the legacy ``agent-<id>.jsonl`` sidechain files. Line shapes: shared/reference/harnesses.md
§1.7. The mapping, what is skipped and why, and the limits are in docs/importers.md.

Events land in the same ``sessions/claude-code/<key>/trace.jsonl`` the hook writes (the key comes
from the line's ``sessionId``), so one session recorded by both is one session. Ids are
deterministic (line ``uuid`` and content index), and ids already in the trace are not written
again: importing a file twice adds nothing.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from trace_ingest._blake import blake2b
from trace_ingest.config import load_config
from trace_ingest.errors import AdapterError, TrailError
from trace_ingest.events import new_event, now_iso
from trace_ingest.importers._pipeline import TraceWriter, finish
from trace_ingest.paths import ensure_home, trail_home
from trace_ingest.scrub import load_scrubber
from trace_ingest.tools import canonical_tool, tool_path

HARNESS = "claude-code"
SOURCE = "transcript"

# Line types that hold no agent activity, counted in the report rather than recorded.
IGNORED_TYPES: dict[str, str] = {
    "progress": "UI progress ticks (hook runs, bash output so far, subagent messages that the "
    "subagent's own transcript also holds)",
    "file-history-snapshot": "checkpoint bookkeeping for /rewind (file backup names)",
}
# Line fields that become named event fields (or are otherwise consumed); the rest is extra.
_CONSUMED = frozenset(
    {"type", "message", "sessionId", "session_id", "timestamp", "cwd", "agentId", "toolUseResult"}
)
_ERROR_SUBTYPES = frozenset({"api_error", "error", "api_refusal", "model_refusal_fallback"})
_COMMAND_OUTPUT = ("<local-command-stdout>", "<local-command-stderr>", "<bash-stdout>")
_INTERRUPTED = "[Request interrupted by user"
_JSON_TYPES = {
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "a boolean",
    list: "an array",
    type(None): "null",
}
_MAIN = "\x00main"  # pending-stop key of the main agent (agent ids never contain NUL)


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
            "harness": HARNESS,
            "source": SOURCE,
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


def normalize_ts(value: Any) -> str | None:
    """ISO 8601 UTC with microseconds and ``Z`` (like ``now_iso``); None when not a time.

    Accepts ISO strings (``Z``, offsets, or naive = UTC) and epoch seconds or milliseconds.
    """
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


def find_transcripts(paths: Iterable[str]) -> list[str]:
    """Expand files and folders (searched recursively for ``*.jsonl``) into transcript files.

    Each session's main file comes before agent files, so subagent events find their parent's
    tool names already known. Raises TrailError for a path that does not exist.
    """
    found: dict[str, None] = {}
    for given in paths:
        if os.path.isdir(given):
            for root, dirs, files in os.walk(given):
                dirs.sort()
                for name in sorted(files):
                    if name.endswith(".jsonl"):
                        found.setdefault(os.path.join(root, name))
        elif os.path.exists(given):
            found.setdefault(given)
        else:
            raise TrailError(f"{given}: no such file or directory")
    return sorted(found, key=lambda p: (_agent_file_id(p) is not None, p))


def _agent_file_id(path: str) -> str | None:
    name = os.path.basename(path)
    if name.startswith("agent-") and name.endswith(".jsonl") and len(name) > len("agent-.jsonl"):
        return name[len("agent-") : -len(".jsonl")]
    return None


def _fallback_session(path: str) -> str:
    """Session id for lines without one: ``<session>/subagents/agent-x.jsonl`` -> ``<session>``."""
    parent = os.path.dirname(os.path.abspath(path))
    if _agent_file_id(path) is not None and os.path.basename(parent) == "subagents":
        return os.path.basename(os.path.dirname(parent))
    name = os.path.basename(path)
    return name[: -len(".jsonl")] if name.endswith(".jsonl") else name


_SID = re.compile(rb'"(?:sessionId|session_id)"\s*:\s*"([^"\\]{1,200})"')


def _first_session_id(path: str, head_bytes: int = 1 << 20) -> str | None:
    """The first sessionId in the file's first MiB (for lines before it, which have none)."""
    try:
        with open(path, "rb") as fh:
            match = _SID.search(fh.read(head_bytes))
    except OSError:
        return None  # reported when the file is read
    return match.group(1).decode("utf-8", "replace") if match else None


def _read_lines(path: str, limit: int) -> Iterator[tuple[int, bytes | None, int, bool]]:
    """Yield ``(line number, bytes or None when over limit, size, is last line)``."""
    try:
        with open(path, "rb") as fh:
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


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _text_of(content: Any) -> str | None:
    """The text of a tool_result's content: a string, or the text blocks of a list."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            b["text"]
            for b in content
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
        ]
        return "\n".join(parts) if parts else None
    return None


def _error_text(content: Any) -> str | None:
    text = _text_of(content)
    if text is None:
        return None
    stripped = text.strip()
    if stripped.startswith("<tool_use_error>") and stripped.endswith("</tool_use_error>"):
        return stripped[len("<tool_use_error>") : -len("</tool_use_error>")]
    return text


def _strip_images(value: Any) -> Any:
    """Replace base64 image data with its size: pictures are not kept in traces."""
    if isinstance(value, list):
        return [_strip_images(v) for v in value]
    if isinstance(value, dict):
        source = value.get("source")
        if value.get("type") == "image" and isinstance(source, dict):
            data = source.get("data")
            if isinstance(data, str):
                kept = {k: v for k, v in source.items() if k != "data"}
                kept["data"] = f"[trail: image data omitted, {len(data)} base64 chars]"
                return {**value, "source": kept}
        return value
    return value


@dataclass
class _Line:
    """One parsed transcript line and its envelope facts."""

    number: int
    obj: dict[str, Any]
    ident: str  # id base: the line's uuid (or a digest of its bytes when it has none)
    session_id: str
    ts: str | None
    agent_id: str | None
    agent_key: str  # whose turn this is: _MAIN, an agent id, or "sidechain"
    line_type: str


class ClaudeTranscriptImporter:
    """Imports transcript files into ``$TRAIL_HOME``; one instance per ``trail import`` run."""

    def __init__(self, home: str | None = None, task: str | None = None) -> None:
        self.home = ensure_home(home or trail_home())
        capture = load_config(self.home)["capture"]
        self.limit = int(capture["max_field_chars"])
        self.max_line = int(capture["max_payload_bytes"])
        self.scrubber = load_scrubber(self.home)
        self.writer = TraceWriter(self.home, HARNESS, self.scrubber)
        self.report = ImportReport(task=task)
        self.received_at = now_iso()
        self._tool_names: dict[tuple[str, str], str] = {}  # (session, call id) -> tool name
        self._seen_ids: set[tuple[str, str]] = set()  # (session, id) produced by this run
        self._uuid_digest: dict[tuple[str, str], str] = {}  # (session, uuid) -> first line

    def run(self, paths: Iterable[str]) -> ImportReport:
        for path in find_transcripts(paths):
            try:
                self.import_file(path)
            except AdapterError as exc:
                self.report.errors.append({"file": path, "error": str(exc)})
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

    def import_file(self, path: str) -> FileSummary:
        """Import one transcript file (raises AdapterError when it cannot be read)."""
        state = _FileState(self, path)
        summary = state.summary
        self.report.files.append(summary)
        for number, data, size, is_last in _read_lines(path, self.max_line):
            summary.lines += 1
            state.feed(number, data, size, is_last)
        state.close()
        self._write(state)
        return summary

    def _write(self, state: _FileState) -> None:
        summary = state.summary
        by_session: dict[str, list[dict[str, Any]]] = {}
        for number, ev in state.events:
            sid = ev["session_id"]
            key = (sid, ev["id"])
            summary.events += 1
            if key in self._seen_ids:
                summary.duplicates += 1
                continue
            self._seen_ids.add(key)
            if self.writer.known(sid, ev["id"]):
                summary.already_present += 1
                continue
            try:
                clean = finish(ev, self.scrubber, self.limit)
            except Exception as exc:  # fail closed: nothing of this event is written
                self.report.errors.append(
                    {
                        "file": state.path,
                        "error": f"line {number}: scrubbing failed "
                        f"({type(exc).__name__}); event not written",
                    }
                )
                continue
            for rule, n in clean.get("redactions", {}).items():
                self.report.redactions[rule] = self.report.redactions.get(rule, 0) + n
            self.report.truncated_fields += len(clean.get("truncated", {}))
            by_session.setdefault(sid, []).append(clean)
        for sid, events in by_session.items():
            summary.written += self.writer.append(sid, events)


class _FileState:
    """The walk through one file: builds events line by line."""

    def __init__(self, run: ClaudeTranscriptImporter, path: str) -> None:
        self.run = run
        self.path = path
        self.name = os.path.basename(path)
        self.summary = FileSummary(path)
        self.file_agent = _agent_file_id(path)
        self.agent_type = self._meta_agent_type() if self.file_agent else None
        # Lines without a sessionId belong to the session of the lines around them.
        self.session = _first_session_id(path) or _fallback_session(path)
        self.events: list[tuple[int, dict[str, Any]]] = []
        self.pending: dict[str, tuple[_Line, int, str]] = {}  # agent key -> last text block
        self.last_ts: str | None = None
        self.first_ts: str | None = None
        self.waiting: list[dict[str, Any]] = []  # events whose line had no usable time

    # ---- lines ----------------------------------------------------------------------------

    def skip(self, number: int, reason: str) -> None:
        self.summary.skipped += 1
        self.run.report.skipped.append(SkippedLine(self.path, number, reason))

    def feed(self, number: int, data: bytes | None, size: int, is_last: bool) -> None:
        if data is None:
            self.skip(
                number,
                f"line of {size} bytes exceeds capture.max_payload_bytes "
                f"({self.run.max_line}); not parsed",
            )
            return
        if not data.strip():
            return  # a blank line holds nothing
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            self.skip(number, f"invalid UTF-8 at byte {exc.start} of the line; not parsed")
            return
        try:
            obj = json.loads(text)
        except ValueError as exc:
            if is_last:
                self.skip(
                    number,
                    f"truncated last line (incomplete JSON: {exc}); the file may still be "
                    "being written",
                )
            else:
                self.skip(number, f"malformed JSON: {exc}")
            return
        if not isinstance(obj, dict):
            kind = _JSON_TYPES.get(type(obj), type(obj).__name__)
            self.skip(number, f"JSON value is {kind}, not an object")
            return
        line_type = obj.get("type")
        if "type" not in obj:
            self.skip(number, 'object has no "type" field')
            return
        if not isinstance(line_type, str) or not line_type:
            self.skip(number, f'"type" is {json.dumps(line_type)[:40]}, not a line type name')
            return
        if line_type in IGNORED_TYPES:
            self.run.report.ignored[line_type] = self.run.report.ignored.get(line_type, 0) + 1
            return
        rec = self._record(number, obj, data, line_type)
        handler = {
            "user": self._user,
            "assistant": self._assistant,
            "system": self._system,
            "attachment": self._attachment,
            "summary": self._summary,
        }.get(line_type, self._other_line)
        handler(rec)

    def _record(self, number: int, obj: dict[str, Any], data: bytes, line_type: str) -> _Line:
        sid = _str(obj.get("sessionId")) or _str(obj.get("session_id")) or self.session
        self.session = sid
        digest = blake2b(data.strip(), digest_size=12).hexdigest()
        uuid = obj.get("uuid")
        if isinstance(uuid, str | int) and not isinstance(uuid, bool) and str(uuid):
            ident = str(uuid)
            first = self.run._uuid_digest.setdefault((sid, ident), digest)
            if first != digest:  # a different line reusing a uuid: keep both, told apart
                ident = f"{ident}#{digest}"
        else:
            ident = f"line:{digest}"
        agent_id = _str(obj.get("agentId")) or self.file_agent
        if agent_id:
            agent_key = agent_id
        elif obj.get("isSidechain") is True:
            agent_key = "sidechain"
        else:
            agent_key = _MAIN
        ts = normalize_ts(obj.get("timestamp"))
        if ts is not None:
            self.last_ts = ts
            self.first_ts = self.first_ts or ts
        return _Line(number, obj, ident, sid, ts, agent_id, agent_key, line_type)

    # ---- events ---------------------------------------------------------------------------

    def _event(self, rec: _Line, kind: str, index: int) -> dict[str, Any]:
        ev: dict[str, Any] = dict(
            new_event(
                harness=HARNESS,
                source=SOURCE,
                session_id=rec.session_id,
                kind=kind,
                received_at=self.run.received_at,
                ts=rec.ts or self.last_ts,
                id_parts=(rec.ident, index),
            )
        )
        if rec.ts is None and self.last_ts is None:
            self.waiting.append(ev)  # stamped with the file's first time, once one is seen
        cwd = rec.obj.get("cwd")
        if isinstance(cwd, str) and cwd:
            ev["cwd"] = cwd
        if rec.agent_id:
            ev["agent_id"] = rec.agent_id
            if self.agent_type:
                ev["agent_type"] = self.agent_type
        self.events.append((rec.number, ev))
        return ev

    def _extra(self, rec: _Line, **more: Any) -> dict[str, Any]:
        obj = rec.obj
        extra: dict[str, Any] = {k: v for k, v in obj.items() if k not in _CONSUMED}
        msg = obj.get("message")
        if isinstance(msg, dict):
            rest = {k: v for k, v in msg.items() if k not in ("content", "role")}
            if rest:
                extra["message"] = rest
        elif "message" in obj:
            extra["message"] = msg
        if rec.ts is None:
            if "timestamp" in obj:
                extra["timestamp_raw"] = obj["timestamp"]
            extra["timestamp_inferred"] = True
        extra["transcript"] = {"file": self.name, "line": rec.number, "type": rec.line_type}
        extra.update({k: v for k, v in more.items() if v is not None})
        return extra

    def _other(
        self, rec: _Line, index: int, text: str | None = None, kind: str = "other", **more: Any
    ) -> dict[str, Any]:
        ev = self._event(rec, kind, index)
        if text is not None:
            ev["text"] = text
        ev["extra"] = self._extra(rec, **more)
        return ev

    def _other_line(self, rec: _Line) -> None:
        self._other(rec, 0)

    def _summary(self, rec: _Line) -> None:
        # A session title written for /resume (not a compaction: see docs/importers.md).
        self._other(rec, 0, text=_str(rec.obj.get("summary")))

    def _system(self, rec: _Line) -> None:
        obj = rec.obj
        subtype = obj.get("subtype")
        text = _str(obj.get("content"))
        if subtype == "compact_boundary":
            self._other(rec, 0, text=text, kind="compaction")
        elif subtype in _ERROR_SUBTYPES or obj.get("level") == "error":
            error = obj.get("error")
            if text is None and isinstance(error, dict):
                text = _str(error.get("message"))
            self._other(rec, 0, text=text, kind="notification")
        else:
            self._other(rec, 0, text=text)

    def _attachment(self, rec: _Line) -> None:
        att = rec.obj.get("attachment")
        if isinstance(att, dict) and att.get("type") == "nested_memory":
            ev = self._other(rec, 0, kind="guide_loaded")
            ev["path"] = _str(att.get("path"))
        else:
            self._other(rec, 0)

    def _blocks(self, rec: _Line) -> list[Any] | None:
        msg = rec.obj.get("message")
        if not isinstance(msg, dict):
            return None
        content = msg.get("content")
        if isinstance(content, str):
            return [{"type": "text", "text": content}]
        if isinstance(content, list):
            return content
        return None

    def _user(self, rec: _Line) -> None:
        blocks = self._blocks(rec)
        if blocks is None:
            self._other(rec, 0)
            return
        results = sum(1 for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result")
        for index, block in enumerate(blocks):
            btype = block.get("type") if isinstance(block, dict) else None
            if not isinstance(block, dict):
                self._other(rec, index, block=block)
            elif btype == "tool_result":
                self._tool_result(rec, index, block)
            elif btype == "text":
                self._user_text(rec, index, block, in_results=results > 0)
            else:
                self._other(rec, index, block=_strip_images(block))

    def _user_text(self, rec: _Line, index: int, block: dict[str, Any], in_results: bool) -> None:
        text = _str(block.get("text"))
        obj = rec.obj
        if text is None:
            self._other(rec, index, block=block)
        elif text.startswith(_INTERRUPTED):
            if self.pending.pop(rec.agent_key, None) is not None:
                self._count("text", 1)  # the turn ended by interruption, not with this text
            ev = self._other(rec, index, kind="agent_stop")
            ev.update(ok=False, interrupted=True, error=text)
            if rec.agent_key != _MAIN:
                ev["kind"] = "subagent_stop"
                del ev["ok"]
        elif obj.get("isCompactSummary") is True:
            self._other(rec, index, text=text, kind="compaction")
        elif obj.get("isMeta") is True or in_results or text.startswith(_COMMAND_OUTPUT):
            self._other(rec, index, text=text)
        else:
            self._flush(rec.agent_key)
            starts_subagent = rec.agent_key != _MAIN and obj.get("parentUuid") is None
            self._other(
                rec, index, text=text, kind="subagent_start" if starts_subagent else "prompt"
            )

    def _tool_result(self, rec: _Line, index: int, block: dict[str, Any]) -> None:
        call_id = _str(block.get("tool_use_id"))
        name = self.run._tool_names.get((rec.session_id, call_id)) if call_id else None
        is_error = block.get("is_error") is True
        content = _strip_images(block.get("content"))
        result = rec.obj.get("toolUseResult")
        ev = self._event(rec, "tool_error" if is_error else "tool_result", index)
        ev["tool_name"] = name
        ev["tool"] = canonical_tool(name) if name else None
        ev["call_id"] = call_id
        if is_error:
            ev["ok"] = False
            ev["error"] = _error_text(content)
            interrupted = "interrupted by user" in (ev["error"] or "") or (
                isinstance(result, dict) and result.get("interrupted") is True
            )
            ev["interrupted"] = True if interrupted else None
        else:
            ev["output"] = content
            ev["ok"] = not (isinstance(result, dict) and result.get("success") is False)
        if isinstance(result, dict):
            for key in ("durationMs", "totalDurationMs"):
                value = result.get(key)
                if isinstance(value, int | float) and not isinstance(value, bool):
                    ev["duration_ms"] = float(value)
                    break
        rest = {k: v for k, v in block.items() if k not in ("type", "tool_use_id", "content")}
        rest.pop("is_error", None)
        ev["extra"] = self._extra(
            rec,
            toolUseResult=_strip_images(result) if "toolUseResult" in rec.obj else None,
            block=rest or None,
        )

    def _assistant(self, rec: _Line) -> None:
        blocks = self._blocks(rec)
        if blocks is None:
            self._other(rec, 0)
            return
        api_error = rec.obj.get("isApiErrorMessage") is True
        for index, block in enumerate(blocks):
            btype = block.get("type") if isinstance(block, dict) else None
            if not isinstance(block, dict):
                self._other(rec, index, block=block)
            elif btype == "tool_use":
                self._tool_use(rec, index, block)
            elif btype == "text" and isinstance(block.get("text"), str):
                if api_error:
                    self._other(rec, index, text=block["text"], kind="notification")
                    continue
                if rec.agent_key in self.pending:
                    self._count("text", 1)  # an earlier text of the turn: narration
                self.pending[rec.agent_key] = (rec, index, block["text"])
            elif btype in ("thinking", "redacted_thinking"):
                self._count("thinking", 1)
            else:
                self._other(rec, index, block=_strip_images(block))

    def _tool_use(self, rec: _Line, index: int, block: dict[str, Any]) -> None:
        if rec.agent_key in self.pending:  # text before a tool call was narration
            del self.pending[rec.agent_key]
            self._count("text", 1)
        name = _str(block.get("name"))
        call_id = _str(block.get("id"))
        if name and call_id:
            self.run._tool_names[(rec.session_id, call_id)] = name
        ev = self._event(rec, "tool_call", index)
        ev["tool_name"] = name
        ev["tool"] = canonical_tool(name)
        ev["call_id"] = call_id
        ev["input"] = block.get("input")
        ev["path"] = tool_path(block.get("input"))
        ev["ok"] = None
        rest = {k: v for k, v in block.items() if k not in ("type", "id", "name", "input")}
        ev["extra"] = self._extra(rec, block=rest or None)
        if name == "Skill":
            skill_input = block.get("input")
            skill = None
            if isinstance(skill_input, dict):
                skill = _str(skill_input.get("skill")) or _str(skill_input.get("command"))
            loaded = self._event(rec, "skill_loaded", index)
            loaded["tool_name"] = name
            loaded["tool"] = "skill"
            loaded["call_id"] = call_id
            loaded["skill"] = skill
            loaded["extra"] = self._extra(rec)

    def _count(self, what: str, n: int) -> None:
        if n:
            counts = self.run.report.not_recorded
            counts[what] = counts.get(what, 0) + n

    def _flush(self, agent_key: str) -> None:
        """The agent's last text before a new prompt (or the end) is its final message."""
        pending = self.pending.pop(agent_key, None)
        if pending is None:
            return
        rec, index, text = pending
        if agent_key == _MAIN:
            ev = self._other(rec, index, text=text, kind="agent_stop")
            ev["ok"] = True
        else:
            self._other(rec, index, text=text, kind="subagent_stop")

    def close(self) -> None:
        for key in list(self.pending):
            self._flush(key)
        if self.waiting:
            ts = self.first_ts or self._mtime_ts()
            for ev in self.waiting:
                ev["ts"] = ts

    def _mtime_ts(self) -> str:
        try:
            return normalize_ts(os.stat(self.path).st_mtime) or self.run.received_at
        except OSError:
            return self.run.received_at

    def _meta_agent_type(self) -> str | None:
        meta = self.path[: -len(".jsonl")] + ".meta.json"
        if not os.path.exists(meta):
            return None
        try:
            with open(meta, encoding="utf-8") as fh:
                data = json.load(fh)
        except (OSError, ValueError) as exc:
            self.run.report.warnings.append(f"{meta}: unreadable sidecar ignored ({exc})")
            return None
        return _str(data.get("agentType")) if isinstance(data, dict) else None


def import_transcripts(
    paths: Iterable[str], home: str | None = None, task: str | None = None
) -> ImportReport:
    """Import Claude Code transcript files or folders into ``home`` (default $TRAIL_HOME)."""
    return ClaudeTranscriptImporter(home, task).run(list(paths))
