"""Event schema v1: the one shape every source is normalized into (see docs/events.md).

Hot-path safe: standard library only. Events are plain dicts (``Event`` is a TypedDict) so the
hook pays for neither dataclasses nor pydantic.
"""

from __future__ import annotations

import time

from trace_ingest import fastjson
from trace_ingest._blake import blake2b

TYPE_CHECKING = False  # not `from typing import`: typing costs the hook ~5 ms
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

SCHEMA_VERSION = 1

KINDS: frozenset[str] = frozenset(
    {
        "session_start",
        "session_end",
        "prompt",
        "tool_call",
        "tool_result",
        "tool_error",
        "agent_stop",
        "subagent_start",
        "subagent_stop",
        "guide_loaded",
        "skill_loaded",
        "compaction",
        "notification",
        "permission",
        "other",
    }
)
CANONICAL_TOOLS: frozenset[str] = frozenset(
    {"read", "edit", "write", "shell", "search", "fetch", "task", "skill", "mcp", "other"}
)

SOURCES: frozenset[str] = frozenset(
    {"hook", "transcript", "events-log", "chronicle", "traces", "audit", "demo"}
)

# Field order is fixed: every serialized line starts with '{"v":1,"id":"' and the mirror uses
# that prefix to recover events that follow a line cut short by a killed writer.
LINE_PREFIX = '{"v":' + str(SCHEMA_VERSION) + ',"id":"'


# The event is a plain dict at run time: ``typing`` costs the hook ~5 ms to import.
if TYPE_CHECKING:
    from typing import TypedDict

    class Event(TypedDict, total=False):
        v: int  # schema version
        id: str  # deterministic: same source facts -> same id
        harness: str  # claude-code | copilot-cli | vibe | vscode
        source: str  # hook | transcript | events-log | chronicle | ...
        session_id: str  # as the harness gave it (untrusted; never a path)
        kind: str  # one of KINDS
        ts: str  # when it happened (ISO 8601 UTC); = received_at when the harness sends none
        received_at: str  # when trail saw it (ISO 8601 UTC, microseconds)
        hook_event: str | None  # the harness's own event name
        tool_name: str | None  # raw tool name
        tool: str | None  # canonical tool name (CANONICAL_TOOLS)
        call_id: str | None  # harness tool-call id, when it gives one
        input: Any  # tool input / arguments
        output: Any  # tool output
        ok: bool | None  # True, False, or None when unknown
        error: str | None
        interrupted: bool | None
        duration_ms: float | None
        agent_id: str | None  # subagent id, when the event fired inside (or about) a subagent
        agent_type: str | None
        cwd: str | None
        path: str | None  # file the tool touched (read/edit/write), or the guide's file
        text: str | None  # prompt text, notification message, final message, ...
        skill: str | None
        # fidelity fields (docs/events.md "Fields added for fidelity")
        status: str | None  # ok | failed | interrupted | refused | cancelled | asked
        prompt_id: str | None  # the harness's turn key
        parent_call_id: str | None  # the Task/Agent call that launched the subagent
        internal: str | None  # harness-internal agent: warmup, compaction, ...
        uuid: str | None  # transcript line uuid
        parent_uuid: str | None  # transcript line parentUuid
        seq: int | None  # 1-based line number in the source file
        extra: dict[str, Any]  # every payload field the schema does not name, scrubbed
        redactions: dict[str, int]  # rule -> count, for this event
        truncated: dict[str, int]  # field path -> characters cut
else:
    Event = dict


def now_iso(ns: int | None = None) -> str:
    """UTC ISO 8601 with microseconds and a ``Z`` suffix."""
    ns = time.time_ns() if ns is None else ns
    secs, rem = divmod(ns, 1_000_000_000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(secs)) + f".{rem // 1000:06d}Z"


def event_id(*parts: object) -> str:
    """Deterministic id from the facts that identify an event within its source."""
    return blake2b(_id_text(parts), digest_size=16).hexdigest()


def _id_text(parts: tuple[object, ...]) -> bytes:
    """What ``event_id`` hashes: each part's JSON text followed by a unit separator."""
    texts: list[str] = []
    for part in parts:
        kind = type(part)
        if kind is str:  # the usual parts, without the encoder's set-up for each
            texts.append(fastjson.dumps_str(part))  # type: ignore[arg-type]
        elif kind is int:
            texts.append(int.__repr__(part))
        elif kind is tuple and all(type(x) is str or type(x) is int for x in part):  # type: ignore[attr-defined]
            # an importer's (what, record id) pair: the encoder's compact array, without it
            texts.append(
                "["
                + ",".join(
                    fastjson.dumps_str(x) if type(x) is str else int.__repr__(x)
                    for x in part  # type: ignore[attr-defined]
                )
                + "]"
            )
        else:
            texts.append(fastjson.dumps(part, default=str, sort_keys=True))
    texts.append("")
    return "\x1f".join(texts).encode("utf-8", "surrogatepass")


# new_event's hash state after (harness, source, session id), which an import repeats for
# every event of a session: hashing is incremental, so the state after those three parts,
# copied and fed the rest, gives the id event_id gives (one UTF-8 text is the concatenation
# of its parts' texts). ~0.8 us of ~2.2 saved per event.
_HEADS: dict[tuple[str, str, str], Any] = {}


def _head(harness: str, source: str, session_id: str) -> Any:
    key = (harness, source, session_id)
    state = _HEADS.get(key)
    if state is None:
        if len(_HEADS) > 4096:
            _HEADS.clear()
        state = _HEADS[key] = blake2b(_id_text(key), digest_size=16)
    return state


def new_event(
    *,
    harness: str,
    source: str,
    session_id: str,
    kind: str,
    received_at: str,
    ts: str | None = None,
    id_parts: tuple[object, ...] = (),
) -> Event:
    """Start an event with the required fields in canonical order.

    ``id_parts`` are the source facts that make this event unique (for a hook: the receipt time
    and the payload digest; for an importer: the file's own record id). The id is derived from
    them, so re-importing the same record gives the same id.
    """
    if type(harness) is type(source) is type(session_id) is str:
        state = _head(harness, source, session_id).copy()
        state.update(_id_text((kind, *id_parts)))
        eid = state.hexdigest()
    else:
        eid = event_id(harness, source, session_id, kind, *id_parts)
    return {
        "v": SCHEMA_VERSION,
        "id": eid,
        "harness": harness,
        "source": source,
        "session_id": session_id,
        "kind": kind if kind in KINDS else "other",
        "ts": ts or received_at,
        "received_at": received_at,
    }


def to_line(event: Mapping[str, object]) -> str:
    """Serialize one event as one JSONL line (with the trailing newline), strict JSON always.

    A number JSON cannot hold (``NaN``, ``Infinity``, an integer past Python's 4,300-digit
    conversion limit) from a source that was not parsed strictly is written as text, so sync
    never quarantines the line. The hook parses strictly, so it never takes that path.
    """
    try:
        return fastjson.dumps(event, default=str, allow_nan=False) + "\n"
    except ValueError:
        return fastjson.dumps(fastjson.strict_numbers(event), default=str) + "\n"


def validate(event: dict[str, Any]) -> list[str]:
    """Problems with an event's shape (empty list = valid schema v1)."""
    problems = []
    for name in ("id", "harness", "source", "session_id", "kind", "ts", "received_at"):
        if not isinstance(event.get(name), str) or not event.get(name):
            problems.append(f"missing or empty {name}")
    if event.get("v") != SCHEMA_VERSION:
        problems.append(f"schema version {event.get('v')!r} is not {SCHEMA_VERSION}")
    if event.get("kind") not in KINDS:
        problems.append(f"unknown kind {event.get('kind')!r}")
    if event.get("tool") is not None and event.get("tool") not in CANONICAL_TOOLS:
        problems.append(f"unknown canonical tool {event.get('tool')!r}")
    if event.get("ok") not in (True, False, None):
        problems.append("ok must be true, false or null")
    if "extra" in event and not isinstance(event["extra"], dict):
        problems.append("extra must be an object")
    return problems
