"""Mistral Vibe: a placeholder descriptor (issue 11 fills it in).

Until then ``trail hook vibe`` records every payload as kind ``other`` with everything under
``extra`` (nothing is dropped; an adapter or importer can re-read it later), and
``trail doctor`` reports the harness as not wired yet. See ``trace_ingest.harnesses.table``
for what to add.
"""

from __future__ import annotations

from trace_ingest.harnesses.table import Harness

DESCRIPTOR = Harness(id="vibe", name="Mistral Vibe")
