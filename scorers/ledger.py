"""The grade ledger: ``$TRAIL_HOME/GRADES.jsonl`` (append-only, the source of truth) mirrored
into the ``grades`` table of ``trail.db`` (rebuildable from the ledger at any time).

Every entry carries seed 000's fields (sessionId, taskId, totalScore, maxScore, dimensions
``{score, max, evidence}``, flags, timestamp, entryCount, evaluator) plus rubric, rubricVersion,
coverage, percent, verdict, outcome, the thresholds' provenance (sha256, verified), the
capability profile and every atom. ``totalScore`` / ``maxScore`` are summed over *scored*
atoms only; ``coverage`` = maxScore / the rubric's full maximum.
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any

from sqlite_utils import Database

from scorers.atoms import Atom
from scorers.contents import NOTHING
from scorers.grader_config import GraderConfig
from scorers.l0 import L0Result
from scorers.rubric_cleo import RUBRIC_VERSION, CleoResult
from scorers.session import SessionGrade
from scorers.trace_grader import L1Result
from scorers.verdicts import L2Result
from telemetry import queries
from trace_ingest.events import now_iso
from trace_ingest.paths import ensure_home, grades_path
from trace_ingest.store import append_lines

L1_RUBRIC = "trace-grader"
L1_RUBRIC_VERSION = "trail-L0L1/1 (seed 001 rules)"


def grader_version() -> str:
    try:
        from importlib.metadata import version

        return f"trail {version('trail')}"
    except Exception:  # pragma: no cover - not installed
        return "trail (unknown version)"


def _grade_id(*parts: object) -> str:
    return hashlib.blake2b(json.dumps(parts, default=str).encode(), digest_size=12).hexdigest()


def _dimension(atom: Atom) -> dict[str, Any]:
    return {
        "score": atom.earned if atom.scored else None,
        "max": atom.possible,
        "evidence": list(atom.evidence),
        "status": atom.status,
        "reason": atom.reason,
    }


def _r(x: float | None, nd: int = 4) -> float | None:
    return None if x is None else round(x, nd)


def _nothing_reason(grade: SessionGrade) -> str | None:
    if grade.l1 is not None and grade.l1.nothing_reason:
        return grade.l1.nothing_reason
    if grade.l0 is not None:
        reason = grade.l0.facts.get("contents", {}).get("nothing_to_grade")
        return str(reason) if reason else "nothing to grade: the session holds no events"
    return None


def session_record(
    grade: SessionGrade, config: GraderConfig, timestamp: str | None = None
) -> dict[str, Any]:
    """The L0/L1 ledger entry of one session (both levels' results in ``grade``)."""
    return trace_entry(grade, config, timestamp or now_iso(), l0=grade.l0, l1=grade.l1)


def trace_entry(
    grade: SessionGrade,
    config: GraderConfig,
    timestamp: str,
    *,
    l0: L0Result | None = None,
    l1: L1Result | None = None,
) -> dict[str, Any]:
    """The ``trace-grader`` entry made of the L0 and / or L1 result given (the registry's
    ``l0`` and ``l1`` entries each write their part; ``registry.merge_records`` folds them)."""
    ts = timestamp
    data = grade.data
    atoms: list[Atom] = []
    levels: dict[str, Any] = {}
    main = None
    if l0 is not None:
        atoms += l0.atoms
        levels["L0"] = {
            "verdict": l0.verdict,
            **l0.aggregate.as_dict(),
            "facts": l0.facts,
        }
        main = l0.aggregate
    verdict = l0.verdict if l0 is not None else None
    flags: list[str] = []
    findings: list[dict[str, Any]] = []
    if l1 is not None:
        atoms += l1.atoms
        levels["L1"] = {
            "verdict": l1.verdict,
            "flagVerdict": l1.delivered_verdict,
            **l1.aggregate.as_dict(),
            "internalSteps": l1.internal_steps,
        }
        main = l1.aggregate
        verdict = l1.verdict
        for f in l1.findings:
            flags.append(f"{f.check} ({f.severity}): {f.detail}")
            findings.append(f.as_dict())
    assert main is not None
    # Nothing to grade (seed 002's intentional empty grade): a finished grade of zero judged
    # work. No score at all, rather than 0 of 0.
    nothing = verdict == NOTHING
    return {
        "gradeId": _grade_id(data.key, L1_RUBRIC, ts),
        "sessionId": data.session_id,
        "sessionKey": data.key,
        "harness": data.harness,
        "taskId": data.task,
        "rubric": L1_RUBRIC,
        "rubricVersion": L1_RUBRIC_VERSION,
        "levels": levels,
        "verdict": verdict,
        "outcome": "unknown" if data.outcome is None else data.outcome,
        "totalScore": None if nothing else _r(main.earned),
        "maxScore": None if nothing else _r(main.possible),
        "percent": _r(None if main.score is None else 100 * main.score, 2),
        "coverage": _r(main.coverage),
        "nothingToGrade": _nothing_reason(grade) if nothing else None,
        "dimensions": {a.check: _dimension(a) for a in atoms},
        "flags": flags,
        "findings": findings,
        "timestamp": ts,
        "entryCount": len(data.events),
        "evaluator": "auto",
        "config": config.provenance(),
        "profile": grade.profile.as_dict(),
        "atoms": [a.as_dict() for a in atoms],
        "grader": grader_version(),
    }


def cleo_record(
    grade: SessionGrade, cleo: CleoResult, timestamp: str | None = None
) -> dict[str, Any]:
    """The ``cleo`` rubric ledger entry of one session (seed 000's GradeResult + coverage)."""
    ts = timestamp or now_iso()
    data = grade.data
    agg = cleo.aggregate
    nothing = cleo.grade == NOTHING
    return {
        "gradeId": _grade_id(data.key, "cleo", ts),
        "sessionId": data.session_id,
        "sessionKey": data.key,
        "harness": data.harness,
        "taskId": data.task,
        "rubric": "cleo",
        "rubricVersion": RUBRIC_VERSION,
        "verdict": cleo.grade,
        "grade": cleo.grade,
        "outcome": "unknown" if data.outcome is None else data.outcome,
        "totalScore": None if nothing else _r(agg.earned),
        "maxScore": None if nothing else _r(agg.possible),
        "rubricMax": _r(agg.total_possible),
        "percent": cleo.percent,
        "coverage": _r(agg.coverage),
        "nothingToGrade": cleo.stream.nothing if nothing else None,
        "dimensions": cleo.dimensions,
        "flags": [f.text for f in cleo.flags],
        "findings": [f.as_dict() for f in cleo.flags],
        "timestamp": ts,
        "entryCount": cleo.entry_count,
        "evaluator": "auto",
        "opSource": cleo.stream.origin,
        "opVisibility": {
            "visible": sorted(cleo.stream.visible),
            "blind": {k: v[1] for k, v in cleo.stream.blind.items()},
        },
        "profile": grade.profile.as_dict(),
        "atoms": [a.as_dict() for a in cleo.atoms],
        "grader": grader_version(),
    }


def append(home: str, records: list[dict[str, Any]], db: Database | None = None) -> None:
    """Append records to the ledger (one write), then mirror them into SQLite."""
    if not records:
        return
    ensure_home(home)
    data = "".join(json.dumps(r, ensure_ascii=False, default=str) + "\n" for r in records)
    append_lines(grades_path(home), data)
    if db is not None:
        queries.insert_grades(db, _with_ids(records))


def read(home: str) -> list[dict[str, Any]]:
    """Every ledger entry, oldest first (unparseable lines are skipped)."""
    return read_objects(grades_path(home))


def read_objects(path: str) -> list[dict[str, Any]]:
    """Every JSON object line of an append-only JSONL file, oldest first (unparseable lines
    are skipped; no file is no entries). Also reads CALIBRATIONS.jsonl (scorers.judge)."""
    if not os.path.exists(path):
        return []
    out = []
    with open(path, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            if isinstance(obj, dict):
                out.append(obj)
    return out


def _with_ids(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Entries written by hand or by an old trail may lack a gradeId: derive one."""
    return [
        r
        if r.get("gradeId")
        else {**r, "gradeId": _grade_id(r.get("sessionId"), r.get("rubric"), r.get("timestamp"))}
        for r in records
    ]


def sync(db: Database, home: str) -> list[dict[str, Any]]:
    """Mirror the whole ledger into SQLite (idempotent) and return its entries."""
    records = read(home)
    if records:
        queries.insert_grades(db, _with_ids(records))
    return records


L2_RUBRIC = "l2"


def l2_record(grade: SessionGrade, result: L2Result, timestamp: str) -> dict[str, Any]:
    """The L2 ledger entry of one session: seed 002's verdicts (``l2``: per guide, per
    action, the guides in context, what the token budget cut, the judge and its cost).
    ``verdict`` is the one-word summary (verdicts.L2Result.verdict); ``coverage`` the share of
    the session's actions that were judged. The grading entry point adds ``contents``, the
    fingerprint of what was judged (scorers.queue)."""
    data = grade.data
    judge = result.judge
    cut_events = sum(1 for c in result.cut if c.get("event"))
    judged = len(result.actions)
    nothing = result.nothing_reason is not None
    return {
        "gradeId": _grade_id(data.key, L2_RUBRIC, timestamp),
        "sessionId": data.session_id,
        "sessionKey": data.key,
        "harness": data.harness,
        "taskId": data.task,
        "rubric": L2_RUBRIC,
        "rubricVersion": (judge.prompt_version if judge else "") or "l2",
        "verdict": result.verdict,
        "outcome": "unknown" if data.outcome is None else data.outcome,
        "totalScore": None,
        "maxScore": None,
        "coverage": None
        if nothing or not judged + cut_events
        else _r(judged / (judged + cut_events)),
        "nothingToGrade": result.nothing_reason,
        "flags": [
            f"{g.guide} misaligned: {g.reason}" for g in result.guides if g.verdict == "misaligned"
        ],
        "l2": result.as_dict(),
        "timestamp": timestamp,
        "entryCount": len(data.events),
        "evaluator": f"llm:{judge.model}" if judge else "llm",
        "grader": grader_version(),
    }
