"""The real Claude Code with ``trail install --transport http``: collector up, down, hung.

Each run drives the pinned Claude Code offline against the rig's fake model (tests/harnesses/
rig.py), with trail's http hooks posting to a real ``trail collect`` process on 127.0.0.1
(docs/collector.md). The process hook, run on the same script, is the reference for what the
collector must record. When the collector is down, hangs or answers an error, Claude Code must
carry on: every tool call runs, ``claude -p`` exits 0, and nothing is blocked; a JSON decision
would block (why the collector answers with an empty body).
"""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tests.harnesses.fake_anthropic import FakeAnthropic
from tests.harnesses.rig import (
    TRAIL,
    RunPaths,
    base_env,
    claude_launch,
    launch,
    settled,
    trail,
    trail_json,
)

CALLS = 6


def script(project: Path) -> dict[str, list[Any]]:
    steps: list[Any] = []
    for i in range(CALLS):
        target = str(project / f"file{i % 2}.txt")
        if i % 3 == 0:
            steps.append([{"name": "Read", "input": {"file_path": target}}])
        elif i % 3 == 1:
            steps.append([{"name": "Bash", "input": {"command": f"echo step-{i}"}}])
        else:
            content = f"line {i}\n"
            steps.append([{"name": "Write", "input": {"file_path": target, "content": content}}])
    return {"main": steps}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextmanager
def collector(paths: RunPaths, port: int) -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen(
        [str(TRAIL), "collect", "--port", str(port)],
        env=base_env(paths),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline()  # listening
        yield proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=60)


@contextmanager
def hung_server(port: int) -> Iterator[None]:
    """Accepts connections and reads them, never answers (a wedged collector)."""
    listener = socket.create_server(("127.0.0.1", port))
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except TimeoutError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        for conn in held:
            conn.close()
        listener.close()


ANSWERS: dict[str, tuple[int, bytes]] = {
    "500": (500, b"internal error"),
    "html": (200, b"<html>not json</html>"),
    "block": (200, b'{"decision": "block", "reason": "a collector must never say this"}'),
}


@contextmanager
def answering_server(port: int, status: int, body: bytes) -> Iterator[None]:
    """A misbehaving collector: every POST gets ``status`` and ``body``."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield
    finally:
        server.shutdown()
        server.server_close()


def drive(claude: Path, root: Path, transport: str, mode: str = "up") -> dict[str, Any]:
    paths = RunPaths(root)
    for d in (paths.home, paths.tmp, paths.project, paths.trail_home):
        d.mkdir(parents=True)
    for i in range(2):
        (paths.project / f"file{i}.txt").write_text("first line\n")
    port = free_port()
    if transport == "http":
        trail(paths, "install", "--transport", "http", "--port", str(port))
    else:
        trail(paths, "install")
    with FakeAnthropic(script(paths.project), paths.server_log, 0.0, None) as fake:
        prompt = "Work through the files."
        env, cmd = claude_launch(paths, fake.base_url, claude, prompt, "Bash Read Write")

        def go() -> tuple[int, int, float]:
            return launch(cmd, paths, env, f"claude ({transport}, collector {mode})", 300)

        if transport == "process" or mode == "down":
            pid, code, _ = go()
            settled(pid, paths)  # the process hooks are async: let them finish
        elif mode == "hung":
            with hung_server(port):
                _, code, _ = go()
        elif mode in ANSWERS:
            with answering_server(port, *ANSWERS[mode]):
                _, code, _ = go()
        else:
            with collector(paths, port):
                _, code, _ = go()
    stream = [json.loads(x) for x in paths.stream.read_text().splitlines() if x.strip()]
    results = [
        b
        for m in stream
        if m.get("type") == "user"
        for b in m["message"].get("content", [])
        if isinstance(b, dict) and b.get("type") == "tool_result"
    ]
    return {"paths": paths, "code": code, "results": results, "stderr": paths.stderr.read_text()}


def shown(paths: RunPaths) -> list[tuple[str, str | None, str | None]]:
    """``trail show --json`` of the one session: what each event is, without times and ids."""
    trail(paths, "sync")
    (session,) = trail_json(paths, "sessions", "--json")
    view = trail_json(paths, "show", session["key"], "--json")
    return [(e["kind"], e.get("tool"), e.get("hook_event")) for e in view["events"]]


def test_the_collector_records_what_the_process_hook_records(
    claude_binary: Path, tmp_path: Path
) -> None:
    process = drive(claude_binary, tmp_path / "process", "process")
    http = drive(claude_binary, tmp_path / "http", "http")
    for run in (process, http):
        assert run["code"] == 0 and len(run["results"]) == CALLS
        assert not any(r.get("is_error") for r in run["results"])
    assert http["stderr"] == ""  # no hook error at all
    want, got = shown(process["paths"]), shown(http["paths"])
    assert sum(1 for k, _, _ in got if k == "tool_call") == CALLS
    assert got == want


def test_claude_code_carries_on_when_the_collector_is_down(
    claude_binary: Path, tmp_path: Path
) -> None:
    down = drive(claude_binary, tmp_path / "down", "http", "down")
    assert down["code"] == 0 and len(down["results"]) == CALLS
    assert not any(r.get("is_error") for r in down["results"])
    # What is lost: every event the http hooks carry. SessionStart keeps the process hook.
    kinds = [e["hook_event"] for e in _raw(down["paths"])]
    assert kinds == ["SessionStart"]
    assert "ECONNREFUSED" in down["stderr"]


def test_a_hung_collector_costs_its_timeout_and_blocks_nothing(
    claude_binary: Path, tmp_path: Path
) -> None:
    hung = drive(claude_binary, tmp_path / "hung", "http", "hung")
    assert hung["code"] == 0 and len(hung["results"]) == CALLS
    assert not any(r.get("is_error") for r in hung["results"])
    assert "Hook cancelled" in hung["stderr"]


def _raw(paths: RunPaths) -> list[dict[str, Any]]:
    events = []
    for trace in paths.trail_home.glob("sessions/claude-code/*/trace.jsonl"):
        events += [json.loads(x) for x in trace.read_text().splitlines()]
    return events


def test_an_error_answer_is_a_non_blocking_error(claude_binary: Path, tmp_path: Path) -> None:
    """A collector answering 500, or 200 with a body that is not JSON: every tool still runs."""
    for mode, said in (("500", "HTTP 500 from"), ("html", "must return JSON")):
        run = drive(claude_binary, tmp_path / mode, "http", mode)
        assert run["code"] == 0 and len(run["results"]) == CALLS, mode
        assert not any(r.get("is_error") for r in run["results"]), mode
        assert said in run["stderr"], mode


def test_a_json_decision_would_block_which_is_why_the_collector_answers_empty(
    claude_binary: Path, tmp_path: Path
) -> None:
    """The fact behind the collector's empty 204: a JSON body is a hook decision, and
    ``{"decision": "block"}`` stops the prompt before any tool runs."""
    run = drive(claude_binary, tmp_path / "block", "http", "block")
    assert run["code"] == 0 and run["results"] == []
