"""The hook entry point: ``trail hook <harness>`` — the hot path (ARCHITECTURE.md).

Runs inside the agent on every tool call, so it imports only the standard library and the
modules it needs (enforced by tests/hooks/test_entry.py), reads stdin, normalizes,
scrubs, appends with one ``write()``, and exits 0 with nothing on stdout, whatever happens.
Its own failures go to ``$TRAIL_HOME/hook-errors.log``, which ``trail doctor`` reports.
"""

from __future__ import annotations

import importlib
import os
import sys

from trace_ingest import fastjson
from trace_ingest._blake import blake2b
from trace_ingest.capture import SCRUB_MARGIN, finish, session_dir_key
from trace_ingest.events import new_event, now_iso, to_line
from trace_ingest.paths import (
    HARNESSES,
    capture_off_path,
    ensure_home,
    session_key,
    trace_path,
    trail_home,
)
from trace_ingest.store import append_error, append_lines

TYPE_CHECKING = False  # not `from typing import`: typing costs the hook ~5 ms
if TYPE_CHECKING:
    from typing import Any

    from trace_ingest.events import Event
    from trace_ingest.scrub import Scrubber

ADAPTERS: dict[str, str] = {"claude-code": "hooks.claude_code"}
PREVIEW_CHARS = 2000  # of an unparseable payload, kept (scrubbed) for diagnosis

_SALVAGE_SID = rb'"(?:session_id|sessionId)"\s*:\s*"([^"\\]{1,200})"'
_SALVAGE_EVENT = rb'"(?:hook_event_name|hookEventName)"\s*:\s*"([A-Za-z_]{1,64})"'


class Oversize(Exception):
    def __init__(self, size: int, head: bytes) -> None:
        super().__init__(size)
        self.size = size
        self.head = head


def run(harness: str, stdin: Any = None) -> int:
    """Record one hook payload. Always returns 0; never writes to stdout."""
    home = trail_home()
    try:
        if os.environ.get("TRAIL_DISABLE") == "1" or os.path.exists(capture_off_path(home)):
            _drain(stdin)
            return 0
        _record(home, harness, stdin)
    except BaseException as exc:
        _log(home, harness, "hook", f"{type(exc).__name__}: {exc}")
    return 0


def _record(home: str, harness: str, stdin: Any) -> None:
    from trace_ingest.config import DEFAULTS, check_config

    try:
        config, problems = check_config(home)
    except Exception as exc:
        config, problems = DEFAULTS, [f"{exc}; using the defaults"]
    for problem in problems:
        _log(home, harness, "config", problem, once=True)
    capture = config["capture"]
    received_at = now_iso()
    try:
        raw = _read(stdin, int(capture["max_payload_bytes"]))
    except Oversize as big:
        _write_stub(
            home,
            harness,
            received_at,
            big.head,
            f"payload of {big.size} bytes exceeds "
            f"max_payload_bytes={capture['max_payload_bytes']}; not parsed",
            size=big.size,
        )
        return
    if not raw.strip():
        _log(home, harness, "read", "empty payload on stdin; nothing recorded")
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
        payload = fastjson.loads(text)
    except ValueError as exc:
        _write_stub(home, harness, received_at, raw, f"malformed JSON: {exc}", preview=text)
        return
    if not isinstance(payload, dict):
        _write_stub(
            home,
            harness,
            received_at,
            raw,
            f"payload is a JSON {type(payload).__name__}, not an object",
            preview=text,
        )
        return
    events = _normalize(harness, payload, received_at, digest)
    _write(home, harness, events, capture, received_at, config.get("scrub"))


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
    adapter = importlib.import_module(module_name)
    result: list[Event] = adapter.normalize(payload, received_at, digest)
    return result


def _write(
    home: str,
    harness: str,
    events: list[Event],
    capture: dict[str, Any],
    received_at: str,
    scrub_section: Any = None,
) -> None:
    limit = int(capture["max_field_chars"])
    ensure_home(home)  # before scrubbing, so the scrubber can keep its regex cache there
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
    append_lines(trace_path(home, _safe_harness(harness), key), "".join(lines))


def _scrubber(home: str, harness: str, section: Any = None) -> Scrubber:
    """The configured scrubber; with an invalid config, the built-in rules (and a log entry).

    A typo in config.json must not stop capture, and must not let secrets through either.
    """
    from trace_ingest.errors import ConfigError
    from trace_ingest.scrub import default_scrubber, load_scrubber

    try:
        # None: the caller has not read config.json (the stub path); let the scrubber read it.
        return load_scrubber(home) if section is None else load_scrubber(home, section)
    except ConfigError as exc:
        _log(home, harness, "config", f"{exc}; scrubbing with the built-in rules only")
        return default_scrubber(home)


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
) -> None:
    """Record an unparseable or oversize payload: what can be salvaged, scrubbed, never raw."""
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
    _write(home, harness, [ev], {"max_field_chars": PREVIEW_CHARS}, received_at)


def _read(stdin: Any, limit: int) -> bytes:
    stream = stdin if stdin is not None else sys.stdin.buffer
    data: bytes = stream.read(limit + 1)
    if len(data) <= limit:
        return data
    size = len(data)
    head = data[:65536]
    while True:  # drain so the harness's pipe never blocks on us
        chunk = stream.read(1 << 20)
        if not chunk:
            break
        size += len(chunk)
    raise Oversize(size, head)


def _drain(stdin: Any) -> None:
    stream = stdin if stdin is not None else sys.stdin.buffer
    while stream.read(1 << 20):
        pass


def _safe_harness(harness: str) -> str:
    return harness if harness in HARNESSES else session_key(harness)[0]


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


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[2:] if argv is None else argv
    harness = args[0] if args else ""
    if harness not in HARNESSES:
        home = trail_home()
        _log(home, harness, "args", f"unknown harness {harness!r}; expected one of {HARNESSES}")
        harness = _safe_harness(harness) if harness else "unknown"
    return run(harness)
