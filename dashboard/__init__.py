"""The dashboard: ``trail serve`` (a local web view of the mirror) and ``trail report --html``.

The fifth top-level package: it stands on scorers, telemetry and trace_ingest and nothing
imports it except the CLI root's lazy table (docs/ARCHITECTURE notes in docs/dashboard.md).
"""
