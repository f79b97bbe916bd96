"""The fake OpenAI chat-completions server's protocol, without a harness (an SDK's view of it)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.harnesses import install
from tests.harnesses.fake_openai import FakeOpenAI
from tests.harnesses.versions import PINS


def _post(url: str, body: dict[str, Any]) -> tuple[str, str]:
    req = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"content-type": "application/json"}
    )
    with urllib.request.urlopen(req, timeout=10) as resp:
        return resp.headers.get("content-type", ""), resp.read().decode()


def _events(text: str) -> list[Any]:
    """The ``data:`` payloads of a stream, ``[DONE]`` kept as the string."""
    out: list[Any] = []
    for chunk in text.strip().split("\n\n"):
        assert chunk.startswith("data: "), chunk
        data = chunk.removeprefix("data: ")
        out.append(data if data == "[DONE]" else json.loads(data))
    return out


def _assemble(events: list[Any]) -> dict[str, Any]:
    """Rebuild the message as the OpenAI SDKs do: text, calls by ``index``, finish, usage."""
    text = ""
    calls: dict[int, dict[str, Any]] = {}
    finish = None
    usage = None
    for ev in events:
        if ev == "[DONE]":
            continue
        if ev.get("usage"):
            usage = ev["usage"]
        for choice in ev["choices"]:
            delta = choice["delta"]
            text += delta.get("content") or ""
            for part in delta.get("tool_calls") or []:
                call = calls.setdefault(part["index"], {"arguments": ""})
                if "id" in part:
                    call["id"] = part["id"]
                    call["name"] = part["function"]["name"]
                call["arguments"] += part["function"]["arguments"]
            finish = choice["finish_reason"] or finish
    listed = [calls[i] | {"input": json.loads(calls[i]["arguments"])} for i in sorted(calls)]
    return {"text": text, "calls": listed, "finish": finish, "usage": usage}


TOOLS = [{"type": "function", "function": {"name": "bash", "parameters": {"type": "object"}}}]


def _request(messages: list[dict[str, Any]], tools: bool = True, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"model": "fake-model", "stream": True, "messages": messages, **extra}
    if tools:
        body["tools"] = TOOLS
    return body


def _assistant(calls: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": "{}"}}
            for c in calls
        ],
    }


def test_streams_parallel_calls_then_finishes(tmp_path: Path) -> None:
    script = {
        "main": [
            [
                {"name": "view", "input": {"path": "/p/a.txt"}},
                {"name": "bash", "input": {"command": "echo ok"}},
            ]
        ],
        "child": [],
    }
    log = tmp_path / "log.jsonl"
    with FakeOpenAI(script, log) as fake:
        assert fake.base_url.startswith("http://127.0.0.1:")
        url = fake.base_url + "/v1/chat/completions"
        first = [
            {"role": "system", "content": "You are a fake."},
            {"role": "user", "content": [{"type": "text", "text": "go"}]},
        ]
        ctype, text = _post(url, _request(first, stream_options={"include_usage": True}))
        events = _events(text)
        assert ctype == "text/event-stream"
        assert events[0]["choices"][0]["delta"]["role"] == "assistant"
        assert events[-1] == "[DONE]"
        assert events[-2]["choices"] == [] and events[-2]["usage"]["total_tokens"] == 110
        msg = _assemble(events)
        assert msg["finish"] == "tool_calls"
        assert [c["name"] for c in msg["calls"]] == ["view", "bash"]
        assert msg["calls"][1]["input"] == {"command": "echo ok"}
        assert len({c["id"] for c in msg["calls"]}) == 2
        # Both calls come back: the next step (none left) is the closing text, and the fake
        # knows which calls the harness ran from the `tool` messages.
        follow = [
            *first,
            _assistant(msg["calls"]),
            {"role": "tool", "tool_call_id": msg["calls"][0]["id"], "content": "a"},
            {"role": "tool", "tool_call_id": msg["calls"][1]["id"], "content": "ok"},
        ]
        done = _assemble(_events(_post(url, _request(follow))[1]))
        assert done == {"text": "Done.", "calls": [], "finish": "stop", "usage": None}
        assert fake.executed == {c["id"] for c in msg["calls"]}
        # A retry of the first request replays the first step.
        again = _assemble(_events(_post(url, _request(first))[1]))
        assert [c["name"] for c in again["calls"]] == ["view", "bash"]
    logged = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e["answer"]["step"] for e in logged if "answer" in e] == [0, 1, 0]
    assert [e["think"]["settled"] for e in logged if "think" in e] == [False]


def test_children_side_queries_models_and_errors() -> None:
    script = {
        "main": [[{"name": "task", "input": {"prompt": "child"}}], {"error": 400, "message": "no"}],
        "child": [[{"name": "bash", "input": {"command": "child-ok"}}], {"text": "child done"}],
    }
    with FakeOpenAI(script) as fake:
        url = fake.base_url + "/v1/chat/completions"
        main = [{"role": "user", "content": "main prompt"}]
        child = [{"role": "user", "content": "child prompt"}]
        first = _assemble(_events(_post(url, _request(main))[1]))
        assert first["calls"][0]["name"] == "task"
        child_call = _assemble(_events(_post(url, _request(child))[1]))["calls"][0]
        assert child_call["name"] == "bash"
        assert child_call["id"].startswith("call_fake_1_0_")
        # The child's second step is text; a second child conversation starts its own script.
        later = [*child, _assistant([child_call])]
        assert _assemble(_events(_post(url, _request(later))[1]))["text"] == "child done"
        other = [{"role": "user", "content": "another child"}]
        assert _assemble(_events(_post(url, _request(other))[1]))["calls"][0]["name"] == "bash"
        # Side requests (no tools) get a title, streamed or not.
        title = _assemble(_events(_post(url, _request(main, tools=False))[1]))
        assert (title["text"], title["finish"]) == ("Fake title", "stop")
        plain = json.loads(_post(url, _request(main, tools=False) | {"stream": False})[1])
        assert plain["object"] == "chat.completion"
        assert plain["choices"][0]["message"]["content"] == "Fake title"
        # Not streamed, with tools: the calls are in the message.
        whole = json.loads(_post(url, _request(main) | {"stream": False})[1])
        assert whole["choices"][0]["finish_reason"] == "tool_calls"
        assert whole["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "task"
        # The main conversation's second step is an HTTP 400 with an OpenAI error body.
        after = [*main, _assistant([first["calls"][0]])]
        with pytest.raises(urllib.error.HTTPError) as err:
            _post(url, _request(after))
        assert err.value.code == 400
        assert json.loads(err.value.read())["error"]["message"] == "no"
        with urllib.request.urlopen(fake.base_url + "/v1/models", timeout=10) as resp:
            assert json.loads(resp.read())["data"][0]["id"] == "fake-model"
    answers = [r["answer"] for r in fake.requests if "answer" in r]
    roles = [(a.get("role"), a.get("conversation")) for a in answers]
    assert roles[:4] == [("main", 0), ("child", 1), ("child", 1), ("child", 2)]
    assert all("authorization" not in r["headers"] for r in fake.requests)


def test_versions_are_read_from_each_programs_own_words() -> None:
    assert install.reports_version("2.1.328 (Claude Code)", "2.1.328")
    assert install.reports_version("GitHub Copilot CLI 1.0.102.\nRun 'copilot update'", "1.0.102")
    assert not install.reports_version("GitHub Copilot CLI 1.0.1020.", "1.0.102")
    assert not install.reports_version("GitHub Copilot CLI 11.0.102", "1.0.102")
    assert not install.reports_version("1.0.102.5", "1.0.102")


def test_copilot_runs_share_one_extraction(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every run points the loader at the installation's own package cache, not HOME."""
    monkeypatch.setenv("TRAIL_HARNESS_CACHE", "/c")
    pin = PINS["copilot-cli"]
    assert install.program_env(pin) == {
        "COPILOT_PKG_CACHE_HOME": "/c/copilot-cli-1.0.102/pkg-cache"
    }
    assert install.program_env(PINS["claude-code"]) == {}
    assert "copilot-cli" in install.default_harnesses()
