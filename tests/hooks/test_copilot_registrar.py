"""`trail install/uninstall --harness copilot-cli`: trail.json in $COPILOT_HOME/hooks or
.github/hooks, a command that exits 0 even when trail is gone, and exactly trail's entries."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest

from hooks import install  # noqa: F401  (first: the registrar table imports the registrars)
from hooks.registrars.copilot_cli import REGISTRAR, own_command, own_executable
from tests.conftest import TRAIL, read_trace_lines
from trace_ingest.errors import InstallError
from trace_ingest.harnesses.copilot_cli import CAMEL_EVENTS, DESCRIPTOR

EXE = "/opt/trail env/bin/trail"


@pytest.fixture
def copilot_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "copilot-home"
    monkeypatch.setenv("COPILOT_HOME", str(home))
    return home


def _file(home: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads((home / "hooks" / "trail.json").read_text())
    return data


def test_install_writes_trail_json_at_user_level(copilot_home: Path) -> None:
    change = REGISTRAR.install("user", executable=EXE)
    path = copilot_home / "hooks" / "trail.json"
    assert change.path == str(path) and change.added == list(CAMEL_EVENTS)
    data = _file(copilot_home)
    assert data["version"] == 1
    hooks = data["hooks"]
    assert isinstance(hooks, dict) and list(hooks) == list(CAMEL_EVENTS) and len(hooks) == 14
    for entries in hooks.values():
        assert entries == [
            {"type": "command", "bash": f"'{EXE}' hook copilot-cli || true", "timeoutSec": 10}
        ]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    # Idempotent; what doctor and `registered` see is the command without the guard.
    assert REGISTRAR.install("user", executable=EXE).added == []
    registered = REGISTRAR.registered("user")
    assert set(registered) == set(CAMEL_EVENTS)
    assert {c for cs in registered.values() for c in cs} == {f"'{EXE}' hook copilot-cli"}


def test_without_copilot_home_the_user_file_is_in_dot_copilot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COPILOT_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert REGISTRAR.settings_path("user") == str(tmp_path / ".copilot" / "hooks" / "trail.json")
    assert DESCRIPTOR.default_scope == "user"


def test_project_scope_is_the_repository_hooks_folder(tmp_path: Path) -> None:
    change = REGISTRAR.install("project", str(tmp_path), executable=EXE)
    assert change.path == str(tmp_path / ".github" / "hooks" / "trail.json")
    assert len(change.added) == 14
    assert REGISTRAR.uninstall("project", str(tmp_path)).removed == list(CAMEL_EVENTS)
    assert not (tmp_path / ".github" / "hooks" / "trail.json").exists()


def test_a_moved_trail_is_updated_and_user_entries_are_kept(copilot_home: Path) -> None:
    folder = copilot_home / "hooks"
    folder.mkdir(parents=True)
    mine = {"type": "command", "bash": "echo mine >> /tmp/log", "timeoutSec": 5}
    wrapper = {"type": "command", "bash": "cd /x && trail hook copilot-cli"}
    (folder / "trail.json").write_text(
        json.dumps({"version": 1, "hooks": {"preToolUse": [mine], "sessionStart": [wrapper]}})
    )
    REGISTRAR.install("user", executable="/old/bin/trail")
    change = REGISTRAR.install("user", executable=EXE)
    assert change.added == [] and len(change.updated) == 13
    assert change.backup and Path(change.backup).exists()
    data = _file(copilot_home)
    hooks = data["hooks"]
    assert isinstance(hooks, dict)
    assert hooks["preToolUse"][0] == mine and len(hooks["preToolUse"]) == 2
    assert hooks["sessionStart"] == [wrapper]  # the user's own hook runs trail: left to it
    change = REGISTRAR.uninstall("user")
    assert "preToolUse" in change.removed and "sessionStart" in change.left
    assert _file(copilot_home)["hooks"] == {"preToolUse": [mine], "sessionStart": [wrapper]}


def test_disable_all_hooks_is_refused(copilot_home: Path) -> None:
    (copilot_home / "hooks").mkdir(parents=True)
    (copilot_home / "hooks" / "trail.json").write_text('{"version": 1, "disableAllHooks": true}')
    with pytest.raises(InstallError, match="disableAllHooks"):
        REGISTRAR.install("user", executable=EXE)


def test_trails_exact_form_only() -> None:
    assert own_executable(own_command(EXE)) == EXE
    assert own_executable(f"'{EXE}' hook copilot-cli") is None  # no guard: not what trail writes
    assert own_executable(f"'{EXE}' hook claude-code || true") is None
    assert own_executable(f"x=1 '{EXE}' hook copilot-cli || true") is None


def test_the_command_exits_0_when_trail_is_gone(tmp_path: Path) -> None:
    """A failing preToolUse command denies the tool: trail's must succeed without trail."""
    gone = own_command(str(tmp_path / "uninstalled" / "bin" / "trail"))
    done = subprocess.run(
        ["bash", "-c", gone], input=b'{"toolName": "bash"}', capture_output=True, check=False
    )
    assert (done.returncode, done.stdout) == (0, b"")


def test_the_command_records_with_trail_present(trail_home: Path) -> None:
    payload = {"sessionId": "s1", "timestamp": 1796125178926, "cwd": "/w", "prompt": "hi"}
    done = subprocess.run(
        ["bash", "-c", own_command(TRAIL)],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env={**os.environ, "TRAIL_HOME": str(trail_home)},
        check=False,
    )
    assert (done.returncode, done.stdout) == (0, b"")
    [ev] = read_trace_lines(trail_home)
    assert (ev["harness"], ev["kind"], ev["text"]) == ("copilot-cli", "prompt", "hi")


def test_the_default_command_is_the_direct_form_guarded(copilot_home: Path) -> None:
    change = REGISTRAR.install("user")
    assert change.command.endswith(" copilot-cli || true") and " -I -S " in change.command
    assert own_executable(change.command) is not None
    assert REGISTRAR.uninstall("user").removed == list(CAMEL_EVENTS)


def test_cli_install_and_doctor(copilot_home: Path, tmp_path: Path) -> None:
    env = {**os.environ, "COPILOT_HOME": str(copilot_home)}
    done = subprocess.run(
        [TRAIL, "install", "--harness", "copilot-cli", "--json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        check=True,
    )
    change = json.loads(done.stdout)
    assert change["path"] == str(copilot_home / "hooks" / "trail.json")
    assert change["command"].endswith(" copilot-cli || true")
    assert own_executable(change["command"]) is not None  # trail's exact (direct) form
    doctor = subprocess.run(
        [TRAIL, "doctor", "--json"], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    hook = checks["copilot-cli: user hook"]
    assert hook["ok"] is True and "runs" in hook["detail"], hook
    done = subprocess.run(
        [TRAIL, "uninstall", "--harness", "copilot-cli", "--json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        check=True,
    )
    assert len(json.loads(done.stdout)["removed"]) == 14
    assert not (copilot_home / "hooks" / "trail.json").exists()
