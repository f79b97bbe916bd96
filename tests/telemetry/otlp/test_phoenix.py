"""trail export otlp against a real Arize Phoenix (tests/telemetry/otlp/phoenix_install.py):
started by the test on 127.0.0.1 with a scratch working dir, offline (its telemetry off); the
demo sessions are exported and read back through Phoenix's REST API. Phoenix >= 15.10 converts
gen_ai.* to OpenInference on arrival, so both are asserted. A missing or broken Phoenix fails
with the installer's log, never skips."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from telemetry.otlp.mapping import trace_id
from telemetry.queries import open_synced
from tests.telemetry.otlp import phoenix_install
from trace_ingest.cli import main

pytestmark = pytest.mark.slow
START_TIMEOUT = 300.0  # Phoenix imports a large tree; ~50 s on a busy 2-core machine


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as resp:
        return json.loads(resp.read())


@pytest.fixture(scope="module")
def phoenix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    python = phoenix_install.ensure()
    work = tmp_path_factory.mktemp("phoenix")
    port, grpc = _free_port(), _free_port()
    env = {
        **os.environ,
        "PHOENIX_WORKING_DIR": str(work),
        "PHOENIX_HOST": "127.0.0.1",
        "PHOENIX_PORT": str(port),
        "PHOENIX_GRPC_PORT": str(grpc),
        "PHOENIX_TELEMETRY_ENABLED": "false",
    }
    log = work / "phoenix.log"
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [str(python.parent / "phoenix"), "serve"],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if proc.poll() is not None:
                pytest.fail(f"Phoenix exited ({proc.returncode}):\n{log.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(f"{base}/healthz", timeout=5) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(
                    f"Phoenix did not start in {START_TIMEOUT:.0f} s:\n{log.read_text()[-3000:]}"
                )
            time.sleep(1)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def spans_of(base: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    cursor = None
    while True:
        url = f"{base}/v1/projects/default/spans?limit=1000"
        if cursor:
            url += f"&cursor={cursor}"
        page = _get(url)
        out += page["data"]
        cursor = page.get("next_cursor")
        if not cursor:
            return out


def wait_for(base: str, count: int) -> list[dict[str, Any]]:
    """Phoenix inserts received spans in the background: poll until all are there."""
    deadline = time.monotonic() + 60
    while True:
        spans = spans_of(base)
        if len(spans) >= count or time.monotonic() > deadline:
            return spans
        time.sleep(0.5)


def test_phoenix_reads_back_sessions_tools_and_evaluations(
    phoenix: str, demo_home: Path, trail_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copytree(demo_home, trail_home)
    assert main(["export", "otlp", "--endpoint", phoenix, "--include-open", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    db, _ = open_synced(str(trail_home))
    stored = sorted(str(r["key"]) for r in db.query("SELECT key FROM sessions"))
    db.close()
    assert report["sessions"] == len(stored) >= 6
    spans = wait_for(phoenix, report["spans"])
    assert len(spans) == report["spans"]
    by_id = {s["context"]["span_id"]: s for s in spans}
    roots = [s for s in spans if s["parent_id"] is None]
    keys = sorted(r["attributes"]["trail.session.key"] for r in roots)
    assert keys == stored
    for root in roots:
        key = root["attributes"]["trail.session.key"]
        assert root["context"]["trace_id"] == f"{trace_id(key):032x}"
        assert root["name"] == f"invoke_agent {root['attributes']['trail.harness']}"
        assert root["span_kind"] == "AGENT"  # Phoenix's conversion of invoke_agent
        assert root["attributes"]["gen_ai.operation.name"] == "invoke_agent"
        conv = root["attributes"]["gen_ai.conversation.id"]
        assert root["attributes"]["session.id"] == conv
        # Phoenix groups the trace under the session
        session = _get(f"{phoenix}/v1/sessions/{conv}")["data"]
        assert [t["trace_id"] for t in session["traces"]] == [root["context"]["trace_id"]]
    for s in spans:
        if s["parent_id"] is not None:
            assert s["parent_id"] in by_id
            assert by_id[s["parent_id"]]["context"]["trace_id"] == s["context"]["trace_id"]
    tools = [s for s in spans if s["attributes"].get("gen_ai.operation.name") == "execute_tool"]
    assert tools
    for t in tools:
        assert t["span_kind"] == "TOOL"
        assert t["attributes"]["tool.name"] == t["attributes"]["gen_ai.tool.name"]
        assert t["attributes"]["gen_ai.tool.call.id"]

    sub_root = next(r for r in roots if "demo-subagent" in r["attributes"]["trail.session.key"])
    agent = next(s for s in spans if s["attributes"].get("gen_ai.agent.id") == "a1b2c3d4")
    task = next(s for s in spans if s["attributes"].get("gen_ai.tool.call.id") == "toolu_demo_task")
    assert agent["parent_id"] == task["context"]["span_id"]
    assert task["parent_id"] == sub_root["context"]["span_id"]
    inside = {
        s["attributes"]["gen_ai.tool.call.id"]: s
        for s in spans
        if s["parent_id"] == agent["context"]["span_id"]
    }
    assert set(inside) == {"toolu_demo_001", "toolu_demo_002", "toolu_demo_003"}
    assert inside["toolu_demo_003"]["status_code"] == "ERROR"
    assert inside["toolu_demo_001"]["status_code"] == "OK"

    def evals(span: dict[str, Any]) -> dict[str, dict[str, Any]]:
        return {
            e["attributes"]["gen_ai.evaluation.name"]: e["attributes"]
            for e in span["events"]
            if e["name"] == "gen_ai.evaluation.result"
        }

    sub_evals = evals(sub_root)
    assert sub_evals["trace-grader"]["gen_ai.evaluation.score.label"] == "clean-pass"
    assert sub_evals["l0.pairing"]["gen_ai.evaluation.score.value"] == pytest.approx(0.8)
    unscored = [e for e in sub_evals.values() if e["gen_ai.evaluation.score.label"] == "unscored"]
    assert unscored and all("gen_ai.evaluation.score.value" not in e for e in unscored)
    guided = next(r for r in roots if "demo-guided" in r["attributes"]["trail.session.key"])
    assert evals(guided)["l2.guide CLAUDE.md"]["gen_ai.evaluation.score.label"] == "misaligned"
    actions = sorted(
        evals(s)["l2.action"]["gen_ai.evaluation.score.label"]
        for s in spans
        if s["context"]["trace_id"] == guided["context"]["trace_id"] and "l2.action" in evals(s)
    )
    assert actions == ["aligned", "misaligned"]

    # Re-export: the cursor sends nothing; without the cursor, the same ids again, and
    # Phoenix still holds each span once.
    assert main(["export", "otlp", "--endpoint", phoenix, "--include-open", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["spans"] == 0
    (trail_home / "export" / "otlp-cursor.json").unlink()
    assert main(["export", "otlp", "--endpoint", phoenix, "--include-open", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["spans"] == report["spans"]
    time.sleep(3)
    again = spans_of(phoenix)
    assert sorted(s["context"]["span_id"] for s in again) == sorted(by_id)
