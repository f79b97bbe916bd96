"""A minimal OTLP/HTTP receiver for tests: 127.0.0.1, decodes ExportTraceServiceRequest.

``down = True`` answers 503 (a collector that is up but failing); ``stop()`` closes the
socket (a collector that is down). Every accepted span is kept, decoded, in ``spans``.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue


def value(v: AnyValue) -> Any:
    which = v.WhichOneof("value")
    if which == "array_value":
        return [value(x) for x in v.array_value.values]
    if which == "kvlist_value":
        return {kv.key: value(kv.value) for kv in v.kvlist_value.values}
    return None if which is None else getattr(v, which)


@dataclass
class Span:
    trace_id: str
    span_id: str
    parent_span_id: str
    name: str
    attributes: dict[str, Any]
    events: list[tuple[str, dict[str, Any]]]
    status_code: int
    status_message: str
    start: int
    end: int
    resource: dict[str, Any]


@dataclass
class Receiver:
    port: int = 0
    down: bool = False
    spans: list[Span] = field(default_factory=list)
    requests: int = 0
    headers: list[dict[str, str]] = field(default_factory=list)

    def start(self) -> Receiver:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                owner.requests += 1
                owner.headers.append({k.lower(): v for k, v in self.headers.items()})
                if owner.down:
                    self.send_response(503)
                    self.end_headers()
                    return
                req = ExportTraceServiceRequest()
                req.ParseFromString(body)
                for rs in req.resource_spans:
                    res = {kv.key: value(kv.value) for kv in rs.resource.attributes}
                    for ss in rs.scope_spans:
                        for s in ss.spans:
                            owner.spans.append(
                                Span(
                                    s.trace_id.hex(),
                                    s.span_id.hex(),
                                    s.parent_span_id.hex(),
                                    s.name,
                                    {kv.key: value(kv.value) for kv in s.attributes},
                                    [
                                        (e.name, {kv.key: value(kv.value) for kv in e.attributes})
                                        for e in s.events
                                    ],
                                    s.status.code,
                                    s.status.message,
                                    s.start_time_unix_nano,
                                    s.end_time_unix_nano,
                                    res,
                                )
                            )
                out = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        return self

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1/traces"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
