"""`trail install --transport http`: http handlers for `trail collect`, and back again."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from hooks import install as installer
from tests.conftest import TRAIL
from tests.hooks.test_collector import Running
from tests.hooks.test_install import USER_SETTINGS, settings_file, write_settings
from trace_ingest.harnesses.claude_code import DESCRIPTOR


def handlers(path: Path) -> dict[str, list[dict[str, object]]]:
    data = json.loads(path.read_text())
    return {e: [h for g in groups for h in g["hooks"]] for e, groups in data["hooks"].items()}


def test_http_transport_posts_every_event_but_session_start_to_the_collector(
    tmp_path: Path,
) -> None:
    path = write_settings(tmp_path, USER_SETTINGS)
    change = installer.install("claude-code", "project", str(tmp_path), transport="http", port=9911)
    assert set(change.added) == set(DESCRIPTOR.hook_events)
    found = handlers(path)
    url = "http://127.0.0.1:9911/trail/hook/claude-code"
    for event in DESCRIPTOR.hook_events:
        ours = [h for h in found[event] if h.get("url") == url or "run.py" in str(h.get("command"))]
        if event == "SessionStart":  # Claude Code runs no http hook for it
            assert [h["type"] for h in ours] == ["command"]
        else:
            assert ours == [{"type": "http", "url": url, "timeout": 1, "onFailure": "continue"}]
    data = json.loads(path.read_text())
    assert data["model"] == "opus"
    assert data["hooks"]["PreToolUse"][0] == USER_SETTINGS["hooks"]["PreToolUse"][0]
    again = installer.install("claude-code", "project", str(tmp_path), transport="http", port=9911)
    assert again.added == again.updated == [] and again.backup is None


def test_switching_transport_replaces_trails_handlers_and_uninstall_removes_both(
    tmp_path: Path,
) -> None:
    path = write_settings(tmp_path, USER_SETTINGS)
    installer.install("claude-code", "project", str(tmp_path))
    moved = installer.install("claude-code", "project", str(tmp_path), transport="http", port=9912)
    assert set(moved.updated) == set(DESCRIPTOR.hook_events) - {"SessionStart"}
    assert moved.added == []
    back = installer.install("claude-code", "project", str(tmp_path))
    assert set(back.updated) == set(DESCRIPTOR.hook_events) - {"SessionStart"}
    assert all(h.get("type") == "command" for hs in handlers(path).values() for h in hs)
    installer.install("claude-code", "project", str(tmp_path), transport="http", port=9912)
    gone = installer.uninstall("claude-code", "project", str(tmp_path))
    assert set(gone.removed) == set(DESCRIPTOR.hook_events)
    assert json.loads(path.read_text()) == USER_SETTINGS


def test_a_users_own_http_hook_is_never_taken_for_trails(tmp_path: Path) -> None:
    own = {"type": "http", "url": "http://127.0.0.1:9913/trail/hook/claude-code/extra"}
    other = {"type": "http", "url": "http://localhost:9913/trail/hook/claude-code"}
    path = write_settings(tmp_path, {"hooks": {"PostToolUse": [{"hooks": [own, other]}]}})
    installer.install("claude-code", "project", str(tmp_path), transport="http", port=9913)
    installer.uninstall("claude-code", "project", str(tmp_path))
    assert handlers(path) == {"PostToolUse": [own, other]}


def test_the_cli_refuses_http_where_it_does_not_apply(tmp_path: Path) -> None:
    env = {**os.environ, "HOME": str(tmp_path)}

    def install(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [TRAIL, "install", *args], cwd=tmp_path, env=env, capture_output=True, text=True
        )

    vibe = install("--harness", "vibe", "--transport", "http")
    assert vibe.returncode == 1 and "claude-code only" in vibe.stderr
    port = install("--port", "9000")
    assert port.returncode == 2 and "--transport http only" in port.stderr
    assert not settings_file(tmp_path).exists()


def test_doctor_says_whether_the_collector_answers(tmp_path: Path, trail_home: Path) -> None:
    running = Running(trail_home)
    try:
        env = {**os.environ, "TRAIL_HOME": str(trail_home), "HOME": str(tmp_path)}
        subprocess.run(
            [TRAIL, "install", "--transport", "http", "--port", str(running.port)],
            cwd=tmp_path,
            env=env,
            check=True,
            capture_output=True,
        )

        def collector_check() -> dict[str, object]:
            done = subprocess.run(
                [TRAIL, "doctor", "--json"],
                cwd=tmp_path,
                env=env,
                capture_output=True,
                text=True,
                check=False,
            )
            checks = json.loads(done.stdout)["checks"]
            (check,) = [c for c in checks if c["name"] == "claude-code: project collector"]
            (vscode,) = [c for c in checks if c["name"] == "vscode: hook"]
            return {**check, "exit": done.returncode, "vscode": vscode["detail"]}

        up = collector_check()
        assert up["ok"] is True and "trail collect answers" in str(up["detail"])
        # VS Code runs .claude/settings.json's command hooks only: not "recorded through" it.
        assert "recorded through" not in str(up["vscode"])
        assert running.stop()[0] == 0
        down = collector_check()
        assert down["ok"] is False and down["exit"] == 1
        assert f"trail collect --port {running.port}" in str(down["detail"])
    finally:
        running.proc.kill()


SQUATTER = (
    "import http.server, sys\n"
    "class H(http.server.BaseHTTPRequestHandler):\n"
    "    def do_GET(self):\n"
    "        self.send_response(200)\n"
    "        self.send_header('Content-Length', '16')\n"
    "        self.end_headers()\n"
    "        self.wfile.write(b'trail collector\\n')\n"
    "    def log_message(self, *a):\n"
    "        pass\n"
    "s = http.server.HTTPServer(('127.0.0.1', 0), H)\n"
    "print(s.server_address[1], flush=True)\n"
    "s.serve_forever()\n"
)


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to listen as another user")
def test_doctor_fails_when_another_user_listens_on_the_collectors_port(
    tmp_path: Path, trail_home: Path
) -> None:
    """Another local user can bind the port while no collector runs and answer the health
    check as trail's does: Claude Code would then post every raw payload to them. Doctor
    looks the listener's owner up (/proc/net/tcp) and sends it nothing."""
    squatter = subprocess.Popen(
        ["/usr/bin/env", "python3", "-I", "-c", SQUATTER],
        stdout=subprocess.PIPE,
        user=65534,
        cwd="/",
    )
    try:
        assert squatter.stdout is not None
        port = int(squatter.stdout.readline())
        env = {**os.environ, "TRAIL_HOME": str(trail_home), "HOME": str(tmp_path)}
        subprocess.run(
            [TRAIL, "install", "--transport", "http", "--port", str(port)],
            cwd=tmp_path,
            env=env,
            check=True,
            capture_output=True,
        )
        done = subprocess.run(
            [TRAIL, "doctor", "--json"], cwd=tmp_path, env=env, capture_output=True, text=True
        )
        checks = json.loads(done.stdout)["checks"]
        (check,) = [c for c in checks if c["name"] == "claude-code: project collector"]
        assert check["ok"] is False and done.returncode == 1
        assert "listened on by another user (uid 65534)" in check["detail"]
    finally:
        squatter.kill()
        squatter.wait()
