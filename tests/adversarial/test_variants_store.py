"""Variants of issue 8's store items that the first suite missed (real files, real hooks).

- `hook-errors.log` has a cap: past 1 MiB it is renamed to `hook-errors.log.1`. When `.1`
  could not be replaced (a folder there), the rotation failed and the log grew without
  bound, 242 bytes per bad payload. Now the log starts again instead (the newest entries are
  the ones `trail doctor` shows).
- `reconcile.json` (reconciliation's state, read by every sync and every read command) was
  opened with a plain `open()`: a FIFO there hung `trail sync`, `sessions`, `show` and
  `doctor` forever; `/dev/zero` behind a symlink read until memory ran out. It is now read
  only as a regular file of bounded size, non-blocking, never through a symlink.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.adversarial._hook import errors
from tests.conftest import TRAIL, run_hook
from trace_ingest.store import MAX_ERROR_LOG


def test_the_error_log_stays_bounded_when_it_cannot_rotate(trail_home: Path) -> None:
    assert run_hook(b"not json").returncode == 0
    log = trail_home / "hook-errors.log"
    (trail_home / "hook-errors.log.1").mkdir(mode=0o700)
    (trail_home / "hook-errors.log.1" / "keep").write_text("x")  # rename cannot replace it
    with log.open("a") as f:
        f.write('{"ts": "x", "stage": "pad", "error": "pad"}\n' * (MAX_ERROR_LOG // 44))
    for _ in range(5):
        done = run_hook(b"still not json")
        assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert log.stat().st_size <= MAX_ERROR_LOG
    assert any(e["stage"] == "parse" for e in errors(trail_home))  # the newest are there


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_reconcile_state_that_is_not_a_file_hangs_nothing(trail_home: Path, kind: str) -> None:
    payload = {"session_id": "s-rec", "hook_event_name": "Notification", "message": "hi"}
    assert run_hook(payload).returncode == 0
    state = trail_home / "reconcile.json"
    if kind == "fifo":
        os.mkfifo(state)
    else:
        state.symlink_to("/dev/zero")
    for args in (["sync"], ["sessions"], ["show", "s-rec"], ["doctor"]):
        done = subprocess.run([TRAIL, *args], capture_output=True, text=True, timeout=20)
        assert "Traceback" not in done.stderr, done.stderr
        assert args == ["doctor"] or done.returncode == 0, done.stderr
