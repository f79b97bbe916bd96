"""Write one benchmark's section into docs/benchmarks.md, leaving the other sections alone."""

from __future__ import annotations

import os
import platform
import re
import sys
import time
from pathlib import Path

DOC = Path(__file__).resolve().parent.parent / "docs" / "benchmarks.md"
HEADER = (
    "# Benchmarks\n\n"
    "Each section is written by the script it names; run it again to refresh the figures.\n"
    "Speeds are ratios against a baseline measured in the same run, because the machines are\n"
    "shared and noisy; absolute times are given for orientation only.\n"
)


def machine() -> str:
    return (
        f"{time.strftime('%Y-%m-%d')}, Python {platform.python_version()}, "
        f"{platform.machine()}, {sys.platform}"
    )


def load() -> str:
    """The 1-minute load average now, for a benchmark to print next to its figures."""
    try:
        return f"{os.getloadavg()[0]:.1f}"
    except OSError:  # pragma: no cover - not available on this system
        return "unknown"


def write_section(title: str, body: str) -> None:
    """Replace (or append) the ``## title`` section of docs/benchmarks.md."""
    DOC.parent.mkdir(exist_ok=True)
    text = DOC.read_text() if DOC.exists() else HEADER
    section = f"## {title}\n\n{body.strip()}\n"
    pattern = re.compile(rf"^## {re.escape(title)}\n.*?(?=^## |\Z)", re.S | re.M)
    if pattern.search(text):
        text = pattern.sub(lambda _: section + "\n", text).rstrip() + "\n"
    else:
        text = text.rstrip() + "\n\n" + section
    DOC.write_text(text)


def publish(title: str, lines: list[str], to_doc: bool = True) -> None:
    """Print a benchmark's section and (unless ``to_doc`` is false) write it into the doc."""
    body = "\n".join(lines)
    print(body)
    if to_doc:
        write_section(title, body)
