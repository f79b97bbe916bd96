"""What every event goes through before it is written: bound, scrub, cut.

Shared by the hook (``hooks/entry.py``) and the importers, so an event means the same thing
whichever way it arrived. Hot-path safe: standard library only, no ``re``.

1. ``bound``: strings are shortened to ``max_field_chars`` plus ``SCRUB_MARGIN``, so a huge
   field costs little to scrub while a secret straddling the cut is still recognised
   (scrubbing.md §3.3: scrub before truncating);
2. the scrubber redacts the whole event (``v`` and ``id`` excepted: they are trail's own);
3. ``cut``: strings longer than the limit are cut, never inside a redaction tag, with the
   marker ``…[trail: truncated, N+ chars cut]``; ``truncated`` maps field paths to chars cut.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not `from typing import`: typing costs the hook ~5 ms
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from trace_ingest.scrub import Scrubber

SCRUB_MARGIN = 4096
TAG_OPEN = "[REDACTED:"
_MAX_TAG = 64
# The schema's own short fields: never bounded or cut, whatever max_field_chars says.
FIXED = frozenset({"v", "id", "harness", "source", "session_id", "kind", "ts", "received_at"})


def bound(value: Any, limit: int) -> Any:
    """Shorten every string in ``value`` to ``limit`` characters (before scrubbing)."""
    if isinstance(value, str):
        return value[:limit] if len(value) > limit else value
    if isinstance(value, dict):
        return {k: bound(v, limit) for k, v in value.items()}
    if isinstance(value, list):
        return [bound(v, limit) for v in value]
    return value


def cut(value: Any, limit: int, path: str, cuts: dict[str, int]) -> Any:
    """Cut scrubbed strings to ``limit`` chars, never inside a redaction tag, with a marker."""
    if isinstance(value, str):
        if len(value) <= limit:
            return value
        end = limit
        start = value.rfind(TAG_OPEN, max(0, end - _MAX_TAG), end)
        if start != -1:  # keep the whole tag, or drop it whole
            close = value.find("]", start)
            end = close + 1 if close != -1 and close - start < _MAX_TAG else start
        removed = len(value) - end
        cuts[path or "."] = cuts.get(path or ".", 0) + removed
        return value[:end] + f"…[trail: truncated, {removed}+ chars cut]"
    if isinstance(value, dict):
        return {k: cut(v, limit, f"{path}.{k}" if path else k, cuts) for k, v in value.items()}
    if isinstance(value, list):
        return [cut(v, limit, f"{path}[{i}]", cuts) for i, v in enumerate(value)]
    return value


def within(value: Any, limit: int) -> bool:
    """Whether every string in ``value`` has at most ``limit`` characters (a walk that builds
    nothing: the usual event needs neither ``bound`` nor ``cut``)."""
    if isinstance(value, str):
        return len(value) <= limit
    if isinstance(value, dict):
        return all(within(v, limit) for v in value.values())
    if isinstance(value, list):
        return all(within(v, limit) for v in value)
    # Numbers and null; anything else (bytes, a tuple, an object the scrubber turns into
    # text) takes the full bound / cut path.
    return value is None or isinstance(value, (bool, int, float))


def finish(event: Mapping[str, Any], scrubber: Scrubber, limit: int) -> dict[str, Any]:
    """Scrub one event and bound its fields; adds ``redactions`` / ``truncated`` when any.

    Raises whatever the scrubber raises: the caller must then write no part of the event.
    """
    body = {k: v for k, v in event.items() if k not in ("v", "id")}
    short = all(k in FIXED or within(v, limit) for k, v in body.items())
    if short:
        bounded = body  # nothing to bound
    else:
        bounded = {k: v if k in FIXED else bound(v, limit + SCRUB_MARGIN) for k, v in body.items()}
    clean, counts = scrubber.scrub_value(bounded)
    return assemble(event, clean, counts, short, limit)


def assemble(
    event: Mapping[str, Any], clean: Any, counts: dict[str, int], short: bool, limit: int
) -> dict[str, Any]:
    """The finished event from the scrubbed body ``clean`` (``finish``'s second half): cut
    to ``limit`` unless ``short`` (every string was within it) and nothing was redacted."""
    if not isinstance(clean, dict):  # pragma: no cover - the scrubber keeps shapes
        raise TypeError("the scrubber changed the event's shape")
    cuts: dict[str, int] = {}
    out: dict[str, Any] = {"v": event["v"], "id": event["id"]}
    if short and not counts:  # unchanged by the scrubber, so still within the limit
        out.update(clean)
    else:  # (a redaction tag can be longer than what it replaces)
        for k, v in clean.items():
            out[k] = v if k in FIXED else cut(v, limit, k, cuts)
    if counts:
        out["redactions"] = dict(counts)
    if cuts:
        out["truncated"] = cuts
    return out


def session_dir_key(
    scrubber: Scrubber, session_id: str | None, with_clean: bool = False
) -> tuple[str, Any]:
    """The folder name for a session: built from the *scrubbed* id, so a secret pasted into a
    session id (or salvaged from a broken payload) never becomes a path on disk or a key in
    the mirror. Returns ``(key, changed)`` like ``paths.session_key``; with ``with_clean``,
    ``(key, the scrubbed id)`` instead (one scan for both)."""
    from trace_ingest.paths import session_key

    if not session_id:
        key, changed = session_key(session_id)
        return (key, session_id) if with_clean else (key, changed)
    clean, _ = scrubber.scrub_text(session_id)
    key, changed = session_key(clean)
    return (key, clean) if with_clean else (key, changed or clean != session_id)
