"""Variants of issue 8's install items (10 and the low items) that the first suite missed.

Real project folders, real `trail install` / `trail uninstall` processes.

- A project whose `.claude/` folder itself is a symlink out of the project (a cloned
  repository pointing it at `/etc`, `~/.claude` or any other folder) made
  `trail install --scope project` write `settings.json` and a backup there: only a symlinked
  `settings.json` was checked.
- A settings file just under the read cap grew past it when install wrote it back (indented),
  so every later install, uninstall and doctor refused to read it.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.adversarial.test_install_settings import run, settings_file


def test_a_symlinked_claude_folder_out_of_the_project_is_refused(tmp_path: Path) -> None:
    project = tmp_path / "cloned"
    project.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (project / ".claude").symlink_to(elsewhere)
    for command in ("install", "uninstall"):
        done = run(command, "--project-dir", str(project), cwd=project)
        assert done.returncode == 1 and "outside the project" in done.stderr, done.stderr
    assert list(elsewhere.iterdir()) == []  # neither settings.json nor a backup
    # Pre-existing settings there are not touched either.
    (elsewhere / "settings.json").write_text('{"keep": true}')
    done = run("install", "--project-dir", str(project), cwd=project)
    assert done.returncode == 1
    assert [p.name for p in elsewhere.iterdir()] == ["settings.json"]
    assert json.loads((elsewhere / "settings.json").read_text()) == {"keep": True}


def test_a_symlinked_claude_folder_inside_the_project_is_written(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / "config" / "claude").mkdir(parents=True)
    (project / ".claude").symlink_to(project / "config" / "claude")
    done = run("install", "--project-dir", str(project), cwd=project)
    assert done.returncode == 0, done.stderr
    assert (project / "config" / "claude" / "settings.json").is_file()


def test_install_never_writes_a_settings_file_it_could_not_read_back(tmp_path: Path) -> None:
    path = settings_file(tmp_path)
    path.parent.mkdir(parents=True)
    group = '{"hooks":[{"type":"command","command":"x"}]}'
    n = (16 * 1024 * 1024 - 64) // (len(group) + 1)
    path.write_text('{"hooks":{"PreToolUse":[' + ",".join([group] * n) + "]}}")
    before = path.read_bytes()
    assert len(before) < 16 * 1024 * 1024
    done = run("install", "--project-dir", str(tmp_path), cwd=tmp_path)
    assert done.returncode == 1 and "more than a settings file can be" in done.stderr
    assert path.read_bytes() == before
    assert list(path.parent.glob("*trail-backup*")) == []
    again = run("uninstall", "--project-dir", str(tmp_path), cwd=tmp_path)
    assert again.returncode == 0, again.stderr
