"""The shared importer pipeline (trace_ingest.importers._pipeline): the line gate, the bounded
reader, and the report + writer half used on its own by a source that is not JSON lines."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import read_trace_lines
from trace_ingest.errors import AdapterError, TrailError
from trace_ingest.events import new_event
from trace_ingest.importers._pipeline import (
    FileSummary,
    FileWalk,
    ImportRun,
    LineImporter,
    expand_paths,
    json_line,
    read_lines,
)

LIMIT = 1024


@pytest.mark.parametrize(
    ("data", "is_last", "reason"),
    [
        (None, False, "line of 5000 bytes exceeds capture.max_payload_bytes (1024); not parsed"),
        (b"\xff{}\n", False, "invalid UTF-8 at byte 0 of the line; not parsed"),
        (b'{"type": "x"\n', True, "truncated last line (incomplete JSON"),
        (b'{"type": "x"\n', False, "malformed JSON"),
        (b"[1]\n", False, "JSON value is an array, not an object"),
        (b'"s"\n', False, "JSON value is a string, not an object"),
        (b'{"a": 1}\n', False, 'object has no "type" field'),
        (b'{"type": ""}\n', False, '"type" is "", not a line type name'),
        (b'{"type": 3}\n', False, '"type" is 3, not a line type name'),
        (b"[" * 5000 + b"]" * 5000 + b"\n", False, "nested too deeply to parse"),
    ],
)
def test_the_gate_says_why_a_line_is_skipped(
    data: bytes | None, is_last: bool, reason: str
) -> None:
    obj, why = json_line(data, 5000, is_last, LIMIT if data is None else 1 << 20)
    assert obj is None and why is not None and why.startswith(reason), why


def test_the_gate_passes_objects_and_ignores_blank_lines() -> None:
    assert json_line(b'{"type": "user", "n": NaN}\n', 10, False, LIMIT)[0] == {
        "type": "user",
        "n": "NaN",  # strict: kept as its text, so the line is written back as strict JSON
    }
    assert json_line(b"  \n", 3, False, LIMIT) == (None, None)
    assert json_line(b'{"role": "user"}', 16, True, LIMIT, type_key=None) == (
        {"role": "user"},
        None,
    )


def test_read_lines_never_holds_an_oversize_line(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_bytes(b'{"type":"a"}\n' + b"x" * (5 * LIMIT) + b"\n" + b'{"type":"b"}')
    rows = list(read_lines(str(path), LIMIT))
    assert [(n, d, last) for n, d, _, last in rows] == [
        (1, b'{"type":"a"}\n', False),
        (2, None, False),
        (3, b'{"type":"b"}', True),
    ]
    assert rows[1][2] == 5 * LIMIT + 1
    with pytest.raises(AdapterError, match="cannot read"):
        list(read_lines(str(tmp_path), LIMIT))


def test_expand_paths(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    for name in ("b/2.jsonl", "1.jsonl", "note.txt"):
        (tmp_path / name).write_text("")
    assert expand_paths([str(tmp_path)]) == [str(tmp_path / "1.jsonl"), str(tmp_path / "b/2.jsonl")]
    with pytest.raises(TrailError, match="no such file"):
        expand_paths([str(tmp_path / "nope")])


def _document_import(home: Path, doc: Path) -> Any:
    """A source that is one JSON document (the VS Code chatSessions shape): report + writer."""
    run = ImportRun("vscode", "chronicle", str(home))
    summary = FileSummary(str(doc))
    run.report.files.append(summary)
    data = json.loads(doc.read_text())
    events = []
    for n, req in enumerate(data["requests"], 1):
        ev = new_event(
            harness="vscode",
            source="chronicle",
            session_id=data["sessionId"],
            kind="prompt",
            received_at=run.received_at,
            id_parts=(req["requestId"],),
        )
        ev["text"] = req["message"]
        events.append((n, ev))
    events.append(events[0])  # the same record twice in one input
    run.write(str(doc), summary, events)
    return run.finish()


def test_a_non_line_source_uses_the_report_and_the_writer(trail_home: Path, tmp_path: Path) -> None:
    doc = tmp_path / "session.json"
    key = "ghp_" + "a1B2c3D4e5" * 4  # a secret in the prompt text is scrubbed on the way in
    doc.write_text(
        json.dumps(
            {
                "sessionId": "s-1",
                "requests": [
                    {"requestId": "r1", "message": "hello"},
                    {"requestId": "r2", "message": f"token {key}"},
                ],
            }
        )
    )
    first = _document_import(trail_home, doc)
    assert (first.events_written, first.duplicates_in_input) == (2, 1)
    assert first.redactions and first.as_dict()["harness"] == "vscode"
    assert first.sessions[0]["key"] == "vscode/s-1"
    lines = read_trace_lines(trail_home)
    assert lines[0]["text"] == "hello" and key not in json.dumps(lines)
    again = _document_import(trail_home, doc)  # idempotent
    assert (again.events_written, again.events_already_present) == (0, 2)


class _Walk(FileWalk):
    def feed(self, number: int, obj: dict[str, Any], data: bytes) -> None:
        ev = new_event(
            harness="copilot-cli",
            source="events-log",
            session_id="s",
            kind="other",
            received_at=self.run.received_at,
            id_parts=(obj["id"],),
        )
        self.events.append((number, ev))


class _Importer(LineImporter):
    HARNESS = "copilot-cli"
    SOURCE = "events-log"

    def new_walk(self, path: str) -> FileWalk:
        return _Walk(self, path)


def test_a_line_importer_needs_only_feed(trail_home: Path, tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    path.write_text('{"type": "a", "id": 1}\nnot json\n{"type": "b", "id": 2}\n{"type"')
    report = _Importer(str(trail_home)).run([str(tmp_path)])
    assert report.events_written == 2
    assert [(s.line, s.reason.split(":")[0]) for s in report.skipped] == [
        (2, "malformed JSON"),
        (4, "truncated last line (incomplete JSON"),
    ]
    assert report.files[0].lines == 4 and report.files[0].skipped == 2
    path.write_text(path.read_text().rsplit("\n", 1)[0] + '\n{"type": "c", "id": 3}\n')
    grown = _Importer(str(trail_home)).run([str(path)])  # resumable: only the new line
    assert (grown.events_written, grown.events_already_present) == (1, 2)


def test_the_usual_timestamp_takes_a_short_cut_to_the_same_answer() -> None:
    """``…T17:30:15.183Z`` (Claude Code, Copilot CLI) skips datetime; any change to it still
    gives exactly what the datetime path gives (invalid dates, hours, non-ASCII digits)."""
    from trace_ingest.importers._pipeline import _normalize_ts, normalize_ts

    assert normalize_ts("2026-01-23T17:30:15.183Z") == "2026-01-23T17:30:15.183000Z"
    assert normalize_ts("2024-02-29T23:59:59.999Z") == "2024-02-29T23:59:59.999000Z"
    assert normalize_ts("2026-02-29T00:00:00.000Z") is None
    assert normalize_ts("0999-01-01T00:00:00.000Z") == _normalize_ts("0999-01-01T00:00:00.000Z")
    rng = random.Random(5)
    base = "2026-01-23T17:30:15.183Z"
    for _ in range(20_000):
        text = list(base)
        for _ in range(rng.randint(1, 3)):
            text[rng.randrange(len(text))] = rng.choice("0123456789-:.TZ +x\u0663")
        value = "".join(text)
        assert normalize_ts(value) == _normalize_ts(value), value


def test_epoch_integers_take_a_short_cut_to_the_same_answer() -> None:
    """Epoch seconds and milliseconds (Vibe) skip datetime below ``_MAX_MS``; the answer is
    the datetime path's, at the edges (seconds / milliseconds, the cut-off) and in between."""
    from trace_ingest.importers._pipeline import _MAX_MS, _normalize_ts, normalize_ts

    edges = [0, 1, 999, 100_000_000_000, 100_000_000_001, _MAX_MS - 1, _MAX_MS, -1]
    rng = random.Random(7)
    values = edges + [rng.randrange(0, _MAX_MS + 10**9) for _ in range(50_000)]
    values += [rng.randrange(1_700_000_000_000, 1_900_000_000_000) for _ in range(50_000)]
    for value in values:
        assert normalize_ts(value) == _normalize_ts(value), value
    assert normalize_ts(1_796_126_000_123) == "2026-12-01T11:53:20.123000Z"


def _event(session: str, n: int) -> dict[str, Any]:
    ev = new_event(
        harness="claude-code",
        source="transcript",
        session_id=session,
        kind="prompt",
        received_at="2026-01-01T00:00:00.000000Z",
        id_parts=(n,),
    )
    ev["text"] = f"line {n}"
    return ev


def test_writer_keeps_files_open_and_still_sees_a_torn_line(trail_home: Path) -> None:
    # The writer keeps up to MAX_OPEN trace files open across batches. A session whose file
    # was closed to make room is opened again; one that another writer left torn between two
    # batches of this run still gets its next event on a line of its own.
    from trace_ingest.importers import _pipeline

    run = ImportRun("claude-code", "transcript", str(trail_home))
    sessions = [f"s{i}" for i in range(_pipeline.MAX_OPEN + 3)]
    summaries = {s: FileSummary(s) for s in sessions}
    for s in sessions:  # the first ones are closed again to keep MAX_OPEN open
        run.write(s, summaries[s], [(1, _event(s, 1))])
    assert len(run.writer._open) == _pipeline.MAX_OPEN
    torn = run.writer.sinks[sessions[-1]].path  # still open
    with open(torn, "ab") as fh:
        fh.write(b'{"v":1,"id":"0123')  # a killed hook's half line
    for s in (sessions[0], sessions[-1]):  # reopened, and open all along
        run.write(s, summaries[s], [(2, _event(s, 2)), (1, _event(s, 1))])
    removed = sessions[-2]  # open, then its file removed under it: written anew, not lost
    Path(run.writer.sinks[removed].path).unlink()
    run.write(removed, summaries[removed], [(3, _event(removed, 3))])
    assert json.loads(Path(run.writer.sinks[removed].path).read_bytes())["text"] == "line 3"
    sessions.remove(removed)
    run.finish()
    assert run.writer._open == {}
    for s in sessions:
        lines = Path(run.writer.sinks[s].path).read_bytes().splitlines()
        whole = [json.loads(x) for x in lines if x != b'{"v":1,"id":"0123']
        expected = ["line 1", "line 2"] if s in (sessions[0], sessions[-1]) else ["line 1"]
        assert [e["text"] for e in whole] == expected, s
    data = Path(torn).read_bytes()
    assert data.count(b"\n") == 3 and b'"id":"0123\n{"v":1' in data  # torn fragment kept apart
    first = summaries[sessions[0]]
    assert (first.events, first.written, first.duplicates) == (3, 2, 1)
