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
import re
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

    prefixes = positive_prefixes(cases)
    for t in trials(cases):
        if t.form not in forms and t.case["kind"] == "tp":
            continue
        out = run(t.value)
        c = t.case
        if c["kind"] == "fp":
            bad = changed(t, out)
            add(("fp", c["src"]), not bad)
            reading = credential_reading(c, prefixes) if c["src"] != "trufflehog" else ""
            # the same figure without the negatives that hold a credential by any reading
            add(("fpreading", reading or "none", c["src"]), not bad)
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


# ----------------------------------------------------------------------------- relabelling

# A negative of the other projects is a negative *for one rule*: gitleaks' ``fps`` of a rule,
# Nosey Parker's ``negative_examples``, detect-secrets' cases where one plugin must not fire.
# Many hold, by any reading, a credential that rule was not about (a password literal in a
# Vault example, a GitHub token in the GitLab plugin's tests, a Google key gitleaks allowlists
# as public). ``credential_reading`` is the written criterion that sets those apart, applied
# to every negative alike; it reads only the case's text and the corpus' own positives (none
# of trail's rules). docs/scrub-heldout.md gives the criterion and its counts; the bench
# reports the raw near-miss figure beside the one without these cases.

_CRED_NAMES = (
    "password", "passwd", "pwd", "pass", "passphrase", "secret", "token", "apikey", "api_key",
    "api-key", "accesskey", "access_key", "secretkey", "secret_key", "privatekey",
    "private_key", "licensekey", "license_key", "streamkey", "stream_key", "authkey",
    "auth_key", "deploykey", "credential", "credentials", "clientsecret", "client_secret",
)  # fmt: skip
_NOT_VALUE_NAMES = ("_id", "name", "arn", "hash", "type", "prefix", "url", "path", "file")
_ASSIGN = re.compile(
    r"([A-Za-z_][A-Za-z0-9_.-]{0,60})[\"']?[ \t]*(?:=>|:=|\.=|=|:)([ \t]*)"
    r"([\"'`]?)([^\s\"'`,;]{8,256})\3"
)
_XML_PAIR = re.compile(r"(?:key|name)=\"([^\"]{1,64})\"[ \t]+value=\"([^\"]{8,256})\"")
_URL_PW = re.compile(r"[a-z][a-z0-9+.-]*://[^\s:/@]*:([^\s/@]{6,256})@")
_HEADER = re.compile(
    r"(?i:authorization)[\"']?[ \t]*[:=][ \t]*[\"']?(?i:bearer|basic|token)[ \t]+"
    r"([A-Za-z0-9._~+/=-]{8,})"
)


def _credential_name(name: str) -> bool:
    low = name.lower().strip("\"'$ ").rstrip("0123456789")
    if any(w in low for w in _NOT_VALUE_NAMES):
        return False
    return low.endswith(_CRED_NAMES) and not low.endswith(("bypass", "compass", "keypass"))


def _unclosed_tail(value: str) -> str:
    """``value`` without the closing brackets of the code around it: in ``f(token: abc…)``
    the ``)`` ends the call, it is not part of the value (a call *in* the value opens one)."""
    while value[-1:] in ")]}" and not any(c in value for c in "([{"):
        value = value[:-1]
    return value


def _literal(value: str, hash_ok: bool = False) -> bool:
    """A value typed as a literal: not a variable, template, call, path, URL or ARN, and not
    one character repeated. ``hash_ok``: a leading ``#`` is part of the value (it follows the
    operator directly), not a comment."""
    v = value.lstrip("\\")
    marks = "$%<{[(+.&/" if hash_ok else "$%<{[(+.#&/"
    if v[:1] in marks or any(m in v for m in ("${", "#{", "{{", "(", ")", "://")):
        return False
    if v.lower().startswith("arn:") or len(set(v)) < 5:
        return False
    if any(w in v.lower() for w in _PLACEHOLDER_MARKS):
        return False  # ghp_xxxx…, AKIAIOSFODNN7EXAMPLE, <your-key>, PUT_YOUR_TOKEN_HERE
    dotted = "." in v and all(p.isidentifier() for p in v.split("."))
    return not (dotted and not any(c.isdigit() for c in v))


def positive_prefixes(cases: list[dict[str, Any]]) -> set[str]:
    """The token prefixes the corpus' own positives use: a positive secret's leading literal
    (up to and including its first ``_``, ``-`` or ``.``, 3 to 12 characters with a letter;
    or its first 4 characters when they mix upper and lower case, as ``AIza``), kept when 2
    or more distinct positive secrets share it (``sk-``, ``xoxb-``, ``AIza``, ``glpat-``)."""
    seen: dict[str, set[str]] = {}
    for c in cases:
        if c["kind"] != "tp" or not c["secrets"]:
            continue
        secret = max(c["secrets"], key=len)
        cut = min((i for i in (secret.find(d) for d in "_-.") if i >= 0), default=-1)
        head = secret[: cut + 1] if 2 <= cut <= 11 else ""
        if not head or not any(ch.isalpha() for ch in head):
            four = secret[:4]
            mixed = any(ch.isupper() for ch in four) and any(ch.islower() for ch in four)
            head = four if mixed and four.isalnum() else ""
        if head:
            seen.setdefault(head, set()).add(secret)
    return {h for h, secrets in seen.items() if len(secrets) >= 2}


_BODY = re.compile(r"[A-Za-z0-9_.+/=-]{16,}")
_PLACEHOLDER_MARKS = ("xxxx", "example", "...", "***", "<", "your", "here")
_WORD_PREFIXES = frozenset(("test", "some", "example", "secret", "data", "api", "endp"))


def _vendor_token(text: str, prefixes: set[str]) -> bool:
    for p in prefixes:
        if p.rstrip("_-.").lower() in _WORD_PREFIXES:
            continue  # an ordinary word some positives start with, not a vendor's literal
        i = text.find(p)
        while i >= 0:
            if i == 0 or not text[i - 1].isalnum():
                m = _BODY.match(text, i + len(p))
                body = m.group(0) if m else ""
                mixed = any(c.isupper() for c in body) and any(c.islower() for c in body)
                if (
                    body
                    and any(c.isdigit() for c in body)
                    and (mixed or len(set(body)) >= 10)
                    and not any(w in body.lower() for w in _PLACEHOLDER_MARKS)
                ):
                    return True
            i = text.find(p, i + 1)
    return False


def credential_reading(case: dict[str, Any], prefixes: set[str]) -> str:
    """For a negative: ``""`` when nothing in it is a credential by any reading, else why:

    - ``assignment``: a literal of 8+ characters (5+ distinct, no whitespace) under a name
      ending in a credential word (``password``, ``secret``, ``token``, ``api_key``,
      ``license_key``, …; not ``*_id``, ``*name``, ``*arn``, ``*hash``, ``*type``,
      ``*prefix``, ``*url``, ``*path``, ``*file``), after ``=``, ``:``, ``=>``, ``:=``, ``.=``
      or as an XML ``key=/name="…" value="…"`` pair; a variable, template, call, path, URL,
      ARN or digit-free dotted name is not a literal; a ``#`` right after the operator is part
      of the value (a comment needs a space before it), and closing brackets ending a value
      that opens none belong to the code around it (``f(token: …)``);
    - ``header``: the literal value of an ``Authorization: Bearer|Basic|Token`` header;
    - ``url-password``: the password of ``scheme://user:password@`` (6+ characters);
    - ``vendor-token``: a prefix the corpus' positives use (``positive_prefixes``; not an
      ordinary word such as ``test_`` or ``some-``), at a token start, followed by 16+ token
      characters holding a digit and either both cases or 10+ distinct characters.

    A value holding a placeholder mark (``xxxx``, ``example``, ``...``, ``***``, ``<``,
    ``your``, ``here``) or fewer than 5 distinct characters is never a credential here.
    """
    text = case["text"]
    for m in _ASSIGN.finditer(text):
        # Password=#… : "#" starts the value; a comment needs a space or a quote before it
        glued = not m.group(2) and not m.group(3)
        if _credential_name(m.group(1)) and _literal(_unclosed_tail(m.group(4)), glued):
            return "assignment"
    for m in _XML_PAIR.finditer(text):
        if _credential_name(m.group(1)) and _literal(m.group(2)):
            return "assignment"
    for m in _HEADER.finditer(text):
        if _literal(m.group(1)):
            return "header"
    for m in _URL_PW.finditer(text):
        pw = m.group(1)
        if pw[:1] not in "$<{%*" and pw.lower() not in ("password", "passwd", "pass"):
            return "url-password"
    if _vendor_token(text, prefixes):
        return "vendor-token"
    return ""
