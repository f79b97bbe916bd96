"""Labelled scrubber corpus, generated at run time from a seeded RNG (shared by tests and bench).

No realistic token is written in this file: every token is assembled from a split prefix and
random characters, so secret scanners and push protection have nothing to flag.
"""

from __future__ import annotations

import base64
import json
import random
import string
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

A62 = string.ascii_letters + string.digits
URLSAFE = A62 + "_-"
B64 = A62 + "+/"
UPPER32 = string.ascii_uppercase + "234567"


@dataclass
class Sample:
    kind: str  # "known" | "context" | "negative"
    family: str
    context: str
    value: Any  # what is passed to scrub_value
    secrets: list[str] = field(default_factory=list)


def _r(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


# ------------------------------------------------------------------ known-format token families
# Each returns (text to embed, the secret that must not survive).

Gen = Callable[[random.Random], tuple[str, str]]


def _same(tok: str) -> tuple[str, str]:
    return tok, tok


def _jwt(rng: random.Random) -> tuple[str, str]:
    head = _b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    claims = {"sub": _r(rng, A62, 12), "iat": rng.randint(1_600_000_000, 1_800_000_000)}
    body = _b64url(json.dumps(claims).encode())
    sig = _b64url(rng.randbytes(32))
    return _same(f"{head}.{body}.{sig}")


def _azure_conn(rng: random.Random) -> tuple[str, str]:
    key = _r(rng, B64, 86) + "=="
    text = (
        "DefaultEndpointsProtocol=https;AccountName=acct"
        + _r(rng, string.ascii_lowercase, 5)
        + ";Account"
        + "Key="
        + key
        + ";EndpointSuffix=core.windows.net"
    )
    return text, key


def _azure_sas(rng: random.Random) -> tuple[str, str]:
    sig = _r(rng, A62, 43) + "%3D"
    sas = "sv=2022-11-02&ss=b&srt=co&sp=rl&se=2030-01-01T00:00:00Z&sig=" + sig
    return "SharedAccess" + "Signature=" + sas, sig


FAMILIES: dict[str, Gen] = {
    "github-token": lambda r: _same("gh" + r.choice("pousr") + "_" + _r(r, A62, 36)),
    "github-fine-grained": lambda r: _same(
        "github" + "_pat_" + _r(r, A62, 22) + "_" + _r(r, A62, 59)
    ),
    "gitlab-token": lambda r: _same("gl" + r.choice(["pat", "dt", "rt"]) + "-" + _r(r, A62, 20)),
    "aws-access-key-id": lambda r: _same(r.choice(["AK", "AS"]) + "IA" + _r(r, UPPER32, 16)),
    "anthropic-key": lambda r: _same(
        "sk-" + "ant-" + r.choice(["api03", "admin01", "oat01"]) + "-" + _r(r, URLSAFE, 93) + "AA"
    ),
    "openai-key": lambda r: _same(
        r.choice(
            [
                "sk-" + "proj-" + _r(r, URLSAFE, 74) + "T3Blbk" + "FJ" + _r(r, URLSAFE, 74),
                "sk-" + _r(r, A62, 20) + "T3Blbk" + "FJ" + _r(r, A62, 20),
                "sk-" + "svcacct-" + _r(r, URLSAFE, 60),
            ]
        )
    ),
    "slack-token": lambda r: _same(
        "xo"
        + "x"
        + r.choice("bpa")
        + "-"
        + _r(r, string.digits, 11)
        + "-"
        + _r(r, string.digits, 13)
        + "-"
        + _r(r, A62, 24)
    ),
    "slack-webhook": lambda r: (
        lambda path: ("https://hooks.slack" + ".com/services/" + path, path)
    )("T" + _r(r, UPPER32, 8) + "/B" + _r(r, UPPER32, 10) + "/" + _r(r, A62, 24)),
    "gcp-api-key": lambda r: _same("AI" + "za" + _r(r, A62, 34) + r.choice(A62)),
    "google-oauth-token": lambda r: _same("ya" + "29." + _r(r, URLSAFE, 120)),
    "stripe-key": lambda r: _same(r.choice(["sk", "rk"]) + "_" + "live_" + _r(r, A62, 24)),
    "npm-token": lambda r: _same("np" + "m_" + _r(r, A62, 36)),
    "pypi-token": lambda r: _same("pypi-" + "AgEIcHlwaS5vcmc" + _r(r, URLSAFE, 80)),
    "huggingface-token": lambda r: _same("h" + "f_" + _r(r, string.ascii_letters, 34)),
    "jwt": _jwt,
    "azure-key": _azure_conn,
    "azure-sas": _azure_sas,
}

HEX = "0123456789abcdef"


UPPER36 = string.ascii_uppercase + string.digits
B64S = A62 + "+/"


def _uuid(rng: random.Random) -> str:
    h = _r(rng, HEX, 32)
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def _glued(*parts: str) -> str:
    """Join pieces of a token at run time (no literal token in the source)."""
    return "".join(parts)


def _mixed(rng: random.Random, alphabet: str, n: int) -> str:
    """Random body with upper, lower and a digit (as every real random body has)."""
    while True:
        v = _r(rng, alphabet, n)
        kinds = (str.isupper, str.islower, str.isdigit)
        if all(any(k(c) for c in v) for k in kinds):
            return v


def _telegram(rng: random.Random) -> tuple[str, str]:
    return _same(str(rng.randint(10**8, 10**10 - 1)) + ":" + "AA" + _r(rng, URLSAFE, 33))


def _discord_webhook(rng: random.Random) -> tuple[str, str]:
    tok = _r(rng, URLSAFE, 68)
    hook = str(rng.randint(10**17, 10**19))
    return _glued("https://disc", "ord.com/api/web", "hooks/", hook, "/", tok), tok


# Vendor families from issue 10, each shaped as the vendor documents its tokens.
VENDOR_FAMILIES: dict[str, Gen] = {
    "slack-app-token": lambda r: _same(
        _glued("xa", "pp-", "1-A", _r(r, UPPER32, 10), "-", _r(r, string.digits, 13), "-")
        + _r(r, HEX, 64)
    ),
    "twilio-api-key": lambda r: _same(_glued("S", "K") + _r(r, HEX, 32)),
    "sendgrid-key": lambda r: _same(
        _glued("S", "G.") + _r(r, URLSAFE, 22) + "." + _r(r, URLSAFE, 43)
    ),
    "shopify-token": lambda r: _same(
        _glued("shp", r.choice(["at", "ca", "pa", "ss"]), "_") + _r(r, HEX, 32)
    ),
    "digitalocean-token": lambda r: _same(_glued("do", r.choice("opr"), "_v1_") + _r(r, HEX, 64)),
    "databricks-token": lambda r: _same(_glued("da", "pi") + _r(r, HEX, 32)),
    "telegram-bot-token": _telegram,
    "discord-webhook": _discord_webhook,
    "square-token": lambda r: _same(
        r.choice(
            [
                _glued("sq0", "atp-") + _r(r, URLSAFE, 22),
                _glued("sq0", "csp-") + _r(r, URLSAFE, 43),
                _glued("EA", "AA") + _r(r, URLSAFE, 60),
            ]
        )
    ),
    "gitlab-token": lambda r: _same(
        _glued("gl", r.choice(["ptt", "dt", "pat"]), "-") + _r(r, URLSAFE, 20)
    ),
    "linear-key": lambda r: _same(_glued("lin", "_api_") + _r(r, A62, 40)),
    "postman-key": lambda r: _same(_glued("PM", "AK-") + _r(r, HEX, 24) + "-" + _r(r, HEX, 34)),
    "doppler-token": lambda r: _same(_glued("dp", ".pt.") + _r(r, A62, 43)),
    "grafana-token": lambda r: _same(
        r.choice(
            [
                _glued("gl", "c_") + _r(r, A62 + "+/", 80),
                _glued("gl", "sa_") + _r(r, A62, 32) + "_" + _r(r, HEX, 8),
            ]
        )
    ),
    "newrelic-key": lambda r: _same(_glued("NR", "AK-") + _r(r, UPPER32, 27)),
    "vault-token": lambda r: _same(_glued("hv", "s.") + _r(r, URLSAFE, 90)),
    "pulumi-token": lambda r: _same(_glued("pu", "l-") + _r(r, HEX, 40)),
    "mapbox-token": lambda r: _same(
        _glued("sk", ".ey", "J") + _r(r, URLSAFE, 60) + "." + _r(r, URLSAFE, 22)
    ),
    "notion-token": lambda r: _same(
        _glued("nt", "n_") + _r(r, string.digits, 11) + _mixed(r, A62, 35)
    ),
    "figma-token": lambda r: _same(_glued("fi", "gd_") + _r(r, URLSAFE, 40)),
    "planetscale-token": lambda r: _same(_glued("psc", "ale_tkn_") + _r(r, URLSAFE, 43)),
    "supabase-token": lambda r: _same(_glued("sb", "p_") + _r(r, HEX, 40)),
    "dynatrace-token": lambda r: _same(
        _glued("dt0", "c01.") + _r(r, UPPER32, 24) + "." + _r(r, UPPER32, 64)
    ),
    "age-secret-key": lambda r: _same(
        _glued("AGE-SEC", "RET-KEY-1") + _r(r, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)
    ),
    "clojars-token": lambda r: _same(
        _glued("CLOJ", "ARS_") + _r(r, string.ascii_lowercase + string.digits, 60)
    ),
    "contentful-token": lambda r: _same(_glued("CFP", "AT-") + _r(r, URLSAFE, 43)),
    "duffel-token": lambda r: _same(_glued("duf", "fel_live_") + _r(r, URLSAFE, 43)),
    "easypost-key": lambda r: _same(_glued("EZ", "AK") + _r(r, A62, 54)),
    "frameio-token": lambda r: _same(_glued("fio", "-u-") + _r(r, URLSAFE, 64)),
    "prefect-key": lambda r: _same(_glued("pn", "u_") + _r(r, A62, 36)),
    "readme-key": lambda r: _same(
        _glued("rd", "me_") + _r(r, string.ascii_lowercase + string.digits, 70)
    ),
    "rubygems-key": lambda r: _same(_glued("ruby", "gems_") + _r(r, HEX, 48)),
    "scalingo-token": lambda r: _same(_glued("tk", "-us-") + _r(r, URLSAFE, 48)),
    "brevo-key": lambda r: _same(_glued("xkey", "sib-") + _r(r, HEX, 64) + "-" + _r(r, A62, 16)),
    "shippo-token": lambda r: _same(_glued("ship", "po_live_") + _r(r, HEX, 40)),
    "typeform-token": lambda r: _same(_glued("tf", "p_") + _r(r, URLSAFE, 59)),
    "groq-key": lambda r: _same(_glued("gs", "k_") + _mixed(r, A62, 52)),
    "testpypi-token": lambda r: _same(
        _glued("pypi-", "AgENdGVzdC5weXBpLm9yZw") + _r(r, URLSAFE, 80)
    ),
    "hf-token-digits": lambda r: _same(_glued("h", "f_") + _mixed(r, A62, 34)),
    # issue 10, second slice: one generator per new format (prefixes split, bodies random)
    "1password-token": lambda r: _same(
        _glued("A", "3-")
        + _r(r, UPPER36, 6)
        + "-"
        + _r(r, UPPER36, 11)
        + "-"
        + "-".join(_r(r, UPPER36, 5) for _ in range(3))
    ),
    "adobe-secret": lambda r: _same(_glued("p8", "e-") + _mixed(r, A62, 32)),
    "airtable-token": lambda r: _same(_glued("pa", "t") + _r(r, A62, 14) + "." + _r(r, HEX, 64)),
    "harness-token": lambda r: _same(
        _glued("pa", "t.") + _r(r, URLSAFE, 22) + "." + _r(r, A62, 24) + "." + _r(r, A62, 20)
    ),
    "artifactory-token": lambda r: _same(_glued("AK", "Cp") + _r(r, A62, 69)),
    "aws-bedrock-key": lambda r: _same(_glued("AB", "SK") + _r(r, B64S, 120)),
    "clickhouse-key": lambda r: _same(_glued("4b", "1d") + _mixed(r, A62, 38)),
    "defined-networking-token": lambda r: _same(
        _glued("dn", "key-") + _r(r, URLSAFE, 26) + "-" + _r(r, URLSAFE, 52)
    ),
    "facebook-token": lambda r: _same(_glued("EA", "AM") + _mixed(r, A62, 120)),
    "gitlab-incoming-mail": lambda r: _same(_glued("gl", "imt-") + _r(r, URLSAFE, 25)),
    "infracost-key": lambda r: _same(_glued("ic", "o-") + _mixed(r, A62, 32)),
    "intra42-secret": lambda r: _same(_glued("s-s4", "t2ud-") + _r(r, HEX, 64)),
    "maxmind-key": lambda r: _same(
        _mixed(r, A62, 6) + "_" + _mixed(r, A62, 29) + _glued("_m", "mk")
    ),
    "msteams-webhook": lambda r: (
        _glued("https://acme.web", "hook.office.com/webhookb2/")
        + (tail := _uuid(r) + "@" + _uuid(r) + "/IncomingWebhook/" + _r(r, HEX, 32)),
        tail,
    ),
    "octopus-key": lambda r: _same(_glued("AP", "I-") + _r(r, UPPER36, 26)),
    "launchdarkly-key": lambda r: _same(_glued("sd", "k-") + _uuid(r)),
    "openshift-token": lambda r: _same(_glued("sha2", "56~") + _r(r, URLSAFE, 43)),
    "settlemint-token": lambda r: _same(_glued("sm", "_pat_") + _r(r, A62, 16)),
    "sourcegraph-token": lambda r: _same(
        _glued("sg", "p_") + _r(r, HEX, 16) + "_" + _r(r, HEX, 40)
    ),
    "sonar-token": lambda r: _same(_glued("sq", "p_") + _r(r, HEX, 40)),
    "yandex-key": lambda r: _same(
        _glued("t", "1.") + _r(r, URLSAFE, 12) + "." + _r(r, URLSAFE, 86)
    ),
    "twitter-bearer-token": lambda r: _same("A" * 22 + _mixed(r, A62, 90)),
    "plaid-token": lambda r: _same(_glued("access-", "sandbox-") + _uuid(r)),
    "lob-key": lambda r: _same(_glued("li", "ve_") + _r(r, HEX, 35)),
    "twitch-stream-key": lambda r: _same(
        _glued("li", "ve_") + _r(r, string.digits, 10) + "_" + _mixed(r, A62, 30)
    ),
    "mailchimp-key": lambda r: _same(_r(r, HEX, 32) + _glued("-u", "s20")),
    "mailgun-key": lambda r: _same(_glued("pub", "key-") + _r(r, HEX, 32)),
    "dockerhub-token": lambda r: _same(_glued("dckr", "_pat_") + _r(r, URLSAFE, 27)),
    "crates-io-token": lambda r: _same(_glued("ci", "o") + _mixed(r, A62, 32)),
    "dependency-track-key": lambda r: _same(_glued("od", "t_") + _mixed(r, A62, 32)),
    "firecrawl-key": lambda r: _same(_glued("f", "c-") + _r(r, HEX, 32)),
    "google-oauth-secret": lambda r: _same(_glued("GOC", "SPX-") + _r(r, URLSAFE, 28)),
    "jina-key": lambda r: _same(_glued("ji", "na_") + _r(r, A62, 60)),
    "newrelic-license": lambda r: _same(_r(r, A62, 6) + _r(r, HEX, 30) + _glued("NR", "AL")),
    "nuget-key": lambda r: _same(
        _glued("oy", "2") + _r(r, string.ascii_lowercase + string.digits, 43)
    ),
    "salesforce-token": lambda r: _same(
        _glued("00", "D") + _r(r, A62, 12) + "!" + _r(r, A62 + "._", 96)
    ),
    "stackhawk-key": lambda r: _same(
        _glued("haw", "k.") + _r(r, URLSAFE, 20) + "." + _r(r, URLSAFE, 20)
    ),
    "appsync-key": lambda r: _same(
        _glued("da", "2-") + _r(r, string.ascii_lowercase + string.digits, 26)
    ),
    "azure-devops-token": lambda r: _same(_r(r, A62, 76) + _glued("AZ", "DO") + _r(r, A62, 4)),
    "bitbucket-token": lambda r: _same(_glued("AT", "BB") + _r(r, A62, 32)),
    "openrouter-key": lambda r: _same(_glued("sk-", "or-v1-") + _r(r, HEX, 64)),
    "deepseek-key": lambda r: _same(_glued("s", "k-") + _r(r, HEX, 32)),
    "pinecone-key": lambda r: _same(_glued("pc", "sk_") + _r(r, A62, 5) + "_" + _r(r, A62, 64)),
    "e2b-key": lambda r: _same(_glued("e2", "b_") + _r(r, HEX, 40)),
    "posthog-key": lambda r: _same(_glued("ph", "x_") + _r(r, A62, 43)),
    "tailscale-key": lambda r: _same(
        _glued("tsk", "ey-") + "auth-" + _r(r, A62, 12) + "-" + _r(r, A62, 30)
    ),
    "neon-key": lambda r: _same(
        _glued("na", "pi_") + _r(r, string.ascii_lowercase + string.digits, 64)
    ),
    "buildkite-token": lambda r: _same(_glued("bk", "ua_") + _r(r, HEX, 40)),
    "circleci-token": lambda r: _same(
        _glued("CCI", "PAT_") + _r(r, A62, 22) + "_" + _r(r, HEX, 40)
    ),
    "razorpay-key": lambda r: _same(_glued("rz", "p_live_") + _r(r, A62, 14)),
    "tencent-key": lambda r: _same(_glued("AK", "ID") + _mixed(r, A62, 32)),
    "braintree-token": lambda r: _same(
        _glued("access_token", "$production$")
        + _r(r, string.ascii_lowercase + string.digits, 16)
        + "$"
        + _r(r, HEX, 32)
    ),
    "hubspot-token": lambda r: _same(_glued("pa", "t-na1-") + _uuid(r)),
    "wireguard-key": lambda r: (
        "[Interface]\n" + _glued("Private", "Key") + " = " + (k := _r(r, B64S, 43) + "="),
        k,
    ),
    "password-hash": lambda r: _same(_glued("$", "2b$") + "12$" + _r(r, A62 + "./", 53)),
    "github-app-long": lambda r: _same(
        _glued("gh", "s_") + _mixed(r, A62, 40) + "_" + _mixed(r, A62, 60)
    ),
}
FAMILIES.update(VENDOR_FAMILIES)

# contexts: embed text -> JSON value
Ctx = Callable[[str], Any]

CONTEXTS: dict[str, Ctx] = {
    "shell": lambda e: {"command": f"echo {e} | gh auth login --with-token && git push"},
    "shell-export": lambda e: {"command": f"export SERVICE_CRED={e}; ./deploy.sh --prod"},
    "json-value": lambda e: {"tool_input": {"content": e, "n": 3}},
    "json-in-json": lambda e: {"toolArgs": json.dumps({"command": f"deploy --with {e}"})},
    "escaped-json-text": lambda e: {"stdout": "resp: " + json.dumps(json.dumps({"value": e}))},
    "dotenv": lambda e: {"content": f"# settings\nSERVICE_VALUE={e}\nDEBUG=1\n"},
    "url": lambda e: f"https://api.acme.dev/callback?code=abc&v={e}&state=xyz",
    "header": lambda e: f"GET / HTTP/1.1\r\nX-Custom-Auth: {e}\r\nAccept: */*",
    "yaml": lambda e: {"content": f"service:\n  endpoint: https://acme.dev\n  v: {e}\n  n: 3\n"},
    "python": lambda e: f'client = Client(base_url="https://acme.dev", v="{e}")',
    "log": lambda e: f"2024-05-01T10:00:00Z WARN retrying request v={e}, attempt=2",
    "comma": lambda e: f"values: {e},next",
    "double-quote": lambda e: f'"{e}"',
    "single-quote": lambda e: f"'{e}'",
    "backtick": lambda e: f"run `{e}` now",
    "parens": lambda e: f"(using {e})",
    "escaped-newline": lambda e: f"line one\\n{e}\\nline three",
    "prose": lambda e: f"I used {e} to call the API yesterday.",
    "markdown": lambda e: {"text": f"```\n{e}\n```"},
    "dict-key": lambda e: {e: 1},
}


def _pem_body(rng: random.Random, lines: int = 12) -> list[str]:
    return [_r(rng, B64, 64) for _ in range(lines)] + [_r(rng, B64, 20) + "=="]


def _pem(kind: str, body: list[str], end: bool = True) -> str:
    begin = f"-----BEGIN {kind}-----"
    finish = f"-----END {kind}-----" if end else ""
    return "\n".join([begin, *body, finish]).rstrip("\n") + "\n"


def known_samples(rng: random.Random, per_cell: int = 3) -> list[Sample]:
    out: list[Sample] = []
    for family, gen in FAMILIES.items():
        for ctx_name, ctx in CONTEXTS.items():
            for _ in range(per_cell):
                text, secret = gen(rng)
                out.append(Sample("known", family, ctx_name, ctx(text), [secret]))
    kinds = ["RSA " + "PRIVATE KEY", "OPENSSH " + "PRIVATE KEY", "PRIVATE KEY", "EC PRIVATE KEY"]
    for _ in range(per_cell * 3):
        kind = rng.choice(kinds)
        body = _pem_body(rng)
        pem = _pem(kind, body)
        sec = body
        out.append(Sample("known", "private-key", "file", {"content": pem}, sec))
        out.append(Sample("known", "private-key", "json-escaped", {"out": json.dumps(pem)}, sec))
        out.append(
            Sample("known", "private-key", "json-in-json", {"a": json.dumps({"k": pem})}, sec)
        )
        cut = _pem(kind, body[: rng.randint(3, 8)], end=False)
        out.append(Sample("known", "private-key", "truncated", {"content": cut}, sec[:3]))
        out.append(Sample("known", "private-key", "cat", f"$ cat id_rsa\n{pem}$ ls\n", sec))
    return out


# ------------------------------------------------------------------ context-dependent secrets

WORDS = ["winter", "harbor", "falcon", "copper", "meadow", "rocket", "silver", "quartz"]


def password(rng: random.Random) -> str:
    style = rng.random()
    if style < 0.4:
        pw = _r(rng, A62, 16)
        return pw if any(c.isdigit() for c in pw) else pw + "7"
    if style < 0.7:
        return rng.choice(WORDS).capitalize() + str(rng.randint(10, 9999)) + rng.choice("!#%*")
    if style < 0.9:
        return _r(rng, A62 + "!#^*-_.", 20)
    return "".join(rng.choice(WORDS) for _ in range(3))  # all letters: the hard case


def opaque(rng: random.Random) -> str:
    return _r(rng, A62, rng.randint(32, 48))


def context_samples(rng: random.Random, per_cell: int = 10) -> list[Sample]:
    out: list[Sample] = []

    def add(family: str, context: str, value: Any, secret: str) -> None:
        out.append(Sample("context", family, context, value, [secret]))

    for _ in range(per_cell):
        pw = password(rng)
        for scheme, url in [
            ("postgres", f"postgres://app:{pw}@db.internal:5432/app"),
            ("https", f"https://deploy:{pw}@git.acme.dev/org/repo.git"),
            ("redis", f"redis://:{pw}@cache:6379/0"),
            ("mongodb", f"mongodb+srv://svc:{pw}@cluster0.abcde.mongodb.net/db"),
        ]:
            add("url-password", f"{scheme}-text", f"connecting to {url} now", pw)
            add("url-password", f"{scheme}-json", {"env": {"DATABASE_URL": url}}, pw)
            add("url-password", f"{scheme}-shell", {"command": f"git clone '{url}' ."}, pw)
        pw = password(rng)
        add("db-password", "dotenv", {"content": f"DB_HOST=db\nDB_PASSWORD={pw}\n"}, pw)
        pw = password(rng)
        add("db-password", "export", {"command": f"export PGPASSWORD={pw} && psql"}, pw)
        aws = _r(rng, B64, 40)
        add("aws-secret-key", "dotenv", f"AWS_SECRET_ACCESS_KEY={aws}\n", aws)
        creds = f"[default]\naws_access_key_id = AS{_r(rng, UPPER32, 18)}\naws_secret_access_key = {aws}\n"  # noqa: E501
        add("aws-secret-key", "credentials-file", {"content": creds}, aws)
        add("aws-secret-key", "json-dict", {"Credentials": {"SecretAccessKey": aws}}, aws)
        add("aws-secret-key", "json-text", {"stdout": json.dumps({"SecretAccessKey": aws})}, aws)
        user_pw = f"svc:{password(rng)}"
        basic = base64.b64encode(user_pw.encode()).decode()
        add("basic-auth", "curl", {"command": f'curl -H "Authorization: Basic {basic}" x'}, basic)
        add("basic-auth", "headers-dict", {"headers": {"Authorization": f"Basic {basic}"}}, basic)
        tok = opaque(rng)
        add("bearer", "curl", f"curl -H 'Authorization: Bearer {tok}' https://api.acme.dev", tok)
        add("bearer", "log", f"sending Bearer {tok}, status=401", tok)
        add("api-key-header", "curl", f'curl -H "X-Api-Key: {tok}" https://acme.dev', tok)
        key = opaque(rng)
        add("api-key-assign", "python", {"content": f'API_KEY = "{key}"\nclient = C(API_KEY)'}, key)
        add("api-key-assign", "yaml", {"content": f"llm:\n  api_key: {key}\n"}, key)
        add("api-key-assign", "json-dict", {"config": {"apiKey": key}}, key)
        add("api-key-assign", "kwarg", f'Client(api_key="{key}", timeout=3)', key)
        sec = opaque(rng)
        add("client-secret", "yaml", {"content": f"oauth:\n  client_secret: {sec}\n"}, sec)
        add("client-secret", "json-dict", {"client_secret": sec}, sec)
        add("client-secret", "json-text", {"out": json.dumps({"client_secret": sec})}, sec)
        pw = password(rng)
        ado = f"Server=tcp:db.acme.dev,1433;Database=app;User ID=svc;Password={pw};Encrypt=true"
        add("ado-password", "text", {"content": ado}, pw)
        pw = password(rng)
        add("json-password", "dict", {"db": {"user": "svc", "password": pw}}, pw)
        add("json-password", "text", {"stdout": json.dumps({"password": pw})}, pw)
        sid = opaque(rng)
        add("cookie", "cookie-header", f"Cookie: sessionid={sid}; theme=dark", sid)
        add("cookie", "set-cookie", f"Set-Cookie: session={sid}; Path=/; HttpOnly", sid)
        add("cookie", "headers-dict", {"headers": {"Cookie": f"_app_session={sid}"}}, sid)
        pw = password(rng)
        add("netrc", "file", {"content": f"machine api.acme.dev login bob password {pw}\n"}, pw)
        pw = password(rng)
        add("cli-password", "mysql", {"command": f"mysql -u root --password={pw} -h db"}, pw)
        add("cli-password", "docker", {"command": f"docker login -u bob --password {pw} r"}, pw)
        tok = opaque(rng)
        add("generic-token", "log", f"INFO connecting with token={tok}, region=eu", tok)
        add("generic-token", "dotenv", {"content": f"SERVICE_AUTH_TOKEN={tok}\n"}, tok)
    return out


# ------------------------------------------------------------------ near misses (must not change)


def negative_samples(rng: random.Random, per_cell: int = 5) -> list[Sample]:
    out: list[Sample] = []

    def add(family: str, value: Any, context: str = "text") -> None:
        out.append(Sample("negative", family, context, value))

    hexd = string.hexdigits[:16]
    for _ in range(per_cell):
        sha = _r(rng, hexd, 40)
        add("git-sha", f"commit {sha}\nAuthor: Alice <alice@acme.dev>\n")
        add("git-sha", {"sha": sha, "parents": [_r(rng, hexd, 40)]}, "json")
        add("short-sha", f"git show {sha[:7]} && git revert {sha[:10]}")
        u = f"{_r(rng, hexd, 8)}-{_r(rng, hexd, 4)}-4{_r(rng, hexd, 3)}-a{_r(rng, hexd, 3)}-{_r(rng, hexd, 12)}"  # noqa: E501
        add("uuid", f"2024-05-01 INFO request_id={u} done in 12ms")
        add("uuid", {"session_id": u, "tool_use_id": "toolu_" + _r(rng, A62, 24)}, "json")
        sri = "sha512-" + base64.b64encode(rng.randbytes(64)).decode()
        add(
            "sri-hash",
            f'"integrity": "{sri}",\n"resolved": "https://registry.npmjs.org/x/-/x-1.0.0.tgz"',
        )
        add("sri-hash", {"integrity": sri}, "json")
        add("docker-digest", f"FROM python:3.11-slim@sha256:{_r(rng, hexd, 64)}")
        add("etag", f'ETag: "{_r(rng, hexd, 32)}"')
        cert = _pem("CERTIFICATE", _pem_body(rng))
        add("certificate", {"content": cert}, "json")
        ssh = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + _r(rng, B64, 43) + " alice@laptop"
        add("ssh-public-key", {"content": ssh + "\n"}, "json")
        png = "data:image/png;base64," + base64.b64encode(rng.randbytes(300)).decode()
        add("data-uri", f'<img src="{png}">')
        add("git-url", "git@github.com:acme/repo.git ssh://git@github.com/acme/repo.git")
        add("git-url", "https://github.com/acme/repo.git https://bob@bitbucket.org/acme/x.git")
        add("pii-off", {"transcript_path": "/home/alice/.claude/x.jsonl", "email": "a@acme.dev"})
        add("pii-off", "connected to 10.0.0.12 from 192.168.1.20 as /Users/bob/work")
    placeholders = [
        "sk-xxxx",
        "gh" + "p_" + "x" * 36,
        "gh" + "p_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "AKIA" + "IOSFODNN7EXAMPLE",
        "sk-" + "ant-...",
        "sk-" + "proj-" + "*" * 40,
        "export AWS_SECRET_ACCESS_KEY=${AWS_SECRET_ACCESS_KEY}",
        'api_key = os.environ["API_KEY"]',
        "const key = process.env.OPENAI_API_KEY;",
        "token: ${{ secrets.GITHUB_TOKEN }}",
        "export OPENAI_API_KEY=<your-api-key>",
        "API_KEY=your_api_key_here",
        'api_key = os.environ.get("OPENAI_API_KEY")',
        "token = get_token()",
        "password: ${DB_PASSWORD}",
        "Authorization: Bearer $TOKEN",
        'headers = {"Authorization": f"Bearer {token}"}',
        "DB_PASSWORD=changeme",
        "postgres://user:password@localhost/db",
        "postgres://app:${DB_PASSWORD}@db/app",
        "https://user:<password>@host/path",
        "password = request.form['password']",
        "self.secret_key = settings.SECRET_KEY",
        "def refresh_token(self, token: str) -> str:",
        "tokens = tokenizer.encode(text)",
        "max_tokens=4096, temperature=0.2",
        "if password != confirm_password:",
        "password_hash = bcrypt.hashpw(password.encode(), salt)",
        "api_key: str | None = None",
        "PASSWORD_RESET_TOKEN_TTL=3600",
        "Bearer token authentication is described in RFC 6750.",
        "-----BEGIN RSA " + "PRIVATE KEY----- marks the start of the key file",
        'if line.startswith("-----BEGIN OPENSSH ' + 'PRIVATE KEY-----"):',
        "npm install lodash@4.17.21 && pip install requests==2.31.0",
        "Set-Cookie: theme=dark; Path=/",
        "token_type=bearer&expires_in=3600",
    ]
    for p in placeholders:
        add("placeholder", p)
        add("placeholder", {"command": p}, "json")
    code = (
        "import os\n\n\ndef load(path: str) -> dict[str, str]:\n"
        '    """Read key/value pairs; the token and secret are never logged."""\n'
        "    out = {}\n    for line in open(path):\n        key, _, value = line.partition('=')\n"
        "        out[key.strip()] = value.strip()\n    return out\n"
    )
    add("code", {"tool_response": {"file": {"content": code}}}, "json")
    return out


def corpus(seed: int = 1234, per_cell: int = 3) -> list[Sample]:
    rng = random.Random(seed)
    return (
        known_samples(rng, per_cell)
        + context_samples(rng, per_cell * 3)
        + negative_samples(rng, per_cell)
    )


# ------------------------------------------------------------------ judging


def string_leaves(value: Any) -> list[str]:
    out: list[str] = []
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return out


def leaked(output: Any, secret: str, window: int = 12) -> bool:
    """True when any ``window``-char piece of ``secret`` survives in ``output`` (raw or JSON)."""
    hay = json.dumps(output, ensure_ascii=False) + "\n" + "\n".join(string_leaves(output))
    if len(secret) < window:
        return secret in hay
    return any(secret[i : i + window] in hay for i in range(len(secret) - window + 1))


def caught(sample: Sample, output: Any) -> bool:
    return not any(leaked(output, s) for s in sample.secrets)


def unchanged(sample: Sample, output: Any) -> bool:
    return bool(output == sample.value) and json.dumps(output) == json.dumps(sample.value)
