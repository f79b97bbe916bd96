"""Variants of issue 8's full-disk items that the first suite missed (real small tmpfs disks,
mounted by the test and always unmounted; skipped where mounting is not permitted).

- The very first hook call on a full disk lost its events with no record: `lost-events`
  could not be allocated, and the 0-byte file it left behind was never allocated afterwards,
  so every later loss on a full disk went unrecorded as well. Now an empty `lost-events` is a
  marker (its mtime: the last loss); doctor reports it, and the next hook call that can write
  logs it and allocates the record.
- `trail install` on a full disk left a partial backup next to the untouched settings file.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests.adversarial._hook import errors, fill, run_raw, small_disk
from tests.conftest import TRAIL

PAYLOAD = json.dumps(
    {"session_id": "s-full", "hook_event_name": "PreToolUse", "tool_name": "Bash",
     "tool_input": {"command": "ls"}}
).encode()  # fmt: skip


def test_the_first_call_on_a_full_disk_leaves_a_record(tmp_path: Path) -> None:
    with small_disk(tmp_path / "disk", "4m") as disk:  # room for doctor's trail.db
        filler = fill(disk)
        home = disk / "home"
        env = {"TRAIL_HOME": str(home)}
        for _ in range(3):
            done = run_raw([TRAIL, "hook", "claude-code"], PAYLOAD, env=env)
            assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
        assert not list(home.glob("sessions/*/*/trace.jsonl")) or not any(
            p.read_bytes() for p in home.glob("sessions/*/*/trace.jsonl")
        )
        filler.unlink()
        doctor = subprocess.run(
            [TRAIL, "doctor"], capture_output=True, text=True, env={**os.environ, **env},
            timeout=60, check=False,
        )  # fmt: skip
        assert "Traceback" not in doctor.stderr
        assert "an unknown number of event(s) could not be written" in doctor.stdout
        done = run_raw([TRAIL, "hook", "claude-code"], PAYLOAD, env=env)
        assert done.returncode == 0
        lost = [e for e in errors(home) if e["stage"] == "lost"]
        assert len(lost) == 1 and "unknown number" in str(lost[0]["error"])
        assert (home / "lost-events").stat().st_size == 160  # allocated now
        # A second fill: the record is allocated, so this loss is counted.
        filler = fill(disk)
        done = run_raw(
            [TRAIL, "hook", "claude-code"],
            PAYLOAD.replace(b'"ls"', b'"' + b"x" * 60_000 + b'"'),
            env=env,
        )
        assert done.returncode == 0
        assert (home / "lost-events").read_bytes().startswith(b"1 ")
        filler.unlink()


def test_install_on_a_full_disk_leaves_no_partial_backup(tmp_path: Path) -> None:
    with small_disk(tmp_path / "disk") as disk:
        project = disk / "proj"
        (project / ".claude").mkdir(parents=True)
        path = project / ".claude" / "settings.json"
        path.write_text(json.dumps({"model": "opus", "pad": "p" * 60_000}))
        before = path.read_bytes()
        filler = fill(disk)
        done = subprocess.run(
            [TRAIL, "install", "--project-dir", str(project)], capture_output=True, text=True,
            cwd=project, timeout=60, check=False,
        )  # fmt: skip
        assert done.returncode == 1 and "Traceback" not in done.stderr
        assert "No space left" in done.stderr
        assert path.read_bytes() == before
        assert sorted(p.name for p in path.parent.iterdir()) == ["settings.json"]
        filler.unlink()
