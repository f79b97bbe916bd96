"""Token counts per session (``queries.usage_totals``) from what each source records: Copilot
CLI's ``session.usage_record`` lines (real 1.0.102 logs), Claude Code transcripts (one line
per content block, each repeating its response's usage), VS Code's normalized and camelCase
records; through real imports and the real mirror."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from telemetry import queries
from trace_ingest.importers import claude_transcript, copilot_events

DATA = Path(__file__).parents[1] / "trace_ingest" / "data"
COPILOT_RUN = DATA / "copilot-cli-1.0.102-subagent"


def _totals(home: Path) -> dict[str, dict[str, int]]:
    db, _ = queries.open_synced(str(home))
    keys = [str(r[0]) for r in db.execute("SELECT key FROM sessions")]
    return queries.usage_totals(db, keys)


def test_copilot_usage_records_are_summed_per_session(tmp_path: Path) -> None:
    """Every model call's record, the subagent's included, counts once; re-importing the
    same log adds nothing."""
    records = [
        json.loads(line)["data"]["usage"]
        for log in COPILOT_RUN.glob("*/events.jsonl")
        for line in log.read_text().splitlines()
        if '"session.usage_record"' in line
    ]
    assert len(records) == 5 and any(r.get("initiator") == "sub-agent" for r in records)
    want = {
        "input_tokens": sum(r["inputTokens"] for r in records),
        "output_tokens": sum(r["outputTokens"] for r in records),
    }
    for _ in range(2):
        report = copilot_events.import_paths([str(COPILOT_RUN)], home=str(tmp_path))
        assert "session.usage_record" not in report.ignored
    assert list(_totals(tmp_path).values()) == [want]


def _line(n: int, msg_id: str, block: dict[str, Any], usage: dict[str, int]) -> str:
    return json.dumps(
        {
            "type": "assistant",
            "uuid": f"u{n}",
            "parentUuid": f"u{n - 1}" if n else None,
            "sessionId": "s-usage",
            "timestamp": f"2026-12-01T10:00:0{n}.000Z",
            "message": {
                "id": msg_id,
                "role": "assistant",
                "model": "claude-x",
                "content": [block],
                "usage": usage,
                "stop_reason": None,
            },
        }
    )


def test_claude_transcript_usage_counts_each_response_once(tmp_path: Path) -> None:
    """Claude Code writes a response's thinking, text and tool_use blocks as separate lines
    with the same message id and usage: counted once, at its largest output count (a block
    written mid-stream may hold fewer), with the cache reads and writes in the input."""
    first = {"input_tokens": 6, "cache_creation_input_tokens": 100, "cache_read_input_tokens": 50}
    lines = [
        _line(0, "msg_a", {"type": "thinking", "thinking": "…"}, {**first, "output_tokens": 3}),
        _line(1, "msg_a", {"type": "text", "text": "Reading it."}, {**first, "output_tokens": 20}),
        _line(
            2,
            "msg_a",
            {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/x"}},
            {**first, "output_tokens": 20},
        ),
        _line(
            3,
            "msg_b",
            {"type": "text", "text": "Done."},
            {"input_tokens": 3, "cache_read_input_tokens": 200, "output_tokens": 5},
        ),
    ]
    transcript = tmp_path / "project" / "s-usage.jsonl"
    transcript.parent.mkdir()
    transcript.write_text("\n".join(lines) + "\n")
    claude_transcript.import_paths([str(transcript)], home=str(tmp_path / "home"))
    assert list(_totals(tmp_path / "home").values()) == [
        {"input_tokens": 6 + 100 + 50 + 3 + 200, "output_tokens": 20 + 5}
    ]


def test_vscode_usage_shapes_are_both_read() -> None:
    """The VS Code chat importer's normalized counts and the transcript's camelCase
    ``assistant.usage`` record (Copilot CLI's shape too) read alike; a record without counts,
    or with booleans or negatives, counts nothing."""
    read = queries._call_usage
    assert read({"usage": {"input_tokens": 10, "output_tokens": 2, "model": "m"}}) == (
        None,
        {"input_tokens": 10, "output_tokens": 2},
    )
    assert read({"usage": {"inputTokens": 7, "outputTokens": 1, "cacheReadTokens": 5}}) == (
        None,
        {"input_tokens": 7, "output_tokens": 1},
    )
    for extra in (
        {"usage": {"model": "m"}},
        {"usage": {"inputTokens": True, "outputTokens": -1}},
        {"message": {"id": "m1"}},
        {"usage": "12 tokens"},
    ):
        assert read(extra) is None


VIBE_RUN = DATA / "vibe-3.0.1"


def _vibe_totals(folder: Path) -> dict[str, int]:
    """The ``tokenUsage`` of the projection-state a store's CURRENT names."""
    current = json.loads((folder / "CURRENT").read_text())
    gen = current["generation"]
    name = gen if isinstance(gen, str) else f"{gen:016d}"
    state = json.loads((folder / "generations" / name / "projection-state.json").read_text())
    usage = state["snapshot"]["session"]["tokenUsage"]
    return {"input_tokens": usage["inputTokens"], "output_tokens": usage["outputTokens"]}


def test_vibe_store_totals_count_once_per_store(tmp_path: Path) -> None:
    """Vibe keeps running totals per store (the subagent's store has its own): a session's
    tokens are its stores' latest totals, summed, however often the store is re-imported."""
    from trace_ingest.importers import vibe_store

    stores = [p for p in VIBE_RUN.iterdir() if (p / "CURRENT").is_file()]
    parent = VIBE_RUN / "2df68db3-e078-0820-b452-6d20861bc6dd"
    child = VIBE_RUN / "child-21de204dce7c979392e46863"
    assert parent in stores and child in stores
    for _ in range(2):
        vibe_store.import_paths([str(VIBE_RUN)], home=str(tmp_path))
    totals = _totals(tmp_path)
    want = {
        name: _vibe_totals(parent)[name] + _vibe_totals(child)[name]
        for name in ("input_tokens", "output_tokens")
    }
    assert want in totals.values() and len(totals) == 2  # the two recorded sessions
