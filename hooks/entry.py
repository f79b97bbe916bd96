"""The hook entry point: ``trail hook <harness>`` — the hot path (ARCHITECTURE.md).

Runs inside the agent on every tool call, so it imports only the standard library and the
modules it needs (enforced by tests/hooks/test_entry.py), reads stdin, normalizes,
scrubs, appends with one ``write()``, and exits 0 with nothing on stdout, whatever happens.
Its own failures go to ``$TRAIL_HOME/hook-errors.log``, which ``trail doctor`` reports.
``record_payload`` is the same path for a payload that arrived as an http hook's POST body
(``trail collect``, hooks/collector.py): one function records both transports.

Every payload is untrusted (docs/security.md, "Capture"): reads and drains are bounded in
bytes and time, the parse is bounded in nesting and element count, numbers JSON cannot hold
are written as strings, the harness name and session id never reach a path unsanitized, and
nothing inside the data dir is followed through a symlink.
"""

from __future__ import annotations

import sys
import time

from hooks.sender import sender
from trace_ingest import _os as os  # os without its import cost (see _os)
from trace_ingest import fastjson
from trace_ingest._blake import blake2b
from trace_ingest.capture import SCRUB_MARGIN, finish, session_dir_key
from trace_ingest.events import new_event, now_iso, to_line
from trace_ingest.harnesses.table import HARNESSES
from trace_ingest.paths import (
    UNKNOWN_HARNESS,
    UnsafePath,
    capture_off_path,
    hook_home,
    pin_home,
    trace_path,
    unpin_home,
)
from trace_ingest.store import append_error, append_lines, record_lost, take_lost

TYPE_CHECKING = False  # not `from typing import`: typing costs the hook ~5 ms
if TYPE_CHECKING:
    from typing import Any

    from hooks._protocols import Adapter
    from trace_ingest.events import Event
    from trace_ingest.scrub import Scrubber

# Harness -> its adapter module (hooks._protocols.Adapter), imported by name so the hook pays
# only for the one it runs. Every key is a harness of trace_ingest.harnesses.table.HARNESSES,
# and each has a registrar in hooks.install.REGISTRARS (tests/test_harness_agreement.py). A
# harness listed there without an adapter here has its payloads recorded as kind ``other``.
ADAPTERS: dict[str, str] = {
    "claude-code": "hooks.claude_code",
    "copilot-cli": "hooks.copilot_cli",
    "vibe": "hooks.vibe",
    "vscode": "hooks.vscode",
}
PREVIEW_CHARS = 2000  # of an unparseable payload, kept (scrubbed) for diagnosis

# Parse bounds (docs/security.md): a payload past them is recorded as a stub, not parsed.
MAX_DEPTH = fastjson.MAX_DEPTH
MAX_ELEMENTS = fastjson.MAX_ELEMENTS
PRESCAN_BYTES = 2 << 20  # larger payloads have their brackets counted before parsing
# Reading and draining stdin: never more than this, never longer than this.
READ_CHUNK = 1 << 20
MAX_READ = 256 << 20  # = config.MAX_PAYLOAD_BYTES, whatever a caller passes
MAX_DRAIN_BYTES = 1 << 30
MAX_DRAIN_SECONDS = 2.0
# stdin must reach its end within this (a harness writes the payload and closes its pipe in
# milliseconds; test_received_at_... waits 1.5 s); past it, what has arrived is the payload.
# With the drain, below the 10 s timeoutSec of trail's Copilot CLI handlers
# (hooks/registrars/copilot_cli.py): Copilot denies a tool when its preToolUse hook fails.
READ_SECONDS = 5.0
_BOM = b"\xef\xbb\xbf"

_SALVAGE_SID = rb'"(?:session_id|sessionId)"\s*:\s*"([^"\\]{1,200})"'
_SALVAGE_EVENT = rb'"(?:hook_event_name|hookEventName)"\s*:\s*"([A-Za-z_]{1,64})"'
_STRING = rb'"(?:[^"\\]++|\\.)*+"'


class Oversize(Exception):
    def __init__(self, size: int, head: bytes, drained: bool) -> None:
        super().__init__(size)
        self.size = size
        self.head = head
        self.drained = drained


def run(harness: str, stdin: Any = None, started_ns: int | None = None) -> int:
    """Record one hook payload. Always returns 0; never writes to stdout.

    ``started_ns`` is when the hook process started (``trace_ingest.entry`` takes it before
    anything else); it becomes the events' ``received_at``.
    """
    return _guarded(harness, now_iso(started_ns), _StdinSource(stdin))


def record_payload(harness: str, body: bytes, received_at: str, size: int | None = None) -> None:
    """Record one payload that arrived by other means than stdin: the collector's POST body
    (hooks/collector.py). Exactly the process hook's path (checks, config, bounds, normalize,
    scrub, append, error log); never raises.

    ``size``: the payload's full length when ``body`` is only its head (the collector read no
    further than its own bound); past ``max_payload_bytes`` it is recorded as a stub either way.
    """
    _guarded(harness, received_at, _BytesSource(body, len(body) if size is None else size))


class _StdinSource:
    """The process hook's payload: stdin, read once and bounded in bytes and time (``_read``,
    ``_drain``); ``problem`` says what was odd about it, for the error log."""

    def __init__(self, stdin: Any) -> None:
        self.stdin = stdin
        self.problem: str | None = None

    def read(self, limit: int) -> bytes:
        fd = _stdin_fd(self.stdin)
        if fd is None:
            return _read(self.stdin, limit)
        if os.isatty(fd):
            self.problem = "stdin is a terminal, not a harness's payload; nothing read"
            return b""
        data, _, ended = _read_fd(fd, min(limit, MAX_READ) + 1, READ_SECONDS)
        if len(data) > limit:
            size = len(data)
            head = data[:65536]
            del data
            more, complete = _drain_fd(fd, MAX_DRAIN_BYTES - size)
            raise Oversize(size + more, head, complete)
        if not ended:
            self.problem = (
                f"stdin did not end within {READ_SECONDS:g} s (a pipe left open); "
                f"the {len(data)} bytes that had arrived are the payload"
            )
        return data

    def discard(self) -> None:
        fd = _stdin_fd(self.stdin)
        if fd is None:
            _drain(self.stdin)
        elif not os.isatty(fd):
            _drain_fd(fd, MAX_DRAIN_BYTES)


class _BytesSource:
    """A payload already in memory (``size``: its full length, maybe more than ``body``)."""

    problem = None

    def __init__(self, body: bytes, size: int) -> None:
        self.body = body
        self.size = size

    def read(self, limit: int) -> bytes:
        if self.size > limit:
            raise Oversize(self.size, self.body[:65536], True)
        return self.body

    def discard(self) -> None:
        pass


def _guarded(harness: str, received_at: str, source: _StdinSource | _BytesSource) -> int:
    """Record the payload ``source`` holds, after the data dir and capture switches agree."""
    if harness not in HARNESSES:
        harness = UNKNOWN_HARNESS  # never a folder name or a field from an unchecked argument
    home, home_problem = hook_home()
    try:
        if os.environ.get("TRAIL_DISABLE") == "1":
            source.discard()
            return 0
        try:
            # Checked once and held for the whole call: every later open in the data dir
            # (config, key, trace, lost-events record, log) starts from this descriptor.
            pin_home(home)
        except OSError:
            # A data dir another user owns or can write is not used at all: not even its
            # error log is trusted. `trail doctor` reports the data dir's owner and mode.
            source.discard()
            return 0
        if home_problem:
            _log(home, harness, "home", home_problem, once=True)
        if os.path.exists(capture_off_path(home)):
            source.discard()
            return 0
        _record(home, harness, source, received_at)
    except BaseException as exc:
        _log(home, harness, "hook", f"{type(exc).__name__}: {exc}")
    finally:
        unpin_home()
    return 0


def _record(home: str, harness: str, source: _StdinSource | _BytesSource, received_at: str) -> None:
    from trace_ingest.config import DEFAULTS, check_config

    try:
        # The scrub section is validated once, by load_scrubber in _write (check_config's
        # whole-section checks would parse its rules a second time on every call).
        config, problems = check_config(home, sections=False)
    except Exception as exc:
        config, problems = DEFAULTS, [f"{exc}; using the defaults"]
    for problem in problems:
        _log(home, harness, "config", problem, once=True)
    capture = config["capture"]
    limit = int(capture["max_payload_bytes"])
    section = config.get("scrub")  # read once: a stub is scrubbed with the same rules

    def stub(raw: bytes, reason: str, preview: str | None = None, size: int | None = None) -> None:
        _write_stub(home, harness, received_at, raw, reason, preview, size, section)

    try:
        raw = source.read(limit)
    except Oversize as big:
        more = "" if big.drained else "+ (stdin not drained to its end)"
        stub(
            big.head,
            f"payload of {big.size}{more} bytes exceeds max_payload_bytes={limit}; not parsed",
            size=big.size,
        )
        return
    if source.problem:
        _log(home, harness, "read", source.problem)
    if raw.startswith(_BOM):
        raw = raw[len(_BOM) :]  # some tools write one; JSON forbids it, the payload is fine
    if not raw or raw.isspace():  # (not strip(): that copies a 16 MiB payload)
        _log(home, harness, "read", "empty payload on stdin; nothing recorded")
        return
    too_big = _too_big(raw)
    if too_big:
        preview = raw[: PREVIEW_CHARS + SCRUB_MARGIN].decode("utf-8", "replace")
        stub(raw, f"payload {too_big}; not parsed", preview)
        return
    digest = blake2b(raw, digest_size=16).hexdigest()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        _log(
            home,
            harness,
            "decode",
            f"invalid UTF-8 at byte {exc.start}; undecodable bytes replaced",
        )
        text = raw.decode("utf-8", "replace")
    try:
        payload, nonfinite = fastjson.loads_strict(text)
    except ValueError as exc:
        stub(raw, f"malformed JSON: {exc}", preview=text)
        return
    except RecursionError:
        reason = f"payload nested deeper than {MAX_DEPTH} levels; not parsed"
        stub(raw, reason, preview=text)
        return
    if not isinstance(payload, dict):
        stub(
            raw,
            f"payload is a JSON {type(payload).__name__}, not an object",
            preview=text,
        )
        return
    shape = fastjson.shape_problem(payload, MAX_DEPTH, MAX_ELEMENTS)  # µs for a usual payload
    if shape:
        stub(raw, f"payload {shape}; not recorded", text)
        return
    # The payload's shape names its real sender (a VS Code or Copilot payload sent to
    # `trail hook claude-code`, a Vibe one from a Claude plugin): hooks/sender.py.
    # An unknown harness argument stays "unknown" (docs/security.md): only a name trail knows
    # is corrected.
    claimed = harness
    if harness != UNKNOWN_HARNESS:
        harness = sender(payload, harness)
    events = _normalize(harness, payload, received_at, digest)
    if harness != claimed:
        for ev in events:
            ev.setdefault("extra", {})["registered_as"] = claimed
    if nonfinite:
        # JSON has no NaN or Infinity: they were kept as the strings they were written as.
        for ev in events:
            ev.setdefault("extra", {})["nonfinite_numbers"] = nonfinite
    _write(home, harness, events, capture, received_at, config.get("scrub"))


def _too_big(raw: bytes) -> str | None:
    """Why ``raw`` has too many values to parse in bounded time (None: parse it).

    Up to ``PRESCAN_BYTES`` nothing is counted: the worst such payload parses in about 0.2 s,
    and ``fastjson.shape_problem`` then bounds the walk. Past that, counting ``[``, ``{`` and
    ``,`` in the bytes gives an upper bound (a few ms for 16 MiB). Only when it passes the
    limit are strings blanked out (one C regex pass) for the exact count, so brackets and
    commas inside text never cost a payload its parse.
    """
    if len(raw) <= PRESCAN_BYTES:
        return None
    if raw.count(b"[") + raw.count(b"{") + raw.count(b",") <= MAX_ELEMENTS:
        return None
    import re  # only for payloads with that many brackets or commas

    bare = re.sub(_STRING, b'""', raw)
    containers = bare.count(b"[") + bare.count(b"{")
    if containers + bare.count(b",") <= MAX_ELEMENTS:
        return None
    return f"has more than {MAX_ELEMENTS} elements ({containers} arrays and objects)"


def _normalize(harness: str, payload: dict[str, Any], received_at: str, digest: str) -> list[Event]:
    module_name = ADAPTERS.get(harness)
    if module_name is None:
        # Record rather than drop: a future adapter (or importer) can re-read extra.
        sid = payload.get("session_id") or payload.get("sessionId")
        ev = new_event(
            harness=harness,
            source="hook",
            session_id=str(sid or ""),
            kind="other",
            received_at=received_at,
            id_parts=(received_at, digest, 0),
        )
        ev["extra"] = payload
        return [ev]
    # __import__, not importlib.import_module: importing importlib costs the hook `warnings`.
    adapter: Adapter = __import__(module_name, fromlist=["normalize"])
    return adapter.normalize(payload, received_at, digest)


def _write(
    home: str,
    harness: str,
    events: list[Event],
    capture: dict[str, Any],
    received_at: str,
    scrub_section: Any = None,
) -> None:
    limit = int(capture["max_field_chars"])
    try:
        scrubber = _scrubber(home, harness, scrub_section)
        lines = [to_line(finish(ev, scrubber, limit)) for ev in events]
        key, changed = session_dir_key(scrubber, events[0].get("session_id"))
    except Exception as exc:
        # Fail closed: a stub that says scrubbing failed, never the raw payload.
        _log(home, harness, "scrub", f"{type(exc).__name__}: {exc}")
        lines = [to_line(_scrub_failed_stub(ev, str(type(exc).__name__))) for ev in events]
        key, changed = "_scrub-error", False  # the scrub error itself is logged above
    if changed:
        _log(home, harness, "session-id", f"unsafe or missing session id stored under {key!r}")
    path = trace_path(home, harness, key)
    try:
        append_lines(path, "".join(lines), home)
    except UnsafePath as exc:
        _log(home, harness, "store", f"{exc}; {len(lines)} event(s) not recorded")
        return
    except OSError as exc:
        # A full disk (or quota, or I/O error): count the loss in the pre-allocated record,
        # which needs no new space, then try the log too.
        reason = f"{type(exc).__name__} errno {exc.errno}"
        record_lost(home, reason, now_iso())
        _log(home, harness, "store", f"{reason}: {exc}; {len(lines)} event(s) lost")
        return
    lost = take_lost(home)
    if lost:
        count, first, last, reason = lost
        if count < 0:  # the record itself could not be made: how many is unknown
            message = (
                f"an unknown number of event(s) could not be written ({reason}), the last at {last}"
            )
        else:
            message = f"{count} event(s) could not be written ({reason}) between {first} and {last}"
        _log(home, harness, "lost", message)


# A recorder that outlives one payload (``trail collect``) builds each configured scrubber
# once, not per event (its rule objects and keyword index cost ~0.7 ms); the key is the scrub
# section as read for this payload, so an edited config.json takes effect with the next one.
_SCRUBBERS: dict[tuple[str, str], Scrubber] = {}
_SCRUBBERS_MAX = 8


def _scrubber(home: str, harness: str, section: Any = None) -> Scrubber:
    """The configured scrubber; with an invalid config, the built-in rules (and a log entry).

    A typo in config.json must not stop capture, and must not let secrets through either.
    """
    from trace_ingest.errors import ConfigError
    from trace_ingest.scrub import default_scrubber, load_scrubber

    memo = (home, repr(section))
    found = _SCRUBBERS.get(memo) if section is not None else None
    if found is not None:
        return found
    try:
        # None: the caller has not read config.json (the stub path); let the scrubber read it.
        found = load_scrubber(home) if section is None else load_scrubber(home, section)
    except ConfigError as exc:
        _log(home, harness, "config", f"{exc}; scrubbing with the built-in rules only")
        return default_scrubber(home)
    if section is not None:
        if len(_SCRUBBERS) >= _SCRUBBERS_MAX:
            _SCRUBBERS.clear()
        _SCRUBBERS[memo] = found
    return found


def _scrub_failed_stub(ev: Event, error: str) -> dict[str, Any]:
    """What is left of an event the scrubber could not process: trail's own fields only.

    Nothing that came from the payload survives, not even the session id: the stub goes to
    the ``_scrub-error`` session, and ``trail doctor`` shows the error log entry.
    """
    stub: dict[str, Any] = {
        k: ev.get(k) for k in ("v", "id", "harness", "source", "kind", "ts", "received_at")
    }
    stub["session_id"] = "_scrub-error"
    if ev.get("tool") is not None:
        stub["tool"] = ev.get("tool")  # canonical: trail's vocabulary, not payload text
    stub["extra"] = {"scrub_error": error, "payload": "[SCRUB-ERROR]"}
    return stub


def _write_stub(
    home: str,
    harness: str,
    received_at: str,
    raw: bytes,
    reason: str,
    preview: str | None = None,
    size: int | None = None,
    scrub_section: Any = None,
) -> None:
    """Record an unparseable or oversize payload: what can be salvaged, scrubbed, never raw.
    ``scrub_section``: the config's, when the caller has read config.json (None: read it)."""
    _log(home, harness, "parse", reason)
    import re  # only for payloads that could not be parsed

    head = raw[:65536]
    sid_match = re.search(_SALVAGE_SID, head)
    sid = sid_match.group(1).decode("utf-8", "replace") if sid_match else ""
    name_match = re.search(_SALVAGE_EVENT, head)
    digest = blake2b(raw[:1_000_000], digest_size=16).hexdigest()
    ev = new_event(
        harness=harness,
        source="hook",
        session_id=sid,
        kind="other",
        received_at=received_at,
        id_parts=(received_at, digest, len(raw)),
    )
    ev["hook_event"] = name_match.group(1).decode() if name_match else None
    extra: dict[str, Any] = {"malformed": reason, "bytes": len(raw) if size is None else size}
    if preview is not None:
        # Cut only after scrubbing (finish() does): a cut first could split a secret so that
        # its rule no longer recognises the part that is kept.
        extra["preview"] = preview[: PREVIEW_CHARS + SCRUB_MARGIN]
    ev["extra"] = extra
    _write(home, harness, [ev], {"max_field_chars": PREVIEW_CHARS}, received_at, scrub_section)


def _stdin_fd(stdin: Any) -> int | None:
    """The process's own stdin descriptor, read directly (``_read_fd``); None for a stream a
    caller passed (or a replaced ``sys.stdin``), read by ``_read``, and for a closed stdin."""
    if stdin is not None or sys.stdin is None:
        return None
    try:
        fd: int = sys.stdin.fileno()
    except (AttributeError, OSError, ValueError):
        return None
    return fd


class _Late(Exception):
    """SIGALRM: stdin's time is up (``_read_fd``)."""


def _on_alarm(signum: int, frame: Any) -> None:
    raise _Late()


def _read_fd(fd: int, limit: int, seconds: float, keep: bool = True) -> tuple[bytes, int, bool]:
    """Up to ``limit`` bytes of ``fd`` within ``seconds`` (``keep=False``: counted, not kept;
    the bytes returned are then empty). Returns ``(data, how many were read, reached the
    end)``; ``limit`` bytes read is not the end.

    The time bound is a one-shot ``SIGALRM`` whose handler raises, interrupting a ``read()``
    that waits (PEP 475 retries an interrupted read only when the handler returns): a check
    between reads cannot stop a pipe that is never closed, nor one that trickles a byte now
    and then. ``_signal`` is the builtin every interpreter has loaded at start (``signal``
    would import ``enum``). Off the main thread no alarm can be set: the read is then bounded
    in bytes only, as before.
    """
    chunks: list[bytes] = []
    total = 0
    ended = False
    signals: Any = None
    try:
        signals = __import__("_signal")  # (no type stubs: Any)
        previous = signals.signal(signals.SIGALRM, _on_alarm)
    except (ImportError, AttributeError, ValueError, OSError):
        signals = None
    try:
        try:
            if signals is not None:
                signals.setitimer(signals.ITIMER_REAL, seconds)
            while total < limit:
                chunk = os.read(fd, min(READ_CHUNK, limit - total))
                if not chunk:
                    ended = True
                    break
                if keep:
                    chunks.append(chunk)  # before counting: an alarm between them loses nothing
                total += len(chunk)
            if signals is not None:
                signals.setitimer(signals.ITIMER_REAL, 0)
        except _Late:
            pass  # the timer fired (once: it has no interval), so nothing more can come
    finally:
        if signals is not None:
            signals.setitimer(signals.ITIMER_REAL, 0)
            signals.signal(signals.SIGALRM, previous)
    data = chunks[0] if len(chunks) == 1 else b"".join(chunks)
    return data, total, ended


def _drain_fd(fd: int, budget: int) -> tuple[int, bool]:
    """``_drain`` for the process's own stdin: at most ``budget`` bytes and
    ``MAX_DRAIN_SECONDS``, however slowly they come. Returns ``(bytes drained, reached the
    end)``."""
    if budget <= 0:
        return 0, False
    _, drained, ended = _read_fd(fd, budget, MAX_DRAIN_SECONDS, keep=False)
    return drained, ended


def _read(stdin: Any, limit: int) -> bytes:
    """At most ``limit`` bytes of stdin, in one read (``limit`` is at most 256 MiB: config
    validation bounds it, so the read's buffer is bounded too; one read copies a payload
    once, where chunks would copy it again).

    Past the limit the rest is drained (bounded, see ``_drain``) and Oversize raised.
    """
    if stdin is None and sys.stdin is None:
        return b""  # stdin closed (`<&-`): an empty payload
    stream = stdin if stdin is not None else sys.stdin.buffer
    data: bytes = stream.read(min(limit, MAX_READ) + 1)
    if len(data) <= limit:
        return data
    size = len(data)
    head = data[:65536]
    del data
    more, complete = _drain(stream, MAX_DRAIN_BYTES - size)
    raise Oversize(size + more, head, complete)


def _drain(stdin: Any, budget: int = MAX_DRAIN_BYTES) -> tuple[int, bool]:
    """Read and discard stdin so the harness's pipe never blocks on us, but at most
    ``budget`` bytes and ``MAX_DRAIN_SECONDS`` (stdin may be ``/dev/zero``). Returns
    ``(bytes drained, reached the end)``."""
    if stdin is None and sys.stdin is None:
        return 0, True  # stdin closed: nothing to drain
    stream = stdin if stdin is not None else sys.stdin.buffer
    deadline = time.monotonic() + MAX_DRAIN_SECONDS
    drained = 0
    while drained < budget:
        chunk = stream.read(READ_CHUNK)
        if not chunk:
            return drained, True
        drained += len(chunk)
        if time.monotonic() > deadline:
            break
    return drained, False


def _log(home: str, harness: str, stage: str, message: str, once: bool = False) -> None:
    try:
        from trace_ingest.scrub import default_scrubber

        # Built-in rules only: the log must work even when the user's scrub config is broken.
        message, _ = default_scrubber(home).scrub_text(message)
    except Exception:
        message = "[message withheld: scrubber unavailable]"
    entry: dict[str, object] = {
        "ts": now_iso(),
        "harness": harness,
        "stage": stage,
        "error": message,
    }
    append_error(home, entry, unless_repeated=once)


def main(argv: list[str] | None = None, started_ns: int | None = None) -> int:
    """``trail hook <harness>``: always 0, whatever happens (a harness reads 2 as "block")."""
    started_ns = time.time_ns() if started_ns is None else started_ns
    try:
        args = sys.argv[2:] if argv is None else argv
        harness = args[0] if args else ""
        if harness not in HARNESSES:
            # The argument is untrusted too (a token pasted there must not become a folder
            # name or log text): the payload is recorded under a fixed name, and the log
            # shows the argument scrubbed and cut short.
            home, _ = hook_home()
            shown = repr(harness[:40]) + ("…" if len(harness) > 40 else "")
            expected = ", ".join(HARNESSES)
            message = f"unknown harness {shown}; expected one of {expected}"
            _log(home, UNKNOWN_HARNESS, "args", f"{message}; recorded as {UNKNOWN_HARNESS!r}")
            harness = UNKNOWN_HARNESS
        return run(harness, started_ns=started_ns)
    except BaseException:
        return 0
