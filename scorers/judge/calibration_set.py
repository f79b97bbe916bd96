"""The labelled calibration set (``scorers/data/l2_calibration.json``, format
``trail-l2-calibration/1``): short sessions written as steps, their guides, the verdicts a
careful reader gives, and the citations that justify them.

A case expands into canonical events (one ``session_start``, then per step: a prompt; a tool
call and its result; an ``InstructionsLoaded`` guide load; a Skill call and its skill load; an
agent message; a subagent's start or stop), so E numbers are positions in that list exactly as
in a recorded session. A guide with ``loaded_by`` is in force from that step's load event.

Each case also names the answers of two judges, used by tests and the shipped replay files:
``oracle`` (correct citations) and ``careless``: what a judge that follows a planted
instruction would cite (``obeying``, on injection cases) or one that misses the point
(``careless``, on some others); elsewhere the careless judge answers as the oracle.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

from scorers.judge.judge_input import GuideInContext
from scorers.verdicts import ACTION_VERDICTS, GUIDE_VERDICTS
from trace_ingest.errors import ConfigError
from trace_ingest.harnesses.table import canonical_tool

FORMAT = "trail-l2-calibration/1"
SESSION_PREFIX = "calibration/"
_T0 = 1_780_000_000  # a fixed epoch second: cases are timeless test data


@dataclass(frozen=True)
class Case:
    id: str
    split: str
    injection: bool
    events: list[dict[str, Any]]
    guides: list[GuideInContext]
    expected_guides: dict[str, str]  # guide key -> verdict
    expected_actions: dict[int, str]  # E number -> verdict
    steps: dict[str, int]  # step id -> E number
    answers: dict[str, dict[str, Any]]  # judge name -> facts JSON

    @property
    def session_key(self) -> str:
        return SESSION_PREFIX + self.id


def _stamp(i: int) -> str:
    import time

    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(_T0 + i)) + ".000000Z"


class _Builder:
    def __init__(self, case_id: str) -> None:
        self.case_id = case_id
        self.events: list[dict[str, Any]] = []

    def add(self, kind: str, **fields: Any) -> int:
        n = len(self.events) + 1
        digest = hashlib.blake2b(f"{self.case_id}:{n}".encode(), digest_size=16).hexdigest()
        ev: dict[str, Any] = {
            "v": 1,
            "id": digest,
            "harness": "claude-code",
            "source": "transcript",
            "session_id": self.case_id,
            "kind": kind,
            "ts": _stamp(n),
            "received_at": _stamp(n),
            "provenance": [{"source": "transcript", "id": digest}],
        }
        ev.update({k: v for k, v in fields.items() if v is not None})
        self.events.append(ev)
        return n


def _step(b: _Builder, step: dict[str, Any], index: int) -> int | None:
    """Add one step's events; returns the E number that stands for the step."""
    if "user" in step:
        return b.add("prompt", text=str(step["user"]))
    if "agent" in step and "tool" not in step:
        return b.add("agent_stop", text=str(step["agent"]), ok=True)
    if "guide" in step:
        return b.add("guide_loaded", path=str(step["guide"]), hook_event="InstructionsLoaded")
    if "subagent_start" in step:
        return b.add(
            "subagent_start", agent_id=str(step["subagent_start"]), agent_type=step.get("type")
        )
    if "subagent_stop" in step:
        return b.add("subagent_stop", agent_id=str(step["subagent_stop"]))
    call_id = f"toolu_{b.case_id}_{index}"
    if "skill" in step:
        b.add(
            "tool_call",
            tool_name="Skill",
            tool="skill",
            call_id=call_id,
            input={"skill": step["skill"]},
        )
        loaded = b.add("skill_loaded", skill=str(step["skill"]), call_id=call_id)
        b.add("tool_result", tool_name="Skill", tool="skill", call_id=call_id, ok=True, status="ok")
        return loaded
    name = str(step["tool"])
    ok = step.get("ok", True)
    agent = step.get("agent")
    call = b.add(
        "tool_call",
        tool_name=name,
        tool=canonical_tool("claude-code", name),
        call_id=call_id,
        input=step.get("input"),
        agent_id=agent,
        status="ok" if ok else "failed",
        ok=ok,
    )
    b.add(
        "tool_result" if ok else "tool_error",
        tool_name=name,
        tool=canonical_tool("claude-code", name),
        call_id=call_id,
        output=step.get("output"),
        error=None if ok else step.get("output"),
        ok=ok,
        status="ok" if ok else "failed",
        agent_id=agent,
    )
    return call


def _facts(
    citations: list[dict[str, Any]], labels: dict[str, str], steps: dict[str, int]
) -> dict[str, Any]:
    findings = [
        {
            "guide": labels[c["guide"]],
            "event": f"E{steps[c['step']]}",
            "relation": c["relation"],
            "explanation": c.get("why", ""),
        }
        for c in citations
    ]
    cited = {f["guide"] for f in findings}
    return {
        "findings": findings,
        "guides_not_engaged": [g for g in labels.values() if g not in cited],
    }


def expand(spec: dict[str, Any]) -> Case:
    """One case of the set as events, guides and expectations."""
    cid = str(spec["id"])
    b = _Builder(cid)
    b.add("session_start", hook_event="SessionStart")
    steps: dict[str, int] = {}
    for i, step in enumerate(spec["steps"], start=1):
        n = _step(b, step, i)
        if n is not None and step.get("id"):
            steps[str(step["id"])] = n
    b.add("session_end", hook_event="SessionEnd")
    guides = []
    for g in spec["guides"]:
        text = str(g["text"])
        loaded = steps[g["loaded_by"]] if g.get("loaded_by") else 0
        guides.append(
            GuideInContext(
                key=str(g["key"]),
                version=hashlib.sha256(text.encode()).hexdigest(),
                text=text,
                kind=str(g.get("kind", "rule")),
                loaded_at=loaded,
            )
        )
    labels = {g.key: f"G{i}" for i, g in enumerate(guides, start=1)}
    expected = spec["expected"]
    _check(cid, expected, labels, steps)
    oracle = spec.get("oracle", [])
    # The careless judge obeys planted instructions and misses what "careless" says it misses.
    careless = spec["obeying"] if "obeying" in spec else spec.get("careless", oracle)
    answers = {
        "oracle": _facts(oracle, labels, steps),
        "careless": _facts(careless, labels, steps),
    }
    return Case(
        id=cid,
        split=str(spec.get("split", "dev")),
        injection=bool(spec.get("injection")),
        events=b.events,
        guides=guides,
        expected_guides={str(k): str(v) for k, v in expected["guides"].items()},
        expected_actions={steps[k]: str(v) for k, v in expected["actions"].items()},
        steps=steps,
        answers=answers,
    )


def _check(
    cid: str, expected: dict[str, Any], labels: dict[str, str], steps: dict[str, int]
) -> None:
    for key, verdict in expected["guides"].items():
        if key not in labels or verdict not in GUIDE_VERDICTS:
            raise ConfigError(f"calibration case {cid}: bad guide label {key}={verdict}")
    if set(expected["guides"]) != set(labels):
        raise ConfigError(f"calibration case {cid}: every guide needs an expected verdict")
    for key, verdict in expected["actions"].items():
        if key not in steps or verdict not in ACTION_VERDICTS:
            raise ConfigError(f"calibration case {cid}: bad action label {key}={verdict}")


def load_set(path: str | None = None) -> tuple[list[Case], str]:
    """The cases and the set's sha256 (the shipped set, or a file in the same format)."""
    if path is None:
        raw = resources.files("scorers.data").joinpath("l2_calibration.json").read_bytes()
    else:
        try:
            with open(path, "rb") as fh:
                raw = fh.read()
        except OSError as exc:
            raise ConfigError(f"cannot read calibration set {path}: {exc.strerror}") from exc
    try:
        data = json.loads(raw)
        if data.get("format") != FORMAT:
            raise ConfigError(f"calibration set format must be {FORMAT!r}")
        cases = [expand(spec) for spec in data["cases"]]
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ConfigError(f"calibration set {path or 'built-in'} is invalid: {exc!r}") from exc
    return cases, hashlib.sha256(raw).hexdigest()
