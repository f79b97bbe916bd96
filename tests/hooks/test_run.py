"""hooks/run.py, the direct hook command `trail install` registers (`<python> -I -S run.py
<harness>`): same promises as `trail hook` (exit 0, nothing on stdout, the event recorded),
without the console script, `site` or anything from the agent's environment."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import read_trace_lines
from trace_ingest.settings_io import DIRECT_FLAGS, hook_script

PAYLOAD = {
    "session_id": "s-run",
    "cwd": "/work",
    "hook_event_name": "PreToolUse",
    "tool_name": "Read",
    "tool_input": {"file_path": "/work/cart.py"},
    "tool_use_id": "toolu_run_1",
}


def run_direct(
    extra: list[str] | None = None, env: dict[str, str] | None = None, script: str | None = None
) -> subprocess.CompletedProcess[bytes]:
    argv = [sys.executable, *(extra or []), *DIRECT_FLAGS, script or hook_script(), "claude-code"]
    return subprocess.run(
        argv, input=json.dumps(PAYLOAD).encode(), capture_output=True, env=env, check=False
    )


def test_records_silently_without_site_re_or_the_console_script(trail_home: Path) -> None:
    done = run_direct(["-X", "importtime"])
    assert (done.returncode, done.stdout) == (0, b"")
    [ev] = read_trace_lines(trail_home)
    assert (ev["kind"], ev["call_id"], ev["tool"]) == ("tool_call", "toolu_run_1", "read")
    imported = {
        line.rsplit("|", 1)[1].strip()
        for line in done.stderr.decode().splitlines()
        if line.startswith("import time:") and "|" in line
    }
    assert {"hooks.entry", "hooks.claude_code", "trace_ingest.scrub"} <= imported
    assert imported & {"site", "re", "typing", "json", "importlib", "warnings", "click"} == set()


def test_the_agents_pythonpath_cannot_replace_trails_code(tmp_path: Path, trail_home: Path) -> None:
    """-I: a `hooks` package on PYTHONPATH (say, in the project the agent works in) is not
    what runs."""
    evil = tmp_path / "evil" / "hooks"
    evil.mkdir(parents=True)
    marker = tmp_path / "ran"
    (evil / "__init__.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    (evil / "entry.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    env = {"PATH": "/usr/bin:/bin", "TRAIL_HOME": str(trail_home), "PYTHONPATH": str(evil.parent)}
    done = run_direct(env=env)
    assert (done.returncode, done.stdout) == (0, b"")
    assert not marker.exists()
    assert len(read_trace_lines(trail_home)) == 1


def test_a_broken_installation_still_exits_0_silently(tmp_path: Path, trail_home: Path) -> None:
    """run.py without trail's packages beside it (a half-removed installation)."""
    lonely = tmp_path / "site-packages" / "hooks"
    lonely.mkdir(parents=True)
    shutil.copy(hook_script(), lonely / "run.py")
    done = run_direct(script=str(lonely / "run.py"))
    assert (done.returncode, done.stdout) == (0, b"")
    assert read_trace_lines(trail_home) == []


# What the direct hook imports beyond a bare `python -I -S`, by harness: pinned, so a module
# creeping onto the hot path fails here, not only in bench/hook_latency.py. Each costs every
# tool call of every session (0.05-0.3 ms of CPU apiece; `os` ~0.9 ms, which trace_ingest._os
# replaces; `typing` or `re` several ms). A module added on purpose is added here, with why.
HOT_COMMON = {
    "gc",
    "__future__",
    "errno",
    "stat",
    "_stat",
    "_json",  # trace_ingest.fastjson: C-speed parsing
    "_blake2",  # event ids, fingerprints, the regex cache's MAC (not hashlib: OpenSSL)
    "_sre",  # trace_ingest._regex: cached regex programs, no `re`
    "hooks",
    "hooks.entry",
    "hooks.sender",
    "trace_ingest",
    "trace_ingest._blake",
    "trace_ingest._os",
    "trace_ingest._regex",
    "trace_ingest.capture",
    "trace_ingest.config",
    "trace_ingest.errors",
    "trace_ingest.events",
    "trace_ingest.fastjson",
    "trace_ingest.harnesses",
    "trace_ingest.harnesses.table",
    "trace_ingest.paths",
    "trace_ingest.scrub",
    "trace_ingest.scrub_rules",
    "trace_ingest.scrub_index",  # precomputed rule data: cheaper to load than to work out
    "trace_ingest.store",
}
HOT_BY_HARNESS = {
    "claude-code": {"hooks.claude_code", "trace_ingest.harnesses.claude_code"},
    "copilot-cli": {"hooks.copilot_cli", "trace_ingest.harnesses.copilot_cli"},
    "vibe": {
        "hooks.vibe",
        "trace_ingest.harnesses.vibe",
        "trace_ingest.tools",
        "trace_ingest.vibe_tools",
    },
    # binascii: VS Code's sessionId is a URI around a base64 id (trace_ingest.vscode_facts)
    "vscode": {
        "hooks.vscode",
        "trace_ingest.harnesses.vscode",
        "trace_ingest.vscode_facts",
        "binascii",
    },
}


def imported_by(argv: list[str], payload: bytes, env: dict[str, str]) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", *argv],
        input=payload,
        capture_output=True,
        env=env,
        check=False,
    )
    assert (done.returncode, done.stdout) == (0, b"")
    return {
        line.rsplit("|", 1)[1].strip()
        for line in done.stderr.decode().splitlines()
        if line.startswith("import time:") and "|" in line
    }


def test_each_harness_hook_imports_exactly_its_pinned_modules(trail_home: Path) -> None:
    """Each harness's own probe payload (``Harness.probe``, what ``trail doctor`` sends), on the
    second call (the first fills the regex cache): the module set is exactly the pinned one,
    and the same for every harness but its own adapter and descriptor."""
    from trace_ingest.harnesses.table import HARNESSES, get

    assert set(HOT_BY_HARNESS) == set(HARNESSES)
    env = {"PATH": "/usr/bin:/bin", "TRAIL_HOME": str(trail_home)}
    bare = imported_by([*DIRECT_FLAGS, "-c", "pass"], b"", env)
    for harness in HARNESSES:
        payload = json.dumps(get(harness).probe).encode()
        argv = [*DIRECT_FLAGS, hook_script(), harness]
        imported_by(argv, payload, env)
        loaded = imported_by(argv, payload, env) - bare
        assert loaded == HOT_COMMON | HOT_BY_HARNESS[harness], (
            harness,
            "new:",
            sorted(loaded - HOT_COMMON - HOT_BY_HARNESS[harness]),
            "gone:",
            sorted(HOT_COMMON | HOT_BY_HARNESS[harness] - loaded),
        )
    assert len(read_trace_lines(trail_home)) == 2 * len(HARNESSES)
