"""Copilot Chat's session transcripts: ``GitHub.copilot-chat/transcripts/<id>.jsonl``.

They live in the workspace's storage folder (``workspaceStorage/<hash>/``).

Written by ``SessionTranscriptService`` (``microsoft/vscode``
``extensions/copilot/src/platform/chat/{common,node}/sessionTranscriptService.ts`` @``9d1ec376``,
MIT): one JSON entry per line, ``{type, data, id, timestamp (ISO), parentId}``, of eight types:
``session.start`` (``sessionId``, ``startTime``, ``context.cwd``), ``user.message``
(``content``), ``assistant.turn_start`` / ``assistant.turn_end`` (``turnId``),
``assistant.message`` (``content``, ``toolRequests[{toolCallId, name, arguments}]``,
``reasoningText``), ``tool.execution_start`` (``toolCallId``, ``toolName``, ``arguments``),
``tool.execution_complete`` (``toolCallId``, ``success``, ``result.content``) and
``assistant.usage`` (token counts). Call ids have Copilot Chat's ``__vscode-<n>`` suffix
stripped. The service can write a transcript after the fact from history, with turn times
only (NC §1.4), so timestamps are the transcript's, not necessarily the action's.

Mapping: a user message is a prompt; an execution start is a tool call, its completion the
result (``success: false`` an error); the last assistant message before the next user message
(or the end) is the turn's stop; usage is kept as an ``other`` event; an entry of a type this
list does not name is kept as ``other`` with its data, and counted.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

from trace_ingest.events import Event, new_event
from trace_ingest.importers._pipeline import read_lines
from trace_ingest.importers.vscode_reading import FileReport, parse_line
from trace_ingest.vscode_facts import HARNESS, canonical_tool, iso, strip_call_id, tool_path

SOURCE = "events-log"
KNOWN = frozenset(
    {
        "session.start",
        "user.message",
        "assistant.turn_start",
        "assistant.turn_end",
        "assistant.message",
        "tool.execution_start",
        "tool.execution_complete",
        "assistant.usage",
    }
)


def read_transcript(
    path: str, received_at: str, max_line: int
) -> tuple[FileReport, Iterator[Event]]:
    report = FileReport(path, format="Copilot Chat transcript")
    return report, _Transcript(path, received_at, max_line, report).events()


class _Transcript:
    def __init__(self, path: str, received_at: str, max_line: int, report: FileReport) -> None:
        self.path = path
        self.received_at = received_at
        self.max_line = max_line
        self.report = report
        self.sid = os.path.splitext(os.path.basename(path))[0]
        self.cwd: str | None = None
        self.calls: dict[str, str | None] = {}  # open call id -> tool name
        self.turn: str | None = None  # entry id of the user message that opened the turn
        self.turn_ts: str | None = None
        self.last_text: str | None = None
        self.last_ts: str | None = None
        self.seq = 0

    def _event(self, kind: str, ts: str | None, parts: tuple[object, ...]) -> Event:
        self.seq += 1
        ev = new_event(
            harness=HARNESS,
            source=SOURCE,
            session_id=self.sid,
            kind=kind,
            received_at=self.received_at,
            ts=ts,
            id_parts=parts,
        )
        ev["seq"] = self.seq
        if self.cwd:
            ev["cwd"] = self.cwd
        return ev

    def events(self) -> Iterator[Event]:
        report = self.report
        started = False
        for number, data, size, is_last in read_lines(self.path, self.max_line):
            report.lines += 1
            if data is None:
                report.skip(number, f"line of {size} bytes exceeds capture.max_payload_bytes")
                continue
            entry = parse_line(report, number, data, is_last)
            if entry is None:
                continue
            if not isinstance(entry, dict) or not isinstance(entry.get("type"), str):
                report.skip(number, "not a transcript entry (no type)")
                continue
            kind = entry["type"]
            data = entry.get("data")
            payload: dict[str, Any] = data if isinstance(data, dict) else {}
            if kind == "session.start" and not started:
                sid = payload.get("sessionId")
                if isinstance(sid, str) and sid:
                    self.sid = sid
                context = payload.get("context")
                if isinstance(context, dict) and isinstance(context.get("cwd"), str):
                    self.cwd = context["cwd"]
            started = True
            report.sessions.add(self.sid)
            yield from self._entry(number, entry, kind, payload)
        yield from self._close_turn()
        for cid in self.calls:
            report.not_recorded["tool call without a completion"] += 1
            del cid
        if not started and report.error is None:
            report.error = "no transcript entries"

    def _entry(
        self, number: int, entry: dict[str, Any], kind: str, data: dict[str, Any]
    ) -> Iterator[Event]:
        ts = iso(entry.get("timestamp"))
        ident = entry.get("id") if isinstance(entry.get("id"), str) else f"line{number}"
        if kind == "session.start":
            ev = self._event("session_start", iso(data.get("startTime")) or ts, ("start", ident))
            ev["hook_event"] = kind
            ev["extra"] = {
                k: data[k]
                for k in ("copilotVersion", "vscodeVersion", "producer", "version")
                if k in data
            }
            yield ev
        elif kind == "user.message":
            yield from self._close_turn()
            ev = self._event("prompt", ts, ("prompt", ident))
            ev["hook_event"] = kind
            ev["text"] = data.get("content") if isinstance(data.get("content"), str) else None
            ev["prompt_id"] = ident
            self.turn, self.turn_ts = ident, ts
            yield ev
        elif kind == "assistant.message":
            content = data.get("content")
            if isinstance(content, str) and content:
                self.last_text, self.last_ts = content, ts
            if data.get("reasoningText"):
                self.report.not_recorded["reasoning text"] += 1
        elif kind == "tool.execution_start":
            raw = data.get("toolCallId")
            cid = strip_call_id(raw) if isinstance(raw, str) and raw else f"line{number}"
            name = data.get("toolName") if isinstance(data.get("toolName"), str) else None
            self.calls[cid] = name
            ev = self._event("tool_call", ts, ("call", cid))
            ev["hook_event"] = kind
            ev["tool_name"] = name
            ev["tool"] = canonical_tool(name)
            ev["call_id"] = cid
            ev["input"] = _arguments(data.get("arguments"))
            ev["path"] = tool_path(ev["input"])
            ev["ok"] = None
            if self.turn:
                ev["prompt_id"] = self.turn
            yield ev
        elif kind == "tool.execution_complete":
            raw = data.get("toolCallId")
            cid = strip_call_id(raw) if isinstance(raw, str) and raw else f"line{number}"
            name = self.calls.pop(cid, None)
            success = data.get("success")
            result = data.get("result")
            output = result.get("content") if isinstance(result, dict) else None
            failed = success is False
            ev = self._event("tool_error" if failed else "tool_result", ts, ("result", cid))
            ev["hook_event"] = kind
            ev["tool_name"] = name
            ev["tool"] = canonical_tool(name)
            ev["call_id"] = cid
            ev["output"] = output
            ev["ok"] = None if success is None else not failed
            ev["status"] = "failed" if failed else ("ok" if success is True else None)
            if failed and isinstance(output, str):
                ev["error"] = output
            if self.turn:
                ev["prompt_id"] = self.turn
            yield ev
        elif kind == "assistant.usage":
            ev = self._event("other", ts, ("usage", ident))
            ev["hook_event"] = kind
            ev["extra"] = {"usage": data}
            yield ev
        elif kind in KNOWN:  # turn_start / turn_end: the rounds of a turn
            self.report.not_recorded[kind] += 1
        else:
            self.report.not_recorded[f"unknown entry type {kind} (kept as other)"] += 1
            ev = self._event("other", ts, ("entry", ident))
            ev["hook_event"] = kind
            ev["extra"] = {"data": entry.get("data")}
            yield ev

    def _close_turn(self) -> Iterator[Event]:
        if self.turn is None:
            return
        ev = self._event("agent_stop", self.last_ts or self.turn_ts, ("stop", self.turn))
        ev["hook_event"] = "assistant.message"
        ev["prompt_id"] = self.turn
        ev["text"] = self.last_text
        self.turn = self.last_text = self.last_ts = None
        yield ev


def _arguments(value: Any) -> Any:
    """Tool arguments: an object, or the JSON string the model wrote (parsed when it parses)."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value
