"""The held-out scrubber corpus: four other scanners' public test data, stored obfuscated.

Built by ``tools/scrub_heldout.py`` from gitleaks' rule generators (tps/fps), detect-secrets'
plugin tests, trufflehog's detector tests and Nosey Parker's rule examples; decoded here at run
time. The file ``data/scrub_heldout.dat`` is zlib-compressed JSON XOR-ed with a BLAKE2b
keystream and base64-encoded, so no realistic token is ever in the repository in plain text
(secret scanners and push protection see only noise). The obfuscation is not secrecy: the
values are the other projects' public fakes.

Each case: ``{"src", "family", "kind": "tp"|"fp", "text", "secrets": [...], "rule"}``. Each
positive is tried in three forms (docs/scrubbing.md, "Held-out evaluation"):

- ``plain``: the test text as the other project wrote it;
- ``json``: that text inside a hook-like payload (``tool_input.command`` of a PostToolUse);
- ``export``: ``export X=<secret>``, the bare token under a name that says nothing.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

CORPUS_PATH = os.path.join(os.path.dirname(__file__), "data", "scrub_heldout.dat")
_PERSON = b"trail-heldout"


def _keystream(n: int) -> bytes:
    out = bytearray()
    counter = 0
    while len(out) < n:
        out += hashlib.blake2b(counter.to_bytes(8, "big"), person=_PERSON).digest()
        counter += 1
    return bytes(out[:n])


def _xor(data: bytes) -> bytes:
    ks = _keystream(len(data))
    return bytes(a ^ b for a, b in zip(data, ks, strict=True))


def encode_corpus(cases: list[dict[str, Any]], heads: dict[str, str]) -> None:
    blob = json.dumps({"sources": heads, "cases": cases}, sort_keys=True).encode()
    data = base64.b64encode(_xor(zlib.compress(blob, 9))).decode()
    lines = [data[i : i + 76] for i in range(0, len(data), 76)]
    with open(CORPUS_PATH, "w", encoding="ascii") as fh:
        fh.write("TRAIL-HELDOUT-1\n" + "\n".join(lines) + "\n")


def load_corpus(path: str = CORPUS_PATH) -> dict[str, Any]:
    with open(path, encoding="ascii") as fh:
        head, _, body = fh.read().partition("\n")
    if head != "TRAIL-HELDOUT-1":
        raise ValueError(f"{path}: not a held-out corpus file")
    raw = zlib.decompress(_xor(base64.b64decode("".join(body.split()))))
    out: dict[str, Any] = json.loads(raw)
    return out


@dataclass
class Trial:
    case: dict[str, Any]
    form: str  # plain | json | export | bare
    value: Any  # what is passed to scrub_value
    secret: str  # must not survive ("" for negatives)


def hook_payload(text: str) -> dict[str, Any]:
    return {
        "session_id": "3f1c2b9e-1d2c-4e5f-8a9b-0c1d2e3f4a5b",
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": text, "description": "run it"},
        "tool_response": {"stdout": "ok\n", "stderr": "", "interrupted": False},
    }


def trials(cases: list[dict[str, Any]]) -> Iterator[Trial]:
    for c in cases:
        if c["kind"] == "fp":
            yield Trial(c, "plain", c["text"], "")
            continue
        if not c["secrets"]:
            continue
        secret = max(c["secrets"], key=len)
        if len(secret) < 6:
            continue  # a capture too short to be the secret (a prefix group)
        yield Trial(c, "plain", c["text"], secret)
        yield Trial(c, "json", hook_payload(c["text"]), secret)
        if not any(ch.isspace() for ch in secret):
            yield Trial(c, "export", f"export X={secret}", secret)
            yield Trial(c, "bare", secret, secret)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(k)
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def survived(out: Any, secret: str) -> bool:
    """True when the secret (or most of it) is still readable in the output."""
    window = min(len(secret), 12)
    texts = list(_strings(out))
    if any(secret in t for t in texts):
        return True
    # a partial redaction that leaves a long piece of the secret readable counts as a leak
    for i in range(0, len(secret) - window + 1, max(1, window // 2)):
        piece = secret[i : i + window]
        if len(piece) >= 12 and any(piece in t for t in texts):
            return True
    return False


def changed(trial: Trial, out: Any) -> bool:
    return bool(out != trial.value)


def split_of(case: dict[str, Any]) -> str:
    """``dev`` or ``test``: a fixed half by hash, so misses can be studied on one half while
    the other stays unseen."""
    h = hashlib.blake2b(case["text"].encode(), digest_size=2).digest()
    return "dev" if h[0] % 2 == 0 else "test"


Runner = Callable[[Any], Any]
