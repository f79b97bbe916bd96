"""Import Claude Code session transcripts: ``~/.claude/projects/<project>/<session>.jsonl``.

Also ``<session>/subagents/agent-<id>.jsonl`` (with its ``agent-<id>.meta.json`` sidecar) and
the legacy ``agent-<id>.jsonl`` sidechain files. Line shapes: shared/reference/harnesses.md
§1.7. The mapping, what is skipped and why, and the limits are in docs/importers.md.

Events land in the same ``sessions/claude-code/<key>/trace.jsonl`` the hook writes (the key comes
from the line's ``sessionId``), so one session recorded by both is one session. Ids are
deterministic (line ``uuid`` and content index; a turn's stop: the line that opened the turn),
and ids already in the trace are not written again: importing a file twice, or a file that has
grown, adds only what is new.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from trace_ingest._blake import blake2b
from trace_ingest.errors import AdapterError
from trace_ingest.events import event_id, new_event
from trace_ingest.harnesses.claude_code import DESCRIPTOR
from trace_ingest.importers._pipeline import (
    FileSummary,
    FileWalk,
    ImportReport,
    LineImporter,
    expand_paths,
    normalize_ts,
    open_regular,
)
from trace_ingest.tools import (
    STATUS_OK,
    classify_user_text,
    internal_agent,
    result_status,
    unwrap_tool_error,
)

HARNESS = DESCRIPTOR.id
SOURCE = "transcript"
# The `trail import claude-code` command's help (trace_ingest.importers.table).
HELP = """Import Claude Code session transcripts (*.jsonl).

FILE_OR_DIR is a transcript, or a folder searched recursively for *.jsonl, such as
~/.claude/projects or one project folder in it (subagents/agent-*.jsonl included).
Unparseable lines are skipped and listed with their reasons. Exit 1 when a file could
not be read or an event could not be scrubbed.
"""

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
_MAIN = "\x00main"  # pending-stop key of the main agent (agent ids never contain NUL)


def find_transcripts(paths: Iterable[str]) -> list[str]:
    """Expand files and folders (searched recursively for ``*.jsonl``) into transcript files.

    Each session's main file comes before agent files, so subagent events find their parent's
    tool names already known. Raises TrailError for a path that does not exist.
    """
    return sorted(expand_paths(paths), key=lambda p: (_agent_file_id(p) is not None, p))


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
    """The first sessionId in the file's first MiB (for lines before it, which have none).

    Read 64 KiB at a time: the id is almost always on the first line, so most of the MiB is
    never read twice."""
    head = b""
    try:
        with open_regular(path) as fh:
            while len(head) < head_bytes:
                more = fh.read(min(64 << 10, head_bytes - len(head)))
                if not more:
                    break
                head += more
                match = _SID.search(head)
                if match and (match.end() < len(head) or len(head) >= head_bytes):
                    return match.group(1).decode("utf-8", "replace")
    except OSError:
        return None  # reported when the file is read
    match = _SID.search(head)
    return match.group(1).decode("utf-8", "replace") if match else None


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


# A call Claude Code rejects before running it answers `<tool_use_error>…</tool_use_error>`, and
# no hook fires for it, not even PreToolUse (2.1.328, rig scenario tools_tour:
# an Edit whose old_string is not in the file, a made-up tool name; docs/testing.md). Errors of a
# call that ran (a missing file's Read, a failing Bash) are not wrapped, and their hooks fire.
HOOKS_BLIND_REJECTED = "Claude Code rejected the call before running it: no hook fires"


def _rejected_before_hooks(text: str | None) -> bool:
    stripped = (text or "").strip()
    return stripped.startswith("<tool_use_error>") and stripped.endswith("</tool_use_error>")


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
class _Call:
    """A tool call seen in this run (for its result's tool name, and to link subagents)."""

    name: str | None
    prompt_id: str | None
    agent_id: str | None  # the lane that made the call (None: the main agent)
    task_prompt: str | None = None  # Task/Agent input.prompt
    subagent_type: str | None = None  # Task/Agent input.subagent_type
    claimed: bool = False  # a subagent lane is already linked to it


@dataclass
class _Link:
    """What the transcript says about a subagent, by agent id: the call that launched it."""

    call_id: str | None = None
    agent_type: str | None = None
    background: bool = False
    done: bool = False  # its result reached the parent (tool_result or task-notification)


@dataclass
class _Lane:
    """One agent's thread of lines in a file: the main agent, a subagent, an inline sidechain."""

    key: str  # _MAIN or the agent id
    agent_id: str | None
    agent_type: str | None = None
    internal: str | None = None
    parent_call_id: str | None = None
    prompt_id: str | None = None  # of the call that launched it (subagents)
    start: str | None = None  # ident of the lane's first line
    turn: str | None = None  # ident of the line that opened the current turn
    turn_prompt: str | None = None
    stops: int = 0  # stops emitted for the current turn
    final: tuple[_Line, int, str] | None = None  # last text block after the last tool call
    last: _Line | None = None  # last assistant line
    last_stop_reason: Any = None
    started: bool = False  # subagent_start emitted
    stopped: bool = False  # subagent_stop emitted


@dataclass
class _Line:
    """One parsed transcript line and its envelope facts."""

    number: int
    obj: dict[str, Any]
    ident: str  # id base: the line's uuid (or a digest of its bytes when it has none)
    session_id: str
    ts: str | None
    line_type: str
    lane: _Lane
    uuid: str | None
    parent_uuid: str | None
    prompt_id: str | None


_FINAL_STOP_REASONS = frozenset({"end_turn", "stop_sequence"})
# 2.1.x user lines' ``turnOrigin`` values for turns no person started (binary 2.1.328)
_NOT_HUMAN_ORIGINS = frozenset({"auto_continuation", "host_synthetic", "scheduled", "peer"})
_TASK_TOOLS = frozenset({"Task", "Agent"})
# system lines Claude Code writes once a turn has ended (2.1.x)
_TURN_CLOSERS = frozenset({"turn_duration", "stop_hook_summary"})


class ClaudeTranscriptImporter(LineImporter):
    """Imports transcript files into ``$TRAIL_HOME``; one instance per ``trail import`` run."""

    HARNESS = HARNESS
    SOURCE = SOURCE

    def __init__(self, home: str | None = None, task: str | None = None) -> None:
        super().__init__(home, task)
        self._calls: dict[tuple[str, str], _Call] = {}  # (session, call id) -> call
        self._links: dict[tuple[str, str], _Link] = {}  # (session, agent id) -> link
        self._uuid_digest: dict[tuple[str, str], str] = {}  # (session, uuid) -> first line
        self._read: set[str] = set()  # files already walked (imported or scanned for links)

    def find_files(self, paths: Iterable[str]) -> list[str]:
        return find_transcripts(paths)

    def new_walk(self, path: str) -> _FileState:
        return _FileState(self, path)

    def import_file(self, path: str) -> FileSummary:
        """Import one transcript file (raises AdapterError when it cannot be read)."""
        if _agent_file_id(path) is not None:
            self._scan_parent(path)
        return super().import_file(path)

    def walk(self, path: str, walk: FileWalk) -> FileWalk:
        self._read.add(os.path.abspath(path))
        return super().walk(path, walk)

    def _scan_parent(self, path: str) -> None:
        """Read the parent session's file, unwritten, for the calls that launched subagents:
        an agent file imported on its own still links to its Task/Agent call."""
        parent = _parent_file(path)
        if parent is None or os.path.abspath(parent) in self._read:
            return
        try:
            self.walk(parent, _FileState(self, parent, scan_only=True))
        except AdapterError:
            return  # the agent file is still imported, unlinked


def _parent_file(path: str) -> str | None:
    """The main session file an agent file belongs to, if it exists.

    ``<project>/<session>/subagents/[…/]agent-<id>.jsonl`` -> ``<project>/<session>.jsonl``;
    a legacy ``<project>/agent-<id>.jsonl`` -> ``<project>/<its sessionId>.jsonl``.
    """
    folder = os.path.dirname(os.path.abspath(path))
    probe = folder
    while os.path.basename(probe) and os.path.basename(probe) != "subagents":
        parent = os.path.dirname(probe)
        if parent == probe:
            break
        probe = parent
    if os.path.basename(probe) == "subagents":
        session_dir = os.path.dirname(probe)
        candidate = session_dir + ".jsonl"
    else:
        sid = _first_session_id(path)
        if not sid or "/" in sid or "\\" in sid or sid.startswith("."):
            return None
        candidate = os.path.join(folder, sid + ".jsonl")
    return candidate if os.path.isfile(candidate) and candidate != path else None


def _agent_id_in_text(text: str | None) -> str | None:
    """``agentId: <id>`` in an Agent/Task result's text (background launches, 2.1.x)."""
    if not text:
        return None
    at = text.find("agentId: ")
    if at < 0:
        return None
    rest = text[at + len("agentId: ") :]
    word = rest.split(None, 1)[0] if rest.split() else ""
    return word.strip(" ,.;()") or None


class _FileState(FileWalk):
    """The walk through one file: builds events line by line."""

    run: ClaudeTranscriptImporter

    def __init__(self, run: ClaudeTranscriptImporter, path: str, scan_only: bool = False) -> None:
        super().__init__(run, path, quiet=scan_only)
        self.scan_only = scan_only
        self.name = os.path.basename(path)
        self.file_agent = _agent_file_id(path)
        self.meta = self._meta() if self.file_agent else {}
        # Lines without a sessionId belong to the session of the lines around them.
        self.folder_session = _fallback_session(path)
        self.session = _first_session_id(path) or self.folder_session
        self.lanes: dict[tuple[str, str], _Lane] = {}  # (session, agent id or _MAIN) -> lane
        self.uuid_lane: dict[str, _Lane] = {}
        self.uuid_prompt: dict[str, str] = {}
        self.uuid_tasks: dict[str, list[str]] = {}  # line uuid -> Task/Agent call ids on it
        self.call_lane: dict[str, _Lane] = {}  # Task call id -> inline sidechain lane
        self.pending_compaction: _Line | None = None
        self.saw_stop_reason = False  # some assistant line of this file has a stop_reason
        self.last_ts: str | None = None
        self.first_ts: str | None = None
        self.waiting: list[dict[str, Any]] = []  # events whose line had no usable time

    # ---- lines ----------------------------------------------------------------------------

    def feed(self, number: int, obj: dict[str, Any], data: bytes) -> None:
        """One line that passed the gate (``_pipeline.json_line``: an object naming its type)."""
        line_type: str = obj["type"]
        if line_type in IGNORED_TYPES:
            if not self.scan_only:
                self.run.report.ignored[line_type] = self.run.report.ignored.get(line_type, 0) + 1
            self._chain_through(obj)
            return
        rec = self._record(number, obj, data, line_type)
        pending = self.pending_compaction
        if pending is not None:
            self.pending_compaction = None
            if line_type == "user" and obj.get("isCompactSummary") is True:
                self._compaction(pending, rec)
                return
            self._compaction(pending, None)
        handler = {
            "user": self._user,
            "assistant": self._assistant,
            "system": self._system,
            "attachment": self._attachment,
            "summary": self._summary,
        }.get(line_type, self._other_line)
        handler(rec)
        if rec.lane.key != _MAIN and not rec.lane.started:
            self._subagent_start(rec, "subagent_start", None)  # its task line is not here

    def _record(self, number: int, obj: dict[str, Any], data: bytes, line_type: str) -> _Line:
        sid = _str(obj.get("sessionId")) or _str(obj.get("session_id")) or self.session
        if self.file_agent and sid == f"agent-{self.file_agent}":
            sid = self.folder_session  # some writers put the agent's name there
        self.session = sid
        digest = blake2b(data.strip(), digest_size=12).hexdigest()
        raw_uuid = obj.get("uuid")
        uuid = None
        if isinstance(raw_uuid, str | int) and not isinstance(raw_uuid, bool) and str(raw_uuid):
            uuid = str(raw_uuid)
            ident = uuid
            first = self.run._uuid_digest.setdefault((sid, ident), digest)
            if first != digest:  # a different line reusing a uuid: keep both, told apart
                ident = f"{ident}#{digest}"
        else:
            ident = f"line:{digest}"
        parent = obj.get("parentUuid")
        parent_uuid = str(parent) if isinstance(parent, str | int) and parent != "" else None
        lane = self._lane_of(obj, sid, ident, parent_uuid)
        if lane.start is None:
            lane.start = ident
            lane.turn = lane.turn or ident
        prompt_id = _str(obj.get("promptId"))
        if prompt_id is None and parent_uuid is not None:
            prompt_id = self.uuid_prompt.get(parent_uuid)
        if prompt_id is None:
            prompt_id = lane.turn_prompt or lane.prompt_id
        if uuid is not None:
            self.uuid_lane[uuid] = lane
            if prompt_id is not None:
                self.uuid_prompt[uuid] = prompt_id
        ts = normalize_ts(obj.get("timestamp"))
        if ts is not None:
            self.last_ts = ts
            self.first_ts = self.first_ts or ts
        return _Line(number, obj, ident, sid, ts, line_type, lane, uuid, parent_uuid, prompt_id)

    def _chain_through(self, obj: dict[str, Any]) -> None:
        """Keep the ``parentUuid`` chain whole across a line that makes no event."""
        uuid, parent = _str(obj.get("uuid")), _str(obj.get("parentUuid"))
        if uuid and parent:
            if parent in self.uuid_prompt:
                self.uuid_prompt.setdefault(uuid, self.uuid_prompt[parent])
            if parent in self.uuid_lane:
                self.uuid_lane.setdefault(uuid, self.uuid_lane[parent])

    # ---- lanes and links ------------------------------------------------------------------

    def _lane_of(self, obj: dict[str, Any], sid: str, ident: str, parent: str | None) -> _Lane:
        agent_id = _str(obj.get("agentId"))
        if agent_id is None and obj.get("isSidechain") is not False:
            agent_id = self.file_agent  # a line that says it is the main agent's is kept so
        if agent_id:
            lane = self.lanes.get((sid, agent_id))
            if lane is None:
                lane = self._new_lane(agent_id, sid, parent, obj)
            return lane
        if obj.get("isSidechain") is True:
            # 1.0.x inline sidechain: no agent id. It continues the sidechain its parent line
            # is on, or starts a new one, named after its first line.
            lane = self.uuid_lane.get(parent) if parent else None
            if lane is not None and lane.key != _MAIN:
                return lane
            synthetic = "sidechain-" + (_str(obj.get("uuid")) or ident)
            return self.lanes.get((sid, synthetic)) or self._new_lane(synthetic, sid, parent, obj)
        lane = self.lanes.get((sid, _MAIN))
        if lane is None:
            lane = self.lanes[(sid, _MAIN)] = _Lane(_MAIN, None)
        return lane

    def _new_lane(self, agent_id: str, sid: str, parent: str | None, obj: dict[str, Any]) -> _Lane:
        lane = _Lane(agent_id, agent_id)
        self.lanes[(sid, agent_id)] = lane
        link = self.run._links.get((sid, agent_id))
        meta = self.meta if agent_id == self.file_agent else {}
        call_id = _str(meta.get("toolUseId")) or (link.call_id if link else None)
        if call_id is None and parent is not None:
            for cid in self.uuid_tasks.get(parent, []):  # 1.0.x: the sidechain's parent line
                call = self.run._calls.get((sid, cid))
                if call is not None and not call.claimed:
                    call_id = cid
                    break
        first_text = _first_text(obj) if obj.get("type") == "user" else None
        if call_id is None and first_text:
            call_id = self._call_by_prompt(sid, first_text)
        call = self.run._calls.get((sid, call_id)) if call_id else None
        if call is not None:
            call.claimed = True
            lane.prompt_id = call.prompt_id
            self.call_lane.setdefault(call_id or "", lane)
        lane.parent_call_id = call_id
        lane.agent_type = (
            _str(meta.get("agentType"))
            or (link.agent_type if link else None)
            or (call.subagent_type if call else None)
        )
        lane.internal = internal_agent(
            agent_id if call_id is None else None, lane.agent_type, first_text
        )
        return lane

    def _call_by_prompt(self, sid: str, text: str) -> str | None:
        """The unclaimed Task/Agent call of this session whose prompt is ``text``."""
        wanted = text.strip()
        for (call_sid, cid), call in self.run._calls.items():
            if call_sid == sid and not call.claimed and (call.task_prompt or "").strip() == wanted:
                return cid
        return None

    def _link(self, sid: str, agent_id: str) -> _Link:
        return self.run._links.setdefault((sid, agent_id), _Link())

    # ---- events ---------------------------------------------------------------------------

    def _event(self, rec: _Line, kind: str, index: Any) -> dict[str, Any]:
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
        lane = rec.lane
        if lane.agent_id:
            ev["agent_id"] = lane.agent_id
            if lane.agent_type:
                ev["agent_type"] = lane.agent_type
        ev["prompt_id"] = rec.prompt_id
        if lane.internal:
            ev["internal"] = lane.internal
        ev["uuid"] = rec.uuid
        ev["parent_uuid"] = rec.parent_uuid
        ev["seq"] = rec.number
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
        extra["file"] = self.name
        extra["line_type"] = rec.line_type
        sub = _str(obj.get("subtype"))
        att = obj.get("attachment")
        if sub is None and isinstance(att, dict):
            sub = _str(att.get("type"))
        if sub:
            extra["line_subtype"] = sub
        extra["transcript"] = {"file": self.name, "line": rec.number, "type": rec.line_type}
        extra.update({k: v for k, v in more.items() if v is not None})
        return extra

    def _other(
        self, rec: _Line, index: Any, text: str | None = None, kind: str = "other", **more: Any
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
            # One compaction = this line + the summary line Claude Code writes right after
            # it: the event waits for the next line (see feed).
            self.pending_compaction = rec
            return
        if subtype in _ERROR_SUBTYPES or obj.get("level") == "error":
            error = obj.get("error")
            if text is None and isinstance(error, dict):
                text = _str(error.get("message"))
            self._other(rec, 0, text=text, kind="notification")
            return
        self._other(rec, 0, text=text)
        if subtype in _TURN_CLOSERS:
            self._close_turn(rec.lane)

    def _compaction(self, boundary: _Line | None, summary: _Line | None) -> None:
        """One compaction event: from the boundary line, with the summary's text."""
        rec = boundary or summary
        assert rec is not None
        text = _str(boundary.obj.get("content")) if boundary else None
        summary_text = _first_text(summary.obj) if summary else None
        ev = self._other(
            rec,
            0,
            text=summary_text if summary_text is not None else text,
            kind="compaction",
            boundary_text=text if boundary and summary_text is not None else None,
            summary_uuid=summary.uuid if summary and boundary else None,
            summary_line=summary.number if summary and boundary else None,
        )
        meta = boundary.obj.get("compactMetadata") if boundary else None
        if isinstance(meta, dict) and _str(meta.get("trigger")):
            ev["extra"]["trigger"] = meta["trigger"]

    def _attachment(self, rec: _Line) -> None:
        att = rec.obj.get("attachment")
        if isinstance(att, dict) and att.get("type") == "nested_memory":
            ev = self._other(rec, 0, kind="guide_loaded")
            ev["path"] = _str(att.get("path"))
            # The text as it entered the context, when the transcript carries it (L2 judges
            # against exactly that; docs/events.md, guide_loaded).
            if _str(att.get("content")) is not None:
                ev["text"] = att["content"]
        elif isinstance(att, dict) and att.get("type") == "instructions":
            # The rule files in context from the start (CLAUDE.md & co.): 2.1.328 writes
            # {files: [{path, type, content}]}, earlier releases one {path, type, content}
            # (real-harnesses.md §3.4). One guide_loaded per file, at the transcript's time.
            listed = att.get("files")
            files: list[Any] = listed if isinstance(listed, list) else [att]
            guides = [f for f in files if isinstance(f, dict) and _str(f.get("path"))]
            if not guides:
                self._other(rec, 0)
            for index, guide in enumerate(guides):
                ev = self._other(rec, index, kind="guide_loaded")
                ev["path"] = _str(guide.get("path"))
                if _str(guide.get("content")) is not None:
                    ev["text"] = guide["content"]
        elif isinstance(att, dict) and att.get("type") == "queued_command":
            # What the user typed while the agent was busy (or a background task's result),
            # handed to the agent inside the running turn.
            text = _str(att.get("prompt"))
            mode = att.get("commandMode")
            if text is None or mode not in (None, "prompt", "task-notification"):
                self._other(rec, 0, text=text)
                return
            kind, what, facts = classify_user_text(text)
            ev = self._other(rec, 0, text=text, kind=kind, text_kind=what, queued=True)
            if kind == "notification":
                self._notified(rec, ev, facts)
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
        if rec.obj.get("isCompactSummary") is True:
            self._compaction(None, rec)  # a summary without its boundary line
            return
        results = sum(1 for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result")
        opened = False  # this line already opened a turn (one prompt per line)
        for index, block in enumerate(blocks):
            btype = block.get("type") if isinstance(block, dict) else None
            if not isinstance(block, dict):
                self._other(rec, index, block=block)
            elif btype == "tool_result":
                self._tool_result(rec, index, block)
            elif btype == "text":
                opened = self._user_text(rec, index, block, results > 0, opened) or opened
            else:
                self._other(rec, index, block=_strip_images(block))

    def _user_text(
        self, rec: _Line, index: int, block: dict[str, Any], in_results: bool, opened: bool
    ) -> bool:
        """Record one text block of a user line; True when it opened a new turn."""
        text = _str(block.get("text"))
        obj = rec.obj
        lane = rec.lane
        if text is None:
            self._other(rec, index, block=block)
            return False
        kind, what, facts = classify_user_text(text)
        if what == "interrupt":  # also beside the result of the call it interrupted
            self._interrupted(rec, index, text)
            return False
        if obj.get("isMeta") is True:
            what = "skill_body" if obj.get("sourceToolUseID") else "meta"
            self._other(rec, index, text=text, text_kind=what)
            return False
        if in_results:
            self._other(rec, index, text=text, text_kind="tool_result_text")
            return False
        if lane.key != _MAIN and not lane.started and rec.ident == lane.start:
            self._subagent_start(rec, index, text)
            return True
        if kind == "prompt":
            # 2.1.x says who started the turn: a person ("human", "sdk") or not.
            origin = _str(obj.get("turnOrigin"))
            if origin == "task_notification":
                kind, what = "notification", "task_notification"
            elif origin in _NOT_HUMAN_ORIGINS or obj.get("promptSource") == "system":
                kind, what = "other", f"turn_origin_{origin or 'system'}"
        if kind == "prompt" and lane.key != _MAIN:
            kind, what = "other", "agent_message"  # the parent agent's words, not a person's
        if kind == "other" and what != "agent_message":
            self._other(rec, index, text=text, text_kind=what, **facts)
            return False
        if opened:
            self._other(rec, index, text=text, text_kind="prompt_part")
            return False
        self._open_turn(rec)
        if kind == "notification":
            ev = self._other(rec, index, text=text, kind=kind, text_kind=what)
            self._notified(rec, ev, facts)
        else:
            extra = {"text_kind": what, **facts} if what != "typed" else {}
            self._other(rec, index, text=text, kind=kind, **extra)
        return True

    def _notified(self, rec: _Line, ev: dict[str, Any], facts: dict[str, str]) -> None:
        """A task-notification: the background task whose result it delivers."""
        task_id = facts.get("task_id")
        call_id = facts.get("tool_use_id")
        if task_id:
            link = self._link(rec.session_id, task_id)
            link.done = True
            call_id = call_id or link.call_id
            link.call_id = link.call_id or call_id
            ev["agent_id"] = task_id
            if link.agent_type:
                ev["agent_type"] = link.agent_type
            lane = self.lanes.get((rec.session_id, task_id))
            if lane is not None:
                self._subagent_stop(lane)
        ev["parent_call_id"] = call_id
        for key in ("task_id", "tool_use_id", "status", "summary", "task_type"):
            if key in facts:
                ev["extra"][key] = facts[key]

    def _interrupted(self, rec: _Line, index: int, text: str) -> None:
        lane = rec.lane
        if lane.final is not None:
            self._count("text", 1)  # the turn ended by interruption, not with this text
        ev = self._other(rec, index, kind="agent_stop" if lane.key == _MAIN else "subagent_stop")
        ev.update(ok=False, interrupted=True, error=text)
        if lane.key != _MAIN:
            del ev["ok"]
            ev["parent_call_id"] = lane.parent_call_id
        lane.final = None

    def _subagent_start(self, rec: _Line, index: Any, text: str | None) -> None:
        rec.lane.started = True
        rec.lane.turn_prompt = rec.prompt_id  # its lines' prompt_id, should a chain break
        ev = self._other(rec, index, text=text, kind="subagent_start")
        ev["parent_call_id"] = rec.lane.parent_call_id
        if rec.lane.prompt_id and not rec.prompt_id:
            ev["prompt_id"] = rec.lane.prompt_id
        ev["extra"]["text_kind"] = "task"

    def _tool_result(self, rec: _Line, index: int, block: dict[str, Any]) -> None:
        sid = rec.session_id
        call_id = _str(block.get("tool_use_id")) or _str(rec.obj.get("sourceToolUseID"))
        call = self.run._calls.get((sid, call_id)) if call_id else None
        name = call.name if call else None
        is_error = block.get("is_error") is True
        content = _strip_images(block.get("content"))
        result = rec.obj.get("toolUseResult")
        text = _text_of(content)
        decision = rec.obj.get("permissionDecision")
        status = result_status(
            is_error,
            text,
            rec.obj.get("toolDenialKind"),
            decision.get("decision") if isinstance(decision, dict) else None,
            result.get("interrupted") if isinstance(result, dict) else None,
        )
        if status == "ok" and isinstance(result, dict) and result.get("success") is False:
            status = "failed"
        kind = {"ok": "tool_result", "refused": "permission"}.get(status, "tool_error")
        ev = self._event(rec, kind, index)
        ev["tool_name"] = name
        ev["tool"] = DESCRIPTOR.canonical(name) if name else None
        ev["call_id"] = call_id
        ev["status"] = status
        ev["ok"] = STATUS_OK[status]
        if status == "ok":
            ev["output"] = content
        else:
            ev["error"] = unwrap_tool_error(text) if text is not None else None
            if status == "interrupted":
                ev["interrupted"] = True
            elif status == "failed" and not is_error:
                ev["output"] = content
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
        if is_error and status in ("failed", "refused") and _rejected_before_hooks(text):
            ev["extra"]["hooks_blind"] = HOOKS_BLIND_REJECTED
        if call_id and (name in _TASK_TOOLS or (call is None and isinstance(result, dict))):
            self._launched(rec, call_id, call, result, text)

    def _launched(
        self, rec: _Line, call_id: str, call: _Call | None, result: Any, text: str | None
    ) -> None:
        """A Task/Agent result: which agent it launched, and whether that agent is done."""
        agent_id = _str(result.get("agentId")) if isinstance(result, dict) else None
        agent_id = agent_id or (_agent_id_in_text(text) if call is not None else None)
        lane = self.call_lane.get(call_id)
        if agent_id is None and lane is None:
            return
        background = isinstance(result, dict) and (
            result.get("status") == "async_launched" or result.get("isAsync") is True
        )
        if agent_id:
            link = self._link(rec.session_id, agent_id)
            link.call_id = link.call_id or call_id
            agent_type = _str(result.get("agentType")) if isinstance(result, dict) else None
            link.agent_type = (
                link.agent_type or agent_type or (call.subagent_type if call else None)
            )
            link.background = link.background or background
            if not background:
                link.done = True
        if lane is not None and not background:
            self._subagent_stop(lane)  # a 1.0.x inline sidechain ends with its call's result

    def _assistant(self, rec: _Line) -> None:
        blocks = self._blocks(rec)
        if blocks is None:
            self._other(rec, 0)
            return
        lane = rec.lane
        if lane.key != _MAIN and not lane.started:
            self._subagent_start(rec, "subagent_start", None)  # its task line is not here
        api_error = rec.obj.get("isApiErrorMessage") is True
        msg = rec.obj.get("message")
        lane.last = rec
        lane.last_stop_reason = msg.get("stop_reason") if isinstance(msg, dict) else None
        self.saw_stop_reason = self.saw_stop_reason or lane.last_stop_reason is not None
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
                if lane.final is not None:
                    self._count("text", 1)  # an earlier text of the turn: narration
                lane.final = (rec, index, block["text"])
            elif btype in ("thinking", "redacted_thinking"):
                self._count("thinking", 1)
            else:
                self._other(rec, index, block=_strip_images(block))

    def _tool_use(self, rec: _Line, index: int, block: dict[str, Any]) -> None:
        lane = rec.lane
        if lane.final is not None:  # text before a tool call was narration
            lane.final = None
            self._count("text", 1)
        name = _str(block.get("name"))
        call_id = _str(block.get("id"))
        tool_input = block.get("input")
        if call_id:
            call = _Call(name, rec.prompt_id, lane.agent_id)
            if name in _TASK_TOOLS and isinstance(tool_input, dict):
                call.task_prompt = _str(tool_input.get("prompt"))
                call.subagent_type = _str(tool_input.get("subagent_type"))
                if rec.uuid:
                    self.uuid_tasks.setdefault(rec.uuid, []).append(call_id)
            self.run._calls.setdefault((rec.session_id, call_id), call)
        ev = self._event(rec, "tool_call", index)
        ev["tool_name"] = name
        ev["tool"] = DESCRIPTOR.canonical(name)
        ev["call_id"] = call_id
        ev["input"] = tool_input
        ev["path"] = DESCRIPTOR.tool_path(tool_input)
        ev["ok"] = None
        rest = {k: v for k, v in block.items() if k not in ("type", "id", "name", "input")}
        ev["extra"] = self._extra(rec, block=rest or None)
        if name == "Skill":
            skill = None
            if isinstance(tool_input, dict):
                skill = _str(tool_input.get("skill")) or _str(tool_input.get("command"))
            loaded = self._event(rec, "skill_loaded", index)
            loaded["tool_name"] = name
            loaded["tool"] = "skill"
            loaded["call_id"] = call_id
            loaded["skill"] = skill
            loaded["extra"] = self._extra(rec)

    def _count(self, what: str, n: int) -> None:
        if n and not self.scan_only:
            counts = self.run.report.not_recorded
            counts[what] = counts.get(what, 0) + n

    # ---- turns ----------------------------------------------------------------------------
    #
    # A stop is recorded once its turn is closed by a later line (the next prompt or
    # task-notification, a turn_duration / stop_hook_summary line, an interruption, a final
    # stop_reason on the last message, the subagent's result reaching its parent). Its id is
    # the line that opened the turn, so a re-import of a grown file never records it twice.

    def _open_turn(self, rec: _Line) -> None:
        lane = rec.lane
        self._close_turn(lane)
        lane.turn = rec.ident
        lane.turn_prompt = rec.prompt_id
        lane.stops = 0

    def _close_turn(self, lane: _Lane) -> None:
        """Record the main agent's stop for the turn, if it ended with a message (a turn cut
        after a tool result, with no final text, has no stop)."""
        if lane.key != _MAIN or lane.final is None:
            return
        rec = lane.final[0]
        ev = self._event(rec, "agent_stop", ("stop", lane.turn or lane.start, lane.stops))
        ev["id"] = event_id(
            HARNESS, SOURCE, rec.session_id, "agent_stop", lane.turn or lane.start, lane.stops
        )
        ev["prompt_id"] = lane.turn_prompt or rec.prompt_id
        ev["ok"] = True
        ev["text"] = lane.final[2]
        ev["extra"] = self._extra(rec)
        lane.stops += 1
        lane.final = None

    def _subagent_stop(self, lane: _Lane) -> None:
        if lane.stopped or lane.key == _MAIN:
            return
        rec = lane.final[0] if lane.final else lane.last
        if rec is None:
            return
        ev = self._event(rec, "subagent_stop", "subagent_stop")
        ev["id"] = event_id(HARNESS, SOURCE, rec.session_id, "subagent_stop", lane.start)
        if lane.final is not None:
            ev["text"] = lane.final[2]
        ev["parent_call_id"] = lane.parent_call_id
        if lane.prompt_id:
            ev["prompt_id"] = lane.prompt_id
        ev["extra"] = self._extra(rec)
        lane.stopped = True
        lane.final = None

    def close(self) -> None:
        if self.pending_compaction is not None:
            # The summary line may still be coming: the compaction is recorded once it is
            # there (or once any later line is).
            self._count("compaction_pending", 1)
        for (sid, _), lane in self.lanes.items():
            # Writers before ~2.1.100 left stop_reason null on every line: there, a lane whose
            # last line is text (no call after it) ended its turn.
            final = lane.last_stop_reason in _FINAL_STOP_REASONS or (
                not self.saw_stop_reason and lane.final is not None and lane.last is lane.final[0]
            )
            if lane.key == _MAIN:
                if final:
                    self._close_turn(lane)
                continue
            link = self.run._links.get((sid, lane.key))
            if final or (link is not None and link.done):
                self._subagent_stop(lane)
        if self.waiting:
            if self.first_ts is None:
                # No line of the file has a time yet: these wait for one (a later import),
                # rather than take a time that would differ from a later import's.
                held = {id(ev) for ev in self.waiting}
                self.events = [(n, ev) for n, ev in self.events if id(ev) not in held]
                self._count("waiting_for_a_timestamp", len(held))
            else:
                for ev in self.waiting:
                    ev["ts"] = self.first_ts

    def _meta(self) -> dict[str, Any]:
        meta = self.path[: -len(".jsonl")] + ".meta.json"
        if not os.path.exists(meta):
            return {}
        try:
            with open_regular(meta) as fh:
                data = json.load(fh)
        except (OSError, ValueError) as exc:
            if not self.scan_only:
                self.run.report.warnings.append(f"{meta}: unreadable sidecar ignored ({exc})")
            return {}
        return data if isinstance(data, dict) else {}


def _first_text(obj: dict[str, Any]) -> str | None:
    """The first text of a line's message (a string, or its first text block)."""
    msg = obj.get("message")
    content = msg.get("content") if isinstance(msg, dict) else None
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "text":
                return _str(block.get("text"))
    return None


def import_transcripts(
    paths: Iterable[str], home: str | None = None, task: str | None = None
) -> ImportReport:
    """Import Claude Code transcript files or folders into ``home`` (default $TRAIL_HOME)."""
    return ClaudeTranscriptImporter(home, task).run(list(paths))


import_paths = import_transcripts  # the importer contract's name (trace_ingest.importers.table)
