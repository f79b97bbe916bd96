"""The hook command ``trail install`` registers: ``<python> -I -S <this file> <harness>``.

It does what ``trail hook <harness>`` does (``hooks.entry.main``) for less: the console script
imports ``re`` (pip's script template), and ``site`` processes every ``.pth`` file of the
environment, before trail's code runs; on a 2-core machine that is about half the CPU a hook
call costs, paid on every tool call while the agent competes for the same cores
(docs/benchmarks.md, "Agent wall time").

- ``-S``: no ``site``. The hook needs only the standard library and trail's own packages, so
  the folder this package sits in (site-packages, or a checkout) is put on ``sys.path`` here.
- ``-I``: isolated mode: ``PYTHON*`` variables, the user site and the current folder cannot
  change which code the hook runs (the agent's environment is not trail's).

The receipt time is taken first, as ``trace_ingest.entry`` does. Whatever happens: exit 0,
nothing on stdout (``hooks.entry.main``'s promise; an import failure of a broken installation
is swallowed here too).

The process ends with ``posix._exit(0)``, skipping the interpreter's teardown (freeing every
module and object one by one: ~1 ms of CPU per call, measured in bench/hook_latency.py, more
than the hook's own work on a small payload). Nothing is lost by it: the hook writes with
``os.write`` on descriptors it closes itself (trace_ingest/store.py), keeps nothing buffered
and registers no ``atexit`` handler; the standard streams are flushed first all the same.
"""

import time

STARTED_NS = time.time_ns()

import gc  # noqa: E402 - after the stamp, deliberately
import sys  # noqa: E402

# A hook process lives for milliseconds and builds no reference cycles worth collecting (a
# payload parses into a tree, freed by reference counting): the collector's passes while the
# hook's modules load are pure cost (~0.5 ms a call, measured in bench/hook_latency.py).
gc.disable()


def main() -> int:
    try:
        package = __file__.rpartition("/")[0] or "."
        sys.path.insert(0, package.rpartition("/")[0] or "/")
        entry = __import__("hooks.entry", fromlist=["main"])
        entry.main(sys.argv[1:], started_ns=STARTED_NS)
    except BaseException:
        pass
    return 0


def _exit() -> None:
    """Exit 0 now, without the interpreter's teardown (see the module docstring)."""
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except BaseException:
        pass
    try:
        import posix
    except ImportError:  # pragma: no cover - not a POSIX system: the ordinary exit
        return
    posix._exit(0)


if __name__ == "__main__":
    main()
    _exit()
    sys.exit(0)
