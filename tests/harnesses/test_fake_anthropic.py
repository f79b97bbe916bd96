"""The rig's own parts without a harness: the fake model's protocol, the installer's failures."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.harnesses import install
from tests.harnesses.fake_anthropic import FakeAnthropic
from tests.harnesses.versions import PINS


def _post(url: str, body: dict[str, Any]) -> tuple[str, str]:
    req = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"content-type": "application/json"}
    )
    with urllib.request.urlopen(req, timeout=10) as resp:
        return resp.headers.get("content-type", ""), resp.read().decode()


def _sse(text: str) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for chunk in text.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in chunk.splitlines())
        out.append((lines["event"], json.loads(lines["data"])))
    return out


def _assemble(events: list[tuple[str, dict[str, Any]]]) -> tuple[list[dict[str, Any]], str]:
    """Rebuild the message's blocks the way an SDK would, and its stop reason."""
    blocks: dict[int, dict[str, Any]] = {}
    partial: dict[int, str] = {}
    stop = ""
    for name, data in events:
        if name == "content_block_start":
            blocks[data["index"]] = dict(data["content_block"])
        elif name == "content_block_delta":
            delta = data["delta"]
            if delta["type"] == "text_delta":
                blocks[data["index"]]["text"] += delta["text"]
            else:
                partial[data["index"]] = partial.get(data["index"], "") + delta["partial_json"]
        elif name == "content_block_stop" and data["index"] in partial:
            blocks[data["index"]]["input"] = json.loads(partial[data["index"]])
        elif name == "message_delta":
            stop = data["delta"]["stop_reason"]
    return [blocks[i] for i in sorted(blocks)], stop


TOOLS = [{"name": "Bash", "input_schema": {"type": "object"}}]


def _request(messages: list[dict[str, Any]], tools: bool = True) -> dict[str, Any]:
    body: dict[str, Any] = {"model": "m", "stream": True, "messages": messages}
    if tools:
        body["tools"] = TOOLS
    return body


def test_streams_parallel_calls_then_finishes(tmp_path: Path) -> None:
    script = {
        "main": [[{"name": "Bash", "input": {"command": "a"}}, {"name": "Read", "input": {}}]],
        "child": [],
    }
    log = tmp_path / "log.jsonl"
    with FakeAnthropic(script, log) as fake:
        assert fake.base_url.startswith("http://127.0.0.1:")
        url = fake.base_url + "/v1/messages?beta=true"
        first = [{"role": "user", "content": [{"type": "text", "text": "go"}]}]
        ctype, text = _post(url, _request(first))
        events = _sse(text)
        assert ctype == "text/event-stream"
        assert [e for e, _ in events][:2] == ["message_start", "content_block_start"]
        assert [e for e, _ in events][-2:] == ["message_delta", "message_stop"]
        blocks, stop = _assemble(events)
        assert stop == "tool_use"
        assert [b["type"] for b in blocks] == ["tool_use", "tool_use"]
        assert [b["name"] for b in blocks] == ["Bash", "Read"]
        assert blocks[0]["input"] == {"command": "a"}
        # The next request carries our ids: the step is recovered from them, even when the
        # blocks come back split over two assistant messages.
        follow = [
            *first,
            {"role": "assistant", "content": [blocks[0]]},
            {"role": "assistant", "content": [blocks[1]]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": blocks[0]["id"]}]},
        ]
        blocks2, stop2 = _assemble(_sse(_post(url, _request(follow))[1]))
        assert stop2 == "end_turn" and blocks2 == [{"type": "text", "text": "Done."}]
        # A retry of the first request replays the first step.
        again, _ = _assemble(_sse(_post(url, _request(first))[1]))
        assert [b["name"] for b in again] == ["Bash", "Read"]
    logged = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e["answer"]["step"] for e in logged if "answer" in e] == [0, 1, 0]
    assert [e["think"]["settled"] for e in logged if "think" in e] == [False]


def test_the_compactors_request_gets_a_summary_and_plays_no_step() -> None:
    script = {"main": [[{"name": "Bash", "input": {"command": "a"}}]], "child": []}
    with FakeAnthropic(script) as fake:
        url = fake.base_url + "/v1/messages"
        ask = "CRITICAL: Respond with TEXT ONLY. Do NOT call any tools.\n\nSummarise."
        compact = [{"role": "user", "content": "go"}, {"role": "user", "content": ask}]
        blocks, stop = _assemble(_sse(_post(url, _request(compact))[1]))
        assert stop == "end_turn" and "<summary>" in blocks[0]["text"]
        # The conversation's first step is still to play.
        first, _ = _assemble(_sse(_post(url, _request(compact[:1]))[1]))
        assert [b["name"] for b in first] == ["Bash"]


def test_children_get_the_child_script_and_side_queries_a_title() -> None:
    script = {
        "main": [[{"name": "Agent", "input": {"prompt": "child"}}]],
        "child": [[{"name": "Bash", "input": {"command": "child-ok"}}]],
    }
    with FakeAnthropic(script) as fake:
        url = fake.base_url + "/v1/messages"
        main = [{"role": "user", "content": "main prompt"}]
        child = [{"role": "user", "content": "child prompt"}]
        other = [{"role": "user", "content": "another child"}]
        assert _assemble(_sse(_post(url, _request(main))[1]))[0][0]["name"] == "Agent"
        assert _assemble(_sse(_post(url, _request(child))[1]))[0][0]["name"] == "Bash"
        assert _assemble(_sse(_post(url, _request(other))[1]))[0][0]["name"] == "Bash"
        title, _ = _assemble(_sse(_post(url, _request(main, tools=False))[1]))
        assert title == [{"type": "text", "text": "Fake title"}]
        body = _request(main, tools=False) | {"stream": False}
        assert json.loads(_post(url, body)[1])["content"][0]["text"] == "Fake title"
        counted = json.loads(_post(url + "/count_tokens", {"messages": main})[1])
        assert counted == {"input_tokens": 42}
        with urllib.request.urlopen(fake.base_url + "/v1/models", timeout=10) as resp:
            assert json.loads(resp.read())["data"][0]["type"] == "model"
    answers = [r["answer"] for r in fake.requests if "answer" in r]
    roles = [(a.get("role"), a.get("conversation")) for a in answers]
    assert roles[:3] == [("main", 0), ("child", 1), ("child", 2)]
    assert all("x-api-key" not in r["headers"] for r in fake.requests)


@pytest.mark.parametrize("harness", ["claude-code", "copilot-cli"])
def test_installer_without_node_fails_loudly(
    harness: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRAIL_HARNESS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(install.HarnessUnavailable, match="apt-get install -y nodejs npm"):
        install.ensure(harness)
    assert not (tmp_path / "cache" / PINS[harness].folder).exists()


def test_cache_folder_follows_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TRAIL_HARNESS_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", "/x/cache")
    pin = PINS["claude-code"]
    assert install.install_dir(pin) == Path("/x/cache/trail/harnesses/claude-code-2.1.328")
    monkeypatch.setenv("TRAIL_HARNESS_CACHE", "/y")
    assert install.binary(pin) == Path("/y/claude-code-2.1.328/node_modules/.bin/claude")
