"""Held-out settings files for the registrars that landed with issue 11 (Vibe's
`.vibe/hooks.toml`, VS Code's `.github/hooks/trail-vscode.json`, Copilot CLI's
`.github/hooks/trail.json`): a cloned repository writes them, so they are untrusted.

For each harness: `trail doctor` runs none of the planted commands (a marker file is never
created), `trail install` then `trail uninstall` leave the user's entries (and, for TOML, every
byte) as they were, backups are 0600, and a settings folder or file linked out of the project
is refused with the target untouched.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest

from tests.conftest import TRAIL

HARNESSES = ["vibe", "vscode", "copilot-cli"]


def plant(project: Path, harness: str, pwned: Path) -> Path:
    """The harness's project settings file with commands that would create ``pwned``."""
    inject = [
        f"touch {pwned}; trail hook {harness}",
        f"trail hook {harness} $(touch {pwned})",
        f"trail hook {harness} `touch {pwned}`",
        f"touch {pwned} && {TRAIL} hook {harness}",
    ]
    if harness == "vibe":
        path = project / ".vibe" / "hooks.toml"
        tables = [
            f'# the user\'s note\r\n[[hooks]]\r\nname = "trail-pre-tool"\r\ntype = "pre_tool"\r\n'
            f"command = {json.dumps(inject[0])}\r\n",
            *(
                f'\n[[hooks]]  # mine\nname = "mine-{n}"\ntype = "post_tool"\n'
                f"command = {json.dumps(c)}\n"
                for n, c in enumerate(inject[1:])
            ),
            '\n[extra]\nnote = """\n# trail: end\nnot a table\n"""\n',
        ]
        text = "".join(tables)
    else:
        name = "trail-vscode.json" if harness == "vscode" else "trail.json"
        path = project / ".github" / "hooks" / name
        key = "command" if harness == "vscode" else "bash"
        events = ["PreToolUse", "Stop"] if harness == "vscode" else ["preToolUse", "agentStop"]
        hooks = {
            e: [{"type": "command", key: c, "cwd": "."} for c in inject[n::2]]
            for n, e in enumerate(events)
        }
        text = json.dumps({"version": 1, "hooks": hooks, "userKey": [1, {"a": None}]}, indent=2)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def trail(project: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [TRAIL, *args],
        capture_output=True,
        text=True,
        cwd=project,
        env={**os.environ, "TRAIL_HOME": str(home), "HOME": str(project / "home")},
        timeout=120,
        check=False,
    )
    assert "Traceback" not in done.stdout + done.stderr, done.stderr[-3000:]
    return done


def entries(path: Path, harness: str) -> object:
    if harness == "vibe":
        import tomllib

        return tomllib.loads(path.read_text())
    return json.loads(path.read_text())


@pytest.mark.parametrize("harness", HARNESSES)
def test_planted_commands_are_never_run_and_survive_install_and_uninstall(
    tmp_path: Path, trail_home: Path, harness: str
) -> None:
    project = tmp_path / "repo"
    (project / "home").mkdir(parents=True)
    pwned = tmp_path / "pwned"
    path = plant(project, harness, pwned)
    before_bytes, before = path.read_bytes(), entries(path, harness)
    doctor = trail(project, trail_home, "doctor", "--project-dir", str(project), "--json")
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    hook = checks[f"{harness}: project hook"]
    assert hook["status"] in ("warn", "FAIL") and "not run" in hook["detail"], hook
    scope = ("--scope", "project", "--project-dir", str(project))
    installed = trail(project, trail_home, "install", "--harness", harness, *scope)
    assert installed.returncode == 0, installed.stderr
    assert path.read_bytes() != before_bytes
    trail(project, trail_home, "doctor", "--project-dir", str(project))
    removed = trail(project, trail_home, "uninstall", "--harness", harness, *scope)
    assert removed.returncode == 0, removed.stderr
    assert not pwned.exists()
    assert entries(path, harness) == before  # the user's entries, all of them, as they were
    if harness == "vibe":
        assert path.read_bytes() == before_bytes  # edited as text: byte for byte
    backups = sorted(path.parent.glob(path.name + ".trail-backup-*"))
    assert len(backups) == 2
    assert backups[0].read_bytes() == before_bytes
    for backup in backups:
        assert stat.S_IMODE(backup.stat().st_mode) == 0o600


@pytest.mark.parametrize("harness", HARNESSES)
@pytest.mark.parametrize("linked", ["folder", "file"])
def test_a_settings_folder_or_file_linked_out_of_the_project_is_refused(
    tmp_path: Path, trail_home: Path, harness: str, linked: str
) -> None:
    project = tmp_path / "repo"
    (project / "home").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    if harness == "vibe":
        folder, name = project / ".vibe", "hooks.toml"
    else:
        folder = project / ".github" / "hooks"
        name = "trail-vscode.json" if harness == "vscode" else "trail.json"
    target = outside / name
    target.write_text("# theirs\n" if harness == "vibe" else "{}")
    if linked == "folder":
        folder.parent.mkdir(parents=True, exist_ok=True)
        folder.symlink_to(outside)
    else:
        folder.mkdir(parents=True)
        (folder / name).symlink_to(target)
    before = target.read_bytes()
    scope = ("--scope", "project", "--project-dir", str(project))
    for command in ("install", "uninstall"):
        done = trail(project, trail_home, command, "--harness", harness, *scope)
        assert done.returncode == 1 and "outside the project" in done.stderr, done.stderr
    assert target.read_bytes() == before
    assert sorted(p.name for p in outside.iterdir()) == [name]  # no backup, no temp file


@pytest.mark.parametrize("harness", HARNESSES)
@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "not-utf8"])
def test_a_settings_file_that_is_not_one_fails_cleanly(
    tmp_path: Path, trail_home: Path, harness: str, kind: str
) -> None:
    project = tmp_path / "repo"
    (project / "home").mkdir(parents=True)
    path = plant(project, harness, tmp_path / "pwned")
    path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")
    else:
        path.write_bytes(
            b'# \xff\xfe\n[[hooks]]\nname = "x\xff"\n' if harness == "vibe" else b'{"\xff": 1}'
        )
    scope = ("--scope", "project", "--project-dir", str(project))
    done = trail(project, trail_home, "install", "--harness", harness, *scope)
    assert done.returncode == 1 and done.stderr.strip(), done
    assert len(done.stderr.strip().splitlines()) == 1  # one clear line
    doctor = trail(project, trail_home, "doctor", "--project-dir", str(project), "--json")
    assert doctor.returncode == 1
