"""The ``trail`` console script.

``trail hook <harness>`` is dispatched here, before click is imported, so the hot path pays
only for the standard library. Every other command goes to the click CLI in
``trace_ingest.cli``.
"""

from __future__ import annotations

import importlib
import sys


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "hook" and "--help" not in sys.argv:
        # Named as a string: trace_ingest must not import the hooks package (ARCHITECTURE.md).
        hook = importlib.import_module("hooks.entry")
        code: int = hook.main(sys.argv[2:])
        return code
    cli = importlib.import_module("trace_ingest.cli")
    return int(cli.main() or 0)


if __name__ == "__main__":
    sys.exit(main())
