"""Do a session's sources agree? L0's integrity signal when hooks and a transcript (or any two
sources) recorded the same session (docs/grading.md, "Two sources, one session").

Input: the session's events, either **canonical** (telemetry.canonical: one event per real
action, each with ``sources``, e.g. ``["transcript", "hook"]``, and ``provenance``) or **as
stored** (one event per source per action, each with its ``source``). Both are read the same
way: an *action* is a tool call of the user's agents, identified by its ``call_id``; a source
*saw* it when the source is among the sources of its call or its result.

Findings:

- ``missed``: an action one source saw and another did not, although that other source was
  recording at the time (its span: from the first to the last event it recorded, with
  ``SPAN_MARGIN_S`` either side). An action outside another source's span (hooks installed
  mid-session, a transcript read before the session ended) is counted apart, not a finding.
- ``outcome``: both sources say whether the call succeeded (``ok`` true or false) and they say
  different things. A difference in ``status`` alone (e.g. ``failed`` from the hooks,
  ``cancelled`` from the transcript) is reported as a fact, not a finding: it is a difference
  of vocabulary between adapters, not of what happened.

A call missing only from the hooks is no finding when hooks cannot see it: a call refused before
any hook fires, or one its importer marked ``extra.hooks_blind`` (the harness fires no hook for
it: Vibe 3.0.1's subagents and ``run_typescript``).

Per-source values of a merged canonical event are read from its ``provenance`` entries when they
carry ``ok`` / ``status``, from its own ``disagreements`` (``{field: {source: value}}`` or a
list of ``{field, values}``), or from the ``disagreements`` passed in (telemetry.canonical's
``Disagreement.as_dict()`` rows). Harness-internal actions and calls without an id (which
cannot be matched across sources) are left out and counted.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from scorers.contents import event_status
from scorers.steps import RESULT_KINDS
from telemetry.canonical import sources_of
from telemetry.lifecycle import to_epoch

SPAN_MARGIN_S = 2.0
TOOL_KINDS = frozenset({"tool_call", *RESULT_KINDS})


@dataclass(frozen=True)
class SourceFinding:
    kind: Literal["missed", "outcome"]
    call_id: str
    seen_by: tuple[str, ...]
    missing_from: tuple[str, ...] = ()
    values: Mapping[str, Any] = field(default_factory=dict)  # outcome: source -> ok
    evidence: tuple[str, ...] = ()

    @property
    def detail(self) -> str:
        if self.kind == "missed":
            return (
                f"call {self.call_id} seen by {', '.join(self.seen_by)} only; "
                f"{', '.join(self.missing_from)} recorded no such call"
            )
        vals = ", ".join(f"{s}: {v}" for s, v in sorted(self.values.items()))
        return f"call {self.call_id}: the sources disagree on its success ({vals})"

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "call_id": self.call_id,
            "seen_by": list(self.seen_by),
            "missing_from": list(self.missing_from),
            "values": dict(self.values),
            "evidence": list(self.evidence),
            "detail": self.detail,
        }


@dataclass
class SourceAgreement:
    """The comparison of one session's sources."""

    sources: tuple[str, ...]  # every source that recorded the session
    spans: dict[str, tuple[float, float]]
    actions: int = 0  # user-agent tool calls with a call id
    checked: int = 0  # of which at least two sources were recording at the time
    findings: list[SourceFinding] = field(default_factory=list)
    outside_span: int = 0  # actions only one source could have seen
    status_differs: list[dict[str, Any]] = field(default_factory=list)
    no_call_id: int = 0
    internal: int = 0

    @property
    def agreeing(self) -> int:
        return self.checked - len({f.call_id for f in self.findings})

    def count(self, kind: str) -> int:
        return sum(1 for f in self.findings if f.kind == kind)

    def as_dict(self) -> dict[str, Any]:
        return {
            "sources": list(self.sources),
            "actions": self.actions,
            "checked": self.checked,
            "agreeing": self.agreeing,
            "missed": self.count("missed"),
            "outcome_differs": self.count("outcome"),
            "outside_span": self.outside_span,
            "status_differs": self.status_differs[:20],
            "no_call_id": self.no_call_id,
            "internal": self.internal,
            "findings": [f.as_dict() for f in self.findings[:50]],
        }


@dataclass
class _Action:
    call_id: str
    seen_by: set[str] = field(default_factory=set)
    when: float | None = None
    ok: dict[str, bool] = field(default_factory=dict)
    status: dict[str, str] = field(default_factory=dict)
    ids: list[str] = field(default_factory=list)
    hooks_blind: bool = False  # the harness fires no hook for this call (its importer says so)


def _per_source(ev: Mapping[str, Any], name: str) -> dict[str, Any]:
    """Source -> value of field ``name`` for one event (stored, or canonical and merged)."""
    srcs = sources_of(ev)
    out: dict[str, Any] = {}
    if len(srcs) == 1:
        value = ev.get(name) if name == "ok" else event_status(ev)
        if value is not None:
            out[srcs[0]] = value
        return out
    for p in ev.get("provenance") or ():
        if isinstance(p, Mapping) and p.get("source") and p.get(name) is not None:
            out[str(p["source"])] = p[name]
    own = ev.get("disagreements")
    if isinstance(own, Mapping) and isinstance(own.get(name), Mapping):
        out.update({str(k): v for k, v in own[name].items() if v is not None})
    elif isinstance(own, list):
        for d in own:
            if isinstance(d, Mapping) and d.get("field") == name:
                values = d.get("values")
                if isinstance(values, Mapping):
                    out.update({str(k): v for k, v in values.items() if v is not None})
    return out


def compare_sources(
    events: Sequence[Mapping[str, Any]],
    disagreements: Iterable[Mapping[str, Any]] = (),
    margin_s: float = SPAN_MARGIN_S,
) -> SourceAgreement:
    """Compare what each source recorded of the session (see the module docstring)."""
    # With one source there is nothing to compare: skip parsing times and per-source values
    # (every action then lies outside another source's span).
    every = {s for ev in events for s in sources_of(ev)}
    multi = len(every) > 1
    spans: dict[str, tuple[float, float]] = {}
    internal_agents = {
        str(e["agent_id"]) for e in events if e.get("internal") and e.get("agent_id")
    }
    actions: dict[str, _Action] = {}
    no_id: set[str] = set()
    internal: set[str] = set()
    for ev in events:
        srcs = sources_of(ev)
        t = to_epoch(ev.get("ts")) if multi else None
        if t is not None:
            for s in srcs:
                lo, hi = spans.get(s, (t, t))
                spans[s] = (min(lo, t), max(hi, t))
        if ev.get("kind") not in TOOL_KINDS:
            continue
        cid = ev.get("call_id")
        if ev.get("internal") or str(ev.get("agent_id") or "") in internal_agents:
            internal.add(str(cid or ev.get("id")))
            continue
        if not cid:
            no_id.add(str(ev.get("id")))
            continue
        act = actions.setdefault(str(cid), _Action(str(cid)))
        act.seen_by.update(srcs)
        extra = ev.get("extra")
        if isinstance(extra, Mapping) and extra.get("hooks_blind"):
            act.hooks_blind = True
        act.ids.append(str(ev.get("id")))
        if t is not None:
            act.when = t if act.when is None else min(act.when, t)
        if multi and (
            ev.get("kind") in RESULT_KINDS or ev.get("status") or ev.get("ok") is not None
        ):
            for s, v in _per_source(ev, "ok").items():
                if isinstance(v, bool):
                    act.ok.setdefault(s, v)
            for s, v in _per_source(ev, "status").items():
                if isinstance(v, str) and v != "asked":
                    act.status.setdefault(s, v)
    for d in disagreements:
        cid = d.get("call_id")
        values = d.get("values")
        if not cid or str(cid) not in actions or not isinstance(values, Mapping):
            continue
        act = actions[str(cid)]
        if d.get("field") == "ok":
            act.ok.update({str(k): v for k, v in values.items() if isinstance(v, bool)})
        elif d.get("field") == "status":
            act.status.update({str(k): v for k, v in values.items() if isinstance(v, str)})
    sources = tuple(sorted(spans if multi else every))
    out = SourceAgreement(sources, spans, no_call_id=len(no_id), internal=len(internal))
    out.actions = len(actions)
    for act in actions.values():
        recording = [
            s
            for s in sources
            if act.when is not None and spans[s][0] - margin_s <= act.when <= spans[s][1] + margin_s
        ]
        recording = sorted(set(recording) | act.seen_by)
        if len(recording) < 2:
            out.outside_span += 1
            continue
        out.checked += 1
        missing = tuple(s for s in recording if s not in act.seen_by)
        if missing == ("hook",) and act.status and set(act.status.values()) == {"refused"}:
            # A call to a tool a deny rule took out of the session is refused before any hook
            # fires (Claude Code 2.1.328, docs/testing.md): hooks cannot have seen it.
            missing = ()
        if missing == ("hook",) and act.hooks_blind:
            # A call the harness fires no hook for, as the session file's importer recorded
            # (``extra.hooks_blind``; Vibe 3.0.1: a subagent's calls, run_typescript itself):
            # hooks cannot have seen it, so its absence there is no integrity gap.
            missing = ()
        seen = tuple(sorted(act.seen_by))
        if missing:
            out.findings.append(
                SourceFinding("missed", act.call_id, seen, missing, {}, tuple(act.ids))
            )
        if len(set(act.ok.values())) > 1:
            out.findings.append(
                SourceFinding("outcome", act.call_id, seen, (), dict(act.ok), tuple(act.ids))
            )
        elif len(set(act.status.values())) > 1:
            out.status_differs.append({"call_id": act.call_id, "values": dict(act.status)})
    return out
