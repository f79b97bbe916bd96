"""Who is at the other end of a connection to a server on 127.0.0.1 (Linux).

``trail collect`` (hooks/collector.py) and ``trail serve`` (dashboard/server.py) listen on
127.0.0.1, which every local user can reach. The data dir is 0700 so that other users can
neither read the traces nor write into them (docs/security.md); a loopback server must not
open that door again. TCP has no ``SO_PEERCRED``, but Linux lists every socket with its
owner in ``/proc/net/tcp``: the client's end of an accepted connection is the row whose
local address is the client's and whose remote address is the server's.

The client's own address is looked up, not 127.0.0.1: any 127.x.y.z reaches a socket bound
to 127.0.0.1 (a connection from 127.0.0.2 was once not found, and so let through). A
connection the table does not list is refused too. Where the table cannot be read (not
Linux), nothing is refused: the check is not made there (said in docs/security.md).
Standard library only; not on the process hook's path.
"""

from __future__ import annotations

import os
import socket
import sys

NO_SOCKET = -1  # peer_uid: the table was read and lists no such connection
TABLE = "/proc/net/tcp"


def proc_address(host: str, port: int) -> str:
    """``host:port`` as ``/proc/net/tcp`` writes it: the address's 32 bits in this machine's
    byte order, then the port, both in upper-case hex."""
    raw = int.from_bytes(socket.inet_aton(host), sys.byteorder)
    return f"{raw:08X}:{port:04X}"


def peer_uid(client: tuple[str, int], server: tuple[str, int]) -> int | None:
    """The owner of the socket connecting from ``client`` (address and port, as ``accept``
    gave them) to ``server``: None where the table cannot be read, ``NO_SOCKET`` when it
    lists no such connection."""
    try:
        want_local = proc_address(client[0], client[1])
        want_remote = proc_address(server[0], server[1])
    except (OSError, ValueError, OverflowError, TypeError, IndexError):
        return NO_SOCKET  # not an IPv4 address and port: nothing these servers accept
    try:
        with open(TABLE, encoding="ascii") as table:
            for line in table:
                fields = line.split()
                if len(fields) > 7 and fields[1] == want_local and fields[2] == want_remote:
                    return int(fields[7])
    except (OSError, ValueError):
        return None
    return NO_SOCKET


def other_user(client: tuple[str, int], server: tuple[str, int]) -> str | None:
    """Why the connection from ``client`` to ``server`` must be refused (it is not this
    user's), or None: this user's, or no way to tell on this system."""
    uid = peer_uid(client, server)
    if uid is None or uid == os.getuid():
        return None
    if uid == NO_SOCKET:
        return "a connection came that the socket table does not list (uid unknown)"
    return f"a connection came from another user (uid {uid})"


_LISTEN = "0A"  # the state column of a listening socket (include/net/tcp_states.h)


def listener_uids(port: int) -> set[int] | None:
    """The owners of the listening sockets a connection to 127.0.0.1:``port`` could reach:
    bound to 127.0.0.1 or to any address (``0.0.0.0``; ``::`` or ``::ffff:127.0.0.1`` in
    ``/proc/net/tcp6``, which a dual-stack socket answers IPv4 on). None where neither table
    can be read."""
    v4 = {proc_address("127.0.0.1", port), f"00000000:{port:04X}"}
    v6 = {f"{'0' * 32}:{port:04X}", f"0000000000000000FFFF0000{proc_address('127.0.0.1', port)}"}
    found: set[int] = set()
    read_any = False
    for table_path, wanted in ((TABLE, v4), (TABLE + "6", v6)):
        try:
            with open(table_path, encoding="ascii") as table:
                read_any = True
                for line in table:
                    fields = line.split()
                    if len(fields) > 7 and fields[3] == _LISTEN and fields[1] in wanted:
                        found.add(int(fields[7]))
        except (OSError, ValueError):
            continue
    return found if read_any else None
