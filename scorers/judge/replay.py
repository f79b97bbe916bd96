"""``replay``: an ``llm`` model that answers from recorded responses (tests, demos, offline
re-grading). trail's ``llm`` plugin: the entry point ``trail_replay`` (group ``llm``, in
pyproject.toml) registers it, so ``llm models`` lists it and ``llm -m replay -o file REC.json``
works like any model; trail's judge spells it ``--judge replay:REC.json``.

A replay file (JSON, ``"format": "trail-replay/1"``)::

    {"format": "trail-replay/1",
     "recorded_with": "what produced the answers (a model, or 'written from labels')",
     "responses": [
       {"input_sha256": "<judge input hash>",        # match on the exact judge input, or
        "session": "claude-code/<key>",              # on the session (key or id), or
        "default": true,                             # answer anything else
        "facts": {"findings": [...], "guides_not_engaged": [...]},  # or "text": "<verbatim>"
        "usage": {"input": 1200, "output": 85},      # optional; estimated when absent
        "error": "quota"}                            # optional: replay a failure instead
     ]}

The judge's prompt starts with ``trail-judge-input: sha256:<hex>`` (outside every fence) and
``session: "<key>"`` (in the session id's own fence), both written by trail; replay matches
the first entry with that ``input_sha256``, else the first with that ``session`` and no
``input_sha256``, else the first ``default``. No match raises ``ReplayMissError``. ``error``
replays a failure: ``quota``, ``network``, ``provider``, ``no_provider`` (each becomes the
judge's named failure of that kind).

This module is imported by ``llm`` when it loads plugins, so it imports only ``llm`` and the
standard library.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from collections.abc import Iterator
from typing import Any

import llm
from pydantic import Field

FORMAT = "trail-replay/1"
MODEL_ID = "trail-replay"
ALIAS = "replay"
PREFIX = "replay:"
FAILURES = ("quota", "network", "provider", "no_provider")
MAX_REPLAY_BYTES = 64 << 20
_INPUT = re.compile(r"^trail-judge-input: sha256:([0-9a-f]{64})$", re.MULTILINE)
_SESSION = re.compile(r"^session: (\".*\")$", re.MULTILINE)
_SESSION_FENCE = re.compile(r"\n\[(?:BEGIN|END) UNTRUSTED SESSION-ID [0-9a-f]+\]")


class ReplayMissError(llm.ModelError):
    """The replay file holds no response for this prompt (or cannot be read)."""


class ReplayedFailure(llm.ModelError):
    """A failure recorded in the replay file, replayed (``trail_failure_kind`` says which)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.trail_failure_kind = kind


def read_book(path: str) -> dict[str, Any]:
    """The replay file as JSON (an object with a ``responses`` list)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_REPLAY_BYTES + 1)
    except OSError as exc:
        raise ReplayMissError(f"cannot read replay file {path}: {exc.strerror or exc}") from exc
    if len(data) > MAX_REPLAY_BYTES:
        raise ReplayMissError(f"replay file {path} is larger than {MAX_REPLAY_BYTES} bytes")
    try:
        book = json.loads(data)
    except ValueError as exc:
        raise ReplayMissError(f"replay file {path} is not JSON: {exc}") from exc
    if not isinstance(book, dict) or not isinstance(book.get("responses"), list):
        raise ReplayMissError(f"replay file {path} has no 'responses' list ({FORMAT})")
    return book


def header_of(prompt: str) -> tuple[str | None, str | None]:
    """``(input_sha256, session)`` from the first lines trail wrote: before any fence but the
    session line's own (judge_input fences the key, which comes from a payload)."""
    head = _SESSION_FENCE.sub("", prompt[:8192], count=2).split("\n[BEGIN UNTRUSTED", 1)[0]
    found = _INPUT.search(head)
    session = None
    match = _SESSION.search(head)
    if match:
        try:
            value = json.loads(match.group(1))
            session = value if isinstance(value, str) else None
        except ValueError:
            session = None
    return (found.group(1) if found else None), session


def find(book: dict[str, Any], prompt: str) -> dict[str, Any] | None:
    digest, session = header_of(prompt)
    entries = [e for e in book["responses"] if isinstance(e, dict)]
    by_input = [e for e in entries if digest is not None and e.get("input_sha256") == digest]
    names = {session, session.split("/", 1)[-1]} if session else set()
    by_session = [e for e in entries if e.get("session") in names and not e.get("input_sha256")]
    fallback = [e for e in entries if e.get("default") is True]
    for found in (by_input, by_session, fallback):
        if found:
            return found[0]
    return None


def answer_text(entry: dict[str, Any]) -> str:
    if isinstance(entry.get("text"), str):
        return str(entry["text"])
    if "facts" in entry:
        return json.dumps(entry["facts"], ensure_ascii=False, sort_keys=True)
    raise ReplayMissError("replay entry has neither 'text' nor 'facts'")


def _tokens(text: str) -> int:
    return (len(text.encode("utf-8", "surrogatepass")) + 3) // 4


class Replay(llm.Model):
    """Answers from a replay file (``-o file PATH``, or ``$TRAIL_REPLAY_FILE``)."""

    model_id = MODEL_ID
    supports_schema = True
    can_stream = False

    class Options(llm.Options):
        file: str | None = Field(default=None, description="trail replay file (JSON)")

    def execute(
        self,
        prompt: llm.Prompt,
        stream: bool,
        response: llm.Response,
        conversation: llm.Conversation | None,
    ) -> Iterator[str]:
        path = getattr(prompt.options, "file", None) or os.environ.get("TRAIL_REPLAY_FILE")
        if not path:
            raise ReplayMissError("replay needs a file: -o file PATH (or replay:PATH in trail)")
        text_in = prompt.prompt or ""
        entry = find(read_book(path), text_in)
        if entry is None:
            digest, session = header_of(text_in)
            raise ReplayMissError(
                f"{path} holds no response for input sha256:{digest or '?'} "
                f"(session {session or '?'})"
            )
        error = entry.get("error")
        if error is not None:
            kind = str(error) if error in FAILURES else "provider"
            raise ReplayedFailure(kind, f"replayed failure from {path}: {error}")
        text = answer_text(entry)
        usage = entry.get("usage") if isinstance(entry.get("usage"), dict) else {}
        assert isinstance(usage, dict)
        response.set_usage(
            input=_int(usage.get("input"), _tokens((prompt.system or "") + text_in)),
            output=_int(usage.get("output"), _tokens(text)),
        )
        yield text


def _int(value: Any, fallback: int) -> int:
    return (
        value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else fallback
    )


@llm.hookimpl
def register_models(register: Any) -> None:
    register(Replay(), aliases=(ALIAS,))


def entry(
    *,
    input_sha256: str | None = None,
    session: str | None = None,
    facts: Any = None,
    text: str | None = None,
    usage: dict[str, int] | None = None,
    error: str | None = None,
) -> dict[str, Any]:
    """One replay entry (what ``record`` appends)."""
    out: dict[str, Any] = {}
    for key, value in (
        ("input_sha256", input_sha256),
        ("session", session),
        ("facts", facts),
        ("text", text),
        ("usage", usage),
        ("error", error),
    ):
        if value is not None:
            out[key] = value
    return out


def record(path: str, new: dict[str, Any], recorded_with: str | None = None) -> None:
    """Add (or replace, by ``input_sha256``) one response in a replay file, written whole
    through a temporary file (0600)."""
    book: dict[str, Any] = {"format": FORMAT, "responses": []}
    if os.path.exists(path):
        book = read_book(path)
    if recorded_with and not book.get("recorded_with"):
        book["recorded_with"] = recorded_with
    digest = new.get("input_sha256")
    book["responses"] = [
        e
        for e in book["responses"]
        if not (digest and isinstance(e, dict) and e.get("input_sha256") == digest)
    ] + [new]
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".replay-", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(book, fh, ensure_ascii=False, indent=1, sort_keys=True)
            fh.write("\n")
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def file_sha256(path: str) -> str | None:
    try:
        with open(path, "rb") as fh:
            return hashlib.sha256(fh.read(MAX_REPLAY_BYTES)).hexdigest()
    except OSError:
        return None
