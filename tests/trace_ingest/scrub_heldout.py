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
- ``export``: ``export <VENDOR>_API_KEY=<secret>``, the token as a shell profile holds it;
- ``neutral``: ``export X=<secret>``, the token under a name that says nothing;
- ``bare``: the token alone, with nothing around it.

Each positive also carries ``format``: ``self`` when the source project's own rule gives the
token a fixed literal of its own (a vendor prefix, infix or suffix), ``context`` when only a
nearby keyword makes it a secret (tools/scrub_heldout.py, "token formats"; docs/scrubbing.md,
"Self-identifying tokens"). Bare recall is reported for each.
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


# The full corpus, with trufflehog's test inputs as written (AGPL-3.0 text: never committed;
# built locally by ``tools/scrub_heldout.py --full``, read by ``bench/scrub.py --heldout-full``)
FULL_CORPUS_PATH = os.path.join(os.path.dirname(__file__), "data", "scrub_heldout.full.dat")


def encode_corpus(
    cases: list[dict[str, Any]], heads: dict[str, str], path: str = CORPUS_PATH
) -> None:
    blob = json.dumps({"sources": heads, "cases": cases}, sort_keys=True).encode()
    data = base64.b64encode(_xor(zlib.compress(blob, 9))).decode()
    lines = [data[i : i + 76] for i in range(0, len(data), 76)]
    with open(path, "w", encoding="ascii") as fh:
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
    form: str  # plain | json | export | neutral | bare
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
        if not c.get("token_only"):  # a trufflehog case stored as its token alone
            yield Trial(c, "plain", c["text"], secret)
            yield Trial(c, "json", hook_payload(c["text"]), secret)
        if not any(ch.isspace() for ch in secret):
            name = "".join(ch for ch in vendor(c["family"]).upper() if ch.isalnum()) or "X"
            yield Trial(c, "export", f"export {name}_API_KEY={secret}", secret)
            yield Trial(c, "neutral", f"export X={secret}", secret)
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


_NAME_EQ = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")


def _value_part(secret: str) -> str:
    """The secret without what is not secret material in it: a leading ``name=`` (a source's
    capture that includes the cookie or parameter name, ``_gitlab_session=<value>``), or the
    ``scheme://host`` of a captured URL without credentials in it (a webhook's secret is its
    path: ``https://outlook.office.com`` is the service's public name)."""
    scheme, sep, rest = secret.partition("://")
    host, slash, path = rest.partition("/")
    if sep and slash and scheme.isalpha() and "@" not in host and len(path) >= 6:
        return "/" + path
    name, eq, value = secret.partition("=")
    if eq and 0 < len(name) <= 40 and all(c in _NAME_EQ for c in name) and len(value) >= 6:
        return value
    return secret


def survived(out: Any, secret: str) -> bool:
    """True when the secret (or most of it) is still readable in the output."""
    secret = _value_part(secret)
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


def _removed(before: str, after: str) -> str:
    """The text a redaction took out (between the common prefix and suffix)."""
    i = 0
    while i < min(len(before), len(after)) and before[i] == after[i]:
        i += 1
    j = 0
    while j < min(len(before), len(after)) - i and before[-1 - j] == after[-1 - j]:
        j += 1
    return before[i : len(before) - j]


def damaged(before: Any, after: Any) -> bool:
    """A changed near miss that destroyed something readable rather than something shaped like
    a credential: the removed text is a UUID, a hex hash, a name (no digit), a URL or path, an
    ARN or a version. Judged on the removed text's shape alone, independently of the rules."""
    if not isinstance(before, str) or not isinstance(after, str):
        return True
    gone = _removed(before, after).strip("\"' ")
    if not gone:
        return False
    low = gone.lower()
    hexish = all(ch in "0123456789abcdef-" for ch in low)
    if hexish and (len(low) >= 32 or low.count("-") == 4):
        return True  # a hash or a UUID
    if not any(ch.isdigit() for ch in gone) and all(ch.isalpha() or ch in "_-. :/#" for ch in gone):
        return True  # a name or a phrase
    return low.startswith(("http://", "https://", "/", "arn:")) or (
        low[:1].isdigit() and "." in low[:4]
    )


def changed(trial: Trial, out: Any) -> bool:
    return bool(out != trial.value)


def split_of(case: dict[str, Any]) -> str:
    """``dev`` or ``test``: a fixed half by hash, so misses can be studied on one half while
    the other stays unseen."""
    h = hashlib.blake2b(case["text"].encode(), digest_size=2).digest()
    return "dev" if h[0] % 2 == 0 else "test"


Runner = Callable[[Any], Any]


# ----------------------------------------------------------------------------- scoring

# Family names differ between the four projects (gitleaks ``new-relic-…``, trufflehog
# ``newrelicpersonalapikey``, Nosey Parker ``np.newrelic.3``): one vendor name each.
ALIASES = {
    "new": "newrelic", "gcp": "google", "sendinblue": "brevo", "hashicorp": "vault",
    "atlassiandatacenter": "atlassian", "jiratoken": "atlassian", "pypi": "pypi",
    "privatekey": "private", "pem": "private", "ssh": "private", "openssh": "private",
    "hf": "huggingface", "azure": "azure", "slackwebhook": "slack", "githubapp": "github",
    "sq": "square", "squareapp": "square", "gitlabv2": "gitlab", "stripepaymentintent": "stripe",
    "cisco": "meraki", "kubernetes": "kubernetes", "odbc": "odbc", "basic": "basic",
    "basicauth": "basic", "uri": "basic", "ftp": "basic", "ldap": "basic",
}  # fmt: skip


def vendor(family: str) -> str:
    fam = family.lower()
    if fam in ALIASES:
        return ALIASES[fam]
    for suffix in ("personalaccesstoken", "accesstoken", "apitoken", "apikey", "oauth", "token",
                   "key", "secret", "webhook", "v2", "v1"):  # fmt: skip
        if fam.endswith(suffix) and len(fam) > len(suffix) + 2:
            fam = fam[: -len(suffix)]
            break
    return ALIASES.get(fam, fam)


def claimed_vendors(rule_ids: list[str]) -> set[str]:
    """Vendors trail has a known-format rule for (``github-token`` -> ``github``)."""
    generic = {"url", "auth", "cookie", "netrc", "conn", "cli", "dotenv", "quoted", "generic",
               "secret", "private", "jwt", "password", "kerberos"}  # fmt: skip
    out = set()
    for rid in rule_ids:
        head = rid.split("-")[0]
        if head not in generic:
            out.add(vendor(head))
    out |= {"private", "jwt"}  # PEM keys and JWTs are formats trail claims by shape
    return out


def top_vendors(cases: list[dict[str, Any]], n: int = 100) -> list[str]:
    """The ``n`` most common vendor families: most sources first, then most positives."""
    sources: dict[str, set[str]] = {}
    count: dict[str, int] = {}
    for c in cases:
        if c["kind"] != "tp":
            continue
        v = vendor(c["family"])
        sources.setdefault(v, set()).add(c["src"])
        count[v] = count.get(v, 0) + 1
    ranked = sorted(sources, key=lambda v: (-len(sources[v]), -count[v], v))
    return ranked[:n]


def score(cases: list[dict[str, Any]], run: Runner, forms: tuple[str, ...]) -> dict[str, Any]:
    """Per trial: caught (positives) or changed (negatives); tallies by form, vendor, source."""
    tally: dict[tuple[str, ...], list[int]] = {}

    def add(key: tuple[str, ...], ok: bool) -> None:
        cell = tally.setdefault(key, [0, 0])
        cell[0] += ok
        cell[1] += 1

    for t in trials(cases):
        if t.form not in forms and t.case["kind"] == "tp":
            continue
        out = run(t.value)
        c = t.case
        if c["kind"] == "fp":
            bad = changed(t, out)
            add(("fp", c["src"]), not bad)
            if bad:
                add(("damage", c["src"]), damaged(t.value, out))
            continue
        ok = not survived(out, t.secret)
        v = vendor(c["family"])
        add(("form", t.form), ok)
        add(("src", c["src"], t.form), ok)
        add(("vendor", v, t.form), ok)
        add(("format", v, c.get("format", "context"), t.form), ok)
        add(("split", split_of(c), t.form), ok)
    return {"|".join(k): v for k, v in tally.items()}
