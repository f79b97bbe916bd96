"""Bulk scrubbing (import, sync, ``trail scrub``) against the hook's scrubber: the whole-value
prefilter and the other bulk shortcuts may only skip work, never change a byte of output."""

from __future__ import annotations

import base64
import glob
import json
import os
import platform
import random
import string
import sys
import urllib.parse
from pathlib import Path
from typing import Any

import pytest

from trace_ingest.scrub import Scrubber, load_scrubber
from trace_ingest.scrub_bulk import BulkScrubber

sys.path.insert(0, os.path.dirname(__file__))
from scrub_corpus import corpus

# hyperscan is a dependency where it has a wheel (pyproject.toml); elsewhere the automaton runs
HYPERSCAN = sys.platform == "darwin" or platform.machine() in ("x86_64", "AMD64")


@pytest.fixture(params=["hyperscan", "ahocorasick"] if HYPERSCAN else ["ahocorasick"])
def pair(tmp_path: Any, request: Any) -> tuple[Scrubber, BulkScrubber]:
    """The hook's scrubber and a bulk one, with each bulk prefilter engine."""
    home = str(tmp_path / "home")
    hook, bulk = load_scrubber(home), load_scrubber(home, bulk=True)
    assert type(hook) is Scrubber and isinstance(bulk, BulkScrubber)
    assert bulk._flagger is not None and hook._hs is None and hook._automaton is None
    if request.param == "hyperscan":
        assert bulk._hs is not None and bulk._hs_flag is not None, "pip install hyperscan"
    else:
        bulk._hs = bulk._hs_flag = None
    return hook, bulk


def _quiet_b64(data: bytes) -> str:
    """``data`` base64-encoded after enough leading spaces that no keyword or key hint occurs
    in the encoding by chance (so only the base64 rescan can find what it hides)."""
    from trace_ingest.scrub_rules import _KEY_HINTS, builtin_rules

    words = {k for r in builtin_rules() for k in r.keywords} | set(_KEY_HINTS)
    for pad in range(200):
        enc = base64.b64encode(b" " * pad + data).decode()
        if not any(w in enc.lower() for w in words):
            return enc
    return enc


def _forms(value: Any, rng: random.Random) -> list[Any]:
    """``value`` as an event would carry it: nested in JSON text, under secret-looking and
    ordinary keys, encoded, next to non-ASCII text, beside clean strings."""
    text = value if isinstance(value, str) else json.dumps(value)
    raw = text.encode("utf-8", "surrogatepass")
    every = "".join(f"\\u{ord(c):04x}" for c in text[:400])  # no keyword left in the raw text
    return [
        value,
        {"type": "tool_result", "content": [{"type": "text", "text": text}], "n": 3},
        {"tool_input": json.dumps({"command": text, "ok": True})},  # JSON held in a string
        {"stdout": json.dumps({"out": text}, indent=2)},
        {"escaped": json.dumps({"out": text}, ensure_ascii=True)},  # \uXXXX escapes
        {"all_escaped": '{"out": "' + every + '"}', "as_text": every},
        {"password": text[-40:], "api_key": text[:40], "input_tokens": 12, "token": text},
        {text[:60]: "value", "k": [text, None, 1.5, False]},  # secrets in keys
        {"b64": base64.b64encode(raw).decode(), "url": urllib.parse.quote(text)},
        {"b64url": base64.urlsafe_b64encode(b"export SECRET=" + raw).decode()},
        {"pre": "\u0130\u212a " + text, "post": text + " \u00e9\u03a3 \u2026"},
        {"kelvin": text.replace("k", "\u212a")},  # lowers to "k": "to\u212aen" holds "token"
        {"pct_all": "".join(f"%{b:02X}" for b in raw[:200])},  # no keyword left readable
        {"nl_b64": "\n" + _quiet_b64(b"password=" + raw[:40])},
        {"b64_alone": _quiet_b64(b"export TOKEN=" + raw[:40])},
        {"uuid": "3f1c2b9e-1d2c-4e5f-8a9b-0c1d2e3f4a5b", "ts": "2026-12-01T10:00:00Z",
         "msg": rng.choice(["ok", "[INFO] done", "{not json", "[1, 2"]), "t": text},
    ]  # fmt: skip


def test_bulk_and_hook_give_identical_output(pair: tuple[Scrubber, BulkScrubber]) -> None:
    """Byte for byte, on the labelled corpus in every form above (its negatives too: a
    shortcut that skipped a string must still leave the near misses alone)."""
    hook, bulk = pair
    rng = random.Random(5)
    values = [form for s in corpus(seed=77, per_cell=2) for form in _forms(s.value, rng)]
    redacted = 0
    for value in values:
        want = hook.scrub_value(value)
        got = bulk.scrub_value(value)
        assert json.dumps(got, ensure_ascii=False) == json.dumps(want, ensure_ascii=False)
        redacted += bool(want[1])
    assert redacted > len(values) // 2  # the corpus does exercise the redacting paths


def test_bulk_and_hook_agree_on_recorded_sessions(
    pair: tuple[Scrubber, BulkScrubber], samples: Path
) -> None:
    """The real transcripts and hook payloads in shared/samples, line by line."""
    hook, bulk = pair
    files = sorted(glob.glob(os.path.join(samples, "**", "*.json*"), recursive=True))
    assert files, f"no samples under {samples}"
    n = 0
    for path in files:
        with open(path, encoding="utf-8", errors="replace") as fh:
            docs = fh.read().splitlines() if path.endswith(".jsonl") else [fh.read()]
        for doc in docs:
            try:
                value = json.loads(doc)
            except ValueError:
                continue
            assert bulk.scrub_value(value) == hook.scrub_value(value), path
            n += 1
    assert n > 500


def test_a_clean_value_comes_back_as_it_is(pair: tuple[Scrubber, BulkScrubber]) -> None:
    _, bulk = pair
    event = {"type": "assistant", "usage": {"input_tokens": 3, "output_tokens": 9},
             "uuid": "3f1c2b9e-1d2c-4e5f-8a9b-0c1d2e3f4a5b", "text": "all done"}  # fmt: skip
    clean, counts = bulk.scrub_value(event)
    assert clean is event and counts == {}


def test_a_rule_without_keywords_runs_everywhere(tmp_path: Any) -> None:
    """Every rule declares keywords; a configured pattern without any runs on every string,
    so the whole-value prefilter (which skips strings without a keyword) is off."""
    from trace_ingest.scrub_rules import builtin_rules

    assert all(r.keywords for r in builtin_rules())
    section = {"extra_patterns": [{"id": "acme", "pattern": "ACME-[0-9]{6}"}]}
    bulk = load_scrubber(str(tmp_path), section, bulk=True)
    assert bulk._flagger is None
    clean, counts = bulk.scrub_value({"note": "id ACME-123456", "k": ["x ACME-654321"]})
    assert counts == {"acme": 2} and "ACME-" not in json.dumps(clean)


def test_objects_that_are_not_plain_json_take_the_general_walk(
    pair: tuple[Scrubber, BulkScrubber],
) -> None:
    hook, bulk = pair
    secret = "password=" + "Zq8" * 6
    value = {"t": (secret, 1), "b": secret.encode(), 3: "x", "o": ValueError(secret)}
    assert bulk.scrub_value(value) == hook.scrub_value(value)
    assert secret not in repr(bulk.scrub_value(value)[0])


def test_base64_runs_are_the_regex_runs() -> None:
    """``_b64_runs`` (byte searches) finds exactly the spans of ``_B64_RUN`` (the regex)."""
    from trace_ingest.scrub import _B64_RUN, _b64_runs

    rng = random.Random(11)
    alphabet = "Aa0+/_-" * 30 + "==" + " .\u00e9\u0130\U0001f600\ud800\n"
    found = 0
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 200)))
        want = [m.span() for m in _B64_RUN().finditer(text)]
        assert list(_b64_runs(text)) == want, text
        found += len(want)
    assert found > 1000


def _heads(items: Any) -> list[str] | None:
    """The literal text each alternative of a parsed pattern must start with (``re``'s own
    parser: the reference for ``literal_prefixes``); None where unknown."""
    from re import _constants as c  # type: ignore[attr-defined]

    head = ""
    i = 0
    while i < len(items) and items[i][0] is c.LITERAL:
        head += chr(items[i][1])
        i += 1
    rest: list[str] | None = None
    if i < len(items):
        op, av = items[i]
        if op is c.BRANCH:
            rest = []
            for alt in av[1]:
                sub = _heads(list(alt))
                if sub is None:
                    rest = None
                    break
                rest += sub
        elif op is c.SUBPATTERN and not av[1] and not av[2]:
            rest = _heads(list(av[3]))
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT) and av[0] >= 1:
            rest = _heads(list(av[2]))
        elif op is c.IN and not head and all(o is c.LITERAL for o, _ in av):
            after = _heads(items[i + 1 :]) or [""]
            rest = [chr(v) + h for _, v in av for h in after]
    if rest is None:
        return [head] if head else None
    return [head + r for r in rest]


def test_literal_prefixes_agree_with_re() -> None:
    """Every match of a rule's pattern starts with one of the prefixes ``Rule._matches``
    searches for (checked with ``re``'s parser), and the rules that have them match as
    ``finditer`` does on text full of near-prefixes."""
    from re import _parser  # type: ignore[attr-defined]

    from trace_ingest import scrub_rules
    from trace_ingest.scrub_rules import builtin_rules, literal_prefixes

    patterns = [(r.id, r.pattern, r.flags) for r in builtin_rules() if r.pattern and not r.finder]
    patterns += [  # the finders' own regexes (prefixed_finditer)
        (name, v.pattern, v.flags)
        for name, v in vars(scrub_rules).items()
        if isinstance(v, scrub_rules._Lazy)
    ]
    checked = 0
    for name, pattern, flags in patterns:
        claimed = literal_prefixes(pattern)
        if claimed is None:
            continue
        heads = _heads(list(_parser.parse(pattern, flags)))
        assert heads is not None, name
        assert all(any(h.startswith(p) for p in claimed) for h in heads), (name, claimed)
        checked += 1
    assert checked > 50
    for pattern, want in [
        ("(?:sq0atp-[A-Z]{3}|EAAA[a-z]+)", ("sq0atp-", "EAAA")),
        (r"ab\-c[0-9]", ("ab-c",)),
        ("(?:abc)?def", None),
        ("abc|de", None),
        ("ab?cd", None),
        (r"\bxyz", None),
        ("(?i:abc)", None),
        ("aaa+b", ("aaa",)),
        ("((?:pass|user)_?x|pwd)y", ("pass", "user", "pwd")),
        ("(?:passw|pass)d", ("pass",)),
        ("(?P<n>abc)", None),
        ("(?=abc)abc", None),
        ("(?:abc){0,2}x", None),
        (r"[st]k\.eyJ[a-z]+", ("sk.eyJ", "tk.eyJ")),
        ("x|[ab]cd", None),
        ("[ab]+cd", None),
        ("[a-c]def", None),
        ("(?:[ab]cd|efg)", ("acd", "bcd", "efg")),
    ]:
        assert literal_prefixes(pattern) == want, pattern


def test_prefixed_matching_is_finditer() -> None:
    import re as std_re

    from trace_ingest.scrub_rules import Rule, _prefixed_matches, literal_prefixes

    rng = random.Random(3)
    for pattern in [r"(?:abx[0-9]{2}|abc)x?", r"xyz[a-z]{0,3}+", r"(?:aaa|aab)a*", r"a\.b(?=c)"]:
        rule = Rule("t", ("a",), pattern)
        rx = std_re.compile(pattern)
        prefixes = literal_prefixes(pattern)
        assert prefixes
        for _ in range(300):
            text = "".join(rng.choice("abcxyz0.1 ") for _ in range(rng.randrange(80)))
            want = [m.span() for m in rx.finditer(text)]
            assert [m.span() for m in rule._matches(rx, text)] == want, (pattern, text)
            assert [m.span() for m in _prefixed_matches(rx, text, prefixes)] == want


def test_caseless_prefixed_matching_is_finditer() -> None:
    """A pattern led by ``(?i:literal…)`` is tried only where the lowered literal occurs on
    ASCII text, and matches as ``finditer`` does on ASCII and non-ASCII text alike (the
    Kelvin sign and a dotless i, which ``re`` pairs with k and i, take the full scan)."""
    import re as std_re

    from trace_ingest.scrub_rules import Rule, caseless_prefixes

    assert caseless_prefixes("(?i:abc)?x") is None
    assert caseless_prefixes("(?i:abc)|xyz") is None
    assert caseless_prefixes("(?i:ab)c") is None
    assert caseless_prefixes("(?i:OpenAI[_-]?key)=") == ("openai",)
    rng = random.Random(5)
    for pattern in [r"(?i:kai[_-]?(?:x_)?key)=([0-9a-f]{4})", r"(?i:kai|ika)[0-9]"]:
        rule = Rule("t", ("kai",), pattern)
        rx = std_re.compile(pattern)
        assert caseless_prefixes(pattern)
        for alphabet in ("kaiKAIyx_-=0a1f ", "kaiKAIyx_-=0a1f \u212a\u0131"):
            for _ in range(400):
                text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(60)))
                want = [m.span() for m in rx.finditer(text)]
                assert [m.span() for m in rule._matches(rx, text)] == want, (pattern, text)
    azure = next(r for r in builtin_rules_of("azure-openai-key"))
    assert azure._caseless is None and caseless_prefixes(azure.pattern) == ("openai",)


def _samples(pattern: str, rng: random.Random, count: int) -> list[str]:
    """Random strings ``pattern`` matches (most of the time: look-arounds and boundaries are
    not honoured), from ``re``'s parse of it."""
    from re import _constants as c  # type: ignore[attr-defined]
    from re import _parser  # type: ignore[attr-defined]

    universe = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_-.|%/+=:! \u00e9"
    categories = {
        c.CATEGORY_DIGIT: str.isdigit,
        c.CATEGORY_WORD: lambda ch: ch.isalnum() or ch == "_",
        c.CATEGORY_SPACE: str.isspace,
    }

    def member(ch: str, av: Any) -> bool:
        negate = False
        hit = False
        for op, v in av:
            if op is c.NEGATE:
                negate = True
            elif op is c.LITERAL:
                hit |= ch == chr(v)
            elif op is c.RANGE:
                hit |= v[0] <= ord(ch) <= v[1]
            elif op is c.CATEGORY:
                name = str(v)
                base = next(f for k, f in categories.items() if str(k) in name)
                hit |= base(ch) != name.startswith("CATEGORY_NOT")
        return hit != negate

    chars: dict[int, list[str]] = {}

    def gen(items: Any) -> str:
        out = ""
        for op, av in items:
            if op is c.LITERAL:
                out += chr(av)
            elif op is c.IN:
                if id(av) not in chars:
                    chars[id(av)] = [ch for ch in universe if member(ch, av)] or ["?"]
                out += rng.choice(chars[id(av)])
            elif op is c.ANY:
                out += rng.choice(universe)
            elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
                top = min(av[1], av[0] + 4)
                out += "".join(gen(av[2]) for _ in range(rng.randint(av[0], top)))
            elif op in (c.SUBPATTERN, c.ATOMIC_GROUP):
                out += gen(av[-1])
            elif op is c.BRANCH:
                out += gen(rng.choice(av[1]))
        return out

    parsed = _parser.parse(pattern)
    return [gen(parsed) for _ in range(count)]


def _offset_ok(pattern: str, lo: int, hi: int, literals: tuple[str, ...]) -> bool:
    """Whether ``re``'s own parser agrees with ``offset_literals``: some top-level item of the
    pattern starts, after items of width ``lo``..``hi`` (``getwidth``), either a run of
    literal characters equal to one of ``literals`` (all of them the same) or a group whose
    every alternative starts with one of them (``_heads``)."""
    from re import _constants as c  # type: ignore[attr-defined]
    from re import _parser  # type: ignore[attr-defined]

    parsed = _parser.parse(pattern)
    items: list[Any] = []
    for op, av in parsed:  # A{22} as 22 literal A's, as offset_literals reads it
        repeat = op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT)
        if repeat and av[0] == av[1] and len(av[2]) == 1 and av[2][0][0] is c.LITERAL:
            items += [av[2][0]] * av[0]
        else:
            items.append((op, av))
    for k in range(len(items)):
        width = _parser.SubPattern(parsed.state, items[:k]).getwidth() if k else (0, 0)
        if width != (lo, hi):
            continue
        chars = ""
        for op, av in items[k:]:
            if op is not c.LITERAL:
                break
            chars += chr(av)
        if len(literals) == 1 and chars.startswith(literals[0]):
            return True
        heads = _heads(items[k:])
        if heads and not chars and all(any(h.startswith(x) for x in literals) for h in heads):
            return True
    return False


def test_offset_literals_agree_with_re() -> None:
    """Every match of a pattern ``Rule._matches`` tries only near its literals holds one of
    them where ``offset_literals`` says (checked with ``re``'s parser), for every built-in
    pattern it reads and for shapes it must refuse."""
    from trace_ingest.scrub import Scrubber
    from trace_ingest.scrub_rules import PII_CATEGORIES, offset_literals

    rules = Scrubber("/nonexistent", pii=PII_CATEGORIES).rules
    read = 0
    for rule in rules:
        found = offset_literals(rule.pattern) if rule.pattern else None
        if found is not None:
            assert _offset_ok(rule.pattern, *found), (rule.id, found)
            read += 1
    assert read >= 8
    for pattern, want in [
        (r"[0-9a-f]{32}-us[0-9]{1,2}", (32, 32, ("-us",))),
        (r"[0-9]{15,16}(?:\||%7C)x", (15, 16, ("|", "%7C"))),
        (r"A{22}[a-z]", (0, 0, ("A" * 22,))),
        (r"[a-c]?[0-9]{0,2}?b{2}c", (0, 3, ("bbc",))),
        (r"\d{2}+\.x?y", (2, 2, (".",))),
        (r"[ab]{1,3}+(?:cd|ef)", (1, 3, ("cd", "ef"))),
        (r"[^]x]{2}yy", (2, 2, ("yy",))),
        ("abc[0-9]{4}def", None),  # a literal first: sre finds it already
        (r"[0-9]{3,}x", None),  # unbounded before the literal
        (r"[0-9]+x", None),
        (r"[0-9]{3}x|y", None),  # two alternatives
        (r"\b[0-9]{3}x", None),  # zero-width first
        (r"(?:ab)?[0-9]x", None),
        (r"[0-9]{2}(?:ab)?c", None),  # an optional group: no literal every match holds
        (r"[0-9]{2}(?i:ab)", None),
        (r"[0-9]{2}(?=ab)", None),
        (r"[0-9]{a}x", None),  # a brace that is no quantifier
        (r"[0-9]{2,}x", None),
    ]:
        assert offset_literals(pattern) == want, pattern
        if want is not None:
            assert _offset_ok(pattern, *want), pattern


def test_offset_matching_is_finditer() -> None:
    """Tried only a bounded distance before its literals, a pattern finds exactly the spans
    and groups ``finditer`` finds: random text dense with the literals and with runs of the
    classes before them (overlapping literals, matches that would overlap, starts cut off at
    the text's start, look-behinds and boundaries), so a window that is one too narrow, a
    start tried twice or a match found inside an earlier one fails. Every built-in pattern
    ``offset_literals`` reads, and shapes of its own."""
    import re as std_re

    from trace_ingest.scrub import Scrubber
    from trace_ingest.scrub_rules import PII_CATEGORIES, Rule, _offset_starts, offset_literals

    rules = Scrubber("/nonexistent", pii=PII_CATEGORIES).rules
    patterns = sorted({r.pattern for r in rules if r.pattern and offset_literals(r.pattern)})
    patterns += [
        r"[0-9]{2,4}ab[x-z]?",
        r"[ab]{1,3}(?:cd|e)f",
        r"\d{2}x\b",
        r"[0-9]{1,2}zz(?<![5]zz)",
        r".{0,2}zz(?<=zz)",
        r"[a-c]?[0-9]{0,2}?b{2}c",
        r"[0-9]{2}aa[0-9]",
        r"\w{3}\.\w+$",
    ]
    rng = random.Random(13)
    noise = "0123456789abcdefABCDEF_-.|%7Cxyz Zbc\n/\u00e9"
    for pattern in patterns:
        lo, hi, literals = offset_literals(pattern) or (0, 0, ())
        assert literals, pattern
        rule = Rule("t", ("x",), pattern)
        rx = std_re.compile(pattern)
        matches = windowed = 0
        samples = _samples(pattern, rng, 200)
        for _ in range(800):
            parts = []
            for _ in range(rng.randrange(1, 7)):
                r = rng.random()
                if r < 0.45:  # a match, maybe cut short or with one character changed
                    sample = rng.choice(samples)
                    if rng.random() < 0.3:
                        cut = rng.randrange(len(sample) + 1)
                        sample = sample[:cut] + rng.choice(noise) + sample[cut + 1 :]
                    parts.append(sample)
                elif r < 0.65:
                    parts.append(rng.choice(literals))
                elif r < 0.85:
                    run = rng.randrange(hi + 3)
                    parts.append("".join(rng.choice("0123456789abcdefA") for _ in range(run)))
                else:
                    parts.append("".join(rng.choice(noise) for _ in range(rng.randrange(10))))
            text = "".join(parts)
            want = [(m.span(), m.groups()) for m in rx.finditer(text)]
            assert [(m.span(), m.groups()) for m in rule._matches(rx, text)] == want, (
                pattern,
                text,
            )
            matches += len(want)
            windowed += _offset_starts(rx, text, (lo, hi, literals)) is not None
        assert matches > 300, (pattern, matches)
        assert windowed > 600, pattern  # the windowed path ran, not the fallback scan
    # a finder's regex with the window its caller gives (the cookie header's alternatives)
    from trace_ingest.scrub_finders import _COOKIE_AT, _COOKIE_HEAD
    from trace_ingest.scrub_rules import windowed_finditer

    rx = _COOKIE_HEAD()
    pieces = ["cookie", "set-", "--", "-", "s", '"', "'", " ", "\t", ":", "=", "x", "\n"]
    hits = 0
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(30)))
        want = [(m.span(), m.groups()) for m in rx.finditer(text)]
        assert [
            (m.span(), m.groups()) for m in windowed_finditer(_COOKIE_HEAD, text, _COOKIE_AT)
        ] == want, text
        hits += len(want)
    assert hits > 500
    # dense literals: past the budget the plain scan runs, with the same matches
    rx = std_re.compile(r"[0-9a-f]{32}-us[0-9]{1,2}")
    dense = ("0123456789abcdef" * 2 + "-us1") * 50 + "-us" * 500
    assert _offset_starts(rx, dense, (32, 32, ("-us",))) is None
    got = [m.span() for m in Rule("t", ("-us",), rx.pattern)._matches(rx, dense)]
    assert got == [m.span() for m in rx.finditer(dense)] and len(got) == 25


def builtin_rules_of(rule_id: str) -> list[Any]:
    from trace_ingest.scrub_rules import builtin_rules

    return [r for r in builtin_rules() if r.id == rule_id]


def test_token_runs_are_the_regex_runs() -> None:
    """``_token_runs`` (byte searches on ASCII text) gives the regex's runs, joined."""
    from trace_ingest.scrub import _TOKEN_RUN, _token_runs

    rng = random.Random(12)
    alphabet = "ab0_-.:/=" * 20 + " \t\n\x0b\x0c\x1c\x1f\"'`<>()[]{},;\\\x7f\x00"
    found = 0
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 300)))
        want = " ".join(_TOKEN_RUN().findall(text))
        assert _token_runs(text) == want, text
        found += bool(want)
    assert found > 1000
    assert _token_runs("\u00e9" + "x" * 20 + " y") == "\u00e9" + "x" * 20  # non-ASCII: the regex


def test_scrub_event_says_nothing_to_redact_exactly_when_nothing_is(
    pair: tuple[Scrubber, BulkScrubber],
) -> None:
    """``scrub_event(body, compact JSON)`` (the importers' entry) gives ``(None, {})`` exactly
    when the hook's scrubber redacts nothing, else the hook's result: on the corpus in every
    form."""
    rng = random.Random(6)
    bodies: list[Any] = [
        {"value": form} for s in corpus(seed=78, per_cell=1) for form in _forms(s.value, rng)
    ]
    assert 0 < _events_agree(*pair, bodies) < len(bodies)


def test_scrub_event_says_nothing_to_redact_on_recorded_sessions(
    pair: tuple[Scrubber, BulkScrubber], samples: Path
) -> None:
    """The same on every line of the recorded sessions in shared/samples."""
    bodies: list[Any] = []
    for path in sorted(glob.glob(os.path.join(samples, "**", "*.jsonl"), recursive=True)):
        with open(path, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                try:
                    bodies.append({"line": json.loads(line)})
                except ValueError:
                    continue  # a truncated or broken line of a sample: not a JSON value
    assert len(bodies) > 500  # the samples were found and read
    _events_agree(*pair, bodies)  # recorded sessions hold no live secret: all may be kept


def _events_agree(hook: Scrubber, bulk: BulkScrubber, bodies: list[Any]) -> int:
    """``_event_agrees_with_hook`` on each body; how many were redacted."""
    from trace_ingest.importers import orjson_exact

    redacted = 0
    for body in bodies:
        text = orjson_exact.dumps(body)
        if text is not None:
            redacted += _event_agrees_with_hook(hook, bulk, body, text)
    return redacted


def _event_agrees_with_hook(hook: Scrubber, bulk: Scrubber, body: Any, text: bytes) -> bool:
    """Asserts ``bulk.scrub_event`` gives the hook's ``scrub_value`` of ``body`` (``(None,
    {})`` when nothing is redacted); whether anything was."""
    want = hook.scrub_value(body)
    assert bulk.scrub_event(body, text) == (want if want[1] else (None, {}))
    return bool(want[1])


def _json_text_forms(text: str) -> list[dict[str, Any]]:
    """``text`` where the importers' JSON text of an event escapes things around it: after
    escaped quotes and backslashes, split by newlines, in keys with quotes, at a string's
    edges, beside strings that look like JSON."""
    return [
        {"q": 'say \\"' + text + '\\" \\\\', "k": '"' + text + '"'},
        {'"' + text[:50] + "\\": text[-50:] + "\\", "n": [1, {"\t": "\n" + text + "\r"}]},
        {"lines": "\n".join(text[i : i + 7] for i in range(0, len(text), 7))},
        {"json": '{"a": "\\u0041' + text + '\\"x"}', "arr": ' [\\"' + text + "]"},
        {"s": text + "%4", "t": "%zz" + text, "u": "a%2Fb " + text},
        {"": text, "x": "", "y": [text, text, ""]},
    ]


def test_scrub_event_flags_from_the_json_text_what_the_walk_flags(
    pair: tuple[Scrubber, BulkScrubber],
) -> None:
    """With hyperscan, ``scrub_event`` flags strings from the event's JSON text
    (``_flagged_text``): every string the walk (``_flagged``) flags, and the hook's result,
    on the corpus in every form, escaped every way JSON text escapes."""
    from trace_ingest.importers import orjson_exact

    hook, bulk = pair
    rng = random.Random(8)
    bodies = [
        b
        for s in corpus(seed=79, per_cell=1)
        for form in _forms(s.value, rng)
        for b in [{"value": form}, *_json_text_forms(json.dumps(form, ensure_ascii=False))]
    ]
    bodies = rng.sample(bodies, min(len(bodies), 1500))  # the hook's walk is slow
    from_text = redacted = 0
    for body in bodies:
        text = orjson_exact.dumps(body)
        if text is None:
            continue
        redacted += _event_agrees_with_hook(hook, bulk, body, text)
        if bulk._loads is None:
            continue
        got = bulk._strings_of(body)
        assert got is not None
        flagged = bulk._flagged_text(text)
        if flagged is not None:
            assert bulk._flagged(got[0]) <= flagged
            from_text += 1
    assert 0 < redacted < len(bodies)
    assert (from_text > len(bodies) // 2) == (bulk._hs_flag is not None)


def test_base64_runs_are_judged_from_the_json_text_as_in_the_string(
    pair: tuple[Scrubber, BulkScrubber],
) -> None:
    """``_flagged_text`` tells a base64 run that decodes to no text from the JSON text alone
    (no string found or decoded): a run right after an escape (``\\n``, ``\\u001f``, ``\\\\``)
    differs from the string's run there, so the string is looked at whole; a live run after
    dead ones (ids, hashes, paths) in the same string or another is still found; ``=``
    padding goes with its run. Each case as the hook scrubs it."""
    from trace_ingest.importers import orjson_exact

    hook, bulk = pair
    # base64 holding no keyword or key hint, nor after the letters of an escape: only the
    # base64 rescan finds the token in it
    secret = base64.b64encode(b"  ghp_R8s2kLq9ZxW4mN7pT1vY3bC6dF0hJ5gE2aQu").decode()
    padded = base64.b64encode(b"  ghp_R8s2kLq9ZxW4mN7pT1vY3bC6dF0hJ5gE2aQu ").decode()
    assert padded.endswith("IA==")
    ids = "8c5d2f3e-1a4b-5c6d-9e8f-0a1b2c3d4e5f " + "0123456789abcdef" * 4
    path = "/tmp/vibe-obs/rig/read_shell_failure/project/notes"
    strings = [
        *(f"{lead}{secret}" for lead in ("\n", "\t", "\x1f", "\\", "\\\\", '"', "\r\n", "é")),
        f"{ids} {path} {secret}",
        padded,
        f"{padded}={ids}",
        f"{secret}\n{ids}",
        secret,
        ids,
        path,
    ]
    bodies: list[dict[str, Any]] = [{"s": s} for s in strings]
    bodies += [{"a": ids, "b": [path, ids], "c": "\n" + secret}, {"k\n" + secret: ids}]
    for body in bodies:
        text = orjson_exact.dumps(body)
        assert text is not None
        redacted = _event_agrees_with_hook(hook, bulk, body, text)
        assert redacted == (secret[:40] in orjson_exact.dumps(body).decode())
        if bulk._hs_flag is None:  # the automaton: the walk flags
            continue
        got = bulk._strings_of(body)
        assert got is not None
        flagged = bulk._flagged_text(text)
        assert flagged is not None
        assert bulk._flagged(got[0]) <= flagged


def test_a_hinted_key_takes_the_walk_only_over_a_string_value(
    pair: tuple[Scrubber, BulkScrubber],
) -> None:
    """``_flagged_text`` leaves an event to the walk for a key ``_field_kind`` gives a kind
    only when its value is a string (``_keyed`` scans that value whatever the prefilter
    says); over a number, an object or a list, and for a hinted value, it flags from the text.
    Every case as the hook scrubs it."""
    from trace_ingest.importers import orjson_exact

    hook, bulk = pair
    token = "ghp_R8s2kLq9ZxW4mN7pT1vY3bC6dF0hJ5gE2aQu"
    to_walk = [
        {"currentTokens": "12345678"},
        {"password": "hunter2hunter2"},
        {"a": [{"api_key": "Zq8RkLmT3vYp9WcX2sNd"}]},
        {"authToken": "abc"},  # too short for _keyed: the walk anyway
    ]
    from_text = [
        {"currentTokens": 1234, "limit": 5},
        {"password": {"value": "x", "n": [1, 2]}},
        {"secret_key": [token, "plain"]},
        {"cmd": "pwd && ls -la", "note": "the password is hunter2hunter2"},
        {"inner": '{"password": "hunter2hunter2", "token": "' + token + '"}'},
        {"authToken": None, "x": token},
        {"cookie": True, "k": "key"},
    ]
    for body in to_walk + from_text:
        text = orjson_exact.dumps(body)
        assert text is not None
        _event_agrees_with_hook(hook, bulk, body, text)
        if bulk._hs_flag is None:  # the automaton: the walk flags
            continue
        flagged = bulk._flagged_text(text)
        assert (flagged is None) == (body in to_walk), body
        got = bulk._strings_of(body)
        assert got is not None
        if flagged is not None:
            assert bulk._flagged(got[0]) <= flagged


def test_name_value_pairs_take_the_walk_and_lose_their_value(
    pair: tuple[Scrubber, BulkScrubber],
) -> None:
    """A name/value pair whose name says its value is a secret (``Scrubber._pair``: a
    Kubernetes ``env`` entry, an SSM parameter) has its value redacted by both scrubbers,
    though the value holds no keyword; a pair naming nothing secret is left as it is."""
    from trace_ingest.importers import orjson_exact

    hook, bulk = pair
    rng = random.Random(11)
    tok = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(38)) + "7Q"
    secret = [
        {"env": [{"name": "API_TOKEN", "value": tok}, {"name": "LOG_LEVEL", "value": "debug"}]},
        {"Parameter": {"Name": "/prod/db/password", "Type": "SecureString", "Value": tok}},
        {"headers": [{"value": tok, "name": "X-API-Key"}]},
    ]
    plain = [
        {"env": [{"name": "PAGE_SIZE", "value": "25"}]},
        {"env": [{"name": "API_TOKEN", "value": "${API_TOKEN}"}]},
        {"q": [{"name": "token_type", "value": "bearer_token_value"}]},
    ]
    for body in secret + plain:
        text = orjson_exact.dumps(body)
        assert text is not None
        redacted = _event_agrees_with_hook(hook, bulk, body, text)
        assert redacted == (body in secret), body
        if redacted:
            assert tok not in json.dumps(bulk.scrub_event(body, text)[0])


def test_a_lowercase_uuid_never_decodes_to_text() -> None:
    """``scrub_bulk._uuid`` runs are taken as dead without decoding them: the proof. A UUID
    decodes (base64url: ``-`` is ``+``) in 9 groups of four characters, 3 bytes each, so its
    non-text bytes are the sum over the groups; the least each group can give, over every
    filling of its hex places, sums past what ``_b64_text`` allows in 27 bytes (27 // 10)."""
    import binascii
    import itertools
    import uuid

    from trace_ingest.scrub import _PRINTABLE, _b64_text
    from trace_ingest.scrub_bulk import _b64_run_live, _uuid

    shape = "hhhhhhhh-hhhh-hhhh-hhhh-hhhhhhhhhhhh"
    least = 0
    for g in range(0, 36, 4):
        places = ["0123456789abcdef" if c == "h" else "+" for c in shape[g : g + 4]]
        least += min(
            len(binascii.a2b_base64("".join(chars)).translate(None, _PRINTABLE))
            for chars in itertools.product(*places)
        )
    assert least > 27 // 10
    rng = random.Random(5)
    for _ in range(2000):
        run = str(uuid.UUID(int=rng.getrandbits(128)))
        assert _uuid(run.encode()) and _b64_text(run) is None and not _b64_run_live(run)
    for near in (
        "0123456A-89ab-cdef-0123-456789abcdef",  # upper case: not taken
        "01234567-89ab-cdef-0123-456789abcdef0",
        "01234567-89ab-cdef-01234-56789abcdef",
        "0123456789abcdef0123456789abcdef0123",
        "01234567-89ab-cdef-0123-456789abcdeg",
        "01234567-89ab-cdef-0123-456789abcde=",
    ):
        assert not _uuid(near.encode())


def test_the_closing_tag_gate_skips_only_documents_naming_no_secret(monkeypatch: Any) -> None:
    """``_xml_finder`` walks the closing tags only when ``findall`` saw a name that says
    secret: the same spans as walking them always, on random documents of ordinary and
    secret-named elements, namespaces, nesting, self-closing and broken tags."""
    from trace_ingest import scrub_rules

    rng = random.Random(17)
    names = ["p", "code", "a", "b", "ns:p", "Password", "apiToken", "x:secret", "Key", "name"]
    values = ["Xk92!mQz7rT", "hunter2hunter2", "{AQAAABAAAAAQ1234567890abc}", "ok", "<b>x</b>"]
    docs = []
    for _ in range(1500):
        parts = []
        for _ in range(rng.randrange(1, 8)):
            name = rng.choice(names)
            form = rng.random()
            if form < 0.6:
                parts.append(f"<{name}>{rng.choice(values)}</{name}>")
            elif form < 0.8:
                parts.append(f"<{name} id='1'>{rng.choice(values)}</{name}> text ")
            else:
                parts.append(rng.choice(["</", "<br/>", "</ p>", f"</{name}", " > "]))
        docs.append("".join(parts))

    def spans() -> list[list[tuple[int, int]]]:
        return [list(scrub_rules._xml_finder(d, d.lower())) for d in docs]

    gated = spans()
    skipped = sum(not scrub_rules._xml_secret_names(d) for d in docs)
    monkeypatch.setattr(scrub_rules, "_xml_secret_names", lambda text: True)
    assert spans() == gated
    assert sum(map(len, gated)) > 300
    assert skipped > 100


def test_no_keyword_holds_a_character_json_escapes() -> None:
    """A keyword or key hint with a quote, a backslash or a control character (``-a<tab>``)
    is spelled differently in an event's JSON text, so one turns the import path's flagging
    from that text off for every event (``BulkScrubber._loads``): none may have one."""
    from trace_ingest.scrub_rules import _FLAG_HINTS, builtin_rules

    words = [k for rule in builtin_rules() for k in rule.keywords] + list(_FLAG_HINTS)
    assert [k for k in words if any(c in '"\\' or c < " " for c in k)] == []
