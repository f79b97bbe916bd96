"""docs/sources.md agrees with the harness descriptors (the capability matrix is generated)."""

from __future__ import annotations

from tools.gen_sources_doc import BEGIN, DOC, END, columns, render, updated
from trace_ingest.capabilities import CAPABILITY_NAMES
from trace_ingest.harnesses.table import HARNESSES, get


def test_the_generated_part_is_current() -> None:
    text = DOC.read_text()
    assert BEGIN in text and END in text
    assert updated(text) == text, "docs/sources.md is stale: run `make docs`"


def test_the_matrix_has_every_declared_source_and_capability() -> None:
    declared = {(h, s) for h in HARNESSES for s in get(h).capabilities}
    assert declared <= {(h, s) for h, s, _ in columns()}
    table = render()
    for name in CAPABILITY_NAMES:
        assert f"| `{name}` |" in table
    for h in HARNESSES:
        assert f"(`{h}`)" in table
