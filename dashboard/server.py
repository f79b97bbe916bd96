"""``trail serve``: a small HTTP server on the standard library, bound to 127.0.0.1 only.

- **Reads the mirror, never syncs per request.** One background thread syncs (the same
  ``open_synced`` every read command runs, then the grades ledger) on start and every
  ``sync_every`` seconds; each request opens its own read-only SQLite connection.
- **Host check.** A request whose ``Host`` header is not ``127.0.0.1:PORT`` or
  ``localhost:PORT`` is refused (403) before anything is read: a page on another site that
  rebinds its DNS name to 127.0.0.1 sends its own name as Host, so it never sees the data.
- **This user only.** Every local user can reach 127.0.0.1, and the data dir is 0700 so that
  they cannot read the traces: on Linux a connection from another user's socket is closed
  unanswered when it is accepted (``trace_ingest.loopback_peer``), noted once per reason on
  stderr. Every socket read has a timeout, so an idle connection does not hold its thread.
- **Headers.** A strict Content-Security-Policy (dashboard.html.csp), ``nosniff``,
  ``no-referrer``, ``no-store``, no framing. GET and HEAD only.
- **Live updates.** Pages poll ``/api/fingerprint`` (telemetry.queries.mirror_fingerprint).
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from sqlite_utils import Database

from dashboard import pages, views
from dashboard.html import csp
from scorers import ledger
from telemetry import queries
from telemetry.db import BUSY_TIMEOUT_MS
from trace_ingest.errors import SessionNotFound, TrailError
from trace_ingest.loopback_peer import other_user
from trace_ingest.paths import db_path

BIND = "127.0.0.1"


def read_only(home: str) -> Database:
    """A read-only connection to the mirror (a request can never write it)."""
    conn = sqlite3.connect(f"file:{db_path(home)}?mode=ro", uri=True, check_same_thread=False)
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    return Database(conn)


def sync_once(home: str) -> None:
    """Catch the mirror up with the traces and the grades ledger (what every read command
    does first), then close the connection."""
    db, _ = queries.open_synced(home)
    try:
        ledger.sync(db, home)
    finally:
        db.close()


class Syncer(threading.Thread):
    """Syncs every ``every`` seconds until stopped; a failure is reported, never fatal."""

    def __init__(self, home: str, every: float, log: Callable[[str], None]) -> None:
        super().__init__(name="trail-serve-sync", daemon=True)
        self.home, self.every, self.log = home, every, log
        self.stopped = threading.Event()

    def run(self) -> None:
        while not self.stopped.wait(self.every):
            try:
                sync_once(self.home)
            except Exception as exc:  # never stop syncing: report, try again next tick
                self.log(f"sync failed (next try in {self.every:g}s): {type(exc).__name__}: {exc}")


class Dashboard(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, home: str, port: int) -> None:
        super().__init__((BIND, port), Handler)
        self.home = home
        self.port = self.server_address[1]
        self.allowed_hosts = {f"127.0.0.1:{self.port}", f"localhost:{self.port}"}
        if self.port == 80:
            self.allowed_hosts |= {"127.0.0.1", "localhost"}
        self.check_peer = True
        self._told: set[str] = set()

    def process_request(self, request: Any, client_address: Any) -> None:
        """Another user's connection is closed before a thread is started for it."""
        why = other_user(client_address, (BIND, self.port)) if self.check_peer else None
        if why is not None:
            if why not in self._told:  # once per reason: a flood must not flood the terminal
                self._told.add(why)
                sys.stderr.write(f"serve: {why}; closed unanswered\n")
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"


class Handler(BaseHTTPRequestHandler):
    server: Dashboard
    server_version = "trail"
    sys_version = ""
    timeout = 10  # seconds per socket read: a client that sends nothing is let go

    def log_message(self, format: str, *args: Any) -> None:
        if os.environ.get("TRAIL_SERVE_LOG"):
            sys.stderr.write("serve: " + (format % args) + "\n")

    def do_HEAD(self) -> None:
        self._respond(head=True)

    def do_GET(self) -> None:
        self._respond(head=False)

    def _refuse_method(self) -> None:
        self._send(405, "text/plain; charset=utf-8", b"GET only\n", head=False)

    do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _refuse_method

    def _send(self, status: int, ctype: str, body: bytes, head: bool) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Content-Security-Policy", csp(True))
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Frame-Options", "DENY")
        self.end_headers()
        if not head:
            self.wfile.write(body)

    def _respond(self, head: bool) -> None:
        host = (self.headers.get("Host") or "").strip().lower()
        if host not in self.server.allowed_hosts:
            self._send(
                403,
                "text/plain; charset=utf-8",
                b"Refused: unexpected Host header (trail serve answers 127.0.0.1 only)\n",
                head,
            )
            return
        try:
            status, ctype, body = self._route()
        except SessionNotFound as exc:
            status, ctype, body = 404, "text/plain; charset=utf-8", f"{exc}\n".encode()
        except (TrailError, sqlite3.Error) as exc:
            status, ctype = 500, "text/plain; charset=utf-8"
            body = f"trail serve could not read the mirror: {exc}\n".encode()
        except Exception as exc:  # a bug on unexpected data: one page fails, never the server
            status, ctype = 500, "text/plain; charset=utf-8"
            body = f"trail serve could not render this page: {type(exc).__name__}\n".encode()
            sys.stderr.write(f"serve: {self.path[:200]!r}: {type(exc).__name__}: {exc}\n")
        self._send(status, ctype, body, head)

    def _route(self) -> tuple[int, str, bytes]:
        parts = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        html_type = "text/html; charset=utf-8"
        db = read_only(self.server.home)
        try:
            fp = queries.mirror_fingerprint(db)
            path = parts.path
            if path == "/api/fingerprint":
                return 200, "application/json", json.dumps({"fingerprint": fp}).encode()
            if path == "/":
                try:
                    offset = int(query.get("offset", "0"))
                except ValueError:
                    offset = 0
                view = views.sessions(db, query, offset)
                return 200, html_type, _utf8(pages.sessions_page(view, fp))
            if path.startswith("/session/"):
                key = unquote(path[len("/session/") :])
                sview = views.session(db, self.server.home, key)
                return 200, html_type, _utf8(pages.session_page(sview, fp))
            if path == "/guides":
                return 200, html_type, _utf8(pages.guides_page(views.guides(db), fp))
            if path == "/tasks":
                return 200, html_type, _utf8(pages.tasks_page(views.tasks(db), fp))
            return 404, "text/plain; charset=utf-8", b"not found\n"
        finally:
            db.close()


def _utf8(doc: str) -> bytes:
    return doc.encode("utf-8", errors="replace")


def serve(home: str, port: int, sync_every: float, echo: Callable[[str], None]) -> None:
    """Sync, then serve until interrupted."""
    sync_once(home)
    server = Dashboard(home, port)
    syncer = Syncer(home, sync_every, echo)
    syncer.start()
    echo(
        f"trail serve: {server.url}  (127.0.0.1 only; syncing every {sync_every:g}s; Ctrl-C stops)"
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        syncer.stopped.set()
        server.server_close()
