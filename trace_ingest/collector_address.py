"""Where ``trail collect`` listens and how trail's http hook handlers name it.

Shared by the collector (``hooks/collector.py``), the Claude Code registrar (which writes the
URL) and ``trail doctor`` (which asks the collector whether it answers): one URL form, so
install, uninstall and doctor recognise trail's http handlers exactly (docs/collector.md).
Standard library only; nothing here runs on the hook's path.
"""

from __future__ import annotations

import re
from typing import Any

HOST = "127.0.0.1"
DEFAULT_PORT = 8487
PATH_PREFIX = "/trail/hook/"
HEALTH_PATH = "/trail/health"
HEALTH_BODY = b"trail collector\n"
_URL = re.compile(r"http://127\.0\.0\.1:(\d{1,5})/trail/hook/([a-z][a-z0-9-]{0,39})")


def url_for(harness: str, port: int) -> str:
    """The URL trail registers for ``harness``'s http hooks."""
    return f"http://{HOST}:{port}{PATH_PREFIX}{harness}"


def port_of(url: Any, harness: str) -> int | None:
    """The port of ``url`` if it is exactly trail's collector URL for ``harness``, else None."""
    if not isinstance(url, str):
        return None
    match = _URL.fullmatch(url)
    if match is None or match.group(2) != harness or not 0 < int(match.group(1)) < 65536:
        return None
    return int(match.group(1))


def own_http(handler: dict[str, Any], harness: str) -> bool:
    """One of trail's own http handler objects for ``harness`` (its exact URL, any port)."""
    return handler.get("type") == "http" and port_of(handler.get("url"), harness) is not None


def probe(port: int, timeout: float = 1.0) -> str | None:
    """None when trail's collector answers on ``port``, else why not (for ``trail doctor``).

    First, on Linux, who listens there: another local user can bind the port while no
    collector runs, answer the health check as trail's collector does, and receive every
    payload Claude Code posts, unscrubbed (the collector scrubs; the POST body is raw). Such a
    listener is reported without a request being sent to it."""
    import http.client
    import os

    from trace_ingest.loopback_peer import listener_uids

    others = sorted(uid for uid in listener_uids(port) or () if uid != os.getuid())
    if others:
        return (
            f"{HOST}:{port} is listened on by another user (uid {others[0]}): the http hooks"
            " would send it every payload, unscrubbed; stop that listener, or install and"
            " collect on another port"
        )
    conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        conn.request("GET", HEALTH_PATH)
        answer = conn.getresponse()
        body = answer.read(256)
    except OSError as exc:
        return f"nothing answers on {HOST}:{port} ({type(exc).__name__}: {exc})"
    finally:
        conn.close()
    if answer.status != 200 or body != HEALTH_BODY:
        return f"{HOST}:{port} answers, but not as trail's collector (HTTP {answer.status})"
    return None


def http_ports(handlers: list[tuple[str, dict[str, Any]]], harness: str) -> dict[int, int]:
    """Port -> how many of ``handlers`` (``Harness.handlers(settings)``) are trail's http
    handlers posting there."""
    ports: dict[int, int] = {}
    for _, handler in handlers:
        port = port_of(handler.get("url"), harness) if handler.get("type") == "http" else None
        if port is not None:
            ports[port] = ports.get(port, 0) + 1
    return ports
