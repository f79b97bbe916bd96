"""The scrubber's rule set: what a secret looks like (see docs/scrubbing.md, "Rules").

Rules are data plus small finder functions; ``trace_ingest.scrub`` owns the engine that runs
them (prefilter, spans, redaction, fingerprints, configuration). Hot-path safe: standard
library only; every regex compiles lazily, on the first keyword hit, and ``re`` itself is
imported only then.
"""

from __future__ import annotations

from trace_ingest import _regex

TYPE_CHECKING = False  # typing costs ~5 ms to import; annotations are strings here
if TYPE_CHECKING:
    import re
    from collections.abc import Callable, Iterator
    from typing import Any

    Finder = Callable[[str, str], Iterator["Span"]]

Span = tuple[int, int]


class _Lazy:
    """A regex compiled on first use (a cold hook process pays only for what it uses)."""

    __slots__ = ("_rx", "flags", "pattern")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self.flags = flags
        self._rx: re.Pattern[str] | None = None

    def __call__(self) -> re.Pattern[str]:
        rx = self._rx
        if rx is None:
            # Lazily, and through the program cache: no `re` import once the cache is warm.
            rx = self._rx = _regex.compile(self.pattern, self.flags)
        return rx


def _blake2b(data: bytes, key: bytes, digest_size: int, person: bytes = b"") -> str:
    try:  # the builtin module: hashlib would also load OpenSSL (~3 ms)
        from _blake2 import blake2b
    except ImportError:  # pragma: no cover - other interpreters
        from hashlib import blake2b
    return blake2b(data, key=key, digest_size=digest_size, person=person).hexdigest()


TAG_RE = _Lazy(r"\[REDACTED:[A-Za-z0-9_-]{1,64}:[0-9a-f]{12}\]")
KEY_BYTES = 32
MIN_SCAN = 6  # shorter strings cannot hold anything a rule matches
PII_CATEGORIES: tuple[str, ...] = ("email", "ip", "home_user")

_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_B64URL = _WORD | {"-"}
_STOP_WORDS = (
    "changeme password passwd pass pwd secret secrets test testing dummy placeholder true false"
    " null none nil undefined user username token apikey api_key redacted hidden masked"
    " required optional string value default"
)
_STOP = frozenset(_STOP_WORDS.split(" "))
_TERMINATORS = frozenset(" \t\r\n\"'`;,)]}>&|")
_LETTERS = _Lazy(r"[A-Za-z_.-]+")
_NON_B64 = _Lazy(r"[^A-Za-z0-9+/=]++")
_PCT = _Lazy(r"%([0-9A-Fa-f]{2})")
_ID_RULE = _Lazy(r"[a-z0-9][a-z0-9_-]{0,40}")
_TOKEN_RUN = _Lazy(r"[A-Za-z0-9_-]*+")


def entropy(value: str) -> float:
    """Shannon entropy of ``value`` in bits per character."""
    n = len(value)
    if n == 0:
        return 0.0
    counts: dict[str, int] = {}
    for ch in value:
        counts[ch] = counts.get(ch, 0) + 1
    from math import log2  # only context rules with a candidate reach here

    return -sum(c / n * log2(c / n) for c in counts.values())


def _boundary_before(text: str, i: int) -> bool:
    """True when position ``i`` starts a token: no word character before it.

    A JSON escape such as ``\\n`` or ``\\t`` right before the token counts as a boundary, so a
    token in still-encoded JSON text is found too.
    """
    if i == 0:
        return True
    ch = text[i - 1]
    if ch not in _WORD:
        return True
    return ch in "nrt" and i >= 2 and text[i - 2] == "\\"


def _glued_ok(value: str) -> bool:
    """A known-format token glued to a word before it (``xghp_…``, ``key_sk-ant-…``,
    ``mcp__srv__ghp_…``): accepted when it looks random, i.e. has both upper- and lower-case
    letters. Real tokens of these formats almost always do; the words and identifiers a
    prefix such as ``sk-`` or ``hf_`` can hide in (``task-proj-…``, ``shelf_…``) almost never
    do."""
    return any(c.isupper() for c in value) and any(c.islower() for c in value)


def _terminated(text: str, end: int) -> bool:
    """True when a value ending at ``end`` is followed by a terminator (or a JSON escape)."""
    if end >= len(text):
        return True
    ch = text[end]
    if ch in _TERMINATORS:
        return True
    return ch == "\\" and end + 1 < len(text) and text[end + 1] in 'nrt"'


def _fake_token(value: str) -> bool:
    """Placeholders shaped like a known token: ``ghp_xxxx…``, ``…EXAMPLE``, ``sk-proj-****``."""
    low = value.lower()
    if "xxxxx" in low or "example" in low or "*****" in low or "....." in low:
        return True
    if "<" in low or "{" in low:
        return True
    return len(set(value)) < 8


def _placeholder(value: str, identifiers: bool = True) -> bool:
    """False-positive filter for context rules (study §5.2)."""
    low = value.lower().strip("\"'")
    if len(low) < 4 or low in _STOP:
        return True
    if "example" in low or "your_" in low or "your-" in low or low.endswith("xxxx"):
        return True
    if "***" in low or "xxx" in low or "..." in low or "…" in low or "redacted" in low:
        return True
    first = low[0]
    if first in "$<[{%" or low.endswith("}") or low.endswith(">") or "%s" in low:
        return True
    if low.startswith(("~/", "./", "../")) or (first == "/" and low.count("/") >= 2):
        return True
    if identifiers:
        if (_LETTERS().fullmatch(value) or _code_identifier(value)) and not _random_looking(value):
            return True
        if value.endswith(")") or "(" in value:
            return True
    return False


def _code_identifier(value: str) -> bool:
    """``os.environ.get``, ``settings.token``, ``self->key``, ``Config::KEY``, ``get_token()``."""
    head = value.split("(", 1)[0] if value.endswith(")") else value
    parts = head.replace("::", ".").replace("->", ".").split(".")
    return all(p.replace("$", "_").isidentifier() for p in parts) and (
        len(parts) > 1 or head != value
    )


def _always(value: str) -> bool:
    return True


def _has_letter_and_digit(value: str) -> bool:
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


class Rule:
    """One detection rule. ``pattern`` or ``finder`` produces spans; filters judge them."""

    __slots__ = (
        "_rx",
        "_rx_i",
        "anchor",
        "context",
        "finder",
        "flags",
        "glued",
        "group",
        "id",
        "keywords",
        "lb",
        "lower",
        "min_entropy",
        "pattern",
        "rb",
        "terminated",
        "validate",
    )

    def __init__(
        self,
        rule_id: str,
        keywords: tuple[str, ...],
        pattern: str = "",
        *,
        lower: bool = False,
        group: int = 0,
        lb: bool = False,
        glued: Callable[[str], bool] | None = _glued_ok,
        anchor: str = "",
        terminated: bool = False,
        rb: frozenset[str] = frozenset(),
        min_entropy: float = 0.0,
        context: bool = False,
        validate: Callable[[str], bool] | None = None,
        finder: Finder | None = None,
        flags: int = 0,
    ) -> None:
        self.id = rule_id
        self.keywords = keywords
        self.pattern = pattern
        self.lower = lower
        self.group = group
        self.lb = lb
        self.glued = glued
        self.anchor = anchor
        self.terminated = terminated
        self.rb = rb
        self.min_entropy = min_entropy
        self.context = context
        self.validate = validate
        self.finder = finder
        self.flags = flags
        self._rx: re.Pattern[str] | None = None
        self._rx_i: re.Pattern[str] | None = None

    def rx(self, ignorecase: bool = False) -> re.Pattern[str]:
        if ignorecase:
            if self._rx_i is None:
                self._rx_i = _regex.compile(self.pattern, self.flags | _regex.IGNORECASE)
            return self._rx_i
        if self._rx is None:
            self._rx = _regex.compile(self.pattern, self.flags)
        return self._rx

    def spans(self, text: str, low: str) -> Iterator[Span]:
        """Candidate secret spans (before the value filters)."""
        if self.finder is not None:
            yield from self.finder(text, low)
            return
        if self.lower:
            same = len(low) == len(text)
            subject = low if same else text
            rx = self.rx(ignorecase=not same)
        else:
            subject, rx = text, self.rx()
        if self.anchor:
            yield from self._anchored(subject, rx)
            return
        for m in rx.finditer(subject):
            start, end = m.span(self.group)
            if start < 0:
                continue
            if self.lb and not _boundary_before(text, m.start()) and not self._glued(text, m):
                continue
            if self.terminated and not _terminated(text, end):
                continue
            if self.rb and end < len(text) and text[end] in self.rb:
                continue
            yield start, end

    def _glued(self, text: str, m: re.Match[str]) -> bool:
        """A match with a word character right before it: a token glued after ``_``, a
        letter or a digit. Kept when the rule's ``glued`` check accepts it."""
        return self.glued is not None and (self.glued is _always or self.glued(m.group(0)))

    def _anchored(self, subject: str, rx: re.Pattern[str]) -> Iterator[Span]:
        """Try the full pattern where the literal anchor occurs, once per run of token
        characters that fails.

        For patterns such as the JWT one, a failed attempt scans the whole run of token
        characters; skipping the rest of that run keeps ``eyJeyJeyJ…`` linear. A match with a
        word character before it (glued) is kept only when ``glued`` accepts it.
        """
        pos = 0
        anchor = self.anchor
        n = len(subject)
        while pos < n:
            i = subject.find(anchor, pos)
            if i < 0:
                return
            m = rx.match(subject, i)
            if m is None:
                # Every later start inside this run of token characters fails the same way:
                # skip the run, so ``eyJeyJeyJ…`` stays linear.
                run = _TOKEN_RUN().match(subject, i)
                pos = max(run.end() if run else 0, i + 1)
                continue
            if not _boundary_before(subject, i) and not self._glued(subject, m):
                pos = max(m.end(), i + 1)
                continue
            start, end = m.span(self.group)
            if start >= 0 and (not self.terminated or _terminated(subject, end)):
                yield start, end
            pos = max(m.end(), i + 1)

    def accept(self, value: str) -> bool:
        if self.validate is not None and not self.validate(value):
            return False
        if self.min_entropy and entropy(value) < self.min_entropy:
            return False
        if self.context:
            return not _placeholder(value)
        return True


# ----------------------------------------------------------------------------- custom finders

_PEM_HEAD = _Lazy(r"-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----")
_SEP = r"(?:[ \t\r\n]|\\{1,3}[nrt])"
_PEM_RUN = _Lazy(
    rf"{_SEP}*+(?:(?:Proc-Type|DEK-Info):[^\r\n\\]*+{_SEP}++)*+"
    rf"(?:[A-Za-z0-9+/=]{{16,}}+{_SEP}*+)*+[A-Za-z0-9+/=]*+"
)
PEM_MAX = 16384


def _pem_finder(text: str, low: str) -> Iterator[Span]:
    """Whole private-key blocks: BEGIN … END, or BEGIN + the base64 run when END is missing."""
    next_end = -2  # cached position of the next "-----END" (-1: none)
    covered = 0
    for m in _PEM_HEAD().finditer(text):
        if m.start() < covered:
            continue
        head_end = m.end()
        if next_end != -1 and next_end < head_end:
            next_end = text.find("-----END", head_end)
        run = _PEM_RUN().match(text, head_end)
        stop = run.end() if run else head_end
        body = text[head_end:stop]
        if len(_NON_B64().sub("", body)) < 64:
            continue
        if next_end != -1 and next_end - head_end <= PEM_MAX and stop >= next_end - 2:
            close = text.find("-----", next_end + 8)
            stop = close + 5 if close != -1 and close - next_end < 120 else next_end + 8
            covered = stop
            yield m.start(), stop
            continue
        covered = head_end + len(_rstrip_escapes(body))
        yield m.start(), covered


def _rstrip_escapes(body: str) -> str:
    stripped = body.rstrip(" \t\r\n")
    while stripped.endswith(("\\n", "\\r", "\\t")):
        stripped = stripped[:-2].rstrip(" \t\r\n\\")
    return stripped


_COOKIE_HEAD = _Lazy(r"(?:set-)?cookie[\"']?[ \t]*+[:=][ \t]*+[\"']?|--cookie[ =]++[\"']?")
_COOKIE_VALUE = _Lazy(r"[^\r\n\"'\\]{1,8192}+")
_COOKIE_PAIR = _Lazy(r"([!#$%&*+.^_`|~0-9A-Za-z-]{1,128}+)=([^;,\s\"'\\]{1,4096}+)")
_SESSIONISH = (
    "sess", "sid", "token", "auth", "jwt", "csrf", "xsrf", "remember", "login", "secret",
    "credential", "saml", "oauth", "refresh", "access", "identity", "key", "_u", "user_session",
)  # fmt: skip


def _cookie_finder(text: str, low: str) -> Iterator[Span]:
    """Values of session-like cookies in ``Cookie:`` / ``Set-Cookie:`` / ``--cookie`` values."""
    covered = 0
    for head in _COOKIE_HEAD().finditer(low):
        start = head.end()
        if head.start() < covered:
            continue  # inside the previous header's value (keeps "Cookie: " * n linear)
        value = _COOKIE_VALUE().match(text, start)
        if value is None:
            continue
        covered = value.end()
        for pair in _COOKIE_PAIR().finditer(text, start, value.end()):
            name = pair.group(1).lower()
            val = pair.group(2)
            if not any(s in name for s in _SESSIONISH):
                continue
            if len(val) < 8 or _placeholder(val, identifiers=False) or _LETTERS().fullmatch(val):
                continue
            yield pair.span(2)


_DOTENV_WORDS = ("KEY", "TOKEN", "SECRET", "PASSW", "PWD", "CREDENTIAL", "AUTH")
_DOTENV_SKIP = ("_ID", "_PATH", "_FILE", "_URL", "_DIR", "_NAME", "_TYPE", "_HEADER", "_ALG")
_DOTENV = _Lazy(r"[ \t]*+(?:export[ \t]++)?+([A-Z][A-Z0-9_]{0,127}+)=[\"']?([^\s\"'\\]{6,}+)")
_LINE_WINDOW = 160  # indentation + "export " + a 128-character name


def _dotenv_finder(text: str, low: str) -> Iterator[Span]:
    """``NAME=value`` lines whose upper-case name looks secret (``.env``, ``export``, env).

    Driven by ``str.find`` of the upper-case words, then one anchored match at the start of
    that line (a real newline or a ``\\n`` escape): no regex scans every position.
    """
    seen: set[int] = set()
    rx = _DOTENV()
    for word in _DOTENV_WORDS:
        pos = 0
        while True:
            i = text.find(word, pos)
            if i < 0:
                break
            pos = i + 1
            lo = max(0, i - _LINE_WINDOW)
            nl = text.rfind("\n", lo, i)
            esc = text.rfind("\\n", lo, i)
            if nl < 0 and esc < 0:
                if lo > 0:
                    continue  # the line starts too far back to be a NAME=value line
                start = 0
            else:
                start = max(nl + 1, esc + 2 if esc >= 0 else 0)
            if start in seen:
                continue
            seen.add(start)
            m = rx.match(text, start)
            if m is None or not m.start(1) <= i < m.end(1):
                continue
            name = m.group(1)
            if name.endswith(_DOTENV_SKIP):
                continue
            value = m.group(2)
            passwordish = "PASSW" in name or "PWD" in name or "SECRET" in name
            if _placeholder(value, identifiers=not passwordish):
                continue
            if not passwordish and not _generic_ok(value):
                continue
            yield m.span(2)


_EMAIL_AT = _Lazy(r"@(?:[A-Za-z0-9-]{1,63}+\.)++[A-Za-z]{2,24}+")
_LOCAL = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._%+-")


def _email_finder(text: str, low: str) -> Iterator[Span]:
    """``local@domain.tld``: the regex is led by the literal ``@``; the local part is found
    by walking left in Python (bounded), so ``x@x@x@…`` stays linear."""
    for dom in _EMAIL_AT().finditer(text):
        at = dom.start()
        start = at
        while start > 0 and at - start < 64 and text[start - 1] in _LOCAL:
            start -= 1
        if start == at or (start > 0 and text[start - 1] == ":"):
            continue  # no local part, or user:pass@host (URL credentials)
        if start >= 3 and text[start - 3 : start] == "://":
            continue  # scheme://user@host is a URL, not an e-mail address
        yield start, dom.end()


_IPV4 = _Lazy(r"(?<![\d.])(?:\d{1,3}\.){3}\d{1,3}(?![\d.])")


def _ip_finder(text: str, low: str) -> Iterator[Span]:
    for m in _IPV4().finditer(text):
        parts = [int(p) for p in m.group(0).split(".")]
        if any(p > 255 for p in parts) or parts[0] in (0, 127) or parts == [255] * 4:
            continue
        yield m.span()


_HOME = _Lazy(r"(?:/home/|/users/|[a-z]:\\{1,2}users\\{1,2})([^/\\\s\"'<>:;,*?|]{1,64}+)")
_HOME_SKIP = frozenset({"shared", "public", "default", "all users", "user", "username", "me"})


def _home_finder(text: str, low: str) -> Iterator[Span]:
    subject = low if len(low) == len(text) else text.lower()
    for m in _HOME().finditer(subject):
        start, end = m.span(1)
        name = text[start:end]
        if name.lower() in _HOME_SKIP or name.startswith(("$", "%", "<", "{", "[", ".")):
            continue
        if len(name) > 3 and _placeholder(name, identifiers=False):
            continue
        yield start, end


_SAS = _Lazy(r"sharedaccesssignature[ \t]*+=[ \t]*+([^;\s\"'\\]{20,}+)|sig=([a-z0-9%+/=_-]{30,}+)")


def _sas_finder(text: str, low: str) -> Iterator[Span]:
    """Azure ``SharedAccessSignature=…`` values and ``?…&sig=…`` SAS signatures."""
    subject = low if len(low) == len(text) else text.lower()
    for m in _SAS().finditer(subject):
        if m.group(1) is not None:
            yield m.span(1)
        elif m.start() > 0 and subject[m.start() - 1] in "?&;":
            yield m.span(2)


# ----------------------------------------------------------------------------- the rule set


def _random_looking(value: str) -> bool:
    """Long mixed-case strings with no digit can still be random tokens (about 1 in 500)."""
    return len(value) >= 24 and entropy(value) >= 4.3


def _generic_ok(value: str) -> bool:
    return _has_letter_and_digit(value) or _random_looking(value)


_QUOTED_PW = _Lazy(
    r"((?:passw(?:or)?d|pwd|passphrase|secret)[\w.-]{0,20}+)(?:\\?[\"'])?[ \t]{0,3}(?::|=|=>)"
    r"[ \t]{0,3}\\?([\"'])([^\"'\\\s]{4,128}+)\\?\2"
)


def _quoted_password_finder(text: str, low: str) -> Iterator[Span]:
    """A quoted literal under a password-ish key (``"password": "hunter-two"``, also escaped
    inside JSON text). Unlike ``generic-assignment`` an all-letter value counts: a quoted
    literal is not a code identifier, and human passwords are often plain words."""
    subject = low if len(low) == len(text) else text.lower()
    for m in _QUOTED_PW().finditer(subject):
        if any(x in m.group(1) for x in _FIELD_EXCLUDE):
            continue  # password_file, secret_name, pwd_hint, ...: about a secret, not one
        start, end = m.span(3)
        if not _placeholder(text[start:end], identifiers=False):
            yield start, end


_CLI = _Lazy(
    r"--(password|passwd|token|api-key|apikey|secret|client-secret)"
    r"(?:=|[ \t]++)[\"']?([^\s\"'`;|&]{6,}+)"
)


def _cli_finder(text: str, low: str) -> Iterator[Span]:
    """``--password X``, ``--token=X`` and similar command-line flags."""
    subject = low if len(low) == len(text) else text.lower()
    for m in _CLI().finditer(subject):
        start, end = m.span(2)
        value = text[start:end]
        passwordish = m.group(1).startswith("pass")
        if _placeholder(value, identifiers=not passwordish):
            continue
        if not passwordish and not _generic_ok(value):
            continue
        yield start, end


def _slack_ok(value: str) -> bool:
    return entropy(value) >= 2.5 and not _fake_token(value)


_TOKEN_CHARS = "A-Za-z0-9"


def builtin_rules() -> list[Rule]:
    """The default rules, most specific first (the order breaks ties between overlaps)."""
    ft = _fake_token

    def fmt(
        rule_id: str, keywords: tuple[str, ...], pattern: str, **kw: Any
    ) -> Rule:  # known-format: shape filter only
        kw.setdefault("validate", lambda v: not ft(v))
        return Rule(rule_id, keywords, pattern, **kw)

    rules = [
        Rule("private-key", ("-----begin",), finder=_pem_finder),
        fmt(
            "jwt",
            ("eyj",),
            r"eyJ[A-Za-z0-9_-]{8,}+\.eyJ[A-Za-z0-9_-]{8,}+\.[A-Za-z0-9_-]{8,}+",
            anchor="eyJ",
        ),
        fmt(
            "github-token",
            ("gh",),
            r"gh[pousr]_[A-Za-z0-9]{36,255}+",
            lb=True,
            rb=_WORD,
        ),
        fmt("github-fine-grained", ("github_pat_",), r"github_pat_[A-Za-z0-9_]{60,}+", lb=True),
        fmt(
            "gitlab-token",
            ("gl",),
            r"gl(?:pat|dt|rt|ptt|cbt|oas|soat|ft)-[A-Za-z0-9_.-]{20,}+",
            lb=True,
        ),
        fmt(
            "aws-access-key-id",
            ("akia", "asia"),
            r"A[KS]IA[A-Z2-7]{16}+(?![A-Za-z0-9])",
            lb=True,
            glued=_always,  # upper case by format; the exact length and end bound it
            validate=lambda v: not ft(v) and entropy(v) >= 3.0,
        ),
        Rule(
            "aws-secret-key",
            ("aws_secret", "secret_access", "secretaccess"),
            r"(?:aws_?secret_?(?:access_?)?key|secretaccesskey)(?:\\?[\"'])?[ \t]{0,3}(?:=|:|=>)"
            r"[ \t]{0,3}(?:\\?[\"'])?([a-z0-9/+]{40})(?![a-z0-9/+])",
            lower=True,
            group=1,
            min_entropy=3.0,
            validate=lambda v: not ft(v),
        ),
        fmt(
            "anthropic-key",
            ("sk-",),
            r"sk-ant-[a-z]{2,6}\d{2}-[A-Za-z0-9_-]{20,}+",
            lb=True,
        ),
        fmt(
            "openai-key",
            ("sk-",),
            r"sk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}+"
            r"|[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}(?![A-Za-z0-9]))",
            lb=True,
        ),
        Rule(
            "slack-token",
            ("xox",),
            r"xox[abposre]-[0-9A-Za-z][A-Za-z0-9-]{9,}+",
            lb=True,
            validate=_slack_ok,
        ),
        fmt(
            "slack-webhook",
            ("hooks.slack.com",),
            r"hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_-]{20,}+",
        ),
        fmt(
            "gcp-api-key",
            ("aiza",),
            r"AIza[A-Za-z0-9_-]{35}+",
            lb=True,
            rb=_B64URL,
        ),
        fmt("google-oauth-token", ("ya29.",), r"ya29\.[A-Za-z0-9_-]{20,}+", lb=True),
        fmt(
            "stripe-key",
            ("k_live_", "k_test_", "k_prod_", "whsec_"),
            r"(?:(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{10,}+|whsec_[A-Za-z0-9+/=]{24,}+)",
            lb=True,
            rb=_WORD,
        ),
        fmt("npm-token", ("npm_",), r"npm_[A-Za-z0-9]{36}+", lb=True, terminated=True),
        fmt("pypi-token", ("pypi-ageichlwas5vcmc",), r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}+"),
        fmt(
            "huggingface-token",
            ("hf_",),
            r"hf_[A-Za-z]{34}+",
            lb=True,
            rb=_WORD,
        ),
        Rule(
            "azure-key",
            ("accountkey", "sharedaccess"),
            r"(?:accountkey|sharedaccesskey)[ \t]*+=[ \t]*+([a-z0-9+/]{20,}+={0,2})",
            lower=True,
            group=1,
            validate=lambda v: not ft(v),
        ),
        Rule("azure-sas", ("sharedaccess", "sig="), finder=_sas_finder),
        Rule(
            "url-credentials",
            ("://",),
            r"://[^\s:/?#@\"'\\<>\[\]]{0,256}+:([^\s/?@\"'\\<>]{1,256}+)@",
            group=1,
            validate=_url_password_ok,
        ),
        Rule(
            "auth-header",
            ("authorization", "bearer", "api-key", "-token"),
            r"(?:(?:authorization|x-api-key|api-key|x-auth-token|private-token|x-access-token)"
            r"(?:\\?[\"'])?[ \t]*+[:=][ \t]*+(?:\\?[\"'])?(?:(?:bearer|basic|token|bot)[ \t]++)?"
            r"|bearer[ \t]++)([a-z0-9._~+/=-]{16,}+)",
            lower=True,
            group=1,
            min_entropy=3.0,
            context=True,
            validate=_auth_ok,
        ),
        Rule("cookie", ("cookie",), finder=_cookie_finder),
        Rule(
            "netrc-password",
            ("machine",),
            r"machine[ \t]++\S++[ \t\r\n]++login[ \t]++\S++[ \t\r\n]++password[ \t]++(\S++)",
            lower=True,
            group=1,
        ),
        Rule(
            "conn-string-password",
            ("passw", "pwd"),
            finder=_conn_finder,
        ),
        Rule(
            "cli-secret-flag",
            ("--pass", "--token", "--api", "--secret", "--client-secret"),
            finder=_cli_finder,
        ),
        Rule(
            "dotenv-secret",
            ("key", "token", "secret", "passw", "pwd", "credential", "auth"),
            finder=_dotenv_finder,
        ),
        Rule(
            "quoted-password",
            ("passw", "pwd", "passphrase", "secret"),
            finder=_quoted_password_finder,
        ),
        Rule(
            "generic-assignment",
            ("key", "token", "secret", "passw", "pwd", "credential"),
            r"(?:api_?key|apikey|secret|token|passw(?:or)?d|pwd|credential|access_?key"
            r"|private_?key|client_?secret|auth_?key)[\w.-]{0,20}(?:\\?[\"'])?[ \t]{0,3}"
            r"(?:=|:=|=>|:)[ \t]{0,3}(?:\\?[\"'])?([a-z0-9_.=+/~-]{8,}+)",
            lower=True,
            group=1,
            terminated=True,
            min_entropy=3.0,
            context=True,
            validate=_generic_ok,
        ),
    ]
    return rules


def _url_password_ok(value: str) -> bool:
    """URL passwords: reject placeholders but keep plain words (no identifier filter)."""
    low = value.lower()
    if low in ("password", "pass", "pwd", "passwd", "secret", "x-oauth-basic", "none", "null"):
        return False
    if low.startswith(("$", "<", "{", "%", "[")) or "***" in low or "xxx" in low:
        return False
    return not ("your" in low or "example" in low or low.endswith(("}", ">")))


def _auth_ok(value: str) -> bool:
    return not _fake_token(value)


_CONN = _Lazy(r"(?:password|pwd)[ \t]*+=[ \t]*+([^;\s\"'&,(){}<>\[\]]{4,}+)")


def _conn_finder(text: str, low: str) -> Iterator[Span]:
    """ADO/ODBC ``Password=…;`` and ``Pwd=…``; plain words only in ``;``-separated strings."""
    subject = low if len(low) == len(text) else text.lower()
    for m in _CONN().finditer(subject):
        start, end = m.span(1)
        value = text[start:end]
        if value.lower() in ("none", "null", "self", "kwargs") or value.startswith("$"):
            continue
        before = text[max(0, m.start() - 2) : m.start()]
        ado = ";" in before and (end == len(text) or text[end] in ";\"'\r\n")
        if _placeholder(value, identifiers=not ado):
            continue
        yield start, end


def pii_rules(categories: tuple[str, ...]) -> list[Rule]:
    out: list[Rule] = []
    if "email" in categories:
        out.append(Rule("email", ("@",), finder=_email_finder))
    if "ip" in categories:
        out.append(Rule("ip", (".",), finder=_ip_finder))
    if "home_user" in categories:
        out.append(Rule("home-user", ("/home/", "/users/", "\\users\\"), finder=_home_finder))
    return out


# ----------------------------------------------------------------------------- keyed fields

_FIELD_SUFFIXES = (
    "password", "passwd", "passphrase", "pwd", "secret", "apikey", "api_key", "token",
    "accesskey", "access_key", "secretkey", "secret_key", "privatekey", "private_key",
    "credential", "credentials", "auth_key", "authkey", "client_secret", "clientsecret",
    "sessiontoken", "accesstoken", "refreshtoken", "authtoken", "idtoken",
)  # fmt: skip
_FIELD_EXCLUDE = (
    "next", "page", "continuation", "max", "count", "num", "limit", "type", "usage", "expir",
    "ttl", "length", "file", "path", "url", "name", "env", "cache", "budget", "prompt", "input",
    "output", "total", "policy", "mode", "format", "_id", "header", "field", "param", "hint",
)  # fmt: skip
_PASSWORDISH = ("password", "passwd", "passphrase", "pwd", "secret")
_KEY_HINTS = ("key", "token", "secret", "passw", "pwd", "credential", "auth", "cookie")


def _field_kind(key: str) -> int:
    """0: ordinary key; 1: key worth scanning with its value; 2: value is wholly a secret."""
    low = key.lower()
    if not any(h in low for h in _KEY_HINTS):
        return 0
    norm = low.replace("-", "_").strip("_ \"'")
    if any(x in norm for x in _FIELD_EXCLUDE):
        return 0  # next_token, max_tokens, token_type, key_path, ...
    return 2 if norm.endswith(_FIELD_SUFFIXES) else 1
