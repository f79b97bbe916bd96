"""Where trail keeps its data, and how untrusted names become safe file names.

Hot-path safe: standard library only (os, stat, errno; no ``re``).

Layout under ``$TRAIL_HOME`` (default ``${XDG_DATA_HOME:-~/.local/share}/trail``)::

    sessions/<harness>/<session-key>/trace.jsonl   one append-only trace per session
    trail.db                                       the SQLite mirror (WAL)
    GRADES.jsonl                                   the grade ledger
    hook-errors.log (+ .1)                         the hook's own failures (JSON lines, capped)
    lost-events                                    a fixed-size record of events lost to a full disk
    config.json                                    optional user configuration
    scrub.key                                      per-install fingerprint key (0600)
    capture-off                                    present = capture disabled

Inside the data dir nothing is followed: every folder and file trail writes is opened one
component at a time, relative to its parent's descriptor, with ``O_NOFOLLOW``, and must be a
real folder or regular file owned by this user and not writable by group or others
(``open_dirs``, ``open_file``). A data dir that fails those checks is not used at all
(docs/security.md, "Capture").
"""

from __future__ import annotations

import errno
import stat

from trace_ingest import _os as os  # os without its import cost (see _os)
from trace_ingest._blake import blake2b

# The harnesses themselves are listed in trace_ingest.harnesses.table.HARNESSES.
UNKNOWN_HARNESS = "unknown"  # the folder and harness of a payload sent with an unknown name

DIR_MODE = 0o700
FILE_MODE = 0o600

_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_HEX = frozenset("0123456789abcdef")
MAX_KEY_LEN = 96

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _CLOEXEC
_REFUSED = (errno.ELOOP, errno.ENOTDIR, getattr(errno, "EMLINK", errno.ELOOP))


class UnsafePath(OSError):
    """A path in the data dir that trail refuses to use: a symlink, a hard link, not a plain
    folder or file, owned by another user, or writable by group or others."""


def trail_home() -> str:
    """The data directory: ``$TRAIL_HOME``, else the XDG data dir."""
    home = os.environ.get("TRAIL_HOME")
    if home:
        return os.path.abspath(os.path.expanduser(home))
    return default_home()


def default_home() -> str:
    """``${XDG_DATA_HOME:-~/.local/share}/trail`` (an unusable relative XDG dir is ignored)."""
    xdg = os.environ.get("XDG_DATA_HOME") or ""
    if not os.path.isabs(xdg):
        xdg = os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(xdg, "trail")


def hook_home() -> tuple[str, str | None]:
    """The data dir for the hook, which must never fail: ``(home, problem)``.

    A relative ``TRAIL_HOME`` is resolved against the working folder. When that folder has
    been deleted (the agent removed it), there is nothing to resolve against: the hook then
    records into the default data dir and ``problem`` says why, for the error log.
    """
    try:
        return trail_home(), None
    except OSError as exc:  # os.getcwd() of a deleted folder
        raw = os.environ.get("TRAIL_HOME", "")
        return default_home(), (
            f"TRAIL_HOME {raw[:200]!r} is relative and the working folder is gone "
            f"({type(exc).__name__}); recorded in the default data dir instead"
        )


def session_key(session_id: str | None) -> tuple[str, bool]:
    """Turn an untrusted session id into a directory name, injectively.

    Returns ``(key, changed)``. An id is used as it is only when it is 1-96 characters of
    ``[A-Za-z0-9_-]``, does not start with ``_`` (trail's own names: ``_unknown``,
    ``_scrub-error``) and does not end like a changed key (``-`` + 8 hex digits). Anything
    else has its unsafe characters replaced by ``_`` and a hash of the original appended, so
    two distinct ids never share a directory. ``changed`` tells the caller to log it.
    """
    if not session_id:
        return "_unknown", session_id is not None
    cleaned = "".join(c if c in _SAFE else "_" for c in session_id[:MAX_KEY_LEN])
    if cleaned == session_id and not _reserved(cleaned):
        return cleaned, False
    digest = blake2b(session_id.encode("utf-8", "surrogatepass"), digest_size=4).hexdigest()
    return f"{cleaned}-{digest}", True


def _reserved(key: str) -> bool:
    """Keys an unchanged id may not take: trail's own ``_…`` names and the changed-key shape."""
    if key.startswith("_"):
        return True
    return len(key) > 9 and key[-9] == "-" and all(c in _HEX for c in key[-8:])


def ensure_dir(path: str) -> str:
    """Create ``path`` (and parents) with mode 0700 and return it."""
    if os.path.isdir(path):
        return path
    parent = os.path.dirname(path)
    if parent and parent != path:
        ensure_dir(parent)  # each missing level gets 0700, not just the last one
    try:
        os.mkdir(path, DIR_MODE)
    except FileExistsError:
        return path
    os.chmod(path, DIR_MODE)  # mkdir's mode is filtered by the umask
    return path


def ensure_home(home: str | None = None) -> str:
    """Create the data directory (0700) and return its path."""
    root = home or trail_home()
    ensure_dir(root)
    return root


def _vet(st: os.stat_result, what: str, folder: bool, max_links: int = 1) -> None:
    if folder and not stat.S_ISDIR(st.st_mode):
        raise UnsafePath(f"{what} is not a folder; refused")
    if not folder and not stat.S_ISREG(st.st_mode):
        raise UnsafePath(f"{what} is not a regular file; refused")
    uid = os.geteuid()
    if st.st_uid != uid:
        raise UnsafePath(f"{what} is owned by uid {st.st_uid}, not this user ({uid}); refused")
    if st.st_mode & 0o022:
        raise UnsafePath(
            f"{what} is writable by other users (mode {stat.S_IMODE(st.st_mode):o}); refused"
        )
    if not folder and st.st_nlink > max_links:
        raise UnsafePath(f"{what} has {st.st_nlink} hard links; refused")


def home_problems(home: str) -> list[str]:
    """Why the hook would refuse ``home`` (empty when it is fine or does not exist yet)."""
    try:
        st = os.stat(home)
    except FileNotFoundError:
        return []
    except OSError as exc:
        return [f"the data dir {home}: {exc}"]
    try:
        _vet(st, f"the data dir {home}", True)
    except UnsafePath as exc:
        return [str(exc)]
    return []


_PINNED: dict[str, int] = {}  # data dir path -> its checked descriptor (one hook call)


def pin_home(home: str) -> None:
    """Check the data dir once and hold its descriptor until ``unpin_home``: every
    ``open_home(home)`` meanwhile is a ``dup`` of it, not another open and check. The hook
    pins for the length of one call (the data dir is then the same folder for every file it
    opens); nothing long-running pins, so a data dir replaced later is seen as replaced."""
    unpin_home()
    _PINNED[home] = open_home(home)


def unpin_home() -> None:
    while _PINNED:
        os.close(_PINNED.popitem()[1])


def open_home(home: str, create: bool = True) -> int:
    """A descriptor of the data dir, after checking it (raises UnsafePath).

    The data dir itself may be reached through a symlink (a user's own layout); what it
    resolves to must be a folder owned by this user and not writable by group or others.
    """
    pinned = _PINNED.get(home)
    if pinned is not None:
        return os.dup(pinned)
    if create:
        ensure_dir(home)
    fd = os.open(home, _DIR_FLAGS)
    try:
        _vet(os.fstat(fd), f"the data dir {home}", True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_subdir(parent: int, name: str, what: str, create: bool = True, fresh: bool = False) -> int:
    """Open (creating 0700 if asked) the folder ``name`` under the folder ``parent``, never
    through a symlink; raises UnsafePath for a symlink, a non-folder or a folder that fails
    the ownership and mode checks. ``fresh``: the folder is probably not there yet, so
    ``mkdir`` is tried first (one failed open fewer; the result is the same)."""
    made = False
    try:
        try:
            if create and fresh:
                try:
                    os.mkdir(name, DIR_MODE, dir_fd=parent)
                    made = True
                except FileExistsError:
                    pass
            fd = os.open(name, _DIR_FLAGS | _NOFOLLOW, dir_fd=parent)
        except FileNotFoundError:
            if not create:
                raise
            try:
                os.mkdir(name, DIR_MODE, dir_fd=parent)
                made = True
            except FileExistsError:
                pass
            fd = os.open(name, _DIR_FLAGS | _NOFOLLOW, dir_fd=parent)
    except OSError as exc:
        if exc.errno in _REFUSED:
            raise UnsafePath(f"{what} is a symlink or not a folder; refused") from None
        raise
    try:
        st = os.fstat(fd)
        if made and stat.S_IMODE(st.st_mode) != DIR_MODE:
            # mkdir's mode is filtered by the umask (the usual 022 leaves 0700 as it is: no
            # fchmod, which costs each new session folder of an import an inode update)
            os.fchmod(fd, DIR_MODE)
            st = os.fstat(fd)
        _vet(st, what, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_dirs(home: str, parts: tuple[str, ...] | list[str], create: bool = True) -> int:
    """A descriptor of ``home/parts…``, each level opened with ``open_subdir``."""
    fd = open_home(home, create)
    where = home
    try:
        for part in parts:
            where = os.path.join(where, part)
            child = open_subdir(fd, part, where, create)
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_file(
    parent: int, name: str, what: str, flags: int, mode: int = FILE_MODE, max_links: int = 1
) -> int:
    """Open the file ``name`` under the folder ``parent`` with ``flags``, never through a
    symlink, never a FIFO or device (``O_NONBLOCK``, then a regular-file check), and only when
    it is owned by this user, not writable by others and not hard-linked elsewhere."""
    return open_file_stat(parent, name, what, flags, mode, max_links)[0]


def open_file_stat(
    parent: int, name: str, what: str, flags: int, mode: int = FILE_MODE, max_links: int = 1
) -> tuple[int, os.stat_result]:
    """``open_file``, with the ``fstat`` its check made (size, inode: no second call)."""
    try:
        fd = os.open(name, flags | _NOFOLLOW | _NONBLOCK | _CLOEXEC, mode, dir_fd=parent)
    except OSError as exc:
        if exc.errno in _REFUSED:
            raise UnsafePath(f"{what} is a symlink; refused") from None
        raise
    try:
        st = os.fstat(fd)
        _vet(st, what, False, max_links)
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def sessions_dir(home: str) -> str:
    return os.path.join(home, "sessions")


def trace_path(home: str, harness: str, key: str) -> str:
    """Path of one session's ``trace.jsonl``; ``harness`` and ``key`` must already be safe."""
    return os.path.join(home, "sessions", harness, key, "trace.jsonl")


def db_path(home: str) -> str:
    return os.path.join(home, "trail.db")


def grades_path(home: str) -> str:
    return os.path.join(home, "GRADES.jsonl")


def error_log_path(home: str) -> str:
    return os.path.join(home, "hook-errors.log")


def lost_events_path(home: str) -> str:
    return os.path.join(home, "lost-events")


def config_path(home: str) -> str:
    return os.path.join(home, "config.json")


def key_path(home: str) -> str:
    return os.path.join(home, "scrub.key")


def capture_off_path(home: str) -> str:
    return os.path.join(home, "capture-off")
