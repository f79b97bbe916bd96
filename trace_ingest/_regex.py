"""Regexes for the hot path without importing ``re``, through a per-interpreter code cache.

``import re`` costs a fresh CPython 3.11 process about 8 ms (it pulls in ``enum``,
``functools`` and ``collections``) — as much as the rest of the hook's own work — and
compiling a pattern costs another 0.1–0.4 ms. Both buy nothing the second time: a pattern
compiles to the same ``_sre`` program in every process of the same interpreter. So the first
process that needs a pattern compiles it with ``re`` and stores the program
(``$TRAIL_HOME/cache/regex-<implementation>-<version>-<sre magic>.marshal``, 0600); later
processes hand the stored program straight to ``_sre.compile``, the C constructor
``re.compile`` itself ends in, and never import ``re``.

The cache is authenticated: the file is ``MAGIC`` + a 32-byte keyed BLAKE2b (a MAC under the
install's fingerprint key, ``scrub.key``, personalised for this use) + the marshalled programs,
and nothing is unmarshalled before the MAC checks. A program that was not written by this
install therefore never runs: a crafted, copied or damaged file is ignored (and logged), every
pattern is compiled with ``re`` again and the file is rewritten. The folder and file are opened
without following symlinks (``paths.open_dirs`` / ``open_file``).

Anything unexpected (another interpreter, a changed ``_sre`` signature, an unreadable,
foreign or unauthenticated cache) falls back to plain ``re.compile``: the cache can only make
things faster, never different. Keys include the flags; values are exactly what
``re._compiler.compile`` passes to ``_sre.compile``.
"""

from __future__ import annotations

import sys

from trace_ingest import _os as os  # os without its import cost (see _os)

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Callable
    from typing import Any

# re's flag values (re.RegexFlag), fixed since Python 2; spelled out so callers need no `re`.
IGNORECASE = 2
MULTILINE = 8
DOTALL = 16

try:
    import _sre  # type: ignore[import-not-found]

    _TAG = f"{sys.implementation.name}-{sys.version_info[0]}.{sys.version_info[1]}-{_sre.MAGIC}"
except ImportError:  # pragma: no cover - not CPython
    _sre = None
    _TAG = ""

MAGIC = b"TRX1"
MAC_BYTES = 32
_PERSON = b"trail-rx-cache"

_cache_path: str | None = None
_home: str | None = None
_key: Callable[[], bytes] | None = None
_programs: dict[str, Any] | None = None
_compiled: dict[str, re.Pattern[str]] = {}


def use_cache(home: str, key: Callable[[], bytes] | None = None) -> None:
    """Keep compiled programs under ``home/cache`` (the data dir), authenticated with the
    key ``key()`` returns (the install's fingerprint key). Without a key, nothing is cached."""
    global _cache_path, _programs, _home, _key
    path = os.path.join(home, "cache", _name()) if _TAG and key is not None else None
    _key = key
    if path != _cache_path:
        _cache_path, _programs, _home = path, None, home


def _name() -> str:
    return f"regex-{_TAG}.marshal"


def _mac(body: bytes) -> bytes:
    from trace_ingest._blake import blake2b

    assert _key is not None
    return blake2b(body, key=_key(), digest_size=MAC_BYTES, person=_PERSON).digest()


def compile(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, from the cache when the program is there."""
    key = f"{flags}\x00{pattern}"
    found = _compiled.get(key)
    if found is not None:
        return found
    rx = _from_cache(key, pattern) or _compile_and_store(key, pattern, flags)
    _compiled[key] = rx
    return rx


def ready(pattern: str, flags: int = 0) -> bool:
    """Whether compiling ``pattern`` now costs this process nothing it has not paid already:
    compiled before, ``re`` loaded anyway, or the cache read already (then a pattern missing
    from it is compiled with ``re`` once and stored, as any new pattern is, and every later
    process finds it there). Lets a caller with a regex-free way to the same answer (the hook
    prefilter's ``in`` loop) take it on a call that needs no regex at all, rather than read the
    key and the cache, or import ``re``, for this one."""
    return f"{flags}\x00{pattern}" in _compiled or "re" in sys.modules or _programs is not None


def _load() -> dict[str, Any]:
    global _programs
    if _programs is None:
        _programs = {}
        if _cache_path and _home:
            try:
                data = _read()
            except OSError:
                data = None
            if data is not None:
                _programs = _verify(data)
    return _programs


def _read() -> bytes | None:
    from trace_ingest.paths import open_dirs, open_file_stat

    assert _home is not None
    try:
        folder = open_dirs(_home, ("cache",), create=False)
    except FileNotFoundError:
        return None
    try:
        fd, st = open_file_stat(folder, _name(), str(_cache_path), os.O_RDONLY)
    except FileNotFoundError:
        return None
    finally:
        os.close(folder)
    try:
        size = st.st_size
        if size > 16 << 20:
            return b""  # not ours: ours is a few hundred KB
        chunks = []
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks)


def _verify(data: bytes) -> dict[str, Any]:
    """The programs in ``data`` if its MAC checks under this install's key, else ``{}``."""
    try:
        from _operator import _compare_digest

        head = len(MAGIC) + MAC_BYTES
        body = data[head:]
        if data[: len(MAGIC)] == MAGIC and _compare_digest(data[len(MAGIC) : head], _mac(body)):
            import marshal

            loaded = marshal.loads(body)
            if isinstance(loaded, dict) and loaded.get("tag") == _TAG:
                programs = loaded.get("programs")
                if isinstance(programs, dict):
                    return programs
    except Exception:  # a bad cache is a cold cache
        pass
    _log(
        f"the regex cache {_cache_path} is not authenticated by this install's key (foreign, "
        "damaged or tampered with); ignored, every pattern is compiled again and it is rebuilt"
    )
    return {}


def _log(message: str) -> None:
    try:
        from trace_ingest.events import now_iso
        from trace_ingest.store import append_error

        assert _home is not None
        entry: dict[str, object] = {"ts": now_iso(), "harness": None, "stage": "regex-cache"}
        entry["error"] = message
        append_error(_home, entry, unless_repeated=True)
    except Exception:
        pass


def _from_cache(key: str, pattern: str) -> re.Pattern[str] | None:
    entry = _load().get(key) if _sre is not None else None
    if entry is None:
        return None
    try:
        flags, code, groups, groupindex, indexgroup = entry
        rx: re.Pattern[str] = _sre.compile(pattern, flags, code, groups, groupindex, indexgroup)
    except Exception:
        return None
    return rx


def _compile_and_store(key: str, pattern: str, flags: int) -> re.Pattern[str]:
    import re

    rx = re.compile(pattern, flags)
    if _cache_path and _sre is not None:
        try:
            _store(key, _program(pattern, flags, rx))
        except Exception:
            return rx  # caching is an optimisation only
    return rx


def _program(pattern: str, flags: int, rx: re.Pattern[str]) -> tuple[Any, ...]:
    """What ``re._compiler.compile`` passes to ``_sre.compile`` (CPython 3.11-3.13)."""
    from re import _compiler, _parser  # type: ignore[attr-defined]

    parsed = _parser.parse(pattern, flags)
    code = _compiler._code(parsed, flags)
    groupindex = dict(parsed.state.groupdict)
    indexgroup = [None] * parsed.state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    # Opcodes are int subclasses (re._constants._NamedIntConstant): store plain ints.
    entry = (
        int(flags | parsed.state.flags),
        [int(op) for op in code],
        parsed.state.groups - 1,
        groupindex,
        tuple(indexgroup),
    )
    # Only keep a program that rebuilds the very same pattern.
    check = _sre.compile(pattern, *entry)
    if check.flags != rx.flags or check.groups != rx.groups:
        raise ValueError("rebuilt pattern differs")
    return entry


def _store(key: str, entry: tuple[Any, ...]) -> None:
    import marshal

    from trace_ingest.paths import FILE_MODE, open_dirs, open_file, open_subdir

    assert _cache_path is not None and _home is not None
    try:
        home = open_dirs(_home, (), create=False)  # never create a data dir just for the cache
    except FileNotFoundError:
        return
    try:
        folder = open_subdir(home, "cache", os.path.dirname(_cache_path))
    finally:
        os.close(home)
    try:
        programs = dict(_load())
        programs[key] = entry
        body = marshal.dumps({"tag": _TAG, "programs": programs})
        data = MAGIC + _mac(body) + body
        tmp = f"{_name()}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
        fd = open_file(folder, tmp, tmp, flags, FILE_MODE)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            # atomic: concurrent hooks never see half a file; replaces a symlink, never its target
            os.replace(tmp, _name(), src_dir_fd=folder, dst_dir_fd=folder)
        except BaseException:
            try:  # noqa: SIM105 - contextlib is not on the hook's path
                os.unlink(tmp, dir_fd=folder)
            except OSError:
                pass
            raise
    finally:
        os.close(folder)
    global _programs
    _programs = programs
