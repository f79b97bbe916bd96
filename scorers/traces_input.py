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
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TextIO, TypeVar

from scorers.completeness import Profile, file_profile
from scorers.steps import PATH_KEYS, Run, Step, norm_path
from trace_ingest.errors import ScorerError

T = TypeVar("T")

# Seed 001's trace files name Claude Code's tools (its engine's Read/Edit/Bash): a step keeps
# the name the file gives, and its canonical tool comes from that harness's table.
FILE_HARNESS = "claude-code"


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


_ARG_KEYS = frozenset({"file_path", "command", "path", "url", "query", "pattern"})
_PATHS_KEPT = 4096  # normalized paths remembered per file (they repeat from step to step)


def _step(
    idx: int, obj: dict[str, Any], run_id: str, has_ok: bool, paths: dict[str, str] | None = None
) -> Step:
    """One step of a trace file. Runs once per step of a 50 MB file: plain gets, no helper
    calls on the usual shapes (a bool ``ok``, an int ``step``, no lane keys)."""
    args = obj.get("args")
    if args is None:
        args = {k: v for k, v in obj.items() if k in _ARG_KEYS}
    tool = obj.get("tool") or obj.get("tool_name") or ""
    if type(tool) is not str:
        tool = str(tool)
    number = obj.get("step", idx)
    if type(number) is not int:
        if isinstance(number, str) and number.strip().isdigit():
            number = int(number)  # as the engine's int(step)
        number = number if isinstance(number, int) and not isinstance(number, bool) else idx
    ok: bool | None = None
    if has_ok:
        ok = obj.get("ok")
        if ok is not True and ok is not False:
            ok = ok_value(ok)
    path = None
    if isinstance(args, dict):
        for key in PATH_KEYS:
            value = args.get(key)
            if isinstance(value, str) and value:
                if paths is None:
                    path = norm_path(value)
                else:
                    path = paths.get(value)
                    if path is None:
                        if len(paths) >= _PATHS_KEPT:
                            paths.clear()
                        path = paths[value] = norm_path(value)
                break
    lane = "agent_id" in obj or "agentId" in obj or "isSidechain" in obj or "is_sidechain" in obj
    agent = lane_of(obj) if lane else ""
    return Step(
        number,
        tool,
        tool,  # graded by the names the file gives (seed 001's engine)
        args,
        ok,
        f"{run_id}#{number}",
        None,
        None,
        path,
        agent,
        None,
        obj.get("observation"),
        harness=FILE_HARNESS,
    )


def derived_delivery(steps: list[Step]) -> bool | None:
    """A run without its own ``ok``: False when a step failed, True when every step
    succeeded, else unknown (an unknown step is not a success)."""
    if not steps or any(s.ok is False for s in steps):
        return False
    return True if all(s.ok is True for s in steps) else None


def _run(obj: dict[str, Any], task: str, paths: dict[str, str] | None = None) -> Run:
    run_id = str(obj.get("run_id") or obj.get("id") or task)
    raw_steps = obj.get("steps") or []
    if not isinstance(raw_steps, list):
        raise ScorerError(f"run {run_id}: steps must be a list")
    paths = {} if paths is None else paths
    steps = [
        _step(i, s, run_id, True, paths) for i, s in enumerate(raw_steps, 1) if isinstance(s, dict)
    ]
    ok = ok_value(obj.get("ok"))
    delivered = ok if ok is not None else derived_delivery(steps)
    return Run(
        run_id=run_id,
        steps=steps,
        delivered=delivered,
        task=str(obj.get("task") or task),
        source="traces",
    )


def _task_id(t: dict[str, Any]) -> str:
    return str(t.get("task") or t.get("id") or "task")


def _task_runs(t: dict[str, Any], paths: dict[str, str]) -> Iterator[Run]:
    tid = _task_id(t)
    for r in t.get("runs") or []:
        if isinstance(r, dict):
            yield _run(r, tid, paths)


def _flat_run(r: Any, paths: dict[str, str]) -> Iterator[Run]:
    if isinstance(r, dict):
        yield _run(r, str(r.get("task") or "task"), paths)


def iter_canonical(obj: Any) -> Iterator[Run]:
    """The runs of a parsed canonical document, one at a time."""
    paths: dict[str, str] = {}
    if isinstance(obj, dict) and "tasks" in obj:
        for t in obj.get("tasks") or []:
            if isinstance(t, dict):
                yield from _task_runs(t, paths)
        return
    raw = obj.get("runs") if isinstance(obj, dict) else obj
    if not isinstance(raw, list):
        raise ScorerError(
            'not a traces file: expected {"tasks": [...]}, {"runs": [...]} or a list of runs'
        )
    for r in raw:
        yield from _flat_run(r, paths)


def parse_canonical(obj: Any) -> list[Run]:
    return list(iter_canonical(obj))


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
    """Parse a traces file (see :func:`traces_from_text`) into a list of runs."""
    fmt, profile, runs = map_traces(path, task, lambda run, _: run)
    return TraceFile(fmt, runs, profile)


def map_traces(
    path: str, task: str | None, fn: Callable[[Run, Profile], T]
) -> tuple[str, Profile, list[T]]:
    """``fn`` applied to every run of a traces file, in file order: (format, profile, results).

    A canonical document (the shape seed 001 writes: ``{"tasks": [...]}`` first, or
    ``{"runs": [...]}``, or a bare list of runs) is read piecewise: one run is parsed, turned
    into steps and handed to ``fn`` at a time, so a 50 MB file never sits in memory whole,
    nor do its runs. Any other layout (a key before ``tasks``, a duplicate key that would
    change the result, trailing data, a BOM) and audit JSONL are parsed whole, exactly as
    :func:`traces_from_text` does; the results are the same either way.
    """
    try:
        with open(path, encoding="utf-8") as fh:
            cursor = _Cursor(fh)
            if cursor.peek() in ("[", "{"):
                profile = file_profile("trace-grader", "traces")
                try:
                    return (
                        "canonical",
                        profile,
                        [fn(run, profile) for run in _stream_canonical(cursor)],
                    )
                except _NotStreamable:
                    pass
            fh.seek(0)
            text = fh.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise ScorerError(f"cannot read {path}: {exc}") from exc
    tf = traces_from_text(text, path, task)
    return tf.format, tf.profile, [fn(run, tf.profile) for run in tf.runs]


class _NotStreamable(Exception):
    """The document is not in a shape read piecewise: the whole-text parse decides."""


_DECODER = json.JSONDecoder()  # the decoder json.loads uses: the same values either way
_CHUNK = 1 << 20
_WS = " \t\n\r"


class _Cursor:
    """A JSON text read in chunks: the skeleton (brackets, commas, keys) is walked here, and
    each value (a run, a task's field) is parsed whole by the C decoder."""

    def __init__(self, fh: TextIO) -> None:
        self.fh = fh
        self.buf = ""
        self.pos = 0
        self.eof = False

    def _fill(self, want: int = _CHUNK) -> bool:
        """Append at least ``want`` more characters (False at the end of the file). Callers
        ask for as much as they already hold when a value is cut, so a value of any size is
        re-read O(log size) times, not once per chunk."""
        if self.eof:
            return False
        chunk = self.fh.read(max(want, _CHUNK))
        if not chunk:
            self.eof = True
            return False
        self.buf = self.buf[self.pos :] + chunk
        self.pos = 0
        return True

    def peek(self) -> str:
        """The next character after whitespace ("" at the end)."""
        while True:
            buf, pos, n = self.buf, self.pos, len(self.buf)
            while pos < n and buf[pos] in _WS:
                pos += 1
            self.pos = pos
            if pos < n:
                return buf[pos]
            if not self._fill():
                return ""

    def take(self, char: str) -> None:
        if self.peek() != char:
            raise _NotStreamable
        self.pos += 1

    def value(self) -> Any:
        self.peek()
        while True:
            try:
                obj, end = _DECODER.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError:
                if self._fill(len(self.buf)):
                    continue  # the value goes on past the chunk
                raise _NotStreamable from None
            if end == len(self.buf) and self._fill(len(self.buf)):
                continue  # a number or literal at the chunk's end may go on
            self.pos = end
            return obj

    def key(self) -> str:
        key = self.value()
        if not isinstance(key, str):
            raise _NotStreamable
        self.take(":")
        return key

    def items(self, close: str) -> Iterator[None]:
        """Yield once before each element (or key) of the array or object just opened."""
        if self.peek() == close:
            self.pos += 1
            return
        while True:
            yield None
            if self.peek() == ",":
                self.pos += 1
                continue
            self.take(close)
            return


def _stream_canonical(cur: _Cursor) -> Iterator[Run]:
    paths: dict[str, str] = {}
    if cur.peek() == "[":
        cur.take("[")
        for _ in cur.items("]"):
            yield from _flat_run(cur.value(), paths)
    else:
        cur.take("{")
        if cur.peek() == "}":
            raise _NotStreamable
        first = cur.key()
        if first not in ("tasks", "runs") or cur.peek() != "[":
            raise _NotStreamable
        cur.take("[")
        for _ in cur.items("]"):
            if first == "runs":
                yield from _flat_run(cur.value(), paths)
            elif cur.peek() == "{":
                yield from _stream_task(cur, paths)
            else:
                cur.value()  # not a task object: skipped, as parse_canonical skips it
        while cur.peek() == ",":  # the rest of the object
            cur.take(",")
            if cur.key() in ("tasks", first):
                raise _NotStreamable  # a later key would replace the runs read so far
            cur.value()
        cur.take("}")
    if cur.peek() != "":
        raise _NotStreamable  # more than one document: not a canonical file


def _stream_task(cur: _Cursor, paths: dict[str, str]) -> Iterator[Run]:
    """A task object: its runs are read one by one once its name is known (a ``task`` key
    before ``runs``, seed 001's order); otherwise the task is parsed whole."""
    cur.take("{")
    fields: dict[str, Any] = {}
    streamed = False
    for _ in cur.items("}"):
        key = cur.key()
        if streamed and key in ("task", "runs"):
            raise _NotStreamable  # a duplicate key would change what was read
        if key == "runs" and fields.get("task") and cur.peek() == "[":
            tid = str(fields["task"])
            cur.take("[")
            for _ in cur.items("]"):
                run = cur.value()
                if isinstance(run, dict):
                    yield _run(run, tid, paths)
            streamed = True
        else:
            fields[key] = cur.value()
    if not streamed:
        yield from _task_runs(fields, paths)


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
