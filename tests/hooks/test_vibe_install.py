"""`trail install --harness vibe`: Vibe's hooks.toml, user (VIBE_HOME) or project scope, the
user's content kept, exactly trail's tables removed; `trail doctor` on folder trust."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

from tests.conftest import TRAIL
from trace_ingest.settings_io import direct_command, hook_script

USER_HOOKS = """\
# keep this comment
[[hooks]]
name = "guard"
type = "pre_tool"
match = "bash"
command = "uv run guard"   # the user's own
"""


def run(*args: str, home: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [TRAIL, *args],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "HOME": str(home), **env},
        timeout=120,
    )


def test_user_scope_is_the_default_and_honours_vibe_home(tmp_path: Path) -> None:
    vibe_home = tmp_path / "elsewhere"
    vibe_home.mkdir()
    (vibe_home / "hooks.toml").write_text(USER_HOOKS)
    done = run("install", "--harness", "vibe", "--json", home=tmp_path, VIBE_HOME=str(vibe_home))
    assert done.returncode == 0, done.stderr
    change = json.loads(done.stdout)
    assert change["path"] == str(vibe_home / "hooks.toml")
    assert change["added"] == ["pre_tool", "post_tool", "post_agent"] and change["backup"]
    text = (vibe_home / "hooks.toml").read_text()
    assert text.startswith(USER_HOOKS)
    hooks = tomllib.loads(text)["hooks"]
    assert [h["type"] for h in hooks] == ["pre_tool", "pre_tool", "post_tool", "post_agent"]
    assert {h["command"] for h in hooks[1:]} == {
        direct_command(sys.executable, hook_script(), "vibe")
    }
    assert all("match" not in h for h in hooks[1:])  # every tool
    assert not (tmp_path / ".vibe").exists()  # not ~/.vibe when VIBE_HOME says otherwise
    again = json.loads(
        run(
            "install", "--harness", "vibe", "--json", home=tmp_path, VIBE_HOME=str(vibe_home)
        ).stdout
    )
    assert again["added"] == [] and again["backup"] is None
    gone = run("uninstall", "--harness", "vibe", "--json", home=tmp_path, VIBE_HOME=str(vibe_home))
    assert sorted(json.loads(gone.stdout)["removed"]) == ["post_agent", "post_tool", "pre_tool"]
    assert (vibe_home / "hooks.toml").read_text() == USER_HOOKS


def test_project_scope_and_doctor_on_trust(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    env = {"VIBE_HOME": str(tmp_path / "vh")}
    done = run(
        "install",
        "--harness",
        "vibe",
        "--scope",
        "project",
        "--project-dir",
        str(project),
        home=tmp_path,
        **env,
    )
    assert done.returncode == 0, done.stderr
    assert "/hooks/run.py vibe" in (project / ".vibe" / "hooks.toml").read_text()
    doc = json.loads(
        run("doctor", "--project-dir", str(project), "--json", home=tmp_path, **env).stdout
    )
    checks = {c["name"]: c for c in doc["checks"]}
    assert checks["vibe: project hook"]["status"] == "ok", checks["vibe: project hook"]
    loads = checks["vibe: project hook loads"]
    assert loads["status"] == "warn" and "not trusted yet" in loads["detail"]
    # Trusted by Vibe (an ancestor counts): the warning goes.
    (tmp_path / "vh").mkdir()
    (tmp_path / "vh" / "trusted_folders.toml").write_text(
        f'trusted = ["{tmp_path}"]\nuntrusted = []\n'
    )
    doc = json.loads(
        run("doctor", "--project-dir", str(project), "--json", home=tmp_path, **env).stdout
    )
    assert "vibe: project hook loads" not in {c["name"] for c in doc["checks"]}
    (tmp_path / "vh" / "trusted_folders.toml").write_text(f'untrusted = ["{project}"]\n')
    doc = json.loads(
        run("doctor", "--project-dir", str(project), "--json", home=tmp_path, **env).stdout
    )
    loads = next(c for c in doc["checks"] if c["name"] == "vibe: project hook loads")
    assert "marked untrusted" in loads["detail"]


def test_an_inline_hooks_array_is_refused_unchanged(tmp_path: Path) -> None:
    vh = tmp_path / ".vibe"
    vh.mkdir()
    inline = 'hooks = [{name = "a", type = "pre_tool", command = "x"}]\n'
    (vh / "hooks.toml").write_text(inline)
    done = run("install", "--harness", "vibe", home=tmp_path)
    assert done.returncode == 1 and "not changed" in done.stderr
    assert (vh / "hooks.toml").read_text() == inline
    assert not list(vh.glob("hooks.toml.trail-backup-*"))
