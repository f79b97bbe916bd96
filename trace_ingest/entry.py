"""The ``trail`` console script.

``trail hook <harness>`` is dispatched here, before click is imported, so the hot path pays
only for the standard library. Every other command goes to the click CLI in
``trace_ingest.cli``.

The hook's receipt time is taken when this module is imported, the first thing the ``trail``
process does after the interpreter starts (before config is read or stdin is touched): async
hooks start late and out of order, and ``received_at`` must say when the harness ran us, not
how long the rest of the work took (docs/events.md).
"""

from __future__ import annotations

import time

STARTED_NS = time.time_ns()

import gc  # noqa: E402 - after the stamp, deliberately
import importlib  # noqa: E402
import sys  # noqa: E402


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "hook" and "--help" not in sys.argv:
        # A hook call lives for milliseconds and builds no reference cycles worth collecting
        # (a payload parses into a tree, freed by reference counting): the collector's passes
        # while the hook's modules load and its scrubber's rules are built are pure cost
        # (~1.2 ms of a call's CPU, docs/scrubbing.md), as in hooks/run.py. Restored after,
        # for callers that run this in a longer-lived process (the tests).
        collecting = gc.isenabled()
        gc.disable()
        # Named as a string: trace_ingest must not import the hooks package (ARCHITECTURE.md).
        try:
            hook = importlib.import_module("hooks.entry")
            code: int = hook.main(sys.argv[2:], started_ns=STARTED_NS)
        except BaseException:
            return 0  # the hook never fails the agent, not even on a broken install
        finally:
            if collecting:
                gc.enable()
        return code
    cli = importlib.import_module("trace_ingest.cli")
    return int(cli.main() or 0)


if __name__ == "__main__":
    sys.exit(main())
