"""The rig's scenarios (issue 7 item 1): each is a prompt, a project and a fake-model script.

Add one by writing a :class:`~tests.harnesses.rig.Scenario` and listing it in ``SCENARIOS``;
docs/testing.md walks through it. Scripts use absolute paths inside the run's project, so every
run is independent of where the checkout lives.
"""

from __future__ import annotations

import secrets
import shlex
import string
from typing import Any

from tests.harnesses.rig import ALLOWED_TOOLS, RunContext, Scenario
from trace_ingest.harnesses.table import is_trail_command

ALL_TOOLS = ALLOWED_TOOLS + " Glob Grep NotebookEdit WebFetch"


def bash(command: str, description: str = "") -> dict[str, Any]:
    return {"name": "Bash", "input": {"command": command, "description": description or command}}


def read(path: str) -> dict[str, Any]:
    return {"name": "Read", "input": {"file_path": path}}


def _p(ctx: RunContext, rel: str) -> str:
    return str(ctx.paths.project / rel)


# -- parallel calls and a failing tool ---------------------------------------------------------

PARALLEL_AND_FAILURE = Scenario(
    name="parallel_and_failure",
    description="Read + Bash in one message; a failing Bash; a failing Read beside a Bash",
    prompt=lambda ctx: "Look around the project, then list a folder that does not exist.",
    script=lambda ctx: {
        "main": [
            [read(_p(ctx, "CLAUDE.md")), bash("echo parallel-ok")],
            [bash("ls /nonexistent-trail-rig")],
            [read(_p(ctx, "missing.txt")), bash("echo after-failure")],
        ]
    },
)

# -- read then edit ----------------------------------------------------------------------------

READ_EDIT = Scenario(
    name="read_edit",
    description="Read a file, Edit it, Write a new one, read the result",
    prompt=lambda ctx: "Fix the typo in notes.txt and write a summary file.",
    files=lambda ctx: {"notes.txt": "The quick brwn fox.\nSecond line.\n"},
    script=lambda ctx: {
        "main": [
            [read(_p(ctx, "notes.txt"))],
            [
                {
                    "name": "Edit",
                    "input": {
                        "file_path": _p(ctx, "notes.txt"),
                        "old_string": "brwn",
                        "new_string": "brown",
                    },
                }
            ],
            [
                {
                    "name": "Write",
                    "input": {"file_path": _p(ctx, "summary.txt"), "content": "Fixed a typo.\n"},
                }
            ],
            [bash(f"cat {shlex.quote(_p(ctx, 'notes.txt'))}")],
        ]
    },
)

# -- a secret in a command ---------------------------------------------------------------------


def _make_secret(ctx: RunContext) -> None:
    alphabet = string.ascii_letters + string.digits
    ctx.secret = "ghp_" + "".join(secrets.choice(alphabet) for _ in range(36))


SECRET_IN_COMMAND = Scenario(
    name="secret_in_command",
    description="A GitHub token (made at run time) in the prompt, a command and its output",
    prepare=_make_secret,
    prompt=lambda ctx: f"Check that the token {ctx.secret} is set for the deploy script.",
    script=lambda ctx: {
        "main": [
            [bash(f"export GITHUB_TOKEN={ctx.secret}; echo token=$GITHUB_TOKEN")],
            [bash(f"echo {ctx.secret} > {shlex.quote(_p(ctx, 'token.txt'))}")],
            [read(_p(ctx, "token.txt"))],
        ]
    },
)

# -- a background and a foreground subagent ----------------------------------------------------


def _agent(prompt: str, description: str, background: bool | None) -> dict[str, Any]:
    inp: dict[str, Any] = {
        "description": description,
        "prompt": prompt,
        "subagent_type": "general-purpose",
    }
    if background is not None:
        inp["run_in_background"] = background
    return {"name": "Agent", "input": inp}


SUBAGENTS = Scenario(
    name="subagents",
    description="An Agent left at its default (background in 2.1.328), then a foreground one",
    subagents=2,
    prompt=lambda ctx: "Ask two helpers to check the build.",
    script=lambda ctx: {
        "main": [
            [_agent("Background helper: check the build.", "background check", None)],
            [_agent("Foreground helper: check the tests.", "foreground check", False)],
            [bash("echo main-after-agents")],
        ],
        "child": [[bash("echo child-ok")]],
    },
)

# -- a skill load and InstructionsLoaded -------------------------------------------------------

SKILL_MD = """---
name: greet
description: Greet the user warmly by name.
---

Say hello to the user, then run `echo greeted`.
"""

SKILL_AND_GUIDE = Scenario(
    name="skill_and_guide",
    description="CLAUDE.md loaded at start (InstructionsLoaded); the greet skill loaded",
    expects_guide=True,
    expects_skill="greet",
    files=lambda ctx: {".claude/skills/greet/SKILL.md": SKILL_MD},
    prompt=lambda ctx: "Greet me.",
    script=lambda ctx: {
        "main": [
            [{"name": "Skill", "input": {"skill": "greet"}}],
            [bash("echo greeted")],
        ]
    },
)

# -- twenty sequential calls -------------------------------------------------------------------

TWENTY_SEQUENTIAL = Scenario(
    name="twenty_sequential",
    description="Twenty calls, one per message (Bash, with every fourth a Read)",
    prompt=lambda ctx: "Run the twenty checks one after another.",
    script=lambda ctx: {
        "main": [
            [read(_p(ctx, "CLAUDE.md")) if i % 4 == 3 else bash(f"echo step-{i}")]
            for i in range(20)
        ]
    },
)

# -- a run whose final Stop is lost ------------------------------------------------------------


def _delay_stop(settings: dict[str, Any], ctx: RunContext) -> None:
    """Make only the Stop handler slow: async hooks are killed when `claude -p` exits (§3.3).

    The handler first leaves a marker, so the check can tell "started and was killed" from
    "never started".
    """
    marker = shlex.quote(str(ctx.paths.root / "stop-hook-started"))
    changed = 0
    for group in settings["hooks"]["Stop"]:
        for handler in group["hooks"]:
            if is_trail_command(handler.get("command"), "claude-code"):
                handler["command"] = f"echo started >> {marker}; sleep 20; {handler['command']}"
                handler["async"] = True  # trail registers Stop in the foreground; not here
                changed += 1
    if changed != 1:
        raise AssertionError(f"expected one trail Stop handler, patched {changed}")
    ctx.values["stop_marker"] = str(ctx.paths.root / "stop-hook-started")


LOST_STOP = Scenario(
    name="lost_stop",
    description="The final Stop hook is killed at exit, so trail never receives it",
    stop_lost=True,
    patch_settings=_delay_stop,
    prompt=lambda ctx: "Run one check.",
    script=lambda ctx: {
        "main": [[bash("echo before-the-lost-stop")], [read(_p(ctx, "CLAUDE.md"))]]
    },
)

# -- exit right after the last tool: hooks still starting are killed ---------------------------

FAST_EXIT = Scenario(
    name="fast_exit",
    description="The model answers at once, so async hooks of the last calls die with claude",
    final_delay=0.0,
    hooks_complete=False,
    prompt=lambda ctx: "Run the quick checks.",
    script=lambda ctx: {
        "main": [
            [bash("echo one"), read(_p(ctx, "CLAUDE.md"))],
            [bash("echo two")],
            [bash("echo three"), bash("echo four")],
        ]
    },
)

# -- a permission refusal ----------------------------------------------------------------------


def _deny_rm(settings: dict[str, Any], ctx: RunContext) -> None:
    """A project deny rule, as a user writes it in .claude/settings.json."""
    settings.setdefault("permissions", {})["deny"] = ["Bash(rm:*)", "Write"]


PERMISSION_REFUSAL = Scenario(
    name="permission_refusal",
    description="A Bash a deny rule refuses; an Edit not in --allowedTools; Write denied whole",
    allowed_tools="Bash(echo:*) Read",
    patch_settings=_deny_rm,
    prompt=lambda ctx: "Clean up and fix the notes.",
    script=lambda ctx: {
        "main": [
            [bash(f"rm -f {shlex.quote(_p(ctx, 'CLAUDE.md'))}")],
            [
                {
                    "name": "Edit",
                    "input": {
                        "file_path": _p(ctx, "CLAUDE.md"),
                        "old_string": "Keep",
                        "new_string": "Kept",
                    },
                }
            ],
            [{"name": "Write", "input": {"file_path": _p(ctx, "new.txt"), "content": "x\n"}}],
            [bash("echo after-refusals")],
        ]
    },
)

# -- a failing Bash beside siblings, and a Bash past its timeout: nothing is cancelled ---------

FAILING_SIBLINGS = Scenario(
    name="failing_siblings",
    description="A failing Bash (exit 1) with Bash, Read and Edit siblings; a Bash timeout",
    prompt=lambda ctx: "Run the checks together, then the slow one.",
    files=lambda ctx: {"notes.txt": "draft\n"},
    script=lambda ctx: {
        "main": [
            [
                bash("exit 1"),
                bash("sleep 0.3; echo sibling-ran"),
                read(_p(ctx, "CLAUDE.md")),
                {
                    "name": "Edit",
                    "input": {
                        "file_path": _p(ctx, "notes.txt"),
                        "old_string": "draft",
                        "new_string": "final",
                    },
                },
            ],
            [
                {
                    "name": "Bash",
                    "input": {
                        "command": "sleep 3; echo late",
                        "description": "slow",
                        "timeout": 1000,
                    },
                }
            ],
        ]
    },
)

# -- the other file and search tools, a notebook, a fetch that cannot connect -----------------

UNICODE_PROMPT = "Créez « résumé ✓ » — 日本語のメモ, naïve café 🦊, then search: ÅÄÖ ∑ ≠ 🚀"
SPACED = "docs/my notes ü 🦊.txt"
NOTEBOOK = (
    '{"cells": [{"cell_type": "code", "execution_count": null, "id": "c1", "metadata": {}, '
    '"outputs": [], "source": ["print(1)"]}], "metadata": {}, "nbformat": 4, '
    '"nbformat_minor": 5}\n'
)


def _no_fetch_preflight(settings: dict[str, Any], ctx: RunContext) -> None:
    """WebFetch asks claude.ai whether a domain may be fetched unless this is set: the rig
    contacts nothing but 127.0.0.1 (the fetch goes to a closed port there)."""
    settings["skipWebFetchPreflight"] = True


TOOLS_TOUR = Scenario(
    name="tools_tour",
    description="Write a new file (spaces, unicode in its name) and Read it back; an Edit whose "
    "old_string is not there; Glob + Grep in one message; a notebook read and NotebookEdit; a "
    "WebFetch that cannot connect; a ~390 KB output, non-UTF-8 bytes, exit 1 with stderr; a "
    "call to a tool that does not exist; a unicode-heavy prompt",
    allowed_tools=ALL_TOOLS,
    patch_settings=_no_fetch_preflight,
    files=lambda ctx: {"nb.ipynb": NOTEBOOK, "notes.txt": "The quick brwn fox.\n"},
    # A rejected call fires no hook, so the fake's wait for every call's hooks never ends
    # early: keep it short (the hooks of the calls that ran take 0-0.1 s).
    final_delay=2.0,
    prompt=lambda ctx: UNICODE_PROMPT,
    script=lambda ctx: {
        "main": [
            [
                {
                    "name": "Write",
                    "input": {
                        "file_path": _p(ctx, SPACED),
                        "content": "Résumé ✓ 日本語 — café 🦊\n",
                    },
                }
            ],
            [read(_p(ctx, SPACED))],
            [
                {
                    "name": "Edit",
                    "input": {
                        "file_path": _p(ctx, SPACED),
                        "old_string": "not in the file",
                        "new_string": "x",
                    },
                }
            ],
            [
                {"name": "Glob", "input": {"pattern": "**/*.txt", "path": str(ctx.paths.project)}},
                {"name": "Grep", "input": {"pattern": "café|fox", "path": str(ctx.paths.project)}},
            ],
            [read(_p(ctx, "nb.ipynb"))],
            [
                {
                    "name": "NotebookEdit",
                    "input": {
                        "notebook_path": _p(ctx, "nb.ipynb"),
                        "cell_id": "c1",
                        "new_source": "print('edited ✓')",
                    },
                }
            ],
            [
                {
                    "name": "WebFetch",
                    "input": {"url": "http://127.0.0.1:9/nothing", "prompt": "Summarise it"},
                }
            ],
            [bash("seq 1 70000", "long output")],
            [bash(r"printf 'caf\xe9 \xff\xfe raw\n' | tee latin1.txt", "latin-1 bytes")],
            [read(_p(ctx, "latin1.txt"))],
            [bash("echo to-stdout; echo broken-thing >&2; exit 1", "fails with stderr")],
            [{"name": "frobnicate", "input": {"target": "everything"}}],
            [bash("echo after-unknown", "after")],
        ]
    },
)

# -- two turns: one session over two process runs (`claude --resume <id> -p`) ------------------

RESUMED = Scenario(
    name="resumed",
    description="a Read and a Bash, then `claude --resume <session> -p ...` adds a second turn "
    "with an Edit and a Bash: one session id over two process runs",
    files=lambda ctx: {"notes.txt": "The quick brwn fox.\nSecond line.\n"},
    prompt=lambda ctx: "Look at the notes.",
    resumed=lambda ctx: ["Now fix the typo you saw."],
    script=lambda ctx: {
        "main": [
            [read(_p(ctx, "notes.txt"))],
            [bash(f"wc -l {shlex.quote(_p(ctx, 'notes.txt'))}", "count")],
            {"text": "The notes have a typo.", "end_turn": True},
            [
                {
                    "name": "Edit",
                    "input": {
                        "file_path": _p(ctx, "notes.txt"),
                        "old_string": "brwn",
                        "new_string": "brown",
                    },
                }
            ],
            [bash(f"cat {shlex.quote(_p(ctx, 'notes.txt'))}", "show")],
        ]
    },
)

# -- a compaction: `/compact` typed in a resumed session --------------------------------------

COMPACTED = Scenario(
    name="compacted",
    description="a Read and a Bash, then `claude --resume <id> -p /compact`: the compactor's "
    "request gets a summary, PreCompact and PostCompact fire, the transcript marks the boundary",
    files=lambda ctx: {"notes.txt": "The quick brwn fox.\nSecond line.\n"},
    prompt=lambda ctx: "Look at the notes.",
    resumed=lambda ctx: ["/compact"],
    script=lambda ctx: {
        "main": [
            [read(_p(ctx, "notes.txt"))],
            [bash(f"wc -l {shlex.quote(_p(ctx, 'notes.txt'))}", "count")],
            {"text": "The notes have a typo.", "end_turn": True},
        ]
    },
)

SCENARIOS: dict[str, Scenario] = {
    s.name: s
    for s in (
        PARALLEL_AND_FAILURE,
        READ_EDIT,
        SECRET_IN_COMMAND,
        SUBAGENTS,
        SKILL_AND_GUIDE,
        TWENTY_SEQUENTIAL,
        LOST_STOP,
        FAST_EXIT,
        PERMISSION_REFUSAL,
        FAILING_SIBLINGS,
        TOOLS_TOUR,
        RESUMED,
        COMPACTED,
    )
}
