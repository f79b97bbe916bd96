"""Issue 8, items 9, 10 and low items: install and uninstall on hostile or unusual settings.

Real settings files, real `trail install` / `trail uninstall` processes.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.adversarial._mirror import no_traceback
from tests.conftest import TRAIL
from trace_ingest.harnesses.claude_code import DESCRIPTOR
from trace_ingest.settings_io import direct_command, hook_script

CLAUDE_EVENTS = DESCRIPTOR.hook_events

WRAPPER = "cd /tmp && trail hook claude-code 2>>/tmp/trail.log"


def run(
    *args: str, cwd: Path, home: Path | None = None, umask: int | None = None
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **({"HOME": str(home)} if home else {})}
    done = subprocess.run(
        [TRAIL, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=60,
        check=False,
        preexec_fn=(lambda: os.umask(umask)) if umask is not None else None,
    )
    no_traceback(done)
    return done


def settings_file(project: Path) -> Path:
    return project / ".claude" / "settings.json"


def write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2))
    return path


def commands(path: Path) -> list[str]:
    data = json.loads(path.read_text())
    return [
        h["command"]
        for groups in data.get("hooks", {}).values()
        for g in groups
        for h in g["hooks"]
    ]


def test_a_users_wrapper_is_neither_duplicated_nor_removed(tmp_path: Path) -> None:
    original = {
        "hooks": {
            event: [{"hooks": [{"type": "command", "command": WRAPPER}]}]
            for event in ("PreToolUse", "PostToolUse")
        }
    }
    path = write(settings_file(tmp_path), original)
    done = run("install", "--project-dir", str(tmp_path), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    ours = direct_command(sys.executable, hook_script(), "claude-code")
    got = commands(path)
    assert got.count(WRAPPER) == 2
    assert got.count(ours) == len(CLAUDE_EVENTS) - 2  # not added where the wrapper records
    assert "left 2 events to your own hook" in done.stdout
    again = run("install", "--project-dir", str(tmp_path), cwd=tmp_path)
    assert commands(path) == got and "nothing to do" in again.stdout
    done = run("uninstall", "--project-dir", str(tmp_path), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(path.read_text()) == original


def test_uninstall_keeps_hooks_that_only_mention_trail(tmp_path: Path) -> None:
    mentions = [
        WRAPPER,
        "/usr/local/bin/trail hook claude-code | tee -a /tmp/log",
        "TRAIL_HOME=/x /opt/trail/bin/trail hook claude-code",
        "trail hook claude-code",  # on PATH, written by hand: not the form install writes
        "/opt/trail hook claude-code --extra",
    ]
    original = {
        "hooks": {"Stop": [{"hooks": [{"type": "command", "command": c} for c in mentions]}]}
    }
    path = write(settings_file(tmp_path), original)
    done = run("uninstall", "--project-dir", str(tmp_path), cwd=tmp_path)
    assert done.returncode == 0 and "nothing to do" in done.stdout
    assert json.loads(path.read_text()) == original


def test_install_writes_through_a_symlink_to_its_target(tmp_path: Path) -> None:
    """User scope: ~/.claude/settings.json kept in a dotfiles repo, linked into place."""
    home = tmp_path / "home"
    dotfiles = write(tmp_path / "dotfiles" / "claude-settings.json", {"model": "opus"})
    link = home / ".claude" / "settings.json"
    link.parent.mkdir(parents=True)
    link.symlink_to(dotfiles)
    done = run("install", "--scope", "user", cwd=tmp_path, home=home)
    assert done.returncode == 0, done.stderr
    assert link.is_symlink() and os.readlink(link) == str(dotfiles)  # the link stays
    assert len(commands(dotfiles)) == len(CLAUDE_EVENTS)
    assert json.loads(dotfiles.read_text())["model"] == "opus"
    assert "its target" in done.stdout
    assert not list(link.parent.glob("*.trail-tmp-*")) and not list(dotfiles.parent.glob(".*tmp*"))
    done = run("uninstall", "--scope", "user", cwd=tmp_path, home=home)
    assert json.loads(dotfiles.read_text()) == {"model": "opus"} and link.is_symlink()


def test_a_project_symlink_out_of_the_project_is_refused(tmp_path: Path) -> None:
    project = tmp_path / "cloned"
    victim = write(tmp_path / "elsewhere" / "app.json", {"keep": True})
    link = settings_file(project)
    link.parent.mkdir(parents=True)
    link.symlink_to(victim)
    before = victim.read_bytes()
    done = run("install", "--project-dir", str(project), cwd=project)
    assert done.returncode == 1 and "outside the project" in done.stderr
    assert victim.read_bytes() == before and link.is_symlink()


def test_install_then_uninstall_within_a_second_keeps_both_backups(tmp_path: Path) -> None:
    path = write(settings_file(tmp_path), {"model": "opus"})
    original = path.read_bytes()
    first = run("install", "--project-dir", str(tmp_path), "--json", cwd=tmp_path)
    second = run("uninstall", "--project-dir", str(tmp_path), "--json", cwd=tmp_path)
    b1, b2 = json.loads(first.stdout)["backup"], json.loads(second.stdout)["backup"]
    assert b1 and b2 and b1 != b2
    assert Path(b1).read_bytes() == original
    assert len(list(path.parent.glob("settings.json.trail-backup-*"))) == 2


def test_under_umask_000_new_files_are_private(tmp_path: Path) -> None:
    done = run("install", "--project-dir", str(tmp_path), cwd=tmp_path, umask=0)
    assert done.returncode == 0, done.stderr
    path = settings_file(tmp_path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_an_existing_files_mode_is_kept(tmp_path: Path) -> None:
    path = write(settings_file(tmp_path), {})
    path.chmod(0o640)
    run("install", "--project-dir", str(tmp_path), cwd=tmp_path, umask=0)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


@pytest.mark.parametrize("kind", ["dev-zero", "fifo", "huge"])
def test_install_fails_cleanly_on_a_settings_file_that_is_not_one(
    tmp_path: Path, kind: str
) -> None:
    path = settings_file(tmp_path)
    path.parent.mkdir()
    if kind == "dev-zero":
        path.symlink_to("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        with path.open("wb") as fh:
            fh.truncate(17 * 1024 * 1024)
    for verb in ("install", "uninstall"):
        done = run(verb, "--project-dir", str(tmp_path), cwd=tmp_path)
        assert done.returncode == 1
        assert "not a regular file" in done.stderr or "refusing" in done.stderr, done.stderr
    if kind == "huge":
        assert path.stat().st_size == 17 * 1024 * 1024


def test_a_read_only_settings_file_is_not_replaced(tmp_path: Path) -> None:
    path = write(settings_file(tmp_path), {"model": "opus"})
    path.chmod(0o444)
    inode, before = path.stat().st_ino, path.read_bytes()
    done = run("install", "--project-dir", str(tmp_path), cwd=tmp_path)
    assert done.returncode == 1 and "read-only" in done.stderr
    assert path.stat().st_ino == inode and path.read_bytes() == before
    assert stat.S_IMODE(path.stat().st_mode) == 0o444


def test_a_read_only_settings_folder_gives_a_clear_message(tmp_path: Path) -> None:
    path = write(settings_file(tmp_path), {"model": "opus"})
    path.parent.chmod(0o555)
    try:
        done = run("install", "--project-dir", str(tmp_path), cwd=tmp_path)
        assert done.returncode == 1 and "read-only" in done.stderr
        assert json.loads(path.read_text()) == {"model": "opus"}
        assert not list(path.parent.glob("*trail*"))
    finally:
        path.parent.chmod(0o700)
    fresh = tmp_path / "fresh"
    fresh.mkdir(mode=0o555)
    try:
        done = run("install", "--project-dir", str(fresh), cwd=tmp_path)
        assert (done.returncode == 1 and "read-only" in done.stderr) or "cannot" in done.stderr
    finally:
        fresh.chmod(0o700)
