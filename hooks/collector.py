"""``trail collect``: a local HTTP collector for Claude Code's ``"type": "http"`` hooks.

An event then costs Claude Code one POST to 127.0.0.1 instead of a process start
(docs/collector.md). Each payload goes through exactly the process hook's path
(``hooks.entry.record_payload``: the same checks, bounds, normalize, scrub and append to the
session's trace.jsonl), so both transports record the same events.

What Claude Code 2.1.328 does with an http hook (observed with the real program, docs/collector.md
"Facts"): it POSTs the hook's JSON payload (``Content-Type: application/json``, a
``Content-Length``, ``Host: 127.0.0.1:<port>``) and waits for the answer, up to the handler's
``timeout``. A refused connection, a timeout, a non-2xx status or a body that is not JSON are
non-blocking errors: the tool runs, ``claude -p`` exits 0. An empty body is read as ``{}``.
A JSON body is a hook decision: ``{"decision": "block"}`` blocks the tool or the whole prompt.
So the collector answers every request with an empty body, never JSON: nothing it says can
block anything.

Its own rules:

- bound to 127.0.0.1 only; the ``Host`` header must name that address (or ``localhost``) and
  its port, so a page in a browser cannot reach it through a DNS name it rebinds; a request
  with an ``Origin`` header (browsers send one) or without a JSON content type is refused;
  on Linux, the connecting socket must belong to this user (``/proc/net/tcp``), so another
  local user cannot write into this user's traces;
- POSTs only, on ``/trail/hook/<harness>``; the body needs a ``Content-Length`` and is read up
  to ``max_payload_bytes`` (past that, its head only: it is recorded as the process hook records
  an oversize payload); every socket read has a timeout;
- the answer (``204``, no body) goes out once the payload is queued; one writer thread records
  the queue in arrival order (the hook's path pins the data dir per call: one writer keeps
  calls apart). On SIGTERM or SIGINT it stops accepting, records what is queued and exits 0;
- nothing from a request is logged except through the hook's error log, scrubbed (the hook's
  ``_log``); no access log.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from hooks import entry
from trace_ingest.collector_address import DEFAULT_PORT, HEALTH_BODY, HEALTH_PATH, HOST, PATH_PREFIX
from trace_ingest.config import DEFAULTS, check_config
from trace_ingest.events import now_iso
from trace_ingest.harnesses.table import HARNESSES
from trace_ingest.paths import hook_home

SOCKET_TIMEOUT = 5.0  # seconds a client may take to send its headers or body
HEAD_BYTES = 65536  # kept of an oversize body, as the process hook keeps (hooks/entry.py)
QUEUE_SIZE = 32  # payloads waiting for the writer; past that a request waits for room
# (bounds memory: 32 x max_payload_bytes at most, with the requests being read)


def configured_limit() -> int:
    """``capture.max_payload_bytes`` of this data dir, read once when the collector starts
    (restart it to apply a change; each payload is still checked against the config of the
    moment by the hook's path)."""
    try:
        config, _ = check_config(hook_home()[0], sections=False)
    except Exception:
        config = DEFAULTS  # the hook's path logs the config's problem with the first payload
    return int(config["capture"]["max_payload_bytes"])


def _peer_uid(client_port: int, server_port: int) -> int | None:
    """The owner of the socket connecting from ``client_port`` to ``server_port`` on
    127.0.0.1 (Linux ``/proc/net/tcp``; None where that cannot be read)."""
    want_local = f"0100007F:{client_port:04X}"
    want_remote = f"0100007F:{server_port:04X}"
    try:
        with open("/proc/net/tcp", encoding="ascii") as table:
            for line in table:
                fields = line.split()
                if len(fields) > 7 and fields[1] == want_local and fields[2] == want_remote:
                    return int(fields[7])
    except (OSError, ValueError):
        return None
    return None


class _Handler(BaseHTTPRequestHandler):
    server: Collector
    # Every answer closes its connection. Claude Code asks for keep-alive, but a connection the
    # server closes when idle can cross the client's next POST on it, and that event would be
    # lost (a non-blocking error); a new loopback connection per event costs next to nothing.
    protocol_version = "HTTP/1.1"
    timeout = SOCKET_TIMEOUT
    server_version = "trail-collector"
    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:
        pass  # no access log: paths and headers are untrusted, and may hold secrets

    def log_error(self, format: str, *args: Any) -> None:
        pass  # http.server's own parse errors: answered, not logged

    def _answer(self, status: int, body: bytes = b"") -> None:
        self.send_response(status)
        if body:
            self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.close_connection = True
        self.end_headers()
        if body:
            self.wfile.write(body)

    def _refuse(self, status: int, reason: str) -> None:
        """Answer ``status`` and note why once in the error log (no request text in it)."""
        self.server.note(f"{reason}; answered HTTP {status}, nothing recorded")
        self._answer(status)

    def _checked(self) -> bool:
        host = self.headers.get("Host", "")
        port = self.server.server_address[1]
        if host not in (f"{HOST}:{port}", f"localhost:{port}"):
            self._refuse(421, "a request named another host than the collector's address")
            return False
        if self.headers.get("Origin") is not None:
            self._refuse(403, "a request came with an Origin header (a browser page)")
            return False
        if self.server.check_peer:
            uid = _peer_uid(self.client_address[1], port)
            if uid is not None and uid != os.getuid():
                self._refuse(403, f"a connection came from another user (uid {uid})")
                return False
        return True

    def do_GET(self) -> None:
        if not self._checked():
            return
        if self.path == HEALTH_PATH:
            self._answer(200, HEALTH_BODY)
        else:
            self._refuse(404, "a GET asked for another path than the health check")

    def do_POST(self) -> None:
        received_at = now_iso()
        if not self._checked():
            return
        harness = self.path[len(PATH_PREFIX) :] if self.path.startswith(PATH_PREFIX) else ""
        if harness not in HARNESSES:
            self._refuse(404, "a POST went to another path than /trail/hook/<harness>")
            return
        kind = self.headers.get("Content-Type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            self._refuse(415, "a POST's body was not declared as application/json")
            return
        length = self.headers.get("Content-Length", "")
        if not length.isdigit() or self.headers.get("Transfer-Encoding") is not None:
            self._refuse(411, "a POST came without a plain Content-Length")
            return
        size = int(length)
        try:
            body = self._body(size)
        except OSError:
            self.server.note("a POST's body did not arrive in full; nothing recorded")
            self.close_connection = True
            return
        self.server.pending.put((harness, body, received_at, size))
        self._answer(204)

    def _body(self, size: int) -> bytes:
        """The body, or only its head when it is past the collector's bound. The rest is read
        and dropped so the client gets its answer, but no more than the hook drains of stdin
        (``entry.MAX_DRAIN_BYTES`` in ``entry.MAX_DRAIN_SECONDS``); every read has the socket
        timeout, and the connection is closed after the answer either way."""
        limit = self.server.max_body
        if size <= limit:
            body = self.rfile.read(size)
            if len(body) < size:
                raise ConnectionError("body shorter than its Content-Length")
            return body
        head = self.rfile.read(HEAD_BYTES)
        left = min(size, entry.MAX_DRAIN_BYTES) - len(head)
        deadline = time.monotonic() + entry.MAX_DRAIN_SECONDS
        while left > 0 and time.monotonic() < deadline:
            chunk = self.rfile.read(min(left, 1 << 20))
            if not chunk:
                raise ConnectionError("body shorter than its Content-Length")
            left -= len(chunk)
        return head


class Collector(ThreadingHTTPServer):
    """The server: request threads read and answer, one writer thread records."""

    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128  # socketserver's 5 resets a burst of parallel hook calls

    def __init__(self, port: int, max_body: int | None = None, check_peer: bool = True) -> None:
        super().__init__((HOST, port), _Handler)
        self.max_body = configured_limit() if max_body is None else max_body
        self.check_peer = check_peer
        self.pending: queue.Queue[tuple[str, bytes, str, int] | None] = queue.Queue(QUEUE_SIZE)
        self.recorded = 0
        self.failed = 0  # payloads whose recording raised past the hook path's own handling
        self.writer = threading.Thread(target=self._write, name="trail-collector-writer")
        self.writer.start()

    def _write(self) -> None:
        while True:
            item = self.pending.get()
            if item is None:
                return
            harness, body, received_at, size = item
            try:
                entry.record_payload(harness, body, received_at, size)
                self.recorded += 1
            except BaseException:
                # record_payload logs its own failures; should the log itself fail, the writer
                # must still live on, or every later request would wait for queue room.
                self.failed += 1

    def note(self, message: str) -> None:
        """One line in the hook error log (``trail doctor`` shows it), once per message."""
        try:
            home, _ = hook_home()
            entry._log(home, "collector", "collector", message, once=True)
        except Exception:
            pass  # the log is best effort; the answer has gone out already

    def close(self) -> None:
        """Stop accepting, record everything queued, release the port."""
        self.server_close()
        self.pending.put(None)
        self.writer.join()


def serve(port: int = DEFAULT_PORT, ready: Any = None) -> int:
    """Run the collector until SIGTERM or SIGINT; returns the number of payloads recorded.

    ``ready(collector)`` is called once the port is bound (``trail collect`` prints it).
    """
    collector = Collector(port)
    stop = threading.Event()

    def _stop(signum: int, frame: Any) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    loop = threading.Thread(target=collector.serve_forever, kwargs={"poll_interval": 0.2})
    loop.start()
    try:
        if ready is not None:
            ready(collector)
        while not stop.wait(0.5):
            pass
    finally:
        collector.shutdown()
        loop.join()
        collector.close()
    return collector.recorded


def status_line(collector: Collector) -> str:
    """What ``trail collect`` prints once it listens (one JSON line)."""
    port = collector.server_address[1]
    return json.dumps({"listening": f"http://{HOST}:{port}", "pid": os.getpid(), "at": now_iso()})
