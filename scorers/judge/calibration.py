"""Calibration: run a judge over the labelled set and measure agreement per verdict class.

For each vocabulary (guide verdicts: aligned / misaligned / not_applicable; action verdicts:
aligned / misaligned / unguided) every labelled item is one (expected, predicted) pair. A case
the judge failed on (a ``JudgeError``) predicts ``none`` for all its items: a failure is a
miss, never a verdict. Per class, one-vs-rest:

- precision = TP / (TP + FP), recall = TP / (TP + FN) (``None`` when the denominator is 0);
- balanced accuracy = (recall + specificity) / 2;

and per vocabulary, balanced accuracy = the mean recall over its classes (Inspect Scout's
validation metric; next-capabilities §3).

**Passing.** Every class of both vocabularies is present in the set and has a balanced
accuracy of at least ``judge.min_balanced_accuracy`` (default 0.8). Results are appended to
``$TRAIL_HOME/CALIBRATIONS.jsonl``; a judge is *verified* while its latest result for the
current prompt (``prompt_sha256``; for a replay judge, also the replay file's hash) passed.
Every report marks any other judge "unverified", and ``trail eval gate`` never fails a build on
an unverified judge's verdicts.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from scorers.judge import replay
from scorers.judge.calibration_set import Case
from scorers.judge.errors import JudgeError, kind_of
from scorers.judge.judge import JudgeSettings, judge_session
from scorers.judge.judge_input import PROMPT_VERSION, prompt_sha256
from scorers.judge.provider import JudgeModel
from scorers.ledger import read_objects
from scorers.verdicts import ACTION_VERDICTS, GUIDE_VERDICTS
from trace_ingest.events import now_iso
from trace_ingest.paths import ensure_home
from trace_ingest.store import append_lines

NONE = "none"  # the judge failed on the case: no verdict
FILE = "CALIBRATIONS.jsonl"


def calibrations_path(home: str) -> str:
    return os.path.join(home, FILE)


def _ratio(num: int, den: int) -> float | None:
    return None if den == 0 else num / den


@dataclass(frozen=True)
class ClassMetrics:
    label: str
    support: int  # expected items of this class
    predicted: int  # items predicted as this class
    tp: int
    precision: float | None
    recall: float | None
    balanced_accuracy: float | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "support": self.support,
            "predicted": self.predicted,
            "tp": self.tp,
            "precision": _round(self.precision),
            "recall": _round(self.recall),
            "balanced_accuracy": _round(self.balanced_accuracy),
        }


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


@dataclass(frozen=True)
class Agreement:
    """Agreement over one vocabulary."""

    classes: tuple[ClassMetrics, ...]
    confusion: dict[str, dict[str, int]]  # expected -> predicted -> count
    n: int

    @property
    def balanced_accuracy(self) -> float | None:
        recalls = [c.recall for c in self.classes if c.recall is not None]
        return sum(recalls) / len(recalls) if recalls else None

    def of(self, label: str) -> ClassMetrics:
        return next(c for c in self.classes if c.label == label)

    def as_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "balanced_accuracy": _round(self.balanced_accuracy),
            "classes": {c.label: c.as_dict() for c in self.classes},
            "confusion": self.confusion,
        }


def agreement(pairs: Sequence[tuple[str, str]], labels: Sequence[str]) -> Agreement:
    """Per-class precision, recall and balanced accuracy of (expected, predicted) pairs."""
    counts = Counter(pairs)
    n = len(pairs)
    classes = []
    for label in labels:
        tp = counts[(label, label)]
        support = sum(v for (e, _), v in counts.items() if e == label)
        predicted = sum(v for (_, p), v in counts.items() if p == label)
        fp, fn = predicted - tp, support - tp
        tn = n - tp - fp - fn
        recall = _ratio(tp, support)
        specificity = _ratio(tn, tn + fp)
        ba = None
        if recall is not None and specificity is not None:
            ba = (recall + specificity) / 2
        classes.append(
            ClassMetrics(label, support, predicted, tp, _ratio(tp, predicted), recall, ba)
        )
    confusion: dict[str, dict[str, int]] = {}
    for (e, p), v in sorted(counts.items()):
        confusion.setdefault(e, {})[p] = v
    return Agreement(tuple(classes), confusion, n)


@dataclass
class CaseOutcome:
    id: str
    split: str
    failure: str | None = None  # "<kind>: message" when the judge failed
    mismatches: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "split": self.split,
            "failure": self.failure,
            "mismatches": self.mismatches,
        }


@dataclass
class Calibration:
    judge: str
    spec: str
    replayed: bool
    replay_sha256: str | None
    set_name: str
    set_sha256: str
    threshold: float
    guides: Agreement
    actions: Agreement
    cases: list[CaseOutcome]
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None

    @property
    def problems(self) -> list[str]:
        out = []
        for name, agreement_, labels in (
            ("guide", self.guides, GUIDE_VERDICTS),
            ("action", self.actions, ACTION_VERDICTS),
        ):
            for label in labels:
                c = agreement_.of(label)
                if c.support == 0:
                    out.append(f"the set has no {name} labelled {label}")
                elif c.balanced_accuracy is None or c.balanced_accuracy < self.threshold:
                    out.append(
                        f"{name} {label}: balanced accuracy {_pct(c.balanced_accuracy)} "
                        f"< {_pct(self.threshold)}"
                    )
        return out

    @property
    def passed(self) -> bool:
        return not self.problems

    def record(self, timestamp: str | None = None) -> dict[str, Any]:
        return {
            "timestamp": timestamp or now_iso(),
            "judge": self.judge,
            "spec": self.spec,
            "replayed": self.replayed,
            "replay_sha256": self.replay_sha256,
            "prompt_version": PROMPT_VERSION,
            "prompt_sha256": prompt_sha256(),
            "set": self.set_name,
            "set_sha256": self.set_sha256,
            "cases": len(self.cases),
            "failed_cases": sum(1 for c in self.cases if c.failure),
            "threshold": self.threshold,
            "passed": self.passed,
            "problems": self.problems,
            "guides": self.guides.as_dict(),
            "actions": self.actions.as_dict(),
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cost_usd": self.cost_usd,
            "per_case": [c.as_dict() for c in self.cases],
        }


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.0%}"


def calibrate(
    judge: JudgeModel,
    cases: Sequence[Case],
    set_sha256: str,
    *,
    set_name: str = "built-in",
    settings: JudgeSettings | None = None,
    progress: Callable[[CaseOutcome], None] | None = None,
    record_to: str | None = None,
) -> Calibration:
    """Judge every case and measure agreement with its labels (nothing is stored here)."""
    settings = settings or JudgeSettings()
    guide_pairs: list[tuple[str, str]] = []
    action_pairs: list[tuple[str, str]] = []
    outcomes = []
    tokens_in = tokens_out = 0
    cost: float | None = None
    for case in cases:
        outcome = CaseOutcome(case.id, case.split)
        got_guides: dict[str, str] = {}
        got_actions: dict[int, str] = {}
        try:
            result = judge_session(
                case.session_key, case.events, case.guides, judge, settings, record_to=record_to
            )
            got_guides = {g.key: g.verdict for g in result.judgements.guides}
            got_actions = {a.position: a.verdict for a in result.judgements.actions}
            tokens_in += int(result.judge.get("input_tokens") or 0)
            tokens_out += int(result.judge.get("output_tokens") or 0)
            if result.judge.get("cost_usd") is not None:
                cost = (cost or 0.0) + float(result.judge["cost_usd"])
        except JudgeError as exc:
            outcome.failure = f"{kind_of(exc)}: {exc}"
        for key, want in case.expected_guides.items():
            got = got_guides.get(key, NONE)
            guide_pairs.append((want, got))
            if got != want and not outcome.failure:
                outcome.mismatches.append(f"guide {key}: expected {want}, judged {got}")
        for pos, want in case.expected_actions.items():
            got = got_actions.get(pos, NONE)
            action_pairs.append((want, got))
            if got != want and not outcome.failure:
                outcome.mismatches.append(f"action E{pos}: expected {want}, judged {got}")
        outcomes.append(outcome)
        if progress is not None:
            progress(outcome)
    return Calibration(
        judge=judge.name,
        spec=judge.spec,
        replayed=judge.replayed,
        replay_sha256=replay.file_sha256(judge.replay_file) if judge.replay_file else None,
        set_name=set_name,
        set_sha256=set_sha256,
        threshold=settings.min_balanced_accuracy,
        guides=agreement(guide_pairs, GUIDE_VERDICTS),
        actions=agreement(action_pairs, ACTION_VERDICTS),
        cases=outcomes,
        input_tokens=tokens_in,
        output_tokens=tokens_out,
        cost_usd=cost,
    )


def store(home: str, result: Calibration) -> dict[str, Any]:
    """Append the result to CALIBRATIONS.jsonl (0600, one write) and return the record."""
    ensure_home(home)
    record = result.record()
    append_lines(calibrations_path(home), json.dumps(record, ensure_ascii=False) + "\n")
    return record


def read_all(home: str) -> list[dict[str, Any]]:
    """Every stored calibration, oldest first."""
    return read_objects(calibrations_path(home))


def verification(
    home: str, judge: str, replay_sha256: str | None = None, spec: str | None = None
) -> dict[str, Any]:
    """Is ``judge`` verified for the current prompt? From its latest calibration with this
    prompt hash (and replay file hash, for a replay judge): ``verified`` (bool), ``state``
    (True passed, False failed, None never calibrated: ``scorers.verdicts.JudgeInfo``),
    ``reason`` and, when calibrated, ``summary`` and the figures."""
    none = {"verified": False, "state": None}
    if not judge:
        return {**none, "reason": "no judge"}
    current = prompt_sha256()
    mine = [
        r
        for r in read_all(home)
        if r.get("judge") == judge
        and r.get("prompt_sha256") == current
        and (replay_sha256 is None or r.get("replay_sha256") == replay_sha256)
    ]
    if not mine:
        return {
            **none,
            "reason": f"{judge} has no calibration for prompt {PROMPT_VERSION} "
            f"(run `trail eval calibrate --judge {spec or judge}`)",
        }
    last = mine[-1]
    g = (last.get("guides") or {}).get("balanced_accuracy")
    a = (last.get("actions") or {}).get("balanced_accuracy")
    facts = {
        "calibrated_at": last.get("timestamp"),
        "set": last.get("set"),
        "guide_balanced_accuracy": g,
        "action_balanced_accuracy": a,
        "summary": f"balanced accuracy {_pct(g)} on guides, {_pct(a)} on actions, "
        f"{last.get('cases')} sessions of the {last.get('set')} set, "
        f"{str(last.get('timestamp') or '')[:10]}",
    }
    if last.get("passed") is True:
        return {"verified": True, "state": True, "reason": "verified by calibration", **facts}
    problems = "; ".join(str(p) for p in last.get("problems") or []) or "did not pass"
    return {
        "verified": False,
        "state": False,
        "reason": f"calibration failed ({problems})",
        **facts,
    }


def may_gate(home: str, judge_facts: dict[str, Any]) -> tuple[bool, str]:
    """May an L2 grade made by this judge fail a build? Only when the judge is verified now."""
    status = verification(
        home, str(judge_facts.get("model") or ""), judge_facts.get("replay_sha256")
    )
    return bool(status["verified"]), str(status["reason"])


def judges_of(home: str, records: list[dict[str, Any]]) -> list[str]:
    """One line per judge behind the sessions' newest L2 grades, with its verification now
    (``trail eval guides``: rates from an unverified judge are marked so)."""
    newest: dict[str, dict[str, Any]] = {}
    for rec in records:
        if rec.get("rubric") == "l2" and isinstance(rec.get("l2"), dict):
            newest[str(rec.get("sessionKey"))] = rec
    judges: dict[tuple[str, str | None], list[str]] = {}
    for key, rec in newest.items():
        judge = rec["l2"].get("judge") or {}
        details = judge.get("details") or {}
        if not details.get("called"):
            continue  # no model was asked (nothing to judge, no guide): no judge to trust
        name = str(judge.get("model") or "")
        judges.setdefault((name, details.get("replay_sha256")), []).append(key)
    out = []
    for (name, replay_sha), keys in sorted(judges.items(), key=lambda kv: kv[0][0]):
        status = verification(home, name, replay_sha)
        state = "verified" if status["verified"] else "UNVERIFIED"
        out.append(f"verdicts of {len(keys)} session(s) by {name}: {state} ({status['reason']})")
    return out
