"""A canonical traces.json is read one run at a time (scorers.traces_input.map_traces): the
runs, steps and formats it yields must equal the whole-document parse on every layout,
including the ones it hands back to that parse (keys in another order, duplicate keys,
trailing data, a BOM), and at any chunk size (values cut at a chunk's end)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from scorers import traces_input
from scorers.grader_config import load_grader_config
from scorers.trace_grader import grade_run, grade_trace_file
from scorers.traces_input import map_traces, traces_from_text


def _step(i: int | str, tool: str = "Read", ok: Any = True, **extra: Any) -> dict[str, Any]:
    return {
        "step": i,
        "tool": tool,
        "args": {"file_path": f"./src/../f{i}.py"},
        "ok": ok,
        **extra,
    }


BIG_RUN = {"run_id": "big", "steps": [_step(i, observation="x" * 500) for i in range(1, 400)]}
DOCS = {
    "seed order": {
        "tasks": [
            {
                "task": "a",
                "runs": [{"run_id": "r1", "ok": True, "steps": [_step(1), _step(2, "Edit")]}],
            }
        ]
    },
    "runs before task": {
        "tasks": [{"runs": [{"steps": [_step(1, "Edit", False)]}], "task": "late"}]
    },
    "falsy task, id later": {"tasks": [{"task": "", "runs": [{"steps": []}], "id": "idd"}]},
    "non-objects skipped": {
        "tasks": [
            5,
            None,
            {
                "task": "b",
                "runs": [
                    1,
                    {"id": "q", "steps": [{"tool_name": "Bash", "command": "ls", "ok": "1"}]},
                ],
            },
        ]
    },
    "flat runs": {
        "runs": [{"task": "t", "steps": [{"tool": "Read", "path": "a"}]}],
        "meta": {"x": [1, 2, 3]},
    },
    "runs then tasks": {
        "runs": [{"task": "t", "steps": []}],
        "tasks": [{"task": "z", "runs": [{"steps": [{"tool": "X"}]}]}],
    },
    "bare list": [{"run_id": "x", "steps": [_step(1, ok=1)]}, 3],
    "lanes and string steps": {
        "tasks": [
            {
                "task": "a",
                "runs": [
                    {
                        "run_id": "r1",
                        "steps": [_step("7", agent_id="ag", ok=None), _step(8, isSidechain=True)],
                    }
                ],
            }
        ],
        "n": 12345678901234567890,
    },
    "big values": {"tasks": [{"task": "a", "runs": [BIG_RUN, BIG_RUN]}], "z": 1.5e300},
}
TEXTS = {name: json.dumps(doc, indent=1 if "list" in name else None) for name, doc in DOCS.items()}
TEXTS |= {
    "duplicate task key": '{"tasks": [{"task": "a", "runs": [{"run_id": "1", "steps": []}],'
    ' "task": "b"}]}',
    "duplicate tasks key": '{"tasks": [{"task": "a", "runs": [{"steps": []}]}], "tasks": []}',
    "key before tasks": '{"v": 1, "tasks": [{"task": "a", "runs": [{"steps": []}]}]}',
    "trailing document": '{"tasks": []}\n{"tool_name": "Read", "session_id": "s"}\n',
    "audit": '{"tool_name": "Read", "session_id": "s1", "file_path": "a"}\n'
    '{"tool_name": "Edit", "session_id": "s1", "file_path": "a"}\n',
    "BOM": '\ufeff{"tasks": [{"task": "a", "runs": [{"steps": [{"tool": "Read"}]}]}]}',
}


def _whole(text: str) -> Any:
    try:
        tf = traces_from_text(text, "f")
    except Exception as exc:
        return type(exc).__name__
    return tf.format, [dataclasses.asdict(r) for r in tf.runs]


def _streamed(path: Path) -> Any:
    try:
        fmt, _, runs = map_traces(str(path), None, lambda run, _: run)
    except Exception as exc:
        return type(exc).__name__
    return fmt, [dataclasses.asdict(r) for r in runs]


@pytest.mark.parametrize("chunk", [1, 7, 1 << 20])
@pytest.mark.parametrize("name", sorted(TEXTS))
def test_streamed_parse_equals_the_whole_parse(
    name: str, chunk: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(traces_input, "_CHUNK", chunk)
    path = tmp_path / "traces.json"
    path.write_text(TEXTS[name], encoding="utf-8")
    assert _streamed(path) == _whole(TEXTS[name])


def test_streaming_reads_the_file_once_without_parsing_it_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The usual layout never reaches the whole-document parse."""
    path = tmp_path / "traces.json"
    path.write_text(TEXTS["seed order"], encoding="utf-8")

    def whole(*_: Any) -> Any:
        raise AssertionError("parsed whole")

    monkeypatch.setattr(traces_input, "traces_from_text", whole)
    fmt, _, runs = map_traces(str(path), None, lambda run, _: run.run_id)
    assert (fmt, runs) == ("canonical", ["r1"])


def test_grade_trace_file_equals_grading_the_parsed_runs(tmp_path: Path) -> None:
    path = tmp_path / "traces.json"
    path.write_text(TEXTS["big values"] + "\n", encoding="utf-8")
    cfg = load_grader_config(None)
    graded = grade_trace_file(str(path), None, cfg, 0.5)
    tf = traces_from_text(TEXTS["big values"], "f")
    expected = [grade_run(r, cfg, tf.profile, 0.5).as_dict() for r in tf.runs]
    assert [r.as_dict() for r in graded.results] == expected
    assert all(not r.run.steps and r.steps == 399 for r in graded.results)
    assert [(t.task, t.n) for t in graded.passk] == [("a", 2)]
