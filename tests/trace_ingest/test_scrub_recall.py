"""Issue 10, recall: token formats added or widened after the held-out run.

Each family: a generated positive (bare, as ``export X=…`` and inside JSON text) and a
near miss of the same shape that must be kept. Every secret is generated at test time from the
vendor's documented alphabet and length, prefixes split in the source; none is a real token.
"""

from __future__ import annotations

import json
import os
import random
import string
import sys
from collections.abc import Callable
from typing import Any

import pytest

from trace_ingest.scrub import Scrubber, load_scrubber

sys.path.insert(0, os.path.dirname(__file__))
from scrub_corpus import A62, HEX, URLSAFE, _glued, _mixed

RNG = random.Random(20261202)


def r(alphabet: str, n: int) -> str:
    return "".join(RNG.choice(alphabet) for _ in range(n))


@pytest.fixture
def scrubber(tmp_path: Any) -> Scrubber:
    return load_scrubber(str(tmp_path / "home"))


def gone(s: Scrubber, text: str, secret: str) -> str:
    out, counts = s.scrub_text(text)
    assert secret not in out and counts, (text, out)
    return out


def kept(s: Scrubber, text: str) -> None:
    assert s.scrub_text(text) == (text, {}), text


# Self-identifying tokens: caught with nothing around them.
BARE: dict[str, Callable[[], str]] = {
    # Cloudflare's prefixed API tokens: prefix + 40 base62 + 8 hex checksum
    "cloudflare-token": lambda: (
        _glued("cf", RNG.choice(["ut", "at", "k"]), "_") + _mixed(RNG, A62, 40) + r(HEX, 8)
    ),
    # Atlassian organization admin API keys
    "atlassian-admin-key": lambda: _glued("ATCTT3", "xFfG") + _mixed(RNG, URLSAFE, 180),
    # Atlassian API tokens and admin keys in their checksummed shape: body, "=", 8 characters
    "atlassian-checksummed": lambda: (
        _glued("AT", RNG.choice("AC"), "TT")
        + _mixed(RNG, URLSAFE, RNG.randint(30, 180))
        + "="
        + _mixed(RNG, A62, 8)
    ),
    # Microsoft Entra refresh tokens: "0." or "1." + "A…", ".Ag…" and an optional ".A…" part
    "entra-refresh-token": lambda: (
        RNG.choice("01")
        + ".A"
        + r(URLSAFE, 60)
        + ".Ag"
        + r(URLSAFE, 300)
        + RNG.choice(["", ".A" + r(URLSAFE, 220)])
    ),
    # Figma's newer personal access tokens (figp_), "=" allowed in the body
    "figma-figp-token": lambda: _glued("fig", "p_") + r(URLSAFE, 40) + RNG.choice(["", "=="]),
    # Square access tokens longer than the legacy 22 characters (at most 64 in all)
    "square-access-token": lambda: _glued("sq0", "atp-") + r(URLSAFE, RNG.randint(23, 57)),
    # PlanetScale tokens with base64 padding inside
    "planetscale-token": lambda: (
        _glued("pscale_", RNG.choice(["tkn", "pw", "oauth"]), "_")
        + r(URLSAFE, 20)
        + "="
        + r(URLSAFE, 20)
    ),
    # Doppler service tokens carrying their config's name
    "doppler-service-token": lambda: (
        _glued("dp", ".st.") + RNG.choice(["dev", "stg", "prd_eu"]) + "." + _mixed(RNG, A62, 43)
    ),
    # New Relic Insights insert keys with "_" and "-" in the body
    "newrelic-insert-key": lambda: _glued("NR", "II-") + r(URLSAFE, 32),
    # Mapbox secret and temporary tokens with a short claims part (a short user name)
    "mapbox-token": lambda: (
        _glued(RNG.choice("st"), "k.eyJ") + r(URLSAFE, 40) + "." + r(URLSAFE, 22)
    ),
    # Telegram bot tokens: "AA" + 32 or 33 base64url
    "telegram-bot-token": lambda: (
        str(RNG.randint(10**8, 10**10 - 1)) + ":AA" + r(URLSAFE, RNG.choice([32, 33]))
    ),
}


@pytest.mark.parametrize("family", sorted(BARE))
def test_self_identifying_token_bare_neutral_and_in_json(scrubber: Scrubber, family: str) -> None:
    for _ in range(5):
        tok = BARE[family]()
        gone(scrubber, tok, tok)
        gone(scrubber, f"export X={tok}", tok)
        out, _ = scrubber.scrub_value({"stdout": json.dumps({"v": tok})})
        assert tok not in json.dumps(out)


def test_legacy_vault_tokens_near_the_word_vault(scrubber: Scrubber) -> None:
    for head in ("s.", "b.", "r."):
        tok = head + _mixed(RNG, A62, 24)
        gone(scrubber, f"vault login {tok}", tok)
        gone(scrubber, f'vault_api_token = "{tok}"', tok)
        gone(scrubber, f"-vaultToken {tok}", tok)


def test_sidekiq_credentials_in_any_syntax(scrubber: Scrubber) -> None:
    name = _glued("BUNDLE_ENTERPRISE__CONTRIB", "SYS__COM")
    for template in (
        "<{n}Token>\n    {s}\n</{n}Token>",
        'var {n}Token string = "{s}"',
        "{n}_TOKEN ::= `{s}`",
        '${n}Token .= "{s}"',
        'System.setProperty("{n}_TOKEN", "{s}")',
        "{n}_TOKEN ?= '{s}'",
        "source 'https://{s}@enterprise.contrib" + "sys.com/'",
    ):
        # 16 hex characters often repeat a few (low entropy): the name, not the value's
        # randomness, is what makes them a secret
        few = "".join(RNG.sample(HEX, 6))
        cred = r(few, 8) + ":" + r(few, 8)
        gone(scrubber, template.replace("{n}", name).replace("{s}", cred), cred)


def test_azure_openai_keys_under_openai_key_names(scrubber: Scrubber) -> None:
    for template in (
        "os.environ[\"OPENAI_API_KEY\"] = '{k}'",
        '"AZURE_OPENAI_KEY": "{k}"',
        "azure_openai_api_key: {k}",
        'AzureOpenAIKey = "{k}"',
    ):
        key = r(HEX, 32)
        gone(scrubber, template.replace("{k}", key), key)
    for text in (  # other names and bare hex keep their hash
        f'openai_key_sha = "{r(HEX, 32)}"',
        f'"openai_key_id": "{r(HEX, 32)}"',
        f"commit {r(HEX, 32)} (openai client)",
    ):
        kept(scrubber, text)


def test_recall_near_misses_are_kept(scrubber: Scrubber) -> None:
    for text in (
        # a Cloudflare-like head whose tail is no hex checksum, or too short
        _glued("cf", "ut_") + _mixed(RNG, A62, 40) + "ZZZZZZZZ",
        _glued("cf", "k_") + _mixed(RNG, A62, 20),
        # the Atlassian admin head with no body
        _glued("ATCTT3", "xFfG") + "_docs",
        # an Atlassian-like head without the "=" + 8-character checksum, or too short
        _glued("AT", "ATT") + _mixed(RNG, A62, 40),
        _glued("AT", "CTT") + "x=" + r(A62, 8),
        # an Entra-like "1.A…" without the ".Ag…" part, or with too short a one
        "1.A" + r(URLSAFE, 80),
        "0.A" + r(URLSAFE, 60) + ".Ag" + r(URLSAFE, 100),
        # a Figma-like head on an ordinary word
        _glued("fig", "p_") + "settings_panel",
        # Square application ids (sq0idp-) are identifiers
        _glued("sq0", "idp-") + r(URLSAFE, 22),
        # a Square-like token longer than Square's 64-character bound
        _glued("sq0", "atp-") + r(A62, 70),
        # Mapbox public tokens
        _glued("pk", ".eyJ") + r(URLSAFE, 40) + "." + r(URLSAFE, 22),
        # "s." + 24 mixed characters without the word vault: an attribute, not a token
        "x = s." + _mixed(RNG, A62, 24),
        # an 8:8 hex pair with no contribsys mention (a commit range, a time code)
        f"git log {r(HEX, 8)}:{r(HEX, 8)}",
        # a Doppler-like head without a token
        _glued("dp", ".st.") + "dev.short",
        # Telegram-like: too short after AA
        str(RNG.randint(10**8, 10**9)) + ":AA" + r(string.ascii_letters, 20),
    ):
        kept(scrubber, text)
