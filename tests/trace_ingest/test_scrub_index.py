"""The hook prefilter's keyword tries and the generated index (trace_ingest/scrub_index.py):
the tries find exactly the keywords ``in`` finds, the index equals what the code computes, and
the hook's rule choice is the per-keyword ``in`` loop's on every kind of text."""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import pytest

from trace_ingest import scrub, scrub_index, scrub_rules
from trace_ingest.scrub import (
    TOKEN_RUNS_FROM,
    Scrubber,
    _token_runs,
    keyword_trie,
    load_scrubber,
    prefix_words,
)
from trace_ingest.scrub_rules import PII_CATEGORIES, prefixes_of_pattern

ROOT = Path(__file__).resolve().parents[2]


def _trie_found(words: tuple[str, ...], text: str) -> set[str]:
    """The keywords the trie + prefix closure report for ``text``."""
    import re

    pre = prefix_words(words)
    found: set[str] = set()
    for k in re.findall(keyword_trie(words), text):
        found.add(k)
        found.update(pre.get(k, ()))
    return found


def _naive_hits(s: Scrubber, text: str) -> set[int]:
    """The rules the hook's prefilter chose before the tries: one ``in`` test per keyword,
    token-only keywords on the token runs of long strings."""
    low = text.lower()
    hit: set[int] = set()
    for kw, idxs in s._kw_full:
        if kw in low:
            hit.update(idxs)
    runs = low if len(low) < TOKEN_RUNS_FROM else _token_runs(low)
    for kw, idxs in s._kw_token:
        if kw in runs:
            hit.update(idxs)
    return hit


def _hook_hits(s: Scrubber, text: str, monkeypatch: Any) -> set[int]:
    """The rules ``_find`` runs on ``text`` (its spans are taken from exactly these)."""
    seen: set[int] = set()
    real = s._table

    class Probe(list):  # type: ignore[type-arg]
        def __getitem__(self, i: Any) -> Any:
            if isinstance(i, int):
                seen.add(i)
            return list.__getitem__(self, i)

    monkeypatch.setattr(s, "_table", Probe(real))
    try:
        s._find(text)
    finally:
        monkeypatch.setattr(s, "_table", real)
    return seen


ALPHABET = "ab-_.$~|()[]{}?*+^\\ \n\té"


def _random_words(rng: random.Random) -> tuple[str, ...]:
    words = {
        "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 5)))
        for _ in range(rng.randint(1, 12))
    }
    # prefixes, suffix/prefix overlaps and nesting, which a non-overlapping scan would miss
    for w in list(words):
        if len(w) > 1:
            words.add(w[: rng.randint(1, len(w) - 1)])
            words.add(w[rng.randint(1, len(w) - 1) :] + rng.choice(ALPHABET))
    return tuple(sorted(words))


def test_the_trie_finds_exactly_the_keywords_in_finds() -> None:
    rng = random.Random(10)
    for _ in range(3000):
        words = _random_words(rng)
        parts = [rng.choice(words) for _ in range(rng.randint(0, 6))]
        text = "".join(
            p + "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 3))) for p in parts
        )
        assert _trie_found(words, text) == {w for w in words if w in text}, (words, text)


def test_the_trie_of_no_words_finds_nothing() -> None:
    import re

    assert re.findall(keyword_trie(()), "anything") == []
    assert re.findall(keyword_trie(("",)), "anything") == []


def test_a_long_keyword_does_not_exhaust_the_stack() -> None:
    import re

    word = "x" * 5000
    assert re.findall(keyword_trie((word, "xx")), "a" + word + "b") == [word] + ["xx"] * 4998


def test_long_text_in_chunks_finds_keywords_across_chunk_ends(monkeypatch: Any) -> None:
    """``_trie_hits`` cuts long text into chunks; a keyword across a cut is still found."""
    s = load_scrubber("/nonexistent")
    monkeypatch.setattr(scrub, "_TRIE_CHUNK", 7)
    tries = s._build_tries()
    rng = random.Random(3)
    words = sorted(s._kw_rules)
    for _ in range(300):
        text = "".join(
            rng.choice(words) if rng.random() < 0.3 else rng.choice(" x=\n") for _ in range(30)
        )
        hit: set[int] = set()
        s._trie_hits(tries[0], tries[2], text, hit)
        want = {i for k in words if k in text for i in s._kw_rules[k]}
        assert hit == want, text


def test_the_index_equals_what_the_code_computes() -> None:
    import importlib.util

    # loaded by path: tools/ on sys.path would shadow test helpers of the same name
    spec = importlib.util.spec_from_file_location(
        "gen_scrub_index", ROOT / "tools/gen_scrub_index.py"
    )
    assert spec is not None and spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    want = gen.data()
    assert want["PREFIXES"] == scrub_index.PREFIXES, "run tools/gen_scrub_index.py"
    assert want["OFFSETS"] == scrub_index.OFFSETS, "run tools/gen_scrub_index.py"
    assert set(scrub_index.OFFSETS) <= set(scrub_index.PREFIXES)
    assert want["TRIES"] == scrub_index.TRIES, "run tools/gen_scrub_index.py"
    assert want["PREFIX_WORDS"] == scrub_index.PREFIX_WORDS, "run tools/gen_scrub_index.py"
    for name in ("RULE_KEYS", "KW_FULL", "KW_TOKEN", "KW_ALWAYS"):
        assert want[name] == getattr(scrub_index, name), "run tools/gen_scrub_index.py"
    for pattern, prefixes in scrub_index.PREFIXES.items():
        assert prefixes == prefixes_of_pattern(pattern)


@pytest.mark.parametrize("pii", [(), PII_CATEGORIES])
def test_built_in_scrubbers_take_their_tries_from_the_index(pii: tuple[str, ...]) -> None:
    s = Scrubber("/nonexistent", pii=pii)
    every = tuple(sorted(s._kw_rules))
    token = tuple(sorted(k for k, _ in s._kw_token))
    assert every in scrub_index.TRIES and token in scrub_index.TRIES
    assert every in scrub_index.PREFIX_WORDS
    tries = s._build_tries()
    assert tries[0].pattern == keyword_trie(every)
    assert tries[1].pattern == keyword_trie(token)
    assert tries[2] == prefix_words(every)
    # every pattern the rules and finders use is in the table
    used = {r.pattern for r in s.rules if r.pattern}
    used |= scrub_rules.helper_patterns()
    from trace_ingest import scrub_finders

    # the helpers of every module the scrubber spreads over, the lazily loaded ones too
    assert {scrub_finders._PEM_HEAD.pattern, scrub._B64_RUN.pattern} <= used
    assert used <= set(scrub_index.PREFIXES)


def _eager(monkeypatch: Any) -> Scrubber:
    """A scrubber of the built-in rules that makes every rule and works out its tables (as
    with a stale index)."""
    with monkeypatch.context() as m:
        m.setattr(scrub, "RULE_KEYS", ())
        return Scrubber("/nonexistent")


def test_built_in_rules_are_made_on_their_first_hit(monkeypatch: Any) -> None:
    """The built-in scrubber takes its keyword tables from the index, makes no vendor rule
    before one of its keywords occurs and then only that one, and its tables and rules are
    those of a scrubber that made every rule."""
    lazy = Scrubber("/nonexistent")
    assert lazy._table.count(None) == len(scrub_rules._VENDORS) > 100
    eager = _eager(monkeypatch)
    assert None not in eager._table
    for name in ("_keywords", "_kw_full", "_kw_token", "_always", "_kw_rules"):
        assert getattr(lazy, name) == getattr(eager, name), name
    lazy.find("nothing to see here, only words")
    assert lazy._table.count(None) == len(scrub_rules._VENDORS)
    token = "dapi" + "0123456789abcdef" * 2  # a Databricks token (generated)
    assert lazy.find(f"x {token} y") == eager.find(f"x {token} y") != []
    made = [r.id for r in lazy._table if r is not None]
    assert len(made) == len(lazy._table) - len(scrub_rules._VENDORS) + 1
    assert "databricks-token" in made
    sig = [(r.id, r.keywords, r.in_token, r.pattern, r.group, r.lb) for r in lazy.rules]
    assert sig == [(r.id, r.keywords, r.in_token, r.pattern, r.group, r.lb) for r in eager.rules]


def test_a_stale_index_is_not_used(monkeypatch: Any) -> None:
    """Rule keywords that differ from the index's (a rule changed, the index not regenerated)
    make the scrubber work its tables out from the rules, never use the stale ones."""
    keys = list(scrub_index.RULE_KEYS)
    first = scrub_rules.lazy_builtin_rules()[1]
    for i in (0, first):  # a rule made up front; a vendor rule
        stale = [*keys]
        stale[i] = (("nope",), stale[i][1])
        monkeypatch.setattr(scrub, "RULE_KEYS", tuple(stale))
        assert scrub._lazy_tables() is None
        assert None not in Scrubber("/nonexistent")._table
    monkeypatch.setattr(scrub, "RULE_KEYS", tuple(keys))
    assert scrub._lazy_tables() is not None


def test_no_token_keyword_holds_a_space() -> None:
    """The token runs are joined by spaces: a token keyword with a space could span two."""
    s = Scrubber("/nonexistent", pii=PII_CATEGORIES)
    assert not [k for k, _ in s._kw_token if any(c.isspace() for c in k)]


def _texts(rng: random.Random, words: list[str]) -> list[str]:
    pieces = [
        *words,
        *(w.upper() for w in words),
        " ",
        "\n",
        "=",
        '"',
        "x" * 20,
        "0123456789abcdef" * 3,
        "é",
        "K",  # Kelvin sign: lowers to ASCII k
        "\u2192",  # Claude Code's line-number arrow: non-ASCII inside a token run
        "\u00a0",  # Unicode whitespace: ends a token run, as the regex's \\s does
    ]
    out = []
    for size in (8, 60, 400, TOKEN_RUNS_FROM + 500, 9000):
        for _ in range(40):
            parts: list[str] = []
            while sum(map(len, parts)) < size:
                parts.append(rng.choice(pieces))
            out.append("".join(parts))
    return out


def _long_engine(monkeypatch: Any, engine: str) -> None:
    """Make long strings go through ``engine`` from the first one on: hyperscan
    (``_long_db``), the keyword automaton (``_long_words``) or the ``in`` tests and tries."""
    never = 1 << 62
    monkeypatch.setattr(scrub, "HYPERSCAN_FROM", 0 if engine == "hyperscan" else never)
    monkeypatch.setattr(scrub, "AUTOMATON_FROM", 0 if engine == "automaton" else never)


@pytest.mark.parametrize("engine", ["hyperscan", "automaton", "in-and-tries"])
@pytest.mark.parametrize("config", ["builtin", "pii", "extra"])
def test_the_hook_runs_the_rules_the_in_loop_chose(
    tmp_path: Any, monkeypatch: Any, config: str, engine: str
) -> None:
    """Property: on short and long text, ASCII or not, keywords glued, overlapping, in upper
    case or inside token runs, the hook's prefilter picks exactly the rules of the keywords
    that occur (the per-keyword ``in`` loop's choice), whether long text goes through the
    keyword automaton (``_long_words``, from the first long string on), through hyperscan
    (``_long_db``) or through neither."""
    _long_engine(monkeypatch, engine)
    home = str(tmp_path / "home")
    section: dict[str, Any] = {}
    if config == "pii":
        section = {"pii": True}
    elif config == "extra":
        section = {
            "extra_patterns": [
                {"id": "acme", "pattern": "ACME-([0-9]{12})", "keywords": ["acme-", "sk-ac"]},
                {"id": "anywhere", "pattern": "ZZQ[0-9]{8}"},
            ]
        }
    s = load_scrubber(home, section)
    rng = random.Random(config)
    words = sorted(s._kw_rules)
    for text in _texts(rng, words):
        got, want = _hook_hits(s, text, monkeypatch), _naive_hits(s, text)
        assert got == want, (text[:80], sorted(s.rules[i].id for i in got ^ want))


@pytest.mark.parametrize("engine", ["hyperscan", "automaton", "in-and-tries"])
def test_the_finders_skip_only_key_words_that_are_absent(
    tmp_path: Any, monkeypatch: Any, engine: str
) -> None:
    """The generic-assignment and dotenv finders skip the key words ``_find`` tested absent
    in a long string (``scrub_rules.ABSENT``): with some of their words present, in either
    case, the spans are those of the finders searching for every word, whichever pass
    (hyperscan, the keyword automaton or the ``in`` tests) found the keywords."""
    _long_engine(monkeypatch, engine)
    s = load_scrubber(str(tmp_path / "home"))
    rng = random.Random("absent")
    heads = [
        "API_KEY=",
        "export GH_TOKEN=",
        "DB_PASSWORD=",
        "client_secret: ",
        "auth_token = '",
        'pwd := "',
        "CREDENTIALS=",
        'var apiKey string = "',
        "x-secret=",
    ]
    filler = ["lorem ipsum dolor\n", '{"path": "/usr/lib/x"}\n', "npm WARN deprecated\n", "ok\n"]
    gated: list[int] = []
    real = scrub_rules._absent_in

    def spy(low: str) -> Any:
        out = real(low)
        gated.append(len(out))
        return out

    for _ in range(60):
        parts: list[str] = []
        while sum(map(len, parts)) < TOKEN_RUNS_FROM + 200:
            if rng.random() < 0.05:
                value = "".join(rng.choice("abcdefXYZ0123456789") for _ in range(24))
                parts.append(rng.choice(heads) + value + "'\n")
            else:
                parts.append(rng.choice(filler))
        text = "".join(parts)
        monkeypatch.setattr(scrub_rules, "_absent_in", spy)
        got = s.find(text)
        monkeypatch.setattr(scrub_rules, "_absent_in", lambda low: ())
        want = s.find(text)
        monkeypatch.setattr(scrub_rules, "_absent_in", real)
        assert got == want, text
    assert any(gated), "the gate never had a keyword to skip"
    assert scrub_rules.ABSENT[0] is None  # no string kept after its scan


def test_the_hook_builds_its_keyword_automaton_only_past_its_threshold(tmp_path: Any) -> None:
    """A hook call with little long text never loads pyahocorasick's automaton (its import
    and build would cost more than the ``in`` tests it saves); once the long text scanned
    reaches ``AUTOMATON_FROM`` characters it is built, and finds the same secrets."""
    s = load_scrubber(str(tmp_path / "home"))
    filler = "npm WARN deprecated left-pad@1.0.0\n"
    secret = "GH_TOKEN=ghp_" + "Ab3dE" * 7 + "x\n"
    short = (filler * (TOKEN_RUNS_FROM // len(filler) + 1)) + secret
    before = s.find(short)
    assert s._words is None
    long = filler * (scrub.AUTOMATON_FROM // len(filler) + 1) + secret
    after = s.find(long)
    assert s._words, "the automaton was not built past the threshold"
    assert [r for *_, r in before] == [r for *_, r in after] == ["github-token"]
    assert s.find(short) == before  # the same spans through the automaton


def test_a_long_lived_scrubber_takes_hyperscan_past_its_threshold(tmp_path: Any) -> None:
    """One hook call's worth of long text never loads hyperscan (its import and compile cost
    more than they save there); once a process has scanned ``HYPERSCAN_FROM`` characters of
    long text (the collector, over many calls) it is built and finds the same secrets, a
    token-only keyword counting only inside a token run, as before."""
    s = load_scrubber(str(tmp_path / "home"))
    filler = "npm WARN deprecated left-pad@1.0.0 ghp_x\n"  # ghp_: token-only, outside a run
    secret = "GH_TOKEN=ghp_" + "Ab3dE" * 7 + "x\n"
    text = filler * (64 * 1024 // len(filler)) + secret
    before = s.find(text)
    assert s._hs_long is None
    while s._hs_long is None:
        assert s.find(text) == before
    assert s._hs_long, "hyperscan was not loaded past the threshold"
    assert s._long_seen >= scrub.HYPERSCAN_FROM
    assert [r for *_, r in before] == ["github-token"]
    assert s.find(text) == before
    assert s.find(filler * 100) == []  # ghp_ outside every token run: no token rule runs


def test_without_pyahocorasick_the_hook_keeps_the_in_tests(tmp_path: Any, monkeypatch: Any) -> None:
    """pyahocorasick missing (an install without it): long text still goes through the
    ``in`` tests, with the same spans, and the import is not tried again per string."""
    monkeypatch.setitem(sys.modules, "ahocorasick", None)  # import raises ImportError
    monkeypatch.setattr(scrub, "AUTOMATON_FROM", 0)
    s = load_scrubber(str(tmp_path / "home"))
    text = "lorem ipsum\n" * 400 + "export API_KEY=Zq8vN2mKx7LpR4tW9yB3\n"
    got = s.find(text)
    assert s._words is False
    assert [r for *_, r in got] == ["dotenv-secret"]


def test_the_hooks_bisection_is_the_bisect_modules() -> None:
    """``scrub_rules.bisect_left``/``bisect_right`` (the hook's, without loading
    ``_bisect``) give ``bisect``'s answer on sorted lists with repeats, at every probe."""
    import bisect

    rng = random.Random("bisect")
    for _ in range(300):
        a = sorted(rng.randint(0, 20) for _ in range(rng.randint(0, 12)))
        for x in range(-1, 22):
            assert scrub_rules.bisect_right(a, x) == bisect.bisect_right(a, x), (a, x)
            assert scrub_rules.bisect_left(a, x) == bisect.bisect_left(a, x), (a, x)


def test_a_hook_scrub_loads_no_bisect_module(tmp_path: Any) -> None:
    """A fresh process scrubbing a payload with repeated secrets and tool flags (the two
    callers of a bisection) never loads ``bisect``/``_bisect``: ~0.3 ms of a hook call."""
    import subprocess

    code = (
        "import sys\n"
        "from trace_ingest.scrub import load_scrubber\n"
        f"s = load_scrubber({str(tmp_path)!r})\n"
        "t = 'ghp_' + 'Ab3dE' * 7 + 'x'\n"
        "out, n = s.scrub_text(f'GH_TOKEN={t} again {t}\\ngh secret set X --body abc123def ')\n"
        "assert sum(n.values()) >= 2, n\n"
        "print(sorted(m for m in sys.modules if 'bisect' in m))\n"
    )
    got = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(scrub.__file__).resolve().parents[1],
    )
    assert got.stdout.strip() == "[]", got.stdout + got.stderr


def test_runs_overlapping_found_spans_are_not_decoded_for_nothing(tmp_path: Any) -> None:
    """``find`` no longer decodes a base64 run that overlaps a span the text's own scan
    found (a token, a JWT's segments): property, on text mixing tokens, base64 of secrets
    (alone, glued to a token, inside a header) and filler, its spans are those of decoding
    every run and keeping the earlier span of an overlap."""
    import base64

    s = load_scrubber(str(tmp_path / "home"))
    rng = random.Random("decoded")
    a62 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

    def rand(n: int) -> str:
        return "".join(rng.choice(a62) for _ in range(n))

    def b64(text: str) -> str:
        return base64.b64encode(text.encode()).decode()

    pieces = [
        lambda: "ghp_" + rand(36),
        lambda: b64(f"password={rand(14)}9"),
        lambda: b64("user:" + rand(16)),
        lambda: "Authorization: Basic " + b64("svc:" + rand(18)),
        lambda: "ghp_" + rand(36) + b64("token=" + rand(20)),
        lambda: b64(rand(40)),
        lambda: "lorem ipsum ",
        lambda: "\n",
        lambda: "=",
    ]
    for _ in range(200):
        text = "".join(rng.choice(pieces)() for _ in range(rng.randint(1, 12)))
        own = s._find(text)
        want = scrub._union(own, scrub.decoded_spans(s, text, 0)) if len(text) >= 16 else own
        assert s.find(text) == want, text
