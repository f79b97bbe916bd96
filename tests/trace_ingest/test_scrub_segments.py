"""Exclusion words are whole words of a key name, not substrings (docs/scrubbing.md,
"Near-miss filters, keyed by context": name words).

A name whose exclusion word only hides inside another word (``ACCOUNT`` holds ``count``,
``YARN`` holds ``arn``, ``PAGERDUTY`` holds ``page``) names a secret, in every form a config
or a tool prints it; the near misses the exclusion lists exist for (``next_token``,
``NextToken``, ``key_hash``, ``secret_arn``, ``token_type``, ...) are still kept. Every
secret is generated at test time; nothing here is a real token.
"""

from __future__ import annotations

import json
import os
import random
import sys
from typing import Any

import pytest

from trace_ingest.scrub import Scrubber, load_scrubber

sys.path.insert(0, os.path.dirname(__file__))
from scrub_corpus import A62, HEX, _mixed

RNG = random.Random(20261203)


def secret(n: int = 32) -> str:
    return _mixed(RNG, A62, n)


@pytest.fixture
def scrubber(tmp_path: Any) -> Scrubber:
    return load_scrubber(str(tmp_path / "home"))


def text_forms(name: str, value: str) -> dict[str, str]:
    """``name`` holding ``value`` as YAML, JSON text, a quoted assignment and a dotenv line."""
    return {
        "yaml": f"{name}: {value}",
        "json": json.dumps({name: value}),
        "quoted": f'{name} = "{value}"',
        "dotenv": f"{name}={value}",
    }


def gone_everywhere(s: Scrubber, name: str, value: str, dotenv: bool = True) -> None:
    for form, text in text_forms(name, value).items():
        if form == "dotenv" and not dotenv:
            continue
        out, counts = s.scrub_text(text)
        assert value not in out and counts, (form, text, out)
    # an MCP server's env block, as the hook sees it
    out_v, counts = s.scrub_value({"mcpServers": {"x": {"env": {name: value}}}})
    assert value not in json.dumps(out_v) and counts, (name, out_v)


def kept_everywhere(s: Scrubber, name: str, value: str, dotenv: bool = True) -> None:
    for form, text in text_forms(name, value).items():
        if form == "dotenv" and not dotenv:
            continue
        assert s.scrub_text(text) == (text, {}), (form, text)
    v = {"x": {name: value}}
    assert s.scrub_value(v) == (v, {}), v


# the names the attack found kept (finding 2), and more of the same kind
HIDDEN_WORD_NAMES = (
    "AZURE_STORAGE_ACCOUNT_KEY",  # count
    "SERVICE_ACCOUNT_TOKEN",
    "OP_SERVICE_ACCOUNT_TOKEN",
    "accountKey",
    "storageAccountKey",
    "NEXTAUTH_SECRET",  # next
    "YARN_NPM_AUTH_TOKEN",  # arn
    "PAGERDUTY_API_KEY",  # page
    "TYPESENSE_API_KEY",  # type
    "INPUT_GITHUB_TOKEN",  # input (a GitHub Action's input)
    "ENVATO_TOKEN",  # env
    "DEVENV_TOKEN",
    "MODELSCOPE_API_KEY",  # scope, mode
    "MAXMIND_LICENSE_KEY",  # max
    "PROMPTLAYER_API_KEY",  # prompt
    "SOURCEGRAPH_ACCESS_TOKEN",  # source
    "EXCHANGE_API_SECRET",  # change
    "LIMITLESS_API_KEY",  # limit
    "NUMVERIFY_API_KEY",  # num
    "NAMECHEAP_API_KEY",  # name
    "COUNTLY_APP_KEY",
    "WARNING_WEBHOOK_SECRET",  # arn
    "KINDE_CLIENT_SECRET",  # kind
    "TTLOCK_CLIENT_SECRET",  # ttl
    "UPTIME_KUMA_PASSWORD",  # time
    "OUTPUT_API_KEY",
    "TOTAL_API_KEY",
    "PARAMOUNT_API_KEY",  # param
    "NEXT_PUBLIC_ALGOLIA_SEARCH_KEY",  # a Next.js prefix, not pagination
)


@pytest.mark.parametrize("name", HIDDEN_WORD_NAMES)
def test_a_word_hidden_in_another_word_excludes_nothing(scrubber: Scrubber, name: str) -> None:
    gone_everywhere(scrubber, name, secret())


def test_vault_names_keep_references_only(scrubber: Scrubber) -> None:
    # vault is a soft word: a reference to a vault is kept, a random token is not
    for name in ("VAULT_TOKEN", "vaultToken", "vault_secret"):
        gone_everywhere(scrubber, name, secret())
    gone_everywhere(scrubber, "ANSIBLE_VAULT_PASSWORD", secret(16))
    kept(scrubber, 'vault_secret = "secret/data/v1/app"')
    kept(scrubber, "VAULT_TOKEN: vault:secret/data/app#token")
    kept_everywhere(scrubber, "vault_path", secret(), dotenv=False)
    kept_everywhere(scrubber, "keyVaultName", "kv-prod-weu-01")


def kept(s: Scrubber, text: str) -> None:
    assert s.scrub_text(text) == (text, {}), text


# near misses the exclusion words exist for, kept whatever their value (dotenv lines of a
# lower-case or camelCase name are not NAME=value lines; upper-case ones are judged there)
NEAR_MISS_NAMES = (
    "next_token", "NextToken", "nextToken", "nextPageToken", "next_page_token", "nexttoken",
    "pagetoken", "page_token", "pageToken", "ContinuationToken", "continuation_token",
    "PaginationToken", "cursorToken", "credentialsId", "credentials_id", "api_key_env",
    "apiKeyEnv", "envKey", "env_key", "ClientToken", "ClientRequestToken", "sequence_token",
    "SequenceToken", "vault_path", "token_scope", "tokenScopes", "max_tokens", "maxTokens",
    "maxOutputTokens", "input_tokens", "inputTokens", "output_tokens", "prompt_tokens",
    "total_tokens", "budget_tokens", "cache_creation_input_tokens", "input_token",
    "output_token", "cache_key", "cacheKey", "token_count", "tokenCount", "key_length",
    "token_ttl", "tokenExpiry", "token_expires_at", "idempotency_key", "IdempotencyToken",
    "token_timestamp", "token_timeout", "ChangeToken", "NextMarker", "token_prefix",
    "tokenSource", "key_uuid", "secret_kind", "token_format", "token_mode", "token_policy",
    "key_usage", "token_limit", "num_tokens", "password_hint", "passwordHint",
    "lastUsedToken", "token_last_used", "session_token_id", "access_token_expires_in",
    "password_input", "keyhash", "secret_files",
)  # fmt: skip


@pytest.mark.parametrize("name", NEAR_MISS_NAMES)
def test_near_miss_names_are_kept(scrubber: Scrubber, name: str) -> None:
    kept_everywhere(scrubber, name, secret(), dotenv=not name.isupper() and "_" not in name)


def test_identifier_suffix_names_keep_their_shapes(scrubber: Scrubber) -> None:
    # excluded by their last word only: kept when the value has the word's shape
    sha = "".join(RNG.choice(HEX) for _ in range(64))
    arn = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:db-prod-a1B2c3"
    for name, value in (
        ("key_hash", sha),
        ("keyHash", sha),
        ("secret_arn", arn),
        ("SecretArn", arn),
        ("secret_name", "db-prod"),
        ("secretName", "db-prod"),
        ("password_file", "/run/secrets/db_password"),
        ("passwordFile", "secrets/db.txt"),
        ("token_type", "Bearer"),
        ("tokenEndpoint", "https://oauth2.example.org/token"),
        ("token_url", "https://oauth2.example.org/token"),
        ("api_key_env", "OPENAI_API_KEY"),
        ("envKey", "OPENAI_API_KEY"),
    ):
        kept(scrubber, f'{name} = "{value}"')
        kept(scrubber, json.dumps({name: value}))
        v = {"x": {name: value}}
        assert scrubber.scrub_value(v) == (v, {}), v
    for name in ("key_hash", "secret_arn", "secret_name", "password_file", "token_type"):
        gone_everywhere(scrubber, name, secret(), dotenv=False)


def test_secrets_beside_a_word_that_names_another_thing(scrubber: Scrubber) -> None:
    # an OpenID Connect ID token, a file's password, a one-time password are secrets
    for name in ("id_token", "idToken", "oidc_id_token", "FilePassword", "file_password"):
        gone_everywhere(scrubber, name, secret(), dotenv=False)
    gone_everywhere(scrubber, "OneTimePassword", secret(16), dotenv=False)


def test_passphrase_names(scrubber: Scrubber) -> None:
    for text, value in (
        (f"GPG_PASSPHRASE={(v := secret(24))}", v),
        (f"export BORG_PASSPHRASE={(v := secret(24))}", v),
        (f"passphrase: {(v := secret(24))}", v),
        (f"mvn deploy -Dgpg.passphrase={(v := secret(24))}", v),
        ("export RESTIC_PASSPHRASE=correct-horse-battery", "correct-horse-battery"),
    ):
        out, counts = scrubber.scrub_text(text)
        assert value not in out and counts, (text, out)
    for name in ("GPG_PASSPHRASE", "ENCRYPTION_PASSPHRASE", "BACKUP_PASSPHRASE", "passphrase"):
        gone_everywhere(scrubber, name, secret(24), dotenv=name.isupper())
    kept(scrubber, "GPG_PASSPHRASE_FILE=/run/secrets/gpg")


def test_a_final_pass_word_is_a_password_name(scrubber: Scrubber) -> None:
    for value in (
        {"username": "bob", "pass": (s := secret(16))},
        {"env": {"REDIS_PASS": (s := secret(16))}},
        {"RABBITMQ_DEFAULT_PASS": (s := secret(16))},
        {"redisPass": (s := secret(16))},
    ):
        out, counts = scrubber.scrub_value(value)
        assert s not in json.dumps(out) and counts, (value, out)
    s = secret(16)
    for text in (f"REDIS_PASS={s}", f"export RABBITMQ_DEFAULT_PASS={s}", f"REDIS_PASS: {s}"):
        out, counts = scrubber.scrub_text(text)
        assert s not in out and counts, (text, out)
    # a pass of an encoder or a test that passed: the value must look random, as a secret's
    for value in (
        {"bypass": s},
        {"compass": s},
        {"single_pass": "enabled"},
        {"pass": "passed"},
        {"RateControlMode": "MULTI_PASS"},
    ):
        assert scrubber.scrub_value(value) == (value, {}), value
    for text in ("SINGLE_PASS=enabled", "TEST_PASS=passed", f"PASSPORT_NO={s}", "BYPASS=1"):
        kept(scrubber, text)


def test_bulk_scrubbing_sees_pass_names_too(tmp_path: Any) -> None:
    bulk = load_scrubber(str(tmp_path / "home"), bulk=True)
    for value in (
        {"env": {"REDIS_PASS": (s := secret(16))}},
        {"pass": (s := secret(16))},
        {"a": "b", "GPG_PASSPHRASE": (s := secret(24))},
        {"x": {"PAGERDUTY_API_KEY": (s := secret(32))}},
    ):
        for clean, counts in (
            bulk.scrub_value(value),
            bulk.scrub_event(value, json.dumps(value, separators=(",", ":")).encode()),
        ):
            assert clean is not None and s not in json.dumps(clean) and counts, (value, clean)


def test_name_words() -> None:
    from trace_ingest.scrub_values import _name_parts

    for name, words in (
        ("nextPageToken", ("next", "page", "token")),
        ("HTTPHeaderToken", ("http", "header", "token")),
        ("keySha256", ("key", "sha256")),
        ("AZURE_STORAGE_ACCOUNT_KEY", ("azure", "storage", "account", "key")),
        ("api-key.env", ("api", "key", "env")),
        ("nexttoken", ("next", "token")),
        ("nextpagetoken", ("next", "page", "token")),
        ("PASSWORDFILE", ("password", "file")),
        ("keyhash", ("key", "hash")),
        ("NEXTAUTH_SECRET", ("nextauth", "secret")),
        ("modelscopekey", ("modelscope", "key")),
    ):
        assert _name_parts(name) == words, name
    assert _name_parts("passwordresetlink", about_password=True) == ("password", "reset", "link")
    # linear on a long run, and no recursion limit to reach
    assert len(_name_parts("key" * 5000)) == 1
    assert len(_name_parts("Key" * 5000)) == 5000


def test_namespaced_type_names_are_not_secret_keys(scrubber: Scrubber) -> None:
    # cfn-lint's provider schemas map resource type names to schema hashes, in a walked JSON
    # value as in text (test_namespaced_type_names_are_not_secret_fields)
    for name in (
        "AWS::MSK::BatchScramSecret",
        "AWS::IAM::AccessKey",
        "AWS::EC2::IpamExternalResourceVerificationToken",
    ):
        v = {name: "".join(RNG.choice(HEX) for _ in range(16))}
        assert scrubber.scrub_value(v) == (v, {}), v
    s = secret(16)
    out, counts = scrubber.scrub_value({"BatchScramSecret": s})
    assert s not in json.dumps(out) and counts


def test_exclusion_hints_cover_every_word() -> None:
    # _excluded_part splits only names holding one of _EXCLUDE_HINTS: each exclusion word,
    # stem, infix and soft word must hold one, or it would never be looked for
    from trace_ingest import scrub_rules as R

    for word in (
        *R._PW_EXCLUDE,
        *R._EXCLUDE_STEMS,
        *R._EXCLUDE_INFIXES,
        *R._TOKEN_COUNT_WORDS,
        *R._SOFT_EXCLUDE,
    ):
        assert any(h in word for h in R._EXCLUDE_HINTS), word
