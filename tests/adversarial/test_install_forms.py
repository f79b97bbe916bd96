"""Which commands are trail's own entry (install writes it, uninstall removes it): exactly
`shlex.join([<python>, "-I", "-S", <.../hooks/run.py>, harness])` (the direct form) or
`shlex.join([<absolute .../trail>, "hook", harness])`, nothing more, nothing less."""

from __future__ import annotations

import pytest

from trace_ingest.settings_io import direct_command, own_command, own_executable


@pytest.mark.parametrize(
    "exe", ["/opt/trail", "/home/u/.local/share/trail-venv/bin/trail", "/path with space/trail"]
)
def test_what_install_writes_is_recognised(exe: str) -> None:
    assert own_executable(own_command(exe, "claude-code"), "claude-code") == exe
    assert own_executable(own_command(exe, "claude-code"), "vibe") is None


@pytest.mark.parametrize(
    ("python", "script"),
    [
        ("/opt/venv/bin/python", "/opt/venv/lib/python3.11/site-packages/hooks/run.py"),
        ("/path with space/python3", "/path with space/site-packages/hooks/run.py"),
    ],
)
def test_the_direct_form_is_recognised(python: str, script: str) -> None:
    command = direct_command(python, script, "claude-code")
    assert own_executable(command, "claude-code") == python
    assert own_executable(command, "vibe") is None


@pytest.mark.parametrize(
    "command",
    [
        "/opt/py -I -S /opt/sp/hooks/run.py claude-code --x",
        "/opt/py -S -I /opt/sp/hooks/run.py claude-code",
        "/opt/py -I -S /opt/sp/hooks/other.py claude-code",
        "/opt/py -I -S sp/hooks/run.py claude-code",  # a relative script
        "py -I -S /opt/sp/hooks/run.py claude-code",  # an interpreter from PATH
        "/opt/py -I -S /opt/sp/hooks/run.py claude-code; id",
        "/opt/py  -I -S /opt/sp/hooks/run.py claude-code",  # not the canonical quoting
        "/opt/py -I -S /opt/sp/hooks/run.py vibe",
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
