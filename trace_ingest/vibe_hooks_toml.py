"""trail's entries in Mistral Vibe's ``hooks.toml``: write them, find them, remove exactly them.

Vibe 3.x reads ``[[hooks]]`` tables (``name``, ``type`` = ``pre_tool|post_tool|post_agent``,
``command``, optional ``match``, ``timeout``, ``strict``, ``description``) from
``<project>/.vibe/hooks.toml`` (trusted folders only) and ``$VIBE_HOME/hooks.toml``
(real-harnesses.md §1.2).

**Why a small text editor and not a TOML library.** The standard library reads TOML
(``tomllib``) but cannot write it, and a round trip through a writer such as ``tomli_w`` loses the
user's comments, ordering and formatting. ``tomlkit`` keeps them, but it would be a new
dependency for three tables. trail's entries are whole ``[[hooks]]`` tables, so install appends
them at the end of the file (arrays of tables may be continued anywhere in TOML) and uninstall
cuts exactly their lines; nothing else in the file is rewritten, byte for byte. Every result is
checked by parsing it again with ``tomllib``: it must hold exactly the user's hooks plus (or
minus) trail's, and every other key unchanged; if not (an inline ``hooks = [...]`` array, say),
the file is left alone and the error says what to do by hand. Header lines are found by a
small lexer that knows TOML's strings, so a ``[[hooks]]`` line inside a multi-line string is
text, not a table. docs/sources.md records this decision.

trail's entry is recognised by its name (``trail-<type>``) **and** its exact command
(``<absolute path>/trail hook vibe``); a user's own hook that merely runs ``trail hook vibe``
(a wrapper) is never touched.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from typing import Any

HOOK_TYPES: tuple[str, ...] = ("pre_tool", "post_tool", "post_agent")
NAME_PREFIX = "trail-"
# A hook blocks the tool call while it runs (Vibe runs them synchronously, §1.2); trail's takes
# milliseconds. On a timeout Vibe kills it and fails open (not ``strict``).
TIMEOUT_SECONDS = 10
_HEADER = re.compile(r"^[ \t]*\[")  # a table or array-of-tables header line
_HOOKS_HEADER = re.compile(r"^[ \t]*\[\[[ \t]*hooks[ \t]*\]\][ \t]*(#.*)?$")
BEGIN = "# trail: begin (written by `trail install --harness vibe`; `trail uninstall` removes it)"
END = "# trail: end"


class TomlEditError(ValueError):
    """The file could not be edited safely; the message says what to do by hand."""


def entry_name(hook_type: str) -> str:
    return NAME_PREFIX + hook_type.replace("_", "-")


def _quote(text: str) -> str:
    """A TOML basic string."""
    out = text.replace("\\", "\\\\").replace('"', '\\"')
    out = "".join(c if c >= " " and c != "\x7f" else f"\\u{ord(c):04x}" for c in out)
    return f'"{out}"'


def render(command: str, types: tuple[str, ...] = HOOK_TYPES) -> str:
    """trail's ``[[hooks]]`` tables for ``types``, between the begin/end comments."""
    lines = [BEGIN]
    for hook_type in types:
        lines += [
            "[[hooks]]",
            f"name = {_quote(entry_name(hook_type))}",
            f"type = {_quote(hook_type)}",
            f"command = {_quote(command)}",
            f"timeout = {TIMEOUT_SECONDS}",
            f"description = {_quote('trail records this event (trail hook vibe)')}",
        ]
    lines.append(END)
    return "\n".join(lines) + "\n"


def parse(text: str) -> dict[str, Any]:
    """The file's data (TomlEditError when it is not valid TOML)."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TomlEditError(f"not valid TOML ({exc}); fix it first") from None


def hooks_of(data: dict[str, Any]) -> list[Any]:
    hooks = data.get("hooks", [])
    if not isinstance(hooks, list):
        raise TomlEditError("'hooks' is not an array of tables; refusing to touch it")
    return hooks


def is_trail_entry(hook: Any, command: str | None = None, own: Any = None) -> bool:
    """trail's own table: a ``trail-<type>`` name and trail's exact command (``command``, or
    any command ``own(command)`` accepts: trail's form at another installation path)."""
    if not isinstance(hook, dict):
        return False
    name = hook.get("name")
    if not (isinstance(name, str) and name.startswith(NAME_PREFIX)):
        return False
    if name != entry_name(str(hook.get("type", ""))):
        return False
    given = hook.get("command")
    if command is not None and given == command:
        return True
    return bool(own is not None and own(given))


@dataclass
class Edit:
    text: str
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    left: list[str] = field(default_factory=list)


def _header_lines(lines: list[str]) -> list[int]:
    """Indexes of the lines that are table headers: a ``[`` first on a line that starts outside
    every multi-line string (``\"\"\"…\"\"\"`` or ``'''…'''``) and outside an array value
    spanning lines. One-line strings and comments cannot span lines, so only those two
    states carry over from line to line."""
    out: list[int] = []
    inside: str | None = None  # the multi-line delimiter we are in
    depth = 0  # open brackets of an array value spanning lines
    for n, line in enumerate(lines):
        if inside is None and depth == 0 and _HEADER.match(line):
            out.append(n)
            continue  # a header's brackets close on its line; a comment may follow
        i = 0
        while i < len(line):
            if inside is not None:
                end = line.find(inside, i)
                if end < 0:
                    break
                if inside == '"""' and _escaped(line, end):
                    i = end + 1
                    continue
                # A closing run may be up to five quotes long (TOML 1.0: one or two quotes
                # may end the content); the delimiter is its last three.
                j = end + 3
                while j < len(line) and line[j] == inside[0] and j < end + 5:
                    j += 1
                inside, i = None, j
                continue
            c = line[i]
            if c == "#":
                break
            if c in "\"'":
                if line.startswith(c * 3, i):
                    inside, i = c * 3, i + 3
                    continue
                i = _one_line_string_end(line, i)
                continue
            if c == "[":
                depth += 1
            elif c == "]":
                depth = max(depth - 1, 0)
            i += 1
    return out


def _escaped(line: str, at: int) -> bool:
    """Whether the character at ``at`` follows an odd number of backslashes."""
    k = at
    while k > 0 and line[k - 1] == "\\":
        k -= 1
    return (at - k) % 2 == 1


def _one_line_string_end(line: str, start: int) -> int:
    """The index after a one-line string opening at ``start`` (or the line's end)."""
    quote = line[start]
    i = start + 1
    while i < len(line):
        if line[i] == quote and not (quote == '"' and _escaped(line, i)):
            return i + 1
        i += 1
    return i


def _spans(text: str) -> list[tuple[int, int]]:
    """Line ranges ``[start, end)`` of every ``[[hooks]]`` table: its header up to the next
    header. Comment lines right before the next header belong to that header (a user's note
    about the next table stays with it), trail's begin/end comments to trail's tables."""
    lines = text.splitlines(keepends=True)
    headers = _header_lines(lines)
    spans = []
    for n, start in enumerate(headers):
        if not _HOOKS_HEADER.match(lines[start].rstrip("\r\n")):
            continue
        end = headers[n + 1] if n + 1 < len(headers) else len(lines)
        while (
            end > start + 1
            and lines[end - 1].lstrip().startswith("#")
            and (lines[end - 1].strip() != END)
        ):
            end -= 1
        spans.append((start, end))
    return spans


def _remove(text: str, drop: list[int]) -> str:
    """``text`` without the ``[[hooks]]`` tables at indexes ``drop`` (and trail's markers)."""
    lines = text.splitlines(keepends=True)
    spans = _spans(text)
    if len(spans) != _count_tables(text):
        raise TomlEditError("could not find every [[hooks]] table by its header")
    cut: set[int] = set()
    for index in drop:
        start, end = spans[index]
        cut.update(range(start, end))
        if start > 0 and lines[start - 1].strip() == BEGIN:
            cut.add(start - 1)
            if start > 1 and not lines[start - 2].strip():
                cut.add(start - 2)  # the blank line install put before the block
        for j in range(end, len(lines)):
            if lines[j].strip() == END:
                cut.add(j)
                break
            if lines[j].strip():
                break
    # Markers left with nothing between them go too.
    kept = [line for i, line in enumerate(lines) if i not in cut]
    out: list[str] = []
    for line in kept:
        if line.strip() == END and out and out[-1].strip() == BEGIN:
            out.pop()
            continue
        out.append(line)
    return "".join(out)


def _count_tables(text: str) -> int:
    lines = text.splitlines()
    return sum(1 for n in _header_lines(lines) if _HOOKS_HEADER.match(lines[n]))


def _check(before: dict[str, Any], after_text: str, expected_hooks: list[Any], what: str) -> None:
    try:
        after = tomllib.loads(after_text)
    except tomllib.TOMLDecodeError as exc:
        raise TomlEditError(f"{what} would make the file invalid TOML ({exc})") from None
    rest_before = {k: v for k, v in before.items() if k != "hooks"}
    rest_after = {k: v for k, v in after.items() if k != "hooks"}
    if rest_before != rest_after or after.get("hooks", []) != expected_hooks:
        raise TomlEditError(f"{what} would change more than trail's entries")


def install(text: str, command: str, own: Any = None, is_ours: Any = None) -> Edit:
    """``text`` with trail's three tables (idempotent). ``own(command)``: is a command trail's
    exact form at any installation path; ``is_ours(command)``: does it mention ``trail hook
    vibe`` at all (a user's wrapper)."""
    data = parse(text)
    hooks = hooks_of(data)
    edit = Edit(text)
    keep: list[Any] = []
    drop: list[int] = []
    present: dict[str, bool] = {}
    for index, hook in enumerate(hooks):
        if is_trail_entry(hook, command, own):
            hook_type = str(hook.get("type"))
            if hook.get("command") == command and not present.get(hook_type):
                present[hook_type] = True
                keep.append(hook)
                continue
            drop.append(index)  # another installation path, or a duplicate: rewritten below
            if hook_type in HOOK_TYPES and not present.get(hook_type):
                edit.updated.append(hook_type)
            continue
        keep.append(hook)
    wanted = []
    for hook_type in HOOK_TYPES:
        if present.get(hook_type):
            continue
        mentions = [
            h
            for h in keep
            if isinstance(h, dict)
            and h.get("type") == hook_type
            and is_ours is not None
            and is_ours(h.get("command"))
        ]
        if mentions:
            edit.left.append(hook_type)  # the user's own hook already runs trail
            continue
        wanted.append(hook_type)
        if hook_type not in edit.updated:
            edit.added.append(hook_type)
    if not wanted and not drop:
        return edit
    new_text = _remove(text, drop) if drop else text
    if wanted:
        if new_text and not new_text.endswith("\n"):
            new_text += "\n"
        if new_text.strip():
            new_text += "\n"
        new_text += render(command, tuple(wanted))
    expected = [h for i, h in enumerate(hooks) if i not in drop]
    expected += [_table(command, t) for t in wanted]
    _check(data, new_text, expected, "adding trail's hooks")
    edit.text = new_text
    return edit


def uninstall(text: str, own: Any) -> Edit:
    """``text`` without trail's tables (those with trail's exact command at any path)."""
    data = parse(text)
    hooks = hooks_of(data)
    drop = [i for i, h in enumerate(hooks) if is_trail_entry(h, None, own)]
    edit = Edit(text)
    if not drop:
        return edit
    edit.removed = [str(hooks[i].get("type")) for i in drop]
    new_text = _remove(text, drop)
    expected = [h for i, h in enumerate(hooks) if i not in drop]
    _check(data, new_text, expected, "removing trail's hooks")
    edit.text = new_text
    return edit


def _table(command: str, hook_type: str) -> dict[str, Any]:
    return {
        "name": entry_name(hook_type),
        "type": hook_type,
        "command": command,
        "timeout": TIMEOUT_SECONDS,
        "description": "trail records this event (trail hook vibe)",
    }


def registered(data: dict[str, Any], mentions: Any) -> dict[str, list[str]]:
    """Hook type -> commands that mention ``trail hook vibe`` (``mentions(command)``)."""
    found: dict[str, list[str]] = {}
    hooks = data.get("hooks")
    for hook in hooks if isinstance(hooks, list) else []:
        if isinstance(hook, dict) and mentions(hook.get("command")):
            found.setdefault(str(hook.get("type")), []).append(str(hook.get("command")))
    return found


# ---- trust ---------------------------------------------------------------------------------


def trust_of(folder: str, trusted_file_text: str | None) -> str:
    """``trusted``, ``untrusted`` or ``undecided``: what Vibe decides for ``folder`` from its
    ``trusted_folders.toml`` (``trusted = [...]``, ``untrusted = [...]``; the closest ancestor
    with a decision wins; [SRC] ``vibe/core/trusted_folders.py``). Project hooks load only in
    a trusted folder; in ``-p`` mode ``--trust`` trusts the session's folder for that run."""
    import os

    data: dict[str, Any] = {}
    if trusted_file_text:
        try:
            data = tomllib.loads(trusted_file_text)
        except tomllib.TOMLDecodeError:
            data = {}  # Vibe resets an unreadable file: nothing is trusted
    trusted = {str(p) for p in data.get("trusted", []) if isinstance(p, str)}
    untrusted = {str(p) for p in data.get("untrusted", []) if isinstance(p, str)}
    current = os.path.realpath(os.path.expanduser(folder))
    while True:
        if current in trusted:
            return "trusted"
        if current in untrusted:
            return "untrusted"
        parent = os.path.dirname(current)
        if parent == current:
            return "undecided"
        current = parent
