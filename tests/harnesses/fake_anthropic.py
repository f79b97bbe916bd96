"""A scripted fake of the Anthropic Messages API, bound to 127.0.0.1, standard library only.

Claude Code talks to it through ``ANTHROPIC_BASE_URL`` (shared/reference/real-harnesses.md §3).

The script is ``{"main": [step, ...], "child": [step, ...]}`` (a bare list means ``main`` only).
A step answers one tool-bearing request and is either a list of tool calls (several calls in one
step become parallel ``tool_use`` blocks of one message) or ``{"text": "..."}``. A tool call is
``{"name": "Bash", "input": {...}}``. Once a conversation has used up its steps, it is answered
with a short text (``end_turn``), so the harness finishes its turn.

Conversations are told apart by the text of their first user message: the first tool-bearing
conversation seen plays ``main``, every other one plays ``child`` (subagents). The step to play
is recovered from the request itself, not from a counter: each ``tool_use`` id the fake sends
encodes its conversation and step (``toolu_fake_<conv>_<step>_<n>_<rand>``), so the next step is
one past the highest step found in the request's assistant messages. Retries and requests that
split or merge the assistant's blocks therefore replay the right step.

Requests without tools (title generation and other side queries) get ``"Fake title"``. The
compactor's request (tools offered, last user text ``CRITICAL: Respond with TEXT ONLY…``) gets
a summary and plays no step. The
other endpoints Claude Code may probe (``count_tokens``, ``models``, anything else) get a
plausible small answer. Every request is logged (method, path, headers minus the API key, body).
"""

from __future__ import annotations

import json
import secrets
from typing import Any

from tests.harnesses.fake_model import (
    FINAL_TEXT,
    SIDE_TEXT,
    Handler,
    ScriptedModel,
    first_user_text,
    id_pattern,
    make_id,
    normalize_script,
    serve_forever,
    steps_played,
)

__all__ = ["FINAL_TEXT", "MODEL", "SIDE_TEXT", "FakeAnthropic", "normalize_script"]

MODEL = "claude-fake-1"
ID_PREFIX = "toolu_fake"
_ID = id_pattern(ID_PREFIX)


def _tool_use_blocks(messages: list[Any]) -> list[str]:
    ids = []
    for msg in messages:
        if not isinstance(msg, dict) or msg.get("role") != "assistant":
            continue
        content = msg.get("content")
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                ids.append(str(block.get("id", "")))
    return ids


def played_steps(messages: list[Any]) -> int:
    """How many steps of this conversation were already played (from our tool_use ids)."""
    return steps_played(_tool_use_blocks(messages), _ID)


def tool_use_ids(messages: list[Any]) -> set[str]:
    """Our tool_use ids in the request's assistant messages: the calls the harness ran."""
    return {i for i in _tool_use_blocks(messages) if _ID.match(i)}


# What 2.1.328's compactor puts in its request's last user text (docs/testing.md, compaction).
COMPACT_ASK = "CRITICAL: Respond with TEXT ONLY"
COMPACT_SUMMARY = (
    "<analysis>The user asked to look at the notes.</analysis>\n"
    "<summary>1. Primary Request: look at the notes. 2. Done: read notes.txt.</summary>"
)


def last_user_text(messages: list[Any]) -> str:
    """Text of the last user message (a string, or its ``text`` parts)."""
    for msg in reversed(messages):
        if isinstance(msg, dict) and msg.get("role") == "user":
            content = msg.get("content")
            if isinstance(content, str):
                return content
            if isinstance(content, list):
                return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
            return ""
    return ""


def _sse(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


class FakeAnthropic(ScriptedModel):
    """The server; use as a context manager or call start()/stop()."""

    thread_name = "fake-anthropic"

    def reply(self, body: dict[str, Any]) -> tuple[list[dict[str, Any]], str, dict[str, Any]]:
        """(content blocks, stop_reason, what was decided) for one /v1/messages request."""
        raw = body.get("messages")
        messages: list[Any] = raw if isinstance(raw, list) else []
        if not body.get("tools"):
            return [{"type": "text", "text": SIDE_TEXT}], "end_turn", {"role": "side"}
        if COMPACT_ASK in last_user_text(messages):
            # Claude Code's compactor: its request offers tools but asks for text only. A
            # summary, and no step played (the conversation goes on where it was).
            return [{"type": "text", "text": COMPACT_SUMMARY}], "end_turn", {"role": "compactor"}
        number, role = self.conversation(first_user_text(messages))
        step_no = played_steps(messages)
        self.saw_executed(tool_use_ids(messages))
        decided: dict[str, Any] = {"role": role, "conversation": number, "step": step_no}
        step = self.step(role, step_no)
        if step is None:
            return [{"type": "text", "text": FINAL_TEXT}], "end_turn", decided
        if isinstance(step, dict) and "text" in step:
            return [{"type": "text", "text": str(step["text"])}], "end_turn", decided
        calls = step if isinstance(step, list) else [step]
        blocks = [
            {
                "type": "tool_use",
                "id": make_id(ID_PREFIX, number, step_no, n),
                "name": call["name"],
                "input": call.get("input", {}),
            }
            for n, call in enumerate(calls)
        ]
        decided["tool_use_ids"] = [b["id"] for b in blocks]
        return blocks, "tool_use", decided


class AnthropicHandler(Handler):
    def get(self, path: str) -> Any:
        if not path.endswith("/v1/models"):
            return {}
        model = {
            "type": "model",
            "id": MODEL,
            "display_name": "Fake",
            "created_at": "2025-01-01T00:00:00Z",
        }
        return {"data": [model], "has_more": False, "first_id": MODEL, "last_id": MODEL}

    def do_POST(self) -> None:
        body, entry, path = self._request()
        if path.endswith("/v1/messages/count_tokens"):
            self._answer(entry, 200, {"input_tokens": 42}, count_tokens=True)
            return
        if not path.endswith("/v1/messages") or not isinstance(body, dict):
            self._answer(entry, 200, {}, unknown=True)
            return
        blocks, stop_reason, decided = self.fake.reply(body)
        entry["answer"] = {"status": 200, "stop_reason": stop_reason, **decided}
        self.fake.log(entry)
        if decided.get("role") == "main" and stop_reason == "end_turn":
            self.fake.think()
        if body.get("stream"):
            self._stream(body, blocks, stop_reason)
        else:
            self._json(200, self._message(body, blocks, stop_reason))

    def _message(
        self, body: dict[str, Any], blocks: list[dict[str, Any]], stop_reason: str | None
    ) -> dict[str, Any]:
        return {
            "id": f"msg_fake_{secrets.token_hex(8)}",
            "type": "message",
            "role": "assistant",
            "model": str(body.get("model") or MODEL),
            "content": blocks,
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": {
                "input_tokens": 100,
                "output_tokens": 10,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
            },
        }

    def _stream(self, body: dict[str, Any], blocks: list[dict[str, Any]], stop_reason: str) -> None:
        self._start_stream()
        start = self._message(body, [], None)
        start["usage"]["output_tokens"] = 1
        out = [_sse("message_start", {"type": "message_start", "message": start})]
        for index, block in enumerate(blocks):
            first: dict[str, Any]
            delta: dict[str, Any]
            if block["type"] == "text":
                first = {"type": "text", "text": ""}
                delta = {"type": "text_delta", "text": block["text"]}
            else:
                first = {**block, "input": {}}
                delta = {
                    "type": "input_json_delta",
                    "partial_json": json.dumps(block["input"]),
                }
            out.append(
                _sse(
                    "content_block_start",
                    {"type": "content_block_start", "index": index, "content_block": first},
                )
            )
            out.append(
                _sse(
                    "content_block_delta",
                    {"type": "content_block_delta", "index": index, "delta": delta},
                )
            )
            out.append(_sse("content_block_stop", {"type": "content_block_stop", "index": index}))
        out.append(
            _sse(
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                    "usage": {"output_tokens": 10},
                },
            )
        )
        out.append(_sse("message_stop", {"type": "message_stop"}))
        self._end_stream(out)


FakeAnthropic.handler_base = AnthropicHandler


def main() -> None:
    """Run standalone: ``python -m tests.harnesses.fake_anthropic SCRIPT.json [LOG.jsonl]``."""
    serve_forever(FakeAnthropic)


if __name__ == "__main__":
    main()
