"""The real HTTP provider path: llm's OpenAI plugin, configured the way a user configures an
OpenAI-compatible model (extra-openai-models.yaml, a key in llm's keys.json), pointed at a fake
endpoint on 127.0.0.1. Every failure kind is a named JudgeError: the attempt yields nothing."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from scorers.judge.errors import (
    IncompleteAnswer,
    JudgeError,
    MalformedAnswer,
    NetworkFailure,
    NoProvider,
    ProviderFailure,
    QuotaExceeded,
    UnparseableAnswer,
)
from scorers.judge.judge import JudgeSettings, judge_session, judge_settings
from scorers.judge.provider import resolve
from tests.scorers.judge.conftest import builtin
from tests.scorers.judge.fake_judge_endpoint import USAGE, FakeJudgeEndpoint, Reply

MODEL = "fake-judge"


def configure(user: Path, base_url: str, key: str | None) -> None:
    (user / "extra-openai-models.yaml").write_text(
        f"- model_id: {MODEL}\n"
        "  model_name: fake-judge-1\n"
        f"  api_base: {base_url}\n"
        "  api_key_name: fakejudge\n"
        "  supports_schema: true\n"
        "  can_stream: false\n"
    )
    if key is not None:
        (user / "keys.json").write_text(json.dumps({"fakejudge": key}))


@pytest.fixture
def endpoint(llm_user_path: Path) -> Iterator[tuple[FakeJudgeEndpoint, str]]:
    key = "sk-test-" + secrets.token_hex(8)  # generated at test time, never committed
    with FakeJudgeEndpoint() as fake:
        configure(llm_user_path, fake.base_url, key)
        yield fake, key


def _judge(**settings: Any) -> Any:
    c = builtin("npm-violation")
    return c, judge_session(
        c.session_key, c.events, c.guides, resolve(MODEL), JudgeSettings(**settings)
    )


def test_a_structured_answer_over_http_becomes_verdicts(endpoint: Any) -> None:
    fake, key = endpoint
    c = builtin("npm-violation")
    fake.replies = [Reply.json(c.answers["oracle"])]
    _, result = _judge(prices={"fake-judge-1": {"input_per_mtok": 2.0, "output_per_mtok": 10.0}})
    assert {g.key: g.verdict for g in result.judgements.guides} == c.expected_guides
    assert {a.position: a.verdict for a in result.judgements.actions} == c.expected_actions
    [request] = fake.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["authorization"] == f"Bearer {key}"  # from llm's keys.json
    body = request["body"]
    assert body["model"] == "fake-judge-1"
    schema = body["response_format"]["json_schema"]["schema"]
    assert body["response_format"]["type"] == "json_schema"
    assert schema["required"] == ["findings", "guides_not_engaged"]
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert "[BEGIN UNTRUSTED TRANSCRIPT" in body["messages"][1]["content"]
    judge = result.judge
    assert judge["called"] and not judge["replayed"]
    assert (judge["input_tokens"], judge["output_tokens"]) == (
        USAGE["prompt_tokens"],
        USAGE["completion_tokens"],
    )
    assert judge["cost_usd"] == pytest.approx((1234 * 2.0 + 56 * 10.0) / 1e6)
    assert judge["cost_source"] == "config judge.prices"
    assert judge["model"] == MODEL and len(judge["prompt_sha256"]) == 64


def test_without_a_known_price_the_cost_stays_unknown(endpoint: Any) -> None:
    fake, _ = endpoint
    fake.replies = [Reply.json(builtin("npm-violation").answers["oracle"])]
    _, result = _judge()
    assert result.judge["cost_usd"] is None and result.judge["cost_source"] is None


def test_no_key_is_no_provider(llm_user_path: Path) -> None:
    with FakeJudgeEndpoint() as fake:
        configure(llm_user_path, fake.base_url, key=None)
        with pytest.raises(NoProvider, match="llm keys set fakejudge"):
            _judge()
        assert fake.requests == []


def test_an_unknown_model_is_no_provider() -> None:
    with pytest.raises(NoProvider, match="llm knows no model 'no-such-model'"):
        resolve("no-such-model")


@pytest.mark.parametrize(
    ("reply", "error", "attempts"),
    [
        (Reply.status(429, "insufficient_quota", "insufficient_quota"), QuotaExceeded, 3),
        (Reply.status(401, "invalid_request_error", "invalid_api_key"), NoProvider, 1),
        (Reply.status(500), ProviderFailure, 3),  # the SDK retries 5xx twice, then gives up
        (Reply.status(400, "invalid_request_error"), ProviderFailure, 1),
        (Reply.drop(), NetworkFailure, 3),
        (Reply.text("I think the session was fine."), UnparseableAnswer, 1),
        (Reply.text('{"findings": [{"guide": "G1", "ev', finish="length"), UnparseableAnswer, 1),
        (Reply.json({"findings": [], "guides_not_engaged": []}), IncompleteAnswer, 1),
        (
            Reply.json(
                {
                    "findings": [
                        {"guide": "G1", "event": "E42", "relation": "violates", "explanation": ""}
                    ],
                    "guides_not_engaged": [],
                }
            ),
            MalformedAnswer,
            1,
        ),
    ],
)
def test_each_failure_kind_is_a_named_error(
    endpoint: Any, reply: Reply, error: type[JudgeError], attempts: int
) -> None:
    fake, _ = endpoint
    fake.replies = [reply]
    with pytest.raises(error) as raised:
        _judge()
    assert type(raised.value) is error
    assert len(fake.requests) == attempts


def test_a_refused_connection_is_a_network_failure(llm_user_path: Path) -> None:
    with FakeJudgeEndpoint() as fake:
        url = fake.base_url
    configure(llm_user_path, url, "sk-test-" + secrets.token_hex(4))  # nothing listens now
    with pytest.raises(NetworkFailure):
        _judge()


def test_a_transient_error_then_an_answer_is_a_grade(endpoint: Any) -> None:
    fake, _ = endpoint
    fake.replies = [Reply.status(503), Reply.json(builtin("npm-violation").answers["oracle"])]
    _, result = _judge()
    assert len(fake.requests) == 2 and result.result().verdict == "misaligned"


def test_a_stalled_provider_is_a_network_failure_after_the_timeout(endpoint: Any) -> None:
    """llm sets no deadline and the OpenAI SDK waits 600 s per attempt: without
    judge.timeout_seconds one stalled provider would hold ``trail watch`` for good."""
    fake, _ = endpoint
    fake.replies = [Reply.hang(30)]
    with pytest.raises(NetworkFailure, match=r"no answer within 0\.5 s \(judge\.timeout_seconds\)"):
        _judge(timeout_seconds=0.5)
    assert len(fake.requests) == 1  # the request was sent; its answer never came in time


def test_the_timeout_comes_from_config(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"judge": {"timeout_seconds": 42}}))
    assert judge_settings(str(tmp_path)).timeout_seconds == 42
    (tmp_path / "config.json").write_text(json.dumps({"judge": {"timeout_seconds": 0}}))
    assert judge_settings(str(tmp_path)).timeout_seconds == 180  # out of range: the default


def test_guides_in_context_without_text_are_named_with_the_grade(endpoint: Any) -> None:
    fake, _ = endpoint
    c = builtin("npm-violation")
    fake.replies = [Reply.json(c.answers["oracle"])]
    result = judge_session(
        c.session_key,
        c.events,
        c.guides,
        resolve(MODEL),
        JudgeSettings(),
        unreadable=["(rule files not recorded)"],
    )
    assert result.judge["called"]  # the captured guides are still judged
    assert result.judge["guides_without_text"] == ["(rule files not recorded)"]
