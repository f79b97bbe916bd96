"""The truth of a Vibe run, read straight from Vibe 3.0.1's own session store with json (not
trail's importer): ``CURRENT`` -> ``generations/<g>/manifest.json`` -> ``chunks/<sha>.json``.

- Every ``tool_call`` part of the checkpoint is one model call (id, model-facing name,
  arguments) and its ``tool`` message gives the outcome (``success``/``failure``).
- Every ``effect`` of the projection is one tool the harness ran (qualified name, input, status,
  structured output). A model call's effect has the same qualified name; calls made inside
  ``run_typescript`` have an effect and no model call of their own.
- A subagent is the ``child-<hex>`` folder its spawn effect names (``detail.childSessionId``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MAIN = "main"
# What the model calls each builtin (real-harnesses.md §1.3), for the calls the rig makes.
QUALIFIED = {
    "read_file": "file_system.read_file",
    "write_file": "file_system.write_file",
    "edit": "file_system.search_replace",
    "bash": "file_system.bash",
    "wait": "self.wait",
    "todo": "vibe.todo",
}
# The error a tool message carries for a call to a tool name Vibe does not have (no effect, no
# hook), and for a call the run's interruption stopped (`--time-limit`, SIGTERM: the effect is
# `cancelled`, and no post_tool hook fires).
UNKNOWN_TOOL = "InvalidToolCall"
INTERRUPTED = "Interrupted"
# An over-long result: the store keeps an excerpt under this notice and the whole structured
# output in the file the notice names.
SAVED_NOTICE = "<system>The tool output is large."
SAVED_UNDER = "saved to the file system under "
# A skipped call never ran: a hook or the user said no (trail: refused).
_STATUS = {"completed": "ok", "failed": "failed", "cancelled": "cancelled", "skipped": "refused"}


@dataclass
class ModelCall:
    call_id: str
    name: str  # model-facing
    args: Any
    lane: str
    ok: bool | None = None  # from the tool message's outcome; None when it never ran
    result: str | None = None  # the tool message's text
    message: int = 0  # which assistant message of its lane made the call (0, 1, ...)

    @property
    def error_name(self) -> str | None:
        try:
            parsed = json.loads(self.result or "")
        except ValueError:
            return None
        inner = parsed.get("result") if isinstance(parsed, dict) else None
        error = inner.get("error") if isinstance(inner, dict) else None
        return error.get("name") if isinstance(error, dict) else None


@dataclass
class Effect:
    tool_name: str  # qualified
    input: Any
    status: str  # ok / failed / cancelled
    output: Any
    lane: str
    child: str | None = None  # a spawn's child session id

    @property
    def exit_code(self) -> int | None:
        code = self.output.get("returncode") if isinstance(self.output, dict) else None
        return code if isinstance(code, int) else None


@dataclass
class Truth:
    session_id: str
    store: Path
    calls: list[ModelCall] = field(default_factory=list)
    effects: list[Effect] = field(default_factory=list)
    prompts: list[str] = field(default_factory=list)  # typed prompts of the main lane
    children: list[str] = field(default_factory=list)
    raw_text: str = ""  # every store file's text, for the secret check

    def unknown_tool_calls(self) -> list[ModelCall]:
        return [c for c in self.calls if c.error_name == UNKNOWN_TOOL]

    def interrupted_calls(self) -> list[ModelCall]:
        return [c for c in self.calls if c.error_name == INTERRUPTED]

    def model_calls_with_effects(self) -> list[ModelCall]:
        return [c for c in self.calls if c.name in QUALIFIED]

    def nested_effects(self) -> list[Effect]:
        """Effects no model call stands for: the calls made inside run_typescript."""
        pool: dict[tuple[str, str], int] = {}
        for c in self.model_calls_with_effects():
            key = (c.lane, QUALIFIED[c.name])
            pool[key] = pool.get(key, 0) + 1
        nested = []
        for e in self.effects:
            key = (e.lane, e.tool_name)
            if pool.get(key, 0) > 0:
                pool[key] -= 1
            else:
                nested.append(e)
        return nested


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _sections(store: Path, truth: Truth) -> tuple[list[Any], list[Any], dict[str, Any]]:
    current = _load(store / "CURRENT")
    gen = store / "generations" / str(current["generation"])
    manifest = _load(gen / "manifest.json")
    out = []
    for section in ("projection_state", "checkpoint"):
        entries: list[Any] = []
        for sha in manifest[section]["chunks"]:
            chunk = store / "chunks" / f"{sha}.json"
            truth.raw_text += chunk.read_text(encoding="utf-8")
            entries += _load(chunk)
        out.append(entries)
    state = _load(gen / "projection-state.json")
    return out[0], out[1], state["snapshot"]["session"]


def _read(store: Path, lane: str, truth: Truth) -> None:
    projection, checkpoint, _session = _sections(store, truth)
    outcome: dict[str, str] = {}
    texts: dict[str, str] = {}
    for entry in checkpoint:
        msg = entry.get("message") or {}
        if msg.get("role") == "tool":
            outcome[str(msg.get("tool_call_id"))] = str(msg.get("outcome"))
            texts[str(msg.get("tool_call_id"))] = "".join(
                p.get("text", "") for p in msg.get("content") or []
            )
    message = -1
    for entry in checkpoint:
        msg = entry.get("message") or {}
        if msg.get("role") != "assistant":
            continue
        message += 1
        for part in msg.get("content") or []:
            if part.get("type") == "tool_call":
                cid = str(part["id"])
                ok = {"success": True, "failure": False}.get(outcome.get(cid, ""))
                args = (part.get("arguments") or {}).get("value")
                call = ModelCall(cid, str(part["name"]), args, lane, ok, texts.get(cid), message)
                if call.error_name == INTERRUPTED:
                    call.ok = None  # its effect is `cancelled`: stopped, neither ok nor failed
                truth.calls.append(call)
    for entry in projection:
        typed = entry.get("type") == "message" and entry.get("source") == "turn_start"
        if typed and entry.get("role") == "user" and lane == MAIN:
            truth.prompts.append(
                "\n".join(p["text"] for p in entry.get("content") or [] if "text" in p)
            )
        if entry.get("type") != "effect":
            continue
        detail, state = entry.get("detail") or {}, entry.get("state") or {}
        if state.get("status") == "skipped":
            # 3.0.1 stores a skipped call as "tool" with no input; the model call whose
            # result is the skip's reason is the one that never ran.
            skipped = next(
                c
                for c in truth.calls
                if c.lane == lane and c.ok is False and c.result == state.get("reason")
            )
            skipped.ok = None
            detail = {**detail, "toolName": QUALIFIED.get(skipped.name, skipped.name)}
        output = (state.get("output") or {}).get("structured_content")
        if output is None:
            output = _saved(state)
        child = detail.get("childSessionId")
        truth.effects.append(
            Effect(
                str(detail.get("toolName")),
                detail.get("input"),
                _STATUS.get(str(state.get("status")), str(state.get("status"))),
                output,
                lane,
                child,
            )
        )
        if child:
            truth.children.append(str(child))
            _read(store.parent / str(child), str(child), truth)


def _saved(state: dict[str, Any]) -> Any:
    """The whole structured output of an over-long result, from the file its notice names."""
    for part in (state.get("output") or {}).get("content") or []:
        text = part.get("text") if isinstance(part, dict) else None
        if isinstance(text, str) and text.startswith(SAVED_NOTICE) and SAVED_UNDER in text:
            named = text.split(SAVED_UNDER, 1)[1].split(".json", 1)[0] + ".json"
            return _load(Path(named))
    return None


def derive(vibe_home: Path, session_id: str) -> Truth:
    store = vibe_home / "logs" / "session" / "unified" / session_id
    if not (store / "CURRENT").is_file():
        raise AssertionError(f"no unified store for {session_id} under {vibe_home}")
    truth = Truth(session_id, store)
    _read(store, MAIN, truth)
    return truth
