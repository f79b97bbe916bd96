"""The scrubber (issue 3): labelled corpus, redaction format, key, config, CLI."""

from __future__ import annotations

import base64
import collections
import json
import os
import random
import re
import stat
import string
import sys
import threading
from typing import Any

import pytest

from trace_ingest.errors import ConfigError, ScrubError
from trace_ingest.paths import key_path
from trace_ingest.scrub import (
    Scrubber,
    builtin_rules,
    default_scrubber,
    load_or_create_key,
    load_scrubber,
)

sys.path.insert(0, os.path.dirname(__file__))
from scrub_corpus import (
    A62,
    FAMILIES,
    caught,
    corpus,
    unchanged,
)

TAG = re.compile(r"\[REDACTED:([a-z0-9-]+):([0-9a-f]{12})\]")


@pytest.fixture
def home(tmp_path: Any) -> str:
    return str(tmp_path / "home")


@pytest.fixture
def scrubber(home: str) -> Scrubber:
    return load_scrubber(home)


def _tok(seed: int = 1) -> str:
    rng = random.Random(seed)
    return "gh" + "p_" + "".join(rng.choice(A62) for _ in range(36))


def _tags(text: str) -> list[tuple[str, str]]:
    return TAG.findall(text)


# ------------------------------------------------------------------ the labelled corpus


@pytest.mark.parametrize("seed", [1234, 98765])
def test_corpus_recall_and_precision(scrubber: Scrubber, seed: int) -> None:
    samples = corpus(seed=seed, per_cell=3)
    per_kind: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    misses: dict[tuple[str, str, str], int] = collections.Counter()
    redactions = 0
    false_redactions = 0
    for s in samples:
        out, counts = scrubber.scrub_value(s.value)
        n = sum(counts.values())
        redactions += n
        ok = unchanged(s, out) if s.kind == "negative" else caught(s, out)
        if s.kind == "negative":
            false_redactions += n
        per_kind[s.kind][0] += ok
        per_kind[s.kind][1] += 1
        if not ok:
            misses[(s.kind, s.family, s.context)] += 1
        # idempotent on every sample
        again, counts2 = scrubber.scrub_value(out)
        assert again == out and not counts2, (s.family, s.context)
    known = per_kind["known"][0] / per_kind["known"][1]
    ctx = per_kind["context"][0] / per_kind["context"][1]
    neg_changed = per_kind["negative"][1] - per_kind["negative"][0]
    precision = (redactions - false_redactions) / redactions if redactions else 1.0
    print(
        f"\n[scrub corpus seed={seed}] known-format recall {known:.2%} "
        f"({per_kind['known'][0]}/{per_kind['known'][1]}), context recall {ctx:.2%} "
        f"({per_kind['context'][0]}/{per_kind['context'][1]}), near misses changed "
        f"{neg_changed}/{per_kind['negative'][1]}, precision {precision:.2%} "
        f"({false_redactions} redactions on near misses of {redactions})"
    )
    for key, n in sorted(misses.items()):
        print(f"  miss {key}: {n}")
    assert known == 1.0, misses
    assert ctx >= 0.95, misses
    assert neg_changed == 0, misses


def test_every_family_in_every_context_is_covered(scrubber: Scrubber) -> None:
    samples = corpus(seed=5, per_cell=1)
    families = {s.family for s in samples if s.kind == "known"}
    assert set(FAMILIES) | {"private-key"} <= families
    contexts = {s.context for s in samples if s.kind == "known"}
    assert len(contexts) >= 15


def test_keywords_are_literal_substrings_of_matches(scrubber: Scrubber) -> None:
    """The prefilter may only skip a rule when the rule could not match."""
    rng = random.Random(3)
    keywords: dict[str, list[str]] = {}
    for r in builtin_rules():  # several rules may share an id (one family, several formats)
        keywords.setdefault(r.id, []).extend(r.keywords)
    for family, gen in FAMILIES.items():
        kws = keywords.get(family)
        if kws is None:
            continue
        for _ in range(20):
            text, _secret = gen(rng)
            low = text.lower()
            assert any(k in low for k in kws), (family, kws)


# ------------------------------------------------------------------ format and fingerprint


def test_placeholder_format_and_counts(scrubber: Scrubber) -> None:
    tok = _tok()
    text = f"a {tok} b {tok} c postgres://u:Harbor2024x@db/x"
    out, counts = scrubber.scrub_text(text)
    assert counts == {"github-token": 2, "url-credentials": 1}
    tags = _tags(out)
    assert [t[0] for t in tags] == ["github-token", "github-token", "url-credentials"]
    assert tags[0][1] == tags[1][1]  # same secret, same fingerprint
    assert tok not in out and "Harbor2024x" not in out


def test_fingerprint_stable_across_contexts_and_distinct_between_secrets(
    scrubber: Scrubber,
) -> None:
    tok, other = _tok(1), _tok(2)
    contexts = [
        f"export GH_TOKEN={tok}",
        f"curl -H 'Authorization: Bearer {tok}'",
        json.dumps({"token": tok}),
        f"https://x:{tok}@github.com/a/b.git",
        f"token={tok},",
    ]
    fps = set()
    for c in contexts:
        out, _ = scrubber.scrub_value({"v": c})
        tags = _tags(json.dumps(out))
        assert len(tags) == 1, (c, out)
        fps.add(tags[0][1])
    assert len(fps) == 1
    out, _ = scrubber.scrub_text(other)
    assert _tags(out)[0][1] not in fps
    # a nested JSON string and a plain one give the same fingerprint
    nested, _ = scrubber.scrub_value({"toolArgs": json.dumps({"k": tok})})
    assert _tags(nested["toolArgs"])[0][1] in fps


def test_fingerprint_differs_between_installs(tmp_path: Any) -> None:
    tok = _tok()
    a, _ = load_scrubber(str(tmp_path / "a")).scrub_text(tok)
    b, _ = load_scrubber(str(tmp_path / "b")).scrub_text(tok)
    assert _tags(a)[0][1] != _tags(b)[0][1]


def test_idempotent_and_tags_never_rematched(scrubber: Scrubber) -> None:
    tok = _tok()
    text = (
        f"GH_TOKEN={tok}\npassword=Harbor2024x;\nAuthorization: Bearer {tok}\n"
        f"https://u:pw12345678@h/x api_key: [REDACTED:generic-assignment:0123456789ab]"
    )
    once, c1 = scrubber.scrub_text(text)
    twice, c2 = scrubber.scrub_text(once)
    assert once == twice and c2 == {}
    assert "[REDACTED:generic-assignment:0123456789ab]" in once
    assert c1


def test_key_file_created_0600_once(home: str) -> None:
    s = load_scrubber(home)
    assert not os.path.exists(key_path(home))  # loaded lazily
    s.scrub_text("nothing to see here at all")
    assert not os.path.exists(key_path(home))  # no redaction, no key
    s.scrub_text(_tok())
    path = key_path(home)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    with open(path, "rb") as fh:
        key = fh.read()
    assert len(key) == 32
    assert load_or_create_key(home) == key


def test_key_creation_race(home: str) -> None:
    os.makedirs(home)
    keys: list[bytes] = []
    barrier = threading.Barrier(8)

    def worker() -> None:
        barrier.wait()
        keys.append(load_or_create_key(home))

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(keys)) == 1 and len(keys) == 8


def test_corrupt_key_is_moved_aside_replaced_and_logged(home: str) -> None:
    """A wrong-length key (a full disk, a truncation) is replaced: redaction never stops."""
    os.makedirs(home)
    with open(key_path(home), "wb") as fh:
        fh.write(b"short")
    clean, counts = load_scrubber(home).scrub_text(_tok())
    assert counts and "REDACTED" in clean
    with open(key_path(home), "rb") as fh:
        assert len(fh.read()) == 32
    assert any(name.startswith("scrub.key.bad-") for name in os.listdir(home))
    with open(os.path.join(home, "hook-errors.log")) as fh:
        assert "5 bytes, not 32" in fh.read()


# ------------------------------------------------------------------ shapes and contexts


def test_url_password_only(scrubber: Scrubber) -> None:
    out, _ = scrubber.scrub_text("postgres://app:Harbor2024x@db.internal:5432/app")
    assert out.startswith("postgres://app:[REDACTED:url-credentials:")
    assert out.endswith("]@db.internal:5432/app")
    out, _ = scrubber.scrub_text("redis://:Harbor2024x@cache:6379/0")
    assert out.startswith("redis://:[REDACTED:url-credentials:") and "@cache:6379/0" in out
    for clean in ("git@github.com:a/b.git", "https://bob@bitbucket.org/a/b.git"):
        assert scrubber.scrub_text(clean) == (clean, {})


def test_pem_whole_block_and_truncated(scrubber: Scrubber) -> None:
    rng = random.Random(4)
    b64 = string.ascii_letters + string.digits + "+/"
    body = ["".join(rng.choice(b64) for _ in range(64)) for _ in range(6)]
    kind = "RSA " + "PRIVATE KEY"
    pem = f"-----BEGIN {kind}-----\n" + "\n".join(body) + f"\n-----END {kind}-----"
    out, counts = scrubber.scrub_text(f"before\n{pem}\nafter")
    assert counts == {"private-key": 1}
    assert out.startswith("before\n[REDACTED:private-key:") and out.endswith("]\nafter")
    assert "BEGIN" not in out and "END" not in out
    cut = f"-----BEGIN {kind}-----\n" + "\n".join(body[:3]) + "\n"
    out, counts = scrubber.scrub_text(cut)
    assert counts == {"private-key": 1} and not any(line in out for line in body[:3])
    # the same key as a JSON-escaped string has the same fingerprint
    esc, _ = scrubber.scrub_text(json.dumps(pem))
    whole, _ = scrubber.scrub_text(pem)
    assert _tags(esc)[0][1] == _tags(whole)[0][1]


def test_json_nested_in_string_is_decoded_and_reencoded(scrubber: Scrubber) -> None:
    tok = _tok()
    args = json.dumps({"command": f"gh auth login --with-token {tok}", "n": 1})
    out, counts = scrubber.scrub_value({"toolArgs": args})
    assert counts == {"github-token": 1}
    inner = json.loads(out["toolArgs"])
    assert inner["n"] == 1 and inner["command"].startswith("gh auth login --with-token [RED")
    untouched = json.dumps({"command": "ls -la", "n": 2})
    assert scrubber.scrub_value({"toolArgs": untouched})[0]["toolArgs"] == untouched


def test_dict_keys_are_scanned(scrubber: Scrubber) -> None:
    tok = _tok()
    out, counts = scrubber.scrub_value({tok: 1, "ok": [tok]})
    assert counts == {"github-token": 2}
    assert tok not in json.dumps(out)


def test_keyed_fields(scrubber: Scrubber) -> None:
    value = {
        "password": "correct-horse",
        "headers": {
            "Authorization": "Basic c3ZjOkhhcmJvcjIwMjR4",
            "Cookie": "sessionid=a8f7d6s5a4d3",
        },
        "max_tokens": 4096,
        "next_token": "abc123def456",
        "session_id": "3f1c2b9e-1d2c-4e5f-8a9b-0c1d2e3f4a5b",
        "token_type": "bearer",
    }
    out, _ = scrubber.scrub_value(value)
    assert out["password"].startswith("[REDACTED:secret-field:")
    assert "c3ZjOkhhcmJvcjIwMjR4" not in json.dumps(out)
    assert out["headers"]["Cookie"].startswith("sessionid=[REDACTED:cookie:")
    for same in ("max_tokens", "next_token", "session_id", "token_type"):
        assert out[same] == value[same]


def test_shape_preserved(scrubber: Scrubber) -> None:
    value = {"a": [1, 2.5, None, True, {"b": "x"}], "c": "plain"}
    assert scrubber.scrub_value(value) == (value, {})


def test_fuzz_never_raises_and_stays_json(scrubber: Scrubber) -> None:
    rng = random.Random(11)
    alphabet = string.printable + "é€\u0130\x00"
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 300)))
        value = {"t": text, "l": [text[::-1], {"k" + text[:5]: text}]}
        out, _ = scrubber.scrub_value(value)
        assert json.loads(json.dumps(out)) == out


# ------------------------------------------------------------------ configuration


def _write_config(home: str, scrub: Any) -> None:
    os.makedirs(home, exist_ok=True)
    with open(os.path.join(home, "config.json"), "w") as fh:
        json.dump({"scrub": scrub}, fh)


def test_allow_list(home: str) -> None:
    tok = _tok()
    _write_config(home, {"allow": [tok]})
    s = load_scrubber(home)
    assert s.scrub_text(f"x {tok} y") == (f"x {tok} y", {})
    assert s.scrub_value({"token": tok}) == ({"token": tok}, {})
    other = _tok(9)
    assert s.scrub_text(other)[1] == {"github-token": 1}


def test_allow_list_holds_an_encoded_value(home: str) -> None:
    """An allow-listed base64 value is kept where the scrubber would decode it and find a
    ``user:password`` pair (``echo … | base64 -d``, docker's ``auth``); another pair still goes."""
    pair = base64.b64encode(f"deploy:{_tok()[4:]}".encode()).decode()
    other = base64.b64encode(f"deploy:{_tok(7)[4:]}".encode()).decode()
    _write_config(home, {"allow": [pair]})
    for s in (load_scrubber(home), load_scrubber(home, bulk=True)):
        assert s.scrub_text(f"echo {pair} | base64 -d") == (f"echo {pair} | base64 -d", {})
        assert s.scrub_value({"auths": {"r.io": {"auth": pair}}})[1] == {}
        assert other not in s.scrub_text(f"echo {other} | base64 -d")[0]


def test_extra_patterns(home: str) -> None:
    _write_config(
        home,
        {
            "extra_patterns": [
                {"id": "acme-key", "pattern": r"ACME-([0-9]{12})", "keywords": ["acme-"]}
            ]
        },
    )
    s = load_scrubber(home)
    out, counts = s.scrub_text("use ACME-123456789012 now")
    assert counts == {"acme-key": 1}
    assert out.startswith("use ACME-[REDACTED:acme-key:")


def test_pii_off_by_default_and_on_by_setting(home: str) -> None:
    text = "mail alice@acme.dev from 10.1.2.3 in /home/alice/src and C:\\Users\\bob\\x"
    assert load_scrubber(home).scrub_text(text) == (text, {})
    _write_config(home, {"pii": True})
    out, counts = load_scrubber(home).scrub_text(text)
    assert counts == {"email": 1, "ip": 1, "home-user": 2}
    assert "alice" not in out and "10.1.2.3" not in out and "bob" not in out
    assert "/home/[REDACTED:home-user:" in out
    _write_config(home, {"pii": ["email"]})
    assert load_scrubber(home).scrub_text(text)[1] == {"email": 1}


@pytest.mark.parametrize(
    ("section", "message"),
    [
        ("yes", "must be an object"),
        ({"pii": "sometimes"}, "pii must be true, false or a list"),
        ({"pii": ["email", "phone"]}, "unknown category 'phone'"),
        ({"allow": "x"}, "allow must be a list"),
        (
            {"extra_patterns": [{"id": "x", "pattern": "("}]},
            r"extra_patterns\[0\].pattern does not",
        ),
        ({"extra_patterns": [{"id": "Bad Id", "pattern": "x"}]}, r"extra_patterns\[0\].id must"),
        ({"extra_patterns": [{"id": "jwt", "pattern": "x"}]}, "already used"),
        ({"extra_patterns": [{"id": "e", "pattern": "x*"}]}, "matches the empty string"),
        ({"extra_patterns": [{"id": "e", "pattern": "x", "keywords": "x"}]}, "keywords must"),
        ({"colour": 1}, "unknown key"),
    ],
)
def test_invalid_config_raises_config_error(home: str, section: Any, message: str) -> None:
    _write_config(home, section)
    with pytest.raises(ConfigError, match=message):
        load_scrubber(home)
    assert default_scrubber(home).scrub_text(_tok())[1] == {"github-token": 1}


def test_unparseable_config_raises_config_error(home: str) -> None:
    os.makedirs(home)
    with open(os.path.join(home, "config.json"), "w") as fh:
        fh.write("{not json")
    with pytest.raises(ConfigError, match=r"config\.json"):
        load_scrubber(home)


def test_failure_raises_scrub_error(scrubber: Scrubber, monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*_: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(scrubber, "find", boom)
    with pytest.raises(ScrubError, match="boom"):
        scrubber.scrub_value({"a": "some text here"})


# ------------------------------------------------------------------ trail scrub


def test_cli_scrub_text_json_and_check(home: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from trace_ingest.cli_scrub import scrub

    monkeypatch.setenv("TRAIL_HOME", home)
    tok = _tok()
    runner = CliRunner()
    res = runner.invoke(scrub, ["-"], input=f"token is {tok}\n")
    assert res.exit_code == 0, res.output
    assert tok not in res.output and "[REDACTED:github-token:" in res.output

    res = runner.invoke(scrub, ["--json", "-"], input=json.dumps({"k": tok}))
    assert res.exit_code == 0
    doc = json.loads(res.stdout)
    assert doc["counts"] == {"github-token": 1} and tok not in json.dumps(doc)

    trace = os.path.join(home, "sessions", "claude-code", "s1", "trace.jsonl")
    os.makedirs(os.path.dirname(trace))
    with open(trace, "w") as fh:
        fh.write(json.dumps({"v": 1, "input": "nothing here"}) + "\n")
    res = runner.invoke(scrub, ["--check"])
    assert res.exit_code == 0, res.output
    with open(trace, "a") as fh:
        fh.write(json.dumps({"v": 1, "input": f"leaked {tok}"}) + "\n")
    res = runner.invoke(scrub, ["--check"])
    assert res.exit_code == 1
    assert "sessions/claude-code/s1/trace.jsonl" in res.output and "github-token: 1" in res.output
    # never prints the secret itself
    assert tok not in res.output


def test_source_has_no_scannable_tokens() -> None:
    """The corpus is generated: no literal token lives in the test sources."""
    here = os.path.dirname(__file__)
    s = default_scrubber(os.path.join(here, "..", "..", ".no-such-home"))
    for name in ("scrub_corpus.py", "test_scrub.py", "test_scrub_grammar.py"):
        with open(os.path.join(here, name), encoding="utf-8") as fh:
            text = fh.read()
        known = {r.id for r in builtin_rules()} - {
            "generic-assignment", "dotenv-secret", "conn-string-password", "url-credentials",
            "auth-header", "cookie", "cli-secret-flag", "netrc-password", "azure-key",
            "quoted-password",
        }  # fmt: skip
        spans = [sp for sp in s.find(text) if sp[2] in known]
        assert spans == [], [(name, text[a:b][:20]) for a, b, _ in spans]


def test_bulk_prefilter_gives_the_same_output(tmp_path: Any) -> None:
    """The Aho-Corasick prefilter of bulk scrubbing (import, ``trail scrub``) finds exactly
    what the hook's ``in`` loop finds, on the labelled corpus and on a config with a
    keyword-less extra pattern (which then runs on every string)."""
    import ahocorasick  # noqa: F401 - a dependency; a missing one fails here, loudly

    home = str(tmp_path)
    plain, bulk = load_scrubber(home), load_scrubber(home, bulk=True)
    assert bulk._automaton is not None and plain._automaton is None
    for sample in corpus(seed=99):
        assert bulk.scrub_value(sample.value) == plain.scrub_value(sample.value)
    # long strings take the hook's token-run prefilter (scrub.TOKEN_RUNS_FROM): same results
    filler = "def f(x):\n    return x + 1  # ordinary code, no secret\n" * 60
    for sample in corpus(seed=98, per_cell=1):
        value = {"stdout": filler + json.dumps(sample.value) + filler}
        assert bulk.scrub_value(value) == plain.scrub_value(value)
    section = {"extra_patterns": [{"id": "acme", "pattern": "ACME-[0-9]{6}"}]}
    a = load_scrubber(home, section)
    b = load_scrubber(home, section, bulk=True)
    assert a.scrub_text("x ACME-123456 y") == b.scrub_text("x ACME-123456 y")
    assert "ACME-123456" not in b.scrub_text("x ACME-123456 y")[0]


def test_a_dotted_capital_i_before_a_secret_shifts_nothing(tmp_path: Any) -> None:
    """U+0130 (İ) is the one character whose lowercase is two characters. The rules read
    offsets of the lowered copy as offsets of the text: before the scrubber lowered one
    character per character, a span after an İ missed the secret's first characters
    (``İİ password=hu[REDACTED…]``), a session cookie after one was not found at all, and a
    span past the end raised IndexError (a scrub-error stub instead of the event)."""
    home = str(tmp_path / "home")
    hook, bulk = load_scrubber(home), load_scrubber(home, bulk=True)
    checked = 0
    for sample in corpus():
        if not isinstance(sample.value, str):
            continue
        want = hook.scrub_text(sample.value)
        for lead in ("İİ ", "İ\n", "\u0130x "):
            got = hook.scrub_text(lead + sample.value)
            assert got == (lead + want[0], want[1]), sample.value
            assert bulk.scrub_value({"v": lead + sample.value}) == ({"v": got[0]}, got[1])
        checked += 1
    assert checked > 1000
    for text in ("İİİ Key", "İİİİİİİİİİ xkey", "İ token: xyz123456789"):
        clean, _ = hook.scrub_text(text)  # no IndexError
        assert "xyz123456789" not in clean


def test_a2b_short_is_binascii() -> None:
    """The hook's binascii-free base64 decoder gives binascii's bytes at every length it
    takes (b"" where binascii raises), and hands everything else to binascii."""
    import binascii

    from trace_ingest.scrub import _A2B_LEFT, _A2B_SHORT, _B64_ALPHABET, _a2b_short

    rng = random.Random(10)
    alphabet = _B64_ALPHABET.decode()
    saved = sys.modules.pop("binascii")
    left = _A2B_LEFT[0]
    try:
        _A2B_LEFT[0] = 1
        assert _a2b_short("abcd") == b"i\xb7\x1d"
        assert _a2b_short("abcd") is None  # the budget spent: binascii from now on
        _A2B_LEFT[0] = 10**9
        for n in range(_A2B_SHORT + 1):
            for _ in range(4):
                body = "".join(rng.choice(alphabet) for _ in range(n))
                try:
                    expected = binascii.a2b_base64(body + "=" * (-n % 4))
                except binascii.Error:
                    expected = b""
                assert _a2b_short(body) == expected, body
        assert _a2b_short("A" * (_A2B_SHORT + 1)) is None
        assert _a2b_short("abcd-efgh") is None  # not the standard alphabet
        assert _a2b_short("abcdé") is None
    finally:
        sys.modules["binascii"] = saved
        _A2B_LEFT[0] = left
    assert _a2b_short("abcd") is None  # binascii loaded: the C decoder


def test_byte_tables_are_their_definitions() -> None:
    """The translate tables built without a 256-step generator (a fresh hook process built
    them at import) are the ones their comments define."""
    from trace_ingest import scrub as s

    token = bytes(
        0 if chr(b).isspace() or chr(b) in "\"'`<>()[]{},;\\" or b > 127 else 1 for b in range(256)
    )
    b64 = bytes(
        1 if chr(b).isascii() and (chr(b).isalnum() or chr(b) in "+/_-") else 0 for b in range(256)
    )
    high = bytes.maketrans(s._B64_ALPHABET, bytes(48 + (v >> 3) for v in range(64)))
    low = bytes.maketrans(s._B64_ALPHABET, bytes(48 + (v & 7) for v in range(64)))
    assert (token, b64, high, low) == (s._TOKEN_TABLE, s._B64_TABLE, s._B64_HIGH, s._B64_LOW)
