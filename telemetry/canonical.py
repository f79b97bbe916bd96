"""One session, one event per real action, in the harness's own order (docs/reconciliation.md).

The store keeps every event every source wrote (hook payloads, transcript lines, …), in the
order they arrived. Neither is the session: async hooks start late and out of order
(real-harnesses.md §3.3: a PostToolUse can be stamped before its own PreToolUse, after the next
assistant message, a final Stop can be lost), and a session both hooked and imported holds each
action twice. ``canonical`` turns the stored events into the session every view reads:

1. **Merge.** Events that describe the same action are one canonical event. Identity comes from
   the harness's own ids: a tool call and its result by ``call_id``, a subagent by ``agent_id``,
   a turn's stop by ``prompt_id``, a task notification by the call it reports on; prompts,
   guides, compactions and session bounds by their order within each source. Field values come
   from the most truthful source that has them (the transcript over the hooks: "hooks for
   liveness, the transcript for truth"); every source event stays as ``provenance``, and every
   field the sources disagree on is listed in ``disagreements`` (L0's integrity signal).
2. **Order.** Each action gets a time: the transcript's own timestamp when a transcript saw it,
   else the hook's stamp (taken when the hook process started; a call is placed no later than
   its result's stamp minus its duration). Then the ids constrain it: a result never precedes
   its call, a prompt precedes its turn, a turn's stop follows the turn, a subagent's start and
   stop bracket its events, a lone session start and end bracket the session. Ties break on a
   fixed phase rank, the source line number and the event id, never on arrival, so a session
   whose events arrived shuffled comes out exactly as the same session in order.

Pure functions over plain dicts: no database, no files; idempotent on its own output.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from telemetry import copilot_pairing
from telemetry.lifecycle import to_epoch

RESULT_KINDS = frozenset({"tool_result", "tool_error"})
# Which source's field values win when several saw one action: the harness's own record first.
TRUTH = ("transcript", "events-log", "chronicle", "traces", "audit", "hook", "demo")
# Rank within one instant: a turn opens, calls run, results return, the turn closes.
PHASE = {
    "session_start": 0,
    "guide_loaded": 1,
    "prompt": 2,
    "subagent_start": 3,
    "tool_call": 4,
    "skill_loaded": 5,
    "permission": 6,
    "tool_result": 7,
    "tool_error": 7,
    "notification": 8,
    "compaction": 8,
    "other": 8,
    "subagent_stop": 9,
    "agent_stop": 10,
    "session_end": 11,
}
# Fields a canonical event takes from the first source (in TRUTH order) that has a value.
_MERGED_FIELDS = (
    "hook_event",
    "tool_name",
    "tool",
    "call_id",
    "input",
    "output",
    "ok",
    "status",
    "error",
    "interrupted",
    "duration_ms",
    "agent_id",
    "agent_type",
    "parent_call_id",
    "prompt_id",
    "internal",
    "cwd",
    "path",
    "text",
    "skill",
    "uuid",
    "parent_uuid",
    "seq",
)
# Facts in ``extra`` a canonical event takes from another source when the winning one lacks
# them: Vibe 3.0.1's store keeps an over-long result only as an excerpt (the exit code is in a
# side file) while the hook's payload had the whole output (docs/testing.md, "Vibe").
_MERGED_FACTS = ("exit_code",)
# Fields whose values, when two sources both give one, must agree (else: a disagreement).
_COMPARED = ("ok", "status", "tool_name", "agent_id")
_EPS = 1e-4  # 0.1 ms: well above float resolution at epoch magnitudes


@dataclass
class Disagreement:
    """Two sources describe one action differently."""

    event_id: str  # the canonical event
    kind: str
    call_id: str | None
    field: str
    values: dict[str, Any]  # source -> value

    def as_dict(self) -> dict[str, Any]:
        return {
            "event_id": self.event_id,
            "kind": self.kind,
            "call_id": self.call_id,
            "field": self.field,
            "values": self.values,
        }


@dataclass
class Canonical:
    """A session as every view reads it."""

    events: list[dict[str, Any]]
    disagreements: list[Disagreement] = field(default_factory=list)
    merged: int = 0  # source events folded into another source's copy of the same action

    def visible(self) -> list[dict[str, Any]]:
        """The events a timeline shows: everything but lines with no agent activity."""
        return [e for e in self.events if not is_quiet(e)]

    @property
    def hidden(self) -> int:
        return sum(1 for e in self.events if is_quiet(e))


def is_quiet(ev: dict[str, Any]) -> bool:
    """A recorded line that holds no agent activity (bookkeeping, attachments, UI ticks).

    Kept in the store and in ``Canonical.events``; timelines do not show it as an empty row.
    A malformed payload is never quiet: it is an integrity fact.
    """
    if ev.get("kind") != "other":
        return False
    extra = ev.get("extra")
    if isinstance(extra, dict) and (extra.get("malformed") or extra.get("scrub_error")):
        return False
    return not (ev.get("text") or ev.get("tool_name") or ev.get("error"))


def canonical(events: Iterable[dict[str, Any]]) -> Canonical:
    """Merge and order one session's stored events (see the module docstring)."""
    stored = list(events)
    if copilot_pairing.needs_pairing(stored):
        # Copilot CLI hooks carry no call ids: pair them first (telemetry.copilot_pairing).
        stored = copilot_pairing.pair(stored)
    groups = _group(_link_permission_requests(stored))
    out = Canonical(events=[])
    merged = [_merge(g, out) for g in groups]
    _mark_compaction_attempts(merged, groups)
    _carry_results(merged)
    out.events = _order(merged, groups)
    return out


def _epoch(stamp: Any) -> float | None:
    return _parse_stamp(stamp) if isinstance(stamp, str) else None


# Timestamps repeat across the sort keys and the ordering pass, and parsing them was most of
# the cost of a canonical session.
@lru_cache(maxsize=1 << 16)
def _parse_stamp(stamp: str) -> float | None:
    return to_epoch(stamp)


# --- 1. merge ----------------------------------------------------------------------------


def _link_permission_requests(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Give a permission event that names no call the call it is about, where that is certain.

    Claude Code 2.1.328's PermissionRequest payload carries the tool's name and input but no
    ``tool_use_id`` (docs/testing.md, ``permission_refusal``). It fires right after the call's
    PreToolUse, which does carry the id. The request belongs to the call of the same lane, tool
    and input; when exactly one call id matches, it is that call's. With several (the same
    command run twice) the one nearest before the request is taken. Events are copied, never
    changed in place.
    """
    if not any(
        e.get("kind") == "permission" and not e.get("call_id") and e.get("tool_name")
        for e in events
    ):
        return events  # nothing to link (most sessions): skip keying every call's input
    calls: dict[tuple[str, str, str], list[tuple[float, str]]] = {}
    for ev in events:
        cid = ev.get("call_id")
        if ev.get("kind") == "tool_call" and cid and ev.get("tool_name"):
            key = (str(ev.get("agent_id") or ""), str(ev["tool_name"]), _input_key(ev.get("input")))
            when = _epoch(ev.get("ts")) or 0.0
            calls.setdefault(key, []).append((when, str(cid)))
    if not calls:
        return events
    out = []
    for ev in events:
        if ev.get("kind") == "permission" and not ev.get("call_id") and ev.get("tool_name"):
            key = (str(ev.get("agent_id") or ""), str(ev["tool_name"]), _input_key(ev.get("input")))
            found = calls.get(key) or []
            ids = {cid for _, cid in found}
            cid = None
            if len(ids) == 1:
                cid = next(iter(ids))
            elif ids:
                when = _epoch(ev.get("ts")) or 0.0
                before = [(t, c) for t, c in found if t <= when]
                cid = max(before)[1] if before else None
            if cid is not None:
                ev = {**ev, "call_id": cid}
        out.append(ev)
    return out


def _input_key(value: Any) -> str:
    try:
        return json.dumps(value, sort_keys=True, default=str)
    except (TypeError, ValueError):
        return repr(value)


def sources_of(ev: Mapping[str, Any]) -> list[str]:
    """The sources that recorded an event: a canonical event's ``sources``, else the stored
    event's own ``source``."""
    given = ev.get("sources")
    if isinstance(given, list) and given:
        return [str(s) for s in given]
    return [str(ev.get("source") or "")]


def _truth_rank(ev: dict[str, Any]) -> int:
    src = str(ev.get("source") or "")
    return TRUTH.index(src) if src in TRUTH else len(TRUTH)


def _group(events: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Events grouped by the action they describe, in first-seen order of the groups."""
    stop_by_prompt = _all_have(events, "agent_stop", "prompt_id")
    occurrences: Counter[tuple[Any, ...]] = Counter()
    open_compaction: dict[tuple[str, str], tuple[Any, ...]] = {}
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    # A stable walk: by source, then by the source's own position, so occurrence counts do not
    # depend on how the stored lines interleave.
    for ev in sorted(events, key=_source_position):
        key = _identity(ev, occurrences, open_compaction, stop_by_prompt)
        groups.setdefault(key, []).append(ev)
    return list(groups.values())


def _source_position(ev: dict[str, Any]) -> tuple[Any, ...]:
    seq = ev.get("seq")
    return (
        str(ev.get("source") or ""),
        str((ev.get("extra") or {}).get("file") or "") if isinstance(ev.get("extra"), dict) else "",
        _epoch(ev.get("ts")) or 0.0,
        seq if isinstance(seq, int) else 0,
        PHASE.get(str(ev.get("kind")), 8),
        str(ev.get("id") or ""),
    )


def _all_have(events: Sequence[dict[str, Any]], kind: str, name: str) -> bool:
    return all(_field(e, name) for e in events if e.get("kind") == kind)


def _field(ev: dict[str, Any], name: str) -> Any:
    """A named field, or the same name under ``extra`` (events written before it was named)."""
    value = ev.get(name)
    if value is None and isinstance(ev.get("extra"), dict):
        value = ev["extra"].get(name)
    return value


def _identity(
    ev: dict[str, Any],
    occurrences: Counter[tuple[Any, ...]],
    open_compaction: dict[tuple[str, str], tuple[Any, ...]],
    stop_by_prompt: bool,
) -> tuple[Any, ...]:
    kind = str(ev.get("kind") or "")
    cid = ev.get("call_id")
    agent = str(ev.get("agent_id") or "")
    source = str(ev.get("source") or "")

    def nth(*what: Any) -> tuple[Any, ...]:
        occurrences[(source, *what)] += 1
        return (*what, occurrences[(source, *what)])

    if cid and kind == "tool_call":
        return ("call", cid)
    if cid and kind in RESULT_KINDS:
        return ("result", cid)
    if cid and kind == "permission":
        return ("permission", cid, ev.get("status") or "")
    if cid and kind == "skill_loaded":
        return ("skill", cid)
    if agent and kind in ("subagent_start", "subagent_stop"):
        return (kind, agent)
    if kind == "notification" and ev.get("parent_call_id"):
        return ("notification", ev["parent_call_id"])
    if kind == "notification" and ev.get("harness") == "copilot-cli":
        # Copilot's notification hook and its log's system.notification carry the same text.
        return nth("notification", agent, str(ev.get("text") or "").strip())
    if kind == "agent_stop":
        if stop_by_prompt:
            return ("stop", agent, _field(ev, "prompt_id"))
        return nth("stop", agent)
    if kind == "prompt":
        return nth("prompt", agent, str(ev.get("text") or "").strip())
    if kind == "guide_loaded" and ev.get("path"):
        return nth("guide", agent, ev["path"])
    if kind == "compaction":
        lane = (source, agent)
        # Claude's PreCompact and PostCompact are one compaction seen twice.
        if ev.get("hook_event") == "PostCompact" and lane in open_compaction:
            return open_compaction.pop(lane)
        key = nth("compaction", agent)
        if ev.get("hook_event") == "PreCompact":
            open_compaction[lane] = key
        return key
    if kind in ("session_start", "session_end"):
        return nth(kind)
    return ("event", str(ev.get("id") or id(ev)))


def _provenance_entry(ev: dict[str, Any]) -> dict[str, Any]:
    entry = {"source": ev.get("source"), "id": ev.get("id"), "hook_event": ev.get("hook_event")}
    # What each source said of the outcome, so a grader reading only canonical events still
    # sees where the sources disagree.
    for name in ("kind", "ok", "status"):
        if ev.get(name) is not None:
            entry[name] = ev[name]
    return entry


def _merge(group: list[dict[str, Any]], out: Canonical) -> dict[str, Any]:
    if len(group) == 1:
        # One source saw it (most events of a single-source session): nothing to merge.
        base = dict(group[0])
        if "provenance" not in base:
            base["sources"] = sources_of(base)
            base["provenance"] = [_provenance_entry(group[0])]
        return base
    ranked = sorted(group, key=lambda e: (_truth_rank(e), _source_position(e)))
    base = dict(ranked[0])
    for name in _MERGED_FIELDS:
        if base.get(name) is None:
            value = next((e[name] for e in ranked if e.get(name) is not None), None)
            if value is not None:
                base[name] = value
    given = base.get("extra")
    extra: dict[str, Any] = given if isinstance(given, dict) else {}
    for fact in _MERGED_FACTS:
        if extra.get(fact) is None:
            found = [e["extra"].get(fact) for e in ranked if isinstance(e.get("extra"), dict)]
            value = next((v for v in found if v is not None), None)
            if value is not None:
                base["extra"] = extra = {**extra, fact: value}
    hook = next((e for e in group if e.get("source") == "hook"), None)
    # The id is the first source's to see the action: stable once a later source adds to it.
    first = hook or ranked[0]
    base["id"] = first.get("id")
    stamps = [e.get("received_at") for e in group if e.get("received_at")]
    if stamps:
        base["received_at"] = min(stamps, key=lambda s: _epoch(s) or 0.0)
    sources: list[str] = []
    provenance: list[dict[str, Any]] = []
    for ev in sorted(group, key=_source_position):
        for src in sources_of(ev):
            if src not in sources:
                sources.append(src)
        given = ev.get("provenance")
        if isinstance(given, list):
            provenance.extend(p for p in given if isinstance(p, dict))
        else:
            provenance.append(_provenance_entry(ev))
    base["sources"] = sorted(sources, key=lambda s: TRUTH.index(s) if s in TRUTH else len(TRUTH))
    base["provenance"] = provenance
    redactions: Counter[str] = Counter()
    for ev in group:
        for rule, n in (ev.get("redactions") or {}).items():
            redactions[rule] = max(redactions[rule], int(n))
    if redactions:
        base["redactions"] = dict(redactions)
    out.merged += len(group) - 1
    _compare(base, group, out)
    return base


def _compare(base: dict[str, Any], group: list[dict[str, Any]], out: Canonical) -> None:
    by_source: dict[str, dict[str, Any]] = {}
    for ev in group:
        by_source.setdefault(str(ev.get("source") or ""), ev)
    if len(by_source) < 2:
        return
    for name in _COMPARED:
        values = {s: e.get(name) for s, e in by_source.items() if e.get(name) is not None}
        if len(set(map(repr, values.values()))) > 1:
            out.disagreements.append(
                Disagreement(
                    str(base.get("id") or ""),
                    str(base.get("kind") or ""),
                    base.get("call_id"),
                    name,
                    values,
                )
            )


def _mark_compaction_attempts(
    merged: list[dict[str, Any]], groups: list[list[dict[str, Any]]]
) -> None:
    """A PreCompact that no PostCompact and no transcript boundary follows was an attempt.

    Claude Code 2.1.328 fires PreCompact for every auto-compaction it starts, also for those
    that fail ("too_few_groups", an empty summary), and PostCompact only for one that finished
    (docs/testing.md). Where the session shows that it can tell (a PostCompact anywhere, or a
    transcript), an unfinished one keeps its event, with ``status: "attempted"``, and is not
    counted as a compaction.
    """
    flat = [e for g in groups for e in g]
    can_tell = any(e.get("hook_event") == "PostCompact" for e in flat) or any(
        e.get("source") == "transcript" for e in flat
    )
    if not can_tell:
        return
    for ev, group in zip(merged, groups, strict=True):
        if ev.get("kind") != "compaction":
            continue
        if all(e.get("source") == "hook" and e.get("hook_event") == "PreCompact" for e in group):
            ev["status"] = "attempted"


def _carry_results(events: list[dict[str, Any]]) -> None:
    """A call carries what became of it: its result's ``ok`` and ``status`` (or a refusal's)."""
    outcome: dict[str, dict[str, Any]] = {}
    for ev in events:
        cid = ev.get("call_id")
        if not cid:
            continue
        kind = ev.get("kind")
        refusal = kind == "permission" and ev.get("status") == "refused"
        # A real result outranks a refusal record for the same call.
        if kind in RESULT_KINDS or (refusal and cid not in outcome):
            outcome[str(cid)] = ev
    for ev in events:
        if ev.get("kind") != "tool_call" or not ev.get("call_id"):
            continue
        result = outcome.get(str(ev["call_id"]))
        if result is None:
            continue
        ev["ok"] = result.get("ok")
        if result.get("status") is not None:
            ev["status"] = result.get("status")
        elif result.get("kind") == "tool_error":
            ev["status"] = "failed"


# --- 2. order ----------------------------------------------------------------------------


def _when(ev: dict[str, Any], group: list[dict[str, Any]]) -> float:
    """When the action happened: the harness's own time if any source recorded one, else the
    earliest hook stamp; a call no later than its result's stamp minus the tool's duration."""
    truthful = [e for e in group if e.get("source") != "hook" and _epoch(e.get("ts"))]
    if truthful:
        best = min(truthful, key=_truth_rank)
        return _epoch(best.get("ts")) or 0.0
    stamps = [t for e in group if (t := _epoch(e.get("ts") or e.get("received_at")))]
    return min(stamps) if stamps else _epoch(ev.get("ts")) or 0.0


def _order(
    merged: list[dict[str, Any]], groups: list[list[dict[str, Any]]]
) -> list[dict[str, Any]]:
    when = [_when(ev, g) for ev, g in zip(merged, groups, strict=True)]
    calls: dict[str, int] = {}
    results: dict[str, list[int]] = {}
    for i, ev in enumerate(merged):
        cid = ev.get("call_id")
        if not cid:
            continue
        if ev.get("kind") == "tool_call":
            calls[str(cid)] = i
        else:
            results.setdefault(str(cid), []).append(i)
    # A call started no later than its result's stamp minus how long the tool ran (a hook-only
    # call whose PreToolUse started late, even after the tool had run).
    for cid, i in calls.items():
        if any(e.get("source") != "hook" for e in groups[i]):
            continue
        for j in results.get(cid, ()):
            if merged[j].get("kind") in RESULT_KINDS:
                dur = merged[j].get("duration_ms")
                start = when[j] - (float(dur) / 1000.0 if isinstance(dur, int | float) else 0.0)
                when[i] = min(when[i], start)
    _batch_order(merged, when, calls)
    # Anything about a call (its result, a refusal, a skill load) follows the call.
    for cid, i in calls.items():
        for j in results.get(cid, ()):
            when[j] = max(when[j], when[i])
    _bracket(merged, when)
    # A subagent starts after the call that launched it: move the call earlier when its hook
    # started late (real-harnesses.md §3.3: PreToolUse(Agent) after the child's first line).
    for i, ev in enumerate(merged):
        parent = ev.get("parent_call_id")
        if ev.get("kind") == "subagent_start" and parent and str(parent) in calls:
            c = calls[str(parent)]
            when[c] = min(when[c], when[i] - _EPS)
    order = sorted(range(len(merged)), key=lambda i: _sort_key(merged[i], when[i]))
    return [merged[i] for i in order]


def _batch_order(merged: list[dict[str, Any]], when: list[float], calls: dict[str, int]) -> None:
    """Calls of one parallel batch in the order the model issued them.

    Their PreToolUse hooks start within a few ms of each other, in any order; Claude Code's
    PostToolBatch payload lists the batch's calls in message order (real-harnesses.md §3.2), so
    the batch's calls take their times in that order. A transcript's own times need no help.
    """
    for ev in merged:
        if ev.get("hook_event") != "PostToolBatch":
            continue
        listed = _field(ev, "tool_calls")
        if not isinstance(listed, list):
            continue
        idx = []
        for item in listed:
            cid = item.get("tool_use_id") if isinstance(item, dict) else None
            i = calls.get(str(cid)) if cid else None
            if i is not None and "transcript" not in merged[i].get("sources", ()):
                idx.append(i)
        if len(idx) > 1:
            for i, t in zip(idx, sorted(when[i] for i in idx), strict=True):
                when[i] = t


def _bracket(merged: list[dict[str, Any]], when: list[float]) -> None:
    """Prompts open their turn, stops close it, subagent start/stop bracket the subagent."""
    turn_lo: dict[tuple[str, str], float] = {}
    turn_hi: dict[tuple[str, str], float] = {}
    agent_lo: dict[str, float] = {}
    agent_hi: dict[str, float] = {}
    for ev, t in zip(merged, when, strict=True):
        kind = ev.get("kind")
        agent = str(ev.get("agent_id") or "")
        pid = _field(ev, "prompt_id")
        if pid and kind not in ("prompt", "agent_stop", "notification"):
            lane = (agent, str(pid))
            turn_lo[lane] = min(turn_lo.get(lane, t), t)
            turn_hi[lane] = max(turn_hi.get(lane, t), t)
        # A task notification names the subagent it reports on, but is the parent's turn.
        if agent and kind not in ("subagent_start", "subagent_stop", "notification"):
            agent_lo[agent] = min(agent_lo.get(agent, t), t)
            agent_hi[agent] = max(agent_hi.get(agent, t), t)
    for i, ev in enumerate(merged):
        kind = ev.get("kind")
        agent = str(ev.get("agent_id") or "")
        lane = (agent, str(_field(ev, "prompt_id") or ""))
        if kind == "prompt" and lane in turn_lo:
            when[i] = min(when[i], turn_lo[lane] - _EPS)
        elif kind == "agent_stop" and lane in turn_hi:
            when[i] = max(when[i], turn_hi[lane] + _EPS)
        elif kind == "subagent_start" and agent in agent_lo:
            when[i] = min(when[i], agent_lo[agent] - _EPS)
        elif kind == "subagent_stop" and agent in agent_hi:
            when[i] = max(when[i], agent_hi[agent] + _EPS)
    kinds = Counter(str(ev.get("kind")) for ev in merged)
    if kinds["session_start"] == 1 and when:
        i = next(i for i, ev in enumerate(merged) if ev.get("kind") == "session_start")
        when[i] = min(when[i], min(when) - _EPS)
    if kinds["session_end"] == 1 and when:
        i = next(i for i, ev in enumerate(merged) if ev.get("kind") == "session_end")
        when[i] = max(when[i], max(when) + _EPS)


def _sort_key(ev: dict[str, Any], t: float) -> tuple[Any, ...]:
    seq = ev.get("seq")
    return (
        t,
        PHASE.get(str(ev.get("kind")), 8),
        seq if isinstance(seq, int) else 0,
        str(ev.get("id") or ""),
    )
