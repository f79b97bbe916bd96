"""Run one scenario once and keep its whole run folder, for developing against real data.

``python -m tests.harnesses.capture SCENARIO OUTDIR`` (``all`` runs every scenario into
``OUTDIR/<scenario>/``). The folder holds the scratch HOME with ``.claude/projects/...``, the
TRAIL_HOME with trail's ``trace.jsonl``, the fake model's request log and claude's stream-json
output (see tests/harnesses/rig.py), and ``hook-trace.jsonl``: only the lines trail's hooks wrote
(source "hook"), as they stood when the run ended. OUTDIR is emptied first.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.harnesses import install
from tests.harnesses.rig import run
from tests.harnesses.scenarios import SCENARIOS
from tests.harnesses.truth import hook_trace


def main(argv: list[str] | None = None) -> int:
    args = argv if argv is not None else sys.argv[1:]
    if len(args) != 2 or (args[0] not in SCENARIOS and args[0] != "all"):
        print("usage: python -m tests.harnesses.capture SCENARIO|all OUTDIR", file=sys.stderr)
        print(f"scenarios: {', '.join(SCENARIOS)}", file=sys.stderr)
        return 2
    claude = install.ensure("claude-code")
    names = list(SCENARIOS) if args[0] == "all" else [args[0]]
    out = Path(args[1]).resolve()
    for name in names:
        root = out / name if args[0] == "all" else out
        result = run(SCENARIOS[name], root, claude)
        hooks = [e for e in hook_trace(result.paths.trail_home, result.session_id)]
        (root / "hook-trace.jsonl").write_text(
            "".join(json.dumps(e) + "\n" for e in hooks if e.get("source") == "hook")
        )
        print(
            f"{name}: session {result.session_id}, exit {result.returncode}, "
            f"{result.seconds:.1f}s (+{result.settle_seconds:.1f}s settle) -> {root}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
