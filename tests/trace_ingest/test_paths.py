"""trace_ingest.paths: folders made 0700 whatever the umask."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from trace_ingest.paths import DIR_MODE, open_subdir


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o277, 0o700, 0o000])
def test_a_new_subfolder_is_0700_whatever_the_umask(tmp_path: Path, umask: int) -> None:
    """``open_subdir`` sets the mode only when the umask took something from it (the usual
    022 does not: no fchmod then); either way the folder ends 0700."""
    parent = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    old = os.umask(umask)
    try:
        for fresh in (True, False):
            name = f"s-{fresh}"
            fd = open_subdir(parent, name, str(tmp_path / name), fresh=fresh)
            os.close(fd)
            assert stat.S_IMODE((tmp_path / name).stat().st_mode) == DIR_MODE == 0o700
    finally:
        os.umask(old)
        os.close(parent)
