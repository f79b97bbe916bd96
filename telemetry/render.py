"""Plain-text rendering shared by the telemetry commands."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import click


def table(rows: Sequence[dict[str, Any]], columns: Sequence[tuple[str, str]]) -> str:
    """A left-aligned text table; ``columns`` are ``(key, heading)`` pairs."""
    cells = [[heading for _, heading in columns]]
    cells += [["" if r.get(k) is None else str(r.get(k)) for k, _ in columns] for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(columns))]
    lines = [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def short_time(stamp: Any) -> str:
    """``2026-11-30T11:00:21.123456Z`` -> ``2026-11-30 11:00:21``."""
    if not isinstance(stamp, str) or len(stamp) < 19:
        return "" if stamp is None else str(stamp)
    return stamp[:10] + " " + stamp[11:19]


def one_line(value: Any, width: int = 80) -> str:
    text = value if isinstance(value, str) else "" if value is None else str(value)
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


_STATUS = {
    "ok": "ok",
    "failed": "FAILED",
    "interrupted": "INTERRUPTED",
    "refused": "REFUSED",
    "cancelled": "cancelled",
    "asked": "asked",
}


def describe(ev: dict[str, Any]) -> str:
    """One line saying what an event was."""
    kind = ev.get("kind")
    if kind in ("tool_call", "tool_result", "tool_error", "permission"):
        target = ev.get("path") or _input_summary(ev.get("input"))
        ok = ev.get("ok")
        status = _STATUS.get(str(ev.get("status"))) or (
            "ok" if ok is True else "FAILED" if ok is False else ""
        )
        parts = [str(ev.get("tool_name") or "?"), f"[{ev.get('tool')}]", one_line(target, 60)]
        if status and (kind != "tool_call" or ev.get("status") or ev.get("ok") is not None):
            parts.append(status)
        code = ev["extra"].get("exit_code") if isinstance(ev.get("extra"), dict) else None
        if isinstance(code, int) and not isinstance(code, bool) and code != 0:
            parts.append(f"(exit {code})")  # Vibe 3.0.1 reports a non-zero exit as a success
        if ev.get("error"):
            parts.append("— " + one_line(ev["error"], 60))
        return " ".join(p for p in parts if p)
    if kind == "guide_loaded":
        return str(ev.get("path") or "")
    if kind == "skill_loaded":
        return str(ev.get("skill") or "")
    if kind in ("subagent_start", "subagent_stop"):
        who = f"{ev.get('agent_type') or ''} {ev.get('agent_id') or ''}"
        if ev.get("internal"):
            who += f" (harness-internal: {ev['internal']})"
        if ev.get("parent_call_id") and kind == "subagent_start":
            who += f" ← {ev['parent_call_id']}"
        return f"{who} {one_line(ev.get('text'), 50)}".rstrip()
    if kind == "other" and isinstance(ev.get("extra"), dict) and ev["extra"].get("malformed"):
        return "unparseable payload: " + one_line(ev["extra"]["malformed"], 70)
    return one_line(ev.get("text") or ev.get("hook_event") or "", 80)


def _input_summary(value: Any) -> str:
    if isinstance(value, dict):
        for key in ("command", "pattern", "url", "query", "description", "prompt", "skill"):
            if isinstance(value.get(key), str):
                return str(value[key])
    return ""


_BAD = ("fail", "corrupt-success", "flags-only: high-severity", "misaligned")
_WARN = ("pass-with-warnings", "flags-only: warnings", "insufficient-data")
_GOOD = ("clean-pass", "flags-only: clean", "aligned")


def paint_verdict(verdict: Any, cell: str) -> str:
    """``cell`` (already padded) coloured by its verdict: red, yellow or green. ``click.echo``
    drops the colour when stdout is not a terminal (a pipe, a file, CI), so plain text
    stays plain."""
    colour = (
        "red"
        if verdict in _BAD
        else "yellow"
        if verdict in _WARN
        else "green"
        if verdict in _GOOD
        else None
    )
    return click.style(cell, fg=colour, bold=verdict in _BAD) if colour else cell
