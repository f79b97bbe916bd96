"""`trail install` / `trail uninstall` against real settings files."""

from __future__ import annotations

import json
import shlex
import stat
import subprocess
import sys
from pathlib import Path

from hooks import install as installer
from tests.conftest import TRAIL, read_trace_lines
from trace_ingest.harnesses.claude_code import DESCRIPTOR
from trace_ingest.settings_io import direct_command, hook_script, own_command

CLAUDE_EVENTS = DESCRIPTOR.hook_events
RUN_PY = hook_script()

USER_SETTINGS = {
    "model": "opus",
    "permissions": {"allow": ["Bash(npm test)"]},
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": "~/.claude/hooks/block-rm.sh"}],
            }
        ],
        "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}],
    },
}


def settings_file(project: Path) -> Path:
    return project / ".claude" / "settings.json"


def write_settings(project: Path, data: object) -> Path:
    path = settings_file(project)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2))
    return path


def test_install_merges_and_preserves_everything(tmp_path: Path) -> None:
    path = write_settings(tmp_path, USER_SETTINGS)
    change = installer.install("claude-code", "project", str(tmp_path), executable="/opt/trail")
    data = json.loads(path.read_text())
    assert data["model"] == "opus" and data["permissions"] == USER_SETTINGS["permissions"]
    assert data["hooks"]["PreToolUse"][0] == USER_SETTINGS["hooks"]["PreToolUse"][0]
    assert data["hooks"]["Stop"][0] == USER_SETTINGS["hooks"]["Stop"][0]
    ours = DESCRIPTOR.registered(data)
    assert set(ours) == set(CLAUDE_EVENTS) == set(change.added)
    handler = data["hooks"]["PostToolUse"][0]["hooks"][0]
    assert handler == {
        "type": "command",
        "command": "/opt/trail hook claude-code",
        "async": True,
        "timeout": 10,
    }
    stop = data["hooks"]["Stop"][1]["hooks"][0]  # after the user's own Stop hook
    assert stop == {"type": "command", "command": "/opt/trail hook claude-code", "timeout": 5}
    assert change.backup and json.loads(Path(change.backup).read_text()) == USER_SETTINGS
    assert stat.S_IMODE(Path(change.backup).stat().st_mode) == 0o600  # settings may hold keys


def test_an_async_stop_from_an_earlier_version_runs_in_the_foreground_after_install(
    tmp_path: Path,
) -> None:
    """claude -p cancels async hooks still running at its exit (and exits ~1.5 s later for
    it): trail's Stop handler is moved to the foreground; the others stay async."""
    installer.install("claude-code", "project", str(tmp_path), executable="/opt/trail")
    path = settings_file(tmp_path)
    data = json.loads(path.read_text())
    data["hooks"]["Stop"][0]["hooks"][0].update({"async": True, "timeout": 10})
    path.write_text(json.dumps(data))
    change = installer.install("claude-code", "project", str(tmp_path), executable="/opt/trail")
    assert change.updated == ["Stop"] and change.added == []
    again = json.loads(path.read_text())
    assert "async" not in again["hooks"]["Stop"][0]["hooks"][0]
    assert again["hooks"]["PreToolUse"][0]["hooks"][0]["async"] is True


def test_install_is_idempotent(tmp_path: Path) -> None:
    installer.install("claude-code", "project", str(tmp_path), executable="/opt/trail")
    first = settings_file(tmp_path).read_text()
    change = installer.install("claude-code", "project", str(tmp_path), executable="/opt/trail")
    assert change.added == [] and change.backup is None
    assert settings_file(tmp_path).read_text() == first


def test_uninstall_removes_exactly_what_install_added(tmp_path: Path) -> None:
    write_settings(tmp_path, USER_SETTINGS)
    installer.install("claude-code", "project", str(tmp_path), executable="/opt/trail")
    change = installer.uninstall("claude-code", "project", str(tmp_path))
    assert set(change.removed) == set(CLAUDE_EVENTS)
    assert json.loads(settings_file(tmp_path).read_text()) == USER_SETTINGS


def test_uninstall_of_a_fresh_install_leaves_an_empty_object(tmp_path: Path) -> None:
    installer.install("claude-code", "project", str(tmp_path), executable="/opt/trail")
    installer.uninstall("claude-code", "project", str(tmp_path))
    assert json.loads(settings_file(tmp_path).read_text()) == {}


def test_invalid_settings_are_refused_untouched(tmp_path: Path) -> None:
    path = settings_file(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text("{ not json")
    done = subprocess.run(
        [TRAIL, "install", "--project-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1 and "cannot read" in done.stderr
    assert path.read_text() == "{ not json"


def test_cli_install_records_the_absolute_command_and_doctor_runs_it(tmp_path: Path) -> None:
    done = subprocess.run(
        [TRAIL, "install", "--project-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert f"added trail for {len(CLAUDE_EVENTS)} events" in done.stdout
    data = json.loads(settings_file(tmp_path).read_text())
    command = data["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    assert command == direct_command(sys.executable, str(RUN_PY), "claude-code")
    doc = subprocess.run(
        [TRAIL, "doctor", "--project-dir", str(tmp_path), "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    report = json.loads(doc.stdout)
    hook_check = next(c for c in report["checks"] if c["name"] == "claude-code: project hook")
    assert hook_check["ok"] and "command runs" in hook_check["detail"]
    assert hook_check["status"] == "ok"
    later = {c["name"]: c["status"] for c in report["checks"] if not c["applies"]}
    assert later == {}
    # Vibe and Copilot CLI are wired but not registered here: said, not a failure while
    # Claude Code works.
    for harness in ("vibe", "copilot-cli"):
        check = next(c for c in report["checks"] if c["name"] == f"{harness}: hook")
        assert check["status"] == "warn" and f"trail install --harness {harness}" in check["detail"]
    vscode = next(c for c in report["checks"] if c["name"] == "vscode: hook")
    assert vscode["ok"] and "through trail's claude-code hook" in vscode["detail"]
    assert doc.returncode == 0 and report["ok"]


def test_doctor_fails_when_not_registered(tmp_path: Path) -> None:
    doc = subprocess.run(
        [TRAIL, "doctor", "--project-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
        env={**__import__("os").environ, "HOME": str(tmp_path)},
    )
    assert doc.returncode == 1
    assert "[FAIL] claude-code: hook: not registered" in doc.stdout


def test_doctor_reports_a_broken_registration(tmp_path: Path) -> None:
    write_settings(
        tmp_path,
        {
            "hooks": {
                "Stop": [
                    {
                        "hooks": [
                            {"type": "command", "command": "/nonexistent/trail hook claude-code"}
                        ]
                    }
                ]
            }
        },
    )
    doc = subprocess.run(
        [TRAIL, "doctor", "--project-dir", str(tmp_path), "--json"],
        capture_output=True,
        text=True,
        check=False,
        env={**__import__("os").environ, "HOME": str(tmp_path)},
    )
    report = json.loads(doc.stdout)
    assert doc.returncode == 1 and not report["ok"]
    check = next(c for c in report["checks"] if c["name"] == "claude-code: project hook")
    assert not check["ok"] and "FAILS" in check["detail"]


def test_install_registers_the_direct_form_which_records_through_a_shell(
    tmp_path: Path, trail_home: Path
) -> None:
    """What a user's `trail install` writes runs as Claude Code runs it (a shell command
    line), exits 0, prints nothing and records the event."""
    change = installer.install("claude-code", "project", str(tmp_path))
    assert change.command == direct_command(sys.executable, RUN_PY, "claude-code")
    words = shlex.split(change.command)
    assert words[1:3] == ["-I", "-S"] and words[3].endswith("/hooks/run.py")
    payload = {"session_id": "s-direct", "hook_event_name": "UserPromptSubmit", "prompt": "hi"}
    done = subprocess.run(
        ["/bin/sh", "-c", change.command],
        input=json.dumps(payload).encode(),
        capture_output=True,
        check=False,
    )
    assert (done.returncode, done.stdout) == (0, b"")
    [ev] = read_trace_lines(trail_home)
    assert (ev["session_id"], ev["kind"], ev["text"]) == ("s-direct", "prompt", "hi")


def test_an_older_console_script_entry_is_updated_and_both_forms_uninstall(tmp_path: Path) -> None:
    old = own_command("/opt/old-venv/bin/trail", "claude-code")
    write_settings(
        tmp_path,
        {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": old, "async": True}]}]}},
    )
    change = installer.install("claude-code", "project", str(tmp_path))
    assert change.updated == ["Stop"]
    data = json.loads(settings_file(tmp_path).read_text())
    commands = {h["command"] for g in data["hooks"].values() for x in g for h in x["hooks"]}
    assert commands == {change.command}
    assert installer.install("claude-code", "project", str(tmp_path)).added == []  # idempotent
    removed = installer.uninstall("claude-code", "project", str(tmp_path))
    assert sorted(removed.removed) == sorted(CLAUDE_EVENTS)
    assert "hooks" not in json.loads(settings_file(tmp_path).read_text())
