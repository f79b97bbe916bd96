"""The docs stay true: the command reference matches the CLI, and every doc the README names
exists."""

from __future__ import annotations

import re

from tests.conftest import REPO
from tools.gen_cli_docs import DOC, render


def test_cli_reference_is_current() -> None:
    assert DOC.read_text() == render(), "docs/cli.md is stale: run `make docs`"


def test_docs_named_in_the_readme_exist() -> None:
    readme = (REPO / "README.md").read_text()
    named = set(re.findall(r"`(docs/[a-z_]+\.md)`", readme))
    assert {"docs/events.md", "docs/grading.md", "docs/scrubbing.md", "docs/cli.md"} <= named
    missing = [n for n in named if not (REPO / n).exists()]
    assert missing == []


def test_readme_opens_with_the_two_commands() -> None:
    lines = (REPO / "README.md").read_text().splitlines()
    block = lines[lines.index("```sh") + 1 : lines.index("```")]
    assert [line.split("#")[0].strip() for line in block] == ["make demo", "make test"]
