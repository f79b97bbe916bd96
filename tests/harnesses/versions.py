"""The one place that pins the real harness programs the rig runs (ARCHITECTURE "Fidelity").

Bump a version here and nowhere else; the installer puts each pin in its own cache folder, so
two pins never share an installation.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Pin:
    harness: str  # trail's harness id
    registry: str  # "npm" or "pypi"
    package: str
    version: str
    binary: str  # the program, relative to the installation folder

    @property
    def folder(self) -> str:
        return f"{self.harness}-{self.version}"

    @property
    def spec(self) -> str:
        return (
            f"{self.package}@{self.version}"
            if self.registry == "npm"
            else f"{self.package}=={self.version}"
        )


CLAUDE_CODE = Pin(
    "claude-code", "npm", "@anthropic-ai/claude-code", "2.1.328", "node_modules/.bin/claude"
)
# Driven offline like Claude Code (real-harnesses.md §1-2): tests/harnesses/test_copilot_cli.py
# and test_vibe.py.
COPILOT_CLI = Pin("copilot-cli", "npm", "@github/copilot", "1.0.102", "node_modules/.bin/copilot")
VIBE = Pin("vibe", "pypi", "mistral-vibe", "3.0.1", "venv/bin/vibe")

PINS: dict[str, Pin] = {p.harness: p for p in (CLAUDE_CODE, COPILOT_CLI, VIBE)}
