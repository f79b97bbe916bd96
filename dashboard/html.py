"""Escaping and the page shell: every byte of trace content goes through ``text`` or ``attr``.

Trace content is untrusted (payloads, tool output, file names, ids): it is shown as text and
never executed. ``text`` escapes HTML, shows control characters as visible ``\\xNN`` marks
(they never reach the page raw), replaces lone surrogates, and cuts very long values with a
note saying how much was cut. The page carries a strict Content-Security-Policy: no source
but the page's own inline style and script, pinned by their sha256 (so the same shell works
served and as a self-contained file), no network from the page except polling its own
server, no frames, no forms posting elsewhere.
"""

from __future__ import annotations

import base64
import hashlib
import html
import re
from typing import Any

MAX_CHARS = 20_000  # one field's text on a page; the rest is counted, not shown

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def clean(value: Any, limit: int = MAX_CHARS) -> str:
    """Plain text safe to escape: control characters made visible, surrogates replaced,
    cut to ``limit`` characters with the count of what was cut."""
    s = value if isinstance(value, str) else "" if value is None else str(value)
    s = _SURROGATE.sub("\ufffd", s)
    cut = len(s) - limit
    if cut > 0:
        s = s[:limit]
    s = _CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", s)
    if cut > 0:
        s += f" … ({cut:,} more characters not shown)"
    return s


def text(value: Any, limit: int = MAX_CHARS) -> str:
    """``value`` as HTML text (element content)."""
    return html.escape(clean(value, limit), quote=False)


def attr(value: Any) -> str:
    """``value`` as a double-quoted attribute value."""
    return html.escape(clean(value, 2_000), quote=True)


def anchor(event_id: Any) -> str:
    """The element id of an event: only [A-Za-z0-9_-], so it is safe in an id and a URL
    fragment whatever the harness put in its ids."""
    raw = clean(event_id, 500)
    return "ev-" + re.sub(r"[^A-Za-z0-9_-]", lambda m: f"_{ord(m.group()):x}_", raw)


CSS = """
:root{--fg:#1b1f24;--muted:#57606a;--bg:#fff;--line:#d0d7de;--bad:#b42318;--warn:#9a6700;
--ok:#1a7f37;--absent:#6e7781;--hl:#fff8c5}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,sans-serif;color:var(--fg);background:var(--bg);margin:0}
header{padding:8px 16px;border-bottom:1px solid var(--line);display:flex;gap:16px;
align-items:center}
header a{color:var(--fg);text-decoration:none;font-weight:600}
main{padding:12px 16px;max-width:1400px}
table{border-collapse:collapse;width:100%}
th,td{border-bottom:1px solid var(--line);padding:4px 6px;text-align:left;vertical-align:top}
th{font-weight:600;color:var(--muted);font-size:12px}
td{overflow-wrap:anywhere}
td.nowrap{white-space:nowrap}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f6f8fa;padding:6px;margin:4px 0;
max-height:30em;overflow:auto}
code{overflow-wrap:anywhere}
.absent{color:var(--absent);font-style:italic}
.v-fail,.v-corrupt-success,.v-misaligned,.v-flags-only-high-severity,.failed,.refused{color:var(--bad);font-weight:600}
.v-pass-with-warnings,.v-flags-only-warnings,.cancelled,.interrupted{color:var(--warn);font-weight:600}
.v-clean-pass,.v-aligned,.v-flags-only-clean{color:var(--ok);font-weight:600}
.ev{border-left:3px solid var(--line);padding:2px 8px;margin:2px 0}
.ev.mark-bad{border-left-color:var(--bad)}
.ev.mark-warn{border-left-color:var(--warn)}
.ev:target{background:var(--hl)}
.ev .meta{color:var(--muted);font-size:12px}
.lane{margin:4px 0 4px 24px;padding-left:8px;border-left:3px dashed #8250df}
.lane>h4{margin:2px 0;color:#8250df;font-size:13px}
.redacted{background:#ffebe9;color:var(--bad);padding:0 3px;border-radius:3px}
.badge{display:inline-block;border:1px solid var(--line);border-radius:10px;padding:0 6px;
font-size:12px}
form.filters{display:flex;gap:8px;flex-wrap:wrap;align-items:end;margin-bottom:8px}
form.filters label{display:flex;flex-direction:column;font-size:12px;color:var(--muted)}
#live{display:none;background:var(--hl);padding:4px 16px}
#live.on{display:block}
.flags li{margin:2px 0}
"""

# Live updates: poll the server's mirror fingerprint; the sessions list reloads itself, other
# pages say that newer data is there. Absent from the self-contained report (no server).
LIVE_JS = """
(function(){var b=document.body,f=b.getAttribute('data-fp');if(!f)return;
var auto=b.getAttribute('data-live')==='auto',el=document.getElementById('live');
function tick(){var x=new XMLHttpRequest();x.open('GET','/api/fingerprint');
x.onload=function(){if(x.status!==200)return;var n=JSON.parse(x.responseText).fingerprint;
if(n!==f){if(auto){location.reload();}else if(el){el.className='on';}}};
x.send();}setInterval(tick,2000);})();
"""


def _sha(source: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(source.encode()).digest()).decode() + "'"


def csp(script: bool) -> str:
    """The policy: nothing loads but the page's own pinned style (and script when served)."""
    parts = [
        "default-src 'none'",
        f"style-src {_sha(CSS)}",
        f"script-src {_sha(LIVE_JS)}" if script else "script-src 'none'",
        "connect-src 'self'" if script else "connect-src 'none'",
        "img-src 'none'",
        "base-uri 'none'",
        "form-action 'self'" if script else "form-action 'none'",
        "frame-ancestors 'none'",
    ]
    return "; ".join(parts)


def page(
    title: str,
    body: str,
    *,
    served: bool = True,
    fingerprint: str | None = None,
    live_auto: bool = False,
) -> str:
    """A whole HTML document. ``served``: with the nav and live-update script (``trail
    serve``); else the self-contained report (policy in a meta tag, no script)."""
    nav = (
        '<header><a href="/">trail</a><a href="/">Sessions</a><a href="/guides">Guides</a>'
        '<a href="/tasks">Tasks</a></header>'
        '<div id="live">Newer data is in the mirror. <a href="">Reload</a></div>'
        if served
        else ""
    )
    meta = "" if served else f'<meta http-equiv="Content-Security-Policy" content="{csp(False)}">'
    data = ""
    if served and fingerprint:
        data = f' data-fp="{attr(fingerprint)}"' + (' data-live="auto"' if live_auto else "")
    script = f"<script>{LIVE_JS}</script>" if served else ""
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"{meta}<title>{text(title, 200)}</title>"
        f'<meta name="viewport" content="width=device-width"><style>{CSS}</style></head>'
        f"<body{data}>{nav}<main>{body}</main>{script}</body></html>"
    )
