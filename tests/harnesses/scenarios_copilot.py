"""The Copilot CLI rig's scenarios: a prompt, a project and a fake-model script each.

Tool names and inputs are Copilot's own (the tool list 1.0.102 offers the model,
real-harnesses.md §2.1): ``view {path}``, ``bash {command, description}``, ``edit {path,
old_str, new_str}``, ``create {path, file_text}``, ``grep {pattern, paths}``, ``task {name,
description, prompt, agent_type, mode}``. Scripts use absolute paths inside the run's project.
Add one by writing a :class:`~tests.harnesses.rig_copilot.CopilotScenario` and listing it in
``SCENARIOS`` (docs/testing.md, "Copilot CLI").
"""

from __future__ import annotations

import secrets
import shlex
import string
from collections.abc import Callable
from typing import Any

from tests.harnesses.rig import RunContext
from tests.harnesses.rig_copilot import CopilotScenario
from trace_ingest.harnesses.table import GUARD

NOTES = "The quick brwn fox.\nSecond line.\n"


def bash(command: str, description: str = "") -> dict[str, Any]:
    return {"name": "bash", "input": {"command": command, "description": description or command}}


def view(path: str) -> dict[str, Any]:
    return {"name": "view", "input": {"path": path}}


def _p(ctx: RunContext, rel: str) -> str:
    return str(ctx.paths.project / rel)


# -- a read and a shell command, in parallel ---------------------------------------------------

READ_AND_SHELL = CopilotScenario(
    name="read_and_shell",
    description="view + bash as two parallel calls of one message, then one bash alone",
    files=lambda ctx: {"notes.txt": NOTES},
    prompt=lambda ctx: "Look at the notes and check the shell.",
    script=lambda ctx: {
        "main": [
            [view(_p(ctx, "notes.txt")), bash("echo parallel-ok", "echo")],
            [bash("ls " + shlex.quote(str(ctx.paths.project)), "list")],
        ]
    },
)

# -- failing tools -----------------------------------------------------------------------------

FAILING_TOOL = CopilotScenario(
    name="failing_tool",
    description="view of a missing file (postToolUseFailure); bash exiting 2 (a 1.0.102 success)",
    facts={"exit_codes": [2, 0]},
    prompt=lambda ctx: "Read the missing file, then run the failing check.",
    script=lambda ctx: {
        "main": [
            [view(_p(ctx, "missing.txt"))],
            [bash("echo failing; exit 2", "fails")],
            [bash("echo after-failure", "after")],
        ]
    },
)

# -- an edit of the read file ------------------------------------------------------------------

READ_EDIT = CopilotScenario(
    name="read_edit",
    description="view a file, edit it, create a new one, cat the result; AGENTS.md and "
    ".github/copilot-instructions.md in context",
    files=lambda ctx: {
        "notes.txt": NOTES,
        "AGENTS.md": "# Agents\n\nFix typos in place.\n",
        ".github/copilot-instructions.md": "Keep summaries short.\n",
    },
    prompt=lambda ctx: "Fix the typo in notes.txt and write a summary file.",
    facts={"notes_after": "The quick brown fox.\nSecond line.\n"},
    script=lambda ctx: {
        "main": [
            [view(_p(ctx, "notes.txt"))],
            [
                {
                    "name": "edit",
                    "input": {"path": _p(ctx, "notes.txt"), "old_str": "brwn", "new_str": "brown"},
                }
            ],
            [
                {
                    "name": "create",
                    "input": {"path": _p(ctx, "summary.txt"), "file_text": "Fixed a typo.\n"},
                }
            ],
            [bash("cat " + shlex.quote(_p(ctx, "notes.txt")), "show")],
        ]
    },
)

# -- a run-time secret -------------------------------------------------------------------------


def _make_secret(ctx: RunContext) -> None:
    alphabet = string.ascii_letters + string.digits
    ctx.secret = "ghp_" + "".join(secrets.choice(alphabet) for _ in range(36))


SECRET_IN_COMMAND = CopilotScenario(
    name="secret_in_command",
    description="A GitHub token (made at run time) in the prompt, a command, its output, a file",
    prepare=_make_secret,
    prompt=lambda ctx: f"Check that the token {ctx.secret} is set for the deploy script.",
    script=lambda ctx: {
        "main": [
            [bash(f"export GITHUB_TOKEN={ctx.secret}; echo token=$GITHUB_TOKEN", "token")],
            [bash(f"echo {ctx.secret} > {shlex.quote(_p(ctx, 'token.txt'))}", "save")],
            [view(_p(ctx, "token.txt"))],
        ]
    },
)

# -- parallel calls, two of them identical -----------------------------------------------------

PARALLEL_CALLS = CopilotScenario(
    name="parallel_calls",
    description="Three bash in one message (two identical, so the pairing must count), then "
    "view + grep in one message",
    files=lambda ctx: {"notes.txt": NOTES},
    prompt=lambda ctx: "Run the checks together.",
    script=lambda ctx: {
        "main": [
            [
                bash("sleep 0.3; echo slow", "slow"),
                bash("echo same", "same"),
                bash("echo same", "same"),
            ],
            [
                view(_p(ctx, "notes.txt")),
                {"name": "grep", "input": {"pattern": "fox", "paths": str(ctx.paths.project)}},
            ],
        ]
    },
)

# -- a subagent --------------------------------------------------------------------------------

SUBAGENT = CopilotScenario(
    name="subagent",
    description="A sync task subagent running bash + view in parallel; the main agent goes on",
    subagents=1,
    files=lambda ctx: {"notes.txt": NOTES},
    prompt=lambda ctx: "Ask a helper to check the build.",
    script=lambda ctx: {
        "main": [
            [
                {
                    "name": "task",
                    "input": {
                        "name": "checker",
                        "description": "check the build",
                        "prompt": "Child: check the build.",
                        "agent_type": "task",
                        "mode": "sync",
                    },
                }
            ],
            [bash("echo main-after", "after")],
        ],
        "child": [[bash("echo child-ok", "child"), view(_p(ctx, "notes.txt"))]],
    },
)

# -- two subagents in parallel, one with a failing tool ------------------------------------------


def _task(name: str, prompt: str) -> dict[str, Any]:
    return {
        "name": "task",
        "input": {
            "name": name,
            "description": f"{name} check",
            "prompt": prompt,
            "agent_type": "task",
            "mode": "sync",
        },
    }


PARALLEL_SUBAGENTS = CopilotScenario(
    name="parallel_subagents",
    description="two sync task subagents launched in one message; each child runs a view of a "
    "missing file (a failure) and a bash; then the main agent goes on",
    subagents=2,
    prompt=lambda ctx: "Ask two helpers to check the build.",
    script=lambda ctx: {
        "main": [
            [
                _task("alpha", "Child alpha: check the build."),
                _task("beta", "Child beta: check the tests."),
            ],
            [bash("echo main-after", "after")],
        ],
        "child": [[view(_p(ctx, "missing.txt")), bash("echo child-ok", "child")]],
    },
)

# -- the model fails mid-session ---------------------------------------------------------------

MODEL_ERROR = CopilotScenario(
    name="model_error",
    description="One call, then the model answers HTTP 400: errorOccurred, sessionEnd 'error'",
    exit_code=1,
    prompt=lambda ctx: "Run one check.",
    script=lambda ctx: {
        "main": [[bash("echo before-error", "before")], {"error": 400, "message": "fake failure"}]
    },
)

# -- a new file read back, an edit that fails, the search tools, a folder listing ----------------

UNICODE_PROMPT = "Créez « résumé ✓ » — 日本語のメモ, naïve café 🦊, then search: ÅÄÖ ∑ ≠ 🚀"
SPACED = "docs/my notes ü 🦊.txt"

FILES_AND_SEARCH = CopilotScenario(
    name="files_and_search",
    description="create a file (spaces, unicode in its name), view it back, an edit whose "
    "old_str is not there (a failure), glob + grep in one message, view of a folder; a "
    "unicode-heavy prompt",
    files=lambda ctx: {"notes.txt": NOTES, "docs/keep.md": "# Keep\n"},
    prompt=lambda ctx: UNICODE_PROMPT,
    facts={"created": "Résumé ✓ 日本語 — naïve café 🦊\n"},
    script=lambda ctx: {
        "main": [
            [
                {
                    "name": "create",
                    "input": {
                        "path": _p(ctx, SPACED),
                        "file_text": "Résumé ✓ 日本語 — naïve café 🦊\n",
                    },
                }
            ],
            [view(_p(ctx, SPACED))],
            [
                {
                    "name": "edit",
                    "input": {
                        "path": _p(ctx, SPACED),
                        "old_str": "not in the file",
                        "new_str": "x",
                    },
                }
            ],
            [
                {"name": "glob", "input": {"pattern": "**/*.txt", "paths": str(ctx.paths.project)}},
                {"name": "grep", "input": {"pattern": "café|fox", "paths": str(ctx.paths.project)}},
            ],
            [view(_p(ctx, "docs"))],
        ]
    },
)

# -- outputs a recorder must survive, and a tool that does not exist -----------------------------

ODD_OUTPUTS = CopilotScenario(
    name="odd_outputs",
    description="a ~390 KB command output, non-UTF-8 bytes in an output, a command exiting 1 "
    "with stderr, and a call to a tool name Copilot does not have",
    facts={"exit_codes": [0, 0, 1]},
    prompt=lambda ctx: "Run the noisy checks.",
    script=lambda ctx: {
        "main": [
            [bash("seq 1 70000", "long output")],
            [bash(r"printf 'caf\xe9 \xff\xfe raw\n' | tee latin1.txt", "latin-1 bytes")],
            [view(_p(ctx, "latin1.txt"))],
            [bash("echo to-stdout; echo broken-thing >&2; exit 1", "fails with stderr")],
            [{"name": "frobnicate", "input": {"target": "everything"}}],
            [bash("echo after-unknown", "after")],
        ]
    },
)

# -- a tool the user denied with --deny-tool -----------------------------------------------------

DENIED_TOOL = CopilotScenario(
    name="denied_tool",
    description="`--deny-tool shell(rm)`: an rm Copilot refuses without running it, then a "
    "view and an allowed bash",
    args=("--deny-tool", "shell(rm)", "--deny-tool", "write", "--excluded-tools", "grep"),
    files=lambda ctx: {"notes.txt": NOTES},
    prompt=lambda ctx: "Clean up the notes.",
    script=lambda ctx: {
        "main": [
            [bash("rm -f " + shlex.quote(_p(ctx, "notes.txt")), "remove")],
            [view(_p(ctx, "notes.txt"))],
            [{"name": "create", "input": {"path": _p(ctx, "new.txt"), "file_text": "x\n"}}],
            [{"name": "grep", "input": {"pattern": "fox", "paths": str(ctx.paths.project)}}],
            [bash("echo still-here", "after")],
        ]
    },
)

# -- two turns: one session over two process runs (`--resume=<id>`) ----------------------------

RESUMED = CopilotScenario(
    name="resumed",
    description="a view and a bash, then `copilot --resume=<session> -p ...` adds a second "
    "turn with an edit and a bash: one session id over two process runs",
    files=lambda ctx: {"notes.txt": NOTES},
    prompt=lambda ctx: "Look at the notes.",
    resumed=lambda ctx: ["Now fix the typo you saw."],
    script=lambda ctx: {
        "main": [
            [view(_p(ctx, "notes.txt"))],
            [bash("wc -l " + shlex.quote(_p(ctx, "notes.txt")), "count")],
            {"text": "The notes have a typo.", "end_turn": True},
            [
                {
                    "name": "edit",
                    "input": {"path": _p(ctx, "notes.txt"), "old_str": "brwn", "new_str": "brown"},
                }
            ],
            [bash("cat " + shlex.quote(_p(ctx, "notes.txt")), "show")],
        ]
    },
)

# -- trail uninstalled under a live registration: the tool calls must still run --------------


def _gone(guarded: bool) -> Callable[[dict[str, Any], RunContext], None]:
    """Point every registered command at a trail that does not exist (an uninstalled or moved
    trail), in exactly the form `trail install` writes; without the guard for the control."""

    def patch(data: dict[str, Any], ctx: RunContext) -> None:
        gone = str(ctx.paths.root / "uninstalled" / "bin" / "python")
        for entries in data["hooks"].values():
            for entry in entries:
                installed = str(entry["bash"])
                assert installed.endswith(GUARD), installed
                # The installed program (interpreter or trail script) is gone; the rest stays.
                words = shlex.split(installed[: -len(GUARD)])
                bare = shlex.join([gone, *words[1:]])
                entry["bash"] = bare + GUARD if guarded else bare
        ctx.values["gone"] = gone

    return patch


def _gone_scenario(name: str, guarded: bool) -> CopilotScenario:
    return CopilotScenario(
        name=name,
        description="trail's program removed after `trail install`"
        + ("" if guarded else ", and the `|| true` guard taken off (the control)"),
        patch_hooks=_gone(guarded),
        prompt=lambda ctx: "Write the marker file.",
        script=lambda ctx: {
            "main": [[bash("echo ran > " + shlex.quote(_p(ctx, "ran.txt")), "mark")]]
        },
    )


# Copilot also runs the hooks of a project's .claude/settings.json (harnesses.md §2.2, observed
# on 1.0.102): trail installed for Claude Code in the project records each event a second
# time, through `trail hook claude-code`, which files it under Copilot CLI.
CLAUDE_SETTINGS_TOO = CopilotScenario(
    name="claude_settings_too",
    description="trail installed for Copilot CLI (user) and for Claude Code in the project",
    also_install=(("--harness", "claude-code"),),
    files=lambda ctx: {"notes.txt": NOTES},
    prompt=lambda ctx: "Look at the notes and check the shell.",
    script=lambda ctx: {"main": [[view(_p(ctx, "notes.txt")), bash("echo parallel-ok", "echo")]]},
)

TRAIL_GONE = _gone_scenario("trail_gone", guarded=True)
TRAIL_GONE_UNGUARDED = _gone_scenario("trail_gone_unguarded", guarded=False)
GUARD_SCENARIOS: dict[str, CopilotScenario] = {
    s.name: s for s in (TRAIL_GONE, TRAIL_GONE_UNGUARDED, CLAUDE_SETTINGS_TOO)
}

SCENARIOS: dict[str, CopilotScenario] = {
    s.name: s
    for s in (
        READ_AND_SHELL,
        FAILING_TOOL,
        READ_EDIT,
        SECRET_IN_COMMAND,
        PARALLEL_CALLS,
        SUBAGENT,
        PARALLEL_SUBAGENTS,
        MODEL_ERROR,
        FILES_AND_SEARCH,
        ODD_OUTPUTS,
        DENIED_TOOL,
        RESUMED,
    )
}
