"""``os`` for the hook's hot path, without importing ``os``.

``import os`` costs a fresh ``python -I -S`` process ~0.9 ms of CPU (it builds
``_collections_abc``'s ABCs and ``os.environ``), about a tenth of a whole hook call
(bench/hook_latency.py). Everything the hook does with ``os`` is a system call that ``os``
re-exports from the builtin ``posix`` module, plus a few string operations on paths. So the
hot-path modules import this module under the name ``os`` (``from trace_ingest import _os as
os``) and their code reads as before:

- the system calls and flags the hook uses (``os.open``, ``os.fstat``, ``os.O_NOFOLLOW``, ...),
  from ``posix``: the very functions ``os`` itself exports;
- ``environ``: ``os.environ`` when ``os`` is loaded (a CLI or a test process, where it may
  have been changed), else the process environment as ``posix`` read it at start — in a hook
  process nothing can have changed it since;
- ``path``: ``join``, ``dirname``, ``isabs``, ``exists``, ``isdir`` as ``posixpath`` computes
  them, ``abspath`` and ``expanduser`` for the inputs a hook meets (an absolute, normal path;
  ``~`` with ``$HOME`` set), anything else from ``os.path`` itself;
- any other name: ``os``'s own, importing ``os`` only then (module ``__getattr__``), so a
  function used off the hot path never needs adding here.

On a system without ``posix`` (Windows) every name is ``os``'s own: nothing is saved there,
and nothing breaks for the commands that run there.
"""

import sys

try:
    from posix import (  # noqa: I001 - "x as x": re-exported, the names the hot path uses
        O_APPEND as O_APPEND,
        O_CLOEXEC as O_CLOEXEC,
        O_CREAT as O_CREAT,
        O_DIRECTORY as O_DIRECTORY,
        O_EXCL as O_EXCL,
        O_NOFOLLOW as O_NOFOLLOW,
        O_NONBLOCK as O_NONBLOCK,
        O_RDONLY as O_RDONLY,
        O_RDWR as O_RDWR,
        O_TRUNC as O_TRUNC,
        O_WRONLY as O_WRONLY,
        chmod as chmod,
        close as close,
        dup as dup,
        fchmod as fchmod,
        fstat as fstat,
        fsync as fsync,
        ftruncate as ftruncate,
        getcwd as getcwd,
        geteuid as geteuid,
        getpid as getpid,
        isatty as isatty,
        link as link,
        lstat as lstat,
        mkdir as mkdir,
        open as open,
        pread as pread,
        pwrite as pwrite,
        read as read,
        rename as rename,
        replace as replace,
        scandir as scandir,
        stat as stat,
        stat_result as stat_result,
        unlink as unlink,
        urandom as urandom,
        utime as utime,
        write as write,
    )
except ImportError:  # pragma: no cover - not POSIX: every name comes from os itself
    _POSIX = False
else:
    _POSIX = True

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

sep = "/"
SEEK_SET, SEEK_CUR, SEEK_END = 0, 1, 2


def _real_os() -> "Any":
    import os

    return os


def __getattr__(name: str) -> "Any":
    return getattr(_real_os(), name)


class _Environ:
    """Read access to the environment (all the hook needs)."""

    def get(self, name: str, default: str | None = None) -> str | None:
        loaded = sys.modules.get("os")
        if loaded is not None:
            found: str | None = loaded.environ.get(name, default)
            return found
        import posix

        raw = posix.environ.get(name.encode("utf-8", "surrogateescape"))
        if raw is None:
            return default
        return raw.decode(sys.getfilesystemencoding(), "surrogateescape")

    def __getitem__(self, name: str) -> str:
        found = self.get(name)
        if found is None:
            raise KeyError(name)
        return found

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.get(name) is not None


if TYPE_CHECKING:
    from os import environ as environ  # what callers may rely on: os.environ's reads
elif _POSIX:
    environ = _Environ()
else:  # pragma: no cover - not POSIX
    environ = _real_os().environ


class _Path:
    """``os.path`` (posixpath) for ``str`` paths; other functions from ``os.path`` itself."""

    sep = "/"

    @staticmethod
    def join(a: str, *p: str) -> str:
        path = a
        for b in p:
            if b.startswith("/"):
                path = b
            elif not path or path.endswith("/"):
                path += b
            else:
                path += "/" + b
        return path

    @staticmethod
    def dirname(p: str) -> str:
        i = p.rfind("/") + 1
        head = p[:i]
        if head and head != "/" * len(head):
            head = head.rstrip("/")
        return head

    @staticmethod
    def split(p: str) -> tuple[str, str]:
        i = p.rfind("/") + 1
        head, tail = p[:i], p[i:]
        if head and head != "/" * len(head):
            head = head.rstrip("/")
        return head, tail

    @staticmethod
    def relpath(p: str, start: str) -> str:
        """For a normal absolute ``p`` inside normal absolute ``start`` (a file of the data
        dir), computed here; otherwise by ``os.path.relpath``."""
        if p.startswith("/") and start.startswith("/") and not _needs_normpath(p + start):
            if p == start:
                return "."
            prefix = start if start == "/" else start + "/"
            if p.startswith(prefix):
                return p[len(prefix) :]
        rel: str = _real_os().path.relpath(p, start)
        return rel

    @staticmethod
    def isabs(s: str) -> bool:
        return s.startswith("/")

    @staticmethod
    def exists(p: str) -> bool:
        import posix

        try:
            posix.stat(p)
        except (OSError, ValueError):
            return False
        return True

    @staticmethod
    def isdir(p: str) -> bool:
        import posix

        try:
            st = posix.stat(p)
        except (OSError, ValueError):
            return False
        return (st.st_mode & 0o170000) == 0o040000

    @staticmethod
    def abspath(p: str) -> str:
        if p.startswith("/") and not _needs_normpath(p):
            return p
        path: str = _real_os().path.abspath(p)
        return path

    @staticmethod
    def expanduser(p: str) -> str:
        if not p.startswith("~"):
            return p
        if p == "~" or p.startswith("~/"):
            home = environ.get("HOME")
            if home:
                return (home.rstrip("/") + p[1:]) or "/"
        path: str = _real_os().path.expanduser(p)
        return path

    def __getattr__(self, name: str) -> "Any":
        return getattr(_real_os().path, name)


def _needs_normpath(p: str) -> bool:
    """Whether ``posixpath.normpath`` could change absolute ``p`` (else it is already normal)."""
    return (
        "//" in p
        or "/./" in p
        or "/../" in p
        or p.endswith(("/.", "/.."))
        or (p.endswith("/") and p != "/")
    )


if TYPE_CHECKING:
    from os import path as path
elif _POSIX:
    path = _Path()
else:  # pragma: no cover - not POSIX
    path = _real_os().path
