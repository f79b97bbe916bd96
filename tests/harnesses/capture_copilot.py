"""Run one Copilot CLI scenario once and keep its whole run folder, for developing against it.

``python -m tests.harnesses.capture_copilot SCENARIO OUTDIR`` (``all`` runs every scenario into
``OUTDIR/<scenario>/``). The folder is tests/harnesses/rig_copilot.py's run folder: the scratch
HOME with ``.copilot/session-state/<id>/events.jsonl``, the TRAIL_HOME with trail's
``trace.jsonl``, the fake model's request log and Copilot's JSON output. OUTDIR is emptied first.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.harnesses import install
from tests.harnesses.rig_copilot import run
from tests.harnesses.scenarios_copilot import GUARD_SCENARIOS, SCENARIOS

EVERY = {**SCENARIOS, **GUARD_SCENARIOS}


def main(argv: list[str] | None = None) -> int:
    args = argv if argv is not None else sys.argv[1:]
    if len(args) != 2 or (args[0] not in EVERY and args[0] != "all"):
        print(
            "usage: python -m tests.harnesses.capture_copilot SCENARIO|all OUTDIR", file=sys.stderr
        )
        print(f"scenarios: {', '.join(EVERY)}", file=sys.stderr)
        return 2
    copilot = install.ensure("copilot-cli")
    names = list(EVERY) if args[0] == "all" else [args[0]]
    out = Path(args[1]).resolve()
    for name in names:
        root = out / name if args[0] == "all" else out
        result = run(EVERY[name], root, copilot)
        print(
            f"{name}: session {result.session_id}, exit {result.returncode}, "
            f"{result.seconds:.1f}s -> {root}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
