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
other endpoints Claude Code may probe (``count_tokens``, ``models``, anything else) get a
plausible small answer. Every request is logged (method, path, headers minus the API key, body).
"""

from __future__ import annotations

import json
import re
import secrets
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

Script = dict[str, list[Any]]

MODEL = "claude-fake-1"
FINAL_TEXT = "Done."
SIDE_TEXT = "Fake title"
_ID = re.compile(r"^toolu_fake_(\d+)_(\d+)_")
_REDACTED_HEADERS = {"x-api-key", "authorization"}


def normalize_script(script: Any) -> Script:
    if isinstance(script, list):
        return {"main": script, "child": []}
    if isinstance(script, dict):
        return {"main": list(script.get("main", [])), "child": list(script.get("child", []))}
    raise TypeError(f"a script is a list of steps or {{'main': [...], 'child': [...]}}: {script!r}")


def first_user_text(messages: list[Any]) -> str:
    """Text of the first user message: the key that tells conversations apart."""
    for msg in messages:
        if not isinstance(msg, dict) or msg.get("role") != "user":
            continue
        content = msg.get("content")
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            return "\n".join(
                str(b.get("text", ""))
                for b in content
                if isinstance(b, dict) and b.get("type") == "text"
            )
        return ""
    return ""


def played_steps(messages: list[Any]) -> int:
    """How many steps of this conversation were already played (from our tool_use ids)."""
    highest = -1
    for msg in messages:
        if not isinstance(msg, dict) or msg.get("role") != "assistant":
            continue
        content = msg.get("content")
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                found = _ID.match(str(block.get("id", "")))
                if found:
                    highest = max(highest, int(found.group(2)))
    return highest + 1


def tool_use_ids(messages: list[Any]) -> set[str]:
    """Our tool_use ids in the request's assistant messages: the calls the harness ran."""
    found = set()
    for msg in messages:
        content = msg.get("content") if isinstance(msg, dict) else None
        for block in content if isinstance(content, list) else []:
            is_ours = isinstance(block, dict) and _ID.match(str(block.get("id", "")))
            if is_ours and block.get("type") == "tool_use":
                found.add(str(block["id"]))
    return found


def _sse(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


class FakeAnthropic:
    """The server; use as a context manager or call start()/stop()."""

    def __init__(
        self,
        script: Any,
        log_path: Path | None = None,
        final_delay: float = 0.0,
        settled: Callable[[set[str]], bool] | None = None,
    ) -> None:
        self.script = normalize_script(script)
        self.log_path = log_path
        # The model "thinks" before the main conversation's closing text: at most
        # ``final_delay`` seconds, less once ``settled(ids)`` says the hooks of every call the
        # harness ran (``ids``) have landed. A real model takes seconds there; without the pause
        # `claude -p` exits within milliseconds of the last tool and kills the async hooks still
        # starting (a real loss, which the fast_exit scenario keeps).
        self.final_delay = final_delay
        self.settled = settled
        self.executed: set[str] = set()  # our tool_use ids seen coming back in requests
        self.requests: list[dict[str, Any]] = []
        self._conversations: dict[str, int] = {}  # first-user-text -> conversation number
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> FakeAnthropic:
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, name="fake-anthropic", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeAnthropic:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- the model ------------------------------------------------------------------------

    def conversation(self, messages: list[Any]) -> tuple[int, str]:
        """(conversation number, role in the script: main or child) for a tool request."""
        key = first_user_text(messages)
        with self._lock:
            if key not in self._conversations:
                self._conversations[key] = len(self._conversations)
            number = self._conversations[key]
        return number, ("main" if number == 0 else "child")

    def reply(self, body: dict[str, Any]) -> tuple[list[dict[str, Any]], str, dict[str, Any]]:
        """(content blocks, stop_reason, what was decided) for one /v1/messages request."""
        raw = body.get("messages")
        messages: list[Any] = raw if isinstance(raw, list) else []
        if not body.get("tools"):
            return [{"type": "text", "text": SIDE_TEXT}], "end_turn", {"role": "side"}
        number, role = self.conversation(messages)
        step_no = played_steps(messages)
        with self._lock:
            self.executed |= tool_use_ids(messages)
        steps = self.script[role]
        decided: dict[str, Any] = {"role": role, "conversation": number, "step": step_no}
        if step_no >= len(steps):
            return [{"type": "text", "text": FINAL_TEXT}], "end_turn", decided
        step = steps[step_no]
        if isinstance(step, dict) and "text" in step:
            return [{"type": "text", "text": str(step["text"])}], "end_turn", decided
        calls = step if isinstance(step, list) else [step]
        blocks = [
            {
                "type": "tool_use",
                "id": f"toolu_fake_{number}_{step_no}_{n}_{secrets.token_hex(4)}",
                "name": call["name"],
                "input": call.get("input", {}),
            }
            for n, call in enumerate(calls)
        ]
        decided["tool_use_ids"] = [b["id"] for b in blocks]
        return blocks, "tool_use", decided

    def think(self) -> None:
        start = time.monotonic()
        settled = False
        while time.monotonic() - start < self.final_delay:
            with self._lock:
                ids = set(self.executed)
            if self.settled and self.settled(ids):
                settled = True
                break
            time.sleep(0.05)
        waited = round(time.monotonic() - start, 3)
        self.log({"t": time.time(), "think": {"seconds": waited, "settled": settled}})

    def log(self, entry: dict[str, Any]) -> None:
        with self._lock:
            self.requests.append(entry)
            if self.log_path:
                with self.log_path.open("a", encoding="utf-8") as fh:
                    fh.write(json.dumps(entry) + "\n")

    # -- HTTP -----------------------------------------------------------------------------

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def _body(self) -> Any:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    return json.loads(raw) if raw else None
                except ValueError:
                    return {"unparsed": raw.decode("utf-8", "replace")[:2000]}

            def _json(self, status: int, data: Any) -> None:
                payload = json.dumps(data).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("request-id", f"req_fake_{secrets.token_hex(6)}")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def _entry(self, body: Any) -> dict[str, Any]:
                return {
                    "t": time.time(),
                    "method": self.command,
                    "path": self.path,
                    "headers": {
                        k.lower(): v
                        for k, v in self.headers.items()
                        if k.lower() not in _REDACTED_HEADERS
                    },
                    "body": body,
                }

            def do_GET(self) -> None:
                entry = self._entry(None)
                path = self.path.split("?", 1)[0]
                if path.rstrip("/").endswith("/v1/models"):
                    data: Any = {
                        "data": [
                            {
                                "type": "model",
                                "id": MODEL,
                                "display_name": "Fake",
                                "created_at": "2025-01-01T00:00:00Z",
                            }
                        ],
                        "has_more": False,
                        "first_id": MODEL,
                        "last_id": MODEL,
                    }
                else:
                    data = {}
                entry["answer"] = {"status": 200}
                fake.log(entry)
                self._json(200, data)

            def do_HEAD(self) -> None:
                fake.log(self._entry(None))
                self.send_response(200)
                self.send_header("content-length", "0")
                self.end_headers()

            def do_POST(self) -> None:
                body = self._body()
                entry = self._entry(body)
                path = self.path.split("?", 1)[0].rstrip("/")
                if path.endswith("/v1/messages/count_tokens"):
                    entry["answer"] = {"status": 200, "count_tokens": True}
                    fake.log(entry)
                    self._json(200, {"input_tokens": 42})
                    return
                if not path.endswith("/v1/messages") or not isinstance(body, dict):
                    entry["answer"] = {"status": 200, "unknown": True}
                    fake.log(entry)
                    self._json(200, {})
                    return
                blocks, stop_reason, decided = fake.reply(body)
                entry["answer"] = {"status": 200, "stop_reason": stop_reason, **decided}
                fake.log(entry)
                if decided.get("role") == "main" and stop_reason == "end_turn":
                    fake.think()
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

            def _stream(
                self, body: dict[str, Any], blocks: list[dict[str, Any]], stop_reason: str
            ) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("cache-control", "no-cache")
                self.send_header("request-id", f"req_fake_{secrets.token_hex(6)}")
                self.send_header("connection", "close")
                self.end_headers()
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
                    out.append(
                        _sse("content_block_stop", {"type": "content_block_stop", "index": index})
                    )
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
                self.wfile.write(b"".join(out))
                self.wfile.flush()
                self.close_connection = True

        return Handler


def main() -> None:
    """Run standalone: ``python -m tests.harnesses.fake_anthropic SCRIPT.json [LOG.jsonl]``."""
    import sys

    script = json.loads(Path(sys.argv[1]).read_text())
    log = Path(sys.argv[2]) if len(sys.argv) > 2 else None
    with FakeAnthropic(script, log) as fake:
        print(fake.base_url, flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
