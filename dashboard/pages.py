"""The pages as HTML strings, from dashboard.views' data. Every value from a trace goes
through ``html.text`` / ``html.attr``; ids become anchors through ``html.anchor``.

Absence is rendered as absence (seed 002): a session with no L1 grade shows "Not scored", an
L2 that has not run "Not graded yet" or "Not graded" in the muted absence style, never a
number; an action with no L2 verdict is unjudged, not unguided.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote, urlencode

from dashboard.html import anchor, attr, page, text
from dashboard.views import PAGE_SIZE, SessionsView, SessionView
from scorers import queue
from scorers.passk import TaskPassK
from scorers.rates import GuideRate
from telemetry.render import describe, short_time

_REDACTION = re.compile(r"\[REDACTED:[A-Za-z0-9_.-]+:[A-Za-z0-9]+\]")


_L1_COLUMNS = ("l1_verdict", "total_score", "max_score", "coverage")
_L1_RECORD = ("verdict", "totalScore", "maxScore", "coverage")


def vclass(verdict: Any) -> str:
    """A verdict as a CSS class name (``flags-only: warnings`` -> ``v-flags-only-warnings``)."""
    return "v-" + re.sub(r"[^a-z0-9]+", "-", str(verdict or "").lower()).strip("-")


def absent(label: str, why: str = "") -> str:
    title = f' title="{attr(why)}"' if why else ""
    return f'<span class="absent"{title}>{text(label)}</span>'


def _pct(x: Any) -> str:
    return f"{100 * float(x):.0f}%" if isinstance(x, int | float) else ""


def duration(seconds: float | None) -> str:
    if seconds is None:
        return absent("unknown")
    s = int(seconds)
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m {s % 60:02d}s"
    return f"{s // 3600}h {s % 3600 // 60:02d}m"


def session_href(key: str) -> str:
    return "/session/" + quote(key, safe="")


def l1_cell(verdict: Any, earned: Any, possible: Any, coverage: Any) -> str:
    if not verdict:
        return absent("Not scored", "no L0/L1 grade in the ledger: trail eval score --session")
    score = (
        f"{earned:g}/{possible:g}"
        if isinstance(earned, int | float) and isinstance(possible, int | float)
        else "no score"
    )
    cov = f", coverage {_pct(coverage)}" if coverage is not None else ""
    return f'<span class="{vclass(verdict)}">{text(verdict)}</span> {text(score)}{text(cov)}'


def l2_cell(st: queue.SessionState) -> str:
    if st.state == queue.GRADED and st.grade is not None:
        verdict = st.grade.get("verdict")
        return f'<span class="{vclass(verdict)}">{text(verdict)}</span>'
    label = {
        queue.NOT_GRADED_YET: "Not graded yet",
        queue.NOT_GRADED: "Not graded",
        queue.OPEN: "Open",
    }.get(st.state, st.state)
    return absent(label, st.reason) + f' <span class="absent l2-why">({text(st.reason)})</span>'


def tokens_cell(usage: dict[str, int] | None) -> str:
    if not usage:
        return absent("—", "this session's sources recorded no token counts")
    return text(
        " / ".join(
            f"{usage[k]:,} {label}"
            for k, label in (("input_tokens", "in"), ("output_tokens", "out"))
            if k in usage
        )
    )


def _drill(name: str, value: Any) -> str:
    """A cell that filters the list by its own value (drill-down per project, harness)."""
    if not value:
        return ""
    return f'<a href="/?{attr(urlencode({name: str(value)}))}">{text(value, 200)}</a>'


def _select(name: str, label: str, values: list[str], current: str, extra: str = "") -> str:
    opts = ['<option value="">any</option>', extra]
    for v in values:
        sel = " selected" if v == current else ""
        opts.append(f'<option value="{attr(v)}"{sel}>{text(v, 120)}</option>')
    return f'<label>{label}<select name="{name}">{"".join(opts)}</select></label>'


def sessions_page(view: SessionsView, fingerprint: str | None = None) -> str:
    f = view.filters
    none_sel = " selected" if f.get("verdict") == "none" else ""
    form = (
        '<form class="filters" method="get" action="/">'
        + _select("harness", "harness", view.facets["harness"], f.get("harness", ""))
        + _select("project", "project", view.facets["project"], f.get("project", ""))
        + _select("state", "state", ["open", "closed"], f.get("state", ""))
        + _select(
            "verdict",
            "L1 verdict",
            view.facets["verdict"],
            f.get("verdict", ""),
            f'<option value="none"{none_sel}>not scored</option>',
        )
        + f'<label>from<input type="date" name="since" value="{attr(f.get("since", ""))}"></label>'
        + f'<label>to<input type="date" name="until" value="{attr(f.get("until", ""))}"></label>'
        + '<button type="submit">Filter</button> <a href="/">reset</a></form>'
    )
    rows = []
    for r in view.rows:
        key = str(r["key"])
        state = str(r.get("state") or "open")
        shown_state = "closed" if state == "closed" else "open"
        if r.get("waiting"):
            shown_state += f' <span class="badge waiting">{text(r["waiting"])}</span>'
        rows.append(
            f'<tr class="session" data-key="{attr(key)}">'
            f'<td><a href="{attr(session_href(key))}">'
            f"{text(r.get('session_id') or key, 80)}</a></td>"
            f"<td>{_drill('harness', r.get('harness'))}</td>"
            f"<td>{_drill('project', r.get('project_dir'))}</td>"
            f'<td class="nowrap">{text(short_time(r.get("started_at")))}</td>'
            f'<td class="nowrap">{duration(r.get("duration_s"))}</td>'
            f'<td class="nowrap state-{attr(state)}">{shown_state}</td>'
            f'<td class="nowrap">{int(r.get("event_count") or 0)}</td>'
            f'<td class="l1">{l1_cell(*(r.get(c) for c in _L1_COLUMNS))}</td>'
            f'<td class="l2">{l2_cell(r["l2"])}</td>'
            f"<td>{tokens_cell(r.get('usage'))}</td></tr>"
        )
    shown = f"{view.offset + 1}–{view.offset + len(view.rows)}" if view.rows else "0"
    nav = []
    q = dict(view.filters)
    if view.offset > 0:
        nav.append(
            f'<a href="/?{attr(urlencode({**q, "offset": max(0, view.offset - PAGE_SIZE)}))}">'
            "newer</a>"
        )
    if view.offset + len(view.rows) < view.total:
        nav.append(
            f'<a href="/?{attr(urlencode({**q, "offset": view.offset + PAGE_SIZE}))}">older</a>'
        )
    empty = (
        ""
        if view.rows
        else '<p class="absent">No sessions match. Record some with `trail install`, or try'
        " `trail demo`.</p>"
    )
    body = (
        f"<h1>Sessions</h1>{form}<p>{view.total:,} sessions, showing {shown}. {' · '.join(nav)}</p>"
        "<table><thead><tr><th>session</th><th>harness</th><th>project</th><th>start</th>"
        "<th>duration</th><th>state</th><th>events</th><th>L1 verdict, score, coverage</th>"
        "<th>L2</th><th>tokens</th></tr></thead><tbody>"
        + "".join(rows)
        + f"</tbody></table>{empty}"
    )
    return page("trail — sessions", body, fingerprint=fingerprint, live_auto=True)


# ---- one session ----------------------------------------------------------------------


def _content(value: Any) -> str:
    """A field's text with each redaction placeholder shown as a marked redaction."""
    if value is None:
        return ""
    raw = value if isinstance(value, str) else _json(value)
    out, last = [], 0
    for m in _REDACTION.finditer(raw):
        out.append(text(raw[last : m.start()]))
        out.append(
            f'<span class="redacted" title="removed by the scrubber">{text(m.group())}</span>'
        )
        last = m.end()
    out.append(text(raw[last:]))
    return "".join(out)


def _json(value: Any) -> str:
    import json

    try:
        return json.dumps(value, indent=1, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return repr(value)


def _marks(ev: dict[str, Any]) -> tuple[str, list[str]]:
    """Badges for what became of an action: failed, refused, cancelled, interrupted (a call
    the permission system refused or the user interrupted did not fail: docs/events.md)."""
    status = str(ev.get("status") or "")
    labels = []
    if status == "interrupted" or (ev.get("interrupted") is True and status != "cancelled"):
        labels.append("interrupted")
    elif status in ("refused", "cancelled"):
        labels.append(status)
    elif status == "failed" or ev.get("kind") == "tool_error" or ev.get("ok") is False:
        labels.append("failed")
    cls = "mark-bad" if {"failed", "refused"} & set(labels) else "mark-warn" if labels else ""
    return cls, labels


def _event(ev: dict[str, Any], view: SessionView) -> str:
    eid = str(ev.get("id") or "")
    cls, labels = _marks(ev)
    marks = "".join(f' <span class="badge {attr(x)}">{text(x)}</span>' for x in labels)
    verdict = view.action_verdicts.get(eid)
    if verdict:
        marks += f' <span class="badge v-{attr(verdict)}">L2 {text(verdict)}</span>'
    cites = "".join(f' <span class="badge cite">{text(c)}</span>' for c in view.cited.get(eid, []))
    parts = [
        f'<div class="ev {cls}" id="{anchor(eid)}" data-kind="{attr(ev.get("kind"))}">',
        f'<span class="meta">{text(short_time(ev.get("ts")))} · {text(ev.get("kind"))}</span> ',
        _content(describe(ev)),
        marks,
        cites,
    ]
    for name in ("text", "input", "output", "error"):
        value = ev.get(name)
        if value in (None, "", {}, []):
            continue
        if name == "text" and ev.get("kind") not in ("prompt", "agent_stop", "notification"):
            continue
        parts.append(
            f'<details class="f-{name}"><summary>{name}</summary>'
            f"<pre>{_content(value)}</pre></details>"
        )
    parts.append("</div>")
    return "".join(parts)


def timeline(view: SessionView) -> str:
    """Events in canonical order; a run of a subagent's events is a nested lane."""
    out: list[str] = []
    lane: str | None = None
    for ev in view.timeline.visible():
        agent = str(ev.get("agent_id") or "") or None
        if agent != lane:
            if lane is not None:
                out.append("</section>")
            if agent is not None:
                kind = ev.get("agent_type") or "subagent"
                out.append(
                    f'<section class="lane" data-agent="{attr(agent)}"><h4>subagent'
                    f" {text(kind, 80)} · {text(agent, 80)}</h4>"
                )
            lane = agent
        out.append(_event(ev, view))
    if lane is not None:
        out.append("</section>")
    return "".join(out)


def _grade_section(view: SessionView) -> str:
    rec = view.l1
    if rec is None:
        why = view.l1_error or "no events to grade"
        return (
            f'<section id="l1"><h2>L0 / L1</h2>{absent("Not scored", why)}'
            f"<p>{text(why)}</p></section>"
        )
    note = (
        '<p class="absent">Graded now for this page; not in the ledger'
        " (`trail eval score` records it).</p>"
        if view.l1_live
        else f"<p>Recorded {text(short_time(rec.get('timestamp')))}"
        f" (grade {text(rec.get('gradeId'))}).</p>"
    )
    levels = rec.get("levels") or {}
    l0 = levels.get("L0") or {}
    flags = []
    for f in rec.get("findings") or ():
        if not isinstance(f, dict):
            continue
        target = (
            f'<a class="flag" href="#{anchor(f["event"])}">event {text(str(f["event"])[:12])}</a>'
            if f.get("event")
            else absent("no event")
        )
        flags.append(
            f"<li><b>{text(f.get('severity'))}</b> {text(f.get('check'))}:"
            f" {text(f.get('detail'))} → {target}</li>"
        )
    flagged = {f.get("check") for f in rec.get("findings") or () if isinstance(f, dict)}
    unscored = [
        f"<li>{text(a.get('check'))}: {text(a.get('reason'))}</li>"
        for a in rec.get("atoms") or ()
        if isinstance(a, dict) and a.get("status") == "unscored"
    ]
    other = [
        f"<li>[{text(a.get('status'))}] {text(a.get('check'))}: {text(a.get('reason'))}"
        + "".join(
            f' <a class="flag" href="#{anchor(e)}">{text(str(e)[:12])}</a>'
            for e in (a.get("evidence") or [])[:5]
        )
        + "</li>"
        for a in rec.get("atoms") or ()
        if isinstance(a, dict)
        and a.get("status") not in ("unscored", "pass")
        and a.get("check") not in flagged
    ]
    profile = rec.get("profile") or {}
    prof = (
        f"<p>sources: {text(', '.join(profile.get('sources') or []))}</p>"
        f"<p>present: {text(', '.join(profile.get('present') or []))}</p>"
        + "".join(
            f"<p>{label}: "
            + "; ".join(f"{text(c)} ({text(r)})" for c, r in (profile.get(k) or {}).items())
            + "</p>"
            for k, label in (("cannot_provide", "cannot provide"), ("trace_missing", "missing"))
            if profile.get(k)
        )
    )
    nothing = (
        f"<p>{absent('Nothing to grade')}: {text(rec.get('nothingToGrade'))}</p>"
        if rec.get("nothingToGrade")
        else ""
    )
    return (
        '<section id="l1"><h2>L0 / L1</h2>'
        f"<p>L1 verdict: {l1_cell(*(rec.get(c) for c in _L1_RECORD))}"
        f' · L0 integrity: <span class="{vclass(l0.get("verdict"))}">'
        f"{text(l0.get('verdict') or '')}</span>"
        f" · outcome {text(rec.get('outcome'))}</p>{note}{nothing}"
        f'<h3>Flags</h3><ul class="flags">{"".join(flags) or "<li>none</li>"}</ul>'
        + (f'<h3>Other findings</h3><ul class="flags">{"".join(other)}</ul>' if other else "")
        + f"<h3>Unscored, and why</h3><ul>{''.join(unscored) or '<li>nothing</li>'}</ul>"
        f"<h3>Completeness profile</h3>{prof}</section>"
    )


def _l2_section(view: SessionView) -> str:
    st = view.l2
    head = f'<section id="l2"><h2>L2</h2><p class="l2-state">{l2_cell(st)}</p>'
    grade = st.grade if st.state == queue.GRADED else None
    if grade is None:
        return head + "</section>"
    l2 = grade.get("l2") or {}
    rows = []
    for g in l2.get("guides") or ():
        if not isinstance(g, dict):
            continue
        verdict = str(g.get("verdict"))
        shown = "Not engaged" if verdict == "not_applicable" else verdict
        links = "".join(
            f' <a class="flag" href="#{anchor(e)}">{text(str(e)[:12])}</a>'
            for e in g.get("evidence") or ()
        )
        rows.append(
            f"<li>{text(g.get('guide'))} @{text(str(g.get('version') or '')[:12])}: "
            f'<span class="{vclass(verdict)}">{text(shown)}</span>'
            f" — {text(g.get('reason'))}{links}</li>"
        )
    judge = l2.get("judge") or {}
    return (
        head
        + f"<p>judge {text(judge.get('model'))}"
        + (" (replayed)" if judge.get("replayed") else "")
        + (" — verified" if judge.get("verified") else " — UNVERIFIED")
        + _judge_cost(judge)
        + f"</p><ul>{''.join(rows) or '<li>no guides in context</li>'}</ul>"
        "<p>An action with no L2 badge was not judged (it is not unguided).</p></section>"
    )


def _judge_cost(judge: dict[str, Any]) -> str:
    """The judge call's tokens and cost, where it recorded them."""
    parts = []
    if isinstance(judge.get("inputTokens"), int):
        parts.append(f"{judge['inputTokens']:,} tokens in")
    if isinstance(judge.get("outputTokens"), int):
        parts.append(f"{judge['outputTokens']:,} out")
    if isinstance(judge.get("costUsd"), int | float):
        parts.append(f"${judge['costUsd']:.4f}")
    return f" · {text(', '.join(parts))}" if parts else ""


def session_body(view: SessionView) -> str:
    m = view.meta
    state = str(m.get("state") or "open")
    redactions = (
        ", ".join(f"{text(rule)} ×{n}" for rule, n in view.redactions.items())
        if view.redactions
        else "none"
    )
    outcome, task = view.labels
    head = (
        f"<h1>Session {text(m.get('session_id') or m.get('key'), 200)}</h1>"
        f"<p>{text(m.get('harness'))} · {text(m.get('project_dir') or '', 300)} · started "
        f"{text(short_time(m.get('started_at')))} · "
        f"{'closed' if state == 'closed' else 'open'}"
        + (f' <span class="badge waiting">{text(view.waiting)}</span>' if view.waiting else "")
        + f" · {int(m.get('event_count') or 0)} events"
        f" · tokens {tokens_cell(view.usage)} · outcome {text(outcome or 'unknown')}"
        + (f" · task {text(task)}" if task else "")
        + f"</p><p>redactions: {redactions}</p>"
    )
    hidden = view.timeline.hidden
    return (
        head
        + _grade_section(view)
        + _l2_section(view)
        + '<section id="timeline"><h2>Timeline</h2>'
        + (f'<p class="absent">{hidden} bookkeeping lines not shown.</p>' if hidden else "")
        + timeline(view)
        + "</section>"
    )


def session_page(view: SessionView, fingerprint: str | None = None, served: bool = True) -> str:
    title = f"trail — {view.meta.get('key')}"
    return page(title, session_body(view), served=served, fingerprint=fingerprint)


def guides_page(rows: list[GuideRate], fingerprint: str | None = None) -> str:
    items = []
    for r in rows:
        rate = (
            f"{100 * r.rate:.0f}% ({len(r.aligned)}/{len(r.engaged)} engaged sessions)"
            if r.rate is not None
            else None
        )
        shown = (
            text(rate)
            if rate
            else absent("Not engaged" if r.status == "not engaged" else "Unevaluated")
        )
        sessions = " ".join(
            f'<a href="{attr(session_href(k))}">{text(k, 80)}</a>' for k in r.engaged
        )
        items.append(
            f"<tr><td>{text(r.guide)}</td>"
            f"<td>{text(r.version[:12]) if r.version else absent('no text')}</td>"
            f"<td>{shown}</td><td>{len(r.not_engaged)}</td><td>{len(r.loaded_in)}</td>"
            f"<td>{sessions or absent('none')}</td></tr>"
        )
    body = (
        "<h1>Guides</h1><p>Alignment rate = aligned / engaged sessions; sessions where a guide"
        " was in context but not engaged count in neither.</p>"
        "<table><thead><tr><th>guide</th><th>version</th><th>alignment rate</th>"
        "<th>not engaged</th><th>reached</th><th>sessions that engaged it</th></tr></thead><tbody>"
        + "".join(items)
        + "</tbody></table>"
        + ("" if items else '<p class="absent">No guide has reached an agent yet.</p>')
    )
    return page("trail — guides", body, fingerprint=fingerprint)


def tasks_page(rows: list[TaskPassK], fingerprint: str | None = None) -> str:
    items = [
        f"<tr><td>{text(r.task)}</td><td>{r.n}</td><td>{r.c}</td><td>{r.k}</td>"
        f"<td>{f'{r.pass_hat_k:.2f}' if r.pass_hat_k is not None else absent('n < k')}</td>"
        f"<td>{text(r.status)}</td><td>{r.unknown}</td></tr>"
        for r in rows
    ]
    body = (
        "<h1>Tasks</h1><p>pass^k = C(c,k)/C(n,k) over each task's runs with a known outcome"
        " (label runs with `trail eval task` and `trail eval outcome`).</p>"
        "<table><thead><tr><th>task</th><th>n</th><th>c</th><th>k</th><th>pass^k</th>"
        "<th>status</th><th>unknown outcome</th></tr></thead><tbody>"
        + "".join(items)
        + "</tbody></table>"
        + ("" if items else '<p class="absent">No session is labelled with a task.</p>')
    )
    return page("trail — tasks", body, fingerprint=fingerprint)
