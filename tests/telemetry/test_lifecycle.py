"""Session lifecycle per seed 002: open, closed by end event or idle sweep, reopened."""

from __future__ import annotations

from pathlib import Path

from telemetry.db import open_db
from telemetry.lifecycle import from_epoch, sweep, to_epoch
from telemetry.sync import sync
from tests.conftest import run_hook

BASE = {"session_id": "s-life", "transcript_path": "/t.jsonl", "cwd": "/proj"}


def state(home: Path) -> tuple[str, str | None, int]:
    row = (
        open_db(str(home))
        .execute("SELECT state, close_reason, reopen_count FROM sessions")
        .fetchone()
    )
    return row[0], row[1], row[2]


def test_open_then_closed_by_session_end_then_reopened(
    trail_home: Path, monkeypatch: object
) -> None:
    import telemetry.lifecycle as lc

    setattr(lc, "REOPEN_GRACE_SECONDS", 0.0)  # noqa: B010
    run_hook({**BASE, "hook_event_name": "SessionStart", "source": "startup"})
    sync(open_db(str(trail_home)), str(trail_home))
    assert state(trail_home) == ("open", None, 0)
    run_hook({**BASE, "hook_event_name": "SessionEnd", "reason": "other"})
    sync(open_db(str(trail_home)), str(trail_home))
    assert state(trail_home) == ("closed", "session_end", 0)
    run_hook({**BASE, "hook_event_name": "SessionStart", "source": "resume"})
    sync(open_db(str(trail_home)), str(trail_home))
    assert state(trail_home) == ("reopened", None, 1)
    setattr(lc, "REOPEN_GRACE_SECONDS", 10.0)  # noqa: B010


def test_a_resume_right_after_the_end_reopens_and_closes_again(trail_home: Path) -> None:
    """`copilot --resume` seconds after the first run ended (the rig's `resumed`): its session
    start reopens the session inside the stragglers' grace window, its end closes it again,
    whether one sync sees both runs or each has its own."""
    for one_sync in (True, False):
        for name in ("SessionStart", "SessionEnd", "SessionStart", "UserPromptSubmit"):
            run_hook({**BASE, "hook_event_name": name, "prompt": "go"})
            if not one_sync and name == "SessionEnd":
                sync(open_db(str(trail_home)), str(trail_home))
        sync(open_db(str(trail_home)), str(trail_home))
        assert state(trail_home)[:2] == ("reopened", None)
        run_hook({**BASE, "hook_event_name": "SessionEnd", "reason": "other"})
        sync(open_db(str(trail_home)), str(trail_home))
        db = open_db(str(trail_home))
        closed, last = db.execute("SELECT closed_at, last_event_at FROM sessions").fetchone()
        gap = abs((to_epoch(closed) or 0.0) - (to_epoch(last) or 1.0))
        assert state(trail_home)[:2] == ("closed", "session_end") and gap < 1e-3
        for path in trail_home.rglob("*"):
            if path.is_file():
                path.unlink()


def test_async_stragglers_right_after_the_end_do_not_reopen(trail_home: Path) -> None:
    run_hook({**BASE, "hook_event_name": "SessionEnd", "reason": "other"})
    run_hook({**BASE, "hook_event_name": "Stop"})  # within the grace window
    sync(open_db(str(trail_home)), str(trail_home))
    assert state(trail_home) == ("closed", "session_end", 0)


def test_idle_sweep_closes_after_the_configured_minutes(trail_home: Path) -> None:
    run_hook({**BASE, "hook_event_name": "UserPromptSubmit", "prompt": "hi"})
    db = open_db(str(trail_home))
    sync(db, str(trail_home))
    last = to_epoch(db.execute("SELECT last_event_at FROM sessions").fetchone()[0])
    assert last is not None
    assert sweep(db, 30, now=last + 29 * 60) == 0
    assert state(trail_home)[0] == "open"
    assert sweep(db, 30, now=last + 31 * 60) == 1
    assert state(trail_home) == ("closed", "idle", 0)
    closed_at = db.execute("SELECT closed_at FROM sessions").fetchone()[0]
    assert closed_at == from_epoch(last + 30 * 60)


def test_time_round_trip() -> None:
    assert to_epoch(from_epoch(1_700_000_000.5)) == 1_700_000_000.5
    assert to_epoch("not a time") is None and to_epoch(None) is None
