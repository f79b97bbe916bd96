"""The two shapes a harness's code in ``hooks/`` takes: a hot ``Adapter``, a cold ``Registrar``.

A harness is split by *hotness*, not by concern (house-review.md §5.1):

- ``hooks/<mod>.py`` is the **adapter**, a module run by the hook on every payload, so
  standard library only (tests/hooks/test_entry.py probes the imports). It is found through
  the string table ``hooks.entry.ADAPTERS`` (``"<id>": "hooks.<mod>"``) and imported by name.
  mypy checks each adapter module against ``Adapter`` through its registrar's ``adapter``
  attribute (a module is a valid implementation of a Protocol).
- ``hooks/registrars/<mod>.py`` is the **registrar**: ``trail install``, ``uninstall`` and what
  ``trail doctor`` reads. It exposes ``REGISTRAR``, an object satisfying ``Registrar``, listed
  in the typed table ``hooks.install.REGISTRARS``. Registrars share the backup and atomic
  write of ``hooks.install`` (``write_settings``) and the safe reader of
  ``trace_ingest.settings_io``.

Everything both halves and the rest of trail need to know (event and tool tables,
capabilities, settings locations, recognising trail's entries) is data in the harness's
descriptor, ``trace_ingest/harnesses/<mod>.py``: telemetry and scorers may read it, they may not
import ``hooks``.

This module is never imported on the hot path (it needs ``typing``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from hooks.install import Change
    from trace_ingest.events import Event
    from trace_ingest.harnesses.table import Harness


@runtime_checkable
class Adapter(Protocol):
    """A hook adapter module: one harness payload -> schema-v1 events.

    ``normalize`` never raises for a payload it does not understand: an unknown event becomes
    kind ``other`` with every field under ``extra``. ``received_at`` is when the hook process
    started (ISO UTC), ``digest`` a BLAKE2b of the payload bytes: together they make event ids
    deterministic (``trace_ingest.events.new_event(id_parts=(received_at, digest, n))``).
    """

    HARNESS: str

    def normalize(self, payload: dict[str, Any], received_at: str, digest: str) -> list[Event]:
        """The events one payload stands for (at least one)."""
        ...


@runtime_checkable
class Registrar(Protocol):
    """Registers ``trail hook <harness>`` in a harness's settings and removes exactly that.

    ``install`` is idempotent and keeps every other key, hook and setting; ``uninstall`` removes
    only entries in trail's exact form (``trace_ingest.settings_io.own_command``), never a
    user's own hook that merely mentions ``trail hook``. Both return the ``Change`` made and
    back up the old file first (``hooks.install.write_settings``). Settings files are untrusted:
    nothing in them is run.
    """

    harness: str
    descriptor: Harness
    adapter: Adapter

    def settings_path(self, scope: str, project_dir: str | None = None) -> str:
        """The file holding this harness's hooks for ``scope`` (the descriptor's location)."""
        ...

    def install(
        self, scope: str, project_dir: str | None = None, executable: str | None = None
    ) -> Change:
        """Add trail's handler for every event the descriptor lists in ``hook_events``."""
        ...

    def uninstall(self, scope: str, project_dir: str | None = None) -> Change:
        """Remove every handler in trail's exact form; nothing else changes."""
        ...

    def registered(self, scope: str, project_dir: str | None = None) -> dict[str, list[str]]:
        """Event name -> commands mentioning ``trail hook <harness>`` in ``scope``'s file."""
        ...
