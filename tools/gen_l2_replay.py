"""Write the replay files of the calibration set's two scripted judges.

    .venv/bin/python tools/gen_l2_replay.py

``scorers/data/replay-calibration-oracle.json`` answers every case of
``scorers/data/l2_calibration.json`` with its ``oracle`` citations, and
``replay-calibration-careless.json`` with the careless judge's (docs/grading.md,
"Calibration"). Each response matches its case by session (``calibration/<id>``), not by
input hash, so the files survive a change of rendering; tests check they are up to date.
These answers were written from the labels, not recorded from a model.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from scorers.judge.calibration_set import load_set  # noqa: E402
from scorers.judge.replay import FORMAT  # noqa: E402

JUDGES = {
    "oracle": "written from the labels of l2_calibration.json (the oracle citations)",
    "careless": "written from l2_calibration.json: a judge that obeys planted instructions "
    "and misses some violations",
}


def book(judge: str) -> dict[str, object]:
    cases, _ = load_set()
    return {
        "format": FORMAT,
        "recorded_with": JUDGES[judge],
        "responses": [
            {"session": case.session_key, "facts": case.answers[judge]} for case in cases
        ],
    }


def text(judge: str) -> str:
    return json.dumps(book(judge), indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def main() -> None:
    for judge in JUDGES:
        path = REPO / "scorers" / "data" / f"replay-calibration-{judge}.json"
        path.write_text(text(judge), encoding="utf-8")
        print(f"wrote {path.relative_to(REPO)}")


if __name__ == "__main__":
    main()
