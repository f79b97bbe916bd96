"""Guides in the agent's context (seed 002): which reached it, when, and the exact text in force.

A guide is in context if it reached the agent:

- a **rule file** (CLAUDE.md, ``.claude/rules/*.md``, AGENTS.md,
  ``.github/copilot-instructions.md``, ``.github/instructions/*.instructions.md``) from its
  ``guide_loaded`` event on: at session start for the files read by construction, later for a
  subdirectory file loaded when the agent first works below it (docs/events.md, guide_loaded);
- a **skill** only from its ``skill_loaded`` event, and only if that invocation was not refused,
  cancelled or failed: a skill the agent never invoked is never a guide.

Each guide is named by its path relative to the session's project directory (``~/`` for the
home directory, else the path as loaded; ``skill:<name>`` for a skill) and versioned by the
sha256 of its stored, scrubbed text (``version``; empty when no text was captured: such a
guide is listed but cannot be judged). An action is judged only against the guides loaded
before it (``GuideContext.in_force_at``): a guide loaded after an action never applies to it.

Pure functions over canonical events: texts come from the events (hooks read the file when it
loads; transcripts carry it), or from the snapshot store through ``texts``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from trace_ingest.guides import guide_name, text_version

NOT_LOADED = frozenset({"refused", "cancelled", "failed", "interrupted"})


@dataclass(frozen=True)
class Guide:
    """One version of one guide, from the moment it loaded.

    ``name``: display name (see module doc); ``version``: sha256 of ``text`` ("" when the text
    was not captured); ``kind``: ``rule`` or ``skill``; ``path``: the file as loaded (None for
    a skill whose file is unknown); ``loaded_at``: the id of the event that loaded it;
    ``loaded_ts``: its time; ``position``: its index in the canonical session; ``reason``:
    why it loaded (``session_start``, ``nested_traversal``, ``path_glob_match``, ``compact``,
    ``skill``, ... as the harness says; "" when it does not)."""

    name: str
    version: str
    kind: str
    path: str | None
    text: str | None
    loaded_at: str
    loaded_ts: str
    position: int
    reason: str = ""
    truncated: int = 0  # characters of the text the capture cut (capture.max_field_chars)

    @property
    def judgeable(self) -> bool:
        return bool(self.text)

    def as_dict(self) -> dict[str, Any]:
        return {
            "guide": self.name,
            "version": self.version,
            "kind": self.kind,
            "path": self.path,
            "loadedAt": self.loaded_at,
            "loadedTs": self.loaded_ts,
            "reason": self.reason,
            "bytes": None if self.text is None else len(self.text.encode("utf-8", "replace")),
            "truncated": self.truncated,
        }


@dataclass
class GuideContext:
    """The guides of one session in load order, and where each event sits in it.

    ``guides`` holds each (name, version) once, at its first load; a guide reloaded with other
    text is a second version from its reload on. ``unreadable`` names the loads whose text was
    not captured (listed, never judged)."""

    guides: list[Guide] = field(default_factory=list)
    positions: dict[str, int] = field(default_factory=dict)
    unreadable: list[Guide] = field(default_factory=list)

    def in_force_at(self, event_id: str) -> list[Guide]:
        """The guides an action may be judged against: loaded strictly before the event
        (the latest version of each name). An unknown event id has none."""
        at = self.positions.get(event_id)
        if at is None:
            return []
        latest: dict[str, Guide] = {}
        for g in self.guides:
            if g.position < at:
                latest[g.name] = g
        return list(latest.values())

    def judgeable(self) -> list[Guide]:
        """Every version with captured text (what the judge is given)."""
        return [g for g in self.guides if g.judgeable]

    def as_list(self) -> list[dict[str, Any]]:
        return [g.as_dict() for g in self.guides]


def _extra(ev: dict[str, Any], name: str) -> str:
    extra = ev.get("extra")
    value = extra.get(name) if isinstance(extra, dict) else None
    return value if isinstance(value, str) else ""


def _refused_calls(events: Sequence[dict[str, Any]]) -> set[str]:
    """Call ids whose tool never ran or failed (a Skill call refused by a permission rule,
    cancelled, or failing: its skill never reached the agent)."""
    out: set[str] = set()
    for ev in events:
        cid = ev.get("call_id")
        if not cid or ev.get("kind") not in ("tool_result", "tool_error", "permission"):
            continue
        if ev.get("status") in NOT_LOADED or (ev.get("kind") == "tool_error" and not ev.get("ok")):
            out.add(str(cid))
    return out


def guide_context(
    events: Sequence[dict[str, Any]],
    project_dir: str | None = None,
    *,
    texts: Callable[[str], str | None] | None = None,
    home: str | None = None,
) -> GuideContext:
    """Build a session's guide context from its canonical events.

    ``texts(path)`` may supply a rule file's text when its event carries none (the snapshot
    store); by default a load without text is listed as unreadable."""
    ctx = GuideContext(positions={str(e.get("id")): i for i, e in enumerate(events)})
    refused = _refused_calls(events)
    seen: set[tuple[str, str]] = set()
    for i, ev in enumerate(events):
        kind = ev.get("kind")
        cut = _extra(ev, "rule_files_cut") if kind == "session_start" else ""
        if cut:
            # Rule files past the capture's bound reached the agent but were never listed:
            # one unreadable entry stands for them, so nothing claims the context was whole.
            ctx.unreadable.append(
                Guide(
                    name="(rule files not recorded)",
                    version="",
                    kind="rule",
                    path=None,
                    text=None,
                    loaded_at=str(ev.get("id")),
                    loaded_ts=str(ev.get("ts") or ""),
                    position=i,
                    reason=cut,
                )
            )
            continue
        if kind == "guide_loaded":
            path = ev.get("path")
            if not isinstance(path, str) or not path:
                continue
            name = guide_name(path, project_dir or _str(ev.get("cwd")), home)
            gkind = "rule"
            reason = _extra(ev, "load_reason") or _extra(ev, "reason")
        elif kind == "skill_loaded":
            if ev.get("internal") or str(ev.get("call_id") or "") in refused:
                continue
            skill = ev.get("skill")
            if not isinstance(skill, str) or not skill:
                continue
            path = _str(ev.get("path"))
            name, gkind, reason = f"skill:{skill}", "skill", "skill"
        else:
            continue
        text = _str(ev.get("text"))
        if text is None and texts is not None and path:
            text = texts(path)
        version = text_version(text) if text else ""
        guide = Guide(
            name=name,
            version=version,
            kind=gkind,
            path=path,
            text=text,
            loaded_at=str(ev.get("id")),
            loaded_ts=str(ev.get("ts") or ""),
            position=i,
            reason=reason,
            truncated=_cut(ev),
        )
        if (name, version) in seen:
            continue  # the same text loaded again (after a compaction, say): one version
        seen.add((name, version))
        ctx.guides.append(guide)
        if not text:
            ctx.unreadable.append(guide)
    return ctx


def _cut(ev: dict[str, Any]) -> int:
    """How much of the event's text the capture cut (a guide longer than
    capture.max_field_chars is judged on what was kept, and says so)."""
    cut = ev.get("truncated")
    n = cut.get("text") if isinstance(cut, dict) else None
    return n if isinstance(n, int) else 0


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None
