"""``trace_ingest.loopback_peer``: who owns the other end of a real connection on 127.0.0.1.

The exact ``sock_diag`` lookup and the ``/proc/net/tcp`` fallback must give the same answer
for the same real sockets (another user's connection is tested end to end through the
servers: tests/hooks/test_collector.py, tests/dashboard/test_server.py).
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator

import pytest

from trace_ingest import loopback_peer


@pytest.fixture
def connection() -> Iterator[tuple[tuple[str, int], tuple[str, int]]]:
    """A real connection from 127.0.0.2 to a listener on 127.0.0.1: (client, server)."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        with socket.socket() as client:
            client.bind(("127.0.0.2", 0))
            client.connect(server.getsockname())
            accepted, address = server.accept()
            with accepted:
                yield address, server.getsockname()


@pytest.mark.parametrize("how", ["sock_diag", "proc"])
def test_a_connection_is_found_with_its_owner_from_any_loopback_address(
    connection: tuple[tuple[str, int], tuple[str, int]], how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if how == "proc":
        monkeypatch.setattr(loopback_peer, "_diag_uid", lambda client, server: None)
    else:
        assert loopback_peer._diag_uid(*connection) is not None, "sock_diag is not available"
    client, server = connection
    assert client[0] == "127.0.0.2"
    assert loopback_peer.peer_uid(client, server) == os.getuid()
    assert loopback_peer.other_user(client, server) is None
    # The same port from 127.0.0.1 is no connection at all: found by neither, and refused.
    absent = ("127.0.0.1", client[1])
    assert loopback_peer.peer_uid(absent, server) == loopback_peer.NO_SOCKET
    assert "does not list" in str(loopback_peer.other_user(absent, server))


def test_the_listener_of_a_port_is_found(
    connection: tuple[tuple[str, int], tuple[str, int]],
) -> None:
    _, server = connection
    assert loopback_peer.listener_uids(server[1]) == {os.getuid()}
