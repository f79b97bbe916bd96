"""The Vibe rig's scenarios: a prompt, a project and a fake-model script each (tool calls use
Vibe 3.0.1's model-facing names and arguments: real-harnesses.md §1.1)."""

from __future__ import annotations

import secrets
import shlex
import string
from typing import Any

from tests.harnesses.rig import RunContext, Scenario

NOTES = "The quick brwn fox.\nSecond line.\n"


def bash(command: str) -> dict[str, Any]:
    return {"name": "bash", "input": {"command": command}}


def read(path: str) -> dict[str, Any]:
    return {"name": "read_file", "input": {"path": path}}


def _p(ctx: RunContext, rel: str) -> str:
    return str(ctx.paths.project / rel)


def _notes(ctx: RunContext) -> dict[str, str]:
    return {"notes.txt": NOTES}


READ_SHELL_FAILURE = Scenario(
    name="read_shell_failure",
    description="A read; a shell command that exits 2 (Vibe: success); a read of a missing file",
    files=_notes,
    prompt=lambda ctx: "Look at the notes, run the check, then open the missing file.",
    script=lambda ctx: {
        "main": [
            [read(_p(ctx, "notes.txt"))],
            [bash("echo checking; exit 2")],
            [read(_p(ctx, "missing.txt"))],
        ]
    },
)

READ_EDIT = Scenario(
    name="read_edit",
    description="Read a file, edit it, write a new one, show the result",
    files=_notes,
    prompt=lambda ctx: "Fix the typo in notes.txt and write a summary file.",
    script=lambda ctx: {
        "main": [
            [read(_p(ctx, "notes.txt"))],
            [
                {
                    "name": "edit",
                    "input": {
                        "file_path": _p(ctx, "notes.txt"),
                        "old_string": "brwn",
                        "new_string": "brown",
                    },
                }
            ],
            [
                {
                    "name": "write_file",
                    "input": {"path": _p(ctx, "summary.txt"), "content": "Fixed a typo.\n"},
                }
            ],
            [bash(f"cat {shlex.quote(_p(ctx, 'notes.txt'))}")],
        ]
    },
)


def _make_secret(ctx: RunContext) -> None:
    alphabet = string.ascii_letters + string.digits
    ctx.secret = "ghp_" + "".join(secrets.choice(alphabet) for _ in range(36))


SECRET = Scenario(
    name="secret",
    description="A GitHub token made at run time in the prompt, a command, a file and a read",
    prepare=_make_secret,
    prompt=lambda ctx: f"Check that the token {ctx.secret} is set for the deploy script.",
    script=lambda ctx: {
        "main": [
            [bash(f"export GITHUB_TOKEN={ctx.secret}; echo token=$GITHUB_TOKEN")],
            [
                {
                    "name": "write_file",
                    "input": {"path": _p(ctx, "token.txt"), "content": ctx.secret + "\n"},
                }
            ],
            [read(_p(ctx, "token.txt"))],
        ]
    },
)

PARALLEL = Scenario(
    name="parallel",
    description="Two parallel calls (a read and a shell), then two parallel shells",
    files=_notes,
    prompt=lambda ctx: "Look around the project.",
    script=lambda ctx: {
        "main": [
            [read(_p(ctx, "notes.txt")), bash("echo parallel-ok")],
            [bash("sleep 0.2; echo slow"), bash("echo fast")],
        ]
    },
)

_SPAWN = (
    "async function main() {\n"
    "  return await tools.agents.spawn({name: 'helper', message: 'Helper: check the build.'});\n"
    "}"
)

SUBAGENT = Scenario(
    name="subagent",
    description="A subagent spawned from run_typescript (its calls fire no hook: a failing "
    "read beside a read, a shell exiting 2), then a wait",
    subagents=1,
    files=_notes,
    prompt=lambda ctx: "Ask a helper to check the build.",
    script=lambda ctx: {
        "main": [
            [{"name": "run_typescript", "input": {"code": _SPAWN}}],
            [{"name": "wait", "input": {"timeout_ms": 1000}}],
            [bash("echo main-after-helper")],
        ],
        # The child's tools fire no hook: the importer fills them in, failures included.
        "child": [
            [read(_p(ctx, "missing.txt")), read(_p(ctx, "notes.txt"))],
            [bash("echo child-ok; exit 2")],
        ],
    },
)


def _program(ctx: RunContext) -> str:
    notes = _p(ctx, "notes.txt")
    return (
        "async function main() {\n"
        "  const a = await tools.file_system.bash({command: 'echo inside'});\n"
        f"  const b = await tools.file_system.read_file({{path: '{notes}'}});\n"
        "  return [a, b];\n"
        "}"
    )


TYPESCRIPT = Scenario(
    name="typescript",
    description="Two tool calls made inside one run_typescript (hooks fire for them, not for it)",
    files=_notes,
    prompt=lambda ctx: "Inspect the project with a small program.",
    script=lambda ctx: {
        "main": [[{"name": "run_typescript", "input": {"code": _program(ctx)}}]],
    },
)

GUIDES = Scenario(
    name="guides",
    description="AGENTS.md at the root (in the system prompt) and in a subfolder (added to the "
    "output of the first read below it)",
    expects_guide=True,
    files=lambda ctx: {
        "AGENTS.md": "# Project rules\n\nRun the tests before you finish.\n",
        "sub/AGENTS.md": "# Sub rules\n\nNever edit generated files.\n",
        "sub/file.txt": "generated\n",
    },
    prompt=lambda ctx: "Read the file in sub.",
    script=lambda ctx: {"main": [[read(_p(ctx, "sub/file.txt"))], [bash("echo done")]]},
)


def _deny_rm(ctx: RunContext) -> None:
    """The user's own hook, listed before trail's: it denies every bash call with ``rm``
    (Vibe then skips the later pre_tool hooks of that call, trail's included: §1.2)."""
    guard = ctx.paths.root / "deny-rm.sh"
    guard.write_text(
        "#!/bin/sh\n"
        'if grep -q \'"command": "rm \'; then\n'
        '  printf \'{"decision":"deny","reason":"rm is not allowed in this project"}\'\n'
        "fi\n"
    )
    guard.chmod(0o755)
    hooks = ctx.paths.home / ".vibe" / "hooks.toml"
    hooks.write_text(
        f'[[hooks]]\nname = "deny-rm"\ntype = "pre_tool"\nmatch = "bash"\ncommand = "{guard}"\n'
    )


HOOK_DENIAL = Scenario(
    name="hook_denial",
    description="The user's pre_tool hook denies a bash call: it never runs, and no later "
    "pre_tool hook (trail's) fires for it",
    prepare=_deny_rm,
    files=_notes,
    prompt=lambda ctx: "Clean up the project.",
    script=lambda ctx: {
        "main": [
            [bash(f"rm -f {shlex.quote(_p(ctx, 'notes.txt'))}")],
            [read(_p(ctx, "notes.txt"))],
        ]
    },
)

UNICODE_PROMPT = "Créez « résumé ✓ » — 日本語のメモ, naïve café 🦊, puis listez: ÅÄÖ ∑ ≠ 🚀"
SPACED = "docs/my notes ü 🦊.txt"
TODOS = [
    {"id": "1", "content": "Écrire le résumé", "status": "completed"},
    {"id": "2", "content": "Vérifier 日本語", "status": "in_progress"},
]

TOOLS_TOUR = Scenario(
    name="tools_tour",
    description="a unicode-heavy prompt; write a new file (spaces, unicode in its name) and read "
    "it back, an edit whose old_string is not there (a failure), the todo tool, a folder "
    "listing, a command exiting 1 with stderr; a ~480 KB command output, non-UTF-8 bytes, a "
    "command past its timeout_seconds, and a call to a tool name Vibe does not have",
    files=lambda ctx: {"docs/keep.md": "# Keep\n"},
    prompt=lambda ctx: UNICODE_PROMPT,
    script=lambda ctx: {
        "main": [
            [
                {
                    "name": "write_file",
                    "input": {"path": _p(ctx, SPACED), "content": "Résumé ✓ 日本語 — café 🦊\n"},
                }
            ],
            [read(_p(ctx, SPACED))],
            [
                {
                    "name": "edit",
                    "input": {
                        "file_path": _p(ctx, SPACED),
                        "old_string": "not in the file",
                        "new_string": "x",
                    },
                }
            ],
            [{"name": "todo", "input": {"action": "write", "todos": TODOS}}],
            [bash(f"ls -la {shlex.quote(_p(ctx, 'docs'))}")],
            [bash("echo to-stdout; echo broken-thing >&2; exit 1")],
            [bash("seq 1 70000")],
            [bash(r"printf 'caf\xe9 \xff\xfe raw\n' | tee latin1.txt")],
            [read(_p(ctx, "latin1.txt"))],
            [{"name": "bash", "input": {"command": "sleep 5; echo late", "timeout_seconds": 1}}],
            [{"name": "frobnicate", "input": {"target": "everything"}}],
            [bash("echo after-unknown")],
        ]
    },
)

RESUMED = Scenario(
    name="resumed",
    description="a read, then `vibe --continue -p ...` adds a second turn with an edit and a "
    "bash: one session over two process runs",
    files=_notes,
    prompt=lambda ctx: "Look at the notes.",
    resumed=lambda ctx: ["Now fix the typo you saw."],
    script=lambda ctx: {
        "main": [
            [read(_p(ctx, "notes.txt"))],
            {"text": "The notes have a typo.", "end_turn": True},
            [
                {
                    "name": "edit",
                    "input": {
                        "file_path": _p(ctx, "notes.txt"),
                        "old_string": "brwn",
                        "new_string": "brown",
                    },
                }
            ],
            [bash(f"cat {shlex.quote(_p(ctx, 'notes.txt'))}")],
        ]
    },
)

INTERRUPTED = Scenario(
    name="interrupted",
    description="`--time-limit 20` interrupts the run during a long command: Vibe stops it, "
    "writes the export and exits 3",
    # The limit counts from Vibe's start: at 10 s a start slowed by a loaded machine (load
    # average 16) ended the run before its session existed; 20 s leaves twice the margin.
    args=("--time-limit", "20"),
    exit_code=3,
    files=_notes,
    prompt=lambda ctx: "Run the long job.",
    script=lambda ctx: {
        "main": [
            [read(_p(ctx, "notes.txt"))],
            [bash("sleep 60; echo never")],
        ]
    },
)

SCENARIOS: dict[str, Scenario] = {
    s.name: s
    for s in (
        READ_SHELL_FAILURE,
        READ_EDIT,
        SECRET,
        PARALLEL,
        SUBAGENT,
        TYPESCRIPT,
        GUIDES,
        HOOK_DENIAL,
        TOOLS_TOUR,
        RESUMED,
        INTERRUPTED,
    )
}
