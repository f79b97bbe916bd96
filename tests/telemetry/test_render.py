"""One-line descriptions of events (telemetry.render.describe)."""

from __future__ import annotations

from telemetry.render import describe


def test_a_shells_nonzero_exit_is_shown_beside_the_harness_verdict() -> None:
    """Vibe 3.0.1 reports `exit 2` as a success: the line says both."""
    ev = {
        "kind": "tool_result",
        "tool_name": "file_system.bash",
        "tool": "shell",
        "input": {"command": "make check"},
        "ok": True,
        "status": "ok",
        "extra": {"exit_code": 2},
    }
    assert describe(ev) == "file_system.bash [shell] make check ok (exit 2)"
    assert "exit" not in describe({**ev, "extra": {"exit_code": 0}})
    assert "exit" not in describe({**ev, "extra": {"exit_code": True}})
