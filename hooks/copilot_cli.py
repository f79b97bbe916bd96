"""GitHub Copilot CLI adapter: one hook payload -> a list of schema-v1 events.

Hot-path safe: standard library only (no ``re``, no ``json``; ``os`` only for the session
recovery of CLIs that send no session id). Checked against the real 1.0.102
(shared/reference/real-harnesses.md §2.2-2.3, docs/events.md "Copilot CLI mapping"):

- **Two payload shapes.** Hooks registered under camelCase names (``preToolUse``) get camelCase
  payloads: ``sessionId``, ``timestamp`` in epoch milliseconds, ``toolName``/``toolArgs``
  (Copilot's own tool names: ``view``, ``bash``). Hooks registered under PascalCase names
  (``PreToolUse``) get ``hook_event_name``, ``session_id``, an ISO ``timestamp``,
  ``tool_name``/``tool_input`` with **Claude's** tool names (``Read``, ``Bash``). Some PascalCase
  events still arrive camelCase (``PermissionRequest``, ``SubagentStart``), and camelCase
  payloads carry no event name at all: the event is read from the payload's own name field
  when there is one, else recognised from its fields (``event_of``).
- **No tool-call id** in any payload. Calls and results are paired downstream, deterministically
  and marked ``pairing: "inferred"`` (``telemetry.copilot_pairing``): the adapter only records
  lane, tool and input, which a call and its result share.
- **Subagents.** ``subagentStart``/``subagentStop`` carry the *parent* session id; the child's
  own prompt, tool and stop hooks carry the *child's* id as the session id plus ``agentId``
  and ``parentAgentId`` (snake_case in PascalCase payloads). Both become events of the parent
  session with ``agent_id`` = the child, so a subagent is a lane of its parent's session.
- **Shell exit codes** are only in the result text (``<shellId: 0 completed with exit code
  2>``); a non-zero exit is still a ``postToolUse`` success, as in ``events.jsonl``. The code is
  kept as ``extra.exit_code``.
- **Older CLIs** (before ~1.0.11) send no session id; it is recovered from
  ``$COPILOT_HOME/session-state/*/workspace.yaml`` by cwd and recency, else the events go to a
  provisional session marked ``extra.session_id_source = "provisional"``.
"""

from __future__ import annotations

import time

from trace_ingest import _os as os  # os without its import cost (see _os)
from trace_ingest.events import new_event
from trace_ingest.fastjson import parse_or_none
from trace_ingest.harnesses.copilot_cli import EVENTS as EVENT_KINDS
from trace_ingest.harnesses.copilot_cli import canonical_tool, copilot_home, tool_path

TYPE_CHECKING = False  # not `from typing import`: typing costs the hook ~5 ms
if TYPE_CHECKING:
    from typing import Any

    from trace_ingest.events import Event

HARNESS = "copilot-cli"

# Fields consumed into named event fields (both spellings).
_COMMON = (
    "sessionId",
    "session_id",
    "hook_event_name",
    "hookName",
    "hookEventName",
    "timestamp",
    "cwd",
    "agentId",
    "agent_id",
    "agentType",
    "agent_type",
)
# ``<shellId: 0 completed with exit code 2>`` ends a bash result (1.0.102).
_EXIT_MARK = " completed with exit code "


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _get(payload: dict[str, Any], camel: str, snake: str) -> Any:
    value = payload.get(camel)
    return payload.get(snake) if value is None else value


def event_of(payload: dict[str, Any]) -> str:
    """The hook event a payload belongs to.

    PascalCase payloads name it (``hook_event_name``; ``hookName`` in permission requests);
    camelCase payloads name nothing but ``permissionRequest`` and ``notification``, so the
    event is recognised by the fields only it carries (real-harnesses.md §2.3).
    """
    for key in ("hook_event_name", "hookEventName", "hookName"):
        name = _str(payload.get(key))
        if name and name in EVENT_KINDS:
            # A camelCase notification carries hook_event_name "Notification" (1.0.102).
            return name
    has = payload.__contains__
    if has("toolResult") or has("tool_result"):
        return "postToolUse"
    if (has("toolName") or has("tool_name")) and has("error"):
        return "postToolUseFailure"
    if has("toolName") or has("tool_name"):
        return "preToolUse"
    if has("transformedPrompt"):
        return "userPromptTransformed"
    if has("prompt"):
        return "userPromptSubmitted"
    if has("initialPrompt") or (has("source") and not has("reason")):
        return "sessionStart"
    if has("reason"):
        return "sessionEnd"
    if has("trigger"):
        return "preCompact"
    # A child's own agentStop carries agentId too; only subagentStop names the agent.
    if has("response") or (has("stopReason") and has("agentName")):
        return "subagentStop"
    if has("agentName"):
        return "subagentStart"
    if has("stopReason"):
        return "agentStop"
    if has("errorContext") or has("error"):
        return "errorOccurred"
    if has("notification_type") or has("message"):
        return "notification"
    return ""


def iso_of(value: Any) -> str | None:
    """The harness's own time as trail's ISO form: camelCase epoch ms or a PascalCase ISO
    string (``2026-12-01T11:39:38.926Z`` -> ``2026-12-01T11:39:38.926000Z``)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        if not 0 < value < 1e14:  # ms epochs up to year 5138; anything else is not a time
            return None
        ms = int(value)
        secs, rem = divmod(ms, 1000)
        return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(secs)) + f".{rem * 1000:06d}Z"
    if isinstance(value, str) and len(value) >= 20 and value[10:11] == "T":
        if value.endswith("Z") and value[19:20] in (".", "Z"):
            frac = value[20:-1] if value[19:20] == "." else ""
            if frac.isdigit() or not frac:
                return value[:19] + "." + (frac + "000000")[:6] + "Z"
        return None
    return None


def exit_code(text: Any) -> int | None:
    """The exit code a bash result text ends with, if any."""
    if not isinstance(text, str):
        return None
    at = text.rfind(_EXIT_MARK)
    if at < 0:
        return None
    digits = text[at + len(_EXIT_MARK) :].split(">", 1)[0].strip()
    neg = digits.startswith("-")
    if (digits[1:] if neg else digits).isdigit() and len(digits) < 12:
        return int(digits)
    return None


def _args(value: Any) -> Any:
    """Tool arguments: an object in 1.0.102; a JSON string in older CLIs (harnesses.md §2.4)."""
    if isinstance(value, str) and value[:1] in ("{", "["):
        parsed = parse_or_none(value)
        if parsed is not None:
            return parsed
    return value


def normalize(payload: dict[str, Any], received_at: str, digest: str) -> list[Event]:
    """Normalize one Copilot CLI hook payload (either shape); unknown events become ``other``
    with every field kept under ``extra``."""
    hook_event = event_of(payload)
    kind = EVENT_KINDS.get(hook_event, "other")
    session_id = _str(_get(payload, "sessionId", "session_id"))
    agent_id = _str(_get(payload, "agentId", "agent_id"))
    parent = _str(_get(payload, "parentAgentId", "parent_agent_id"))
    rest = {k: v for k, v in payload.items() if k not in _COMMON}
    recovered = None
    if session_id is None:
        session_id, recovered = recover_session(_str(payload.get("cwd")))
    # A child's own hooks carry its id as the session id and the parent's as parentAgentId.
    if parent and agent_id and session_id == agent_id:
        session_id = parent
    ev = new_event(
        harness=HARNESS,
        source="hook",
        session_id=session_id,
        kind=kind,
        received_at=received_at,
        ts=iso_of(payload.get("timestamp")),
        id_parts=(received_at, digest, 0),
    )
    ev["hook_event"] = hook_event or None
    cwd = payload.get("cwd")
    if cwd is not None:
        ev["cwd"] = cwd if isinstance(cwd, str) else str(cwd)
    if agent_id:
        ev["agent_id"] = agent_id
    agent_type = _str(_get(payload, "agentType", "agent_type"))
    if agent_type:
        ev["agent_type"] = agent_type
    if recovered:
        rest["session_id_source"] = recovered
    _snake(rest, "parentAgentId", "parent_agent_id")
    if "timestamp" in payload and ev["ts"] == received_at:
        rest["timestamp"] = payload["timestamp"]  # not a time trail could read: kept as sent
    fill = _FILL.get(kind)
    if fill is not None:
        fill(ev, rest)
    if kind in ("session_start", "session_end") and "transcript_path" not in rest:
        _name_log(session_id, rest)
    if rest:
        ev["extra"] = rest
    if kind == "session_start":
        return [ev, *_guides(ev, received_at, digest)]
    return [ev]


def _guides(start: Event, received_at: str, digest: str) -> list[Event]:
    """The rule files Copilot reads by construction at session start, as ``guide_loaded``
    events (docs/events.md, "guide_loaded and skill_loaded"): no Copilot hook announces them.
    The project is ``COPILOT_PROJECT_DIR`` (set for hooks, real-harnesses.md §2.2), else the
    payload's cwd. Only on session start, so other hooks never pay for the file reads."""
    from trace_ingest.guides import (
        COPILOT_RULE_FILES,
        MAX_RULE_FILES,
        read_guide_text,
        rule_files,
    )

    root = os.environ.get("COPILOT_PROJECT_DIR") or start.get("cwd")
    out: list[Event] = []
    paths = rule_files(root, COPILOT_RULE_FILES, limit=MAX_RULE_FILES + 1)
    if len(paths) > MAX_RULE_FILES:
        # Copilot reads them all; the hook stops at the bound (see rule_files) and says so on
        # the session start, so the guide context knows it is incomplete (scorers.guides).
        del paths[MAX_RULE_FILES:]
        extra = start.setdefault("extra", {})
        extra["rule_files_cut"] = (
            f"more than {MAX_RULE_FILES} rule files under {root}: "
            f"only the first {MAX_RULE_FILES} were recorded"
        )
    for n, path in enumerate(paths, start=1):
        ev = new_event(
            harness=HARNESS,
            source="hook",
            session_id=start["session_id"],
            kind="guide_loaded",
            received_at=received_at,
            ts=start["ts"],
            id_parts=(received_at, digest, n),
        )
        ev["hook_event"] = start.get("hook_event")
        ev["cwd"] = start.get("cwd")
        ev["path"] = path
        ev["text"] = read_guide_text(path)
        ev["extra"] = {"reason": "session_start"}
        out.append(ev)
    return out


def _name_log(session_id: str, rest: dict[str, Any]) -> None:
    """Only agentStop, subagent and preCompact payloads name the session's log; a session cut
    short (a model error) has none of them. The log is always
    ``$COPILOT_HOME/session-state/<id>/events.jsonl`` (real-harnesses.md §2.4) and the hook
    runs with Copilot's environment: session bounds name it once its folder exists, so the
    mirror can reconcile the session with it (telemetry.reconcile)."""
    if not session_id or "/" in session_id or session_id[:1] == ".":
        return
    folder = os.path.join(copilot_home(), "session-state", session_id)
    log = os.path.join(folder, "events.jsonl")
    # The folder, not the file: a session cut short by a model error may not have flushed its
    # log yet when sessionEnd runs (the rig's model_error scenario, seen under light load);
    # the mirror checks the file when it reads it, after the session closed.
    if os.path.isdir(folder):
        rest["transcript_path"] = log
        rest["transcript_path_from"] = "copilot_home"


def _fill_tool(ev: Event, rest: dict[str, Any]) -> None:
    name = _str(rest.pop("toolName", None)) or _str(rest.pop("tool_name", None))
    ev["tool_name"] = name
    ev["tool"] = canonical_tool(name)
    ev["call_id"] = None  # Copilot sends none: telemetry.copilot_pairing infers the pairing
    for key in ("toolArgs", "tool_input", "toolInput"):
        if key in rest:
            ev["input"] = _args(rest.pop(key))
            ev["path"] = tool_path(ev["input"])
            break


def _fill_call(ev: Event, rest: dict[str, Any]) -> None:
    _fill_tool(ev, rest)
    ev["ok"] = None


def _fill_result(ev: Event, rest: dict[str, Any]) -> None:
    _fill_tool(ev, rest)
    result = rest.pop("toolResult", None)
    if result is None:
        result = rest.pop("tool_result", None)
    kind = text = None
    if isinstance(result, dict):
        kind = _str(result.get("resultType")) or _str(result.get("result_type"))
        text = result.get("textResultForLlm")
        if text is None:
            text = result.get("text_result_for_llm")
    ev["output"] = text if text is not None else result
    # 1.0.102 fires postToolUse for successes only; older CLIs also sent "failure" and
    # "denied" here (harnesses.md §2.4).
    status = {"failure": "failed", "denied": "refused"}.get(kind or "", "ok")
    if status == "refused":
        ev["kind"] = "permission"
    ev["status"] = status
    ev["ok"] = {"ok": True, "failed": False}.get(status)
    code = exit_code(text)
    if code is not None:
        rest["exit_code"] = code


def _fill_failure(ev: Event, rest: dict[str, Any]) -> None:
    _fill_tool(ev, rest)
    error = rest.pop("error", None)
    ev["error"] = error if isinstance(error, str) or error is None else str(error)
    # "Denied by preToolUse hook …": the call never ran (a hook refused it).
    refused = isinstance(error, str) and error.startswith("Denied by ")
    ev["status"] = "refused" if refused else "failed"
    ev["ok"] = None if refused else False
    if refused:
        ev["kind"] = "permission"


def _fill_permission(ev: Event, rest: dict[str, Any]) -> None:
    _fill_tool(ev, rest)
    ev["status"] = "asked"
    ev["ok"] = None  # the tool has not run yet (and fires even with --allow-all-tools)


def _fill_prompt(ev: Event, rest: dict[str, Any]) -> None:
    ev["text"] = _str(rest.pop("prompt", None))


def _fill_start(ev: Event, rest: dict[str, Any]) -> None:
    prompt = rest.pop("initialPrompt", None)
    if prompt is None:
        prompt = rest.pop("initial_prompt", None)
    if prompt is not None:
        rest["initial_prompt"] = prompt


def _fill_stop(ev: Event, rest: dict[str, Any]) -> None:
    for key in ("response", "last_assistant_message"):
        if key in rest:
            ev["text"] = _str(rest.pop(key))
    _snake(rest, "transcriptPath", "transcript_path")
    _snake(rest, "stopReason", "stop_reason")
    if ev["kind"] == "agent_stop":
        ev["ok"] = True


def _fill_subagent(ev: Event, rest: dict[str, Any]) -> None:
    _snake(rest, "transcriptPath", "transcript_path")
    _snake(rest, "agentName", "agent_name")
    _snake(rest, "parentAgentId", "parent_agent_id")
    if ev["kind"] == "subagent_stop":
        _fill_stop(ev, rest)


def _fill_compaction(ev: Event, rest: dict[str, Any]) -> None:
    ev["text"] = _str(rest.pop("customInstructions", None)) or None
    _snake(rest, "transcriptPath", "transcript_path")


def _fill_notification(ev: Event, rest: dict[str, Any]) -> None:
    ev["text"] = _str(rest.pop("message", None))
    rest.pop("hook_event_name", None)


def _fill_other(ev: Event, rest: dict[str, Any]) -> None:
    error = rest.get("error")
    if isinstance(error, dict):
        ev["error"] = _str(error.get("message"))
        ev["ok"] = False
    elif isinstance(error, str):
        ev["error"] = error
        ev["ok"] = False
    _snake(rest, "errorContext", "error_context")
    if ev.get("hook_event") == "userPromptTransformed":
        rest.pop("prompt", None)  # the prompt event has it; keep what Copilot added
        _snake(rest, "transformedPrompt", "transformed_prompt")


def _snake(rest: dict[str, Any], camel: str, snake: str) -> None:
    """Keep a camelCase field under its snake_case name (one spelling for both shapes)."""
    if camel in rest:
        value = rest.pop(camel)
        rest.setdefault(snake, value)


_FILL = {
    "tool_call": _fill_call,
    "tool_result": _fill_result,
    "tool_error": _fill_failure,
    "permission": _fill_permission,
    "prompt": _fill_prompt,
    "session_start": _fill_start,
    "agent_stop": _fill_stop,
    "subagent_start": _fill_subagent,
    "subagent_stop": _fill_subagent,
    "compaction": _fill_compaction,
    "notification": _fill_notification,
    "other": _fill_other,
}


# -- older CLIs: no session id in the payload ------------------------------------------------

MAX_WORKSPACES = 500  # session-state folders looked at, newest first
MAX_YAML_BYTES = 64 * 1024


def _yaml_fields(path: str) -> dict[str, str]:
    """Top-level ``key: value`` scalars of a small workspace.yaml (no YAML library: the file
    is flat, and only ``id``, ``cwd`` and ``git_root`` are wanted)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | os.O_NONBLOCK)
    except OSError:
        return {}
    try:
        data = os.read(fd, MAX_YAML_BYTES)
    except OSError:
        return {}
    finally:
        os.close(fd)
    out: dict[str, str] = {}
    for line in data.decode("utf-8", "replace").splitlines():
        if not line or line[0] in " \t#-":
            continue
        key, sep, value = line.partition(":")
        if sep and key in ("id", "cwd", "git_root"):
            value = value.strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]
            out[key] = value
    return out


def recover_session(cwd: str | None) -> tuple[str, str]:
    """``(session id, how it was found)`` for a payload without one.

    The newest ``session-state/<id>/`` (by its ``events.jsonl``'s modification time) whose
    ``workspace.yaml`` names this ``cwd`` (or a ``git_root`` containing it) — the Copilot
    session running this hook. Without one, a provisional id derived from the cwd and the day,
    marked as such, so the events are kept together and visibly not a real session.
    """
    state = os.path.join(copilot_home(), "session-state")
    best: tuple[float, str] | None = None
    if cwd:
        try:
            entries = list(os.scandir(state))
        except OSError:
            entries = []
        dated = []
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    log = os.path.join(entry.path, "events.jsonl")
                    dated.append((os.stat(log, follow_symlinks=False).st_mtime, entry))
            except OSError:
                continue
        dated.sort(key=lambda pair: pair[0], reverse=True)
        for mtime, entry in dated[:MAX_WORKSPACES]:
            fields = _yaml_fields(os.path.join(entry.path, "workspace.yaml"))
            root = fields.get("git_root") or ""
            inside = bool(root) and (cwd == root or cwd.startswith(root.rstrip("/") + "/"))
            if fields.get("cwd") == cwd or inside:
                best = (mtime, fields.get("id") or entry.name)
                break
    if best is not None:
        return best[1], "workspace.yaml"
    from trace_ingest._blake import blake2b

    day = time.strftime("%Y%m%d", time.gmtime())
    tag = blake2b(f"{cwd or ''}\0{day}".encode("utf-8", "replace"), digest_size=6).hexdigest()
    return f"provisional-{day}-{tag}", "provisional"
