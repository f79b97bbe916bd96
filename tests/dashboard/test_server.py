"""trail serve over real HTTP on 127.0.0.1: the Host check, the headers, hostile content shown as
text, absence states, flags linked to their events, subagent lanes; trail report --html."""

from __future__ import annotations

import http.client
import os
import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote

import pytest

from dashboard.html import anchor, clean
from tests.conftest import TRAIL, request_as_another_user
from tests.dashboard._store import AGENT, SESSION, WAITING, record_hostile_session, serving


class Tags(HTMLParser):
    """Every element and attribute name a browser would build from the page."""

    def __init__(self) -> None:
        super().__init__()
        self.names: list[str] = []
        self.attrs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.names.append(tag)
        self.attrs += [name for name, _ in attrs]


def get(port: int, path: str, host: str | None = None) -> tuple[int, dict[str, str], str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", path, headers={"Host": f"127.0.0.1:{port}" if host is None else host})
    resp = conn.getresponse()
    body = resp.read().decode("utf-8")
    headers = {k.lower(): v for k, v in resp.getheaders()}
    conn.close()
    return resp.status, headers, body


@pytest.fixture
def recorded(trail_home: Path) -> Path:
    record_hostile_session()
    return trail_home


def _session_path() -> str:
    return "/session/" + quote(f"claude-code/{SESSION}", safe="")


def test_foreign_host_is_refused_before_anything_is_read(recorded: Path) -> None:
    with serving(recorded) as server:
        for host in ("evil.example", f"evil.example:{server.port}", "127.0.0.1.nip.io", ""):
            status, _, body = get(server.port, "/", host=host)
            assert status == 403, host
            assert SESSION not in body
        for host in (f"127.0.0.1:{server.port}", f"localhost:{server.port}"):
            assert get(server.port, "/", host=host)[0] == 200
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        conn.request("POST", "/", body=b"x", headers={"Host": f"127.0.0.1:{server.port}"})
        assert conn.getresponse().status == 405


def test_bound_to_loopback_only(recorded: Path) -> None:
    with serving(recorded) as server:
        assert server.server_address[0] == "127.0.0.1"


def test_sessions_page_lists_and_filters(recorded: Path) -> None:
    with serving(recorded) as server:
        status, headers, body = get(server.port, "/")
        assert status == 200
        csp = headers["content-security-policy"]
        assert "default-src 'none'" in csp and "frame-ancestors 'none'" in csp
        assert "unsafe-inline" not in csp
        assert headers["x-content-type-options"] == "nosniff"
        assert SESSION in body and "dash-plain-2" in body
        # the plain session has no grade: shown as absence, never a score
        row = re.search(r'<tr class="session" data-key="claude-code/dash-plain-2">.*?</tr>', body)
        assert row and "Not scored" in row.group() and 'class="absent"' in row.group()
        # the hostile one is closed and L2 has not run: "Not graded yet", as absence
        row = re.search(rf'<tr class="session" data-key="claude-code/{SESSION}">.*?</tr>', body)
        assert row and "Not graded yet" in row.group() and "flags-only" in row.group()
        # open sessions: one whose turn ended waits for input, one that just started does not
        row = re.search(rf'<tr class="session" data-key="claude-code/{WAITING}">.*?</tr>', body)
        assert row and 'class="badge waiting">waiting for input<' in row.group()
        assert (
            "waiting" not in body.split('data-key="claude-code/dash-plain-2"')[1].split("</tr>")[0]
        )
        # drill down: a project cell links to the list of that project's sessions
        assert 'href="/?project=%2Fhome%2Fme%2Fproj"' in body
        assert get(server.port, "/?project=%2Fhome%2Fme%2Fproj")[2].count('class="session"') == 3
        assert 'class="session"' not in get(server.port, "/?project=%2Felsewhere")[2]
        opened = get(server.port, "/?state=open")[2]
        assert WAITING in opened and f'data-key="claude-code/{SESSION}"' not in opened
        assert f'data-key="claude-code/{SESSION}"' in get(server.port, "/?state=closed")[2]
        assert SESSION not in get(server.port, "/?harness=vibe")[2]
        only = get(server.port, "/?verdict=none")[2]
        assert "dash-plain-2" in only and f'data-key="claude-code/{SESSION}"' not in only
        assert SESSION not in get(server.port, "/?since=2999-01-01")[2]


def test_hostile_content_is_text_never_markup(recorded: Path) -> None:
    with serving(recorded) as server:
        status, _, body = get(server.port, _session_path())
    assert status == 200
    assert "<script>document.title" not in body
    assert "&lt;script&gt;document.title=&#x27;PWNED&#x27;&lt;/script&gt;" in body or (
        "&lt;script&gt;document.title='PWNED'&lt;/script&gt;" in body
    )
    tags = Tags()
    tags.feed(body)
    assert "img" not in tags.names and tags.names.count("script") == 1  # our own script only
    assert not [a for a in tags.attrs if a.startswith("on")]  # no event handler anywhere
    for raw in ("\x07", "\x00", "\x1b", "\x7f"):
        assert raw not in body
    assert "\\u0007" in body and "\\u001b" in body
    assert "more characters not shown" in body  # the 60,000-character prompt is cut
    # the page's structure survives: the timeline and the lanes are all there
    assert body.endswith("</body></html>")


def test_flags_link_to_their_events_and_subagents_are_lanes(recorded: Path) -> None:
    with serving(recorded) as server:
        body = get(server.port, _session_path())[2]
    links = re.findall(r'<a class="flag" href="#(ev-[A-Za-z0-9_-]+)"', body)
    assert links, "the forbidden push should be flagged"
    for target in links:
        assert f'id="{target}"' in body
    flagged = [re.search(rf'id="{t}".*?</div>', body, re.S) for t in links]
    assert any(m and "git push --force" in m.group() for m in flagged)
    lane = re.search(rf'<section class="lane" data-agent="{AGENT}">(.*?)</section>', body, re.S)
    assert lane and "ls" in lane.group(1) and "git push" not in lane.group(1)
    assert 'class="badge failed"' in body
    refused = re.search(
        r'<div class="ev mark-bad"[^>]*data-kind="permission">.*?</div>', body, re.S
    )
    assert refused and "rm -rf build" in refused.group() and 'class="badge refused"' in body
    events = re.findall(r'<div class="ev [^"]*".*?</div>', body, re.S)
    stopped = [e for e in events if "sleep 600" in e and 'data-kind="tool_error"' in e]
    assert stopped and 'class="badge interrupted"' in stopped[0]
    assert 'class="ev mark-warn"' in stopped[0] and "badge failed" not in stopped[0]
    assert "Not graded yet" in body  # L2's absence on the session page too
    assert "Unscored, and why" in body and "Completeness profile" in body


def test_guides_tasks_fingerprint_and_unknown(recorded: Path) -> None:
    with serving(recorded) as server:
        assert get(server.port, "/guides")[0] == 200
        assert "No session is labelled" in get(server.port, "/tasks")[2]
        status, headers, _ = get(server.port, "/api/fingerprint")
        assert status == 200 and headers["content-type"] == "application/json"
        assert get(server.port, "/session/nope-nothing")[0] == 404
        assert get(server.port, "/etc/passwd")[0] == 404


def test_report_html_is_one_self_contained_file(recorded: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    done = subprocess.run(
        [TRAIL, "report", SESSION, "--html", str(out)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    doc = out.read_text()
    assert "<script" not in doc  # nothing executes in the report, not even our own
    assert re.search(
        r'<meta http-equiv="Content-Security-Policy" content="default-src \'none\'', doc
    )
    assert not re.search(r'(src|href)="(https?:)?//', doc)  # no external asset
    assert "&lt;script&gt;" in doc and "git push --force" in doc
    assert (out.stat().st_mode & 0o777) == 0o600


def test_escaping_helpers() -> None:
    assert clean("a\x00b\u2028c\ud800") == "a\\u0000b\\u2028c\ufffd"
    assert re.fullmatch(r"ev-[A-Za-z0-9_-]+", anchor('x" onmouseover="y'))


def test_a_request_reads_through_a_connection_that_cannot_write(recorded: Path) -> None:
    import sqlite3

    from dashboard.server import read_only, sync_once

    sync_once(str(recorded))
    db = read_only(str(recorded))
    try:
        assert db.execute("SELECT count(*) FROM sessions").fetchone()[0] == 3
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            db.execute("DELETE FROM sessions")
    finally:
        db.close()


def test_tasks_page_shows_pass_hat_k_with_n_and_k(recorded: Path) -> None:
    for key, outcome in ((SESSION, "pass"), (WAITING, "fail"), ("dash-plain-2", None)):
        subprocess.run([TRAIL, "eval", "task", key, "login-fix"], check=True, capture_output=True)
        if outcome:
            subprocess.run(
                [TRAIL, "eval", "outcome", key, outcome], check=True, capture_output=True
            )
    with serving(recorded) as server:
        body = get(server.port, "/tasks")[2]
    row = re.search(r"<tr><td>login-fix</td>(.*?)</tr>", body)
    assert row, body
    cells = re.findall(r"<td>(.*?)</td>", row.group(1))
    # n = 2 known outcomes, c = 1 delivered, k = n = 2: pass^2 = C(1,2)/C(2,2) = 0; one unknown
    assert cells == ["2", "1", "2", "0.00", "flaky", "1"]


def test_a_page_that_fails_is_a_500_and_the_server_keeps_serving(
    recorded: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from dashboard import views

    def broken(*args: object, **kwargs: object) -> None:
        raise ValueError("unexpected data")

    with serving(recorded) as server:
        monkeypatch.setattr(views, "guides", broken)
        status, _, body = get(server.port, "/guides")
        assert status == 500 and "could not render this page: ValueError" in body
        assert get(server.port, "/")[0] == 200
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to connect as another user")
@pytest.mark.parametrize("source", ["127.0.0.1", "127.0.0.2"])
def test_another_local_user_cannot_read_the_dashboard(
    recorded: Path, source: str, capfd: pytest.CaptureFixture[str]
) -> None:
    """The data dir is 0700 so that other users cannot read the traces; trail serve on
    127.0.0.1 (which every local user reaches) once showed them every session."""
    with serving(recorded) as server:
        request = f"GET / HTTP/1.0\r\nHost: 127.0.0.1:{server.port}\r\n\r\n".encode()
        done = request_as_another_user(server.port, source, request)
        assert done.stdout.strip() == "closed", (done.stdout[:200], done.stderr)
        assert get(server.port, "/")[0] == 200  # this user's own requests still are served
    assert "from another user (uid 65534); closed unanswered" in capfd.readouterr().err
