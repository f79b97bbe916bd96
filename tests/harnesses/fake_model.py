"""What every scripted fake model server of the rig shares, standard library only.

A fake (``fake_anthropic.FakeAnthropic``, ``fake_openai.FakeOpenAI``) replays a script,
bound to 127.0.0.1 on a free port, and logs every request. This module holds the parts that do
not depend on the wire protocol:

- the script: ``{"main": [step, ...], "child": [step, ...]}`` (a bare list means ``main``
  only). A step answers one tool-bearing request: a list of tool calls (several calls become
  parallel calls of one assistant message), one call, or ``{"text": "..."}``. A call is
  ``{"name": ..., "input": {...}}``;
- telling conversations apart by the text of their first user message: the first one seen
  plays ``main``, every later one ``child`` (subagents get their own script);
- the closing pause (``final_delay`` / ``settled``), the request log, the server's life.

Each fake encodes its conversation and step in the tool-call ids it sends
(``<prefix>_<conv>_<step>_<n>_<rand>``), so the step to play is recovered from the request
itself: retries and harnesses that split or merge messages replay the right step.
"""

from __future__ import annotations

import json
import re
import secrets
import threading
import time
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

Script = dict[str, list[Any]]

FINAL_TEXT = "Done."
SIDE_TEXT = "Fake title"
REDACTED_HEADERS = {"x-api-key", "authorization", "api-key"}


def normalize_script(script: Any) -> Script:
    if isinstance(script, list):
        return {"main": script, "child": []}
    if isinstance(script, dict):
        return {"main": list(script.get("main", [])), "child": list(script.get("child", []))}
    raise TypeError(f"a script is a list of steps or {{'main': [...], 'child': [...]}}: {script!r}")


def first_user_text(messages: list[Any]) -> str:
    """Text of the first user message (a string, or its ``text`` parts): the conversation key."""
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


def id_pattern(prefix: str) -> re.Pattern[str]:
    """The ids a fake sends: ``<prefix>_<conversation>_<step>_<n>_<random>``."""
    return re.compile(rf"^{re.escape(prefix)}_(\d+)_(\d+)_")


def make_id(prefix: str, conversation: int, step: int, n: int) -> str:
    return f"{prefix}_{conversation}_{step}_{n}_{secrets.token_hex(4)}"


def steps_played(ids: Iterable[str], pattern: re.Pattern[str]) -> int:
    """How many steps were played, from the fake's own ids found in a request."""
    highest = -1
    for value in ids:
        found = pattern.match(value)
        if found:
            highest = max(highest, int(found.group(2)))
    return highest + 1


class ScriptedModel:
    """The server and the script's bookkeeping; subclasses speak one API.

    Use as a context manager or call start()/stop(). ``handler_base`` is the subclass's
    request handler (a :class:`Handler`); each server gets its own subclass of it bound to
    this instance.
    """

    handler_base: type[Handler]
    thread_name = "fake-model"

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
        # harness ran (``ids``) have landed. A real model takes seconds there; a harness that
        # exits within milliseconds of its last tool kills its async hooks still starting.
        self.final_delay = final_delay
        self.settled = settled
        self.executed: set[str] = set()  # our call ids seen coming back in requests
        self.requests: list[dict[str, Any]] = []
        self._conversations: dict[str, int] = {}  # first-user-text -> conversation number
        self._lock = threading.Lock()
        handler = type("BoundHandler", (self.handler_base,), {"fake": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> ScriptedModel:
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, name=self.thread_name, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread:
            self._thread.join(timeout=5)

    def __enter__(self) -> Any:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- the script -------------------------------------------------------------------------

    def conversation(self, first_user_text: str) -> tuple[int, str]:
        """(conversation number, role in the script: main or child) for a tool request."""
        with self._lock:
            if first_user_text not in self._conversations:
                self._conversations[first_user_text] = len(self._conversations)
            number = self._conversations[first_user_text]
        return number, ("main" if number == 0 else "child")

    def saw_executed(self, ids: set[str]) -> None:
        with self._lock:
            self.executed |= ids

    def step(self, role: str, step_no: int) -> Any:
        """The scripted step, or None once the conversation has used its steps up."""
        steps = self.script[role]
        return steps[step_no] if step_no < len(steps) else None

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


class Handler(BaseHTTPRequestHandler):
    """HTTP plumbing every fake's handler shares; ``fake`` is bound per server."""

    protocol_version = "HTTP/1.1"
    fake: Any
    request_id_header = "request-id"

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
        self.send_header(self.request_id_header, f"req_fake_{secrets.token_hex(6)}")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def _entry(self, body: Any) -> dict[str, Any]:
        return {
            "t": time.time(),
            "method": self.command,
            "path": self.path,
            "headers": {
                k.lower(): v for k, v in self.headers.items() if k.lower() not in REDACTED_HEADERS
            },
            "body": body,
        }

    def _request(self) -> tuple[Any, dict[str, Any], str]:
        """(parsed body, log entry, path without query or trailing slash) of a POST."""
        body = self._body()
        return body, self._entry(body), self.path.split("?", 1)[0].rstrip("/")

    def _answer(self, entry: dict[str, Any], status: int, data: Any, **facts: Any) -> None:
        """Log the request with what was answered, then answer with JSON."""
        entry["answer"] = {"status": status, **facts}
        self.fake.log(entry)
        self._json(status, data)

    def get(self, path: str) -> Any:
        """The JSON answer to ``GET path`` (subclasses list their models)."""
        return {}

    def do_GET(self) -> None:
        self._answer(self._entry(None), 200, self.get(self.path.split("?", 1)[0].rstrip("/")))

    def _start_stream(self) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header(self.request_id_header, f"req_fake_{secrets.token_hex(6)}")
        self.send_header("connection", "close")
        self.end_headers()

    def _end_stream(self, chunks: list[bytes]) -> None:
        self.wfile.write(b"".join(chunks))
        self.wfile.flush()
        self.close_connection = True

    def do_HEAD(self) -> None:
        self.fake.log(self._entry(None))
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()


def serve_forever(make: Callable[[Any, Path | None], ScriptedModel]) -> None:
    """``python -m tests.harnesses.<fake> SCRIPT.json [LOG.jsonl]``: print the URL, serve."""
    import sys

    script = json.loads(Path(sys.argv[1]).read_text())
    log = Path(sys.argv[2]) if len(sys.argv) > 2 else None
    with make(script, log) as fake:
        print(fake.base_url, flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
