"""``trail export otlp``: sessions, tool calls and grades as OpenTelemetry GenAI traces.

- ``mapping``: one session (canonical events + its current grades) -> SDK spans (pure);
- ``cursor``: what was already delivered, per endpoint (``$TRAIL_HOME/export/otlp-cursor.json``);
- ``send``: the export run (select sessions, map, send in batches with retries, advance the
  cursor only after the collector accepted a batch);
- ``cli``: the click commands.

The OpenTelemetry SDK is imported only from here; the hook never reaches this package
(tests/hooks import probe). docs/export.md is the reference.
"""
