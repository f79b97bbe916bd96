"""Every list of harnesses agrees with the one table (trace_ingest.harnesses.table.HARNESSES).

Adding a harness adds files plus one line in each table; this test says which line is missing.
"""

from __future__ import annotations

import importlib

import click

from hooks import cli as hooks_cli
from hooks import entry
from hooks._protocols import Adapter, Registrar
from hooks.install import REGISTRARS
from trace_ingest.harnesses.table import HARNESSES, get
from trace_ingest.importers.table import IMPORTERS

# Harnesses whose adapter landed before their descriptor's hook capabilities and registrar
# (issue 11 is landing in steps). Each entry must still be missing, so the entry goes when the
# registrar arrives.
PENDING_REGISTRARS: set[str] = set()


def test_pending_registrars_are_still_pending() -> None:
    for harness in PENDING_REGISTRARS:
        assert harness in entry.ADAPTERS and harness not in REGISTRARS, harness


def _choices(command: click.Command, name: str) -> list[str]:
    param = next(p for p in command.params if p.name == name)
    assert isinstance(param.type, click.Choice)
    return list(param.type.choices)


def test_module_names_follow_the_harness_ids() -> None:
    for harness, module in HARNESSES.items():
        assert module == "trace_ingest.harnesses." + harness.replace("-", "_")


def test_adapters_are_the_harnesses_with_hooks() -> None:
    with_hooks = {h for h in HARNESSES if get(h).has_hooks}
    assert set(entry.ADAPTERS) - (PENDING_REGISTRARS - with_hooks) == with_hooks
    for harness, module_name in entry.ADAPTERS.items():
        module = importlib.import_module(module_name)
        assert isinstance(module, Adapter), module_name
        assert harness == module.HARNESS


def test_registrars_are_the_adapters() -> None:
    assert set(REGISTRARS) == set(entry.ADAPTERS) - PENDING_REGISTRARS
    for harness, registrar in REGISTRARS.items():
        assert isinstance(registrar, Registrar)
        assert registrar.harness == harness and registrar.descriptor is get(harness)
        assert registrar.adapter.__name__ == entry.ADAPTERS[harness]
        assert registrar.descriptor.settings, f"{harness}: no settings locations"


def test_registered_events_are_the_mapped_events() -> None:
    # What install registers is what the adapter maps, and nothing it cannot map
    # (house-review §1.3: 16 registered against 17 mapped, UserPromptExpansion never arrived).
    for harness, registrar in REGISTRARS.items():
        adapter = importlib.import_module(entry.ADAPTERS[harness])
        mapped = set(getattr(adapter, "EVENT_KINDS", registrar.descriptor.events))
        assert set(registrar.descriptor.hook_events) <= mapped, harness
    cc = get("claude-code")
    assert set(cc.hook_events) == set(cc.events)
    assert "UserPromptExpansion" in cc.hook_events


def test_importers_are_harnesses_with_that_source() -> None:
    assert set(IMPORTERS) <= set(HARNESSES)
    for harness, module_name in IMPORTERS.items():
        module = importlib.import_module(module_name)
        assert harness == module.HARNESS
        assert module.SOURCE in get(harness).capabilities, (harness, module.SOURCE)
        assert callable(module.import_paths) and module.HELP.strip()


def test_cli_choices_come_from_the_tables() -> None:
    assert _choices(hooks_cli.hook, "harness") == list(HARNESSES)
    assert _choices(hooks_cli.install, "harness") == list(REGISTRARS)
    assert _choices(hooks_cli.uninstall, "harness") == list(REGISTRARS)
    scopes = {s for r in REGISTRARS.values() for s in r.descriptor.scopes}
    assert set(_choices(hooks_cli.install, "scope")) == scopes


def test_import_subcommands_are_the_importers() -> None:
    from trace_ingest.cli_import import import_group

    ctx = click.Context(import_group)
    assert import_group.list_commands(ctx) == sorted(IMPORTERS)
    for name in IMPORTERS:
        assert import_group.get_command(ctx, name) is not None


def test_doctor_checks_every_harness(tmp_path: object) -> None:
    from telemetry import doctor

    report = doctor.Report()
    for descriptor in [get(h) for h in HARNESSES]:
        doctor._check_harness(descriptor, str(tmp_path), report)
    named = {c.name.split(":")[0] for c in report.checks}
    assert named == set(HARNESSES)
    not_wired = {c.name.split(":")[0] for c in report.checks if not c.applies}
    assert not_wired == {h for h in HARNESSES if not get(h).has_hooks or not get(h).settings}
