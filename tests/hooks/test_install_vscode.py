"""``trail install --harness vscode``: trail's own VS Code hook file, removed exactly."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from hooks import install
from tests.conftest import TRAIL
from trace_ingest.harnesses.vscode import HOOK_EVENTS

EXE = "/opt/trail/bin/trail"


def hook_file(project: Path) -> Path:
    return project / ".github" / "hooks" / "trail-vscode.json"


def test_install_writes_trails_file_and_uninstall_removes_exactly_that(tmp_path: Path) -> None:
    path = hook_file(tmp_path)
    path.parent.mkdir(parents=True)
    mine = {"type": "command", "command": "./scripts/audit.sh", "timeout": 5}
    path.write_text(json.dumps({"hooks": {"PreToolUse": [mine]}, "version": 1}))
    change = install.install("vscode", "project", str(tmp_path), EXE)
    assert change.added == list(HOOK_EVENTS)
    data = json.loads(path.read_text())
    assert data["version"] == 1
    assert data["hooks"]["PreToolUse"] == [
        mine,
        {"type": "command", "command": f"{EXE} hook vscode || true", "cwd": ".", "timeout": 10},
    ]
    assert set(data["hooks"]) == set(HOOK_EVENTS)
    assert install.install("vscode", "project", str(tmp_path), EXE).added == []  # idempotent
    moved = install.install("vscode", "project", str(tmp_path), "/usr/bin/trail")
    assert moved.updated == list(HOOK_EVENTS)
    removed = install.uninstall("vscode", "project", str(tmp_path))
    assert sorted(removed.removed) == sorted(HOOK_EVENTS)
    assert json.loads(path.read_text()) == {"hooks": {"PreToolUse": [mine]}, "version": 1}


def test_the_command_exits_0_when_trail_is_gone(tmp_path: Path) -> None:
    """Copilot CLI also runs the files in ~/.copilot/hooks and a trusted .github/hooks, and
    denies a tool when its preToolUse command fails (real-harnesses.md §2.2): trail's VS Code
    command must not block a tool call once the trail program is removed."""
    gone = tmp_path / "removed" / "bin" / "trail"
    install.install("vscode", "project", str(tmp_path), str(gone))
    data = json.loads(hook_file(tmp_path).read_text())
    command = data["hooks"]["PreToolUse"][0]["command"]
    assert command.startswith(str(gone))
    ran = subprocess.run(["/bin/sh", "-c", command], input=b"{}", capture_output=True, timeout=30)
    assert ran.returncode == 0 and ran.stdout == b""
    bare = subprocess.run(
        ["/bin/sh", "-c", command.removesuffix(" || true")], input=b"{}", capture_output=True
    )
    assert bare.returncode != 0  # the control: without the guard the missing program fails


def test_an_unguarded_entry_from_an_older_install_is_upgraded(tmp_path: Path) -> None:
    path = hook_file(tmp_path)
    path.parent.mkdir(parents=True)
    old = {"type": "command", "command": f"{EXE} hook vscode", "timeout": 10}
    path.write_text(json.dumps({"hooks": {"PreToolUse": [old]}}))
    change = install.install("vscode", "project", str(tmp_path), EXE)
    assert "PreToolUse" in change.updated
    entries = json.loads(path.read_text())["hooks"]["PreToolUse"]
    assert [e["command"] for e in entries] == [f"{EXE} hook vscode || true"]


def test_a_users_wrapper_is_left_alone(tmp_path: Path) -> None:
    path = hook_file(tmp_path)
    path.parent.mkdir(parents=True)
    wrapper = {"type": "command", "command": "nice trail hook vscode"}
    path.write_text(json.dumps({"hooks": {"Stop": [wrapper]}}))
    change = install.install("vscode", "project", str(tmp_path), EXE)
    assert change.left == ["Stop"] and "Stop" not in change.added
    assert install.uninstall("vscode", "project", str(tmp_path)).left == ["Stop"]
    assert json.loads(path.read_text())["hooks"]["Stop"] == [wrapper]


def test_claude_codes_hook_already_records_vscode(tmp_path: Path) -> None:
    install.install("claude-code", "project", str(tmp_path), EXE)
    change = install.install("vscode", "project", str(tmp_path), EXE)
    assert change.added == [] and not hook_file(tmp_path).exists()
    assert change.note and ".claude/settings.json" in change.note
    done = subprocess.run(
        [TRAIL, "install", "--harness", "vscode", "--project-dir", str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0 and "nothing added: VS Code already runs" in done.stdout


def test_doctor_sees_the_vscode_hook(tmp_path: Path) -> None:
    subprocess.run(
        [TRAIL, "install", "--harness", "vscode", "--project-dir", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    doc = subprocess.run(
        [TRAIL, "doctor", "--project-dir", str(tmp_path), "--json"], capture_output=True, text=True
    )
    report = json.loads(doc.stdout)
    check = next(c for c in report["checks"] if c["name"] == "vscode: project hook")
    assert check["ok"] and "command runs" in check["detail"], check
