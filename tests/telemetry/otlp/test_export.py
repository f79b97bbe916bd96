"""trail export otlp against a minimal OTLP/HTTP receiver on 127.0.0.1 (tests/.../receiver.py):
exact GenAI attributes, parent/child structure, evaluation events, idempotence, delivery
across a collector outage, content and header controls."""

from __future__ import annotations

import json
import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from telemetry.otlp.mapping import Options, session_spans, span_id, trace_id
from telemetry.queries import open_synced, session_timeline
from tests.telemetry.otlp.receiver import Receiver, Span
from trace_ingest.cli import main


@pytest.fixture
def home(demo_home: Path, trail_home: Path) -> Path:
    shutil.copytree(demo_home, trail_home)
    return trail_home


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver().start()
    yield r
    r.stop()


def configure(home: Path, **otlp: Any) -> None:
    (home / "config.json").write_text(json.dumps({"export": {"otlp": otlp}}))


def export(*args: str) -> int:
    return main(["export", "otlp", *args])


def sessions(home: Path) -> list[dict[str, Any]]:
    db, _ = open_synced(str(home))
    try:
        return [dict(r) for r in db.query("SELECT * FROM sessions ORDER BY key")]
    finally:
        db.close()


def by_trace(spans: list[Span]) -> dict[str, list[Span]]:
    out: dict[str, list[Span]] = {}
    for s in spans:
        out.setdefault(s.trace_id, []).append(s)
    return out


def evaluations(span: Span) -> dict[str, dict[str, Any]]:
    return {
        a["gen_ai.evaluation.name"]: a for n, a in span.events if n == "gen_ai.evaluation.result"
    }


def test_mapping_attributes_structure_and_evaluations(home: Path, receiver: Receiver) -> None:
    assert export("--endpoint", receiver.url, "--include-open") == 0
    rows = sessions(home)
    traces = by_trace(receiver.spans)
    # one trace per session, its id derived from the session key
    assert set(traces) == {f"{trace_id(r['key']):032x}" for r in rows}
    for row in rows:
        spans = traces[f"{trace_id(row['key']):032x}"]
        roots = [s for s in spans if not s.parent_span_id]
        assert len(roots) == 1
        root = roots[0]
        assert root.name == f"invoke_agent {row['harness']}"
        assert root.span_id == f"{span_id(row['key'], 'agent'):016x}"
        for name, want in {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.conversation.id": row["session_id"],
            "gen_ai.system": row["harness"],
            "gen_ai.agent.name": row["harness"],
            "session.id": row["session_id"],
            "trail.session.key": row["key"],
        }.items():
            assert root.attributes[name] == want, name
        assert root.resource["service.name"] == "trail"
        ids = {s.span_id for s in spans}
        assert all(s.parent_span_id in ids for s in spans if s is not root)
        assert all(root.start <= s.start <= s.end <= root.end for s in spans)
        # the tool spans are exactly the canonical tool calls
        db, _ = open_synced(str(home))
        calls = {
            e["call_id"]
            for e in session_timeline(db, row["key"]).events
            if e["kind"] == "tool_call" and e.get("call_id")
        }
        db.close()
        tools = [s for s in spans if s.attributes.get("gen_ai.operation.name") == "execute_tool"]
        assert {s.attributes["gen_ai.tool.call.id"] for s in tools} == calls
        for s in tools:
            assert s.name == f"execute_tool {s.attributes['gen_ai.tool.name']}"
            assert "gen_ai.tool.call.arguments" not in s.attributes  # no content unless asked
        assert evaluations(root)  # every demo session is graded (L0/L1 or L2)

    sub = next(r for r in rows if "demo-subagent" in r["key"])
    spans = traces[f"{trace_id(sub['key']):032x}"]
    root = next(s for s in spans if not s.parent_span_id)
    agent = next(s for s in spans if s.attributes.get("gen_ai.agent.id") == "a1b2c3d4")
    assert agent.name.startswith("invoke_agent ")
    # launched by the Task call running when it started (hooks name no parent call)
    task = next(s for s in spans if s.attributes.get("gen_ai.tool.call.id") == "toolu_demo_task")
    assert agent.parent_span_id == task.span_id and task.parent_span_id == root.span_id
    assert agent.attributes["gen_ai.conversation.id"] == sub["session_id"]
    inside = {
        s.attributes["gen_ai.tool.call.id"]: s for s in spans if s.parent_span_id == agent.span_id
    }
    assert set(inside) == {"toolu_demo_001", "toolu_demo_002", "toolu_demo_003"}
    read = inside["toolu_demo_003"]
    assert read.status_code == 2  # STATUS_CODE_ERROR
    assert read.attributes["error.type"] == "failed"
    assert inside["toolu_demo_001"].status_code == 1  # OK
    # prompts are span events of the agent they went to, without text unless asked
    prompts = [a for n, a in root.events if n == "gen_ai.user.message"]
    assert prompts and all("content" not in a for a in prompts)
    evs = evaluations(root)
    assert evs["trace-grader"]["gen_ai.evaluation.score.label"] == "clean-pass"
    pairing = evs["l0.pairing"]
    assert pairing["gen_ai.evaluation.score.value"] == pytest.approx(0.8)
    assert pairing["gen_ai.evaluation.score.label"] == "warn"
    assert "4/5 calls" in pairing["gen_ai.evaluation.explanation"]
    unscored = [a for a in evs.values() if a["gen_ai.evaluation.score.label"] == "unscored"]
    assert unscored
    for a in unscored:  # unscored stays unscored: no value, a reason
        assert "gen_ai.evaluation.score.value" not in a
        assert a["gen_ai.evaluation.explanation"]

    guided = next(r for r in rows if "demo-guided" in r["key"])
    spans = traces[f"{trace_id(guided['key']):032x}"]
    root = next(s for s in spans if not s.parent_span_id)
    guide = evaluations(root)["l2.guide CLAUDE.md"]
    assert guide["gen_ai.evaluation.score.label"] == "misaligned"
    assert guide["gen_ai.evaluation.score.value"] == 0.0
    assert "npm install" in guide["gen_ai.evaluation.explanation"]
    labels = sorted(
        evaluations(s)["l2.action"]["gen_ai.evaluation.score.label"]
        for s in spans
        if "l2.action" in evaluations(s)
    )
    assert labels == ["aligned", "misaligned"]

    failures = next(r for r in rows if "demo-failures" in r["key"])
    spans = traces[f"{trace_id(failures['key']):032x}"]
    flagged = [
        a
        for s in spans
        for n, a in s.events
        if n == "gen_ai.evaluation.result" and a["gen_ai.evaluation.score.label"] == "flagged"
    ]
    assert {a["gen_ai.evaluation.name"] for a in flagged} >= {"forbidden_tool", "out_of_order"}


def test_reexport_adds_nothing_and_closed_only_by_default(home: Path, receiver: Receiver) -> None:
    assert export("--endpoint", receiver.url) == 0
    first = len(receiver.spans)
    closed = {r["key"] for r in sessions(home) if r["state"] != "open"}
    assert {
        s.attributes["trail.session.key"] for s in receiver.spans if not s.parent_span_id
    } == closed
    requests = receiver.requests
    assert export("--endpoint", receiver.url) == 0
    assert receiver.requests == requests and len(receiver.spans) == first
    cur = home / "export" / "otlp-cursor.json"
    assert stat.S_IMODE(cur.stat().st_mode) == 0o600
    assert stat.S_IMODE(cur.parent.stat().st_mode) == 0o700
    # another endpoint has its own cursor: it gets everything
    other = Receiver().start()
    try:
        assert export("--endpoint", other.url) == 0
        assert len(other.spans) == first
    finally:
        other.stop()


def test_collector_down_then_up_delivers_everything_once(
    home: Path, receiver: Receiver, capsys: pytest.CaptureFixture[str]
) -> None:
    configure(home, retries=1, backoff_seconds=0, timeout_seconds=2, batch_spans=5)
    receiver.down = True
    assert export("--endpoint", receiver.url, "--include-open") == 1
    assert "did not accept" in capsys.readouterr().err
    assert receiver.requests >= 2  # trail retried (the SDK also retries a 503 within its timeout)
    receiver.stop()  # now nothing listens at all
    assert export("--endpoint", receiver.url, "--include-open") == 1
    back = Receiver(port=receiver.port).start()
    try:
        assert export("--endpoint", back.url, "--include-open") == 0
        ids = [(s.trace_id, s.span_id) for s in back.spans]
        assert len(ids) == len(set(ids))  # exactly once
        assert len({t for t, _ in ids}) == len(sessions(home))
        assert back.requests > 1  # batches of 5 spans
        before = back.requests
        assert export("--endpoint", back.url, "--include-open") == 0
        assert back.requests == before
    finally:
        back.stop()


def test_partial_delivery_resumes_where_it_stopped(home: Path, receiver: Receiver) -> None:
    configure(home, retries=0, batch_spans=1)
    accepted = 3

    real = receiver.server.RequestHandlerClass.do_POST  # type: ignore[attr-defined]

    def flaky(handler: Any) -> None:
        receiver.down = receiver.requests >= accepted
        real(handler)

    receiver.server.RequestHandlerClass.do_POST = flaky  # type: ignore[attr-defined]
    assert export("--endpoint", receiver.url, "--include-open") == 1
    got = len(receiver.spans)
    assert got > 0
    receiver.server.RequestHandlerClass.do_POST = real  # type: ignore[attr-defined]
    receiver.down = False
    assert export("--endpoint", receiver.url, "--include-open") == 0
    ids = [(s.trace_id, s.span_id) for s in receiver.spans]
    assert len({t for t, _ in ids}) == len(sessions(home))
    # the sessions accepted before the outage were not sent again
    assert len(ids) == len(set(ids))


def test_content_only_when_asked_and_bounded(home: Path, receiver: Receiver) -> None:
    configure(home, max_content_chars=16)
    assert export("--endpoint", receiver.url, "--include-open", "--include-content") == 0
    tools = [s for s in receiver.spans if "gen_ai.tool.call.arguments" in s.attributes]
    assert tools
    for s in tools:
        text = s.attributes["gen_ai.tool.call.arguments"]
        assert len(text) <= 16 or "more characters not exported" in text
        assert len(text.split("…[trail:")[0]) <= 16
    prompts = [a for s in receiver.spans for n, a in s.events if n == "gen_ai.user.message"]
    assert any("content" in a for a in prompts)


def test_headers_are_sent_and_never_printed(
    home: Path, receiver: Receiver, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = "Bearer sk-" + os.urandom(8).hex()
    assert export("--endpoint", receiver.url, "--header", f"authorization={secret}") == 0
    assert receiver.headers and all(h["authorization"] == secret for h in receiver.headers)
    configure(home, headers={"x-api-key": secret}, retries=0)
    receiver.down = True
    (home / "export" / "otlp-cursor.json").unlink()  # so the session is sent again
    assert export("--endpoint", receiver.url, "--session", "demo-clean") == 1
    out = capsys.readouterr()
    assert secret not in out.out + out.err
    assert receiver.headers[-1]["x-api-key"] == secret


def test_bad_config_is_reported_without_the_header_value(home: Path) -> None:
    from trace_ingest.config import check_config

    configure(home, protocol="carrier-pigeon", headers={"k": "v"})
    config, problems = check_config(str(home))
    assert any("export.otlp.protocol" in p for p in problems)
    assert config["export"] == {"otlp": {}}
    configure(home, headers={"k": 1})
    _, problems = check_config(str(home))
    assert any("export.otlp.headers" in p and "not shown" in p for p in problems)


def test_refusals_and_cancellations_are_marked_apart_from_failures() -> None:
    session = {"key": "claude-code/x", "harness": "claude-code", "session_id": "x"}
    ts = "2026-01-01T00:00:0{}Z"
    events = [
        {"id": "e0", "kind": "session_start", "ts": ts.format(0)},
        *(
            {
                "id": f"c{i}",
                "kind": "tool_call",
                "ts": ts.format(i + 1),
                "tool_name": "Bash",
                "call_id": f"t{i}",
                "status": status,
            }
            for i, status in enumerate(["refused", "cancelled", "failed", "interrupted", "ok"])
        ),
        {"id": "e9", "kind": "session_end", "ts": ts.format(9)},
    ]
    spans = {s.attributes.get("gen_ai.tool.call.id"): s for s in session_spans(session, events, [])}
    from opentelemetry.trace import StatusCode

    assert spans["t0"].status.status_code is StatusCode.UNSET
    assert spans["t0"].attributes["trail.tool.refused"] is True
    assert spans["t1"].attributes["trail.tool.cancelled"] is True
    assert "error.type" not in spans["t0"].attributes
    assert spans["t2"].status.status_code is StatusCode.ERROR
    assert spans["t3"].attributes["error.type"] == "interrupted"
    assert spans["t4"].status.status_code is StatusCode.OK
    # deterministic: the same session maps to the same ids and bytes
    again = session_spans(session, events, [], Options())
    assert [s.context.span_id for s in again] == [
        s.context.span_id for s in session_spans(session, events, [])
    ]


def test_watch_export_delivers_and_survives_a_down_collector(
    home: Path, receiver: Receiver, capsys: pytest.CaptureFixture[str]
) -> None:
    configure(home, endpoint=receiver.url, retries=0)
    receiver.down = True
    assert main(["watch", "--once", "--no-grade", "--export"]) == 0
    assert "export: the collector at" in capsys.readouterr().out
    receiver.down = False
    assert main(["watch", "--once", "--no-grade", "--export"]) == 0
    assert "exported" in capsys.readouterr().out
    closed = {r["key"] for r in sessions(home) if r["state"] != "open"}
    assert {
        s.attributes["trail.session.key"] for s in receiver.spans if not s.parent_span_id
    } == closed


def test_grpc_protocol_delivers_the_same_spans(home: Path, receiver: Receiver) -> None:
    from concurrent import futures

    import grpc
    from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc

    got: list[tuple[str, str, str]] = []

    class Service(trace_service_pb2_grpc.TraceServiceServicer):
        def Export(self, request: Any, context: Any) -> Any:
            for rs in request.resource_spans:
                for ss in rs.scope_spans:
                    got.extend((s.trace_id.hex(), s.span_id.hex(), s.name) for s in ss.spans)
            return trace_service_pb2.ExportTraceServiceResponse()

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    trace_service_pb2_grpc.add_TraceServiceServicer_to_server(Service(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        assert (
            export("--protocol", "grpc", "--endpoint", f"127.0.0.1:{port}", "--include-open") == 0
        )
    finally:
        server.stop(0)
    assert export("--endpoint", receiver.url, "--include-open") == 0
    assert sorted(got) == sorted((s.trace_id, s.span_id, s.name) for s in receiver.spans)


def test_progress_only_on_a_terminal() -> None:
    import io

    from telemetry.otlp.send import Progress

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    tty, pipe = Tty(), io.StringIO()
    for stream in (tty, pipe):
        p = Progress(3, stream)
        p.update(1, 10)
        p.update(3, 30)
        p.close()
    assert (
        tty.getvalue() == "\rexported 1/3 sessions (10 spans)\rexported 3/3 sessions (30 spans)\n"
    )
    assert pipe.getvalue() == ""


def test_since_selects_by_last_activity(home: Path, receiver: Receiver) -> None:
    from telemetry.otlp.send import parse_since
    from trace_ingest.errors import ConfigError

    assert parse_since("2h", now=10_000.0) == 10_000.0 - 7200
    assert parse_since("2026-01-02") == parse_since("2026-01-02T00:00:00Z")
    with pytest.raises(ConfigError):
        parse_since("last tuesday")
    assert export("--endpoint", receiver.url, "--include-open", "--since", "2999-01-01") == 0
    assert receiver.requests == 0
    assert export("--endpoint", receiver.url, "--include-open", "--since", "3650d") == 0
    assert len({s.trace_id for s in receiver.spans}) == len(sessions(home))


def test_subagent_under_its_task_call_and_implied_when_its_start_was_lost() -> None:
    session = {"key": "claude-code/y", "harness": "claude-code", "session_id": "y"}
    ts = "2026-01-01T00:00:0{}Z"
    events = [
        {
            "id": "c1",
            "kind": "tool_call",
            "ts": ts.format(1),
            "tool_name": "Task",
            "tool": "task",
            "call_id": "task1",
        },
        {
            "id": "s1",
            "kind": "subagent_start",
            "ts": ts.format(2),
            "agent_id": "A",
            "agent_type": "Explore",
        },
        {
            "id": "c2",
            "kind": "tool_call",
            "ts": ts.format(3),
            "tool_name": "Grep",
            "call_id": "g1",
            "agent_id": "A",
        },
        {"id": "r1", "kind": "tool_result", "ts": ts.format(4), "call_id": "task1", "status": "ok"},
        # a second subagent whose start the hooks lost, and no task call running
        {
            "id": "c3",
            "kind": "tool_call",
            "ts": ts.format(5),
            "tool_name": "Read",
            "call_id": "r2",
            "agent_id": "B",
        },
    ]
    spans = session_spans(session, events, [])
    by_name = {s.name: s for s in spans}
    root = by_name["invoke_agent claude-code"]
    task = by_name["execute_tool Task"]
    explore = by_name["invoke_agent Explore"]
    implied = by_name["invoke_agent subagent"]
    assert explore.parent is not None and explore.parent.span_id == task.context.span_id
    assert by_name["execute_tool Grep"].parent.span_id == explore.context.span_id
    assert implied.attributes["trail.agent.implied"] is True
    assert implied.parent is not None and implied.parent.span_id == root.context.span_id
    assert by_name["execute_tool Read"].parent.span_id == implied.context.span_id
    assert task.start_time <= explore.start_time <= explore.end_time <= task.end_time


def test_a_malformed_header_is_refused_without_echoing_it(
    home: Path, receiver: Receiver, capsys: pytest.CaptureFixture[str]
) -> None:
    token = "sk-" + os.urandom(8).hex()
    assert export("--endpoint", receiver.url, "--header", token) == 1
    err = capsys.readouterr().err
    assert "--header #1 must be NAME=VALUE" in err and token not in err
    assert receiver.requests == 0
