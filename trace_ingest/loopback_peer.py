"""Who is at the other end of a connection to a server on 127.0.0.1 (Linux).

``trail collect`` (hooks/collector.py) and ``trail serve`` (dashboard/server.py) listen on
127.0.0.1, which every local user can reach. The data dir is 0700 so that other users can
neither read the traces nor write into them (docs/security.md); a loopback server must not
open that door again. TCP has no ``SO_PEERCRED``, but Linux lists every socket with its
owner in ``/proc/net/tcp``: the client's end of an accepted connection is the row whose
local address is the client's and whose remote address is the server's.

The connection is looked up exactly with the kernel's ``sock_diag`` netlink interface (about
25 µs); only where that is not available, by reading ``/proc/net/tcp``, which the kernel
writes out in full on every read (7.8 ms for 720 sockets here: another user holding many
sockets open could slow every request past Claude Code's 1 s timeout).

The client's own address is looked up, not 127.0.0.1: any 127.x.y.z reaches a socket bound
to 127.0.0.1 (a connection from 127.0.0.2 was once not found, and so let through). A
connection the table does not list is refused too. Where the table cannot be read (not
Linux), nothing is refused: the check is not made there (said in docs/security.md).
Standard library only; not on the process hook's path.
"""

from __future__ import annotations

import errno
import os
import socket
import struct
import sys

NO_SOCKET = -1  # peer_uid: the table was read and lists no such connection
TABLE = "/proc/net/tcp"


def proc_address(host: str, port: int) -> str:
    """``host:port`` as ``/proc/net/tcp`` writes it: the address's 32 bits in this machine's
    byte order, then the port, both in upper-case hex."""
    raw = int.from_bytes(socket.inet_aton(host), sys.byteorder)
    return f"{raw:08X}:{port:04X}"


_NETLINK_SOCK_DIAG = 4  # linux/netlink.h
_SOCK_DIAG_BY_FAMILY = 20  # linux/sock_diag.h
_NLM_F_REQUEST = 1
_NLMSG_ERROR = 2
_NO_COOKIE = 0xFFFFFFFF  # INET_DIAG_NOCOOKIE: look the socket up by its addresses alone
_UID_AT = 16 + 64  # nlmsghdr, then inet_diag_msg's family..retrans, id, expires, queues


def _diag_uid(client: tuple[str, int], server: tuple[str, int]) -> int | None:
    """``peer_uid`` through ``sock_diag``: one exact lookup of the client's socket (local
    address ``client``, remote ``server``). None when the interface is not available."""
    sockid = (
        struct.pack("!HH", client[1], server[1])
        + socket.inet_aton(client[0]).ljust(16, b"\0")
        + socket.inet_aton(server[0]).ljust(16, b"\0")
        + struct.pack("=LLL", 0, _NO_COOKIE, _NO_COOKIE)
    )
    request = struct.pack("=BBBBL", socket.AF_INET, socket.IPPROTO_TCP, 0, 0, 0xFFFFFFFF) + sockid
    header = struct.pack("=LHHLL", 16 + len(request), _SOCK_DIAG_BY_FAMILY, _NLM_F_REQUEST, 1, 0)
    try:
        link = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, _NETLINK_SOCK_DIAG)
    except (AttributeError, OSError):
        return None  # not Linux, or no sock_diag
    try:
        link.settimeout(1.0)
        link.sendto(header + request, (0, 0))
        answer = link.recv(8192)
    except OSError:
        return None
    finally:
        link.close()
    if len(answer) < 20:
        return None
    kind = struct.unpack_from("=H", answer, 4)[0]
    if kind == _NLMSG_ERROR:
        code = -struct.unpack_from("=l", answer, 16)[0]
        return NO_SOCKET if code == errno.ENOENT else None
    if kind != _SOCK_DIAG_BY_FAMILY or len(answer) < _UID_AT + 4:
        return None
    uid: int = struct.unpack_from("=L", answer, _UID_AT)[0]
    return uid


def peer_uid(client: tuple[str, int], server: tuple[str, int]) -> int | None:
    """The owner of the socket connecting from ``client`` (address and port, as ``accept``
    gave them) to ``server``: None where neither ``sock_diag`` nor the table can be read,
    ``NO_SOCKET`` when there is no such connection."""
    try:
        want_local = proc_address(client[0], client[1])
        want_remote = proc_address(server[0], server[1])
    except (OSError, ValueError, OverflowError, TypeError, IndexError):
        return NO_SOCKET  # not an IPv4 address and port: nothing these servers accept
    found = _diag_uid(client, server)
    if found is not None:
        return found
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
