"""Import GitHub Copilot CLI session logs: ``$COPILOT_HOME/session-state/<id>/events.jsonl``.

Line shapes: shared/reference/real-harnesses.md §2.4 (observed on the real 1.0.102) and
harnesses.md §2.7. Every line is an envelope ``{type, data, id, timestamp, parentId}``, plus
``agentId`` on a subagent's lines (its events live in the parent's file). The mapping, what is
skipped and why, and the limits are in docs/importers.md ("Copilot CLI").

Unlike the hooks, the log has the tool-call ids (``toolCallId``), so an imported session pairs
every call with its result for certain, and a hooked session reconciled with its log gets the
real ids in place of the inferred pairing (``telemetry.copilot_pairing``). Events land in
``sessions/copilot-cli/<key>/trace.jsonl`` (the key from ``session.start``'s ``sessionId``, else
the ``<id>`` folder), the same the hook writes. Ids are deterministic (the line's ``id`` and an
index), and ids already in the trace are not written again: importing a file twice, or a log
that has grown, adds only what is new.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from trace_ingest.events import new_event
from trace_ingest.harnesses import copilot_cli as descriptor  # tables shared with the hook
from trace_ingest.importers._pipeline import (
    FileWalk,
    ImportReport,
    LineImporter,
    expand_paths,
    normalize_ts,
)

HARNESS = "copilot-cli"
SOURCE = "events-log"
HELP = """Import GitHub Copilot CLI session logs (events.jsonl).

FILE_OR_DIR is a session's events.jsonl, a session folder, or a folder searched recursively
for events.jsonl, such as ~/.copilot/session-state ($COPILOT_HOME/session-state). Subagent
events are in their parent's log, tagged with the subagent's id. Unparseable lines are skipped
and listed with their reasons. Exit 1 when a file could not be read or an event could not be
scrubbed.
"""

# Line types that hold no agent activity: counted in the report, not recorded.
IGNORED_TYPES: dict[str, str] = {
    "assistant.turn_start": "turn bookkeeping",
    "assistant.turn_end": "turn bookkeeping",
    "system.message": "the system prompt sent to the model",
    "session.model_change": "model selection",
    "subagent.configured": "subagent model configuration",
    "hook.start": "a hook invocation (its input is what the hook itself recorded)",
    "session.compaction_start": "a compaction starting (its completion is recorded)",
    "assistant.message_delta": "streaming ticks (stdout only)",
    "assistant.tool_call_delta": "streaming ticks (stdout only)",
    "tool.shell_output": "streaming ticks (stdout only)",
}
_NOTIFY_OPEN = "<system_notification>"
_NOTIFY_CLOSE = "</system_notification>"


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def find_logs(paths: Iterable[str]) -> list[str]:
    """Files as given; a folder is searched for ``events.jsonl`` (and, for the older flat
    layout, ``session-state/*.jsonl``). Raises TrailError for a path that does not exist."""
    given = list(paths)
    files = {p for p in given if not os.path.isdir(p)}
    return sorted(
        path
        for path in expand_paths(given, ".jsonl")
        if path in files
        or os.path.basename(path) == "events.jsonl"
        or os.path.basename(os.path.dirname(path)) == "session-state"
    )


def session_of_path(path: str) -> str:
    """The session a log belongs to by its place: ``<id>/events.jsonl`` -> ``<id>``; a flat
    ``<id>.jsonl`` -> ``<id>``."""
    name = os.path.basename(path)
    if name == "events.jsonl":
        return os.path.basename(os.path.dirname(os.path.abspath(path))) or name
    return name[: -len(".jsonl")] if name.endswith(".jsonl") else name


class CopilotLog:
    """The walk through one ``events.jsonl``: one envelope in, its events out.

    ``feed(number, obj, ts)`` takes a parsed line (``ts`` normalized by the pipeline) and returns
    the events it stands for; per-file state links results to calls (tool names) and subagent
    lanes to their launching call.
    """

    def __init__(self, path: str, received_at: str) -> None:
        self.path = path
        self.name = os.path.basename(path)
        self.received_at = received_at
        self.session = session_of_path(path)
        self.tools: dict[str, tuple[str | None, Any]] = {}  # call id -> (tool name, input)
        self.agents: dict[str, dict[str, Any]] = {}  # agent id -> {type, parent_call_id}
        self.external: dict[str, str] = {}  # external tool request id -> call id
        self.ignored: dict[str, int] = {}
        self.not_recorded: dict[str, int] = {}
        self.last_ts: str | None = None
        # raw timestamps of the lines ``skipped`` counted since the last ``feed``, oldest first:
        # normalized only when an event without its own time needs the latest (``_settle_ts``)
        self._pending_ts: list[str] = []

    def _settle_ts(self) -> None:
        """``last_ts`` as if each skipped line had gone through ``feed``: the latest of their
        timestamps that is a time, else what it was."""
        for raw in reversed(self._pending_ts):
            ts = normalize_ts(raw)
            if ts is not None:
                self.last_ts = ts
                break
        self._pending_ts.clear()

    def skipped(self, obj: Any) -> bool:
        """Whether ``feed`` would only count ``obj`` as an ignored line (a bookkeeping type, a
        successful hook.end): if so, counts it as ``feed`` does and keeps its timestamp, for a
        later event that has none. Decides from strings and ``true`` alone (``_Walk.prefeed``)
        and holds ``obj``'s timestamp unread unless it is a string (else False)."""
        if type(obj) is not dict:
            return False
        line_type = obj.get("type")
        if type(line_type) is not str:
            return False
        if line_type not in IGNORED_TYPES:
            if line_type != "hook.end":
                return False
            data = obj.get("data")
            if type(data) is not dict or data.get("success") is not True:
                return False
        ts = obj.get("timestamp")
        if ts is not None:
            if type(ts) is not str:
                return False
            self._pending_ts.append(ts)
        self.ignored[line_type] = self.ignored.get(line_type, 0) + 1
        return True

    def feed(self, number: int, obj: dict[str, Any], ts: str | None) -> list[dict[str, Any]]:
        line_type = str(obj.get("type"))
        if ts is not None:
            self.last_ts = ts
            self._pending_ts.clear()
        elif self._pending_ts:
            self._settle_ts()
        data = obj.get("data")
        data = data if isinstance(data, dict) else {}
        if line_type == "session.start":
            sid = _str(data.get("sessionId"))
            if sid:
                self.session = sid
        if line_type in IGNORED_TYPES or (line_type == "hook.end" and data.get("success") is True):
            self.ignored[line_type] = self.ignored.get(line_type, 0) + 1
            return []
        if obj.get("ephemeral") is True:
            self.ignored["ephemeral"] = self.ignored.get("ephemeral", 0) + 1
            return []
        handler = _HANDLERS.get(line_type, CopilotLog._other)
        return handler(self, _Line(self, number, obj, data, line_type, ts))

    # ---- events ---------------------------------------------------------------------------

    def _event(self, line: _Line, kind: str, index: int = 0) -> dict[str, Any]:
        ev: dict[str, Any] = dict(
            new_event(
                harness=HARNESS,
                source=SOURCE,
                session_id=self.session,
                kind=kind,
                received_at=self.received_at,
                ts=line.ts or self.last_ts,
                id_parts=(line.ident, index),
            )
        )
        agent = line.agent
        if agent:
            ev["agent_id"] = agent
            known = self.agents.get(agent, {})
            if known.get("type"):
                ev["agent_type"] = known["type"]
        ev["seq"] = line.number
        ev["uuid"] = _str(line.obj.get("id"))
        ev["parent_uuid"] = _str(line.obj.get("parentId"))
        ev["extra"] = {"file": self.name, "line_type": line.line_type}
        return ev

    def _other(self, line: _Line) -> list[dict[str, Any]]:
        ev = self._event(line, "other")
        ev["extra"]["data"] = line.data
        text = _str(line.data.get("content")) or _str(line.data.get("message"))
        if text:
            ev["text"] = text
        error = line.data.get("error")
        if line.line_type in ("session.error", "hook.end", "subagent.failed") or error:
            message = error.get("message") if isinstance(error, dict) else error
            ev["error"] = _str(message) or text or line.line_type
            ev["ok"] = False
        return [ev]

    def _usage_record(self, line: _Line) -> list[dict[str, Any]]:
        """One model call's token counts (``data.usage``: ``inputTokens``, ``outputTokens``,
        ``cacheReadTokens``, ``model``, …, as Copilot CLI 1.0.102 writes them): an ``other``
        event with the record under ``extra.usage``, as VS Code's ``assistant.usage``."""
        ev = self._event(line, "other")
        usage = line.data.get("usage")
        if isinstance(usage, dict):
            ev["extra"]["usage"] = usage
        else:
            ev["extra"]["data"] = line.data
        return [ev]

    def _session_start(self, line: _Line) -> list[dict[str, Any]]:
        ev = self._event(line, "session_start")
        data = line.data
        context = data.get("context")
        if isinstance(context, dict) and _str(context.get("cwd")):
            ev["cwd"] = context["cwd"]
        ev["extra"].update({k: v for k, v in data.items() if k != "sessionId"})
        return [ev]

    def _session_end(self, line: _Line) -> list[dict[str, Any]]:
        ev = self._event(line, "session_end")
        ev["extra"].update(line.data)
        return [ev]

    def _prompt(self, line: _Line) -> list[dict[str, Any]]:
        ev = self._event(line, "prompt")
        data = line.data
        ev["text"] = _str(data.get("content"))
        rest = {k: v for k, v in data.items() if k != "content"}
        if rest:
            ev["extra"].update(rest)
        return [ev]

    def _assistant(self, line: _Line) -> list[dict[str, Any]]:
        data = line.data
        requests = data.get("toolRequests")
        content = _str(data.get("content"))
        if data.get("reasoningText"):
            self._count("reasoning", 1)
        if isinstance(requests, list) and requests:
            # The calls are recorded from tool.execution_start, which each of them gets.
            if content:
                self._count("text", 1)  # narration beside tool calls
            return []
        if not content:
            self._count("empty_message", 1)
            return []
        # A message without tool calls ends its agent's turn (the hooks' agentStop).
        ev = self._event(line, "agent_stop")
        ev["text"] = content
        ev["ok"] = True
        for key in ("model", "messageId", "turnId", "interactionId"):
            if key in data:
                ev["extra"][key] = data[key]
        return [ev]

    def _tool_start(self, line: _Line) -> list[dict[str, Any]]:
        data = line.data
        call_id = _str(data.get("toolCallId"))
        name = _str(data.get("toolName"))
        args = data.get("arguments")
        if call_id:
            self.tools[call_id] = (name, args)
        ev = self._event(line, "tool_call")
        _tool_fields(ev, name, call_id, args)
        ev["ok"] = None
        for key in ("toolTitle", "turnId", "model", "mcpServerName", "mcpToolName"):
            if key in data:
                ev["extra"][key] = data[key]
        return [ev]

    def _tool_complete(self, line: _Line) -> list[dict[str, Any]]:
        data = line.data
        call_id = _str(data.get("toolCallId"))
        name, args = self.tools.get(call_id or "", (_str(data.get("toolName")), None))
        success = data.get("success")
        error = data.get("error")
        code = _str(error.get("code")) if isinstance(error, dict) else None
        message = _str(error.get("message")) if isinstance(error, dict) else _str(error)
        if success is True:
            kind, status = "tool_result", "ok"
        elif code == "denied":
            kind, status = "permission", "refused"  # the call never ran (a hook or policy)
        else:
            kind, status = "tool_error", "failed"
        ev = self._event(line, kind)
        _tool_fields(ev, name, call_id, args)
        ev["status"] = status
        ev["ok"] = {"ok": True, "failed": False}.get(status)
        result = data.get("result")
        if isinstance(result, dict):
            ev["output"] = result.get("content")
        if status != "ok":
            ev["error"] = message or (
                _str(result.get("content")) if isinstance(result, dict) else None
            )
        shell = data.get("shellExecution")
        code = shell.get("exitCode") if isinstance(shell, dict) else None
        if isinstance(code, int) and not isinstance(code, bool):  # JSON true is a Python int
            ev["extra"]["exit_code"] = code
        telemetry = data.get("toolTelemetry")
        metrics = telemetry.get("metrics") if isinstance(telemetry, dict) else None
        took = metrics.get("durationMs") if isinstance(metrics, dict) else None
        if isinstance(took, int | float) and not isinstance(took, bool):
            ev["duration_ms"] = float(took)
        for key in ("fileEdits", "turnId", "model", "isUserRequested", "sandboxed"):
            if key in data:
                ev["extra"][key] = data[key]
        if code and code not in ("denied", "failure"):
            ev["extra"]["error_code"] = code
        return [ev]

    def _external_requested(self, line: _Line) -> list[dict[str, Any]]:
        data = line.data
        call_id = _str(data.get("toolCallId")) or _str(data.get("requestId"))
        request = _str(data.get("requestId"))
        if request and call_id:
            self.external[request] = call_id
        name = _str(data.get("toolName"))
        if call_id:
            self.tools[call_id] = (name, data.get("arguments"))
        ev = self._event(line, "tool_call")
        _tool_fields(ev, name, call_id, data.get("arguments"))
        ev["ok"] = None
        ev["extra"]["external"] = True
        return [ev]

    def _external_completed(self, line: _Line) -> list[dict[str, Any]]:
        request = _str(line.data.get("requestId"))
        call_id = self.external.get(request or "")
        name, args = self.tools.get(call_id or "", (None, None))
        ev = self._event(line, "tool_result")
        _tool_fields(ev, name, call_id, args)
        # The host application ran it; the log records that it finished, not how it went.
        ev["ok"] = None
        ev["extra"]["external"] = True
        return [ev]

    def _subagent_start(self, line: _Line) -> list[dict[str, Any]]:
        data = line.data
        agent = line.agent
        parent = _str(data.get("toolCallId"))
        kind = _str(data.get("agentName"))
        if agent:
            self.agents[agent] = {"type": kind, "parent_call_id": parent}
        ev = self._event(line, "subagent_start")
        ev["parent_call_id"] = parent
        ev["agent_type"] = kind
        ev["extra"].update({k: v for k, v in data.items() if k not in ("toolCallId",)})
        return [ev]

    def _subagent_stop(self, line: _Line) -> list[dict[str, Any]]:
        data = line.data
        ev = self._event(line, "subagent_stop")
        ev["parent_call_id"] = _str(data.get("toolCallId"))
        ev["agent_type"] = ev.get("agent_type") or _str(data.get("agentName"))
        failed = line.line_type == "subagent.failed"
        ev["ok"] = not failed
        if failed:
            error = data.get("error")
            ev["error"] = _str(error.get("message")) if isinstance(error, dict) else _str(error)
        ev["extra"].update({k: v for k, v in data.items() if k not in ("toolCallId",)})
        return [ev]

    def _notification(self, line: _Line) -> list[dict[str, Any]]:
        ev = self._event(line, "notification")
        text = _str(line.data.get("content"))
        if text is not None:
            stripped = text.strip()
            if stripped.startswith(_NOTIFY_OPEN) and stripped.endswith(_NOTIFY_CLOSE):
                # The hook's notification message is the text inside the wrapper.
                stripped = stripped[len(_NOTIFY_OPEN) : -len(_NOTIFY_CLOSE)].strip()
            ev["text"] = stripped
        kind = line.data.get("kind")
        if isinstance(kind, dict):
            ev["extra"]["notification_type"] = kind.get("type")
            ev["extra"]["kind"] = kind
        return [ev]

    def _compaction(self, line: _Line) -> list[dict[str, Any]]:
        data = line.data
        ev = self._event(line, "compaction")
        ev["text"] = _str(data.get("summaryContent"))
        if data.get("success") is False:
            ev["status"] = "attempted"
        ev["extra"].update({k: v for k, v in data.items() if k != "summaryContent"})
        return [ev]

    def _count(self, what: str, n: int) -> None:
        self.not_recorded[what] = self.not_recorded.get(what, 0) + n


def _tool_fields(ev: dict[str, Any], name: str | None, call_id: str | None, args: Any) -> None:
    ev["tool_name"] = name
    ev["tool"] = descriptor.canonical_tool(name)
    ev["call_id"] = call_id
    if args is not None:
        ev["input"] = args
        ev["path"] = descriptor.tool_path(args)


class _Line:
    """One parsed envelope with what every event of it needs."""

    __slots__ = ("agent", "data", "ident", "line_type", "number", "obj", "ts")

    def __init__(
        self,
        log: CopilotLog,
        number: int,
        obj: dict[str, Any],
        data: dict[str, Any],
        line_type: str,
        ts: str | None,
    ) -> None:
        self.number = number
        self.obj = obj
        self.data = data
        self.line_type = line_type
        self.ts = ts
        raw_id = obj.get("id")
        self.ident = str(raw_id) if isinstance(raw_id, str) and raw_id else f"{log.name}:{number}"
        agent = _str(obj.get("agentId")) or _str(data.get("agentId"))
        self.agent = agent or None


_HANDLERS = {
    "session.start": CopilotLog._session_start,
    "session.shutdown": CopilotLog._session_end,
    "user.message": CopilotLog._prompt,
    "assistant.message": CopilotLog._assistant,
    "tool.execution_start": CopilotLog._tool_start,
    "tool.execution_complete": CopilotLog._tool_complete,
    "external_tool.requested": CopilotLog._external_requested,
    "external_tool.completed": CopilotLog._external_completed,
    "subagent.started": CopilotLog._subagent_start,
    "subagent.completed": CopilotLog._subagent_stop,
    "subagent.failed": CopilotLog._subagent_stop,
    "system.notification": CopilotLog._notification,
    "session.compaction_complete": CopilotLog._compaction,
    "session.usage_record": CopilotLog._usage_record,
}


# ---- the run: the shared JSON-lines pipeline ------------------------------------------------


class _Walk(FileWalk):
    """One log through the pipeline's gate into a ``CopilotLog``."""

    def __init__(self, run: CopilotImporter, path: str) -> None:
        super().__init__(run, path)
        self.log = CopilotLog(path, run.received_at)

    def prefeed(self, number: int, value: Any) -> bool:
        """The ignored lines (~2/3 of a log's: hook.start/end, turn bookkeeping, system
        prompts) counted without the gate's exactness check and ``feed``."""
        return self.log.skipped(value)

    def feed(self, number: int, obj: dict[str, Any], data: bytes) -> None:
        for ev in self.log.feed(number, obj, normalize_ts(obj.get("timestamp"))):
            self.events.append((number, ev))

    def close(self) -> None:
        report = self.run.report
        for counts, into in (
            (self.log.ignored, report.ignored),
            (self.log.not_recorded, report.not_recorded),
        ):
            for what, n in counts.items():
                into[what] = into.get(what, 0) + n


class CopilotImporter(LineImporter):
    """Imports Copilot logs into ``$TRAIL_HOME``; one instance per ``trail import`` run."""

    HARNESS = HARNESS
    SOURCE = SOURCE

    def find_files(self, paths: Iterable[str]) -> list[str]:
        return find_logs(paths)

    def new_walk(self, path: str) -> FileWalk:
        return _Walk(self, path)


def import_paths(
    paths: Iterable[str], home: str | None = None, task: str | None = None
) -> ImportReport:
    """Import Copilot logs (files or folders) into ``home``; the report of what was done."""
    return CopilotImporter(home, task).run(list(paths))
