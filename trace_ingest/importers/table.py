"""The post-hoc importers: harness -> importer module, and the contract each module keeps.

``trail import <harness> PATH...`` is built from ``IMPORTERS`` (``trace_ingest.cli_import``):
adding an importer adds a subcommand, with no edit to the CLI. Every key is a harness of
``trace_ingest.harnesses.table.HARNESSES`` and the module's ``SOURCE`` is one its descriptor
declares capabilities for (tests/test_harness_agreement.py).

An importer module (``trace_ingest/importers/<name>.py``) exposes:

- ``HARNESS`` (the harness id) and ``SOURCE`` (``transcript``, ``events-log``, ...): the
  ``harness``/``source`` of every event it writes;
- ``HELP``: the docstring of its ``trail import <harness>`` command (first sentence = the
  short help; say which files FILE_OR_DIR may name);
- ``import_paths(paths, home=None, task=None) -> ImportReport``: import files or folders into
  ``home`` (default ``$TRAIL_HOME``), streaming, resumable and idempotent.

A JSON-lines source subclasses ``trace_ingest.importers._pipeline.LineImporter`` (bounded line
reader, the JSON-line gate, per-file ``feed``); any other source (a JSON document, a SQLite
store) uses ``_pipeline.ImportRun`` for the report and the dedupe-scrub-append writer only.
Not every importer is a ``trail import`` subcommand: VS Code's ``trail chronicle import``
reuses the same report and writer under its own command.
"""

from __future__ import annotations

IMPORTERS: dict[str, str] = {
    "claude-code": "trace_ingest.importers.claude_transcript",
    "copilot-cli": "trace_ingest.importers.copilot_events",
    "vibe": "trace_ingest.importers.vibe_store",
}
