"""A scripted fake of the OpenAI chat-completions API, bound to 127.0.0.1, standard library only.

Copilot CLI (``COPILOT_PROVIDER_BASE_URL``, BYOK) and Mistral Vibe (a ``generic`` provider with
``api_style="openai"``) talk to it (shared/reference/real-harnesses.md §1.1, §2.1). Base URL:
``fake.base_url + "/v1"``.

The script is the rig's (tests/harnesses/fake_model.py): ``{"main": [step, ...], "child":
[...]}``; a step is a list of tool calls ``{"name": "bash", "input": {...}}`` (several calls in
one step are parallel ``tool_calls`` of one assistant message), ``{"text": "..."}``, or
``{"error": 400, "message": "..."}`` (the request is answered with that HTTP status and an
OpenAI error body; the SDKs retry 5xx and 429, so give those only where retries are wanted).
Once a conversation has used up its steps it is answered with a short text (``stop``).

Conversations are told apart by the text of their first ``user`` message (a string, or the
``text`` parts of a list): the first tool-bearing conversation seen plays ``main``, every later
one ``child``. Each tool-call id encodes its conversation and step
(``call_fake_<conv>_<step>_<n>_<rand>``), and the step to play is one past the highest found
in the request's assistant ``tool_calls``. The calls the harness ran are the ``tool_call_id``
of the request's ``tool`` messages.

Wire format, as the OpenAI API streams it: a first chunk with ``delta.role``, then the text
(``delta.content``) or, per call, a chunk opening it (``index``, ``id``, ``type``,
``function.name``, empty ``arguments``) and the arguments in two pieces; a last choice chunk
with ``finish_reason`` (``tool_calls`` or ``stop``); a usage chunk (``choices: []``) when
``stream_options.include_usage`` is set; then ``data: [DONE]``. Without ``stream`` the answer is
one ``chat.completion`` object. Requests without tools (titles, summaries) get ``"Fake title"``.
``GET /v1/models`` (and ``/v1/models/<id>``) list the one fake model. Every request is logged
(method, path, headers minus keys, body).
"""

from __future__ import annotations

import json
import secrets
import time
from typing import Any

from tests.harnesses.fake_model import (
    FINAL_TEXT,
    SIDE_TEXT,
    Handler,
    ScriptedModel,
    first_user_text,
    id_pattern,
    make_id,
    serve_forever,
    steps_played,
)

MODEL = "fake-model"
ID_PREFIX = "call_fake"
_ID = id_pattern(ID_PREFIX)
USAGE = {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}


def _assistant_call_ids(messages: list[Any]) -> list[str]:
    ids = []
    for msg in messages:
        if isinstance(msg, dict) and msg.get("role") == "assistant":
            calls = msg.get("tool_calls")
            for call in calls if isinstance(calls, list) else []:
                if isinstance(call, dict):
                    ids.append(str(call.get("id", "")))
    return ids


def _returned_call_ids(messages: list[Any]) -> set[str]:
    """Our call ids whose results came back (``tool`` messages): the calls the harness ran."""
    return {
        str(msg.get("tool_call_id"))
        for msg in messages
        if isinstance(msg, dict)
        and msg.get("role") == "tool"
        and _ID.match(str(msg.get("tool_call_id", "")))
    }


class FakeOpenAI(ScriptedModel):
    """The server; ``with FakeOpenAI(script, log) as fake:`` then ``fake.base_url + "/v1"``."""

    thread_name = "fake-openai"

    def reply(self, body: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """(the assistant's answer, what was decided) for one chat-completions request.

        The answer is ``{"content": str | None, "tool_calls": [...], "finish_reason": ...}``
        or ``{"error": status, "message": ...}``.
        """
        raw = body.get("messages")
        messages: list[Any] = raw if isinstance(raw, list) else []
        if not body.get("tools"):
            return _text(SIDE_TEXT), {"role": "side"}
        number, role = self.conversation(first_user_text(messages))
        step_no = steps_played(_assistant_call_ids(messages), _ID)
        self.saw_executed(_returned_call_ids(messages))
        decided: dict[str, Any] = {"role": role, "conversation": number, "step": step_no}
        step = self.step(role, step_no)
        if step is None:
            return _text(FINAL_TEXT), decided
        if isinstance(step, dict) and "error" in step:
            return {"error": int(step["error"]), "message": str(step.get("message", ""))}, decided
        if isinstance(step, dict) and "text" in step:
            return _text(str(step["text"])), decided
        calls = step if isinstance(step, list) else [step]
        tool_calls = [
            {
                "id": make_id(ID_PREFIX, number, step_no, n),
                "type": "function",
                "function": {"name": call["name"], "arguments": json.dumps(call.get("input", {}))},
            }
            for n, call in enumerate(calls)
        ]
        decided["tool_call_ids"] = [c["id"] for c in tool_calls]
        answer = {"content": None, "tool_calls": tool_calls, "finish_reason": "tool_calls"}
        return answer, decided


def _text(text: str) -> dict[str, Any]:
    return {"content": text, "tool_calls": [], "finish_reason": "stop"}


def _chunk(base: dict[str, Any], delta: dict[str, Any], finish: str | None = None) -> bytes:
    data = {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return f"data: {json.dumps(data)}\n\n".encode()


def stream_chunks(body: dict[str, Any], answer: dict[str, Any]) -> list[bytes]:
    """The server-sent events of one streamed answer, ``[DONE]`` included."""
    base = {
        "id": f"chatcmpl-fake-{secrets.token_hex(6)}",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": str(body.get("model") or MODEL),
    }
    out = [_chunk(base, {"role": "assistant", "content": ""})]
    if answer["content"]:
        out.append(_chunk(base, {"content": answer["content"]}))
    for index, call in enumerate(answer["tool_calls"]):
        fn = call["function"]
        opening = {"index": index, "id": call["id"], "type": "function"}
        opening["function"] = {"name": fn["name"], "arguments": ""}
        out.append(_chunk(base, {"tool_calls": [opening]}))
        args = fn["arguments"]
        half = len(args) // 2
        for piece in (args[:half], args[half:]):
            part = {"index": index, "function": {"arguments": piece}}
            out.append(_chunk(base, {"tool_calls": [part]}))
    out.append(_chunk(base, {}, answer["finish_reason"]))
    options = body.get("stream_options")
    if isinstance(options, dict) and options.get("include_usage"):
        usage = {**base, "choices": [], "usage": USAGE}
        out.append(f"data: {json.dumps(usage)}\n\n".encode())
    out.append(b"data: [DONE]\n\n")
    return out


def completion(body: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
    """The answer as one non-streamed ``chat.completion`` object."""
    message: dict[str, Any] = {"role": "assistant", "content": answer["content"]}
    if answer["tool_calls"]:
        message["tool_calls"] = answer["tool_calls"]
    return {
        "id": f"chatcmpl-fake-{secrets.token_hex(6)}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": str(body.get("model") or MODEL),
        "choices": [{"index": 0, "message": message, "finish_reason": answer["finish_reason"]}],
        "usage": USAGE,
    }


def _model(name: str) -> dict[str, Any]:
    return {"id": name, "object": "model", "created": 1735689600, "owned_by": "trail-fake"}


class OpenAIHandler(Handler):
    request_id_header = "x-request-id"

    def get(self, path: str) -> Any:
        if path.endswith("/models"):
            return {"object": "list", "data": [_model(MODEL)]}
        if "/models/" in path:
            return _model(path.rsplit("/", 1)[1])
        return {}

    def do_POST(self) -> None:
        body, entry, path = self._request()
        if not path.endswith("/chat/completions") or not isinstance(body, dict):
            missing = {"error": {"message": f"no route {path}", "type": "not_found"}}
            self._answer(entry, 404, missing, unknown=True)
            return
        fake: FakeOpenAI = self.fake
        answer, decided = fake.reply(body)
        if "error" in answer:
            error = {"message": answer["message"], "type": "invalid_request_error", "code": None}
            self._answer(entry, answer["error"], {"error": error}, **decided)
            return
        entry["answer"] = {"status": 200, "finish_reason": answer["finish_reason"], **decided}
        fake.log(entry)
        if decided.get("role") == "main" and answer["finish_reason"] == "stop":
            fake.think()
        if body.get("stream"):
            self._start_stream()
            self._end_stream(stream_chunks(body, answer))
        else:
            self._json(200, completion(body, answer))


FakeOpenAI.handler_base = OpenAIHandler


if __name__ == "__main__":
    serve_forever(FakeOpenAI)
