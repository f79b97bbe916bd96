"""The dashboard in a real browser: Debian's Chromium, headless, driven by Playwright (its own
browser download does not work here, so it launches /usr/bin/chromium). Loads the sessions page,
opens a session, follows a flag to its event, checks the absence states and the nested subagent
lane, and that hostile content ran nothing; saves screenshots as test artefacts."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from dashboard.server import sync_once
from tests.conftest import run_hook
from tests.dashboard._store import AGENT, BASE, SESSION, record_hostile_session, serving

CHROMIUM = os.environ.get("TRAIL_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture
def browser_page(tmp_path: Path) -> Iterator[object]:
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(
            f"no Chromium at {CHROMIUM}: the browser tests drive the distribution's Chromium;"
            " install it (Debian/Ubuntu, as root: apt-get install -y chromium) or set"
            " TRAIL_CHROMIUM to its path. `.ci/run` installs it."
        )
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("the browser tests need Playwright: pip install -e '.[dev]'")
    with sync_playwright() as p:
        ctx = p.chromium.launch_persistent_context(
            str(tmp_path / "chromium-profile"),  # a new, empty profile
            executable_path=CHROMIUM,
            headless=True,
            args=ARGS,
            viewport={"width": 1280, "height": 900},
        )
        try:
            yield ctx.new_page()
        finally:
            ctx.close()


def test_sessions_to_session_to_flagged_event(
    trail_home: Path, tmp_path: Path, browser_page: object
) -> None:
    from playwright.sync_api import Page

    record_hostile_session()
    page = browser_page
    assert isinstance(page, Page)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    with serving(trail_home) as server:
        page.goto(server.url)
        assert page.title() == "trail — sessions"
        rows = page.locator("tr.session")
        assert rows.count() == 3
        plain = page.locator('tr.session[data-key="claude-code/dash-plain-2"]')
        assert plain.locator("td.l1 .absent").inner_text() == "Not scored"
        hostile = page.locator(f'tr.session[data-key="claude-code/{SESSION}"]')
        assert hostile.locator("td.l2 .absent").first.inner_text() == "Not graded yet"
        page.screenshot(path=str(tmp_path / "sessions.png"), full_page=True)

        hostile.locator("a").first.click()
        page.wait_for_url("**/session/**")
        assert page.title() != "PWNED"  # the prompt's <script> and the <img onerror> never ran
        assert page.locator("img").count() == 0
        assert "<script>document.title='PWNED'</script>" in page.locator("#timeline").inner_text()
        lane = page.locator(f'section.lane[data-agent="{AGENT}"]')
        assert lane.count() == 1
        assert lane.locator(".ev").count() >= 2 and "ls" in lane.inner_text()
        assert page.locator("#l2 .absent").first.inner_text() == "Not graded yet"

        flag = page.locator("#l1 a.flag").first
        target = flag.get_attribute("href")
        assert target and target.startswith("#ev-")
        flag.click()
        focused = page.locator(":target")
        assert focused.get_attribute("id") == target[1:]
        assert "git push --force" in focused.inner_text()
        assert focused.is_visible()
        page.screenshot(path=str(tmp_path / "session.png"), full_page=True)

        # live updates: a new session reaches the mirror (what the server's sync timer does);
        # the open session page says so, the sessions list reloads itself
        run_hook({**BASE, "session_id": "dash-live-4", "hook_event_name": "SessionStart"})
        sync_once(str(trail_home))
        page.locator("#live.on").wait_for(timeout=20_000)
        page.goto(server.url)
        run_hook({**BASE, "session_id": "dash-live-5", "hook_event_name": "SessionStart"})
        sync_once(str(trail_home))
        page.locator('tr.session[data-key="claude-code/dash-live-5"]').wait_for(timeout=20_000)
        assert page.locator("tr.session").count() == 5
    assert errors == []
    assert (tmp_path / "session.png").stat().st_size > 10_000
