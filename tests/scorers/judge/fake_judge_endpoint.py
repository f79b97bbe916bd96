"""A fake OpenAI-compatible chat-completions endpoint on 127.0.0.1 for the judge's real HTTP
path (standard library only).

``llm``'s OpenAI plugin talks to it through an ``extra-openai-models.yaml`` entry whose
``api_base`` is ``server.base_url``. Each POST to ``/v1/chat/completions`` is logged (path,
headers, JSON body) and answered by the next reply of ``server.replies`` (the last one repeats):

- ``Reply.json(obj)``: a ``chat.completion`` whose message content is ``json.dumps(obj)``;
- ``Reply.text(s, finish="stop")``: content ``s`` verbatim (``finish="length"`` for a cut answer);
- ``Reply.status(code, error_type, code_name)``: that HTTP status with an OpenAI error body and
  ``retry-after-ms: 1``, so the SDK's own retries (429 and 5xx, twice) take no time;
- ``Reply.drop()``: the connection is closed without an answer;
- ``Reply.hang(seconds)``: nothing is sent for that long (a stalled provider), then a 500.

The structured output the judge asked for is in the logged body's ``response_format``.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

USAGE = {"prompt_tokens": 1234, "completion_tokens": 56, "total_tokens": 1290}


@dataclass(frozen=True)
class Reply:
    kind: str
    payload: Any = None
    status_code: int = 200
    finish: str = "stop"

    @staticmethod
    def json(obj: Any) -> Reply:
        return Reply("text", json.dumps(obj))

    @staticmethod
    def text(text: str, finish: str = "stop") -> Reply:
        return Reply("text", text, finish=finish)

    @staticmethod
    def status(code: int, error_type: str = "server_error", code_name: str | None = None) -> Reply:
        body = {"error": {"message": f"fake {code}", "type": error_type, "code": code_name}}
        return Reply("status", body, status_code=code)

    @staticmethod
    def drop() -> Reply:
        return Reply("drop")

    @staticmethod
    def hang(seconds: float) -> Reply:
        return Reply("hang", seconds)


@dataclass
class FakeJudgeEndpoint:
    replies: list[Reply] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    model_name: str = "fake-judge-1"
    _server: ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def next_reply(self) -> Reply:
        index = min(len(self.requests) - 1, len(self.replies) - 1)
        return self.replies[index] if self.replies else Reply.status(500)

    def __enter__(self) -> FakeJudgeEndpoint:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = None
                fake.requests.append(
                    {
                        "path": self.path,
                        "headers": {k.lower(): v for k, v in self.headers.items()},
                        "body": body,
                    }
                )
                reply = fake.next_reply()
                if reply.kind == "drop":
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                if reply.kind == "hang":
                    time.sleep(reply.payload)
                    self._send(500, {"error": {"message": "hung", "type": "server_error"}})
                    return
                if reply.kind == "status":
                    self._send(reply.status_code, reply.payload)
                    return
                self._send(
                    200,
                    {
                        "id": f"chatcmpl-fake-{len(fake.requests)}",
                        "object": "chat.completion",
                        "created": 1_780_000_000,
                        "model": fake.model_name,
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": reply.payload},
                                "finish_reason": reply.finish,
                            }
                        ],
                        "usage": dict(USAGE),
                    },
                )

            def _send(self, status: int, data: Any) -> None:
                out = json.dumps(data).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(out)))
                self.send_header("retry-after-ms", "1")
                self.end_headers()
                self.wfile.write(out)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()
