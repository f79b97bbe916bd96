"""What trail knows about VS Code's ids, names and times, shared by the hook and the importers.

Hot-path safe: standard library only (``binascii``, no ``base64``/``re``/``datetime``), since
``hooks/vscode.py`` calls it on every payload. Facts: shared/reference/next-capabilities.md
§1.3-1.4 (cited below as NC §x).
"""

from __future__ import annotations

import binascii
import time

from trace_ingest.harnesses.vscode import DESCRIPTOR

HARNESS = DESCRIPTOR.id

# NC §1.3 (b): a VS Code hook's ``sessionId`` is the chat session's resource URI,
# ``vscode-chat-session://local/<base64 of the chatSessions id>``; the chatSessions file, the
# Copilot Chat transcript and the chronicle store name the session by the decoded id.
SESSION_SCHEME = "vscode-chat-session://"
_MAX_ID = 200


def decode_session_id(value: str) -> tuple[str, str | None]:
    """``(chat session id, session target)`` of a hook ``sessionId``.

    ``vscode-chat-session://local/YzhkYTIy…`` -> ``("c8da2230-…", "local")``. A value that is
    not such a URI, or whose tail is not base64 of a printable id, comes back unchanged with
    target None: an undecodable id is kept as sent, never guessed at.
    """
    if not value.startswith(SESSION_SCHEME):
        return value, None
    rest = value[len(SESSION_SCHEME) :]
    target, sep, tail = rest.partition("/")
    if not sep or not tail:
        return value, None
    tail = tail.split("?", 1)[0].split("#", 1)[0]
    if len(tail) > 4 * _MAX_ID:
        return value, None
    padded = tail.replace("-", "+").replace("_", "/") + "=" * (-len(tail) % 4)
    try:
        raw = binascii.a2b_base64(padded.encode("ascii"))
        decoded = raw.decode("utf-8")
    except (binascii.Error, UnicodeError, ValueError):
        return value, None
    if not decoded or len(decoded) > _MAX_ID or not decoded.isprintable():
        return value, None
    return decoded, target or None


def encode_session_id(chat_id: str, target: str = "local") -> str:
    """The hook ``sessionId`` VS Code sends for a chat session id (the inverse, for tests/demo)."""
    tail = binascii.b2a_base64(chat_id.encode("utf-8"), newline=False).decode("ascii")
    return f"{SESSION_SCHEME}{target}/{tail}"


def strip_call_id(call_id: str) -> str:
    """A tool-call id without the ``__vscode-<n>`` suffix Copilot Chat appends internally.

    Copilot Chat's transcript writes the model's id with that suffix removed
    (``sessionTranscriptService.ts`` ``stripInternalToolCallId``); the same is done to every
    VS Code id so the two sources name one call alike.
    """
    return call_id.split("__vscode-", 1)[0]


def canonical_tool(name: str | None) -> str:
    """Canonical tool for a VS Code tool id (``other`` when unknown; the descriptor's table)."""
    return DESCRIPTOR.canonical(name)


def tool_path(tool_input: object) -> str | None:
    """The file a VS Code tool's input names, if any."""
    return DESCRIPTOR.tool_path(tool_input)


def ms_iso(value: object) -> str | None:
    """ISO 8601 UTC (microseconds, ``Z``) of epoch milliseconds; None when not a time."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if not 0 < value < 1e14:  # about year 5138: past that it is not epoch ms
        return None
    secs, frac = divmod(float(value) / 1000.0, 1.0)
    micros = min(round(frac * 1_000_000), 999_999)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(int(secs))) + f".{micros:06d}Z"


def iso(value: object) -> str | None:
    """A VS Code ISO timestamp (``2026-02-08T15:48:29.057Z``) in trail's form; None if not one.

    Only the ``Z`` form JavaScript's ``toISOString`` writes is taken as is; anything else is
    left to the caller (the hook then stamps on receipt).
    """
    if not isinstance(value, str) or len(value) < 20 or not value.endswith("Z"):
        return None
    body = value[:-1]
    head, dot, frac = body.partition(".")
    if len(head) != 19 or head[4] != "-" or head[10] != "T" or head[13] != ":":
        return None
    if not (head[:4] + head[5:7] + head[8:10] + head[11:13] + head[14:16] + head[17:19]).isdigit():
        return None
    if dot and not frac.isdigit():
        return None
    return f"{head}.{(frac + '000000')[:6]}Z"
