"""The L2 judge: one call per closed session, facts in, verdicts out.

``judge_session(key, events, guides, judge)`` renders the input (``judge_input``), makes the one
call through ``llm`` (``provider``) with the facts schema (``facts``), reads the answer
strictly, and turns it into verdicts by rule (``verdicts``). It returns an ``L2Result`` or
raises a ``JudgeError``; it writes nothing itself (the grading lifecycle stores the result), so
a failed attempt leaves no trace but its error.

No call is made when there is nothing to ask: a session without actions is seed 002's
intentional empty grade (``nothing-to-grade``, zero verdicts); a session whose agent had no
guide in context gets every action ``unguided`` and no guide verdict.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from scorers.judge import replay
from scorers.judge.errors import InputTooLarge, NoProvider
from scorers.judge.facts import Facts, call_schema, facts_json, parse_facts
from scorers.judge.judge_input import (
    DEFAULT_MAX_FIELD_CHARS,
    DEFAULT_MAX_INPUT_TOKENS,
    PROMPT_VERSION,
    GuideInContext,
    JudgeInput,
    build_input,
    prompt_sha256,
)
from scorers.judge.provider import JudgeModel, ask, display_name, price, resolve
from scorers.judge.rules import Judgements, to_verdicts
from scorers.verdicts import ActionVerdict, GuideVerdict, JudgeInfo, L2Result
from trace_ingest.config import load_config

# One judge call, the provider SDK's retries included; a longer one is a network failure.
DEFAULT_TIMEOUT_SECONDS = 180.0


@dataclass(frozen=True)
class JudgeSettings:
    """The ``judge`` section of config.json (docs/configuration.md)."""

    model: str | None = None
    max_input_tokens: int = DEFAULT_MAX_INPUT_TOKENS
    max_field_chars: int = DEFAULT_MAX_FIELD_CHARS
    min_balanced_accuracy: float = 0.8
    prices: Mapping[str, Any] | None = None
    record_to: str | None = None  # a replay file every live answer is appended to
    timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS


def judge_settings(home: str) -> JudgeSettings:
    """The ``judge`` section of config.json, checked by ``trace_ingest.config`` (a bad value
    is reported by ``trail doctor`` and replaced by its default)."""
    section = load_config(home).get("judge") or {}
    return JudgeSettings(
        model=section.get("model"),
        max_input_tokens=int(section.get("max_input_tokens", DEFAULT_MAX_INPUT_TOKENS)),
        max_field_chars=int(section.get("max_field_chars", DEFAULT_MAX_FIELD_CHARS)),
        min_balanced_accuracy=float(section.get("min_balanced_accuracy", 0.8)),
        prices=section.get("prices"),
        record_to=section.get("record_to"),
        timeout_seconds=float(section.get("timeout_seconds", DEFAULT_TIMEOUT_SECONDS)),
    )


@dataclass
class Judged:
    """One judged session (or its intentional empty grade), before it becomes the registry's
    ``scorers.verdicts.L2Result`` (``result``)."""

    session_key: str
    input: JudgeInput
    judgements: Judgements
    judge: dict[str, Any]
    facts: Facts | None = None
    nothing_reason: str | None = None
    guide_names: dict[str, str] = field(default_factory=dict)  # guide key -> display name

    def result(
        self,
        verification: dict[str, Any] | None = None,
        guides_in_context: list[dict[str, Any]] | None = None,
    ) -> L2Result:
        """The registry's L2Result: verdicts by event id and guide name, what was cut, the
        judge with its usage, cost and calibration status (``verification``)."""
        inp = self.input
        guides = [
            GuideVerdict(
                guide=g.key,
                version=g.version,
                verdict=g.verdict,
                evidence=tuple(inp.actions[f.event].event_id for f in g.evidence),
                reason="; ".join(
                    f"E{f.event} {f.relation}: {f.explanation}" for f in g.evidence[:3]
                ),
            )
            for g in self.judgements.guides
        ]
        actions = [
            ActionVerdict(
                event=a.event_id,
                verdict=a.verdict,
                guides=tuple(dict.fromkeys(inp.guides[label].key for label, _ in a.cited)),
            )
            for a in self.judgements.actions
        ]
        cut: list[dict[str, Any]] = [
            {
                "event": inp.all_actions[n].event_id,
                "why": f"E{n} left out of the judge's input by the token budget",
            }
            for n in self.judgements.unjudged
        ]
        cut += [
            {"guide": inp.guides[label].key, "why": f"{chars} characters of its text cut"}
            for label, chars in sorted(inp.cut.guide_chars_cut.items())
        ]
        cut += [
            {"field": where, "why": f"shortened by {chars} characters (still judged)"}
            for where, chars in sorted(inp.cut.truncated.items())
        ]
        facts = dict(self.judge)
        facts["ignoredCitations"] = [
            {"guide": inp.guides[f.guide].key, "event": f"E{f.event}", "why": why}
            for f, why in self.judgements.ignored
        ]
        facts["cutSummary"] = inp.cut.summary()
        status = verification or {}
        info = JudgeInfo(
            model=str(self.judge.get("model") or "none"),
            prompt_version=PROMPT_VERSION,
            prompt_sha256=str(self.judge.get("prompt_sha256") or ""),
            input_tokens=self.judge.get("input_tokens"),
            output_tokens=self.judge.get("output_tokens"),
            cost_usd=self.judge.get("cost_usd"),
            verified=status.get("state"),
            calibration=str(status.get("summary") or status.get("reason") or ""),
            replayed=bool(self.judge.get("replayed")),
            details=facts,
        )
        return L2Result(
            guides=guides,
            actions=actions,
            judge=info,
            cut=cut,
            nothing_reason=self.nothing_reason,
            guides_in_context=list(guides_in_context or []),
        )


def _judge_facts(judge: JudgeModel | None, inp: JudgeInput, spec: str | None) -> dict[str, Any]:
    return {
        "model": judge.name if judge else display_name(spec),
        "spec": judge.spec if judge else spec,
        "replayed": judge.replayed if judge else bool(spec and spec.startswith(replay.PREFIX)),
        "replay_sha256": replay.file_sha256(judge.replay_file)
        if judge and judge.replay_file
        else None,
        "prompt_version": PROMPT_VERSION,
        "prompt_sha256": prompt_sha256(),
        "input_sha256": inp.input_sha256,
        "estimated_input_tokens": inp.estimated_tokens,
        "called": False,
    }


def judge_session(
    session_key: str,
    events: Sequence[dict[str, Any]],
    guides: Sequence[GuideInContext],
    judge: JudgeModel | str | None,
    settings: JudgeSettings | None = None,
    *,
    record_to: str | None = None,
    unreadable: Sequence[str] = (),
) -> Judged:
    """Judge one session. ``events`` are its canonical events (``telemetry.canonical``);
    ``guides`` the guides in context, each with the E number it was loaded at; ``judge`` a
    resolved model or a spec (``llm`` model id, ``replay:FILE``) resolved only when a call is
    needed. Raises ``JudgeError`` (nothing judged, nothing to write). ``record_to`` appends
    the answer to a replay file (offline re-grading later). ``unreadable`` names guides in
    context whose text was not captured: with no other guide, no action gets a verdict."""
    settings = settings or JudgeSettings()
    inp = build_input(
        session_key,
        events,
        guides,
        max_input_tokens=settings.max_input_tokens,
        max_field_chars=settings.max_field_chars,
    )
    model = judge if isinstance(judge, JudgeModel) else None
    spec = judge.spec if isinstance(judge, JudgeModel) else judge
    facts_of_call = _judge_facts(model, inp, spec)
    if unreadable:
        # In context but not captured: the verdicts are against the other guides only.
        facts_of_call["guides_without_text"] = list(unreadable)
    if not inp.all_actions:
        return Judged(
            session_key,
            inp,
            Judgements(),
            facts_of_call,
            nothing_reason="nothing to grade: the session holds no agent action",
        )
    if not inp.guides and unreadable:
        # Guides reached the agent but none was captured: the actions cannot be judged
        # against them, and calling them unguided would claim what nobody looked at.
        facts_of_call["unjudged"] = (
            f"{len(unreadable)} guide(s) in context without captured text "
            f"({', '.join(unreadable[:5])}): no action judged"
        )
        return Judged(session_key, inp, Judgements(), facts_of_call)
    if not inp.guides:
        # Nothing to ask a model: no guidance was in context, so no action was guided.
        return Judged(session_key, inp, to_verdicts(inp, Facts((), frozenset())), facts_of_call)
    if not inp.actions:
        raise InputTooLarge(
            f"no action of {session_key} fits in judge.max_input_tokens="
            f"{settings.max_input_tokens} beside its guides ({inp.cut.summary()})"
        )
    if judge is None:
        raise NoProvider("no judge model configured: pass --judge MODEL or set judge.model")
    if model is None:
        assert isinstance(judge, str)
        model = resolve(judge)
        facts_of_call.update(_judge_facts(model, inp, spec))
    judge = model
    system, prompt, _nonce = inp.messages()
    raw = ask(judge, system, prompt, call_schema(inp), timeout=settings.timeout_seconds)
    facts = parse_facts(raw.text, inp)
    cost, source = (None, None)
    if not judge.replayed:
        cost, source = price(
            raw.resolved_model or getattr(judge.model, "model_name", None) or judge.model.model_id,
            raw.input_tokens,
            raw.output_tokens,
            dict(settings.prices or {}),
        )
    facts_of_call.update(
        called=True,
        resolved_model=raw.resolved_model,
        input_tokens=raw.input_tokens,
        output_tokens=raw.output_tokens,
        token_details=raw.details,
        cost_usd=cost,
        cost_source=source,
        duration_ms=raw.duration_ms,
    )
    record_to = record_to or (None if judge.replayed else settings.record_to)
    if record_to:
        replay.record(
            record_to,
            replay.entry(
                input_sha256=inp.input_sha256,
                session=session_key,
                facts=facts_json(facts),
                usage={"input": raw.input_tokens or 0, "output": raw.output_tokens or 0},
            ),
            recorded_with=judge.name,
        )
    return Judged(session_key, inp, to_verdicts(inp, facts), facts_of_call, facts=facts)
