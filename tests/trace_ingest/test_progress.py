"""The progress meter: silent off a terminal and for quick runs; files, events and rate on one
erased line otherwise."""

from __future__ import annotations

import io

from trace_ingest.progress import Progress


def test_silent_when_not_a_terminal() -> None:
    out = io.StringIO()  # isatty() is False, as for a pipe or a log
    p = Progress("sync", out)
    p.start -= 10
    p.update(3, 1000)
    p.done()
    assert out.getvalue() == ""


def test_quick_runs_print_nothing() -> None:
    out = io.StringIO()
    p = Progress("sync", out, force=True)
    p.update(3, 1000)  # within the first second
    p.done()
    assert out.getvalue() == ""


def test_long_runs_show_files_events_rate_and_erase_the_line() -> None:
    out = io.StringIO()
    p = Progress("import claude-code", out, force=True)
    p.start -= 10  # ten seconds in
    p.update(12, 50_000)
    line = out.getvalue()
    assert line.startswith("\r\x1b[K") and "import claude-code: 12 files, 50,000 events" in line
    rate = int(line.rsplit(", ", 1)[1].split()[0].replace(",", ""))
    assert 4_000 <= rate <= 5_000  # 50,000 events over ~10 s
    p.update(13, 50_001)  # within the redraw interval: not redrawn
    assert out.getvalue() == line
    p.done()
    assert out.getvalue().endswith("\r\x1b[K")
