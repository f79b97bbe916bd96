"""The package arrows of ARCHITECTURE.md, checked over every module's imports (house-review §1.4).

hooks and telemetry stand on trace_ingest, scorers on telemetry and trace_ingest, the dashboard
on scorers, telemetry and trace_ingest; nothing
imports upward. Every import counts, at module level, inside a function or under
``TYPE_CHECKING``. Modules named as strings count too (``importlib.import_module("x")``,
``"module:attr"`` tables): only the CLI root (``trace_ingest/cli.py``, ``trace_ingest/entry.py``)
may name a package above trace_ingest that way, since its lazy group is what keeps the arrows
pointing one way.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tests.conftest import REPO

PACKAGES = ("trace_ingest", "hooks", "telemetry", "scorers", "dashboard")
MAY_IMPORT: dict[str, frozenset[str]] = {
    "trace_ingest": frozenset({"trace_ingest"}),
    "hooks": frozenset({"hooks", "trace_ingest"}),
    "telemetry": frozenset({"telemetry", "trace_ingest"}),
    "scorers": frozenset({"scorers", "telemetry", "trace_ingest"}),
    "dashboard": frozenset({"dashboard", "scorers", "telemetry", "trace_ingest"}),
}
# The CLI root names its subcommands' modules as strings (click's lazy group; ARCHITECTURE.md).
LAZY_ROOTS = frozenset({"trace_ingest/cli.py", "trace_ingest/entry.py"})


def modules() -> Iterator[tuple[str, str, ast.Module]]:
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            rel = path.relative_to(REPO).as_posix()
            yield package, rel, ast.parse(path.read_text(), rel)


def imported(tree: ast.Module) -> Iterator[tuple[int, str]]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.lineno, node.module


def named(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """String constants that name one of the packages' modules (``"scorers.cli:eval_group"``)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            head = node.value.split(":", 1)[0]
            top = head.split(".", 1)[0]
            if top in PACKAGES and _is_module(head):
                yield node.lineno, head


def _is_module(name: str) -> bool:
    """``name`` is a module of this repository (not, say, the host ``hooks.slack.com``)."""
    if "." not in name or not name.replace(".", "").replace("_", "").isalnum():
        return False
    where = REPO.joinpath(*name.split("."))
    return where.with_suffix(".py").is_file() or (where / "__init__.py").is_file()


def test_every_import_follows_the_arrows() -> None:
    wrong = [
        f"{rel}:{line}: {package} imports {name}"
        for package, rel, tree in modules()
        for line, name in imported(tree)
        if name.split(".")[0] in PACKAGES and name.split(".")[0] not in MAY_IMPORT[package]
    ]
    assert wrong == []


def test_only_the_cli_root_names_upward_modules_as_strings() -> None:
    wrong = [
        f"{rel}:{line}: {package} names {name}"
        for package, rel, tree in modules()
        if rel not in LAZY_ROOTS
        for line, name in named(tree)
        if name.split(".")[0] not in MAY_IMPORT[package]
    ]
    assert wrong == []


def test_the_check_sees_imports_and_names() -> None:
    # A guard that can fail: both readers find what they look for.
    tree = ast.parse(
        "import scorers.cli\n"
        "def f():\n    from telemetry import db\n"
        "X = {'eval': ('scorers.cli:eval_group', 'help')}\n"
        "URL = 'hooks.slack.com'\n"
    )
    assert [n for _, n in imported(tree)] == ["scorers.cli", "telemetry"]
    assert [n for _, n in named(tree)] == ["scorers.cli"]
