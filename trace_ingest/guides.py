"""Guide files, shared by adapters (hot path) and the guide store: reading a guide's text when
it loads, and naming it.

Hot-path safe: standard library only (os). The ``guide_loaded`` contract every adapter emits
is in docs/events.md ("guide_loaded: guides in context"); in short: ``path`` the file as
loaded, ``text`` its content as it entered the agent's context (the whole event is scrubbed
afterwards, like every event), ``ts`` the moment it entered, and under ``extra`` whatever the
harness says about why (``load_reason``, ``memory_type``, ...).
"""

from __future__ import annotations

import os
import stat

# A guide bigger than this is recorded without its text (listed, never judged): rule files
# are small, and the hook must stay fast.
MAX_GUIDE_BYTES = 256 * 1024
MAX_RULE_FILES = 100  # listed per session start (``rule_files``)
GUIDE_SUFFIXES = (".md", ".mdc", ".txt")


def read_guide_text(path: object) -> str | None:
    """The text of the guide file at ``path`` as it is now, or None when it is not a readable
    regular file of a guide's type (``.md``) within ``MAX_GUIDE_BYTES``.

    ``path`` comes from a payload (untrusted): it is only opened for reading, must name a
    regular file (a symlinked AGENTS.md -> CLAUDE.md is fine: harnesses read through them
    too), and nothing is ever executed or written."""
    if not isinstance(path, str) or not path or "\x00" in path:
        return None
    if not path.lower().endswith(GUIDE_SUFFIXES):
        return None
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_GUIDE_BYTES:
            return None
        data = os.read(fd, MAX_GUIDE_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    if len(data) > MAX_GUIDE_BYTES:
        return None
    return data.decode("utf-8", "replace")


def guide_name(path: str, project_dir: str | None, home: str | None = None) -> str:
    """A guide's display name: relative to the project, ``~/`` under the home directory,
    else the path as given. Only compared as text, never opened."""
    norm = path.replace("\\", "/")
    for root, prefix in ((project_dir, ""), (home or os.path.expanduser("~"), "~/")):
        if not root:
            continue
        base = root.replace("\\", "/").rstrip("/") + "/"
        if norm.startswith(base) and len(norm) > len(base):
            return prefix + norm[len(base) :]
    return norm


def text_version(text: str) -> str:
    """A guide version: the sha256 (hex) of its stored (scrubbed) text."""
    import hashlib  # not at the top: hashlib loads OpenSSL, ~4 ms the hook never needs

    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def claude_skill_file(name: object, cwd: str | None) -> str | None:
    """Where Claude Code keeps skill ``name``: the project's ``.claude/skills/<name>/SKILL.md``,
    else the user's ``~/.claude/skills/<name>/SKILL.md``; None when neither exists or the name
    is not a plain skill name (a plugin's ``plugin:skill`` lives elsewhere: not looked up)."""
    if not isinstance(name, str) or not name or len(name) > 128:
        return None
    if any(c in name for c in "/\\:\x00") or name.startswith("."):
        return None
    roots = [os.path.join(cwd, ".claude")] if cwd and os.path.isabs(cwd) else []
    roots.append(os.path.join(os.path.expanduser("~"), ".claude"))
    for root in roots:
        path = os.path.join(root, "skills", name, "SKILL.md")
        if os.path.isfile(path):
            return path
    return None


# Rule files a harness reads by construction at session start, relative to the project root
# (docs/events.md "guide_loaded and skill_loaded"). ``*`` matches within one folder only.
COPILOT_RULE_FILES = (
    "AGENTS.md",
    ".github/copilot-instructions.md",
    ".github/instructions/*.instructions.md",
)
VIBE_RULE_FILES = ("AGENTS.md",)


def rule_files(
    root: str | None, patterns: tuple[str, ...], limit: int = MAX_RULE_FILES
) -> list[str]:
    """The rule files present under ``root`` that match ``patterns`` (absolute paths, in
    pattern order, each folder's matches sorted): what an adapter without a load event emits
    as ``guide_loaded`` at session start. Standard library only (no glob: it imports re).

    At most ``limit``: ``root`` comes from a payload and its folder from a repository, and the
    Copilot hook reads every file listed (20,000 ``*.instructions.md`` took 5.4 s, past
    Copilot's hook timeout the whole session start is lost)."""
    if not root or not os.path.isabs(root):
        return []
    out: list[str] = []
    for pattern in patterns:
        if len(out) >= limit:
            break
        folder, _, name = pattern.rpartition("/")
        base = os.path.join(root, folder) if folder else root
        if "*" not in name:
            path = os.path.join(base, name)
            if os.path.isfile(path):
                out.append(path)
            continue
        head, _, tail = name.partition("*")
        try:
            names = sorted(os.listdir(base))
        except OSError:
            continue
        for entry in names:
            if entry.startswith(head) and entry.endswith(tail) and len(entry) > len(head + tail):
                path = os.path.join(base, entry)
                if len(out) < limit and os.path.isfile(path):
                    out.append(path)
    return out
