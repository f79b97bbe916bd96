"""trace_ingest.events: ids are what event_id says, whichever way new_event gets them."""

from __future__ import annotations

import random
import string

from trace_ingest.events import event_id, new_event

_CHARS = string.printable + 'é\ud800😀\x1f"\\'


def _text(rnd: random.Random) -> str:
    return "".join(rnd.choice(_CHARS) for _ in range(rnd.randint(0, 12)))


def test_new_event_id_is_event_id_of_its_parts() -> None:
    # new_event hashes (harness, source, session id) once per session and copies that state;
    # the id must be event_id's for every mix of parts (surrogates, separators, non-strings).
    rnd = random.Random(7)
    for _ in range(5000):
        harness = rnd.choice(["claude-code", "vibe", _text(rnd)])
        source = rnd.choice(["transcript", _text(rnd)])
        session = rnd.choice(["s1", "s2", _text(rnd)])
        kind = rnd.choice(["prompt", "tool_call", "no-such-kind", _text(rnd)])
        parts = tuple(
            rnd.choice([_text(rnd), rnd.randint(-(10**20), 10**20), None, [1, "a"], {"b": 2}, 1.5])
            for _ in range(rnd.randint(0, 4))
        )
        ev = new_event(
            harness=harness,
            source=source,
            session_id=session,
            kind=kind,
            received_at="2026-01-01T00:00:00.000000Z",
            id_parts=parts,
        )
        assert ev["id"] == event_id(harness, source, session, kind, *parts)


def test_event_id_is_stable() -> None:
    # The ids already on disk: a change here would make every re-import add duplicates.
    assert event_id("claude-code", "transcript", "s", "prompt", "u1", 3) == (
        "86ab8c41e99dc0ca175f09ccef92192b"
    )
    ev = new_event(
        harness="claude-code",
        source="transcript",
        session_id="s",
        kind="prompt",
        received_at="2026-01-01T00:00:00.000000Z",
        id_parts=("u1", 3),
    )
    assert ev["id"] == "86ab8c41e99dc0ca175f09ccef92192b"


def test_id_parts_of_strings_and_integers_hash_as_the_encoder_writes_them() -> None:
    """``_id_text`` writes a tuple of strings and integers itself; every part, that short cut
    or not, is the JSON text ``fastjson.dumps(part, default=str, sort_keys=True)`` gives, so
    event ids do not change."""
    import random

    from trace_ingest import fastjson
    from trace_ingest.events import _id_text

    rng = random.Random(4)
    pieces: list[object] = ["", "guide", 'é \u2028 \x00 "q" \\\\', "\ud800", 0, -7, 1 << 70, True]
    parts: list[object] = [
        tuple(rng.choice(pieces) for _ in range(rng.randrange(4))) for _ in range(500)
    ]
    parts += [("guide", ("nested", 1)), ["list", 1], ("f", 1.5), (None,), ()]
    for part in parts:
        want = fastjson.dumps(part, default=str, sort_keys=True) + "\x1f"
        assert _id_text((part,)) == want.encode("utf-8", "surrogatepass"), part
