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
  on Linux, the connecting socket must belong to this user (``/proc/net/tcp``, checked when
  the connection is accepted, before a thread is started for it), so another local user
  cannot write into this user's traces;
- each connection is cut off ``REQUEST_SECONDS`` after it was accepted, and at most
  ``MAX_CONNECTIONS`` are served at once: neither a trickling client nor a pile of idle ones
  holds threads for long;
- POSTs only, on ``/trail/hook/<harness>``; the body needs a ``Content-Length`` and is read up
  to ``max_payload_bytes`` (past that, its head only: it is recorded as the process hook records
  an oversize payload); every socket read has a timeout;
- the answer (``204``, no body) goes out once the payload is queued; one writer thread records
  the queue in arrival order (the hook's path pins the data dir per call: one writer keeps
  calls apart). On SIGTERM, SIGINT or SIGHUP it stops accepting, records what is queued and
  exits 0;
- nothing from a request is logged except through the hook's error log, scrubbed (the hook's
  ``_log``, called by the writer thread only); no access log.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from hooks import entry
from trace_ingest.collector_address import DEFAULT_PORT, HEALTH_BODY, HEALTH_PATH, HOST, PATH_PREFIX
from trace_ingest.config import DEFAULTS, check_config
from trace_ingest.events import now_iso
from trace_ingest.harnesses.table import HARNESSES
from trace_ingest.loopback_peer import other_user
from trace_ingest.paths import hook_home

SOCKET_TIMEOUT = 5.0  # seconds a client may take to send its headers or body
# A client trickling a byte now and then never trips SOCKET_TIMEOUT: every connection is cut
# off this long after it was accepted, whatever it is doing (Claude Code itself gives up after
# the handler's 1 s timeout, docs/collector.md; the 2 s drain of an oversize body fits).
REQUEST_SECONDS = 10.0
# Connections served at once, each by a thread of this user (threads count against the user's
# process limit); one past it is closed unanswered. Claude Code holds one per running hook.
MAX_CONNECTIONS = 64
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
        self.close_connection = True
        try:
            self.send_response(status)
            if body:
                self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Connection", "close")
            self.end_headers()
            if body:
                self.wfile.write(body)
        except OSError:
            pass  # the client left (or was cut off at its deadline): nothing to tell it

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
        # ASCII digits only: str.isdigit also takes '\xb2' (headers are decoded as latin-1),
        # which int() refuses, and int() refuses more than 4,300 digits. 18 digits is more
        # than any body this server reads (it reads no further than its bound anyway).
        plain = length.isascii() and length.isdigit() and len(length) <= 18
        if not plain or self.headers.get("Transfer-Encoding") is not None:
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
            # read1: what has arrived (one recv), so the deadline is checked however slowly
            # the rest comes; read() would wait for a whole chunk.
            chunk = self.rfile.read1(min(left, 1 << 20))
            if not chunk:
                raise ConnectionError("body shorter than its Content-Length")
            left -= len(chunk)
        return head


class Collector(ThreadingHTTPServer):
    """The server: request threads read and answer, one writer thread records.

    Only the writer thread touches the data dir: it records the payloads and writes the
    request threads' notes (``note`` queues them). The hook's path pins the data dir's
    descriptor for one call (``paths.pin_home``); a request thread logging meanwhile would
    ``dup`` the writer's descriptor, or a number the writer had just closed and reused.
    """

    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128  # socketserver's 5 resets a burst of parallel hook calls

    def __init__(self, port: int, max_body: int | None = None, check_peer: bool = True) -> None:
        super().__init__((HOST, port), _Handler)
        self.max_body = configured_limit() if max_body is None else max_body
        self.check_peer = check_peer
        # A payload (harness, body, received_at, size), a note (its message), or None: stop.
        self.pending: queue.Queue[tuple[str, bytes, str, int] | str | None] = queue.Queue(
            QUEUE_SIZE
        )
        self.recorded = 0
        self.failed = 0  # payloads whose recording raised past the hook path's own handling
        self._open: dict[socket.socket, float] = {}  # connection -> when it must be done
        self._open_lock = threading.Lock()
        self._closing = threading.Event()
        self.writer = threading.Thread(target=self._write, name="trail-collector-writer")
        self.writer.start()
        self.reaper = threading.Thread(target=self._reap, name="trail-collector-reaper")
        self.reaper.daemon = True
        self.reaper.start()

    def process_request(self, request: Any, client_address: Any) -> None:
        """Before a thread is started for it: refuse another user's connection (Linux) and
        one past ``MAX_CONNECTIONS``, closed unanswered; give the rest a deadline."""
        if self.check_peer:
            why = other_user(client_address, (HOST, self.server_address[1]))
            if why is not None:
                self.note(f"{why}; closed unanswered")
                self.shutdown_request(request)
                return
        with self._open_lock:
            full = len(self._open) >= MAX_CONNECTIONS
            if not full:
                self._open[request] = time.monotonic() + REQUEST_SECONDS
        if full:
            self.note(f"more than {MAX_CONNECTIONS} connections at once; one closed unanswered")
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._open_lock:  # under the lock: the reaper never shuts a closed descriptor
            self._open.pop(request, None)
            super().shutdown_request(request)

    def _reap(self) -> None:
        """Cut off every connection past its deadline (its thread's read then ends short)."""
        while not self._closing.wait(0.25):
            now = time.monotonic()
            with self._open_lock:
                for conn, deadline in self._open.items():
                    if deadline < now:
                        with contextlib.suppress(OSError):
                            conn.shutdown(socket.SHUT_RDWR)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A request thread that raised: noted by its exception's type, no traceback on
        stderr (socketserver's default) and no request text."""
        error = sys.exc_info()[0]
        name = error.__name__ if error is not None else "an error"
        self.note(f"a request raised {name}; closed unanswered")

    def _write(self) -> None:
        while True:
            item = self.pending.get()
            if item is None:
                return
            if isinstance(item, str):
                self._log(item)
                continue
            harness, body, received_at, size = item
            try:
                entry.record_payload(harness, body, received_at, size)
                self.recorded += 1
            except BaseException:
                # record_payload logs its own failures; should the log itself fail, the writer
                # must still live on, or every later request would wait for queue room.
                self.failed += 1

    def note(self, message: str) -> None:
        """One line in the hook error log (``trail doctor`` shows it), once per message,
        written by the writer thread. Dropped when the queue is full: a burst of refusals
        must not wait for room that payloads need."""
        with contextlib.suppress(queue.Full):
            self.pending.put_nowait(message)

    def _log(self, message: str) -> None:
        try:
            home, _ = hook_home()
            entry._log(home, "collector", "collector", message, once=True)
        except Exception:
            pass  # the log is best effort; the answer has gone out already

    def close(self) -> None:
        """Stop accepting, record everything queued, release the port."""
        self.server_close()
        self._closing.set()
        self.pending.put(None)
        self.writer.join()


def serve(port: int = DEFAULT_PORT, ready: Any = None) -> int:
    """Run the collector until SIGTERM, SIGINT or SIGHUP; returns the number of payloads
    recorded.

    ``ready(collector)`` is called once the port is bound (``trail collect`` prints it).
    """
    collector = Collector(port)
    stop = threading.Event()

    def _stop(signum: int, frame: Any) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    # A closed terminal (or multiplexer window) sends SIGHUP, whose default would drop the
    # queue of answered payloads; under nohup it stays ignored.
    if signal.getsignal(signal.SIGHUP) is not signal.SIG_IGN:
        signal.signal(signal.SIGHUP, _stop)
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
