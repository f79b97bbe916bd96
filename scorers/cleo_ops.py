"""CLEO protocol operations, recognised from a session's tool calls and from CLEO's audit logs.

An operation is CLEO's ``domain.operation`` (``session.list``, ``tasks.find``, ``tasks.add``,
``admin.help``...) with its params, success, whether it failed with ``E_NOT_FOUND``, and the
CQRS gateway it went through (``query`` / ``mutate``: the MCP tool's name, or for a ``ct``
command line the operation's kind, as CLEO's CLI dispatches and audits it). Sources:

- MCP tool calls of a server whose name contains ``cleo`` (``mcp__cleo__cleo_query`` with
  ``{domain, operation, params}``; a tool named ``tasks_find`` also works);
- ``ct`` / ``cleo`` command lines inside shell calls (``ct session list``, ``ct find q --exact``,
  ``ct add "title" --description ...``, ``ct show T001``);
- ``skill_loaded`` events of a CLEO skill (``ct-cleo``) count as a skill lookup;
- CLEO's own audit: ``.cleo/tasks.db`` table ``audit_log``, ``.cleo/audit/*.jsonl``, and the v1
  ``.cleo/todo-log.json``.

Each stream says what it can *see* (``queries``, ``mutations``, ``params``, ``errors``,
``gateway``); the rubric leaves a criterion unscored when its stream cannot see what it needs
(CLEO issue 814: an audit without query rows scored sessions as if no queries happened).
"""

from __future__ import annotations

import glob
import json
import os
import re
import shlex
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from scorers.completeness import Gap, GapKind, Profile
from scorers.contents import (
    Contents,
    agent_steps,
    is_internal,
    nothing_to_grade,
    step_status,
)
from scorers.steps import NOT_RUN, Step, canonical_of
from telemetry.lifecycle import to_epoch
from trace_ingest.errors import ScorerError
from trace_ingest.harnesses.table import mcp_parts

VISIBILITY = ("queries", "mutations", "params", "errors", "gateway")
QUERY_OPS = frozenset(
    {
        "list",
        "find",
        "show",
        "exists",
        "help",
        "status",
        "get",
        "search",
        "tree",
        "stats",
        "history",
        "deps",
        "next",
        "context",
        "skill.show",
        "skill.list",
        "dash",
        "analyze",
    }
)
TASK_VERBS = {
    "find": "find",
    "search": "find",
    "list": "list",
    "ls": "list",
    "show": "show",
    "add": "add",
    "new": "add",
    "exists": "exists",
    "update": "update",
    "complete": "complete",
    "done": "complete",
    "delete": "delete",
    "rm": "delete",
    "archive": "archive",
    "focus": "start",
    "start": "start",
    "stop": "stop",
    "next": "next",
    "tree": "tree",
    "deps": "deps",
    "reparent": "reparent",
}
DOMAIN_WORDS = {
    "session": "session",
    "sessions": "session",
    "admin": "admin",
    "skills": "skills",
    "skill": "skills",
    "tools": "tools",
    "tasks": "tasks",
    "task": "tasks",
    "system": "admin",
}
_SEGMENT = re.compile(r"&&|\|\||[;|\n]")
# E_NOT_FOUND is CLEO's exit code 4 (ExitCode.NOT_FOUND, LAFS code E_NOT_FOUND /
# E_CLEO_NOT_FOUND, message "Task not found" / "Task T9 not found" / "Task or resource not
# found"). Other "not found"
# errors are other codes (PARENT_NOT_FOUND = 10 "Parent task not found", SESSION_NOT_FOUND = 31,
# E_EPIC_NOT_FOUND ...) and are not E_NOT_FOUND.
_NOT_FOUND = re.compile(
    r"\bE_(?:CLEO_)?NOT_FOUND\b|\bexit code 4\b|[\"']exitCode[\"']\s*:\s*4\b"
    r"|(?:^|[^\w\s])\s*task(?: or resource| [\w.-]*\d[\w.-]*)? not found\b",
    re.IGNORECASE,
)
NOT_FOUND_EXIT = 4


def is_not_found(text: str, exit_code: Any = None) -> bool:
    """Whether an error is CLEO's E_NOT_FOUND: exit code 4, or its code or message."""
    if isinstance(exit_code, int | str) and not isinstance(exit_code, bool):
        try:
            if int(exit_code) == NOT_FOUND_EXIT:
                return True
        except ValueError:
            pass
    return bool(text) and bool(_NOT_FOUND.search(text))


_SUCCESS_FALSE = re.compile(r'"success"\s*:\s*false')
OPTION_ALIASES = {
    "-d": "description",
    "--desc": "description",
    "--description": "description",
    "-p": "parent",
    "--parent": "parent",
    "--parent-id": "parent",
    "-t": "title",
    "--title": "title",
    "--exact": "exact",
    "-e": "exact",
}
FLAG_OPTIONS = frozenset({"exact"})


@dataclass
class Op:
    domain: str
    operation: str
    params: dict[str, Any] = field(default_factory=dict)
    success: bool | None = None
    not_found: bool = False
    gateway: str | None = None  # query | mutate | cli
    origin: str = "mcp"  # mcp | cli | skill | audit
    evidence: str = ""
    ts: str | None = None
    # What this audit row records (errors, params, gateway): visibility is judged over the
    # graded session's own rows, not over the whole audit file.
    records: frozenset[str] = frozenset()

    @property
    def name(self) -> str:
        return f"{self.domain}.{self.operation}"

    @property
    def is_query(self) -> bool:
        if self.gateway in ("query", "cleo_query"):
            return True
        if self.gateway in ("mutate", "cleo_mutate"):
            return False
        return self.operation in QUERY_OPS


@dataclass
class OpStream:
    origin: str  # "tool calls" | "audit <path>"
    ops: list[Op]
    visible: frozenset[str]
    blind: dict[str, tuple[GapKind, str]] = field(default_factory=dict)  # cap -> (kind, why)
    # Agent actions the stream looked at (tool calls of the user's agents); None when the
    # stream cannot tell (an audit log records CLEO operations only).
    actions: int | None = None
    nothing: str | None = None  # why the session has nothing to grade, when it has not


# ───────────────────────────── tool calls ─────────────────────────────


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, default=str)
    except (TypeError, ValueError):
        return str(value)


def _outcome(op: Op, step: Step, status: str = "") -> Op:
    """Success from the step; an interrupted step's outcome is unknown (the user stopped it)."""
    op.success = None if status == "interrupted" else step.ok
    blob = _text(step.observation) + "\n" + (step.error or "")
    if is_not_found(blob):
        op.not_found, op.success = True, False
    elif _SUCCESS_FALSE.search(blob):
        op.success = False
    op.evidence, op.ts = step.event_id, step.ts
    return op


def _mcp_op(step: Step, status: str = "") -> Op | None:
    # The harness's own MCP naming rule (Claude Code: mcp__<server>__<tool>), from its
    # descriptor: each harness names MCP tools its own way.
    parts = mcp_parts(step.harness, step.tool)
    if parts is None or not parts[1] or "cleo" not in parts[0].lower():
        return None
    tool = parts[1]
    args = step.args if isinstance(step.args, dict) else {}
    gateway = "query" if "query" in tool else ("mutate" if "mutate" in tool else None)
    domain, operation = args.get("domain"), args.get("operation")
    if not (isinstance(domain, str) and isinstance(operation, str)):
        bits = re.split(r"[._]", tool.removeprefix("cleo_"), maxsplit=1)
        if len(bits) != 2:
            return None
        domain, operation = bits
    params = args.get("params")
    params = (
        dict(params)
        if isinstance(params, dict)
        else {k: v for k, v in args.items() if k not in ("domain", "operation")}
    )
    return _outcome(Op(domain, operation, params, gateway=gateway, origin="mcp"), step, status)


def _cli_tokens(segment: str) -> list[str]:
    try:
        return shlex.split(segment)
    except ValueError:
        return segment.split()


def _cli_params(args: list[str]) -> tuple[list[str], dict[str, Any]]:
    positional: list[str] = []
    params: dict[str, Any] = {}
    i = 0
    while i < len(args):
        arg = args[i]
        if arg.startswith("-"):
            key, _, inline = arg.partition("=")
            name = OPTION_ALIASES.get(key, key.lstrip("-"))
            if name in FLAG_OPTIONS:
                params[name] = True
            elif inline:
                params[name] = inline
            elif i + 1 < len(args) and not args[i + 1].startswith("-"):
                params[name] = args[i + 1]
                i += 1
            else:
                params[name] = True
        else:
            positional.append(arg)
        i += 1
    return positional, params


def parse_cli(command: str) -> list[tuple[str, str, dict[str, Any]]]:
    """``(domain, operation, params)`` for every ``ct``/``cleo`` invocation in a command line."""
    out: list[tuple[str, str, dict[str, Any]]] = []
    for segment in _SEGMENT.split(command):
        tokens = _cli_tokens(segment.strip())
        while tokens and (
            ("=" in tokens[0] and not tokens[0].startswith("-"))
            or tokens[0] in ("npx", "command", "exec", "sudo", "env")
        ):
            tokens = tokens[1:]
        if not tokens or os.path.basename(tokens[0]) not in ("ct", "cleo"):
            continue
        rest = tokens[1:]
        if not rest or rest[0] in ("help", "--help", "-h") or "--help" in rest:
            out.append(("admin", "help", {}))
            continue
        positional, params = _cli_params(rest)
        if not positional:
            continue
        head = positional[0]
        if head in DOMAIN_WORDS and not (head in ("task", "tasks") and len(positional) < 2):
            domain = DOMAIN_WORDS[head]
            op = positional[1] if len(positional) > 1 else ("list" if domain != "admin" else "help")
            args = positional[2:]
            if domain == "tasks":
                op = TASK_VERBS.get(op, op)
        elif head in TASK_VERBS:
            domain, op, args = "tasks", TASK_VERBS[head], positional[1:]
        else:
            domain, op, args = head, positional[1] if len(positional) > 1 else "run", positional[2:]
        if domain == "tasks" and args:
            if op == "add":
                params.setdefault("title", args[0])
            elif op == "find":
                params.setdefault("query", args[0])
            else:
                params.setdefault("taskId", args[0])
        out.append((domain, op, params))
    return out


def ops_from_steps(steps: Iterable[Step], contents: Contents | None = None) -> list[Op]:
    """CLEO operations of the user's agents' steps. A call that never ran (refused by a
    permission policy, cancelled by the harness) is no operation: CLEO never saw it, so it is
    neither a task created nor an error to recover from. Harness-internal agents' steps are
    not the agent's behaviour and are left out."""
    ops: list[Op] = []
    for step in steps:
        status = step_status(step, contents)
        if status in NOT_RUN or is_internal(step, contents):
            continue
        if mcp_parts(step.harness, step.tool) is not None:
            op = _mcp_op(step, status)
            if op is not None:
                ops.append(op)
            continue
        if canonical_of(step) == "shell":
            args = step.args if isinstance(step.args, dict) else {}
            command = args.get("command")
            if isinstance(command, str) and ("ct" in command or "cleo" in command):
                for domain, operation, params in parse_cli(command):
                    # CLEO's CLI dispatches through the same CQRS gateways as MCP and its
                    # audit records them (metadata.gateway query / mutate).
                    gateway = "query" if operation in QUERY_OPS else "mutate"
                    ops.append(
                        _outcome(
                            Op(domain, operation, params, gateway=gateway, origin="cli"),
                            step,
                            status,
                        )
                    )
    return ops


def ops_from_skills(
    events: Iterable[dict[str, Any]], internal_agents: Mapping[str, str] | None = None
) -> list[Op]:
    """Skill loads of the user's agents (not of a harness-internal agent, whether the event
    or only its agent is marked internal)."""
    internal = internal_agents or {}
    return [
        Op(
            "skills",
            "show",
            {"skill": e.get("skill")},
            success=True,
            gateway=None,
            origin="skill",
            evidence=str(e.get("id")),
            ts=e.get("ts"),
        )
        for e in events
        if e.get("kind") == "skill_loaded"
        and "cleo" in str(e.get("skill") or "").lower()
        and not e.get("internal")
        and str(e.get("agent_id") or "") not in internal
    ]


def tool_stream(
    steps: Sequence[Step], events: Sequence[dict[str, Any]], profile: Profile
) -> OpStream:
    """Ops the agent made through its tools; visibility follows the session's profile."""
    contents = profile.contents
    ops = ops_from_steps(steps, contents) + ops_from_skills(events, contents.internal_agents)
    ops.sort(key=lambda o: _epoch(o.ts))
    blind: dict[str, tuple[GapKind, str]] = {}
    for cap, needs in (
        ("queries", ("tool_names", "tool_args")),
        ("mutations", ("tool_names", "tool_args")),
        ("params", ("tool_args",)),
        ("gateway", ("tool_names",)),
        ("errors", ("tool_results", "success_flags")),
    ):
        why = profile.unmet(needs)
        if why:
            kind: GapKind = (
                "trace-missing"
                if any(
                    profile.gaps.get(n) is not None and profile.gaps[n].kind == "trace-missing"
                    for n in needs
                )
                else "cannot-provide"
            )
            blind[cap] = (kind, why)
    visible = frozenset(c for c in VISIBILITY if c not in blind)
    own = agent_steps(steps, contents)
    nothing = nothing_to_grade(steps, contents if contents.events else None)
    return OpStream("tool calls", ops, visible, blind, len(own), nothing)


# ───────────────────────────── CLEO audit logs ─────────────────────────────


def _epoch(stamp: str | None) -> float:
    """Event time for ordering; undated operations sort last."""
    t = to_epoch(stamp)
    return float("inf") if t is None else t


def _json_obj(value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        return value
    if isinstance(value, str) and value.strip().startswith("{"):
        try:
            loaded = json.loads(value)
        except ValueError:
            return {}
        return loaded if isinstance(loaded, dict) else {}
    return {}


def _split_action(action: str) -> tuple[str, str]:
    v1 = {
        "session_start": ("session", "start"),
        "session_end": ("session", "end"),
        "task_created": ("tasks", "add"),
        "status_changed": ("tasks", "update"),
        "task_updated": ("tasks", "update"),
        "session_focus_changed": ("tasks", "start"),
        "task_completed": ("tasks", "complete"),
        "task_deleted": ("tasks", "delete"),
    }
    if action in v1:
        return v1[action]
    if "." in action:
        domain, _, op = action.partition(".")
        return domain, op
    return "tasks", action


def _audit_blind(
    ops: Sequence[Op], *, errors: bool, params: bool, gateway: bool, where: str
) -> dict[str, tuple[GapKind, str]]:
    blind: dict[str, tuple[GapKind, str]] = {}
    if not any(o.is_query for o in ops):
        blind["queries"] = (
            "cannot-provide",
            f"{where} holds no query operations (CLEO audits queries only in "
            "grade mode; see CLEO issue 814)",
        )
    if not any(not o.is_query for o in ops):
        blind["mutations"] = ("cannot-provide", f"{where} holds no mutations")
    if not errors:
        blind["errors"] = ("cannot-provide", f"{where} records no success or error codes")
    if not params:
        blind["params"] = ("cannot-provide", f"{where} records no operation params")
    if not gateway:
        blind["gateway"] = ("cannot-provide", f"{where} records no gateway (query/mutate)")
    return blind


def _stream(origin: str, ops: list[Op], blind: dict[str, tuple[GapKind, str]]) -> OpStream:
    ops.sort(key=lambda o: _epoch(o.ts))
    return OpStream(origin, ops, frozenset(c for c in VISIBILITY if c not in blind), blind)


def _first(*values: Any) -> Any:
    return next((v for v in values if v is not None), None)


def _records(errors: bool, params: Any, gateway: Any) -> frozenset[str]:
    return frozenset(
        name for name, has in (("errors", errors), ("params", params), ("gateway", gateway)) if has
    )


def _from_db(path: str) -> tuple[list[Op], list[str | None]]:
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise ScorerError(f"cannot open CLEO database {path}: {exc}") from exc
    try:
        conn.row_factory = sqlite3.Row
        try:
            rows = conn.execute("SELECT * FROM audit_log ORDER BY timestamp").fetchall()
        except sqlite3.Error as exc:
            raise ScorerError(f"{path}: no readable audit_log table ({exc})") from exc
    finally:
        conn.close()
    ops: list[Op] = []
    sessions: list[str | None] = []
    for row in rows:
        data = dict(row)
        domain, operation = data.get("domain"), data.get("operation")
        if not (domain and operation):
            domain, operation = _split_action(str(data.get("action") or ""))
        details = _json_obj(data.get("details_json"))
        success = data.get("success")
        err = str(data.get("error_message") or "")
        ops.append(
            Op(
                str(domain),
                str(operation),
                details,
                success=None if success is None else bool(success),
                not_found=success != 1 and is_not_found(err, data.get("exit_code")),
                gateway=data.get("gateway"),
                origin="audit",
                evidence=f"audit:{data.get('id')}",
                ts=data.get("timestamp"),
                records=_records(success is not None or bool(err), details, data.get("gateway")),
            )
        )
        sessions.append(data.get("session_id"))
    return ops, sessions


def _from_entries(
    entries: Iterable[dict[str, Any]], where: str
) -> tuple[list[Op], list[str | None]]:
    ops: list[Op] = []
    sessions: list[str | None] = []
    for i, entry in enumerate(entries, 1):
        domain, operation = entry.get("domain"), entry.get("operation")
        if not (isinstance(domain, str) and isinstance(operation, str)):
            domain, operation = _split_action(str(entry.get("action") or ""))
        params = (
            _json_obj(entry.get("params"))
            or _json_obj(entry.get("details"))
            or _json_obj(entry.get("after"))
        )
        # CLEO's AuditEntry: {result: {success, exitCode}, metadata: {gateway}, error}; older
        # and flat writers put success / exitCode / gateway at the top level.
        result = _json_obj(entry.get("result"))
        metadata = _json_obj(entry.get("metadata"))
        error = entry.get("error") or entry.get("errorMessage") or ""
        err = _text(error)
        success = entry.get("success", result.get("success"))
        exit_code = _first(
            entry.get("exitCode"), result.get("exitCode"), _json_obj(error).get("exitCode")
        )
        gateway = entry.get("gateway") or metadata.get("gateway")
        known = isinstance(success, bool)
        ops.append(
            Op(
                domain,
                operation,
                params,
                success=success if known else None,
                not_found=success is not True and is_not_found(err, exit_code),
                gateway=gateway if isinstance(gateway, str) else None,
                origin="audit",
                evidence=f"audit:{where}:{entry.get('id') or i}",
                ts=entry.get("timestamp") or entry.get("ts"),
                records=_records(known or bool(err) or exit_code is not None, params, gateway),
            )
        )
        sessions.append(entry.get("sessionId") or entry.get("session_id"))
    return ops, sessions


def _audit_files(path: str) -> list[str]:
    if os.path.isdir(path):
        base = path if os.path.basename(path) == ".cleo" else os.path.join(path, ".cleo")
        found = (
            [os.path.join(base, "tasks.db")]
            if os.path.isfile(os.path.join(base, "tasks.db"))
            else []
        )
        found += sorted(glob.glob(os.path.join(base, "audit", "*.jsonl")))
        if os.path.isfile(os.path.join(base, "todo-log.json")):
            found.append(os.path.join(base, "todo-log.json"))
        if not found:
            raise ScorerError(
                f"{path}: no CLEO audit data (tasks.db, audit/*.jsonl, todo-log.json)"
            )
        return found
    if not os.path.isfile(path):
        raise ScorerError(f"CLEO audit not found: {path}")
    return [path]


def load_audit(
    path: str, cleo_session: str | None = None, window: tuple[float, float] | None = None
) -> OpStream:
    """One stream from a CLEO audit path (a tasks.db, an audit JSONL, a todo-log.json, or a
    project / .cleo folder). Rows are kept when they belong to ``cleo_session``, else when
    they fall inside ``window`` (epoch seconds), else all."""
    ops: list[Op] = []
    sessions: list[str | None] = []
    for file in _audit_files(path):
        with open(file, "rb") as fh:
            head = fh.read(16)
        if head.startswith(b"SQLite format 3"):
            more, sess = _from_db(file)
        elif file.endswith(".jsonl"):
            with open(file, encoding="utf-8") as fh:
                lines = [ln for ln in fh.read().splitlines() if ln.strip()]
            entries = []
            for ln in lines:
                try:
                    obj = json.loads(ln)
                except ValueError:
                    continue
                if isinstance(obj, dict):
                    entries.append(obj)
            more, sess = _from_entries(entries, os.path.basename(file))
        else:
            try:
                with open(file, encoding="utf-8") as fh:
                    doc = json.load(fh)
            except (OSError, ValueError) as exc:
                raise ScorerError(f"{file}: not a CLEO audit file ({exc})") from exc
            listed: Any = doc.get("entries") if isinstance(doc, dict) else doc
            if not isinstance(listed, list):
                raise ScorerError(f"{file}: no audit entries list")
            more, sess = _from_entries(
                [e for e in listed if isinstance(e, dict)], os.path.basename(file)
            )
            # todo-log v1 keeps a task summary (title, status, priority), not the call's
            # params: a missing description there says nothing about the call.
            for op in more:
                op.records = op.records - {"params"}
        ops += more
        sessions += sess
    kept: list[Op] = []
    for op, sid in zip(ops, sessions, strict=True):
        if cleo_session is not None:
            if sid == cleo_session:
                kept.append(op)
        elif window is not None:
            t = _epoch(op.ts)
            if window[0] <= t <= window[1]:
                kept.append(op)
        else:
            kept.append(op)
    where = f"CLEO audit {path}"
    # What the graded rows record, not what other sessions' rows in the same file do.
    seen = {cap: any(cap in op.records for op in kept) for cap in ("errors", "params", "gateway")}
    blind = _audit_blind(kept, where=where, **seen)
    return _stream(f"audit {path}", kept, blind)


def merge(streams: Sequence[OpStream], tolerance_s: float = 5.0) -> OpStream:
    """Union of streams; an audit op that matches a tool-call op (same name, within
    ``tolerance_s``) is the same operation seen twice and is kept once."""
    if len(streams) == 1:
        return streams[0]
    merged: list[Op] = []
    visible: set[str] = set()
    blind: dict[str, tuple[GapKind, str]] = {}
    for stream in streams:
        visible |= stream.visible
        unmatched = list(merged)
        for op in stream.ops:
            twin = next(
                (
                    m
                    for m in unmatched
                    if m.name == op.name and abs(_epoch(m.ts) - _epoch(op.ts)) <= tolerance_s
                ),
                None,
            )
            if twin is not None:
                unmatched.remove(twin)
                _absorb(twin, op)
                continue
            merged.append(op)
    for stream in streams:
        for cap, why in stream.blind.items():
            if cap not in visible:
                blind.setdefault(cap, why)
    for cap in VISIBILITY:
        if cap not in visible:
            blind.setdefault(cap, ("cannot-provide", "no operation stream sees it"))
    out = _stream(" + ".join(s.origin for s in streams), merged, blind)
    known = [s.actions for s in streams if s.actions is not None]
    out.actions = sum(known) if known else None
    reasons = [s.nothing for s in streams if s.nothing]
    out.nothing = reasons[0] if reasons and len(reasons) == len(known) else None
    return out


def _absorb(twin: Op, op: Op) -> None:
    """One operation seen twice. CLEO's audit row is CLEO's own record of it: its gateway
    (``query`` / ``mutate``: the tool-call copy of a ``ct`` command only knows ``cli``), params,
    success and error code win where the row has them; the tool call fills the rest."""
    # The audit row wins; between two tool-call copies, the first (twin) wins.
    audit, other = (op, twin) if op.origin == "audit" else (twin, op)
    twin.gateway = audit.gateway or other.gateway
    twin.params = audit.params if "params" in audit.records or not other.params else other.params
    twin.success = audit.success if audit.success is not None else other.success
    twin.not_found = (
        audit.not_found if "errors" in audit.records else (audit.not_found or other.not_found)
    )
    twin.records = audit.records | other.records
    twin.evidence = twin.evidence or op.evidence


def stream_profile(stream: OpStream) -> Profile:
    """The rubric's own capability profile: what the op stream can see."""
    gaps = {cap: Gap(kind, cap, why) for cap, (kind, why) in stream.blind.items()}
    return Profile([stream.origin], frozenset(VISIBILITY), stream.visible, gaps, [])
