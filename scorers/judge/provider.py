"""The judge's model, through ``llm``: any model an installed ``llm`` plugin provides (keys
managed by ``llm``: ``llm keys set <alias>``, or the plugin's environment variable), or
``replay:FILE`` (recorded answers, ``scorers.judge.replay``).

``resolve`` finds the model and checks it supports structured output; ``ask`` makes the one
call and returns the text with its usage. Every way this can fail is a named ``JudgeError``
(``classify``): no provider, quota, network, any other provider error. ``price`` turns tokens
into US dollars where a price is known: ``judge.prices`` in config.json first, then the
offline price snapshot of ``genai-prices``; unknown stays unknown (never 0).
"""

from __future__ import annotations

import os
import re
import threading
import time
from dataclasses import dataclass, field
from decimal import Decimal
from importlib import resources
from typing import Any

import llm

from scorers.judge import replay
from scorers.judge.errors import (
    JudgeError,
    NetworkFailure,
    NoProvider,
    ProviderFailure,
    QuotaExceeded,
    ReplayMiss,
)

PLUGIN_NAME = "trail_replay"  # the entry point's name (pyproject.toml)
BUILTIN = re.compile(r"[a-z][a-z0-9-]{0,40}")


def ensure_replay_plugin() -> None:
    """Register the replay plugin directly when ``llm`` did not load it from its entry point
    (``LLM_LOAD_PLUGINS`` naming other plugins, or llm's own test mode)."""
    llm.plugins.load_plugins()  # type: ignore[no-untyped-call]  # entry points first
    pm = llm.plugins.pm
    if pm.get_plugin(PLUGIN_NAME) is None and not pm.is_registered(replay):
        pm.register(replay, name=PLUGIN_NAME)


@dataclass(frozen=True)
class JudgeModel:
    """A resolved judge: what was asked for, the ``llm`` model, options for it."""

    spec: str
    model: llm.Model
    options: dict[str, Any] = field(default_factory=dict)
    replay_file: str | None = None
    label: str | None = None  # the name of a shipped replay file

    @property
    def replayed(self) -> bool:
        return self.replay_file is not None

    @property
    def name(self) -> str:
        """How grades and calibrations name this judge: the llm model id; for replay, the
        shipped file's name or the file's base name (its hash tells files apart)."""
        if self.label is not None:
            return f"{replay.PREFIX}{self.label}"
        if self.replay_file is not None:
            return f"{replay.PREFIX}{os.path.basename(self.replay_file)}"
        return self.model.model_id


@dataclass(frozen=True)
class RawAnswer:
    text: str
    input_tokens: int | None
    output_tokens: int | None
    details: dict[str, Any] | None
    resolved_model: str | None
    duration_ms: int


def replay_path(name: str) -> str:
    """A replay file by path, or a shipped one by name (``calibration-oracle``,
    ``calibration-careless``: ``scorers/data/replay-<name>.json``)."""
    path = os.path.abspath(os.path.expanduser(name))
    if os.path.isfile(path):
        return path
    if BUILTIN.fullmatch(name):
        shipped = resources.files("scorers.data").joinpath(f"replay-{name}.json")
        if shipped.is_file():
            return str(shipped)
    raise NoProvider(f"replay file not found: {path}")


def display_name(spec: str | None) -> str | None:
    """The name ``JudgeModel.name`` gives a spec, without resolving it (no call was needed)."""
    if not spec or not spec.startswith(replay.PREFIX):
        return spec
    wanted = spec[len(replay.PREFIX) :]
    if os.path.isfile(os.path.expanduser(wanted)):
        return replay.PREFIX + os.path.basename(wanted)
    return spec


def resolve(spec: str) -> JudgeModel:
    """The ``llm`` model for ``spec`` (a model id or alias, or ``replay:FILE``)."""
    spec = spec.strip()
    if not spec:
        raise NoProvider("no judge model configured: pass --judge MODEL or set judge.model")
    ensure_replay_plugin()
    replay_file = label = None
    options: dict[str, Any] = {}
    name = spec
    if spec.startswith(replay.PREFIX):
        wanted = spec[len(replay.PREFIX) :]
        replay_file = replay_path(wanted)
        if not os.path.isfile(os.path.expanduser(wanted)):
            label = wanted  # a shipped file, by name
        name, options = replay.MODEL_ID, {"file": replay_file}
    try:
        model = llm.get_model(name)
    except llm.UnknownModelError as exc:
        raise NoProvider(
            f"llm knows no model {name!r}: `llm models` lists the installed ones; install the "
            "provider's plugin (`llm install llm-anthropic`, ...) or add an OpenAI-compatible "
            "model to extra-openai-models.yaml"
        ) from exc
    if not model.supports_schema:
        raise NoProvider(
            f"{model.model_id} does not support structured output (schemas), which the judge "
            "needs; `llm models --schemas` lists the models that do"
        )
    return JudgeModel(spec=spec, model=model, options=options, replay_file=replay_file, label=label)


def _status(exc: BaseException) -> int | None:
    for value in (
        getattr(exc, "status_code", None),
        getattr(getattr(exc, "response", None), "status_code", None),
        getattr(exc, "status", None),
    ):
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    cur: BaseException | None = exc
    while cur is not None and cur not in seen and len(seen) < 8:
        seen.append(cur)
        cur = cur.__cause__ or cur.__context__
    return seen


def classify(exc: BaseException, model: str) -> JudgeError:
    """The named failure an exception from a provider plugin stands for. Plugins raise their
    SDK's errors (openai, anthropic, httpx...), so this reads status codes and class names
    rather than importing each SDK."""
    if isinstance(exc, JudgeError):
        return exc
    text = f"{type(exc).__name__}: {exc}"
    where = f"judge {model}"
    kind = getattr(exc, "trail_failure_kind", None)
    if kind is not None:
        return _BY_KIND.get(kind, ProviderFailure)(f"{where}: {exc}")
    if isinstance(exc, replay.ReplayMissError):
        return ReplayMiss(f"{where}: {exc}")
    if isinstance(exc, llm.NeedsKeyException):
        return NoProvider(f"{where}: {exc}")
    for link in _chain(exc):
        status = _status(link)
        name = type(link).__name__.lower()
        if status == 429 or "ratelimit" in name or "quota" in str(link).lower()[:500]:
            return QuotaExceeded(f"{where}: quota or rate limit ({text})")
        if status in (401, 403) or "authentication" in name or "permissiondenied" in name:
            return NoProvider(f"{where}: the provider rejected the key ({text})")
        if status is not None:
            return ProviderFailure(f"{where}: HTTP {status} ({text})")
        if (
            isinstance(link, ConnectionError | TimeoutError)
            or "connection" in name
            or "timeout" in name
            or "transport" in name
            or "protocolerror" in name
        ):
            return NetworkFailure(f"{where}: network failure ({text})")
    return ProviderFailure(f"{where}: {text}")


_BY_KIND: dict[str, type[JudgeError]] = {
    "quota": QuotaExceeded,
    "network": NetworkFailure,
    "provider": ProviderFailure,
    "no_provider": NoProvider,
}


def ask(
    judge: JudgeModel,
    system: str,
    prompt: str,
    schema: dict[str, Any],
    timeout: float | None = None,
) -> RawAnswer:
    """One call with the facts schema; raises a ``JudgeError`` for every failure.

    ``timeout`` (seconds, ``judge.timeout_seconds``) bounds the whole call, the provider SDK's
    own retries included: ``llm`` passes no deadline of its own and the OpenAI SDK waits up to
    600 s per attempt, so without one a stalled provider would hold ``trail watch`` forever.
    Past it the attempt is a ``NetworkFailure`` (nothing is written and the session stays
    queued); the abandoned request finishes or fails in a daemon thread nobody waits for.
    """
    started = time.perf_counter()
    outcome: list[Any] = []

    def call() -> None:
        try:
            response = judge.model.prompt(
                prompt, system=system, schema=schema, stream=False, options=judge.options or None
            )
            outcome.append((response, response.text(), response.usage()))
        except BaseException as exc:  # handed to the caller's thread below
            outcome.append(exc)

    worker = threading.Thread(target=call, name="trail-judge-call", daemon=True)
    worker.start()
    worker.join(timeout)
    if not outcome:
        raise NetworkFailure(
            f"judge {judge.name}: no answer within {timeout:g} s (judge.timeout_seconds)"
        )
    if isinstance(outcome[0], BaseException):
        exc = outcome[0]
        if not isinstance(exc, Exception):
            raise exc  # KeyboardInterrupt and the like are not provider failures
        raise classify(exc, judge.name) from exc  # a named failure, never a traceback
    response, text, usage = outcome[0]
    return RawAnswer(
        text=text,
        input_tokens=usage.input,
        output_tokens=usage.output,
        details=dict(usage.details) if usage.details else None,
        resolved_model=response.resolved_model,
        duration_ms=int((time.perf_counter() - started) * 1000),
    )


def price(
    model_name: str,
    input_tokens: int | None,
    output_tokens: int | None,
    prices: dict[str, Any] | None = None,
) -> tuple[float | None, str | None]:
    """``(usd, source)``: the call's cost and where the price came from, or ``(None, None)``
    when no price is known (or tokens are unknown)."""
    if input_tokens is None or output_tokens is None:
        return None, None
    table = (prices or {}).get(model_name)
    if isinstance(table, dict):
        try:
            usd = (
                Decimal(str(table["input_per_mtok"])) * input_tokens
                + Decimal(str(table["output_per_mtok"])) * output_tokens
            ) / Decimal(1_000_000)
        except (KeyError, ArithmeticError, ValueError):
            return None, None
        return float(usd), "config judge.prices"
    try:
        from genai_prices import Usage, calc_price

        calc = calc_price(
            Usage(input_tokens=input_tokens, output_tokens=output_tokens), model_ref=model_name
        )
    except Exception:  # unknown model (LookupError) or a snapshot it cannot read
        return None, None
    return float(calc.total_price), f"genai-prices {calc.provider.id}/{calc.model.id}"
