"""What a session actually contains: the subjects the checks judge (docs/grading.md).

Coverage counts what the session contains, not what its sources could provide. This module
answers the three questions every level asks before it judges anything:

- **What became of each step** (``step_status``): ``ok`` (ran, succeeded), ``failed`` (ran,
  failed), ``interrupted`` (the user stopped it), ``refused`` (a permission policy or the user
  denied it: it never ran), ``cancelled`` (the harness cancelled it, e.g. because a sibling call
  of the same batch failed: it never ran), or ``unknown`` (no result). Only ``failed`` is a
  failure; only ``ok`` and ``failed`` are known outcomes.
- **Whose step it is** (``is_internal``): events with ``internal`` set (warmup, compaction, ...)
  belong to harness-internal agents, not to the user's agents. They are counted in L0 as
  internal and are never graded as agent behaviour.
- **Whether there is anything to grade** (``nothing_to_grade``): a session whose user agents
  made no action (no tool call other than skill loads) gets seed 002's intentional empty
  grade, ``nothing-to-grade``: no score, no verdict of pass or fail.

The status comes from the event's own ``status`` field (docs/events.md, "Fields added for
fidelity"); for events recorded before that field existed it is derived from ``kind``, ``ok``
and ``interrupted``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from scorers.steps import RESULT_KINDS, Step, canonical_of

STEP_STATUSES = ("ok", "failed", "interrupted", "refused", "cancelled", "unknown")
EVENT_STATUSES = frozenset({"ok", "failed", "interrupted", "refused", "cancelled", "asked"})
KNOWN_OUTCOME = frozenset({"ok", "failed"})  # ran, and we know how it went
SKILL_NAMES = frozenset({"skill"})  # canonical (steps.canonical_of)
NOTHING = "nothing-to-grade"


def event_status(ev: Mapping[str, Any]) -> str | None:
    """What became of the call an event reports on; None for events that report on none."""
    given = ev.get("status")
    if isinstance(given, str) and given in EVENT_STATUSES:
        return given
    kind = ev.get("kind")
    if kind == "permission":
        return "refused" if ev.get("ok") is False else "asked"
    if kind not in RESULT_KINDS:
        return None
    if ev.get("interrupted") is True:
        return "interrupted"
    if kind == "tool_error" or ev.get("ok") is False:
        return "failed"
    return "ok" if ev.get("ok") is True else "unknown"


@dataclass(frozen=True)
class Contents:
    """What a recorded session holds beyond its steps (empty for trace-file inputs, whose
    steps say everything: ``ok`` true/false/null, no internal agents)."""

    status: Mapping[str, str] = field(default_factory=dict)  # step event id -> status
    internal_steps: frozenset[str] = frozenset()  # step event ids of internal agents
    internal_agents: Mapping[str, str] = field(default_factory=dict)  # agent id -> what it is
    internal_events: int = 0
    internal_kinds: Mapping[str, int] = field(default_factory=dict)  # warmup -> events
    subagents: frozenset[str] = frozenset()  # the user's subagents (agent ids)
    skill_loads: int = 0
    events: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "events": self.events,
            "internal_events": self.internal_events,
            "internal_kinds": dict(self.internal_kinds),
            "internal_agents": dict(self.internal_agents),
            "internal_steps": len(self.internal_steps),
            "subagents": len(self.subagents),
            "skill_loads": self.skill_loads,
        }


def _internal(ev: Mapping[str, Any]) -> str | None:
    value = ev.get("internal")
    if value in (None, False, ""):
        return None
    return str(value) if not isinstance(value, bool) else "internal"


def session_contents(events: Sequence[Mapping[str, Any]], steps: Iterable[Step]) -> Contents:
    """Statuses, internal agents and subjects of a session, from its events and steps."""
    by_id = {str(e.get("id")): e for e in events if e.get("id")}
    internal_agents: dict[str, str] = {}
    for e in events:
        what = _internal(e)
        if what is not None and e.get("agent_id"):
            internal_agents.setdefault(str(e["agent_id"]), what)
    kinds: Counter[str] = Counter()
    internal_events = 0
    for e in events:  # an internal agent's events are internal, flagged one by one or not
        what = _internal(e) or internal_agents.get(str(e.get("agent_id") or ""))
        if what is not None:
            internal_events += 1
            kinds[what] += 1
    status: dict[str, str] = {}
    internal_steps: set[str] = set()
    for step in steps:
        call = by_id.get(step.event_id) or {}
        result = by_id.get(step.result_id or "") or {}
        found = event_status(result) if result else None
        if found is None and call.get("kind") == "tool_call":
            given = call.get("status")  # a canonical call carries its result's status
            found = given if isinstance(given, str) and given in EVENT_STATUSES else None
        if found is not None and found != "asked":
            status[step.event_id] = found
        if _internal(call) or _internal(result) or (step.agent in internal_agents):
            internal_steps.add(step.event_id)
    subagents = frozenset(
        str(e["agent_id"])
        for e in events
        if e.get("agent_id") and str(e["agent_id"]) not in internal_agents and not _internal(e)
    )
    skills = sum(1 for e in events if e.get("kind") == "skill_loaded" and not _internal(e))
    return Contents(
        status=status,
        internal_steps=frozenset(internal_steps),
        internal_agents=internal_agents,
        internal_events=internal_events,
        internal_kinds=dict(kinds.most_common()),
        subagents=subagents,
        skill_loads=skills,
        events=len(events),
    )


def step_status(step: Step, contents: Contents | None = None) -> str:
    """``ok``, ``failed``, ``interrupted``, ``refused``, ``cancelled`` or ``unknown``."""
    own = step.status  # set by the pairing when the event says
    if own in STEP_STATUSES and own != "unknown":
        return own
    if contents is not None:
        found = contents.status.get(step.event_id)
        if found is not None:
            return found
    if step.ok is True:
        return "ok"
    if step.ok is False:
        return "failed"
    return "unknown"


def is_internal(step: Step, contents: Contents | None) -> bool:
    """A step made by a harness-internal agent (warmup, compaction, ...)."""
    if contents is None:
        return False
    return step.event_id in contents.internal_steps or (
        bool(step.agent) and step.agent in contents.internal_agents
    )


def is_action(step: Step) -> bool:
    """A step the agent took: any tool call but a skill load (seed 002: a session whose only
    actions were skill loads has nothing to judge)."""
    return canonical_of(step) not in SKILL_NAMES


def agent_steps(steps: Iterable[Step], contents: Contents | None) -> list[Step]:
    """The user's agents' steps (harness-internal agents left out)."""
    if contents is None or not (contents.internal_steps or contents.internal_agents):
        return list(steps)  # no internal agent: every step (a trace file, most sessions)
    return [s for s in steps if not is_internal(s, contents)]


def nothing_to_grade(steps: Sequence[Step], contents: Contents | None) -> str | None:
    """Why there is nothing to grade (the session's user agents took no action), or None."""
    own = agent_steps(steps, contents)
    if any(is_action(s) for s in own):
        return None
    internal = len(steps) - len(own)
    if own:
        return f"nothing to grade: the agent's only actions were {len(own)} skill load(s)"
    if internal:
        kinds = ", ".join(sorted(contents.internal_kinds)) if contents else ""
        return (
            f"nothing to grade: only harness-internal agents acted ({internal} step(s)"
            + (f", {kinds}" if kinds else "")
            + "); the user's agents took no action"
        )
    if contents is not None and contents.events:
        return (
            f"nothing to grade: the session's {contents.events} event(s) hold no agent action "
            "(no tool call: prompts and messages only)"
        )
    return "nothing to grade: no agent action (no tool call)"
