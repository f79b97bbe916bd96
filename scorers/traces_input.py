"""Seed 001's file inputs, graded directly: canonical ``traces.json`` and audit JSONL.

- canonical: ``{"tasks": [{"task", "runs": [{"run_id", "ok", "steps": [{step, tool, args,
  observation, ok}]}]}]}`` (also a flat ``{"runs": [...]}`` or a bare list of runs). Source
  ``trace-grader/traces``: per-step success and the run's delivered flag are known.
- audit: one JSON object per line (``{ts, event, session_id, tool_name, file_path, command}``,
  as ``hooklib.audit()`` writes it); one run per ``session_id``, tool events in file order.
  Source ``trace-grader/audit``: no per-step ``ok``, no observation, no outcome, so
  ``retry_storm`` is unscored (RULE-04) and verdicts are flags-only.

Evidence ids for file inputs are ``<run_id>#<step>``.

``ok`` values (docs/grading.md, "Departures from the references"): ``true``/``1`` (and the
strings ``"true"``/``"1"``) are a success, ``false``/``0`` (``"false"``/``"0"``) a failure;
``null``, a missing ``ok`` or any other value is an *unknown* outcome (the completeness rule),
never a success and never a failure. A run without a usable ``ok`` is delivered when every step
succeeded, not delivered when one failed, and unknown otherwise.

``--task`` labels the runs of an audit file only (seed 001: "khi dùng audit/transcript"); a
canonical file's runs keep their own tasks.

Lanes: a line that belongs to a subagent (an ``agent_id``/``agentId``, or ``isSidechain: true``)
is kept in that agent's own lane (``Step.agent``), never the main agent's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from scorers.completeness import Profile, file_profile
from scorers.steps import Run, Step, tool_path
from trace_ingest.errors import ScorerError


@dataclass
class TraceFile:
    format: str  # canonical | audit
    runs: list[Run]
    profile: Profile


_TRUE = frozenset({"true", "1"})
_FALSE = frozenset({"false", "0"})


def ok_value(value: Any) -> bool | None:
    """A producer's ``ok``: booleans, 0/1 and their strings; anything else is unknown."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return True if value == 1 else (False if value == 0 else None)
    if isinstance(value, str):
        low = value.strip().lower()
        return True if low in _TRUE else (False if low in _FALSE else None)
    return None


def lane_of(obj: dict[str, Any]) -> str:
    """The agent a trace line belongs to: "" for the main agent."""
    for key in ("agent_id", "agentId"):
        value = obj.get(key)
        if isinstance(value, str) and value:
            return value
    if obj.get("isSidechain") is True or obj.get("is_sidechain") is True:
        parent = obj.get("parent_call_id") or obj.get("parentUuid") or ""
        return f"sidechain-{parent}" if parent else "sidechain"
    return ""


def _step(idx: int, obj: dict[str, Any], run_id: str, has_ok: bool) -> Step:
    args = obj.get("args")
    if args is None:
        args = {
            k: v
            for k, v in obj.items()
            if k in ("file_path", "command", "path", "url", "query", "pattern")
        }
    tool = str(obj.get("tool") or obj.get("tool_name") or "")
    number = obj.get("step", idx)
    if isinstance(number, str) and number.strip().isdigit():
        number = int(number)  # as the engine's int(step)
    number = number if isinstance(number, int) and not isinstance(number, bool) else idx
    ok = ok_value(obj.get("ok")) if has_ok else None
    return Step(
        index=number,
        tool=tool,
        canonical=tool,  # graded by the names the file gives (seed 001's engine)
        args=args,
        ok=ok,
        event_id=f"{run_id}#{number}",
        path=tool_path(args),
        observation=obj.get("observation"),
        agent=lane_of(obj),
    )


def derived_delivery(steps: list[Step]) -> bool | None:
    """A run without its own ``ok``: False when a step failed, True when every step
    succeeded, else unknown (an unknown step is not a success)."""
    if not steps or any(s.ok is False for s in steps):
        return False
    return True if all(s.ok is True for s in steps) else None


def _run(obj: dict[str, Any], task: str) -> Run:
    run_id = str(obj.get("run_id") or obj.get("id") or task)
    raw_steps = obj.get("steps") or []
    if not isinstance(raw_steps, list):
        raise ScorerError(f"run {run_id}: steps must be a list")
    steps = [_step(i, s, run_id, True) for i, s in enumerate(raw_steps, 1) if isinstance(s, dict)]
    ok = ok_value(obj.get("ok"))
    delivered = ok if ok is not None else derived_delivery(steps)
    return Run(
        run_id=run_id,
        steps=steps,
        delivered=delivered,
        task=str(obj.get("task") or task),
        source="traces",
    )


def parse_canonical(obj: Any) -> list[Run]:
    runs: list[Run] = []
    if isinstance(obj, dict) and "tasks" in obj:
        for t in obj.get("tasks") or []:
            if not isinstance(t, dict):
                continue
            tid = str(t.get("task") or t.get("id") or "task")
            runs += [_run(r, tid) for r in t.get("runs") or [] if isinstance(r, dict)]
        return runs
    raw = obj.get("runs") if isinstance(obj, dict) else obj
    if not isinstance(raw, list):
        raise ScorerError(
            'not a traces file: expected {"tasks": [...]}, {"runs": [...]} or a list of runs'
        )
    return [_run(r, str(r.get("task") or "task")) for r in raw if isinstance(r, dict)]


def parse_audit(lines: list[str], task: str | None) -> list[Run]:
    by_session: dict[str, list[dict[str, Any]]] = {}
    for line in lines:
        line = line.strip()
        if not line:
            continue
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        if not isinstance(ev, dict) or not (ev.get("tool_name") or ev.get("tool")):
            continue
        sid = str(ev.get("session_id") or task or "audit-session")
        by_session.setdefault(sid, []).append(ev)
    runs = []
    for sid, evs in by_session.items():
        steps = [_step(i, {**ev, "step": i}, sid, False) for i, ev in enumerate(evs, 1)]
        # The steps of one session_id are numbered in file order whatever their lane.
        for s, ev in zip(steps, evs, strict=True):
            s.ts = ev.get("ts")
        runs.append(Run(run_id=sid, steps=steps, delivered=None, task=task or sid, source="audit"))
    return runs


def load_traces(path: str, task: str | None = None) -> TraceFile:
    """Parse a traces file (see :func:`traces_from_text`)."""
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise ScorerError(f"cannot read {path}: {exc}") from exc
    return traces_from_text(text, path, task)


def traces_from_text(text: str, name: str, task: str | None = None) -> TraceFile:
    """Detect the format: a JSON document with "tasks" or "runs" (or a JSON list) is
    canonical; otherwise one JSON object per line is audit."""
    doc: Any = None
    try:
        doc = json.loads(text)
    except ValueError:
        doc = None
    if isinstance(doc, list) or (isinstance(doc, dict) and ("tasks" in doc or "runs" in doc)):
        runs = parse_canonical(doc)  # --task is for audit files: a canonical run keeps its task
        return TraceFile("canonical", runs, file_profile("trace-grader", "traces"))
    runs = parse_audit(text.splitlines(), task)
    if not runs:
        raise ScorerError(
            f"{name}: neither a canonical traces.json nor an audit JSONL with tool events"
        )
    return TraceFile("audit", runs, file_profile("trace-grader", "audit"))
