"""The installer finds a Python new enough for a PyPI pin, or says exactly what to install."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.harnesses import install
from tests.harnesses.versions import VIBE


def _fake_python(folder: Path, name: str, version: str) -> Path:
    path = folder / name
    path.write_text(f"#!/bin/sh\necho {version}\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def bare(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A PATH and a pyenv root holding only what the test puts there."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path / "pyenv"))
    monkeypatch.delenv("TRAIL_HARNESS_PYTHON", raising=False)
    return bin_dir


def test_a_python_too_old_is_not_taken(bare: Path) -> None:
    _fake_python(bare, "python3.12", "3 11")  # a misnamed 3.11
    _fake_python(bare, "python3", "3 11")
    assert install.find_python((3, 12)) is None


def test_a_pyenv_shim_that_fails_is_skipped(bare: Path) -> None:
    shim = bare / "python3.13"
    shim.write_text("#!/bin/sh\necho 'pyenv: python3.13: command not found' >&2\nexit 127\n")
    shim.chmod(0o755)
    good = _fake_python(bare, "python3.12", "3 12")
    assert install.find_python((3, 12)) == str(good)


def test_pyenv_versions_newest_first(bare: Path, tmp_path: Path) -> None:
    for version, says in (("3.9.18", "3 9"), ("3.12.1", "3 12"), ("3.13.0", "3 13")):
        folder = tmp_path / "pyenv" / "versions" / version / "bin"
        folder.mkdir(parents=True)
        _fake_python(folder, "python3", says)
    found = install.find_python((3, 12))
    assert found is not None and "/3.13.0/" in found


def test_explicit_python_comes_first(
    bare: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_python(bare, "python3.13", "3 13")
    mine = _fake_python(tmp_path, "mypython", "3 12")
    monkeypatch.setenv("TRAIL_HARNESS_PYTHON", str(mine))
    assert install.find_python((3, 12)) == str(mine)


def test_no_python_fails_loudly_with_what_to_install(
    bare: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRAIL_HARNESS_CACHE", str(tmp_path / "cache"))
    with pytest.raises(install.HarnessUnavailable) as raised:
        install.ensure("vibe")
    message = str(raised.value)
    assert "Python >= 3.12" in message and "apt-get install" in message
    assert VIBE.version in message
    assert not (tmp_path / "cache" / VIBE.folder).exists()  # nothing half-made is left
