"""The session's capability profile and the completeness rule (ARCHITECTURE.md).

``declared`` = the union of what each of the session's sources can ever provide
(``trace_ingest.capabilities``). ``present`` = ``declared`` narrowed by what the events actually
contain. Every capability that is not present is a *gap* of one of two kinds, reported apart:

- ``cannot-provide``: no source of this session can ever provide it (the harness/source limit);
- ``trace-missing``: a source could provide it, but this trace does not contain it (a call with
  no result, no results at all, hook errors or malformed events during the session).

A check declares ``requires``; :meth:`Profile.unmet` names the first unmet capability and why,
which becomes the ``reason`` of an ``unscored`` atom.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from scorers.contents import Contents, session_contents, step_status
from scorers.steps import Pairing
from telemetry.canonical import sources_of
from trace_ingest.capabilities import CAPABILITY_NAMES, capabilities_of

GapKind = Literal["cannot-provide", "trace-missing"]


@dataclass(frozen=True)
class Gap:
    kind: GapKind
    capability: str | None  # None for integrity gaps (events lost or damaged)
    reason: str
    evidence: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "capability": self.capability,
            "reason": self.reason,
            "evidence": list(self.evidence[:50]),
            "count": len(self.evidence),
        }


@dataclass
class Profile:
    sources: list[str]
    declared: frozenset[str]
    present: frozenset[str]
    gaps: dict[str, Gap] = field(default_factory=dict)  # capability -> why it is absent
    integrity: list[Gap] = field(default_factory=list)  # trace-missing: partial losses
    contents: Contents = field(default_factory=Contents)  # what the session holds

    def has(self, capability: str) -> bool:
        return capability in self.present

    def unmet(self, requires: Iterable[str]) -> str | None:
        """Why the first unmet requirement is unmet, or None when all are met."""
        for cap in sorted(requires):
            if cap not in self.present:
                gap = self.gaps.get(cap)
                if gap is None:
                    gap = Gap("cannot-provide", cap, f"no source of this session provides {cap}")
                kind = (
                    "the harness cannot provide it"
                    if gap.kind == "cannot-provide"
                    else "the trace is missing it"
                )
                return f"missing {cap}: {kind} ({gap.reason})"
        return None

    def as_dict(self) -> dict[str, Any]:
        cannot = {c: g.reason for c, g in sorted(self.gaps.items()) if g.kind == "cannot-provide"}
        missing = {c: g.reason for c, g in sorted(self.gaps.items()) if g.kind == "trace-missing"}
        return {
            "sources": self.sources,
            "declared": sorted(self.declared),
            "present": sorted(self.present),
            "cannot_provide": cannot,
            "trace_missing": missing,
            "integrity_gaps": [g.as_dict() for g in self.integrity],
        }


def declared_of(sources: Iterable[tuple[str, str]]) -> tuple[list[str], frozenset[str]]:
    names: list[str] = []
    caps: set[str] = set()
    for harness, source in sorted(set(sources)):
        names.append(f"{harness}/{source}")
        caps |= capabilities_of(harness, source)
    return names, frozenset(caps)


def _cannot(cap: str, sources: Sequence[str]) -> Gap:
    where = ", ".join(sources) or "no known source"
    return Gap("cannot-provide", cap, f"not provided by {where}")


def session_profile(
    events: Sequence[dict[str, Any]],
    pairing: Pairing,
    *,
    hook_errors: Sequence[dict[str, Any]] = (),
    attached: dict[str, str] | None = None,
) -> Profile:
    """Profile of a recorded session. ``attached`` = capabilities supplied from outside the
    trace (an explicit task outcome, an attached CLEO audit log), capability -> origin."""
    sources, declared = declared_of(
        (str(e.get("harness") or ""), src) for e in events for src in sources_of(e)
    )
    attached = attached or {}
    contents = session_contents(events, pairing.steps)
    present = set(declared)
    gaps: dict[str, Gap] = {}

    def missing(cap: str, reason: str, evidence: Iterable[str] = ()) -> None:
        if cap in present:
            present.discard(cap)
            gaps[cap] = Gap("trace-missing", cap, reason, tuple(evidence))

    tool_events = [e for e in events if e.get("kind") in ("tool_call", "tool_result", "tool_error")]
    if tool_events:
        if not any(e.get("tool_name") or e.get("tool") for e in tool_events):
            missing("tool_names", "tool events carry no tool name")
        if not any(e.get("input") is not None for e in tool_events):
            missing("tool_args", "no tool event carries its input")
        if pairing.calls and not pairing.results:
            missing(
                "tool_results",
                "tool calls were recorded but no tool_result/tool_error "
                "event at all (is the post-tool hook registered?)",
            )
            missing("success_flags", "no tool results recorded, so no step's success is known")
            missing("durations", "no tool results recorded")
        elif not any(step_status(s, contents) != "unknown" for s in pairing.steps):
            missing("success_flags", "no tool result says what became of its call")
        if not any(e.get("call_id") for e in tool_events):
            missing("call_ids", "no tool event carries a call id")
        if pairing.results and not any(
            isinstance(e.get("duration_ms"), int | float) for e in tool_events
        ):
            missing("durations", "no tool result carries a duration")
    if events and not any(e.get("kind") == "session_start" for e in events):
        missing("session_bounds", "no session_start event recorded")
    if "prompts" in present and events and not any(e.get("kind") == "prompt" for e in events):
        missing("prompts", "no prompt event recorded")
    for cap, origin in attached.items():
        present.add(cap)
        gaps.pop(cap, None)
        _ = origin
    for cap in sorted(CAPABILITY_NAMES - present):
        if cap not in gaps:
            gaps[cap] = _cannot(cap, sources)
    integrity: list[Gap] = []
    if pairing.unpaired_calls and pairing.results:
        integrity.append(
            Gap(
                "trace-missing",
                "tool_results",
                f"{len(pairing.unpaired_calls)} tool call(s) have no result",
                tuple(pairing.unpaired_calls),
            )
        )
    if pairing.orphan_results:
        integrity.append(
            Gap(
                "trace-missing",
                "tool_names",
                f"{len(pairing.orphan_results)} tool result(s) have no call",
                tuple(pairing.orphan_results),
            )
        )
    damaged = [
        str(e.get("id"))
        for e in events
        if e.get("kind") == "other"
        and isinstance(e.get("extra"), dict)
        and ("malformed" in e["extra"] or "scrub_error" in e["extra"])
    ]
    if damaged:
        integrity.append(
            Gap(
                "trace-missing",
                None,
                f"{len(damaged)} event(s) recorded as malformed or unscrubbable "
                "stubs (their content is lost)",
                tuple(damaged),
            )
        )
    if hook_errors:
        stages = sorted({str(h.get("stage") or "?") for h in hook_errors})
        integrity.append(
            Gap(
                "trace-missing",
                None,
                f"{len(hook_errors)} hook error(s) logged during the session's time "
                f"window (stages: {', '.join(stages)}); events may be missing",
            )
        )
    return Profile(sources, declared, frozenset(present), gaps, integrity, contents)


def file_profile(harness: str, source: str, attached: dict[str, str] | None = None) -> Profile:
    """Profile of a trace file input (seed 001 traces.json or audit jsonl): declared only."""
    sources, declared = declared_of([(harness, source)])
    present = set(declared) | set(attached or {})
    gaps = {cap: _cannot(cap, sources) for cap in sorted(CAPABILITY_NAMES - present)}
    return Profile(sources, declared, frozenset(present), gaps, [])


def without(
    profile: Profile, capability: str, reason: str, kind: GapKind = "cannot-provide"
) -> Profile:
    """The same profile with one capability removed (used by tests and what-if reports)."""
    gaps = dict(profile.gaps)
    gaps[capability] = Gap(kind, capability, reason)
    return Profile(
        profile.sources,
        profile.declared,
        profile.present - {capability},
        gaps,
        list(profile.integrity),
        profile.contents,
    )
