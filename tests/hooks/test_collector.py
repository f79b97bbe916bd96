"""``trail collect``: a real collector process on 127.0.0.1, real POSTs, real trace files.

Every test starts ``trail collect`` as a subprocess with its own TRAIL_HOME and a free port,
talks to it with http.client (the way Claude Code's http hook does: a JSON body with a
Content-Length), then stops it with SIGTERM and reads what it wrote. The process hook
(``trail hook claude-code``) is the reference: the collector must record what it records.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import secrets
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import TRAIL, read_trace_lines, request_as_another_user, run_hook

HOOK_PATH = "/trail/hook/claude-code"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Running:
    def __init__(self, home: Path) -> None:
        self.home = home
        self.port = free_port()
        env = {**os.environ, "TRAIL_HOME": str(home)}
        self.proc = subprocess.Popen(
            [TRAIL, "collect", "--port", str(self.port)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()  # printed once the port is bound
        if not line:
            raise AssertionError(f"trail collect did not start: {self.proc.stderr.read()!r}")  # type: ignore[union-attr]
        self.started = json.loads(line)

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            sent = {"Content-Type": "application/json"} if body is not None else {}
            conn.request(method, path, body=body, headers={**sent, **(headers or {})})
            answer = conn.getresponse()
            return answer.status, answer.read()
        finally:
            conn.close()

    def post(self, payload: dict[str, Any] | bytes, **kw: Any) -> tuple[int, bytes]:
        body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        return self.request("POST", HOOK_PATH, body, **kw)

    def stop(self) -> tuple[int, bytes, bytes]:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        out, err = self.proc.communicate(timeout=60)
        return self.proc.returncode, out, err


@pytest.fixture
def collector(trail_home: Path) -> Iterator[Running]:
    running = Running(trail_home)
    try:
        yield running
    finally:
        if running.proc.poll() is None:
            running.proc.kill()
            running.proc.wait()


def tool_call(sid: str, n: int, command: str = "echo hi") -> dict[str, Any]:
    return {
        "session_id": sid,
        "hook_event_name": "PreToolUse",
        "cwd": "/tmp/project",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": f"toolu_{n:04d}",
    }


def comparable(ev: dict[str, Any]) -> dict[str, Any]:
    """An event without what depends on when it arrived (its id hashes the receipt time)."""
    return {k: v for k, v in ev.items() if k not in ("id", "ts", "received_at")}


def test_it_listens_on_loopback_only_and_answers_its_health_check(collector: Running) -> None:
    assert collector.started["listening"] == f"http://127.0.0.1:{collector.port}"
    assert collector.request("GET", "/trail/health") == (200, b"trail collector\n")
    other = [a for a in socket.gethostbyname_ex(socket.gethostname())[2] if a != "127.0.0.1"]
    for address in other[:1]:  # a non-loopback address of this machine is not served
        with pytest.raises(OSError), socket.create_connection((address, collector.port), 2):
            pass
    assert collector.stop()[0] == 0


def test_a_payload_is_recorded_as_the_process_hook_records_it(
    collector: Running, tmp_path: Path
) -> None:
    token = "ghp_" + secrets.token_hex(18)  # a GitHub token, generated here
    payloads = [
        tool_call("sess-a", 1, f"curl -H 'Authorization: token {token}' x"),
        {**tool_call("sess-a", 1), "hook_event_name": "PostToolUse", "tool_response": "ok"},
        {"session_id": "sess-a", "hook_event_name": "Stop", "cwd": "/tmp/project"},
    ]
    for p in payloads:
        assert collector.post(p) == (204, b"")  # empty: nothing Claude Code reads as a decision
    assert collector.stop()[0] == 0
    reference = tmp_path / "process-hook-home"
    reference.mkdir(mode=0o700)
    key = reference / "scrub.key"  # the same key: redaction markers are keyed hashes
    key.write_bytes((collector.home / "scrub.key").read_bytes())
    key.chmod(0o600)
    for p in payloads:
        assert run_hook(p, env={"TRAIL_HOME": str(reference)}).returncode == 0
    got = read_trace_lines(collector.home)
    want = read_trace_lines(reference)
    assert [comparable(e) for e in got] == [comparable(e) for e in want]
    assert len(got) == 3 and got[0]["redactions"] == {"github-token": 1}
    everything = b"".join(p.read_bytes() for p in collector.home.rglob("*") if p.is_file())
    assert token.encode() not in everything  # scrubbed, as by the hook
    trace = next(collector.home.glob("sessions/claude-code/*/trace.jsonl"))
    assert oct(trace.stat().st_mode & 0o777) == "0o600"


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"Host": "evil.example:80"}, 421),  # DNS rebinding: a page's name for 127.0.0.1
        ({"Host": "127.0.0.1"}, 421),  # without the port
        ({"Origin": "http://evil.example"}, 403),  # a browser page
        ({"Content-Type": "text/plain"}, 415),  # a browser's "simple" cross-site POST
    ],
)
def test_requests_a_browser_or_another_host_could_send_are_refused(
    collector: Running, headers: dict[str, str], status: int
) -> None:
    assert collector.post(tool_call("s", 1), headers=headers)[0] == status
    assert collector.request("GET", "/trail/health")[0] == 200  # still serving
    assert collector.stop()[0] == 0
    assert read_trace_lines(collector.home) == []
    log = (collector.home / "hook-errors.log").read_text()
    assert f"answered HTTP {status}, nothing recorded" in log
    assert "evil" not in log  # no request text in the log


def test_other_paths_and_methods_record_nothing(collector: Running) -> None:
    body = json.dumps(tool_call("s", 1)).encode()
    assert collector.request("POST", "/trail/hook/not-a-harness", body)[0] == 404
    assert collector.request("POST", "/", body)[0] == 404
    assert collector.request("GET", HOOK_PATH)[0] == 404
    assert collector.request("PUT", HOOK_PATH, body)[0] == 501
    assert collector.stop()[0] == 0
    assert read_trace_lines(collector.home) == []


def test_malformed_json_is_recorded_as_a_stub_and_the_collector_keeps_going(
    collector: Running,
) -> None:
    assert collector.post(b'{"session_id": "sess-m", "hook_event_name": "PreToo') == (204, b"")
    assert collector.post(b"\xff\xfe not utf-8 [[[") == (204, b"")
    assert collector.post(tool_call("sess-m", 2)) == (204, b"")
    code, _, err = collector.stop()
    assert code == 0 and b"Traceback" not in err
    events = read_trace_lines(collector.home)
    stubs = [e for e in events if e.get("extra", {}).get("malformed")]
    assert len(stubs) == 2 and any(e["session_id"] == "sess-m" for e in stubs)
    assert any(e["kind"] == "tool_call" and e["call_id"] == "toolu_0002" for e in events)


def test_an_oversize_body_is_read_no_further_than_its_head_and_recorded_as_a_stub(
    trail_home: Path,
) -> None:
    trail_home.mkdir(mode=0o700)
    (trail_home / "config.json").write_text(json.dumps({"capture": {"max_payload_bytes": 4096}}))
    running = Running(trail_home)
    try:
        big = tool_call("sess-big", 1, "x" * 200_000)
        assert running.post(big) == (204, b"")
        assert running.post(tool_call("sess-big", 2)) == (204, b"")  # same server, still fine
        assert running.stop()[0] == 0
    finally:
        running.proc.kill()
    events = read_trace_lines(trail_home)
    (stub,) = [e for e in events if e.get("extra", {}).get("malformed")]
    assert "exceeds max_payload_bytes=4096" in stub["extra"]["malformed"]
    assert stub["extra"]["bytes"] == len(json.dumps(big).encode())
    assert stub["session_id"] == "sess-big"
    assert any(e.get("call_id") == "toolu_0002" for e in events)


def test_an_oversize_body_that_then_trickles_is_answered_after_the_drain_bound(
    trail_home: Path,
) -> None:
    """Past the bound the rest is drained for at most entry.MAX_DRAIN_SECONDS however slowly
    it comes (a read waited for a whole 1 MiB chunk, until the connection's deadline cut it
    off unanswered), then answered and recorded as a stub."""
    trail_home.mkdir(mode=0o700)
    (trail_home / "config.json").write_text(json.dumps({"capture": {"max_payload_bytes": 4096}}))
    running = Running(trail_home)
    try:
        head = (
            f"POST {HOOK_PATH} HTTP/1.1\r\nHost: 127.0.0.1:{running.port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {1 << 20}\r\n\r\n"
        ).encode()
        with socket.create_connection(("127.0.0.1", running.port), timeout=30) as s:
            s.sendall(head + b'{"session_id": "trickled", "x": "' + b"x" * 70_000)
            s.settimeout(0.2)
            answer = b""
            for _ in range(200):  # a byte every 0.2 s, for up to 40 s
                try:
                    s.send(b"x")
                    answer = s.recv(100)
                    break
                except TimeoutError:
                    continue
                except OSError:
                    break
        assert answer.startswith(b"HTTP/1.1 204 "), answer
        assert running.stop()[0] == 0
    finally:
        running.proc.kill()
    [stub] = read_trace_lines(trail_home)
    assert "exceeds max_payload_bytes=4096" in stub["extra"]["malformed"]
    assert stub["session_id"] == "trickled"


def test_a_body_without_content_length_is_refused(collector: Running) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", collector.port, timeout=30)
    conn.putrequest("POST", HOOK_PATH)
    conn.putheader("Content-Type", "application/json")
    conn.putheader("Transfer-Encoding", "chunked")
    conn.endheaders()
    conn.send(b"2\r\n{}\r\n0\r\n\r\n")
    assert conn.getresponse().status == 411
    conn.close()
    assert collector.stop()[0] == 0
    assert read_trace_lines(collector.home) == []


def test_concurrent_posts_are_all_recorded_whole(collector: Running) -> None:
    count = 60
    statuses: list[int] = []

    def send(n: int) -> None:
        statuses.append(collector.post(tool_call(f"sess-{n % 3}", n))[0])

    threads = [threading.Thread(target=send, args=(n,)) for n in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert statuses == [204] * count
    assert collector.stop()[0] == 0
    events = read_trace_lines(collector.home)  # every line parses: none interleaved
    assert sorted(e["call_id"] for e in events) == [f"toolu_{n:04d}" for n in range(count)]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_what_was_answered_is_recorded_before_it_exits(collector: Running, signum: int) -> None:
    """A 204 means the payload is queued; SIGTERM, SIGINT and SIGHUP (the terminal it ran in
    was closed: it used to die there with the queue) record the queue before exiting."""
    for n in range(20):
        assert collector.post(tool_call("sess-t", n))[0] == 204
    collector.proc.send_signal(signum)
    assert collector.stop()[0] == 0
    assert len(read_trace_lines(collector.home)) == 20


def test_a_port_in_use_is_a_clear_error(collector: Running) -> None:
    env = {**os.environ, "TRAIL_HOME": str(collector.home)}
    done = subprocess.run(
        [TRAIL, "collect", "--port", str(collector.port)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert f"cannot listen on 127.0.0.1:{collector.port}" in done.stderr
    assert "Traceback" not in done.stderr


def test_capture_off_is_obeyed(collector: Running) -> None:
    env = {**os.environ, "TRAIL_HOME": str(collector.home)}
    subprocess.run([TRAIL, "capture", "off"], env=env, check=True, capture_output=True)
    assert collector.post(tool_call("s", 1)) == (204, b"")
    assert collector.stop()[0] == 0
    assert read_trace_lines(collector.home) == []


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to connect as another user")
@pytest.mark.parametrize("source", ["127.0.0.1", "127.0.0.2"])
def test_a_connection_from_another_user_is_refused(collector: Running, source: str) -> None:
    """Another local user's connection is closed unanswered, from any loopback address (the
    socket table is looked up by the real client address: 127.0.0.2 once slipped through)."""
    body = b'{"session_id": "intruder", "hook_event_name": "Stop"}'
    head = (
        f"POST /trail/hook/claude-code HTTP/1.1\r\nHost: 127.0.0.1:{collector.port}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    done = request_as_another_user(collector.port, source, head.encode() + body)
    assert done.stdout.strip() == "closed", done.stderr
    assert collector.post(tool_call("s", 1))[0] == 204  # this user's own still are
    assert collector.stop()[0] == 0
    assert [e["session_id"] for e in read_trace_lines(collector.home)] == ["s"]
    assert "from another user" in (collector.home / "hook-errors.log").read_text()


def raw_request(port: int, data: bytes) -> bytes:
    """Send ``data`` as it is on a fresh connection; what came back before it closed."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(data)
        got = b""
        while chunk := s.recv(65536):
            got += chunk
        return got


@pytest.mark.parametrize(
    "length",
    [b"\xb2", b"9" * 5000, b"-1", b"+12", b"1e3", b"0x10", b"\xd9\xa1"],
    ids=["superscript-two", "5000-digits", "negative", "plus", "float", "hex", "arabic-digit"],
)
def test_a_content_length_that_is_not_plain_digits_is_refused_without_a_traceback(
    collector: Running, length: bytes
) -> None:
    """``str.isdigit`` takes a latin-1 '\xb2' for a digit and ``int`` refuses more than 4,300
    digits: each made the request thread raise (a traceback on stderr, no answer)."""
    head = (
        f"POST {HOOK_PATH} HTTP/1.1\r\nHost: 127.0.0.1:{collector.port}\r\n"
        "Content-Type: application/json\r\nContent-Length: "
    ).encode()
    answer = raw_request(collector.port, head + length + b"\r\n\r\n{}")
    assert answer.startswith(b"HTTP/1.1 411 "), answer
    assert collector.post(tool_call("s", 1))[0] == 204
    code, _, err = collector.stop()
    assert code == 0 and err == b""
    assert len(read_trace_lines(collector.home)) == 1


def test_a_client_that_trickles_its_request_is_cut_off_and_others_are_served(
    collector: Running,
) -> None:
    """One byte a second never trips a per-read timeout; the request's overall deadline
    (collector.REQUEST_SECONDS) closes the connection, and meanwhile other POSTs are answered."""
    from hooks.collector import REQUEST_SECONDS

    request = (
        f"POST {HOOK_PATH} HTTP/1.1\r\nHost: 127.0.0.1:{collector.port}\r\n" + "X-Pad: a\r\n" * 99
    ).encode()
    with socket.create_connection(("127.0.0.1", collector.port), timeout=30) as slow:
        slow.settimeout(1.0)
        closed_by_server = False
        for n in range(int(REQUEST_SECONDS * 6)):
            if n == 2:
                assert collector.post(tool_call("s", 1))[0] == 204  # not stalled by it
            try:
                slow.send(request[n : n + 1])
                if slow.recv(1) == b"":
                    closed_by_server = True
                    break
            except TimeoutError:
                continue  # nothing answered yet: go on trickling
            except OSError:
                closed_by_server = True
                break
        assert closed_by_server
    assert collector.stop()[0] == 0
    assert [e["session_id"] for e in read_trace_lines(collector.home)] == ["s"]


def test_connections_past_the_cap_are_closed_at_once_and_the_collector_recovers(
    collector: Running,
) -> None:
    """At most collector.MAX_CONNECTIONS are served at once (each is a thread of this user's),
    so idle connections cannot pile up threads; one past the cap is closed unanswered."""
    from hooks.collector import MAX_CONNECTIONS

    idle = [socket.create_connection(("127.0.0.1", collector.port)) for _ in range(MAX_CONNECTIONS)]
    try:
        extra = socket.create_connection(("127.0.0.1", collector.port), timeout=30)
        extra.sendall(b"GET /trail/health HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % collector.port)
        with contextlib.suppress(ConnectionResetError):  # closed with the request unread
            assert extra.recv(100) == b""
        extra.close()
    finally:
        for s in idle:
            s.close()
    status = 0
    for _ in range(100):  # the idle ones' threads notice their close; until then, closed
        try:
            status, _ = collector.request("GET", "/trail/health")
        except OSError:
            time.sleep(0.1)
            continue
        if status == 200:
            break
    assert status == 200
    assert collector.stop()[0] == 0
    assert "connections at once" in (collector.home / "hook-errors.log").read_text()


def test_only_the_writer_thread_touches_the_data_dir(
    trail_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A refusal is noted by the writer thread, never by the request thread that refused: the
    hook's path pins the data dir's descriptor for the length of one call (paths.pin_home),
    and a request thread logging meanwhile used, and could outlive, the writer's descriptor."""
    from hooks import collector as module
    from hooks import entry

    touched: list[str] = []
    real = entry.append_error

    def spy(home: str, record: dict[str, object], unless_repeated: bool = False) -> None:
        touched.append(threading.current_thread().name)
        real(home, record, unless_repeated)

    monkeypatch.setattr(entry, "append_error", spy)
    server = module.Collector(free_port())
    loop = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    loop.start()
    try:
        port = server.server_address[1]
        for _ in range(5):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            conn.request("POST", HOOK_PATH, b"{}", {"Content-Type": "text/plain"})
            assert conn.getresponse().status == 415
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            conn.request("POST", HOOK_PATH, b"", {"Content-Type": "application/json"})
            assert conn.getresponse().status == 204  # an empty payload: logged by the hook path
            conn.close()
    finally:
        server.shutdown()
        loop.join()
        server.close()
    assert touched and set(touched) == {"trail-collector-writer"}, touched
    log = (trail_home / "hook-errors.log").read_text()
    assert "not declared as application/json" in log and "empty payload" in log


def test_every_answer_closes_its_connection(collector: Running) -> None:
    """No keep-alive: a kept connection closed while idle could cross the next POST on it."""
    conn = http.client.HTTPConnection("127.0.0.1", collector.port, timeout=30)
    headers = {"Connection": "keep-alive", "Content-Type": "application/json"}
    conn.request("POST", HOOK_PATH, json.dumps(tool_call("s", 1)), headers)
    answer = conn.getresponse()
    assert (answer.status, answer.getheader("Connection"), answer.read()) == (204, "close", b"")
    conn.close()
    assert collector.stop()[0] == 0
