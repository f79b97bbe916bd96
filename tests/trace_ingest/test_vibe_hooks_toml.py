"""trail's entries in Vibe's hooks.toml: added and removed exactly, the user's text untouched."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from trace_ingest import vibe_hooks_toml as vt

CMD = "/opt/trail/bin/trail hook vibe"


def own(command: object) -> bool:
    return isinstance(command, str) and command.endswith("/trail hook vibe")


def mentions(command: object) -> bool:
    return isinstance(command, str) and "trail hook vibe" in command


USER = """\
# my hooks
[[hooks]]
name = "deny-rm"   # keep me
type = "pre_tool"
match = "bash"
command = "uv run guard"

[settings]
x = 1
"""


def test_install_appends_and_uninstall_restores_the_text_byte_for_byte() -> None:
    added = vt.install(USER, CMD, own, mentions)
    assert added.added == list(vt.HOOK_TYPES)
    assert added.text.startswith(USER)  # nothing of the user's file is rewritten
    data = tomllib.loads(added.text)
    assert data["settings"] == {"x": 1}
    names = [h["name"] for h in data["hooks"]]
    assert names == ["deny-rm", "trail-pre-tool", "trail-post-tool", "trail-post-agent"]
    assert {h["command"] for h in data["hooks"][1:]} == {CMD}
    again = vt.install(added.text, CMD, own, mentions)
    assert (again.added, again.updated, again.text) == ([], [], added.text)
    removed = vt.uninstall(added.text, own)
    assert sorted(removed.removed) == sorted(vt.HOOK_TYPES)
    assert removed.text == USER


def test_empty_and_missing_files() -> None:
    added = vt.install("", CMD, own, mentions)
    assert len(tomllib.loads(added.text)["hooks"]) == 3
    assert vt.uninstall(added.text, own).text == ""
    assert vt.uninstall("", own).removed == []


def test_a_moved_trail_is_updated_not_duplicated() -> None:
    old = vt.install(USER, "/old/venv/bin/trail hook vibe", own, mentions).text
    moved = vt.install(old, CMD, own, mentions)
    assert sorted(moved.updated) == sorted(vt.HOOK_TYPES) and moved.added == []
    hooks = tomllib.loads(moved.text)["hooks"]
    assert [h["command"] for h in hooks if h["name"].startswith("trail-")] == [CMD] * 3
    assert vt.uninstall(moved.text, own).text == USER


def test_a_users_wrapper_is_left_alone() -> None:
    wrapper = USER + '\n[[hooks]]\nname = "mine"\ntype = "post_tool"\n'
    wrapper += "command = \"sh -c '/x/trail hook vibe'\"\n"
    added = vt.install(wrapper, CMD, own, mentions)
    assert added.left == ["post_tool"] and added.added == ["pre_tool", "post_agent"]
    removed = vt.uninstall(added.text, own)
    assert removed.text == wrapper  # the wrapper stays, even though it runs trail
    # A hook named like trail's but running something else is not trail's either.
    fake = USER + '\n[[hooks]]\nname = "trail-pre-tool"\ntype = "pre_tool"\ncommand = "x"\n'
    assert vt.uninstall(fake, own).removed == []


def test_an_inline_hooks_array_is_refused_unchanged() -> None:
    inline = 'hooks = [{name = "a", type = "pre_tool", command = "x"}]\n'
    with pytest.raises(vt.TomlEditError):
        vt.install(inline, CMD, own, mentions)


def test_invalid_toml_is_refused() -> None:
    with pytest.raises(vt.TomlEditError, match="not valid TOML"):
        vt.install("[[hooks]\n", CMD, own, mentions)


@pytest.mark.parametrize(
    "value",
    [
        '"""\n[[hooks]]\nname = "x"\n"""',
        "'''\n[[hooks]]\n[settings]\n'''",
        '"""a \\""" still inside\n[[hooks]]\n"""',  # an escaped quote does not close it
        '[\n  ["nested", "array"],\n  [1, 2],\n]',  # array lines are not headers
    ],
)
def test_a_header_inside_a_multiline_value_is_text(value: str) -> None:
    tricky = USER + f"note = {value}\n"
    note = tomllib.loads(tricky)["settings"]["note"]
    added = vt.install(tricky, CMD, own, mentions)
    assert tomllib.loads(added.text)["settings"]["note"] == note
    removed = vt.uninstall(added.text, own)
    assert removed.text == tricky and sorted(removed.removed) == sorted(vt.HOOK_TYPES)


def test_command_with_quotes_and_backslashes_round_trips() -> None:
    cmd = '/opt/my "trail"\\bin/trail hook vibe'
    data = tomllib.loads(vt.install("", cmd, own, mentions).text)
    assert {h["command"] for h in data["hooks"]} == {cmd}


def test_trust_closest_ancestor_wins(tmp_path: Path) -> None:
    proj = tmp_path / "a" / "b"
    proj.mkdir(parents=True)
    text = f'trusted = ["{tmp_path}"]\nuntrusted = ["{tmp_path / "a"}"]\n'
    assert vt.trust_of(str(proj), text) == "untrusted"
    assert vt.trust_of(str(tmp_path), text) == "trusted"
    assert vt.trust_of(str(proj), None) == "undecided"
    assert vt.trust_of(str(proj), "not toml [") == "undecided"
