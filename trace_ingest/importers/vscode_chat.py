"""VS Code's chat model (``ISerializableChatData``) -> events: one request at a time.

Shared by the three files that hold it (docs/importers.md, "VS Code"):

- ``chatSessions/<id>.json``: the whole session, ``version`` 3 (read by ``vscode_files``);
- ``chatSessions/<id>.jsonl``: the same object as a mutation log (``vscode_mutation_log``);
- an "Export Chat" JSON file: the same requests, without ``sessionId`` (``vscode_files``).

Shapes: ``microsoft/vscode`` ``src/vs/workbench/contrib/chat/common/chatService.ts``
(``IChatToolInvocationSerialized``, ``IChatTerminalToolInvocationData``, ``ConfirmedReason``)
and ``languageModelToolsService.ts`` (``IToolResultInputOutputDetails``), read through the code
index (MIT); shared/samples/vscode for the request envelope. A request is one turn: its
``message`` is the prompt, its ``response`` parts the model's text and tool invocations, its
``result`` / ``modelState`` how the turn ended.

Event ids are built from the session id, the request id and the tool-call id, never from the
file, so the ``.json`` VS Code keeps beside a migrated ``.jsonl`` (NC §1.4) and an export of the
same session give the same events: importing all three writes each action once.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from trace_ingest.events import Event, new_event
from trace_ingest.tools import STATUS_OK
from trace_ingest.vscode_facts import HARNESS, canonical_tool, ms_iso, strip_call_id, tool_path

SOURCE = "transcript"  # VS Code's own record of the chat (canonical.TRUTH ranks it first)

# ConfirmedReason.type (chatService.ts ``ToolConfirmKind``): Denied = 0, Skipped = 5.
_DENIED = 0
_SKIPPED = 5
# ResponseModelState (chatModel.ts): Pending 0, Complete 1, Cancelled 2, Failed 3, NeedsInput 4.
_CANCELLED = 2
_FAILED = 3
_DONE_STATES = frozenset({1, 2, 3})
_TEXT_KINDS = frozenset({None, "markdownContent", "markdownVuln"})


@dataclass
class ChatContext:
    """One session being mapped: where its events go and what was left out."""

    session_id: str
    file: str
    received_at: str
    source: str = SOURCE
    session_ts: str | None = None  # creationDate: the time of a request without its own
    cwd: str | None = None
    not_recorded: Counter[str] = field(default_factory=Counter)
    pending: int = 0  # requests still running when the file was written (no stop recorded)
    seq: int = 0

    def event(self, kind: str, ts: str | None, parts: tuple[object, ...]) -> Event:
        self.seq += 1
        ev = new_event(
            harness=HARNESS,
            source=self.source,
            session_id=self.session_id,
            kind=kind,
            received_at=self.received_at,
            ts=ts or self.session_ts,
            id_parts=parts,
        )
        ev["seq"] = self.seq
        if self.cwd:
            ev["cwd"] = self.cwd
        return ev


def text_of(value: Any) -> str | None:
    """The text of a string or an ``IMarkdownString`` (``{"value": ...}``)."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("value"), str):
        return str(value["value"])
    return None


def prompt_text(message: Any) -> str | None:
    """A request's ``message``: a string (old files) or ``{"text", "parts"}``."""
    if isinstance(message, str):
        return message
    if isinstance(message, dict):
        text = message.get("text")
        if isinstance(text, str):
            return text
        parts = message.get("parts")
        if isinstance(parts, list):
            joined = "".join(
                str(p["text"])
                for p in parts
                if isinstance(p, dict) and isinstance(p.get("text"), str)
            )
            return joined or None
    return None


def request_events(ctx: ChatContext, request: Any, index: int) -> Iterator[Event]:
    """The events of one request (a turn): prompt, tool calls and results, the turn's stop."""
    if not isinstance(request, dict):
        ctx.not_recorded["request that is not an object"] += 1
        return
    rid = request.get("requestId")
    rid = rid if isinstance(rid, str) and rid else f"request#{index}"
    ts = ms_iso(request.get("timestamp")) or ctx.session_ts
    prompt = ctx.event("prompt", ts, ("prompt", rid))
    prompt["hook_event"] = "request"
    prompt["prompt_id"] = rid
    prompt["text"] = prompt_text(request.get("message"))
    extra: dict[str, Any] = {"request_index": index}
    for key in ("modelId", "timeSpentWaiting"):
        if request.get(key) is not None:
            extra[key] = request[key]
    agent = request.get("agent")
    if isinstance(agent, dict) and isinstance(agent.get("id"), str):
        extra["agent"] = agent["id"]
    variables = request.get("variableData")
    if isinstance(variables, dict) and isinstance(variables.get("variables"), list):
        names = [
            v.get("name") for v in variables["variables"] if isinstance(v, dict) and v.get("name")
        ]
        if names:
            extra["attachments"] = names[:50]
    prompt["extra"] = extra
    yield prompt

    texts: list[str] = []
    response = request.get("response")
    for i, part in enumerate(response if isinstance(response, list) else []):
        if not isinstance(part, dict):
            ctx.not_recorded["response part that is not an object"] += 1
            continue
        kind = part.get("kind")
        if (kind is None or isinstance(kind, str)) and kind in _TEXT_KINDS:
            text = text_of(part.get("content")) if "content" in part else text_of(part)
            if text:
                texts.append(text)
        elif kind == "toolInvocationSerialized":
            yield from _tool_events(ctx, part, rid, i, ts)
        else:
            ctx.not_recorded[f"response part {kind}"] += 1
    stop = _stop_event(ctx, request, rid, ts, texts)
    if stop is not None:
        yield stop


def _stop_event(
    ctx: ChatContext, request: dict[str, Any], rid: str, ts: str | None, texts: list[str]
) -> Event | None:
    result = request.get("result")
    state = request.get("modelState")
    value = state.get("value") if isinstance(state, dict) else None
    canceled = request.get("isCanceled") is True or value == _CANCELLED
    if result is None and value not in _DONE_STATES and not canceled:
        ctx.pending += 1  # still running when written: a later import records its end
        return None
    result = result if isinstance(result, dict) else {}
    end = ms_iso(state.get("completedAt")) if isinstance(state, dict) else None
    timings = result.get("timings")
    if end is None and isinstance(timings, dict) and isinstance(request.get("timestamp"), int):
        elapsed = timings.get("totalElapsed")
        if isinstance(elapsed, int | float) and not isinstance(elapsed, bool):
            end = ms_iso(request["timestamp"] + elapsed)
    ev = ctx.event("agent_stop", end or ts, ("stop", rid))
    ev["hook_event"] = "response"
    ev["prompt_id"] = rid
    ev["text"] = "\n\n".join(texts) if texts else None
    error = result.get("errorDetails")
    status = "ok"
    if isinstance(error, dict) or value == _FAILED:
        status = "failed"
        ev["error"] = text_of(error.get("message")) if isinstance(error, dict) else None
    elif canceled:
        status = "interrupted"
    ev["status"] = status
    ev["ok"] = STATUS_OK[status]
    extra: dict[str, Any] = {}
    usage = _usage(request, result)
    if usage:
        extra["usage"] = usage
    if isinstance(result.get("details"), str):
        extra["details"] = result["details"]
    if isinstance(timings, dict):
        extra["timings"] = {k: v for k, v in timings.items() if isinstance(v, int | float)}
    if extra:
        ev["extra"] = extra
    return ev


def _usage(request: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
    """Token counts: the request's own fields (set late with kind 1, NC §1.4) or the result's
    ``metadata``."""
    usage: dict[str, Any] = {}
    meta = result.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    for name, keys in (
        ("input_tokens", (request.get("promptTokens"), meta.get("promptTokens"))),
        ("output_tokens", (request.get("completionTokens"), meta.get("outputTokens"))),
    ):
        for value in keys:
            if isinstance(value, int) and not isinstance(value, bool):
                usage[name] = value
                break
    for key, value in (
        ("promptTokens", result.get("promptTokens")),
        ("outputTokens", result.get("outputTokens")),
    ):
        name = "input_tokens" if key == "promptTokens" else "output_tokens"
        if name not in usage and isinstance(value, int) and not isinstance(value, bool):
            usage[name] = value
    model = meta.get("resolvedModel") or meta.get("model") or request.get("modelId")
    if usage and isinstance(model, str):
        usage["model"] = model
    if isinstance(request.get("copilotCredits"), int | float):
        usage["copilot_credits"] = request["copilotCredits"]
    return usage


def _confirmation(part: dict[str, Any]) -> int | None:
    """``ToolConfirmKind`` of a serialized invocation; booleans are pre-1.104 files."""
    confirmed = part.get("isConfirmed")
    if isinstance(confirmed, bool):
        return None if confirmed else _DENIED
    if isinstance(confirmed, dict) and isinstance(confirmed.get("type"), int):
        return int(confirmed["type"])
    return None


def _tool_input(part: dict[str, Any]) -> Any:
    details = part.get("resultDetails")
    if isinstance(details, dict) and isinstance(details.get("input"), str):
        raw = details["input"]
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    data = part.get("toolSpecificData")
    if not isinstance(data, dict):
        return None
    kind = data.get("kind")
    if kind == "terminal":
        line = data.get("commandLine")
        if isinstance(line, dict):
            command = line.get("userEdited") or line.get("toolEdited") or line.get("original")
        else:
            command = data.get("command")  # ILegacyChatTerminalToolInvocationData
        return {"command": command} if isinstance(command, str) else None
    if kind == "input":
        return data.get("rawInput")
    if kind == "subagent":
        return {k: data[k] for k in ("agentName", "description", "prompt") if k in data}
    return None


def _tool_output(part: dict[str, Any]) -> tuple[Any, bool]:
    """``(output, is_error)`` of a completed invocation."""
    details = part.get("resultDetails")
    data = part.get("toolSpecificData")
    data = data if isinstance(data, dict) else {}
    if isinstance(details, dict) and isinstance(details.get("output"), list):
        texts: list[str] = []
        for item in details["output"]:
            if not isinstance(item, dict):
                continue
            value = item.get("value")
            if item.get("type") == "embed" and item.get("isText") and isinstance(value, str):
                texts.append(value)
            elif isinstance(value, str):
                mime = item.get("mimeType") or "binary"
                texts.append(f"[trail: {mime} data omitted, {len(value)} base64 chars]")
            elif item.get("type") == "ref":
                texts.append(f"[reference {json.dumps(item.get('uri'), default=str)[:300]}]")
        return ("\n".join(texts) if texts else None), details.get("isError") is True
    if isinstance(details, dict) and isinstance(details.get("output"), str):
        return details["output"], details.get("isError") is True
    if isinstance(details, list):  # Array<URI | Location>: what the tool read or found
        return [_uri_path(u) for u in details[:200]], False
    output = data.get("terminalCommandOutput")
    if isinstance(output, dict) and isinstance(output.get("text"), str):
        return output["text"], False
    if data.get("kind") == "subagent" and isinstance(data.get("result"), str):
        return data["result"], False
    return text_of(part.get("pastTenseMessage")), False


def _uri_path(value: Any) -> Any:
    if isinstance(value, dict):
        uri = value.get("uri") if isinstance(value.get("uri"), dict) else value
        if isinstance(uri, dict) and isinstance(uri.get("path"), str):
            return uri.get("fsPath") or uri["path"]
    return value


def _tool_events(
    ctx: ChatContext, part: dict[str, Any], rid: str, index: int, ts: str | None
) -> Iterator[Event]:
    raw_id = part.get("toolCallId")
    cid = strip_call_id(raw_id) if isinstance(raw_id, str) and raw_id else f"{rid}:part{index}"
    name = part.get("toolId") if isinstance(part.get("toolId"), str) else None
    data = part.get("toolSpecificData")
    data = data if isinstance(data, dict) else {}
    state = data.get("terminalCommandState")
    state = state if isinstance(state, dict) else {}
    call_ts = ms_iso(state.get("timestamp")) or ts
    tool_input = _tool_input(part)
    agent = part.get("subAgentInvocationId")
    agent = agent if isinstance(agent, str) and agent else None

    def base(kind: str, parts: tuple[object, ...], when: str | None) -> Event:
        ev = ctx.event(kind, when, parts)
        ev["hook_event"] = "toolInvocationSerialized"
        ev["tool_name"] = name
        ev["tool"] = canonical_tool(name)
        ev["call_id"] = cid
        ev["prompt_id"] = rid
        if agent:
            ev["agent_id"] = agent
        return ev

    call = base("tool_call", ("call", cid), call_ts)
    call["input"] = tool_input
    call["path"] = tool_path(tool_input)
    call["ok"] = None
    extra: dict[str, Any] = {}
    message = text_of(part.get("invocationMessage"))
    if message:
        extra["invocation_message"] = message
    source = part.get("source")
    if isinstance(source, dict) and isinstance(source.get("type"), str):
        extra["tool_source"] = source["type"]
        if isinstance(source.get("label"), str):
            extra["tool_source_label"] = source["label"]
    if isinstance(data.get("kind"), str):
        extra["tool_data"] = data["kind"]
    if extra:
        call["extra"] = extra
    yield call

    confirmation = _confirmation(part)
    if confirmation == _DENIED:
        ev = base("permission", ("permission", cid), call_ts)
        ev["status"] = "refused"
        ev["ok"] = None
        yield ev
        return
    if confirmation == _SKIPPED:
        ev = base("tool_result", ("result", cid), call_ts)
        ev["status"] = "cancelled"
        ev["ok"] = None
        yield ev
        return
    if part.get("isComplete") is not True:
        ctx.not_recorded["tool invocation without a result (not complete)"] += 1
        return
    output, is_error = _tool_output(part)
    exit_code = state.get("exitCode")
    failed = is_error or (
        isinstance(exit_code, int) and not isinstance(exit_code, bool) and exit_code != 0
    )
    end = call_ts
    duration = state.get("duration")
    if isinstance(duration, int | float) and not isinstance(duration, bool):
        start = state.get("timestamp")
        if isinstance(start, int | float) and not isinstance(start, bool):
            end = ms_iso(start + duration) or call_ts
    ev = base("tool_error" if failed else "tool_result", ("result", cid), end)
    ev["input"] = tool_input
    ev["path"] = call["path"]
    ev["output"] = output
    ev["status"] = "failed" if failed else "ok"
    ev["ok"] = not failed
    if failed:
        ev["error"] = (
            f"exit code {exit_code}"
            if not is_error and exit_code is not None
            else (output if isinstance(output, str) else None)
        )
    if isinstance(duration, int | float) and not isinstance(duration, bool):
        ev["duration_ms"] = float(duration)
    if exit_code is not None:
        ev["extra"] = {"exit_code": exit_code}
    yield ev
