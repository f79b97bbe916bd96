"""One session -> OpenTelemetry spans, per the GenAI semantic conventions (docs/export.md).

Pure: plain dicts in (the session row, its canonical events, its ledger entries), SDK
``ReadableSpan`` objects out. Ids are derived from trail's own ids (BLAKE2b), so the same
session always maps to the same trace and span ids and re-exporting it is harmless.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import Event, ReadableSpan
from opentelemetry.sdk.util.instrumentation import InstrumentationScope
from opentelemetry.trace import SpanContext, SpanKind, Status, StatusCode, TraceFlags

from telemetry.lifecycle import to_epoch
from trace_ingest._blake import blake2b

SCOPE = InstrumentationScope("trail.export.otlp", "1")
RESOURCE = Resource.create({"service.name": "trail"})
EVALUATION = "gen_ai.evaluation.result"
PROMPT_EVENT = "gen_ai.user.message"
# What became of a call (docs/events.md "What became of a call") -> span status.
ERROR_STATUSES = frozenset({"failed", "interrupted"})
_TOOL_KINDS = frozenset({"tool_call", "tool_result", "tool_error", "permission"})


@dataclass(frozen=True)
class Options:
    include_content: bool = False
    max_content_chars: int = 4096


def _id(nbytes: int, *parts: str) -> int:
    """A non-zero id of ``nbytes`` from trail's ids (an all-zero id is invalid in OTLP)."""
    h = blake2b(digest_size=nbytes)
    h.update("\x1f".join(parts).encode())
    return int.from_bytes(h.digest(), "big") or 1


def trace_id(session_key: str) -> int:
    return _id(16, "trace", session_key)


def span_id(*parts: str) -> int:
    return _id(8, "span", *parts)


def _ns(stamp: Any) -> int | None:
    t = to_epoch(stamp) if isinstance(stamp, str) else None
    return None if t is None else int(t * 1e9)


def bounded(value: Any, limit: int) -> str:
    """``value`` as text of at most ``limit`` characters (JSON for structured values), with a
    marker saying how much was cut."""
    text = value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}…[trail: {len(text) - limit} more characters not exported]"


class _Span:
    """A span being built (ReadableSpan is immutable)."""

    def __init__(self, name: str, sid: int, parent: _Span | None, start: int | None) -> None:
        self.name = name
        self.sid = sid
        self.parent = parent
        self.start = start
        self.end = start
        self.attributes: dict[str, Any] = {}
        self.events: list[tuple[int | None, str, dict[str, Any]]] = []
        self.status = Status(StatusCode.UNSET)

    def widen(self, t: int | None) -> None:
        if t is None:
            return
        self.start = t if self.start is None else min(self.start, t)
        self.end = t if self.end is None else max(self.end, t)
        if self.parent is not None:
            self.parent.widen(t)


def session_spans(
    session: Mapping[str, Any],
    events: Sequence[Mapping[str, Any]],
    grades: Iterable[Mapping[str, Any]],
    options: Options = Options(),
) -> list[ReadableSpan]:
    """The spans of one session: the agent's ``invoke_agent`` span (the root), a child
    ``invoke_agent`` per subagent, an ``execute_tool`` per tool call, prompts as span events,
    and every current grade as ``gen_ai.evaluation.result`` events."""
    key = str(session["key"])
    harness = str(session.get("harness") or "unknown")
    conversation = str(session.get("session_id") or key)
    tid = trace_id(key)
    root = _Span(f"invoke_agent {harness}", span_id(key, "agent"), None, None)
    root.attributes.update(
        {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.system": harness,
            "gen_ai.agent.name": harness,
            "gen_ai.conversation.id": conversation,
            "session.id": conversation,
            "trail.session.key": key,
            "trail.harness": harness,
        }
    )
    for name in ("state", "close_reason"):
        if session.get(name):
            root.attributes[f"trail.session.{name}"] = str(session[name])
    root.widen(_ns(session.get("started_at")))
    agents: dict[str, _Span] = {}
    calls: dict[str, _Span] = {}
    by_event: dict[str, _Span] = {}
    spans: list[_Span] = [root]

    open_tasks: dict[str, _Span] = {}  # Task/Agent calls without a result yet

    def agent_span(ev: Mapping[str, Any], t: int | None) -> _Span:
        """The span of the subagent ``ev`` ran in, created at its first event: its start, or
        any event of it when the start was not recorded (``trail.agent.implied``). Its parent
        is the call that launched it: the ``parent_call_id`` transcripts give, else the one
        Task/Agent call still running when it starts (hook payloads name none,
        docs/events.md "Subagents"), else the agent."""
        agent = str(ev["agent_id"])
        if agent in agents:
            return agents[agent]
        parent = calls.get(str(ev.get("parent_call_id") or ""))
        if parent is None and len(open_tasks) == 1:
            parent = next(iter(open_tasks.values()))
        label = str(ev.get("agent_type") or "subagent")
        span = _Span(f"invoke_agent {label}", span_id(key, "agent", agent), parent or root, t)
        span.attributes.update(
            {
                "gen_ai.operation.name": "invoke_agent",
                "gen_ai.system": harness,
                "gen_ai.agent.id": agent,
                "gen_ai.agent.name": label,
                "gen_ai.conversation.id": conversation,
                "session.id": conversation,
                "trail.event.id": str(ev.get("id") or ""),
            }
        )
        if ev.get("kind") != "subagent_start":
            span.attributes["trail.agent.implied"] = True
        if ev.get("internal"):
            span.attributes["trail.agent.internal"] = str(ev["internal"])
        span.widen(t)
        agents[agent] = span
        spans.append(span)
        return span

    def lane(ev: Mapping[str, Any], t: int | None) -> _Span:
        return agent_span(ev, t) if ev.get("agent_id") else root

    for ev in events:
        kind = ev.get("kind")
        t = _ns(ev.get("ts"))
        eid = str(ev.get("id") or "")
        if kind in ("subagent_start", "subagent_stop") and ev.get("agent_id"):
            span = agent_span(ev, t)
            span.widen(t)
            by_event[eid] = span
        elif kind in _TOOL_KINDS and (kind == "tool_call" or ev.get("call_id")):
            call_id = str(ev.get("call_id") or "")
            known = calls.get(call_id) if call_id else None
            if known is None:
                if kind == "permission" and ev.get("status") == "asked":
                    lane(ev, t).widen(t)  # a permission prompt with no call of its own
                    continue
                span = _tool_span(key, harness, ev, lane(ev, t), t)
                spans.append(span)
                if call_id:
                    calls[call_id] = span
                    if kind == "tool_call" and ev.get("tool") == "task":
                        open_tasks[call_id] = span
            else:
                span = known
                span.widen(t)
                _set_outcome(span, ev)
            if kind != "tool_call":
                open_tasks.pop(call_id, None)
            _content(span, ev, options)
            by_event[eid] = span
        elif kind == "prompt":
            target = lane(ev, t)
            attrs: dict[str, Any] = {"trail.event.id": eid, "gen_ai.conversation.id": conversation}
            if options.include_content and ev.get("text") is not None:
                attrs["content"] = bounded(ev["text"], options.max_content_chars)
            target.events.append((t, PROMPT_EVENT, attrs))
            target.widen(t)
            by_event[eid] = target
        else:
            lane(ev, t).widen(t)
            if kind == "session_end":
                root.widen(t)
    for grade in grades:
        _grade_events(grade, root, by_event)
    return [_finish(s, tid) for s in spans]


def _tool_span(
    key: str, harness: str, ev: Mapping[str, Any], parent: _Span, t: int | None
) -> _Span:
    name = str(ev.get("tool_name") or ev.get("tool") or "unknown")
    ident = str(ev.get("call_id") or ev.get("id") or "")
    span = _Span(f"execute_tool {name}", span_id(key, "tool", ident), parent, t)
    span.attributes.update(
        {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": name,
            "gen_ai.tool.type": "function",
            "gen_ai.system": harness,
            "trail.event.id": str(ev.get("id") or ""),
        }
    )
    if ev.get("call_id"):
        span.attributes["gen_ai.tool.call.id"] = str(ev["call_id"])
    if ev.get("tool"):
        span.attributes["trail.tool"] = str(ev["tool"])
    if parent.attributes.get("gen_ai.agent.name"):
        span.attributes["gen_ai.agent.name"] = parent.attributes["gen_ai.agent.name"]
    span.widen(t)
    if ev.get("duration_ms") is not None and t is not None:
        with contextlib.suppress(TypeError, ValueError):
            span.widen(t + int(float(ev["duration_ms"]) * 1e6))
    _set_outcome(span, ev)
    return span


def _set_outcome(span: _Span, ev: Mapping[str, Any]) -> None:
    """Failures are errors; refusals and cancellations are marked apart, never errors (the
    tool did not fail: it did not run)."""
    status = ev.get("status")
    if not status:
        return
    status = str(status)
    span.attributes["trail.tool.status"] = status
    if status in ERROR_STATUSES:
        span.attributes["error.type"] = status
        span.status = Status(StatusCode.ERROR, str(ev.get("error") or status)[:512])
    elif status in ("refused", "cancelled"):
        span.attributes[f"trail.tool.{status}"] = True
        span.status = Status(StatusCode.UNSET)
    elif status == "ok":
        span.status = Status(StatusCode.OK)


def _content(span: _Span, ev: Mapping[str, Any], options: Options) -> None:
    if not options.include_content:
        return
    limit = options.max_content_chars
    if ev.get("kind") == "tool_call" and ev.get("input") is not None:
        span.attributes["gen_ai.tool.call.arguments"] = bounded(ev["input"], limit)
    if ev.get("output") is not None:
        span.attributes["gen_ai.tool.call.result"] = bounded(ev["output"], limit)
    elif ev.get("error") and ev.get("kind") != "tool_call":
        span.attributes["gen_ai.tool.call.result"] = bounded(ev["error"], limit)


def _evaluation(
    name: str,
    value: float | None,
    label: str,
    explanation: str | None,
    grade: Mapping[str, Any],
) -> dict[str, Any]:
    attrs: dict[str, Any] = {
        "gen_ai.evaluation.name": name,
        "gen_ai.evaluation.score.label": label,
        "trail.grade.id": str(grade.get("gradeId") or ""),
        "trail.grade.rubric": str(grade.get("rubric") or ""),
    }
    if value is not None:
        attrs["gen_ai.evaluation.score.value"] = float(value)
    if explanation:
        attrs["gen_ai.evaluation.explanation"] = explanation[:2048]
    return attrs


def _ratio(earned: Any, possible: Any) -> float | None:
    if isinstance(earned, int | float) and isinstance(possible, int | float) and possible > 0:
        return float(earned) / float(possible)
    return None


L2_VALUES = {"aligned": 1.0, "misaligned": 0.0}


def _grade_events(grade: Mapping[str, Any], root: _Span, by_event: Mapping[str, _Span]) -> None:
    """A ledger entry as evaluation events: its overall verdict and each check or dimension on
    the agent span; L1 findings and L2 action verdicts on the span of the action they cite.
    Unscored stays unscored: no value, the label says why."""
    t = _ns(grade.get("timestamp"))
    rubric = str(grade.get("rubric") or "unknown")
    nothing = grade.get("nothingToGrade")
    value = _ratio(grade.get("totalScore"), grade.get("maxScore"))
    label = str(grade.get("verdict") or ("nothing-to-grade" if nothing else "unknown"))
    why = str(nothing) if nothing else None
    root.events.append((t, EVALUATION, _evaluation(rubric, value, label, why, grade)))
    for atom in grade.get("atoms") or ():
        if not isinstance(atom, Mapping):
            continue
        status = str(atom.get("status") or "unknown")
        score = None if status == "unscored" else _ratio(atom.get("earned"), atom.get("possible"))
        attrs = _evaluation(
            str(atom.get("check") or "check"), score, status, _text(atom.get("reason")), grade
        )
        if atom.get("level"):
            attrs["trail.grade.level"] = str(atom["level"])
        root.events.append((t, EVALUATION, attrs))
    if not grade.get("atoms"):
        for name, dim in (grade.get("dimensions") or {}).items():
            if not isinstance(dim, Mapping):
                continue
            status = str(dim.get("status") or "unknown")
            score = None if dim.get("score") is None else _ratio(dim["score"], dim.get("max"))
            attrs = _evaluation(f"{rubric}.{name}", score, status, _text(dim.get("reason")), grade)
            root.events.append((t, EVALUATION, attrs))
    for finding in grade.get("findings") or ():
        if isinstance(finding, Mapping) and str(finding.get("event")) in by_event:
            target = by_event[str(finding["event"])]
            attrs = _evaluation(
                str(finding.get("check") or "finding"),
                None,
                "flagged",
                _text(finding.get("detail")),
                grade,
            )
            attrs["trail.finding.severity"] = str(finding.get("severity") or "")
            target.events.append((t, EVALUATION, attrs))
    l2 = grade.get("l2")
    if not isinstance(l2, Mapping):
        return
    for g in l2.get("guides") or ():
        if isinstance(g, Mapping):
            verdict = str(g.get("verdict") or "unknown")
            attrs = _evaluation(
                f"l2.guide {g.get('guide')}",
                L2_VALUES.get(verdict),
                verdict,
                _text(g.get("reason")),
                grade,
            )
            attrs["trail.guide.version"] = str(g.get("version") or "")
            root.events.append((t, EVALUATION, attrs))
    for a in l2.get("actions") or ():
        if isinstance(a, Mapping) and str(a.get("event")) in by_event:
            verdict = str(a.get("verdict") or "unknown")
            guides = ", ".join(str(x) for x in a.get("guides") or ())
            by_event[str(a["event"])].events.append(
                (
                    t,
                    EVALUATION,
                    _evaluation(
                        "l2.action",
                        L2_VALUES.get(verdict),
                        verdict,
                        f"guides: {guides}" if guides else None,
                        grade,
                    ),
                )
            )


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _finish(span: _Span, tid: int) -> ReadableSpan:
    ctx = SpanContext(tid, span.sid, is_remote=False, trace_flags=TraceFlags(TraceFlags.SAMPLED))
    parent = None
    if span.parent is not None:
        parent = SpanContext(tid, span.parent.sid, is_remote=False)
    start = span.start or 0
    end = max(span.end or start, start)
    events = [
        Event(name, attrs, timestamp=min(max(ts or start, start), end) if ts else end)
        for ts, name, attrs in span.events
    ]
    return ReadableSpan(
        name=span.name,
        context=ctx,
        parent=parent,
        resource=RESOURCE,
        attributes=span.attributes,
        events=events,
        kind=SpanKind.INTERNAL,
        status=span.status,
        start_time=start,
        end_time=end,
        instrumentation_scope=SCOPE,
    )
