"""Issue 8, item 1 and low items: `trail doctor` never executes anything from a settings file.

A cloned repository's `.claude/settings.json` is written by whoever wrote the repository.
doctor parses each registered command, resolves its executable and runs only this very trail
installation itself, with a fixed argv, no shell, into a scratch data dir.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from tests.adversarial._mirror import no_traceback, trail
from tests.conftest import TRAIL

TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def settings(project: Path, *commands: str) -> Path:
    path = project / ".claude" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    hooks = [{"type": "command", "command": c} for c in commands]
    path.write_text(json.dumps({"hooks": {"PreToolUse": [{"hooks": hooks}]}}))
    return path


def _doctor(project: Path, home: Path, env: dict[str, str]) -> tuple[int, dict[str, object], str]:
    import subprocess

    done = subprocess.run(
        [TRAIL, "doctor", "--project-dir", str(project), "--json"],
        capture_output=True,
        text=True,
        cwd=project,
        env={**os.environ, "TRAIL_HOME": str(home), "HOME": str(project / "home"), **env},
        timeout=120,
        check=False,
    )
    no_traceback(done)
    return done.returncode, json.loads(done.stdout), done.stdout + done.stderr


def hook_check(report: dict[str, object]) -> dict[str, object]:
    checks = report["checks"]
    assert isinstance(checks, list)
    return next(c for c in checks if c["name"] == "claude-code: project hook")


@pytest.mark.parametrize(
    "command",
    [
        "id > {pwned}; trail hook claude-code",
        "trail hook claude-code; id > {pwned}",
        "touch {pwned} && trail hook claude-code",
        "trail hook claude-code $(touch {pwned})",
        "trail hook claude-code `touch {pwned}`",
        "sh -c 'touch {pwned}' trail hook claude-code",
        "TRAIL_X=$(touch {pwned}) trail hook claude-code",
        "trail hook claude-code | tee {pwned}",
    ],
)
def test_doctor_never_runs_a_command_from_settings(
    tmp_path: Path, trail_home: Path, command: str
) -> None:
    pwned = tmp_path / "pwned"
    settings(tmp_path, command.format(pwned=pwned))
    _, report, _ = _doctor(tmp_path, trail_home, {})
    assert not pwned.exists()
    check = hook_check(report)
    assert check["status"] in ("warn", "FAIL") and "not run" in str(check["detail"])


def evil_trail(folder: Path, pwned: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "trail"
    script.write_text(f"#!/bin/sh\ntouch {pwned}\n")
    script.chmod(0o755)
    return script


def test_a_repo_shipped_trail_executable_is_not_run(tmp_path: Path, trail_home: Path) -> None:
    pwned = tmp_path / "pwned"
    script = evil_trail(tmp_path / "bin", pwned)
    settings(tmp_path, f"{script} hook claude-code", "./bin/trail hook claude-code")
    _, report, _ = _doctor(tmp_path, trail_home, {})
    assert not pwned.exists()
    assert "is not this trail installation" in str(hook_check(report)["detail"])


def test_a_trail_planted_first_on_path_is_not_run(tmp_path: Path, trail_home: Path) -> None:
    pwned = tmp_path / "pwned"
    script = evil_trail(tmp_path / "bin", pwned)
    settings(tmp_path, "trail hook claude-code")
    _, report, _ = _doctor(tmp_path, trail_home, {"PATH": f"{script.parent}:{os.environ['PATH']}"})
    assert not pwned.exists()
    assert hook_check(report)["status"] == "warn"


def test_this_trail_is_probed_without_touching_the_data_dir(
    tmp_path: Path, trail_home: Path
) -> None:
    settings(tmp_path, f"{TRAIL} hook claude-code")
    _, report, _ = _doctor(tmp_path, trail_home, {"TRAIL_DISABLE": "1"})
    check = hook_check(report)
    assert check["status"] == "ok", check
    assert "probe recorded" in str(check["detail"])
    assert not list(trail_home.glob("sessions/*/*/trace.jsonl"))  # the probe went elsewhere


def test_doctor_never_prints_a_token_from_a_hook_command(tmp_path: Path, trail_home: Path) -> None:
    settings(
        tmp_path,
        f"GITHUB_TOKEN={TOKEN} {TRAIL} hook claude-code",
        f"trail hook claude-code --token {TOKEN}",
    )
    _, _, out = _doctor(tmp_path, trail_home, {})
    assert TOKEN not in out and TOKEN[4:20] not in out
    plain = trail("doctor", "--project-dir", str(tmp_path), home=trail_home)
    assert TOKEN[4:20] not in plain.stdout + plain.stderr


@pytest.mark.parametrize("kind", ["dev-zero", "fifo", "huge"])
def test_doctor_fails_cleanly_on_a_settings_file_that_is_not_one(
    tmp_path: Path, trail_home: Path, kind: str
) -> None:
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    if kind == "dev-zero":
        path.symlink_to("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        with path.open("wb") as fh:
            fh.truncate(17 * 1024 * 1024)
    code, report, _ = _doctor(tmp_path, trail_home, {})
    assert code == 1
    checks = report["checks"]
    assert isinstance(checks, list)
    [bad] = [c for c in checks if c["name"] == "claude-code: project settings"]
    assert "not a regular file" in bad["detail"] or "bytes" in bad["detail"]
    assert stat.S_ISFIFO(os.lstat(path).st_mode) or kind != "fifo"
