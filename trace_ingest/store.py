"""Append-only trace files: the source of truth every other part rebuilds from.

Hot-path safe: standard library only.

Store API contract:

- ``append_lines(path, data)`` appends ``data`` (one or more complete JSONL lines) with a single
  ``write()`` on an ``O_APPEND`` descriptor, so concurrent writers (parallel tool calls,
  subagents) never interleave inside a line. Files are created 0600, folders 0700. Inside the
  data dir nothing is followed: each level is opened relative to its parent with
  ``O_NOFOLLOW`` and checked (``paths.open_dirs``); a symlink, a hard link or a file or folder
  that another user owns or can write raises ``paths.UnsafePath`` and nothing is written.
- ``append_error(home, ...)`` appends one entry to the hook error log, never raising. The log
  is capped at ``MAX_ERROR_LOG`` bytes: past that it is renamed to ``hook-errors.log.1``
  (replacing the previous one) and a new log is started.
- ``record_lost(home, reason)`` counts events lost to a full disk (or any other write error) in
  ``lost-events``, a fixed-size record that is created while there is space and afterwards
  only overwritten in place; ``read_errors`` reports a non-zero count, and the next hook call
  that can write logs it and resets it.
"""

from __future__ import annotations

from trace_ingest import _os as os  # os without its import cost (see _os)
from trace_ingest import fastjson
from trace_ingest.paths import open_dirs, open_file, open_file_stat

MAX_ERROR_DETAIL = 2000
MAX_ERROR_LOG = 1 << 20  # bytes; then one rotation to hook-errors.log.1
ERROR_LOG = "hook-errors.log"
LOST_EVENTS = "lost-events"
LOST_SIZE = 160  # the lost-events record: fixed size, overwritten in place
_APPEND = os.O_WRONLY | os.O_APPEND | os.O_CREAT


def _locate(path: str, home: str | None) -> tuple[str, tuple[str, ...], str]:
    """Split ``path`` into (data dir, folders inside it, file name).

    Without ``home``: a trace (``…/sessions/<harness>/<key>/trace.jsonl``) has its data dir four
    levels up; any other file (the error log, the ledger) lives in the data dir itself.
    """
    folder, name = os.path.split(path)
    if home is not None:
        rel = os.path.relpath(folder, home)
        if rel == ".":
            return home, (), name
        parts = tuple(rel.split(os.sep))
        if ".." not in parts:
            return home, parts, name
    parts = tuple(folder.split(os.sep))
    if len(parts) >= 4 and parts[-3] == "sessions":
        return os.sep.join(parts[:-3]) or os.sep, parts[-3:], name
    return folder, (), name


def append_lines(path: str, data: str | bytes, home: str | None = None) -> None:
    """Append complete lines to ``path`` in one ``write()`` (creating file and parents);
    ``bytes`` are written as they are (UTF-8 already)."""
    root, parts, name = _locate(path, home)
    payload = data if isinstance(data, bytes) else data.encode("utf-8", "replace")
    folder = open_dirs(root, parts)
    try:
        fd = open_file(folder, name, path, _APPEND)
    finally:
        os.close(folder)
    try:
        write_all(fd, payload)
    finally:
        os.close(fd)


def write_all(fd: int, payload: bytes) -> None:
    """Write all of ``payload`` to ``fd`` (os.write may write less on a full disk or a signal)."""
    written = os.write(fd, payload)
    # A short write only happens on a full disk or a signal; finish the line rather than
    # leave a torn one (the mirror would quarantine it).
    while written < len(payload):
        written += os.write(fd, payload[written:])


def append_error(home: str, record: dict[str, object], unless_repeated: bool = False) -> None:
    """Append one JSON line to the hook error log. Never raises: the log is best effort.

    With ``unless_repeated``, skip it when one of the log's recent entries says the same thing
    (a standing problem, such as a bad setting, is then logged once, not on every hook call).
    """
    try:
        if unless_repeated and record.get("error") in _recent_errors(home):
            return
        for key, value in list(record.items()):
            if isinstance(value, str) and len(value) > MAX_ERROR_DETAIL:
                record[key] = value[:MAX_ERROR_DETAIL] + f"…[cut {len(value) - MAX_ERROR_DETAIL}]"
        line = (fastjson.dumps(record, default=str) + "\n").encode("utf-8", "replace")
        _append_log(home, line)
    except Exception:
        pass


def _append_log(home: str, line: bytes) -> None:
    folder = open_dirs(home, ())
    try:
        what = os.path.join(home, ERROR_LOG)
        fd = open_file(folder, ERROR_LOG, what, _APPEND)
        try:
            st = os.fstat(fd)
            if st.st_size + len(line) > MAX_ERROR_LOG:
                if _rotate(folder, st.st_ino):
                    os.close(fd)
                    fd = open_file(folder, ERROR_LOG, what, _APPEND)
                else:
                    # `.1` cannot be replaced (a folder, say): start this log again rather
                    # than grow past the cap; the newest entries are the ones doctor needs.
                    os.ftruncate(fd, 0)
            write_all(fd, line)
        finally:
            os.close(fd)
    finally:
        os.close(folder)


def _rotate(folder: int, inode: int) -> bool:
    """Rename the full log to ``.1`` (replacing it), unless another writer already did."""
    try:
        if os.stat(ERROR_LOG, dir_fd=folder, follow_symlinks=False).st_ino != inode:
            return True  # rotated meanwhile: reopen the new log
        os.rename(ERROR_LOG, ERROR_LOG + ".1", src_dir_fd=folder, dst_dir_fd=folder)
    except OSError:
        return False
    return True


def _recent_errors(home: str) -> list[object]:
    return [e.get("error") for e in read_errors(home, 20, tail_bytes=16384)]


def _tail(folder: int, name: str, tail_bytes: int) -> list[str]:
    fd, st = open_file_stat(folder, name, name, os.O_RDONLY)
    try:
        size = st.st_size
        start = max(0, size - tail_bytes)
        data = os.pread(fd, size - start, start)
    finally:
        os.close(fd)
    return data.decode("utf-8", "replace").splitlines()


def read_errors(
    home: str, limit: int = 20, tail_bytes: int = 256 * 1024
) -> list[dict[str, object]]:
    """The last ``limit`` entries of the hook error log (malformed entries are skipped).

    Reads ``hook-errors.log.1`` too when the current log holds fewer entries. A log trail
    refuses to use (a symlink, say) and a non-zero lost-events count come back as entries
    of their own (``stage`` ``error-log`` / ``lost``), so ``trail doctor`` shows them.
    """
    problems: list[dict[str, object]] = []
    try:
        folder = open_dirs(home, (), create=False)
    except FileNotFoundError:
        return []
    except OSError as exc:
        return [{"ts": None, "harness": None, "stage": "data-dir", "error": str(exc)}]
    try:
        lines: list[str] = []
        for name in (ERROR_LOG, ERROR_LOG + ".1"):
            try:
                lines = _tail(folder, name, tail_bytes) + lines
            except FileNotFoundError:
                pass
            except OSError as exc:
                problems.append(
                    {"ts": None, "harness": None, "stage": "error-log", "error": str(exc)}
                )
            if len(lines) >= limit:
                break
        lost = _read_lost(folder)
    finally:
        os.close(folder)
    entries: list[dict[str, object]] = []
    for line in lines[-limit:] if limit > 0 else []:
        try:
            entry = fastjson.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict):
            entries.append(entry)
    return problems + entries + ([lost] if lost is not None else [])


# ----------------------------------------------------------------------------- lost events


def _lost_record(count: int, first: str, last: str, reason: str) -> bytes:
    text = f"{count} {first} {last} {reason}"[: LOST_SIZE - 1]
    return (text + " " * (LOST_SIZE - 1 - len(text)) + "\n").encode("ascii", "replace")


_ZERO = b"0" + b" " * (LOST_SIZE - 2) + b"\n"


def _parse_lost(data: bytes) -> tuple[int, str, str, str]:
    parts = data.decode("ascii", "replace").strip().split(" ", 3)
    try:
        count = int(parts[0])
    except (ValueError, IndexError):
        return 0, "", "", ""
    parts += [""] * (4 - len(parts))
    return count, parts[1], parts[2], parts[3]


def _open_lost(folder: int, create: bool, mark: bool = False) -> int:
    """Open the record, creating it allocated (temporary file, ``_ZERO`` fsynced, linked into
    place), so ``lost-events`` is never seen half-made.

    When the disk is too full even for those 160 bytes, ``mark`` (a write was just lost)
    links the empty temporary file into place instead: an empty ``lost-events`` means
    "events were lost before the record could be made" (its mtime: the last one), which needs
    no data block. Without ``mark`` nothing is left behind.
    """
    try:
        return open_file(folder, LOST_EVENTS, LOST_EVENTS, os.O_RDWR)
    except FileNotFoundError:
        if not create:
            raise
    tmp = f".{LOST_EVENTS}.tmp-{os.getpid()}"
    fd = open_file(folder, tmp, tmp, os.O_RDWR | os.O_CREAT | os.O_TRUNC)
    try:
        try:
            os.pwrite(fd, _ZERO, 0)
            os.fsync(fd)  # allocated now, so a full disk later can still overwrite it in place
        except OSError:
            os.ftruncate(fd, 0)
            if not mark:
                raise
        try:
            os.link(tmp, LOST_EVENTS, src_dir_fd=folder, dst_dir_fd=folder)
        except FileExistsError:
            os.close(fd)
            fd = -1
            return open_file(folder, LOST_EVENTS, LOST_EVENTS, os.O_RDWR)
        return fd
    except BaseException:
        if fd != -1:
            os.close(fd)
        raise
    finally:
        try:  # noqa: SIM105 - contextlib would cost the hook ~2 ms of imports
            os.unlink(tmp, dir_fd=folder)
        except OSError:
            pass


def _allocated(fd: int) -> bool:
    """Make an empty record (a full-disk marker) a real one; False when there is still no
    space for it."""
    try:
        os.pwrite(fd, _ZERO, 0)
        os.fsync(fd)
    except OSError:
        try:  # noqa: SIM105 - as above
            os.ftruncate(fd, 0)
        except OSError:
            pass
        return False
    return True


def record_lost(home: str, reason: str, now: str) -> bool:
    """Count one lost event in the pre-allocated record. Never raises; False if it failed
    (with the disk too full even for the record, an empty record marks the loss)."""
    try:
        folder = open_dirs(home, (), create=False)
    except OSError:
        return False
    try:
        fd = _open_lost(folder, create=True, mark=True)
    except OSError:
        os.close(folder)
        return False
    os.close(folder)
    try:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_EX)
        data = os.pread(fd, LOST_SIZE, 0)
        if len(data) < LOST_SIZE:  # an empty marker: count it once there is room
            if not _allocated(fd):
                os.utime(fd)  # the marker's mtime: the last loss (needs no data block)
                return False
            data = _lost_record(1, "?", "?", "disk full before the record could be made")
        count, first, _, _ = _parse_lost(data)
        record = _lost_record(count + 1, first or now, now, reason.replace("\n", " "))
        os.pwrite(fd, record, 0)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def take_lost(home: str) -> tuple[int, str, str, str] | None:
    """After a successful write: the lost-events count if non-zero (and reset it), else None.

    Creates the record when it is missing, so it exists before the disk fills up. An empty
    record (events lost before it could be made) comes back with the count ``-1`` (unknown).
    """
    try:
        folder = open_dirs(home, (), create=False)
    except OSError:
        return None
    try:
        fd = _open_lost(folder, create=True)
    except OSError:
        return None
    finally:
        os.close(folder)
    try:
        if os.pread(fd, 1, 0) == b"0":
            return None
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_EX)
        data = os.pread(fd, LOST_SIZE, 0)
        if len(data) < LOST_SIZE:
            when = _mtime_iso(fd)
            if not _allocated(fd):
                return None  # still no room: report it next time
            return -1, "", when, "the disk was full before the loss record could be made"
        found = _parse_lost(data)
        if found[0] <= 0:
            return None
        os.pwrite(fd, _ZERO, 0)
        return found
    except OSError:
        return None
    finally:
        os.close(fd)


def _mtime_iso(fd: int) -> str:
    import time

    t = os.fstat(fd).st_mtime
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t % 1 * 1e6):06d}Z"


def _read_lost(folder: int) -> dict[str, object] | None:
    try:
        fd = open_file(folder, LOST_EVENTS, LOST_EVENTS, os.O_RDONLY)
    except OSError:
        return None
    try:
        data = os.pread(fd, LOST_SIZE, 0)
        if not data:  # the marker: lost before the record could be made (record_lost)
            when = _mtime_iso(fd)
            return {
                "ts": when,
                "harness": None,
                "stage": "lost",
                "error": "an unknown number of event(s) could not be written (the disk was"
                f" full before the loss record could be made), the last at {when}",
            }
        count, first, last, reason = _parse_lost(data)
    except OSError:
        return None
    finally:
        os.close(fd)
    if count <= 0:
        return None
    return {
        "ts": last,
        "harness": None,
        "stage": "lost",
        "error": f"{count} event(s) could not be written ({reason}) between {first} and {last}",
    }
