"""Value verdicts: whether a candidate a rule found is a secret, or a placeholder, a fake or
typed token, an identifier, or the shape a name's identifier suffix names
(docs/scrubbing.md, "Identifier suffixes"). They run only once a rule has a candidate;
``scrub_rules`` loads this module on the first call (``scrub_rules._later``)."""

from __future__ import annotations

from trace_ingest.scrub_rules import (
    _EXCLUDE_ALL,
    _EXCLUDE_HINTS,
    _EXCLUDE_INFIXES,
    _EXCLUDE_STEMS,
    _HEX_CHARS,
    _ID_ENDS,
    _LETTERS,
    _PUBLIC_KEY_WORDS,
    _PW_EXCLUDE,
    _SHAPE_SUFFIXES,
    _SOFT_EXCLUDE,
    _STOP,
    _TOKEN_COUNT_WORDS,
    Rule,
    _field_excluded,
    _secret_field_name,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from trace_ingest.scrub_rules import Finder, Span


_ENTROPY_CACHE: dict[str, float] = {}
_CYCLE = 12  # a tail this long repeating a unit of 2 to 4 characters is typed, not random
_PLACEHOLDER_WORDS = ("here", "your", "random", "sample", "dummy", "placeholder", "redacted")
_VOWELS = frozenset("aeiouyAEIOUY")
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_.[]'\" :|-()!")
_GEN_ID_ENDS = ("id", "ids", "name", "names", "ref", "refs", "uri", "uris", "sha")
_EXCLUDED_CACHE: dict[str, str] = {}
_UUID_ID_WORDS = (
    "client", "request", "idempot", "session", "next", "continuation", "page", "sync",
    "correlation", "trace", "instance", "tenant", "subscription", "account", "user", "org",
    "project", "workspace", "device", "install",
)  # fmt: skip
_B64_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_")
_DIGEST_HEX = frozenset((32, 40, 56, 64, 96, 128))  # md5, sha1, sha224, sha256, sha384, sha512
# base64 of 16, 20, 32, 48 and 64 bytes: padded length -> padding, unpadded lengths
_DIGEST_B64_PADDED = {24: 2, 28: 1, 44: 1, 64: 0, 88: 2}
_DIGEST_B64_BARE = frozenset((22, 27, 43, 64, 86))
_DIGEST_ALGS = ("md5", "sha1", "sha224", "sha256", "sha384", "sha512", "sha3-256", "sha3-512",
                "blake2b", "blake2s", "blake3", "crc32", "xxh64", "xxh3")  # fmt: skip
# characters of ids and names; a value with any other (``! # + = % ~ *``) is not one
_ID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:@|/ ")
_ID_SEPARATORS = str.maketrans("-_.:@|/", "       ")
_SECRET_WORDS = ("key", "secret", "token", "passw", "credential", "access", "auth")
_PASSWORDISH = ("password", "passwd", "passphrase", "pwd", "secret")


def entropy(value: str) -> float:
    """Shannon entropy of ``value`` in bits per character (memoized: a candidate is judged by
    several filters, and pathological inputs repeat one value)."""
    found = _ENTROPY_CACHE.get(value)
    if found is not None:
        return found
    found = _entropy(value)
    if len(_ENTROPY_CACHE) > 4096:
        _ENTROPY_CACHE.clear()
    _ENTROPY_CACHE[value] = found
    return found


def _entropy(value: str) -> float:
    n = len(value)
    if n == 0:
        return 0.0
    counts: dict[str, int] = {}
    for ch in value:
        counts[ch] = counts.get(ch, 0) + 1
    from math import log2  # only context rules with a candidate reach here

    return -sum(c / n * log2(c / n) for c in counts.values())


def _glued_ok(value: str) -> bool:
    """A known-format token glued to a word before it (``xghp_…``, ``key_sk-ant-…``,
    ``mcp__srv__ghp_…``): accepted when it looks random, i.e. has both upper- and lower-case
    letters. Real tokens of these formats almost always do; the words and identifiers a
    prefix such as ``sk-`` or ``hf_`` can hide in (``task-proj-…``, ``shelf_…``) almost never
    do."""
    return any(c.isupper() for c in value) and any(c.islower() for c in value)


def _fake_token(value: str) -> bool:
    """Placeholders shaped like a known token: ``ghp_xxxx…``, ``…EXAMPLE``, ``sk-proj-****``,
    ``xoxp-1-SlackAppConfigurationAccessTokenHere``."""
    low = value.lower()
    if _names_a_secret(value, words=2):
        return True
    if "xxxxx" in low or "example" in low or "*****" in low or "....." in low:
        return True
    if "<" in low or "{" in low:
        return True
    return len(set(value)) < 8


def _format_fake(value: str) -> bool:
    """The fake filter of known-format tokens: a placeholder (``_fake_token``) or a body that
    is not random (``_sham_token``)."""
    return _fake_token(value) or _sham_token(value)


def _sham_token(value: str) -> bool:
    """A known-format token whose random part is not random: the prefix is right, but the
    body ends in a short cycle (``GR1348941`` + ``123123…``), holds a placeholder word in a
    digit-free tail (``xoxp-1-RANDOMSTRINGHERE``) or is a phrase
    (``glimt-my-tokens_are-correct``). Issued tokens come from a random generator, which
    produces none of these (a 12-character cycle: about 62**-9; a placeholder word in a
    digit-free tail: below 1e-5; three words between separators: far rarer). Not for JWTs,
    PEM bodies or base64 data, whose encoded bytes may repeat (docs/scrubbing.md, "Near
    misses, second pass", says what is deliberately not filtered)."""
    return _cycle_tail(value) or _placeholder_tail(value) or _phrase(value)


def _cycle_tail(value: str) -> bool:
    """The last ``_CYCLE`` or more characters repeat a unit of 2–4 characters (``123123…``,
    ``abab…``). One repeated character is not enough: formats encode zero bytes that way
    (the ``AAAA…`` head of a Twitter bearer token, bech32 ``q``), and the sources count
    such tokens as secrets."""
    n = len(value)
    for period in (2, 3, 4):
        if n < _CYCLE or len(set(value[n - period :])) < 2:
            continue
        i = n - period - 1
        while i >= 0 and value[i] == value[i + period]:
            i -= 1
        if n - 1 - i >= _CYCLE:
            return True
    return False


def _placeholder_tail(value: str) -> bool:
    tail = value
    for sep in "-_.":
        tail = tail.rpartition(sep)[2] if sep in tail else tail
    if len(tail) < 8 or any(c.isdigit() for c in tail):
        return False
    low = tail.lower()
    return any(w in low for w in _PLACEHOLDER_WORDS)


def _phrase(value: str) -> bool:
    """Three or more words between ``-``/``_``/``.`` after the prefix, 10+ letters in all
    and 40% of the parts' characters: a sentence written as a token
    (``checking_Length-Is-checking``), not a random body (whose parts hold digits)."""
    parts = value.replace("-", " ").replace("_", " ").replace(".", " ").split()[1:]
    words = sum(len(p) for p in parts if len(p) >= 2 and _word(p))
    count = sum(1 for p in parts if len(p) >= 2 and _word(p))
    return count >= 3 and words >= 10 and words >= 0.4 * sum(map(len, parts))


def _word(part: str) -> bool:
    """Lower-case or capitalised letters with a vowel: ``tokens``, ``Length``, ``Is``. Not
    all capitals: upper-case formats (1Password's ``A3-…-…``) have all-letter groups."""
    if not (part.isascii() and part.isalpha()) or _VOWELS.isdisjoint(part):
        return False
    return part[1:].islower()


def _placeholder(value: str, identifiers: bool = True) -> bool:
    """False-positive filter for context rules (study §5.2)."""
    low = value.lower().strip("\"'")
    if len(low) < 4 or low in _STOP:
        return True
    if "example" in low or "your_" in low or "your-" in low or low.endswith("xxxx"):
        return True
    if any(m in low for m in ("***", "...", "…", "redacted", "###")):
        return True
    if "xxx" in low and ("xxxx" in low or low.count("x") * 4 >= len(low)):
        # a masked value (``sk-xxxx…``, ``abcxxx``); a random 40-character key holds "xxx"
        # about once in 800 draws, among many other letters
        return True
    first = low[0]
    if first in "$[%" or "%s" in low or _template(low) or _upper_snake(value):
        return True  # ${X}, [X], %X%, templates, NAME_OF_A_SECRET
    if first == "#" and all(c.isalpha() or c in "-_" for c in low[1:]):
        return True  # a CSS selector or an anchor (#add-password)
    if low.startswith(("&lt;", "&#")):
        return True
    if first == "<" or (low.endswith(">") and "<" in low):
        return True
    if low.startswith(("~/", "./", "../")) or (first == "/" and low.count("/") >= 2):
        return True
    if _code_value(value) or _resource_path(value.strip("\"'")):
        return True
    if identifiers:
        if _dotted_name(value):
            return True
        if _LETTERS().fullmatch(value) and not _random_looking(value):
            return True
        if _code_identifier(value) and not (_random_looking(value) or _digits_strewn(value)):
            return True
        if value.endswith(")") or "(" in value:
            return True
    return False


def _resource_path(value: str) -> bool:
    """A reference to where a secret lives, not the secret: three or more parts joined by
    ``/`` or ``:``, each made of lower-case words and numbers (``projects/123/secrets/
    openai-key/versions/latest``, ``prod/app/db``, ``ecr:us-east-1:aws-creds``,
    ``urn:ietf:params:oauth:…``). Random keys that hold ``/`` or ``:`` keep their capitals
    (base64) or mix letters and digits inside a word (``q5przi0t…:kl0qg:…``)."""
    parts = value.replace(":", "/").split("/")
    return (
        len(parts) >= 3
        and value.isascii()
        and any(c.isalpha() for c in value)
        and all(0 < len(p) <= 48 and _ref_part(p) for p in parts)
    )


def _ref_part(part: str) -> bool:
    """``us-east-1``, ``openai-key``, ``v1``, ``123``: chunks of lower-case letters followed by
    digits, joined by ``-``, ``_`` or ``.``."""
    for chunk in part.replace("_", "-").replace(".", "-").split("-"):
        letters = chunk.rstrip("0123456789")
        if not chunk or (letters and not (letters.isalpha() and letters.islower())):
            return False
    return True


def _template(low: str) -> bool:
    """``${X}``, ``{{ secrets.X }}``, ``{token}``, ``{self.key}``, ``%(pw)s``: a template.
    A brace-heavy random value (``k{9#Qz}x{``) is not: every ``{…}`` must hold a name."""
    if "${" in low or "{{" in low or "{%" in low or "%(" in low or "<%" in low:
        return True
    if "{" not in low and "}" not in low:
        return False
    pos, groups = 0, 0
    while True:
        i = low.find("{", pos)
        if i < 0:
            break
        j = low.find("}", i + 1)
        if j < 0:
            return False
        inner = low[i + 1 : j].strip()
        if not inner or not (inner[0].isalpha() or inner[0] == "_"):
            return False
        if any(c not in _NAME_CHARS for c in inner):
            return False
        groups += 1
        pos = j + 1
    return groups > 0


def _upper_snake(value: str) -> bool:
    """An identifier name as a value (``K8S_CRED``, ``OPENAI_API_KEY``): upper case, digits
    and at least one underscore; a name a secret is stored under, not the secret."""
    v = value.strip("\"'")
    return "_" in v and v[:1].isalpha() and all(c.isupper() or c.isdigit() or c == "_" for c in v)


def _uuid(value: str) -> bool:
    if len(value) != 36 or [value[i] for i in (8, 13, 18, 23)] != ["-"] * 4:
        return False
    return all(c in "0123456789abcdefABCDEF" for c in value.replace("-", ""))


def _date(value: str) -> bool:
    """``2016-09-08T21:47:36Z``, ``2024-05-01``: a timestamp."""
    return len(value) >= 10 and value[:4].isdigit() and value[4] == "-" and value[5:7].isdigit()


def _version(value: str) -> bool:
    """``1.12.500``, ``2.3.4.RELEASE``, ``0.11.5-beta1``: a version (Maven coordinates)."""
    head = value.split("-", 1)[0].split("+", 1)[0]
    parts = head.split(".")
    return len(parts) >= 2 and parts[0].isdigit() and parts[1].isdigit()


def _code_identifier(value: str) -> bool:
    """``os.environ.get``, ``settings.token``, ``self->key``, ``Config::KEY``, ``get_token()``."""
    head = value.split("(", 1)[0] if value.endswith(")") else value
    parts = head.replace("::", ".").replace("->", ".").split(".")
    return all(p.replace("$", "_").isidentifier() for p in parts) and (
        len(parts) > 1 or head != value
    )


def _code_value(value: str) -> bool:
    """Code or a reference where a literal was expected: an ARN, a concatenation
    (``+new Buffer(``, ``.$p[``), a variable (``$_POST``, ``\\$x`` escaped in JSON text), a
    Rails route (``cms/sites/passwords#update``)."""
    v = value.lstrip("\\")
    if v.startswith("arn:") or v.startswith("$"):
        return True
    if v[:1] in "+." and any(c in v for c in " ([$"):
        return True
    return "#" in v and "/" in v and all(c.islower() or c in "/_#-" for c in v)


def _dotted_name(value: str) -> bool:
    """A digit-free dotted name (``process.env.REACT_APP_FIREBASE_DEV_PASSWORD``): long and
    varied enough to pass for random, but code. Only where identifiers are excluded anyway: a
    quoted password may be ``correct.horse``."""
    return "." in value and not any(c.isdigit() for c in value) and _code_identifier(value)


# letter-digit alternations from which a dotted value is a generated ``<id>.<secret>`` pair
# (Kubernetes' bootstrap ``abcdef.0123456789abcdef``), not a name: a random alphanumeric of
# 12+ characters alternates about every fourth character, names hardly ever (``base64``,
# ``s3Client``, ``v1beta1``: 1 to 3)
_STREWN = 4
_STREWN_CODE = 6  # the same for an unquoted value in code, where dotted names are common


def _digits_strewn(value: str, at_least: int = _STREWN) -> bool:
    """Whether letters and digits alternate ``at_least`` times or more in ``value`` (12+
    characters): ``Zx9qWm2p.Lk7vAbCdEfGh``, not ``settings.v2.api_token``."""
    if len(value) < 12:
        return False
    switches = 0
    prev = 0  # 1 after a letter, 2 after a digit, 0 after anything else
    for c in value:
        kind = 2 if c.isdigit() else 1 if c.isalpha() else 0
        if kind and prev and kind != prev:
            switches += 1
        prev = kind
    return switches >= at_least


def _has_letter_and_digit(value: str) -> bool:
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def _atlassian_checksum_shape(value: str) -> bool:
    """Atlassian API tokens (``ATATT…``) and admin API keys (``ATCTT…``) end in ``=`` and an
    8-character checksum (the shape trufflehog's detectors describe); the long ``ATATT3…``
    form without it is the vendor rule above."""
    tail = value[-8:]
    return (
        len(value) >= 30
        and value[-9] == "="
        and tail.isascii()
        and tail.isalnum()
        and not _format_fake(value)
    )


def _mixed_ok(value: str) -> bool:
    return (
        not _format_fake(value)
        and any(c.isupper() for c in value)
        and any(c.islower() for c in value)
        and any(c.isdigit() for c in value)
    )


def _word_start(low: str, word: str) -> bool:
    pos = 0
    while True:
        i = low.find(word, pos)
        if i < 0:
            return False
        if i == 0 or not low[i - 1].isalpha():
            return True
        pos = i + 1


def _near_word(rule: Rule) -> Finder:
    words = rule.keywords
    base = Rule(rule.id, rule.keywords, rule.pattern, lb=rule.lb, glued=rule.glued, rb=rule.rb,
                group=rule.group)  # fmt: skip

    def finder(text: str, low: str) -> Iterator[Span]:
        if any(_word_start(low, w) for w in words):
            yield from base.spans(text, low)

    return finder


def _weak_ok(value: str) -> bool:
    """A value under a bare ``key`` name: only random-looking ones count (16 or more
    characters, a letter and a digit, entropy ≥ 3.5, and not hex, which is a hash or an id
    far more often)."""
    if len(value) < 16 or not _has_letter_and_digit(value) or entropy(value) < 3.5:
        return False
    if all(c in _HEX_CHARS for c in value):
        return False  # object_key = <sha1>; hex that is a key: scrub_rules._key_material
    if "/" in value or ":" in value or _names_a_secret(value) or _file_name(value):
        return False  # a path (S3Key), a namespaced name (ec2:RootDeviceType), a file name
    groups = value.split("-")
    if len(groups) >= 4 and groups[0].isalpha() and sum(_hex_group(g) for g in groups) >= 3:
        return False  # signed-2065c468-73e2-4385-…: a name and a UUID, an object key
    if len(groups) >= 2 and _named_digest(groups):
        return False  # a CI cache key: v1-deps-<sha1 of the lock file>
    if any(c.isupper() for c in value):
        # CamelCase words (Ipv6CidrAssociations, FirewallPoliciesV2), not random characters
        run = _longest_lower_run(value)
        if run > 7 or (run >= 6 and sum(c.isdigit() for c in value) <= 1):
            return False
        return _class_changes(value) >= len(value) // 4
    return sum(c.isdigit() for c in value) >= 2 and entropy(value) >= 3.8


def _named_digest(groups: list[str]) -> bool:
    """Words and then a hex digest, ``-``-joined (``v1-deps-<sha1>``, ``linux-node-<sha256>``,
    as CI caches name their keys): each word has a letter, the digest a digest's length."""
    *words, last = groups
    return (
        len(last) in _DIGEST_HEX
        and all(c in _HEX_CHARS for c in last)
        and all(w.isalnum() and not w.isdigit() and len(w) <= 24 for w in words)
    )


def _hex_group(group: str) -> bool:
    return 4 <= len(group) <= 13 and all(c in "0123456789abcdefABCDEF" for c in group)


def _key_exclusion(key: str) -> str:
    """Whether a name (as written: its case marks its words) is about a secret, or an
    identifier/counter/hash field, not a secret itself: ``""`` no, ``"*"`` yes
    (``next_token``, ``key_hash_algorithm``), or the shape its value must have for the name
    to count (``"arn"`` for ``secret_key_arn``: excluded only by its identifier suffix,
    ``_SHAPE_SUFFIXES``; ``"vault"`` for ``VAULT_TOKEN``, ``_SOFT_EXCLUDE``). Memoized: the
    same few names recur all through a text."""
    found = _EXCLUDED_CACHE.get(key)
    if found is None:
        found = _suffix_exclusion(key.strip("_.$-"), _gen_excluded)[0]
        if len(_EXCLUDED_CACHE) > 4096:
            _EXCLUDED_CACHE.clear()
        _EXCLUDED_CACHE[key] = found
    return found


def _dotenv_excluded(name: str, value: str) -> bool:
    """Whether an upper-snake ``NAME=value`` line is no secret by its name: a key meant to be
    published (``STRIPE_PUBLISHABLE_KEY``, ``RECAPTCHA_SITE_KEY``), a soft word's name with a
    value of its shape (``GPG_KEY=<fingerprint>``, ``VAULT_TOKEN=secret/app``), or an excluded
    name with words and a digest (``CACHE_KEY=linux-node-<sha256>``, as CI caches are keyed).
    Not the whole of ``_key_exclusion``: such a name holds a secret by convention, and a
    vendor's name may start with an exclusion stem (``TIMECAMP_API_KEY``)."""
    low = name.lower()
    if any(w in low for w in _DOTENV_WORDS):
        parts = _name_parts(name)
        for p, nxt in zip(parts, (*parts[1:], ""), strict=True):
            if p in _PUBLIC_KEY_WORDS and nxt in ("key", "keys"):
                return True
        soft = next((_SOFT_EXCLUDE[p] for p in parts if p in _SOFT_EXCLUDE), "")
        if soft and _shape_fits(soft, value):
            return True
    groups = value.split("-")
    return len(groups) >= 2 and _named_digest(groups) and _key_exclusion(name) == "*"


_DOTENV_WORDS = (*_PUBLIC_KEY_WORDS, *_SOFT_EXCLUDE)


def _gen_excluded(name: str) -> str:
    """``_excluded_part`` for an assignment's name, or ``"*"`` when it ends in an identifier
    word (``_GEN_ID_ENDS``)."""
    if name.lower().endswith(_GEN_ID_ENDS):
        return "*"
    return _excluded_part(name)


# name -> its lower-case words (``_name_parts``), by context: names recur all through a text
_PARTS_CACHE: dict[tuple[str, bool], tuple[str, ...]] = {}
# secret words peeled off either end of a run of letters of one case (``nexttoken``,
# ``PASSWORDHINT``, ``keyhash``), longest first; not ``auth`` (``NEXTAUTH``), not ``pass``
# (``bypass``, ``compass``)
_PEEL = ("credentials", "credential", "passphrase", "passwords", "password", "secrets", "secret",
         "passwd", "apikeys", "apikey", "tokens", "token", "keys", "key", "pwd")  # fmt: skip
_RUN_WORDS = frozenset((*_PEEL, "pass"))
_RUN_MAX = 64  # a longer run of letters is no name's word list: left whole
# the words a run of one case may be made of (``maxinputtokens``, ``vaulttoken``), by context
_SPLIT_WORDS = _EXCLUDE_ALL | _TOKEN_COUNT_WORDS | frozenset(_SOFT_EXCLUDE) | _PUBLIC_KEY_WORDS
_PW_SPLIT_WORDS = _PW_EXCLUDE | _SPLIT_WORDS


def _name_parts(name: str, about_password: bool = False) -> tuple[str, ...]:
    """The lower-case words of a key name: split at ``_ - . $``, spaces and other
    punctuation, and at case changes (``nextPageToken`` -> next page token,
    ``HTTPHeaderToken`` -> http header token; digits stay with the letters before them:
    ``keySha256`` -> key sha256). A run of letters of one case is split further only into
    known words: whole, when it is nothing but exclusion and secret words (``nextpagetoken``,
    ``filename``, ``PASSWORDFILE``), else by peeling secret words off its ends (``keyhash``,
    ``passwordresetlink`` -> password resetlink); ``nextauth``, ``pagerduty``,
    ``modelscope`` stay one word. ``about_password``: quoted passwords' words count too
    (``_ABOUT_PASSWORD``). Memoized; linear in the name."""
    memo = (name, about_password)
    found = _PARTS_CACHE.get(memo)
    if found is not None:
        return found
    words = _PW_SPLIT_WORDS if about_password else _SPLIT_WORDS
    out: list[str] = []
    start = -1
    prev = ""  # "u" upper, "l" lower, "d" digit, "" a separator
    n = len(name)
    for i, c in enumerate(name):
        kind = "u" if c.isupper() else "l" if c.islower() else "d" if c.isdigit() else ""
        if not kind and c.isalpha():
            kind = "l"  # a letter without case
        cut = (
            not kind
            or not prev
            or (kind == "u" and prev in "ld")
            or (kind == "l" and prev == "d")
            or (kind == "u" and prev == "u" and i + 1 < n and name[i + 1].islower())
        )
        if cut and start >= 0:
            out.extend(_run_parts(name[start:i].lower(), words))
            start = -1
        if kind and start < 0:
            start = i
        prev = kind
    if start >= 0:
        out.extend(_run_parts(name[start:].lower(), words))
    found = tuple(out)
    if len(_PARTS_CACHE) > 4096:
        _PARTS_CACHE.clear()
    _PARTS_CACHE[memo] = found
    return found


def _run_parts(run: str, words: frozenset[str], after_secret: bool = False) -> tuple[str, ...]:
    """One run of letters (and trailing digits) of one case, as its words (``_name_parts``).
    ``after_secret``: the run follows a secret word peeled off it, so an exclusion word of 4
    or more letters at its start is a word (``secretversionstage``, ``keyhashalgorithm``)."""
    if run in words or run in _RUN_WORDS or len(run) > _RUN_MAX or len(run) < 5:
        return (run,)
    whole = _known_words(run, 0, words, {})
    if whole is not None:
        return whole
    for w in _PEEL:
        if run.startswith(w):
            return (w, *_run_parts(run[len(w) :], words, True))
        if run.endswith(w):
            return (*_run_parts(run[: -len(w)], words), w)
    if after_secret:
        for j in range(min(len(run) - 1, 16), 3, -1):
            if run[:j] in words:
                return (run[:j], run[j:])
    return (run,)


def _known_words(
    run: str, i: int, words: frozenset[str], failed: dict[int, bool]
) -> tuple[str, ...] | None:
    """``run[i:]`` as a sequence of exclusion and secret words, or None (at most 16
    characters a word; ``failed`` remembers the positions already tried, so this is
    linear)."""
    for j in range(min(len(run), i + 16), i + 1, -1):
        head = run[i:j]
        if head not in words and head not in _RUN_WORDS:
            continue
        if j == len(run):
            return (head,)
        if j in failed:
            continue
        rest = _known_words(run, j, words, failed)
        if rest is not None:
            return (head, *rest)
        failed[j] = True
    return None


def _excluded_part(name: str, about_password: bool = False) -> str:
    """How the words of a key name exclude its value: ``"*"`` when one is an exclusion word
    (``next_token``, ``key_hash``, ``ContinuationToken``: ``_EXCLUDE_ALL``, or
    ``_PW_EXCLUDE`` with ``about_password``) or starts with an exclusion stem
    (``_EXCLUDE_STEMS``: ``paginationToken``, ``token_expires_at``), or the name holds a
    compound of ``_EXCLUDE_INFIXES`` (``ClientToken``); the shape the value must have when
    only a soft word excludes it (``_SOFT_EXCLUDE``: ``VAULT_TOKEN`` = a reference); else
    ``""``. Whole words, never substrings: ``AZURE_STORAGE_ACCOUNT_KEY``, ``NEXTAUTH_SECRET``,
    ``YARN_NPM_AUTH_TOKEN`` and ``TYPESENSE_API_KEY`` are not excluded."""
    low = name.lower()
    if not any(x in low for x in _EXCLUDE_HINTS):
        return ""  # no exclusion word can be among its words: not split (the common case)
    if any(x in low for x in _EXCLUDE_INFIXES):
        return "*"
    words = _PW_EXCLUDE if about_password else _EXCLUDE_ALL
    parts = _name_parts(name, about_password)
    if name.startswith("NEXT_PUBLIC_"):
        parts = parts[2:]  # NEXT_PUBLIC_ALGOLIA_SEARCH_KEY: a Next.js prefix, not pagination
    soft = ""
    last = len(parts) - 1
    for i, p in enumerate(parts):
        nxt = parts[i + 1] if i < last else ""
        if p in words:
            if p == "id" and nxt in ("token", "tokens"):
                continue  # id_token, idToken: an OpenID Connect ID token, a secret
            if p == "file" and nxt in _RUN_WORDS:
                continue  # FilePassword, file_key: a file's secret (password_file: where one is)
            return "*"
        if p in _PUBLIC_KEY_WORDS and nxt in ("key", "keys"):
            return "*"  # STRIPE_PUBLISHABLE_KEY, RECAPTCHA_SITE_KEY, VAPID_PUBLIC_KEY
        if p.startswith(_EXCLUDE_STEMS) and not (p.startswith("time") and nxt in _RUN_WORDS):
            return "*"  # not OneTimePassword
        # a count of tokens (input_tokens) or about a secret (password_input), or the name
        # of a paginator's token field (input_token); not a secret's owner
        # (INPUT_GITHUB_TOKEN, OUTPUT_API_KEY)
        if p in _TOKEN_COUNT_WORDS and (
            nxt in ("token", "tokens") or (i and parts[i - 1] in _RUN_WORDS)
        ):
            return "*"
        soft = soft or _SOFT_EXCLUDE.get(p, "")
    return soft


def _uuid_secret_key(key: str, original: str = "") -> bool:
    """A UUID is a secret under ``api``/``secret``/``pass``/``auth`` names, and under a
    ``…token``/``…key`` name that is not about a request, client or session (Heroku, HubSpot,
    Snyk and others issue UUID-shaped keys; ``ClientToken`` and ``idempotency_key`` are ids)."""
    if any(w in key for w in ("api", "secret", "pass", "auth")):
        return True
    if original[:1].isupper() and not original.isupper():
        return False  # LifecycleActionToken, ClientRequestToken: an API field (PascalCase)
    norm = key.replace("-", "_")
    return norm.endswith(("token", "key")) and not any(w in norm for w in _UUID_ID_WORDS)


def _long_number(value: str) -> bool:
    """16 or more digits that are not one digit repeated: a numeric token or client secret
    under a token/secret name (timestamps in milliseconds have 13)."""
    return len(value) >= 16 and value.isdigit() and len(set(value)) >= 5


def _case_changes(value: str) -> int:
    n, prev = 0, None
    for c in value:
        up = c.isupper() if c.isalpha() else None
        if up is not None:
            if prev is not None and up != prev:
                n += 1
            prev = up
    return n


def _named_after_key(key: str, word: str, value: str) -> bool:
    """An identifier that spells its own kind: ``ExportToken`` = ``export-token-cu4l…``,
    ``CopyProductToken`` = ``copyproduct-abc5…`` (AWS names resource ids after their type, as
    ``sg-…`` or ``i-…``). The value starts with the key's words and a ``-``: the key without
    its secret word, followed by that word again or at least 8 characters long (a
    ``githubToken`` holding ``github_pat_…`` is not one: that is a token format)."""
    norm = key.replace("_", "").replace("-", "").replace(".", "")
    stem = norm[: norm.rfind(word)] if word in norm else ""
    low = value.lower()
    if len(stem) < 4 or not low.startswith(stem + "-"):
        return False
    return low.startswith(stem + "-" + word) or len(stem) >= 8


# a signed request's credential scope ends in its scheme's terminator: a key id (judged by the
# access-key rules on its own) or a service account, a date, a region and a service
_SIGNING_SCOPES = ("aws4_request", "goog4_request")


def _generic_verdict(key: str, value: str, quoted: bool, weak: bool, pascal: bool) -> bool:
    """Whether ``key = value`` is a secret assignment (see ``_generic_finder``)."""
    if value.startswith("arn:") or _version(value) or _upper_snake(value) or _date(value):
        return False
    if value.lower().endswith(_SIGNING_SCOPES):
        return False  # X-Goog-Credential=<account>/<date>/<region>/storage/goog4_request
    if _uuid(value) and not _uuid_secret_key(key, "Ab" if pascal else "a"):
        return False
    if _names_a_secret(value):
        return False
    if quoted and _generated(value):
        return True  # define('NONCE_SALT', '<64 random printable characters>')
    if weak and not _weak_ok(value):
        return False
    if quoted and value.isalpha() and len(value) >= 12 and _case_changes(value) >= len(value) // 4:
        return entropy(value) >= 3.0 and not _fake_token(value)
    if _long_number(value) and key.endswith(("token", "secret", "key", "password")):
        return True  # discordToken="0606679021858975", ASANA_TOKEN=7540214992015379
    code = not quoted and _code_identifier(value) and not _random_looking(value)
    if code and not _digits_strewn(value, _STREWN_CODE):
        return False  # api_key = self.s3Client.v2Api: code, where a literal is quoted
    return not (entropy(value) < 3.0 or _placeholder(value) or not _generic_ok(value))


def _generated(value: str) -> bool:
    """A generated secret of printable characters, such as WordPress's keys and salts (64
    characters of 92: letters, digits, punctuation, the space; so ``/``, ``:``, ``<`` or
    ``{`` say nothing of a path, a namespace or a template here): 40 or more characters,
    upper, lower and a digit, entropy ≥ 4.6, the character class changing at every other
    character or more, and at most one space in 16 (prose and code have far more)."""
    n = len(value)
    if n < 40 or value.count(" ") * 16 > n or _class_changes(value) < n // 2:
        return False
    if not (any(c.isupper() for c in value) and any(c.islower() for c in value)):
        return False
    if not any(c.isdigit() for c in value) or entropy(value) < 4.6:
        return False
    low = value.lower()
    return not any(w in low for w in ("xxxxx", "example", "*****", "....."))


def _random_looking(value: str) -> bool:
    """Long mixed-case strings with no digit can still be random tokens (about 1 in 500)."""
    return len(value) >= 24 and entropy(value) >= 4.3


def _generic_ok(value: str) -> bool:
    return _has_letter_and_digit(value) or _random_looking(value)


def _suffix_split(name: str) -> tuple[str, str]:
    """(shape, stem) of a name ending in an identifier word, in any case (``secret_key_arn``
    -> ``("arn", "secret_key")``, ``dbPasswordRef`` -> ``("ref", "dbPassword")``), or
    ``("", name)``. The stem keeps the name's case."""
    low = name.lower()
    for suffix, shape in _SHAPE_SUFFIXES:
        if low.endswith(suffix):
            cut = len(low) - len(suffix)
            return shape, (name if len(name) == len(low) else low)[:cut].rstrip("_-.$")
    return "", name


def _suffix_exclusion(name: str, excluded: Callable[[str], str]) -> tuple[str, str]:
    """How the name ``name`` excludes its value, by the context's own test ``excluded``
    (``""``, ``"*"`` or a soft word's shape, see ``_excluded_part``): ``""`` not at all,
    ``"*"`` whatever the value (``next_token``, ``key_hash_algorithm``), or the shape the
    value must have (``"arn"`` for ``secret_key_arn``: excluded only by its identifier
    suffix; ``"vault"`` for ``VAULT_TOKEN``); with the name's stem. A suffix only narrows an
    exclusion the name has anyway: ``api_token_dir`` is not excluded where ``dir`` never was
    (review of 20673cb)."""
    how = excluded(name)
    if not how:
        return "", name
    shape, stem = _suffix_split(name)
    return (shape if shape and not excluded(stem) else how), stem


def _shape_fits(shape: str, value: str) -> bool:
    """Whether ``value`` has the shape an identifier suffix names (``_SHAPE_SUFFIXES``); a
    list (``a,b``, for ``*_ids``/``*Arns``) fits when every item does."""
    v = value.strip("\"'` ")
    if "," in v:
        return all(_shape_fits(shape, p) for p in v.split(",") if p.strip())
    if not v:
        return True
    if shape == "arn":  # also a mistyped one (``aarn:aws:…`` in the AWS examples)
        return v.startswith("arn:") or (v.count(":") >= 5 and _id_shape(v, 20))
    if shape == "digest":
        return _digest_shape(v)
    if shape == "version":
        return _version_shape(v)
    if shape == "uri":
        return _uri_shape(v)
    if shape == "path":
        return _path_shape(v)
    if shape == "ref":
        return _ref_shape(v)
    if shape == "vault":  # a soft word's (_SOFT_EXCLUDE): a reference has a scheme or a path
        return (":" in v or "/" in v) and _ref_shape(v)
    if shape == "keyid":  # a soft word's: a GPG fingerprint (40 hex) or long/short key id
        return _key_id_shape(v)
    if shape == "region":
        return _region_shape(v)
    if shape == "id" and 7 <= len(v) <= 64 and all(c in _HEX_CHARS for c in v):
        return True  # a hex id: GCP's private_key_id (40), Key Vault versions (32)
    return _id_shape(v, 32 if shape == "id" else 20)


def _key_id_shape(v: str) -> bool:
    """A GPG/PGP key's fingerprint or id: 40, 16 or 8 hex digits, maybe ``0x`` before them or
    in groups of four (``A035 C8C1 …``, as ``gpg --fingerprint`` prints it); a list of them."""
    for one in v.replace(",", " ").split("  ") if "  " in v else [v]:
        h = one.replace(" ", "")
        h = h[2:] if h[:2].lower() == "0x" else h
        if len(h) not in (8, 16, 40) or not all(c in _HEX_CHARS for c in h):
            return False
    return True


def _region_shape(v: str) -> bool:
    """A cloud region: AWS ``us-east-1``, ``us-gov-west-1``, GCP ``us-central1``,
    ``europe-west4``; lowercase words and a final number, ``-``-joined."""
    parts = v.split("-")
    if not 2 <= len(parts) <= 5 or len(v) > 32:
        return False
    *words, last = parts
    tail = last.rstrip("0123456789")
    return (
        all(w.isalpha() and w.islower() for w in words)
        and last[-1:].isdigit()
        and len(last) - len(tail) <= 2
        and (not tail or (tail.isalpha() and tail.islower()))
    )


def _digest_shape(v: str) -> bool:
    """Hex of a digest length or a short git sha (7–12), colon-separated hex pairs (a key
    fingerprint), ``sha256:…``/``sha512-…`` (SRI)/``SHA256:…`` (OpenSSH), base64 of a digest
    length with its padding, or a decimal checksum."""
    n = len(v)
    if all(c in _HEX_CHARS for c in v):
        return n in _DIGEST_HEX or 7 <= n <= 12
    if v.isdigit():
        return n <= 20
    if ":" in v and all(len(p) == 2 for p in v.split(":")):
        return all(c in _HEX_CHARS for c in v.replace(":", ""))
    low = v.lower()
    for alg in _DIGEST_ALGS:
        if low.startswith(alg) and v[len(alg) : len(alg) + 1] in (":", "-", "=", "$"):
            body = v[len(alg) + 1 :]
            return len(body) >= 16 and all(c in _B64_CHARS for c in body)
    return _digest_b64(v)


def _digest_b64(v: str) -> bool:
    if not all(c in _B64_CHARS for c in v):
        return False
    body = v.rstrip("=")
    pad = len(v) - len(body)
    if pad:
        return _DIGEST_B64_PADDED.get(len(v)) == pad and "=" not in body
    return len(v) in _DIGEST_B64_BARE


def _version_shape(v: str) -> bool:
    """``1.2.3``, ``v2``, ``7``, ``latest``/``AWSCURRENT`` (a word of up to 16 letters), a
    date, a UUID or 32/40 hex (AWS, Key Vault and git version ids)."""
    core = v[1:] if v[:1] in "vV" else v
    if core.isdigit() or _version(core) or _date(v) or _uuid(v):
        return True
    if v.isalpha():
        return len(v) <= 16
    return len(v) in (32, 40) and all(c in _HEX_CHARS for c in v)


def _uri_shape(v: str) -> bool:
    """A scheme (``https://…``, ``urn:…``, ``mailto:…``), a path, or a host name with an
    optional port and path (``redis.internal:6379``, ``localhost:8080``)."""
    head, colon, rest = v.partition(":")
    # schemes and host names are case-insensitive (RFC 3986 3.1, 3.2.2): HTTP://LOCALHOST:3000
    head = head.lower()
    scheme = len(head) >= 2 and head[0].isalpha() and head.isascii()
    if colon and rest and scheme and all(c.islower() or c.isdigit() or c in "+.-" for c in head):
        if rest.startswith(("//", "/")):
            return True  # https://…, file:/…: (a password in a URL is url-credentials' job)
        # an opaque scheme (``urn:…``, ``vault:secret/app#password``, ``redis.internal:6379``)
        # names something: what follows has an id's shape, or ``xk:<any secret>`` would pass
        core = rest.split("#", 1)[0].split("?", 1)[0]
        return bool(core) and not core.startswith(":") and _id_shape(core, 20)
    if _path_start(v):
        return True
    host = v.split("/", 1)[0].split(":", 1)[0].lower()
    labels = host.split(".")
    if host != "localhost" and (len(labels) < 2 or not labels[-1].isalpha()):
        return False
    return all(lab and all(c.islower() or c.isdigit() or c == "-" for c in lab) for lab in labels)


def _path_start(v: str) -> bool:
    """An absolute, relative, home or Windows path whose parts are not random runs (a
    base64 key can begin with ``/``)."""
    if v.startswith(("./", "../", "~/", "~\\", "\\\\", ".\\")):
        return True
    drive = len(v) > 2 and v[0].isalpha() and v[1] == ":" and v[2] in "\\/"
    if not (drive or v.startswith("/")):
        return False
    return "+" not in v and "=" not in v and not _random_part(v, 12)


def _path_shape(v: str) -> bool:
    """A path (``_path_start``), a file name (``key.pem``, ``certs/db.json``), or a
    relative path or name of plain parts (``secrets/prod``, ``id_rsa``)."""
    if _path_start(v) or _file_name(v.replace("\\", "/").rsplit("/", 1)[-1]):
        return True
    return all(c in _ID_CHARS for c in v) and not _random_part(v, 12)


def _ref_shape(v: str) -> bool:
    """A reference to where a secret lives: a scheme (``vault:…``, ``op://…``, ``ref+…``,
    ``https://…``), a secret-manager or git path (``projects/…/secrets/…``,
    ``refs/heads/main``, ``prod/app/db``), a git sha, a version, or a name."""
    if _uri_shape(v) or _resource_path(v) or _version(v) or v.startswith("ref+"):
        return True
    if all(c in _HEX_CHARS for c in v) and 7 <= len(v) <= 64:
        return True
    return _id_shape(v, 20)


def _id_shape(v: str, longest: int) -> bool:
    """An id or a name: a UUID or an ARN; else only id characters (letters, digits, ``-_.:@|/``
    and spaces), and no random-looking part (upper case, lower case and digits changing
    often) longer than ``longest`` characters (12 when the value has a ``/``: a base64 key
    without ``+``). Numbers, slugs (``kv-prod-weu-01``), CamelCase names
    (``FirewallPoliciesV2``), ``K8S_CRED``, e-mail addresses and short random ids (nanoid,
    Okta, Auth0 client ids of 32) fit; ``Xk92!mQz7#pLw0`` and 40 random base64 do not."""
    if _uuid(v) or v.startswith("arn:"):
        return True
    if not all(c in _ID_CHARS or (ord(c) > 127 and c.isalpha()) for c in v):
        return False
    return not _random_part(v, 12 if "/" in v else longest)


def _random_part(v: str, longest: int) -> bool:
    """A part between separators longer than ``longest`` that mixes two of upper case, lower
    case and digits, changing class at least every 2.5 characters (random base62 changes
    about every 1.6, random lower-case letters and digits or hex about every 2.1;
    CamelCase words with a digit, ``FirewallPoliciesV2``, every 3.6). Letters of one case with
    digits change class only about every 2.5 characters when random (base36: a digit is 10 of
    36 characters), so half of them would pass that bar: there a digit run every 10 characters
    or more (at least 3) is random; names of one case keep their digits together (``db01``)."""
    for part in v.translate(_ID_SEPARATORS).split():
        if len(part) <= longest:
            continue
        upper, lower = part.lower() != part, part.upper() != part
        digits = not part.isalpha()
        if upper + lower + digits < 2:
            continue
        changes = _class_changes(part)
        if changes * 5 >= len(part) * 2:
            return True
        if digits and not (upper and lower) and changes * 5 >= max(len(part), 25):
            return True
    return False


def _names_a_secret(value: str, words: int = 1) -> bool:
    """``AWSSecretKey``, ``aws_secret_access_key``, ``secrets-manager``: an identifier that
    names a secret (random tokens almost never spell these words)."""
    low = value.lower()
    if len(value) > 40 or sum(c.isdigit() for c in value) > 2:
        return False
    if sum(w in low for w in _SECRET_WORDS) < words:
        return False  # random tokens hold digits (pubkey-0348…, access-sandbox-…)
    return all(c.isalnum() or c in "_-./#:" for c in value) and (
        "_" in value or "-" in value or _case_changes(value) >= 2
    )


def _file_name(value: str) -> bool:
    """``WordPress_App_2-0.zip``, ``ami-1234567890abcdef0.bin``: ends in a file extension."""
    head, dot, ext = value.rpartition(".")
    return bool(dot and head) and 2 <= len(ext) <= 4 and ext.isalpha() and ext.islower()


def _longest_lower_run(value: str) -> int:
    best = run = 0
    for c in value:
        run = run + 1 if c.islower() else 0
        best = max(best, run)
    return best


def _class_changes(value: str) -> int:
    """Transitions between upper case, lower case, digits and the rest."""
    n, prev = 0, -1
    for c in value:
        k = 0 if c.isupper() else 1 if c.islower() else 2 if c.isdigit() else 3
        if prev >= 0 and k != prev:
            n += 1
        prev = k
    return n


def _pw_exclusion(name: str) -> str:
    """``_key_exclusion`` for a quoted password's name as written (``_PW_EXCLUDE``,
    ``_ID_ENDS``)."""
    return _suffix_exclusion(name, _pw_excluded)[0]


def _pw_excluded(name: str) -> str:
    if name.lower().endswith(_ID_ENDS):
        return "*"
    return _excluded_part(name, about_password=True)


def _xml_secret(name: str, value: str) -> bool:
    if len(value) < 6 or len(value) > 4096:
        return False
    if value.startswith("{AQAAAB"):
        return True  # a Jenkins-encrypted secret: an encrypted credential in a config file
    return _field_secret(name, value)


def _github_ok(value: str) -> bool:
    """Classic bodies are fixed-shape; a long ``ghs_`` body with ``_`` inside must look
    random (upper, lower and a digit), so ``ghs_some_long_snake_case_name…`` is kept."""
    if _format_fake(value):
        return False
    return "_" not in value[4:] or _mixed_ok(value)


def _slack_ok(value: str) -> bool:
    return entropy(value) >= 2.5 and not _format_fake(value)


def _url_user_token(value: str) -> bool:
    """A URL's user that is a token (``https://<token>@github.com``): random-looking, with
    both cases changing often and a digit, so ``ServiceAccount_Deploy2024`` is a name."""
    return (
        _mixed_ok(value)
        and _case_changes(value) >= len(value) // 4
        and entropy(value) >= 3.5
        and not _placeholder(value)
    )


def _url_password_ok(value: str) -> bool:
    """URL passwords: reject placeholders but keep plain words (no identifier filter)."""
    low = value.lower()
    if low in ("password", "pass", "pwd", "passwd", "secret", "x-oauth-basic", "none", "null"):
        return False
    if low.startswith(("$", "<", "{", "%", "[")) or "***" in low or "xxx" in low:
        return False
    return not ("your" in low or "example" in low or low.endswith(("}", ">")))


def _auth_ok(value: str) -> bool:
    """After a header name or ``Bearer`` the value is a credential unless it is a placeholder
    or a name: all-letter values count when they look random (mixed case changing often,
    ``Bearer yvxpthLIcYpZwe…``), not ``Bearer token`` or ``Bearer TOKEN``."""
    if _fake_token(value) or _placeholder(value, identifiers=False):
        return False
    if _code_identifier(value) and not any(c.isdigit() for c in value):
        return False  # self.token, settings.api_key
    if _LETTERS().fullmatch(value):  # letters and _ . -: a name unless it looks random
        return value.isalpha() and _case_changes(value) >= len(value) // 4 and len(value) >= 12
    return True


def _value_kind(key: str, value: str) -> int:
    """The kind of a kind-3 key (``_field_kind``) for this value: 0 when the value has the
    shape the key's suffix or soft word names (``SecretArn``: ``arn:…``; ``VAULT_TOKEN``: a
    reference), else the kind of the key without its suffix (``dbPasswordRef`` = ``Xk92!…``:
    a password)."""
    shape, stem = _suffix_exclusion(key.strip("_- \"'"), _field_excluded)
    if _shape_fits(shape, value):
        return 0
    return 2 if _secret_field_name(stem) else 1


def _field_secret(key: str, value: str) -> bool:
    if len(value) < 6 or len(value) > 4096 or any(c.isspace() for c in value):
        return False
    if value.startswith("arn:") or _upper_snake(value):
        return False  # an ARN or an identifier name (K8S_CRED) under a secret-ish key
    norm = key.lower().replace("-", "_")
    passwordish = any(p in norm for p in _PASSWORDISH)  # not a final pass: SINGLE_PASS
    if _placeholder(value, identifiers=not passwordish):
        return False
    if _long_number(value):
        return True  # <asanaToken>7540214992015379</asanaToken>: a numeric token
    if not passwordish and (not _has_letter_and_digit(value) or entropy(value) < 3.0):
        return False
    return not value.startswith(("http://", "https://"))
