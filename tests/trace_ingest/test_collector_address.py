"""trail's http hook URL: exactly one form is trail's, so install, uninstall and doctor never
take a user's own http hook for it."""

from __future__ import annotations

import pytest

from trace_ingest.collector_address import http_ports, own_http, port_of, url_for


def test_the_url_trail_writes_is_recognised_with_its_port() -> None:
    url = url_for("claude-code", 8487)
    assert url == "http://127.0.0.1:8487/trail/hook/claude-code"
    assert port_of(url, "claude-code") == 8487
    assert own_http({"type": "http", "url": url}, "claude-code")


@pytest.mark.parametrize(
    "url",
    [
        "http://localhost:8487/trail/hook/claude-code",  # another host spelling
        "https://127.0.0.1:8487/trail/hook/claude-code",
        "http://127.0.0.1:8487/trail/hook/claude-code/",
        "http://127.0.0.1:8487/trail/hook/claude-code?x=1",
        "http://127.0.0.1/trail/hook/claude-code",  # no port
        "http://127.0.0.1:0/trail/hook/claude-code",
        "http://127.0.0.1:99999/trail/hook/claude-code",
        "http://127.0.0.1:8487/trail/hook/vibe",  # another harness's
        "http://127.0.0.1:8487/hook/claude-code",
        " http://127.0.0.1:8487/trail/hook/claude-code",
        None,
        8487,
    ],
)
def test_anything_else_is_not_trails(url: object) -> None:
    assert port_of(url, "claude-code") is None
    assert not own_http({"type": "http", "url": url}, "claude-code")


def test_a_command_handler_with_the_url_is_not_an_http_handler() -> None:
    url = url_for("claude-code", 9000)
    assert not own_http({"type": "command", "url": url}, "claude-code")
    handlers = [("PreToolUse", {"type": "http", "url": url}), ("Stop", {"type": "command"})]
    handlers.append(("Stop", {"type": "http", "url": url}))
    assert http_ports(handlers, "claude-code") == {9000: 2}
