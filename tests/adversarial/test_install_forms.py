"""Which commands are trail's own entry (install writes it, uninstall removes it): exactly
`shlex.join([<absolute .../trail>, "hook", harness])`, nothing more, nothing less."""

from __future__ import annotations

import pytest

from trace_ingest.settings_io import own_command, own_executable


@pytest.mark.parametrize(
    "exe", ["/opt/trail", "/home/u/.local/share/trail-venv/bin/trail", "/path with space/trail"]
)
def test_what_install_writes_is_recognised(exe: str) -> None:
    assert own_executable(own_command(exe, "claude-code"), "claude-code") == exe
    assert own_executable(own_command(exe, "claude-code"), "vibe") is None


@pytest.mark.parametrize(
    "command",
    [
        "trail hook claude-code",  # on PATH: written by hand
        "./bin/trail hook claude-code",
        "/opt/trail hook claude-code --x",
        "/opt/trail  hook claude-code",  # not the canonical quoting
        "/opt/trail hook claude-code; id",
        "/opt/trail hook claude-code | tee log",
        "X=1 /opt/trail hook claude-code",
        "/opt/not-trail hook claude-code",
        "'/opt/trail hook claude-code'",
        "/opt/trail hook 'claude-code",  # unparseable
        "",
    ],
)
def test_anything_else_is_the_users(command: str) -> None:
    assert own_executable(command, "claude-code") is None
