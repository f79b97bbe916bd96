"""The scrubber's rule set: what a secret looks like (see docs/scrubbing.md, "Rules").

Rules are data plus small finder functions; ``trace_ingest.scrub`` owns the engine that runs
them (prefilter, spans, redaction, fingerprints, configuration). Hot-path safe: standard
library only; every regex compiles lazily, on the first keyword hit, and ``re`` itself is
imported only then.
"""

from __future__ import annotations

import sys

from trace_ingest import _regex
from trace_ingest.scrub_index import OFFSETS, PREFIXES

TYPE_CHECKING = False  # typing costs ~5 ms to import; annotations are strings here
if TYPE_CHECKING:
    import re
    from collections.abc import Callable, Container, Iterator
    from typing import Any

    Finder = Callable[[str, str], Iterator["Span"]]

Span = tuple[int, int]


def _later(module: str, name: str) -> Any:
    """``trace_ingest.<module>.<name>``, imported on its first call.

    Value verdicts (placeholders, fake tokens, the shapes identifier suffixes name) run only
    once a rule has a candidate, and the finders of rarer formats only on their keywords:
    most hook calls need neither, and a fresh process pays for every byte of code it loads
    (docs/scrubbing.md, "What a hook call pays"). So they live in ``scrub_values`` and
    ``scrub_finders``, and this module binds each name they are used by to a stand-in that
    imports the real function when first called, then puts it in its place here: later calls
    by name go straight to it. Rules keep the stand-in; it calls the function it found."""
    target: Any = None

    def call(*args: Any, **kw: Any) -> Any:
        nonlocal target
        if target is None:
            target = getattr(__import__(f"trace_ingest.{module}", fromlist=(name,)), name)
            globals()[name] = target
        return target(*args, **kw)

    call.__name__ = call.__qualname__ = name
    return call


if TYPE_CHECKING:
    from trace_ingest.scrub_finders import (
        _aws_pair_finder,
        _azure_ad_finder,
        _azure_finder,
        _basic_pair_finder,
        _cli_args_finder,
        _cli_short_finder,
        _cookie_finder,
        _credential_call_finder,
        _discord_bot_finder,
        _email_finder,
        _home_finder,
        _ip_finder,
        _name_value_finder,
        _pem_finder,
        _pgpass_finder,
        _sas_finder,
        _secret_command_finder,
        _secure_string_finder,
        _sidekiq_finder,
        _sql_password_finder,
        _telegram_finder,
    )
    from trace_ingest.scrub_values import (
        _atlassian_checksum_shape,
        _auth_ok,
        _digest_shape,
        _dotenv_excluded,
        _excluded_part,
        _fake_token,
        _format_fake,
        _generated,
        _generic_ok,
        _generic_verdict,
        _github_ok,
        _glued_ok,
        _has_letter_and_digit,
        _key_exclusion,
        _long_number,
        _mixed_ok,
        _named_after_key,
        _names_a_secret,
        _near_word,
        _placeholder,
        _pw_exclusion,
        _shape_fits,
        _slack_ok,
        _suffix_exclusion,
        _suffix_split,
        _upper_snake,
        _url_password_ok,
        _url_user_token,
        _value_kind,
        _xml_secret,
        entropy,
    )
else:
    _aws_pair_finder = _later("scrub_finders", "_aws_pair_finder")
    _basic_pair_finder = _later("scrub_finders", "_basic_pair_finder")
    _pgpass_finder = _later("scrub_finders", "_pgpass_finder")
    _azure_ad_finder = _later("scrub_finders", "_azure_ad_finder")
    _azure_finder = _later("scrub_finders", "_azure_finder")
    _cli_args_finder = _later("scrub_finders", "_cli_args_finder")
    _cli_short_finder = _later("scrub_finders", "_cli_short_finder")
    _cookie_finder = _later("scrub_finders", "_cookie_finder")
    _credential_call_finder = _later("scrub_finders", "_credential_call_finder")
    _discord_bot_finder = _later("scrub_finders", "_discord_bot_finder")
    _email_finder = _later("scrub_finders", "_email_finder")
    _home_finder = _later("scrub_finders", "_home_finder")
    _ip_finder = _later("scrub_finders", "_ip_finder")
    _name_value_finder = _later("scrub_finders", "_name_value_finder")
    _pem_finder = _later("scrub_finders", "_pem_finder")
    _sas_finder = _later("scrub_finders", "_sas_finder")
    _secret_command_finder = _later("scrub_finders", "_secret_command_finder")
    _secure_string_finder = _later("scrub_finders", "_secure_string_finder")
    _sidekiq_finder = _later("scrub_finders", "_sidekiq_finder")
    _sql_password_finder = _later("scrub_finders", "_sql_password_finder")
    _telegram_finder = _later("scrub_finders", "_telegram_finder")
    _atlassian_checksum_shape = _later("scrub_values", "_atlassian_checksum_shape")
    _digest_shape = _later("scrub_values", "_digest_shape")
    _dotenv_excluded = _later("scrub_values", "_dotenv_excluded")
    _auth_ok = _later("scrub_values", "_auth_ok")
    _excluded_part = _later("scrub_values", "_excluded_part")
    _fake_token = _later("scrub_values", "_fake_token")
    _format_fake = _later("scrub_values", "_format_fake")
    _generated = _later("scrub_values", "_generated")
    _generic_ok = _later("scrub_values", "_generic_ok")
    _generic_verdict = _later("scrub_values", "_generic_verdict")
    _github_ok = _later("scrub_values", "_github_ok")
    _glued_ok = _later("scrub_values", "_glued_ok")
    _has_letter_and_digit = _later("scrub_values", "_has_letter_and_digit")
    _key_exclusion = _later("scrub_values", "_key_exclusion")
    _long_number = _later("scrub_values", "_long_number")
    _mixed_ok = _later("scrub_values", "_mixed_ok")
    _named_after_key = _later("scrub_values", "_named_after_key")
    _names_a_secret = _later("scrub_values", "_names_a_secret")
    _near_word = _later("scrub_values", "_near_word")
    _placeholder = _later("scrub_values", "_placeholder")
    _pw_exclusion = _later("scrub_values", "_pw_exclusion")
    _shape_fits = _later("scrub_values", "_shape_fits")
    _slack_ok = _later("scrub_values", "_slack_ok")
    _suffix_exclusion = _later("scrub_values", "_suffix_exclusion")
    _suffix_split = _later("scrub_values", "_suffix_split")
    _upper_snake = _later("scrub_values", "_upper_snake")
    _url_password_ok = _later("scrub_values", "_url_password_ok")
    _url_user_token = _later("scrub_values", "_url_user_token")
    _value_kind = _later("scrub_values", "_value_kind")
    _xml_secret = _later("scrub_values", "_xml_secret")
    entropy = _later("scrub_values", "entropy")


class _Lazy:
    """A regex compiled on first use (a cold hook process pays only for what it uses)."""

    __slots__ = ("_prefixes", "_rx", "flags", "pattern")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self.flags = flags
        self._rx: re.Pattern[str] | None = None
        self._prefixes: tuple[str, ...] | None = None

    def prefixes(self) -> tuple[str, ...]:
        """``literal_prefixes`` of the pattern (empty when it has none), worked out once."""
        if self._prefixes is None:
            self._prefixes = literal_prefixes(self.pattern) or ()
        return self._prefixes

    def ready(self) -> bool:
        """Whether calling compiles without importing ``re`` (``_regex.ready``)."""
        return self._rx is not None or _regex.ready(self.pattern, self.flags)

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
# ``(low, absent)``: ``Scrubber._find``'s lowered string being scanned and the prefilter
# keywords it tested absent there (``None`` between scans); a finder handed that very string
# (``is``) skips the key words it knows are not in it rather than search it for each again
ABSENT: list[tuple[str, Container[str]] | None] = [None]


# ``(low, {word: its starts})``: the key words' positions in the lowered string being scanned,
# found once per scan for every finder that reads them (``_word_positions``); ``None``
# between scans, as ``ABSENT``
WORDS_AT: list[tuple[str, dict[str, list[int]]] | None] = [None]


def _word_positions(subject: str, word: str) -> list[int]:
    """Every start of ``word`` in ``subject`` (overlapping ones too), found with ``str.find``
    once per scanned string and shared by the finders that read the same key words (the
    assignment and single-dash flag finders): one pass over a 10 KB string costs ~5 µs."""
    memo = WORDS_AT[0]
    if memo is None or memo[0] is not subject:
        memo = (subject, {})
        WORDS_AT[0] = memo  # one store: another thread's scan replaces it, never mixes
    found = memo[1].get(word)
    if found is None:
        found = []
        i = subject.find(word)
        while i >= 0:
            found.append(i)
            i = subject.find(word, i + 1)
        memo[1][word] = found
    return found


class AbsentOf:
    """The keywords of ``every`` that are not in ``present``, as a container: what the bulk
    prefilter stores in ``ABSENT`` without building a set difference per scanned string."""

    __slots__ = ("every", "present")

    def __init__(self, every: frozenset[str], present: set[str]) -> None:
        self.every = every
        self.present = present

    def __contains__(self, keyword: object) -> bool:
        return keyword in self.every and keyword not in self.present


def bisect_right(a: list[int], x: int) -> int:
    """``bisect.bisect_right`` for the hook's short sorted lists: ``bisect`` loads the
    ``_bisect`` shared library, ~0.3 ms of a fresh hook process, for a few comparisons."""
    lo, hi = 0, len(a)
    while lo < hi:
        mid = (lo + hi) // 2
        if x < a[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo


def bisect_left(a: list[int], x: int) -> int:
    """``bisect.bisect_left``, without ``_bisect`` (see ``bisect_right``)."""
    lo, hi = 0, len(a)
    while lo < hi:
        mid = (lo + hi) // 2
        if a[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


def _absent_in(low: str) -> Container[str]:
    """The prefilter keywords known not to occur in ``low`` (``ABSENT``), else none."""
    seen = ABSENT[0]  # one read: another thread may store its own scan's pair meanwhile
    return seen[1] if seen is not None and seen[0] is low else ()


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
_PCT = _Lazy(r"%([0-9A-Fa-f]{2})")
_ID_RULE = _Lazy(r"[a-z0-9][a-z0-9_-]{0,40}")
_TOKEN_RUN = _Lazy(r"[A-Za-z0-9_-]*+")


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


_GLUE_RUN = 16


def _inside_run(text: str, i: int) -> bool:
    """Whether the ``_GLUE_RUN`` characters before ``i`` are all ASCII letters and digits."""
    head = text[max(0, i - _GLUE_RUN) : i]
    return len(head) == _GLUE_RUN and head.isascii() and head.isalnum()


def _terminated(text: str, end: int) -> bool:
    """True when a value ending at ``end`` is followed by a terminator (or a JSON escape)."""
    if end >= len(text):
        return True
    ch = text[end]
    if ch in _TERMINATORS:
        return True
    return ch == "\\" and end + 1 < len(text) and text[end + 1] in 'nrt"'


_FILE_EXTS = frozenset(("png", "jpg", "jpeg", "gif", "svg", "webp", "ico", "css", "js", "mp4"))


def _file_or_masked(text: str, end: int) -> bool:
    """A token shape that is part of a file name (``video_box.ico-7a38…b0c.png``, a CDN
    image path ending in ``….jpg``) or the readable head of a masked token
    (``xoxp-5723…-1188-####################``): what follows the match says so."""
    tail = text[end : end + 6]
    if tail[:3] in ("###", "***"):
        return True
    if tail[:1] != ".":
        return False
    ext = ""
    for c in tail[1:]:
        if not c.isalnum():
            break
        ext += c
    after = text[end + 1 + len(ext) : end + 2 + len(ext)]
    return ext.lower() in _FILE_EXTS and ext.islower() and not (after.isalnum() or after == "_")


def _always(value: str) -> bool:
    return True


def _lower_same_length(text: str) -> str:
    """``text`` lowered one character per character, so that an offset into it is the same
    offset into ``text`` (what a finder reading the lowered copy needs): ``text.lower()`` but
    U+0130 (İ), the one code point whose lowercase is two characters (``i`` + a combining
    dot), becomes ``i``. ``text.lower()`` shifted every later offset by one per İ: a span
    missed the secret's first characters, or ran past the end (IndexError)."""
    return text.replace("\u0130", "i").lower()


class Rule:
    """One detection rule. ``pattern`` or ``finder`` produces spans; filters judge them."""

    __slots__ = (
        "_caseless",
        "_offsets",
        "_prefixes",
        "_rx",
        "anchor",
        "context",
        "finder",
        "flags",
        "glued",
        "group",
        "id",
        "in_token",
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
        # every match is one run of 16+ token characters holding a keyword (see scrub.py,
        # "token runs"): the hook may test this rule's keywords on those runs only
        self.in_token = False
        self.finder = finder
        self.flags = flags
        self._rx: re.Pattern[str] | None = None
        self._prefixes: tuple[str, ...] | None = None  # None: not worked out yet; (): none
        self._caseless: tuple[str, ...] | None = None  # caseless_prefixes, as _prefixes
        self._offsets: tuple[int, int, tuple[str, ...]] | tuple[()] | None = None  # as those

    def rx(self) -> re.Pattern[str]:
        if self._rx is None:
            self._rx = _regex.compile(self.pattern, self.flags)
        return self._rx

    def spans(self, text: str, low: str) -> Iterator[Span]:
        """Candidate secret spans (before the value filters). ``low`` is ``text`` lowered one
        character per character (``_lower_same_length``), so its offsets are ``text``'s."""
        if self.finder is not None:
            yield from self.finder(text, low)
            return
        subject = low if self.lower else text
        rx = self.rx()
        if self.anchor:
            yield from self._anchored(subject, rx)
            return
        for m in self._matches(rx, subject):
            start, end = m.span(self.group)
            if start < 0:
                continue
            if self.lb and not _boundary_before(text, m.start()) and not self._glued(text, m):
                continue
            if self.terminated and not _terminated(text, end):
                continue
            if self.rb and end < len(text) and text[end] in self.rb:
                continue
            if self.in_token and _file_or_masked(text, end):
                continue
            yield start, end

    def _matches(self, rx: re.Pattern[str], subject: str) -> Iterator[re.Match[str]]:
        """``rx.finditer(subject)``, the same matches. When every match of the pattern starts
        with one of a few literal prefixes (``literal_prefixes``), the pattern is tried only
        where one occurs (``str.find``, C speed) instead of at every position: a pattern that
        opens with an alternation (``(?:sq0atp-|EAAA)``) would otherwise enter the matcher at
        every ``s`` and ``E``."""
        prefixes = self._prefixes
        if prefixes is None:
            prefixes = self._prefixes = literal_prefixes(self.pattern) or ()
        if not prefixes and subject.isascii():
            # ``(?i:openai…)``: sre tries such a pattern at every position; on ASCII text a
            # match starts exactly where the lowered text holds a lowered prefix
            caseless = self._caseless
            if caseless is None:
                caseless = self._caseless = caseless_prefixes(self.pattern) or ()
            if caseless:
                starts = _prefix_starts(rx, subject.lower(), caseless, caseless=True)
                if starts is not None:
                    return _prefixed_matches(rx, subject, caseless, starts)
        if not prefixes:
            # ``[0-9a-f]{32}-us…``: sre enters the matcher at every hex digit; a match can
            # start only a bounded distance before one of its literals
            offsets = self._offsets
            if offsets is None:
                offsets = self._offsets = offset_literals(self.pattern) or ()
            if offsets:
                starts = _offset_starts(rx, subject, offsets)
                if starts is not None:
                    return _prefixed_matches(rx, subject, (), starts)
        return _guided_finditer(rx, subject, prefixes)

    def _glued(self, text: str, m: re.Match[str]) -> bool:
        """A match with a word character right before it: a token glued after ``_``, a
        letter or a digit. Kept when the rule's ``glued`` check accepts it, and not inside a
        longer random string: after 16 or more letters and digits, the prefix is a
        coincidence inside a base64 blob or a hash (an ``AIza`` 74 characters into one), not
        a token glued to a name (``xghp_…``, ``key_sk-ant-…``)."""
        if self.glued is None or _inside_run(text, m.start()):
            return False
        return self.glued is _always or self.glued(m.group(0))

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
            ok = start >= 0 and (not self.terminated or _terminated(subject, end))
            if ok and not (self.in_token and _file_or_masked(subject, end)):
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


_VERBOSE = 64  # re.VERBOSE: whitespace in the pattern is not literal
_META = frozenset(".^$*+?{}[]\\|()")
# escaped characters that stand for themselves (not \\d, \\b, \\w, ...)
_ESCAPED_LITERAL = frozenset(".^$*+?{}[]\\|()-_/~=:#@!%&,;<>'\" ")


def literal_prefixes(pattern: str) -> tuple[str, ...] | None:
    """Literal strings of 3 or more characters, one of which every match of ``pattern``
    starts with; None when the pattern is not of the shapes read here: alternatives that
    each start with literal characters or with a group (capturing or ``(?:``, not optional)
    of such alternatives. No ``re`` import: this runs on the hook path too. A test checks
    the answer against ``re``'s own parser for every built-in pattern.

    The built-in patterns' answers are read from ``scrub_index.PREFIXES`` (generated by
    ``tools/gen_scrub_index.py``; a test checks it equals ``prefixes_of_pattern``): working
    them out cost a fresh hook process about 0.35 ms."""
    known = PREFIXES.get(pattern, _UNKNOWN)
    if known is not _UNKNOWN:
        return known  # type: ignore[return-value]
    return prefixes_of_pattern(pattern)


_UNKNOWN = object()


def caseless_prefixes(pattern: str) -> tuple[str, ...] | None:
    """For a pattern that is one group ``(?i:…)`` (not optional) and what follows it: the
    ``prefixes_of_pattern`` of the group's body, lowered, each of which every match starts
    with, up to case (ASCII case on ASCII text: ``re``'s IGNORECASE also pairs ``k`` with the
    Kelvin sign, ``i`` with a dotless i); None when it is not such a pattern."""
    if not pattern.startswith("(?i:"):
        return None
    alts = _top_alternatives(pattern)
    end = _group_end(pattern, 0)
    if alts is None or len(alts) != 1 or end is None:
        return None
    if pattern[end + 1 : end + 2] in ("?", "*", "{"):
        return None
    found = prefixes_of_pattern(pattern[4:end])
    if not found or not all(p.isascii() for p in found):
        return None
    return tuple(p.lower() for p in found)


def prefixes_of_pattern(pattern: str) -> tuple[str, ...] | None:
    """``literal_prefixes`` worked out from the pattern text (no table)."""
    found = _prefixes_of(pattern)
    if not found or any(len(p) < 3 for p in found):
        return None
    unique = list(dict.fromkeys(found))
    # "pass" covers "passw": searching both would try the pattern twice at one place
    return tuple(p for p in unique if not any(q != p and p.startswith(q) for q in unique))


def _prefixes_of(pattern: str) -> list[str] | None:
    alts = _top_alternatives(pattern)
    if alts is None:
        return None
    out: list[str] = []
    for alt in alts:
        if alt.startswith("(?:") or (alt.startswith("(") and not alt.startswith("(?")):
            end = _group_end(alt, 0)
            if end is None or alt[end + 1 : end + 2] in ("?", "*", "{"):
                return None  # an optional group: a match may start after it
            inner = _prefixes_of(alt[3 if alt.startswith("(?:") else 1 : end])
            if inner is None:
                return None
            out += inner
        elif alt.startswith("[") and (close := alt.find("]")) > 1 and alt[1:close].isalnum():
            # a leading class of plain characters (``[st]k\.eyJ``): one prefix for each
            if alt[close + 1 : close + 2] in ("?", "*", "{", "+"):
                return None
            head = _literal_head(alt[close + 1 :])
            out += [c + head for c in alt[1:close]]
        else:
            head = _literal_head(alt)
            if not head:
                return None
            out.append(head)
    return out


def prefixed_finditer(lazy: _Lazy, subject: str) -> Iterator[re.Match[str]]:
    """``lazy().finditer(subject)`` for a finder's own regex, tried only where one of its
    literal prefixes occurs (as ``Rule._matches`` does for a rule's pattern)."""
    return _guided_finditer(lazy(), subject, lazy.prefixes())


def windowed_finditer(
    lazy: _Lazy, subject: str, offsets: tuple[int, int, tuple[str, ...]]
) -> Iterator[re.Match[str]]:
    """``lazy().finditer(subject)`` for a finder's own regex, every match of which holds one
    of ``offsets``' literals a bounded distance after its start (``offset_literals``' form,
    given by the caller): tried only there (``_offset_starts``)."""
    rx = lazy()
    starts = _offset_starts(rx, subject, offsets)
    if starts is None:
        return rx.finditer(subject)
    return _prefixed_matches(rx, subject, (), starts)


def _guided_finditer(
    rx: re.Pattern[str], subject: str, prefixes: tuple[str, ...]
) -> Iterator[re.Match[str]]:
    """``rx.finditer(subject)``, tried only where one of ``prefixes`` occurs when that is the
    cheaper scan (``_prefix_starts``; never for IGNORECASE or VERBOSE programs)."""
    starts = _prefix_starts(rx, subject, prefixes)
    if starts is None:
        return rx.finditer(subject)
    return _prefixed_matches(rx, subject, prefixes, starts)


def _prefix_starts(
    rx: re.Pattern[str], subject: str, prefixes: tuple[str, ...], caseless: bool = False
) -> list[int] | None:
    """Where ``rx`` is to be tried (the occurrences of its literal prefixes, ascending), or
    None when ``finditer`` is the better scan: there are fewer than two prefixes (one literal
    prefix ``sre`` already searches for at C speed), or they occur more than about once per
    64 characters, so one ``rx.match`` call per occurrence would cost more than the scan (1 MB
    of ``dapidapi…`` would make 250,000 calls: the regex's own scan is then linear). The
    occurrences are collected while they are counted: one ``find`` pass per prefix.
    ``caseless``: ``subject`` is the lowered text, ``prefixes`` ``caseless_prefixes``
    (``sre`` has no literal to search for then: one prefix is worth it too)."""
    if caseless:
        if rx.flags & _VERBOSE:
            return None
    elif len(prefixes) < 2 or rx.flags & (_regex.IGNORECASE | _VERBOSE):
        return None
    budget = 32 + len(subject) // 64
    starts: list[int] = []
    find = subject.find
    for prefix in prefixes:
        i = find(prefix)
        while i >= 0:
            starts.append(i)
            if len(starts) > budget:
                return None
            i = find(prefix, i + 1)
    starts.sort()
    return starts


def _offset_starts(
    rx: re.Pattern[str], subject: str, offsets: tuple[int, int, tuple[str, ...]]
) -> list[int] | None:
    """Where ``rx`` is to be tried, given ``offset_literals``' ``(lo, hi, literals)``: ``p -
    w`` for every occurrence ``p`` of a literal (overlapping ones too) and ``lo <= w <= hi``,
    ascending, without repeats; None when ``finditer`` is the better scan (more than about one
    start per 64 characters, as ``_prefix_starts``) or the program is IGNORECASE or VERBOSE
    (the literals are then not found by ``str.find``)."""
    if rx.flags & (_regex.IGNORECASE | _VERBOSE):
        return None
    lo, hi, literals = offsets
    budget = 32 + len(subject) // 64
    starts: set[int] = set()
    find = subject.find
    for literal in literals:
        p = find(literal, lo)
        while p >= 0:
            starts.update(range(max(p - hi, 0), p - lo + 1))
            if len(starts) > budget:
                return None
            p = find(literal, p + 1)
    return sorted(starts)


def _occurrences(subject: str, words: tuple[str, ...]) -> list[int]:
    """Where each of ``words`` occurs in ``subject`` (overlapping ones too), ascending."""
    found: list[int] = []
    find = subject.find
    for word in words:
        i = find(word)
        while i >= 0:
            found.append(i)
            i = find(word, i + 1)
    found.sort()
    return found


def _prefixed_matches(
    rx: re.Pattern[str],
    subject: str,
    prefixes: tuple[str, ...],
    starts: list[int] | None = None,
) -> Iterator[re.Match[str]]:
    """The matches of ``rx.finditer(subject)``, given that each starts with one of
    ``prefixes``: the pattern is tried only where one occurs (``starts``, ascending, when the
    caller has them; else found here with ``str.find``, C speed). ``rx.match(subject, i)``
    sees the whole string (lookbehinds, boundaries), exactly as the search's attempt at ``i``
    does."""
    if starts is None:
        starts = _occurrences(subject, prefixes)
    pos = 0
    match = rx.match
    for i in starts:
        if i < pos:
            continue
        m = match(subject, i)
        if m is not None:
            yield m
            pos = max(m.end(), i + 1)


def _structure(pattern: str, start: int = 0) -> Iterator[tuple[int, str]]:
    """``(index, character)`` of each ``(``, ``)`` and ``|`` of ``pattern`` from ``start``,
    outside escapes and character classes; ``(len(pattern), "[")`` last when a class is left
    open (the one reading of a pattern's structure ``_group_end`` and ``_top_alternatives``
    share)."""
    i = start
    in_class = False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            if pattern[i + 1 : i + 2] == "^":
                i += 1
            if pattern[i + 1 : i + 2] == "]":
                i += 1  # a leading ] is a member
        elif c in "()|":
            yield i, c
        i += 1
    if in_class:
        yield len(pattern), "["


def _group_end(pattern: str, start: int) -> int | None:
    """The index of the ``)`` closing the group opened at ``start``."""
    depth = 0
    for i, c in _structure(pattern, start):
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
    return None


def _top_alternatives(pattern: str) -> list[str] | None:
    """``pattern`` split at its top-level ``|`` (outside groups and classes); None when it
    is not well formed as far as this reading goes."""
    alts: list[str] = []
    depth = 0
    last = 0
    for i, c in _structure(pattern):
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth < 0:
                return None
        elif c == "[":
            return None  # a class left open
        elif depth == 0:  # a top-level |
            alts.append(pattern[last:i])
            last = i + 1
    if depth:
        return None
    alts.append(pattern[last:])
    return alts


def _literal_head(alt: str) -> str:
    """The literal characters ``alt`` must start with (a character followed by ``?``, ``*``
    or ``{`` is not required; one followed by ``+`` is, once)."""
    out: list[str] = []
    i = 0
    while i < len(alt):
        c = alt[i]
        if c == "\\":
            nxt = alt[i + 1 : i + 2]
            if not nxt or nxt not in _ESCAPED_LITERAL:
                break
            step = 2
        elif c in _META:
            break
        else:
            nxt = c
            step = 1
        after = alt[i + step : i + step + 1]
        if after in ("?", "*", "{"):
            break
        out.append(nxt)
        if after == "+":
            break
        i += step
    return "".join(out)


_QUANT_DIGITS = frozenset("0123456789,")
_CLASS_ESCAPES = frozenset("dDwWsS")


def offset_literals(pattern: str) -> tuple[int, int, tuple[str, ...]] | None:
    """``offsets_of_pattern``; for a built-in pattern (one ``scrub_index.PREFIXES`` knows)
    read from ``scrub_index.OFFSETS``, which holds those that have an answer (a test checks
    it), so a fresh hook process does not parse the patterns it hits."""
    if pattern in PREFIXES:
        return OFFSETS.get(pattern)
    return offsets_of_pattern(pattern)


def offsets_of_pattern(pattern: str) -> tuple[int, int, tuple[str, ...]] | None:
    """For a pattern that does not start with a literal (``[0-9a-f]{32}-us[0-9]{1,2}``, where
    ``sre`` enters the matcher at every hex digit): ``(lo, hi, literals)`` such that every
    match starting at ``s`` holds one of ``literals`` at ``s + w`` for some ``lo <= w <= hi``;
    None when the pattern is not of the shapes read here. Read here: one top-level
    alternative whose leading items are single characters (a literal, an escaped literal, a
    class, ``\\d``/``\\w``/``\\s`` and their negations, ``.``), each with a bounded
    quantifier (none, ``?``, ``{n}``, ``{n,m}``, ``{,m}``, lazy or possessive); the literals
    are the longest run of unquantified (or ``{n}``-repeated) literal characters among them,
    or the ``literal_prefixes``-style alternatives of a group right after them. A single
    character item matches exactly one character per repetition, so the widths before the
    literal add up to between ``lo`` and ``hi`` whatever the matcher chose. No ``re`` import:
    a test checks the answer against ``re``'s own parser for every built-in pattern."""
    alts = _top_alternatives(pattern)
    if alts is None or len(alts) != 1:
        return None
    lo = hi = 0
    found: list[tuple[int, int, tuple[str, ...]]] = []
    run: list[str] = []
    run_lo = run_hi = 0
    first = True
    i = 0
    n = len(pattern)

    while i < n:
        c = pattern[i]
        literal: str | None = None
        if c == "[":
            j = i + 1
            if pattern[j : j + 1] == "^":
                j += 1
            if pattern[j : j + 1] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                j += 2 if pattern[j] == "\\" else 1
            if j >= n:
                return None
            end = j + 1
        elif c == "\\":
            nxt = pattern[i + 1 : i + 2]
            if nxt in _ESCAPED_LITERAL:
                literal = nxt
            elif not nxt or nxt not in _CLASS_ESCAPES:
                break  # \\b, \\A, a back reference, ...: not one character
            end = i + 2
        elif c == ".":
            end = i + 1
        elif c in _META:
            break  # a group, an anchor, a quantifier without an item
        else:
            literal = c
            end = i + 1
        # the item's quantifier
        qmin = qmax = 1
        q = pattern[end : end + 1]
        if q == "?":
            qmin, end = 0, end + 1
        elif q in ("*", "+"):
            break  # unbounded: nothing after it has a bounded offset
        elif q == "{":
            close = pattern.find("}", end)
            body = pattern[end + 1 : close] if close > 0 else ""
            if not body or not set(body) <= _QUANT_DIGITS or body.count(",") > 1:
                break  # not a quantifier ``re`` reads as one (a literal brace), or {,}
            low_s, comma, high_s = body.partition(",")
            if comma and not high_s:
                break  # {n,}: unbounded
            qmin = int(low_s) if low_s else 0
            qmax = int(high_s) if comma else qmin
            if qmin > qmax:
                return None
            end = close + 1
        if q in ("?", "{") and pattern[end : end + 1] in ("?", "+"):
            end += 1  # lazy or possessive: the same widths
        if first and literal is not None and qmin == qmax == 1:
            return None  # a literal first: ``sre`` searches for it at C speed already
        first = False
        if literal is not None and qmin == qmax and qmin > 0:
            if not run:
                run_lo, run_hi = lo, hi
            run.append(literal * qmin)
        elif run:
            found.append((run_lo, run_hi, ("".join(run),)))
            run = []
        lo += qmin
        hi += qmax
        i = end
    if run:
        found.append((run_lo, run_hi, ("".join(run),)))
    if i < n and pattern[i] == "(" and not first:
        heads = _prefixes_of(pattern[i:])
        if heads and all(heads):
            found.append((lo, hi, tuple(dict.fromkeys(heads))))
    # the longest literals (fewer places to try), then the narrowest window
    return max(found, key=lambda f: (min(map(len, f[2])), f[0] - f[1]), default=None)


# ----------------------------------------------------------------------------- custom finders

_SEP = r"(?:[ \t\r\n]|\\{1,3}[nrt])"

# ``PASS`` counts only as the name's last word (``REDIS_PASS``, not ``BYPASS_CACHE``)
_DOTENV_WORDS = ("KEY", "TOKEN", "SECRET", "PASSW", "PWD", "CREDENTIAL", "AUTH", "PASSPHRASE",
                 "PASS")  # fmt: skip
# each word's lowered form, or a prefix of it, that is a prefilter keyword (see ``ABSENT``)
_DOTENV_GATES = ("key", "token", "secret", "pass", "pwd", "credential", "auth", "pass", "pass")
# A name ending in an identifier word (``*_ARN``, ``passwordRef``, ``token_hash``) points at
# a secret or describes one, so its value is kept, but only when the value has the shape the
# word names: ``AWS_SECRET_ACCESS_KEY_ARN=<40 base64>`` is a secret under a borrowed suffix
# and is judged by the ordinary rules. The table (longest suffix first where one ends
# another) is docs/scrubbing.md's "Identifier suffixes" table.
_SHAPE_SUFFIXES = (
    ("fingerprint", "digest"), ("checksum", "digest"), ("digest", "digest"),
    ("sha256", "digest"), ("sha512", "digest"), ("sha1", "digest"), ("md5", "digest"),
    ("hash", "digest"), ("sha", "digest"), ("version", "version"),
    ("arns", "arn"), ("arn", "arn"), ("uris", "uri"), ("uri", "uri"), ("urls", "uri"),
    ("url", "uri"), ("hostnames", "uri"), ("hostname", "uri"), ("hosts", "uri"),
    ("host", "uri"), ("domains", "uri"), ("domain", "uri"), ("endpoints", "uri"),
    ("endpoint", "uri"), ("issuer", "uri"), ("audience", "uri"), ("servers", "uri"),
    ("server", "uri"), ("path", "path"), ("file", "path"), ("dir", "path"), ("refs", "ref"),
    ("ref", "ref"), ("ids", "id"), ("id", "id"), ("names", "name"), ("name", "name"),
    ("type", "name"), ("header", "name"), ("alg", "name"), ("regions", "region"),
    ("region", "region"),
)  # fmt: skip
# ``NAME=value`` names ending in one of them (``DB_SECRET_ARN``): their value is kept when
# it has the shape the ending names (``_shape_fits``); the gate before ``_suffix_split``
_DOTENV_SKIP = tuple("_" + suffix.upper() for suffix, _ in _SHAPE_SUFFIXES)
_DOTENV = _Lazy(r"[ \t]*+(?:export[ \t]++)?+([A-Z][A-Z0-9_]{0,127}+)=[\"']?([^\s\"'\\]{6,}+)")
# Commands that assign a variable with a space, not ``=``, between its name and its value:
# Windows ``setx [/M] NAME value`` (``setx`` persists it in the registry; ``/s <host> /u
# <user> /p <password>`` before the name set it on another machine; at most 8 flags, or a
# run of ``/p setx /s h /p setx …`` would be one match from each ``setx``), csh/tcsh ``setenv
# NAME value``, fish ``set -gx NAME value`` (fish has no ``NAME=value``; at least one flag, so
# prose's "set API_KEY first" and bash's ``set a b`` positional parameters are not read), and
# the Dockerfile's legacy ``ENV NAME value``, only where ``ENV`` starts its line (Docker's
# grammar is line-based; ``ENV NAME=value`` is the assignment rules'). The name and the value
# are the last two groups, as ``_DOTENV``'s.
_ENV_HEAD = (
    r"setx(?:[ \t]++/(?:[SUPsup][ \t]++[^\s\"'/][^\s\"']*+|[A-Za-z])){0,8}+|setenv|"
    r"set((?:[ \t]++--?[A-Za-z][A-Za-z-]*+)++)"
)
_ENV_VALUE = r"[ \t]++(?:\\?[\"'])?([^\s\"'\\]{6,}+)"
_ENV_SET = _Lazy(rf"(?:{_ENV_HEAD}|[ \t]*+ENV)[ \t]++([A-Z][A-Z0-9_]{{0,127}}+){_ENV_VALUE}")
# the heads ``_dotenv_finder`` looks for anywhere on a line, before the name
_ENV_COMMANDS = ("export ", "setx ", "setenv ", "set ")
# ``_ENV_SET``'s commands (not ``ENV``) with a name in any case, read on the lowered text:
# Windows names are case-insensitive (``setx db_password …``, ``SETX API_TOKEN …``), and csh
# and fish users write lower-case ones too (``setenv api_token …``, ``set -gx github_token
# …``). The name is judged upper-snaked (``_snake_upper``), by the upper-case form's rules.
_ENV_SET_ANY = _Lazy(rf"(?:{_ENV_HEAD})[ \t]++([a-z_][a-z0-9_]{{0,127}}+){_ENV_VALUE}")
# where ``_ENV_SET_ANY`` is tried: ``setx``/``setenv`` in any case, fish's ``set`` (fish is
# case-sensitive) only before a flag
_ENV_HEADS_ANY = ("setx", "setenv", "set -")
# fish ``set`` flags after which no value follows the name (erase, query, show, names)
_FISH_NO_VALUE = frozenset("eqSn")
_FISH_NO_VALUE_LONG = frozenset(("--erase", "--query", "--show", "--names"))
_LINE_WINDOW = 160  # indentation + a command ("export ", "set -gx ") + a 128-character name


def _dotenv_finder(text: str, low: str) -> Iterator[Span]:
    """``NAME=value`` lines whose upper-case name looks secret (``.env``, ``export``, env),
    and the commands that assign one with a space (``_ENV_SET``: ``setx``, ``setenv``, fish
    ``set -x``, a Dockerfile's ``ENV NAME value``).

    Driven by ``str.find`` of the upper-case words, then one anchored match at the start of
    that line (a real newline or a ``\\n`` escape) or of the last command on it: no regex
    scans every position.
    """
    done: set[int] = set()
    for span in _dotenv_upper(text, low):
        done.add(span[0])
        yield span
    yield from _env_set_any_case(text, low, done)
    yield from _docker_env_any_case(text, done)


def line_start(text: str, i: int, reach: int) -> int:
    """Where the line holding ``i`` starts: after the last real or ``\\n``-escaped line break
    in the ``reach`` characters before ``i``, or at the text's start when that is within
    them; -1 when the line starts further back."""
    lo = max(0, i - reach)
    nl, esc = text.rfind("\n", lo, i), text.rfind("\\n", lo, i)
    if nl < 0 and esc < 0:
        return 0 if lo == 0 else -1
    return max(nl + 1, esc + 2 if esc >= 0 else 0)


def _no_value(subject: str, end: int) -> bool:
    """Whether the name ending at ``end`` is assigned nothing: ``=`` then the line's end (a
    real one or a ``\\n`` escape) or the text's. An .env template is lines of ``API_KEY=``;
    the assignment finders skip them before any other work on them."""
    if not subject.startswith("=", end):
        return False
    after = subject[end + 1 : end + 3]
    return not after or after[0] in "\r\n" or after == "\\n"


def _dotenv_upper(text: str, low: str) -> Iterator[Span]:
    """``_dotenv_finder``'s upper-case names: found by their words, then the line's start or
    the command before them."""
    seen: dict[int, re.Match[str] | None] = {}
    rx, spaced = _DOTENV(), _ENV_SET()
    absent = _absent_in(low)
    for word, gate in zip(_DOTENV_WORDS, _DOTENV_GATES, strict=True):
        if gate in absent:
            continue  # not in ``low``, so ``word`` (upper case) is not in ``text``
        pos = 0
        while True:
            i = text.find(word, pos)
            if i < 0:
                break
            pos = i + 1
            if _no_value(text, i + len(word)):
                continue  # ``API_KEY=`` and nothing after it on its line
            lo = max(0, i - _LINE_WINDOW)
            start = line_start(text, i, _LINE_WINDOW)  # -1: the line starts too far back
            # a command anywhere on the line: ``{"command": "export PGPASSWORD=…"``,
            # ``cd app && setx API_TOKEN …``; on a long line, only in the window
            # the shortest command (``set ``) needs 4 characters before the name
            head = _env_command(text, max(start, lo), i) if i - start >= 4 else -1
            if head > start:
                start = head
            elif start < 0:
                continue  # too far from its line's start to be a NAME=value line
            if start in seen:
                m = seen[start]
            else:
                m = seen[start] = rx.match(text, start) or spaced.match(text, start)
            if m is None:
                continue
            groups = m.re.groups  # the name and the value are the last two groups
            if not m.start(groups - 1) <= i < m.end(groups - 1):
                continue
            pos = max(pos, m.end())
            name = m.group(groups - 1)
            value = m.group(groups)
            if word == "PASS" and name != "PASS" and not name.endswith("_PASS"):
                continue  # PASSPORT_NO, BYPASS_CACHE: no final PASS (PASSWORD has its word)
            if groups > 2 and not _spaced_value(m.group(1), value):
                continue
            if _env_secret(name, value):
                yield m.span(groups)


def _env_set_any_case(text: str, low: str, done: set[int]) -> Iterator[Span]:
    """``setx``/``setenv``/fish ``set -x`` with a lower- or mixed-case name, or ``SETX`` /
    ``SETENV`` in capitals (``_ENV_SET_ANY``); the values ``_dotenv_upper`` found (their
    starts: ``done``) are not given twice. Found by ``str.find`` of the heads, then one
    anchored match each."""
    if "set" not in low:
        return
    subject = low if len(low) == len(text) else _lower_same_length(text)
    rx = _ENV_SET_ANY()
    for head in _ENV_HEADS_ANY:
        pos = 0
        while (j := subject.find(head, pos)) >= 0:
            pos = j + len(head)
            if j > 0 and (subject[j - 1] in _WORD or subject[j - 2 : j] == "--"):
                continue  # reset, offset; fish's --export
            if head == "set -" and text[j : j + 3] != "set":
                continue  # SET -X: fish's commands are lower-case
            m = rx.match(subject, j)
            if m is None or m.start(3) in done:
                continue
            pos = max(pos, m.end())
            name, value = text[slice(*m.span(2))], text[slice(*m.span(3))]
            flags = text[slice(*m.span(1))] if m.start(1) >= 0 else None
            upper = _snake_upper(name)
            if _env_name(upper) and _spaced_value(flags, value) and _env_secret(upper, value):
                done.add(m.start(3))
                yield m.span(3)


# a Dockerfile's ``ENV <name> <value>`` with a lower-, mixed- or Pascal-case name (``ENV
# db_password …``, ``ENV apiToken …``, ``ENV DbPassword …``): Docker keeps the name's case,
# and the instruction is written in capitals by convention (``_ENV_SET`` reads upper-case
# names; a name it found already is not given twice)
_ENV_DOCKER_ANY = _Lazy(r"ENV[ \t]++([A-Za-z_][A-Za-z0-9_]{0,127}+)" + _ENV_VALUE)


def _docker_env_any_case(text: str, done: set[int]) -> Iterator[Span]:
    """``ENV <name> <value>`` at a line's start (after blanks) with a lower- or mixed-case
    name (``_ENV_DOCKER_ANY``), judged upper-snaked as ``NAME=value`` is; values found
    already (their starts: ``done``) are not given twice."""
    rx = _ENV_DOCKER_ANY()
    pos = 0
    while (j := text.find("ENV", pos)) >= 0:
        pos = j + 3
        if text[pos : pos + 1] not in (" ", "\t"):
            continue
        start = line_start(text, j, _LINE_WINDOW)
        if start < 0 or text[start:j].strip(" \t"):
            continue  # not the line's instruction: MY_ENV db, "set ENV x"
        m = rx.match(text, j)
        if m is None or m.start(2) in done:
            continue
        upper = _snake_upper(m.group(1))
        if _env_name(upper) and _env_secret(upper, m.group(2)):
            done.add(m.start(2))
            yield m.span(2)


def _snake_upper(name: str) -> str:
    """A variable name in ``NAME=value``'s case: upper-snake, a word break before each capital
    after a lower-case letter or digit (``dbPassword`` -> ``DB_PASSWORD``)."""
    out = []
    for k, c in enumerate(name):
        if k and c.isupper() and (name[k - 1].islower() or name[k - 1].isdigit()):
            out.append("_")
        out.append(c)
    return "".join(out).upper()


def _env_command(text: str, lo: int, i: int) -> int:
    """Where the last of ``_ENV_COMMANDS`` in ``text[lo:i]`` starts, when it is a command's
    word (not inside a word: ``reset``, ``offset``; not a long flag: fish's ``set --global
    --export NAME``, whose command is the ``set``; a diff's ``-export NAME=…`` is one), else
    -1."""
    last = -1
    for h in _ENV_COMMANDS:
        j = text.rfind(h, lo, i)
        if j > last and (j == 0 or text[j - 1] not in _WORD) and text[max(0, j - 2) : j] != "--":
            last = j
    return last


def _spaced_value(fish_flags: str | None, value: str) -> bool:
    """Whether what follows the name in an ``_ENV_SET`` command is its value: not a flag
    (``-``), not fish's command substitution ``(…)``, and not after fish flags that take
    none (``set -e NAME``, ``set -q NAME``)."""
    if value[0] in "-(":
        return False
    for flag in (fish_flags or "").split():
        if flag in _FISH_NO_VALUE_LONG or (flag[1] != "-" and _FISH_NO_VALUE & set(flag[1:])):
            return False
    return True


def _env_secret(name: str, value: str) -> bool:
    """The ``dotenv-secret`` verdict on an upper-case variable name holding one of
    ``_DOTENV_WORDS`` and its value (also ``gh variable set``'s, ``scrub_finders``)."""
    if name.endswith(_DOTENV_SKIP) and _shape_fits(_suffix_split(name.lower())[0], value):
        return False  # DB_SECRET_ARN=arn:…; not AWS_SECRET_ACCESS_KEY_ARN=<40 base64>
    if _dotenv_excluded(name, value):
        return False  # STRIPE_PUBLISHABLE_KEY, RECAPTCHA_SITE_KEY; GPG_KEY=<fingerprint>
    # a final PASS is also a test that passed or a pass of an encoder (SINGLE_PASS): its
    # value must look random, as an ordinary secret's
    passwordish = "PASSW" in name or "PWD" in name or "SECRET" in name or "PASSPHRASE" in name
    if _placeholder(value, identifiers=not passwordish):
        return False
    return passwordish or _generic_ok(value) or _long_number(value)


def _env_name(name: str) -> bool:
    """Whether an upper-case variable name holds one of ``_DOTENV_WORDS`` (``PASS`` only as
    its last word)."""
    if name == "PASS" or name.endswith("_PASS"):
        return True
    return any(w in name for w in _DOTENV_WORDS[:-1])


# ----------------------------------------------------------------------------- vendor formats
# Written from each vendor's documented token shape (public facts); every pattern starts with
# its literal prefix and every rule has keywords, so a string pays only for the prefixes it
# holds. ``mixed`` rules also want upper- and lower-case letters and a digit: bodies of random
# alphanumerics always have them, the identifiers a short prefix can start do not.

_H = "0-9a-f"
_AN = "A-Za-z0-9"
_UA = "A-Za-z0-9_\\-"  # escaped: it is followed by more characters in some classes

# (id, keywords, pattern, mixed, right boundary)
_VENDORS: tuple[tuple[str, tuple[str, ...], str, bool, bool], ...] = (
    # Twilio API key SIDs are "SK" + 32 hex (account SIDs "AC…" are identifiers: kept)
    ("twilio-api-key", ("sk",), rf"SK[{_H}]{{32}}+", False, True),
    # SendGrid: "SG." + 22 + "." + 43 base64url
    ("sendgrid-key", ("sg.",), rf"SG\.[{_UA}]{{22}}\.[{_UA}]{{43}}+", False, True),
    # Shopify admin, custom-app, partner and shared-secret tokens: prefix + 32 hex
    ("shopify-token", ("shp",),
     r"shp(?:at|ca|pa|ss)_[0-9a-fA-F]{32}+", False, True),
    # DigitalOcean personal, OAuth and refresh tokens: do[opr]_v1_ + 64 hex
    ("digitalocean-token", ("_v1_",), rf"do[opr]_v1_[{_H}]{{64}}+", False, True),
    # Databricks personal access tokens: "dapi" + 32 hex (optionally "-<n>")
    ("databricks-token", ("dapi",), rf"dapi[{_H}]{{32}}+(?:-[0-9])?+", False, True),
    # Discord webhook URLs: the token after /api/webhooks/<id>/
    ("discord-webhook", ("discord",),
     rf"discord(?:app)?\.com/api/webhooks/[0-9]{{5,30}}+/[{_UA}]{{60,68}}+", False, True),
    # Square: sq0atp- (access), sq0csp- (OAuth secret), EAAA… (production access token);
    # Square's OAuth reference: access tokens are at most 64 characters
    ("square-token", ("sq", "eaa"),
     rf"(?:sq0atp-[{_UA}]{{22,57}}+|sq0csp-[{_UA}]{{43}}+|EAAA[{_UA}]{{60}}+)", False, True),
    # Atlassian API tokens: "ATATT3" + ~186 base64url
    ("atlassian-token", ("atatt3",), rf"ATATT3[{_UA}=]{{100,}}+", False, True),
    # Atlassian organization admin API keys: the fixed 10-character head "ATCTT3xFfG", a body
    # and "=" + an 8-character checksum
    ("atlassian-token", ("atctt3xffg",), rf"ATCTT3xFfG[{_UA}+/=]{{20,}}+", False, True),
    ("linear-key", ("lin_api_",), rf"lin_api_[{_AN}]{{40}}+", False, True),
    ("postman-key", ("pmak-",), rf"PMAK-[{_H}]{{24}}-[{_H}]{{34}}+", False, True),
    ("doppler-token", ("dp.",),
     # service tokens may carry their config's name: dp.st.<config>.<token>
     rf"dp\.(?:pt|st|sa|ct|scim|audit)\.(?:[a-z0-9_-]{{2,35}}\.)?[{_AN}]{{40,44}}+", False,
     True),
    # Grafana Cloud (glc_), service accounts (glsa_), legacy API keys (base64 {"k":")
    ("grafana-token", ("gl", "eyj"),
     rf"(?:glc_[A-Za-z0-9+/]{{32,400}}+={{0,2}}+|glsa_[{_AN}]{{32}}_[0-9a-fA-F]{{8}}"
     rf"|eyJrIjoi[A-Za-z0-9+/]{{50,100}}+={{0,2}}+)", False, False),
    ("newrelic-key", ("nr",),
     rf"(?:NR(?:AK|II|AA|RA)-[{_AN}]{{27,32}}+|NRJS-[{_H}]{{19}}+)", False, True),
    ("sentry-token", ("sntry",),
     rf"(?:sntrys_eyJ[A-Za-z0-9+/=_-]{{50,}}+|sntryu_[{_H}]{{64}}+)", False, False),
    # HashiCorp Vault service, batch and recovery tokens (Vault 1.10+)
    ("vault-token", ("hv",), rf"hv[sbr]\.[{_UA}]{{24,}}+", False, False),
    # ... and before 1.10: "s." + 24 base62 (batch "b.", recovery "r."), too short a prefix to
    # stand alone: only near the word vault
    ("vault-token", ("vault",), rf"[sbr]\.[{_AN}]{{24,}}+", True, True),
    # Cloudflare's prefixed API tokens (user "cfut_", account "cfat_", global key "cfk_"):
    # 40 base62 + an 8-hex checksum
    ("cloudflare-token", ("cfut_", "cfat_", "cfk_"), r"cf(?:[ua]t|k)_[A-Za-z0-9]{40}[0-9a-f]{8}+",
     False, True),
    ("pulumi-token", ("pul-",), rf"pul-[{_H}]{{40}}+", False, True),
    ("flyio-token", ("fo1_", "fm"),
     rf"(?:fo1_[{_UA}]{{43}}+|fm[12][ar]?_[A-Za-z0-9+/=_-]{{100,}}+)", False, False),
    ("heroku-key", ("hrku-",), rf"HRKU-[{_UA}]{{60}}+", False, True),
    # Mapbox secret ("sk.") and temporary ("tk.") tokens are the letters + a JWT-like body
    # (public ones are "pk.", kept); the claims' length follows the user name
    ("mapbox-token", ("sk", "tk."), rf"[st]k\.eyJ[{_UA}]{{20,}}+\.[{_UA}]{{20,}}+", False,
     True),
    ("notion-token", ("ntn_", "secret"),
     rf"(?:ntn_[0-9]{{11}}[{_AN}]{{35}}+|secret_[{_AN}]{{43}}+)", True, True),
    # Figma personal access tokens: figd_ and the newer figp_ (whose body may hold "=")
    ("figma-token", ("figd_", "figp_"), rf"fig[dp]_[{_UA}=]{{40,}}+", False, False),
    ("planetscale-token", ("pscale_",), rf"pscale_(?:tkn|pw|oauth)_[{_UA}.=]{{32,64}}+", False,
     True),
    ("supabase-token", ("sbp_", "secret"),
     rf"(?:sbp_[{_H}]{{40}}+|sb_secret_[{_UA}]{{31,}}+)", False, True),
    ("vercel-token", ("vc",), rf"vc[pikar]_[{_AN}]{{24,}}+",
     True, True),
    ("netlify-token", ("nf",), rf"nf[pcoub]_[{_AN}]{{36}}+",
     True, True),
    # Cloudflare Origin CA keys
    ("cloudflare-key", ("v1.0-",), rf"v1\.0-[{_H}]{{24}}-[{_H}]{{146}}+", False, True),
    # Okta API tokens: "00" + 40 base64url, only near the word okta
    ("okta-token", ("okta",), rf"00[{_UA}]{{40}}+", True, True),
    ("dynatrace-token", ("dt0",), r"dt0[a-z][0-9]{2}\.[A-Z0-9]{24}\.[A-Z0-9]{64}+", False, True),
    ("adafruit-key", ("aio_",), rf"aio_[{_AN}]{{28}}+", True, True),
    ("asana-token", ("asana",), rf"[0-9]/[0-9]{{16,}}+(?:/[0-9]{{16,}}+)?:[{_AN}]{{32}}+", False,
     True),
    ("age-secret-key", ("secret",), r"AGE-SECRET-KEY-1[02-9AC-HJ-NP-Z]{58}+", False,
     True),
    ("alibaba-key", ("ltai",), rf"LTAI[{_AN}]{{12,20}}+", True, True),
    ("beamer-key", ("beamer",), rf"b_[{_AN}=_-]{{44}}+", True, True),
    ("clojars-token", ("clojars_",), r"CLOJARS_[a-z0-9]{60}+", False, True),
    ("contentful-token", ("cfpat-",), rf"CFPAT-[{_UA}]{{43}}+", False, True),
    ("duffel-token", ("duffel_",), rf"duffel_(?:test|live)_[{_UA}=]{{43}}+", False, True),
    ("dropbox-token", ("sl.",), rf"sl\.(?:u\.)?[{_UA}]{{130,}}+", True, True),
    ("easypost-key", ("ez",), rf"EZ[AT]K[{_AN}]{{54}}+", False, True),
    ("flutterwave-key", ("flwseck",), rf"FLWSECK(?:_TEST)?-?[{_AN}]{{12,32}}+(?:-X)?+", False,
     True),
    ("frameio-token", ("fio-u-",), rf"fio-u-[{_UA}=]{{64}}+", False, True),
    ("gocardless-token", ("gocardless",), rf"live_[{_UA}=]{{40}}+", False, True),
    ("terraform-token", ("atlasv1.",), rf"[{_AN}]{{14}}\.atlasv1\.[{_UA}=]{{60,70}}+", False,
     True),
    ("prefect-key", ("pnu_",), rf"pnu_[{_AN}]{{36}}+", False, True),
    ("readme-key", ("rdme_",), r"rdme_[a-z0-9]{70}+", False, True),
    ("rubygems-key", ("rubygems_",), rf"rubygems_[{_H}]{{48}}+", False, True),
    ("scalingo-token", ("tk-us-",), rf"tk-us-[{_UA}]{{48}}+", False, True),
    ("brevo-key", ("sib-",), rf"x(?:keysib|smtpsib)-[{_H}]{{64}}-[{_AN}]{{16}}+",
     False, True),
    ("shippo-token", ("shippo_",), rf"shippo_(?:live|test)_[{_H}]{{40}}+", False, True),
    ("typeform-token", ("tfp_",), rf"tfp_[{_UA}.=]{{59}}+", False, True),
    ("yandex-key", ("aqvn",),
     rf"AQVN[{_UA}]{{35,38}}+", True, True),
    # AI providers a coding agent's environment often holds
    ("groq-key", ("sk",), rf"gsk_[{_AN}]{{52}}+", True, True),
    ("xai-key", ("xai-",), rf"xai-[{_AN}]{{80}}+", True, True),
    ("perplexity-key", ("pplx-",), rf"pplx-[{_AN}]{{48}}+", True, True),
    ("replicate-token", ("r8_",), rf"r8_[{_AN}]{{37}}+", True, True),
    ("tavily-key", ("tvly-",), rf"tvly-(?:dev-|prod-)?[{_AN}]{{32}}+", True, True),
    ("langsmith-key", ("lsv2_",), rf"lsv2_(?:pt|sk)_[{_H}]{{32}}_[{_H}]{{10}}+", False, True),
    ("mailgun-key", ("mailgun",),
     rf"(?:key-[{_H}]{{32}}+|[a-h0-9]{{32}}-[a-h0-9]{{8}}-[a-h0-9]{{8}}+)", False, True),
    ("mailgun-key", ("pubkey-",), rf"pubkey-[{_H}]{{32}}+", False, True),
    # --- issue 10, second slice: more documented formats, each led by its literal prefix
    ("1password-token", ("a3-",),
     r"A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-"
     r"[A-Z0-9]{5}+", False, True),
    ("1password-token", ("ops_eyj",), r"ops_eyJ[A-Za-z0-9+/]{200,}+={0,3}+", False, False),
    ("adobe-secret", ("p8e-",), rf"p8e-[{_AN}-]{{32}}+", False, True),
    ("harness-token", ("pat.", "sat."),
     rf"(?:pat|sat)\.[{_UA}]{{22}}\.[{_AN}]{{24}}\.[{_AN}]{{20}}+", False, True),
    ("artifactory-token", ("akcp", "cmvmd"),
     rf"(?:AKCp[{_AN}]{{69}}+|cmVmd[{_AN}]{{59}}+)", False, True),
    ("aws-bedrock-key", ("absk",), r"ABSK[A-Za-z0-9+/]{109,269}+={0,2}+", False, False),
    ("aws-bedrock-key", ("bedrock-api-key-",),
     r"bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/=%_-]*+", False, False),
    ("clickhouse-key", ("4b1d",), rf"4b1d[{_AN}]{{38}}+", True, True),
    ("defined-networking-token", ("dnkey-",),
     rf"dnkey-[{_UA}=]{{26}}-[{_UA}=]{{52}}+", False, True),
    ("facebook-token", ("eaa",), rf"EAA[MC][{_AN}]{{100,}}+", True, True),
    ("facebook-token", ("facebook",), rf"[0-9]{{15,16}}(?:\||%7C)[{_UA}]{{27,40}}+", True,
     True),
    ("gitlab-token", ("gr1348941",), rf"GR1348941[{_UA}]{{20,}}+", False, True),
    ("gitlab-token", ("_gitlab_session=",), r"_gitlab_session=([0-9a-z]{32})", False, True),
    ("huggingface-token", ("api_org_",), r"api_org_[A-Za-z]{34}+", False, True),
    ("infracost-key", ("ico-",), rf"ico-[{_AN}]{{32}}+", False, True),
    ("intra42-secret", ("s-s4t2",), rf"s-s4t2(?:ud|af)-[{_H}]{{64}}+", False, True),
    ("maxmind-key", ("_mmk",), rf"[{_AN}]{{6}}_[{_AN}]{{29}}_mmk", True, True),
    ("msteams-webhook", ("office.com/webhook",),
     r"(?:webhook|outlook)\.office\.com/webhook(?:b2)?/([A-Za-z0-9@/_.-]{40,}+)", False, False),
    # HashiCorp Vault unseal keys as `vault operator init` prints them
    ("vault-unseal-key", ("unseal key",), r"Unseal Key [0-9]{1,2}: ([A-Za-z0-9+/]{44})", False,
     True),
    ("octopus-key", ("api-",), r"API-[A-Z0-9]{26}+", False, True),
    ("launchdarkly-key", ("api-", "sdk-"),
     r"(?:api|sdk)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}+", False, True),
    ("openshift-token", ("sha256~",), rf"sha256~[{_UA}]{{43}}+", False, True),
    ("settlemint-token", ("sm_",), rf"sm_(?:aat|pat|sat)_[{_AN}]{{16}}+", False, True),
    ("sourcegraph-token", ("sgp_",),
     rf"sgp_(?:(?:[0-9a-fA-F]{{16}}_|local_)?[0-9a-fA-F]{{40}}+|[{_AN}]{{64}}+)", False, True),
    ("sonar-token", ("sq",), rf"sq[upa]_[{_H}]{{40}}+", False, True),
    ("yandex-key", ("t1.",), rf"t1\.[{_UA}]+={{0,2}}\.[{_UA}]{{86}}+={{0,2}}+", False, False),
    ("yandex-key", ("yandex",), rf"YC[{_UA}]{{38}}+", True, True),
    ("twitter-bearer-token", ("aaaaaaaaaaaaaaaaaaaaaa",),
     r"A{22}[A-Za-z0-9%]{60,120}+", False, True),
    ("plaid-token", ("access-",),
     r"access-(?:sandbox|development|production)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-"
     r"[0-9a-f]{4}-[0-9a-f]{12}+", False, True),
    ("lob-key", ("live_", "test_"), r"(?:live|test)_(?:[0-9a-f]{35}|pub_[0-9a-f]{31})", False,
     True),
    ("twitch-stream-key", ("live_",), rf"live_[0-9]{{8,12}}_[{_AN}]{{30}}+", False, True),
    ("mailchimp-key", ("-us",), r"[0-9a-f]{32}-us[0-9]{1,2}", False, True),
    ("dockerhub-token", ("dckr_",), rf"dckr_pat_[{_UA}]{{27}}+", False, True),
    ("crates-io-token", ("cio",), rf"cio[{_AN}]{{32}}+", True, True),
    ("dependency-track-key", ("odt_",), rf"odt_[{_AN}]{{32,255}}+", True, True),
    ("firecrawl-key", ("fc-",), rf"fc-[{_H}]{{32}}+", False, True),
    ("google-oauth-secret", ("gocspx-",), rf"GOCSPX-[{_UA}]{{28}}+", False, True),
    ("jina-key", ("jina_",), rf"jina_[{_AN}]{{60}}+", False, True),
    ("newrelic-key", ("nral",), rf"[{_AN}]{{6}}[0-9a-f]{{30}}NRAL", False, True),
    ("newrelic-key", ("nr",),
     rf"(?:NR(?:II|IQ|RA)-[{_UA}]{{32,42}}+)", False, True),
    ("newrelic-key", ("px-",),
     r"px-(?:api|dep)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}+", False,
     True),
    ("nuget-key", ("oy2",), r"oy2[a-z0-9]{43}+", False, True),
    ("salesforce-token", ("!",), r"00[A-Za-z0-9]{13}![A-Za-z0-9._]{96}+", False, True),
    ("stackhawk-key", ("hawk.",), rf"hawk\.[{_UA}]{{20}}\.[{_UA}]{{20}}+", False, True),
    ("teamcity-token", ("eyj",), rf"eyJ0eXAiOiAiVENWMiJ9\.[{_UA}]{{36}}\.[{_UA}]{{48}}+", False,
     True),
    ("appsync-key", ("da2-",), r"da2-[a-z0-9]{26}+", False, True),
    ("aws-mws-key", ("amzn.mws.",),
     r"amzn\.mws\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}+", False, True),
    ("azure-devops-token", ("azdo",), rf"[{_AN}]{{76}}AZDO[{_AN}]{{4}}", False, True),
    ("bitbucket-token", ("atbb",), rf"ATBB[{_AN}]{{32}}+", False, True),
    ("openai-key", ("sk",), rf"sk-[{_AN}]{{48}}+", True, True),
    # DeepSeek's and Alibaba Cloud DashScope's API keys: ``sk-`` and 32 lower-case hex
    # digits, bounded on both sides (``task-<hex>``, ``disk-<hex>`` are words before it)
    ("deepseek-key", ("sk",), r"sk-[0-9a-f]{32}+", False, True),
    ("openrouter-key", ("sk",), r"sk-or-v1-[0-9a-f]{64}+", False, True),
    ("langfuse-key", ("sk",), r"sk-lf-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-"
     r"[0-9a-f]{12}+", False, True),
    ("cerebras-key", ("sk",), r"csk-[a-z0-9]{48}+", False, True),
    ("elevenlabs-key", ("sk",), r"sk_[0-9a-f]{48}+", False, True),
    ("pinecone-key", ("sk",), rf"pcsk_[{_AN}]{{5,6}}_[{_AN}]{{50,80}}+", False, True),
    ("fireworks-key", ("fw_",), rf"fw_[{_AN}]{{24}}+", False, True),
    ("browserbase-key", ("bb_live_",), rf"bb_live_[{_UA}]{{27}}+", False, True),
    ("e2b-key", ("e2b_",), rf"e2b_[{_H}]{{40}}+", False, True),
    ("resend-key", ("re_",), rf"re_[{_AN}]{{8}}_[{_AN}]{{24}}+", True, True),
    ("posthog-key", ("phx_",), rf"phx_[{_AN}]{{43}}+", False, True),
    ("tailscale-key", ("tskey-",), rf"tskey-[a-z]{{3,8}}-[{_AN}]{{8,}}+-[{_AN}]{{16,}}+",
     False, True),
    ("render-key", ("rnd_",), rf"rnd_[{_AN}]{{32}}+", True, True),
    ("neon-key", ("napi_",), r"napi_[a-z0-9]{64}+", False, True),
    ("buildkite-token", ("bkua_",), rf"bkua_[{_H}]{{40}}+", False, True),
    ("circleci-token", ("ccipat_",), rf"CCIPAT_[{_AN}]{{22}}_[{_H}]{{40}}+", False, True),
    ("mailersend-key", ("mlsn.",), rf"mlsn\.[{_H}]{{64}}+", False, True),
    ("razorpay-key", ("rzp_",), rf"rzp_(?:live|test)_[{_AN}]{{14}}+", False, True),
    ("clickup-token", ("pk_",), r"pk_[0-9]{6,10}_[A-Z0-9]{32}+", False, True),
    ("tencent-key", ("akid",), rf"AKID[{_AN}]{{32}}+", True, True),
    ("rancher-token", ("token-",), r"token-[a-z0-9]{5}:[a-z0-9]{54}+", False, True),
    ("braintree-token", ("access_token$",),
     r"access_token\$(?:production|sandbox)\$[a-z0-9]{16}\$[0-9a-f]{32}+", False, True),
    ("hubspot-token", ("pat-",),
     r"pat-(?:na|eu|ap)[0-9]-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}+",
     False, True),
    ("sidekiq-secret", ("contribsys__com",),
     r"BUNDLE_[A-Z]{0,12}+__CONTRIBSYS__COM[A-Za-z_]{0,20}+[\"']?[ \t]*+[=:][ \t]*+[\"']?"
     r"([0-9a-f]{8}:[0-9a-f]{8})", False, True),
    ("password-hash", ("$1$", "$2", "$5$", "$6$"),
     r"\$(?:1|5|6|2[abxy])\$(?:rounds=[0-9]{1,7}\$)?[./A-Za-z0-9]{2,22}\$[./A-Za-z0-9]{22,86}+"
     r"|\$2[abxy]\$[0-9]{2}\$[./A-Za-z0-9]{53}+", False, True),
    ("kerberos-hash", ("$krb5",), r"\$krb5(?:asrep|tgs)\$[0-9]{2}\$[^\s\"']{40,}+", False,
     False),
    # Azure OpenAI keys: 32 hex (Azure AI services keys), under an OpenAI key name (the
    # OpenAI SDKs read OPENAI_API_KEY for Azure too; OpenAI's own keys are sk-…)
    ("azure-openai-key", ("openai",),
     r"(?i:openai[_-]?(?:api[_-]?)?key)(?:\\?[\"'])?\]?[ \t]*+[:=][ \t]*+"
     r"(?:\\?[\"'])?([0-9a-fA-F]{32})", False, True),
    ("wireguard-key", ("privatekey", "presharedkey"),
     r"(?:Private|Preshared)Key[ \t]*+=[ \t]*+([A-Za-z0-9+/]{43}=)", False, True),
)  # fmt: skip


_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_HEX_LOWER = frozenset("0123456789abcdef")


def _airtable_finder(text: str, low: str) -> Iterator[Span]:
    """Airtable personal access tokens, ``pat`` + 14 alphanumerics + ``.`` + 64 hex. Checked
    in Python from each ``pat``: the keyword is in every ``path``, and a regex compile there
    would cost a cold hook the ``re`` import."""
    pos = 0
    n = len(text)
    while True:
        i = text.find("pat", pos)
        if i < 0:
            return
        pos = i + 3
        end = i + 3 + 14 + 1 + 64
        if end > n or text[i + 17] != "." or not _boundary_before(text, i):
            continue
        if not all(c in _ALNUM for c in text[i + 3 : i + 17]):
            continue
        if not all(c in _HEX_LOWER for c in text[i + 18 : end]):
            continue
        if end < n and text[end] in _B64URL:
            continue
        pos = end
        yield i, end


# short or common prefixes: a word character right before them means another word
_NO_GLUE = frozenset({"twilio-api-key", "databricks-token", "okta-token", "beamer-key",
                      "gocardless-token", "mailgun-key", "dropbox-token", "terraform-token",
                      "asana-token", "airtable-token", "harness-token", "octopus-key",
                      "launchdarkly-key", "lob-key", "twitch-stream-key", "plaid-token",
                      "mailchimp-key", "maxmind-key", "azure-devops-token", "salesforce-token",
                      "clickup-token", "rancher-token", "hubspot-token", "sidekiq-secret",
                      "password-hash", "wireguard-key", "kerberos-hash", "facebook-token",
                      "crates-io-token", "appsync-key", "firecrawl-key",
                      "gitlab-token"})  # fmt: skip


# rules whose keyword is the vendor's name, not a prefix of the token: the name must appear as a
# word start (``okta``, ``OKTA_TOKEN``, ``mailgun:``), not inside another word (``rookTable``)
_NEAR_WORD = frozenset({"okta-token", "mailgun-key", "asana-token", "beamer-key",
                        "gocardless-token", "yandex-key", "facebook-token",
                        "vault-token"})  # fmt: skip


def vendor_rules() -> list[Rule]:
    return [*map(vendor_rule, range(len(_VENDORS))), *_vendor_finder_rules()]


def _not_format_fake(value: str) -> bool:
    return not _format_fake(value)


def vendor_rule(i: int) -> Rule:
    """The rule of ``_VENDORS[i]``."""
    rid, keywords, pattern, mixed, bounded = _VENDORS[i]
    rule = Rule(
        rid,
        keywords,
        pattern,
        lb=True,
        # a capturing group, when there is one, is the secret (NAME=(value))
        group=1 if "(" in pattern.replace("(?", "").replace("\\(", "") else 0,
        glued=None if mixed or rid in _NO_GLUE else _glued_ok,
        rb=_B64URL if bounded else frozenset(),
        validate=_mixed_ok if mixed else _not_format_fake,
    )
    led = pattern.lower().startswith(keywords)  # a prefix keyword, not a vendor name
    if rid in _NEAR_WORD and not led and all(k.isalpha() for k in keywords):
        rule.finder = _near_word(rule)
    elif rule.group == 0 and (led or rid not in _NEAR_WORD):
        rule.in_token = True
    return rule


def _vendor_finder_rules() -> list[Rule]:
    """The vendor rules with finders of their own, after the table."""
    out = []
    out.append(Rule("airtable-token", ("pat",), finder=_airtable_finder))
    out.append(Rule("azure-ad-client-secret", ("q~",), finder=_azure_ad_finder))
    out.append(Rule("discord-bot-token", ("discord",), finder=_discord_bot_finder))
    out.append(Rule("telegram-bot-token", (":aa",), finder=_telegram_finder))
    out.append(Rule("sidekiq-secret", ("contribsys",), finder=_sidekiq_finder))
    out.append(
        Rule(
            "atlassian-token",
            ("atatt", "atctt"),
            r"AT[AC]TT[A-Za-z0-9+/_-]*+(?:=++[A-Za-z0-9+/_-]++)*+",
            lb=True,
            glued=None,
            rb=_B64URL,
            validate=_atlassian_checksum_shape,
        )
    )
    out[-1].in_token = False  # "=" and "+" split token runs
    out.append(
        Rule(
            "azure-entra-refresh-token",
            (".ag",),
            rf"[01]\.A[{_UA}]{{50,}}+(?:\.[0-9])?+\.Ag[{_UA}]{{250,}}+(?:\.A[{_UA}]{{200,}}+)?+",
            lb=True,
            glued=None,
            rb=_B64URL,
            validate=lambda v: not _fake_token(v),
        )
    )
    return out


# ----------------------------------------------------------------------------- grammar finders


# between a scheme and its credential: blanks, or a shell line continuation (``Bearer \``,
# then the token on the next line: the shell joins the two, inside double quotes too), also
# as JSON text writes it (``\\\n``)
_SCHEME_GAP = r"(?:[ \t]++|[ \t]*+(?:\\\r?\n|\\\\\\(?:r\\)?n)[ \t]*+)"
# ``,``: a quoted header name and value in a call, ``headers.put("X-Api-Key", "…")``,
# ``setRequestHeader("Authorization", "Basic …")``; ``subscription-key``: Azure API
# Management's ``Ocp-Apim-Subscription-Key`` header (and its ``subscription-key=`` query
# parameter), whose value is the subscription's key, 32 hex digits
_AUTH_AT = _Lazy(
    r"(?:authorization|api-key|subscription-key|-token|token)(\\?[\"'])?[ \t]*+([:=,])[ \t]*+"
    r"(?:\\?[\"'])?(?:(?:bearer|basic|token|bot|api-token|apikey|sso-key|dpop|ssws)"
    + _SCHEME_GAP
    + r")?([a-z0-9._~+/=@-]{8,}+)"
)
_BEARER_AT = _Lazy(r"bearer" + _SCHEME_GAP + r"([a-z0-9._~+/=@-]{16,}+)")
# C# ``new AuthenticationHeaderValue("Bearer", "…")``: the scheme, then the credential
_HEADER_VALUE_AT = _Lazy(
    r"headervalue[ \t]*+\([ \t]*+\\?[\"'](?:bearer|basic|token|bot|apikey|dpop)\\?[\"']"
    r"[ \t]*+,[ \t]*+\\?[\"']([a-z0-9._~+/=@-]{8,}+)"
)
_AUTH_ANCHORS = ("authorization", "api-key", "subscription-key", "token", "bearer", "headervalue")
# Request-signing schemes (AWS SigV4, its ECDSA form, Google's HMAC and RSA V4): the header's
# first word names the algorithm and its secret part is ``Signature=<hex>``, later on the line;
# ``Credential=`` is the key id and scope, which the access-key rules judge on their own.
_SIG_SCHEMES = (
    "aws4-hmac-sha256",
    "aws4-ecdsa-p256-sha256",
    "goog4-hmac-sha256",
    "goog4-rsa-sha256",
)
_SIG_VALUE = _Lazy(r"signature=([a-f0-9]{32,1024}+)")
_SIG_REACH = 2048  # characters of the header read for its Signature=


def _auth_finder(text: str, low: str) -> Iterator[Span]:
    """``Authorization: Bearer|Basic|Token|Bot|Api-Token <v>`` (also ``Proxy-``), any
    ``X-…-Token:`` / ``Api-Key:`` header, a bare ``Token:`` header, and ``Bearer <v>``.
    After a header name the value may be as short as 8 characters (RFC 6750's own example
    is 15) when it has a letter and a digit; a bare ``Bearer`` word needs 16.

    Driven by ``str.find`` of the header words, then one anchored match at each: no regex
    tries every position of a long text."""
    subject = low if len(low) == len(text) else _lower_same_length(text)
    at, bearer = _AUTH_AT(), _BEARER_AT()
    for anchor in _AUTH_ANCHORS:
        pos = 0
        while True:
            i = subject.find(anchor, pos)
            if i < 0:
                break
            pos = i + 1
            if anchor == "bearer":
                m = bearer.match(subject, i)
                if m is not None and not subject.startswith("--", m.start(1)):
                    pos = m.end()
                    yield m.span(1)
                continue  # not HTTPie's ``--auth-type=bearer --auth=<v>``: a flag (see there)
            if anchor == "headervalue":
                m = _HEADER_VALUE_AT().match(subject, i)
                if m is not None:
                    pos = m.end()
                    yield m.span(1)
                continue
            if anchor == "authorization" and i > 0 and subject[i - 1].isalpha():
                continue  # AggregationAuthorization: a resource name, not the header
            if anchor == "token" and i > 0:
                before = subject[i - 1]
                if before == "-":
                    i -= 1  # X-Auth-Token:, Private-Token:, X-Vault-Token:
                elif before in _WORD:
                    continue  # NextToken, access_token: not a header
            m = at.match(subject, i)
            if m is None:
                continue
            start, end = m.span(3)
            if m.group(2) == "," and not _header_call(subject, i, m.group(1), end):
                continue  # a comma after a header name only in a call: quoted name, value
            pos = max(pos, end)
            if subject.startswith(_SIG_SCHEMES, start):
                yield from _signature_in(subject, end)
                continue
            short = text[start:end] if end - start < 16 else ""
            if short and (not _has_letter_and_digit(short) or short.lower().isidentifier()):
                # short values need a letter and a digit and must not be a name (``Bearer
                # myToken1``, ``iPhone12ProMax``, ``getUserById42``: camelCase words and
                # random mixes are not told apart under 16 characters)
                continue
            yield start, end


def _header_call(subject: str, i: int, quote: str, end: int) -> bool:
    """Whether the header word at ``i`` and the value ending at ``end`` are the two arguments
    of a call, ``put("X-Api-Key", "…")``: a quoted header name (letters, digits and ``-``
    from its opening quote to ``quote``, its closing one; not a property or a variable,
    ``"api.token"``, ``auth_token``), and the value's closing quote then ``)`` (not a list of
    header names, ``["x-api-key", "x-b3-traceid"]``)."""
    if not quote:
        return False
    j = i
    while j > 0 and (subject[j - 1].isalnum() or subject[j - 1] == "-"):
        j -= 1
    if j == 0 or subject[j - 1] != quote[-1]:
        return False
    k = end + 1 if subject.startswith("\\", end) else end
    if subject[k : k + 1] not in ('"', "'"):
        return False
    return subject.startswith(")", _skip_blanks(subject, k + 1))


def _signature_in(subject: str, start: int) -> Iterator[Span]:
    """The ``Signature=`` of a request-signing header whose scheme ends at ``start``, on its
    line: the scheme's name is kept (it names an algorithm, not a secret)."""
    stop = subject.find("\n", start, start + _SIG_REACH)
    i = subject.find("signature=", start, stop if stop >= 0 else start + _SIG_REACH)
    if i >= 0 and (m := _SIG_VALUE().match(subject, i)) is not None:
        yield m.span(1)


_GEN_TAIL = _Lazy(
    r"[\w.-]{0,20}+(?:\\?[\"'`])?\]?"  # ``os.environ["API_KEY"] = …``
    # a type between the name and the operator: Go ``string``, TypeScript/Swift/Rust
    # ``: string`` / ``: String`` / ``: &str``, C# ``{ get; set; }``
    r"(?:[ \t]++(?:string|str|\[\]byte|&str)|[ \t]*+:[ \t]*+(?:&'static[ \t]++str|&str|string|str)"
    r"(?!\w)|[ \t]*+\{[ \t]*+get;[^{}\n]{0,30}+\})?[ \t]{0,40}+"
    # ``,`` of a (name, value) call, which aligns its values as WordPress's wp-config.php
    # does (``define( 'AUTH_KEY',         '…' );``); ``(`` of a setter (``setApiKey("…")``)
    r"(?:(?::::=|::=|:=|\?\?=|\|\|=|\?=|\.=|=>|=|:|\()[ \t]{0,3}+|,[ \t]{0,40}+)(\\?[\"'`])?"
)
# ``salt``: a weak word, as a bare ``key`` is (random-looking values only): WordPress's
# ``AUTH_SALT``/``NONCE_SALT`` and their kind are secret keys; a password hash's salt is
# random bytes whoever sees them, so redacting one loses nothing readable
_GEN_WORDS = ("key", "secret", "token", "pass", "pwd", "credential", "auth", "salt")
# ``api_key``, ``apiKey`` and the hyphenated names of headers and YAML (``x-api-key``)
_KEY_BEFORE = ("api", "api_", "api-", "access", "access_", "access-", "private", "private_",
               "private-", "auth", "auth_", "auth-")  # fmt: skip
_AUTH_BEFORE = ("user", "user_", "basic", "basic_", "http", "http_", "proxy", "proxy_")


def _gen_key_end(subject: str, i: int, word: str) -> int:
    """End of the key word at ``i`` if it is one the assignment rule knows, else -1.

    A ``key`` without ``api``/``access``/``private``/``auth`` before it (``Key=…``,
    ``adobeKey``), and a ``salt``, are returned negated minus 2 (``-end - 2``): a weak key,
    whose value must look random (see ``_weak_ok``)."""
    end = i + len(word)
    nxt = subject[end : end + 1]
    if word == "key":
        if nxt.isalpha() and nxt != "s":
            return -1  # keyboard, keyword, keyup
        if (
            i >= 3
            and subject[i - 1] in "_-iseh"
            and subject[max(0, i - 8) : i].endswith(_KEY_BEFORE)
        ):
            return end
        return -end - 2
    if word == "salt":
        return -1 if nxt.isalpha() else -end - 2  # not saltstack, salty
    if word == "pass":
        if subject.startswith(("password", "passwd", "passphrase"), i):
            return end
        return -1 if nxt.isalpha() else end
    auth_ok = not nxt.isalpha() and subject[max(0, i - 6) : i].endswith(_AUTH_BEFORE)
    return end if word != "auth" or auth_ok else -1


# namespaces of environment variables before a name (Node, Vite, Python): not part of it
_ENV_SPACES = ("process.env.", "import.meta.env.", "os.environ.", "env.")
_GEN_BARE = _Lazy(r"[a-z0-9_.=+/~$!#%^*@-]{8,}+")
_KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_.-$")
# Exclusion words of names about a secret, or of an identifier, counter or hash field, not a
# secret (``_excluded_part``): each is a whole SEGMENT of the name (``_name_parts``: split at
# ``_ - . $`` and camelCase, lower-cased), never a substring, so ``ACCOUNT_KEY`` holds no
# ``count``, ``YARN_NPM_AUTH_TOKEN`` no ``arn``, ``PAGERDUTY_API_KEY`` no ``page``.
_GEN_EXCLUDE = frozenset((
    "hash", "hashes", "hashed", "hashing", "sha1", "sha256", "sha512", "md5", "digest", "digests",
    "checksum", "checksums", "etag", "etags", "fingerprint", "fingerprints", "change", "changes",
    "changed", "marker", "markers", "arn", "arns", "sequence", "kind", "kinds", "scope",
    "scopes", "ids", "uuid", "uuids", "version", "versions", "date", "dates", "prefix",
    "prefixes", "suffix", "suffixes", "source", "sources", "cursor", "cursors", "lastused",
    "region", "regions",
))  # fmt: skip
# words that make the key after them one meant to be published: Stripe's publishable key, a
# reCAPTCHA site key, a VAPID or any public key (``STRIPE_PUBLISHABLE_KEY``, ``publicKey``);
# excluded only right before ``key``/``keys`` (``PUBLIC_API_TOKEN`` is not one)
_PUBLIC_KEY_WORDS = frozenset(("public", "publishable", "site"))
# stems meant to match longer words: a segment that starts with one (``pagination``,
# ``idempotency``, ``timeout``, ``timestamp``, ``expires``, ``expiry``)
_EXCLUDE_STEMS = ("paginat", "idempot", "time", "expir")
# compounds kept as written, matched in the lower-cased name: AWS ``ClientToken`` and
# ``ClientRequestToken`` are idempotency ids (``client_token`` is not one of these)
_EXCLUDE_INFIXES = ("clienttoken", "requesttoken", "lastused", "last_used")
# counters of tokens, excluded only right before ``token``/``tokens`` (``input_tokens``,
# ``promptTokens``, ``budget_tokens``, botocore's ``input_token``) or right after a secret
# word (``password_input``): ``INPUT_GITHUB_TOKEN`` (a GitHub Action's input) and
# ``OUTPUT_API_KEY`` are secrets
_TOKEN_COUNT_WORDS = frozenset(("input", "output", "prompt", "total", "budget"))
# words that exclude only a value of a shape (``_shape_fits``): a name about a vault
# (``VAULT_TOKEN``, ``vault_secret``, ``ANSIBLE_VAULT_PASSWORD``) holds a reference into one
# (``secret/data/app``, ``vault:secret/app#token``) or a secret
# A name about GPG/PGP (``GPG_KEY``, as the official Python images set it) holds a key's
# fingerprint or id, which is public: only a value of that shape is kept (``GPG_PASSPHRASE``
# and an armoured ``GPG_PRIVATE_KEY`` are not one).
_SOFT_EXCLUDE = {"vault": "vault", "gpg": "keyid", "pgp": "keyid"}


# a relative path to a key, certificate or credentials file (``private_key: keys/host1.key``,
# ``api_key: secrets/app.2024.private-key.pem``): the file is named, not its contents
_KEY_FILE_PATH = _Lazy(
    r"(?:\.{1,2}/)?(?:[\w.-]{1,64}+/){1,12}+[\w.-]{0,128}?"
    r"\.(?:key|pem|crt|cer|der|p8|p12|pfx|jks|keystore|json|pub|asc|gpg|txt|enc)"
)


def _generic_finder(text: str, low: str) -> Iterator[Span]:
    """``api_key = "…"``, ``token: …``, Go ``var apiKey string = "…"``, ``password := …``,
    PHP ``$pass .= '…'``, make ``TOKEN ::= …`` / ``?=``, Ruby ``:password       => '…'``,
    backtick strings.

    The whole key name (walked left) decides what is excluded: ``next_token``,
    ``credentialsId``, ``secret_name``, ``key_hash``. A quoted all-letter value counts when it
    looks random (mixed case changing often); identifiers, UUIDs under id-like keys, ARNs and
    versions do not."""
    subject = low if len(low) == len(text) else _lower_same_length(text)
    bare = _GEN_BARE()
    n = len(text)
    tail = _GEN_TAIL()
    hits: dict[int, int] = {}  # key word start -> its end (-end - 2: a weak key)
    absent = _absent_in(subject)
    for word in _GEN_WORDS:
        if word in absent:
            continue
        for i in _word_positions(subject, word):
            kend = _gen_key_end(subject, i, word)
            if kend == -1 or _no_value(subject, kend if kend >= 0 else -kend - 2):
                continue
            if kend >= 0:
                hits[i] = kend
            elif kend < -1 and (i == 0 or not text[i - 1].isalpha() or text[i].isupper()):
                hits[i] = kend  # a weak key: ``Key=``, ``adobeKey``; not ``monkey``, ``basalt``
    nxt = 0
    for i in sorted(hits):
        if i < nxt:
            continue
        kend = hits[i]
        weak = kend < -1
        if weak:
            kend = -kend - 2
        m = tail.match(subject, kend)
        if m is None:
            continue
        quote = m.group(1)
        op = m.group(0).rstrip(" \t\"'`\\")
        if op.endswith(","):
            if not quote or (i > 0 and subject[i - 1] == "-" and subject.startswith("key", i)):
                # a hyphenated key (``"x-api-key", "x-b3-traceid1"``) is a header's name
                # in a list; a header set by a call is ``auth-header``'s
                continue
            # ``setProperty("X_TOKEN", "value")``, ``define('DB_PASSWORD', 'value')``: a
            # quoted name (the rest of it after the key word, then its quote), then a value
            named = subject[kend : m.end()].lstrip(_NAME_REST).lstrip(" \t\\")[:1]
            if named not in ('"', "'"):
                continue
        if op.endswith("(") and not _setter(text, subject, i):
            continue  # setPassword("…"), withApiKey("…"); not getToken("…") or f(token("…"))
        nxt = m.end()
        pos = m.end()
        literal = bool(quote)
        if op.endswith("("):
            arg = _setter_value(text, pos - len(quote or ""))
            if arg is None:
                continue  # setSecret("name", value), setToken(token): no literal value
            start, end = arg
            nxt = end + 1
            value, literal = text[start:end], True
            if "\n" in value or len(value) < 8 or (" " in value and not _generated(value)):
                continue
        elif not quote and op.endswith(":") and subject.startswith(("|", ">"), pos):
            # YAML ``token: |`` / ``password: >-``, the value on the next, deeper line
            start, end = _block_scalar(text, pos, i)
            nxt = end
            if end - start < 8:
                continue
            value, literal = text[start:end], True
        elif quote:
            close = text.find(quote, pos, min(n, pos + 257))
            if close < 0:
                continue
            start, end = pos, close
            nxt = close + 1  # the value is not searched again
            value = text[start:end]
            if "\n" in value or len(value) < 8 or (" " in value and not _generated(value)):
                continue
            if op.endswith(",") and text[close + 1 : close + 4].lstrip(' \t\\"').startswith(":"):
                continue  # "…Token", "ResourceDataContainer": the next JSON key, not a value
        else:
            vm = bare.match(subject, pos)
            start, end = vm.span() if vm is not None else (pos, pos)
            if ":" in subject[end : end + 9 if vm is None else end + 1]:
                # ``api_key: xk:<token>``, ``secret: <part>:<part>``: a value of colon-joined
                # parts (not a URL, not ``sha256:<digest>``) is judged by its last part,
                # which is what gets redacted
                start, end = _colon_tail(subject, pos)
            elif vm is None:
                continue
            nxt = end  # the value is not searched again (keeps "password=" * n linear)
            if end - start < 8 or not _terminated(text, end):
                continue
            value = text[start:end]
        if value.startswith("{noop}"):
            start += 6  # Spring Security's prefix of a password stored as it is
            value = value[6:]
        k = i
        stop = max(0, k - 40)
        while k > stop and subject[k - 1] in _KEY_CHARS:
            k -= 1
        j = kend
        while j < m.end() and subject[j] in _KEY_CHARS and subject[j] != "$":
            j += 1  # the rest of the name (``token_value``), not the operator or a type
        for space in _ENV_SPACES:  # process.env.API_TOKEN: the variable is the name
            if subject.startswith(space, k, i):
                k += len(space)
                break
        key = subject[k:j].rstrip(".-")
        excluded = _key_exclusion(text[k : k + len(key)])  # as written: its case marks words
        if excluded == "*" or (excluded and _shape_fits(excluded, value)):
            continue  # next_token, key_hash = <sha256>, secret_arn = arn:…
        if k > 0 and subject[k - 1] == ":" and not subject.endswith("$env:", 0, k):
            continue  # AWS::IAM::AccessKey, arn:…:secret:Name-a1b2c3: a qualified name
        maven = "." in subject[k:i] and m.group(0).rstrip().endswith(":")
        if maven and end < n and text[end : end + 1] == ":":
            continue  # a Maven coordinate group:artifact:version
        if _named_after_key(key, subject[i:kend], value):
            continue  # "ExportToken": "export-token-cu4l…": an id named after its kind
        if "/" in value and "key" in key and _KEY_FILE_PATH().fullmatch(value) is not None:
            continue  # private_key: keys/host1.key, a key file's path
        if weak and _key_material(subject, i, value):
            weak = False  # encryption_key = "<64 hex>": the key itself, not a digest
        original = text[k : i + 1]
        pascal = original[:1].isupper() and not original.isupper()
        memo = (key, value, literal, weak, pascal)
        verdict = _GEN_VERDICTS.get(memo)
        if verdict is None:
            verdict = _generic_verdict(key, value, literal, weak, pascal)
            if len(_GEN_VERDICTS) > 4096:
                _GEN_VERDICTS.clear()
            _GEN_VERDICTS[memo] = verdict
        if verdict:
            yield start, end


# words before ``key`` that name key material, whose value is the key's bytes, most often
# hex (Rails' ``master.key`` is 32 hex digits, AES-256 and HMAC-SHA256 keys 64), and New
# Relic's ``license_key`` (40 hex digits, newrelic.yml), and Azure's 32-hex keys under the
# names its own quickstarts use: API Management's and Cognitive Services' ``subscription_key``
# (the ``Ocp-Apim-Subscription-Key`` header's value), ``SPEECH_KEY``, ``LANGUAGE_KEY``,
# ``VISION_KEY``, ``TRANSLATOR_KEY``, and the resource's own ``COGNITIVE_SERVICES_KEY`` /
# ``AI_SERVICES_KEY``: under these names hex is the key, where under a bare or
# other ``key`` (``cache_key``, ``object_key``) it is a digest or an id far more often, and
# kept (``_weak_ok``)
_KEY_MATERIAL = (
    "encryption", "encrypt", "decryption", "decrypt", "signing", "master", "hmac", "cipher",
    "aes", "wrapping", "license", "licence", "subscription", "cognitive", "speech", "language",
    "vision", "translator", "services",
)  # fmt: skip
_KEY_MATERIAL_REACH = 16  # characters before ``key``: the longest word and a separator


def _key_material(subject: str, i: int, value: str) -> bool:
    """Whether the weak ``key`` at ``i`` (in the lowered ``subject``) names key material
    (``encryption_key``, ``signingKey``, ``HMAC-KEY``, ``license_key``) and ``value`` is a
    key's length of hex digits: 32 to 128, a whole number of 4 bytes."""
    if not 32 <= len(value) <= 128 or len(value) % 8 or not all(c in _HEX_CHARS for c in value):
        return False
    return subject[max(0, i - _KEY_MATERIAL_REACH) : i].rstrip("_-.").endswith(_KEY_MATERIAL)


_BLOCK_HEAD = _Lazy(r"[|>][1-9+-]{0,2}+[ \t]*+(?:#[^\r\n\\]{0,80}+)?(?:\r?\n|\\r\\n|\\n)")
# the block's first line, one word, up to its break or the end of the (JSON) string
_LINE_AT = _Lazy(r"[ \t]*+([^\s\\\"'`]{1,256}+)[ \t]*+(?=[\r\n\"]|\\[rn\"]|$)")
_BREAKS = ("\n", "\\n")  # a line break, real or JSON-escaped


def _block_scalar(text: str, pos: int, i: int) -> Span:
    """The value of a YAML block scalar whose indicator (``|``, ``>``, ``|-``, ``>+2``) is at
    ``pos``, for the key word at ``i``: the one line after the indicator's (real or ``\\n``
    escaped breaks), when it is more indented than the key's line and is the block's only
    line (a one-word value; a multi-line block is a script, a certificate or prose). An
    empty span at ``pos`` when it is no such value. Every read is bounded: no rescans."""
    head = _BLOCK_HEAD().match(text, pos)
    if head is None:
        return pos, pos
    line = _LINE_AT().match(text, head.end())
    if line is None:
        return pos, pos
    indent = line.start(1) - head.end()
    if indent <= _key_indent(text, i):
        return pos, pos  # not inside the block: a sibling key or the parent's next line
    if _next_indent(text, _past_break(text, line.end())) >= indent:
        return pos, pos  # a second line in the block
    return line.span(1)


def _past_break(text: str, pos: int) -> int:
    """The start of the line after the break at ``pos`` (real or escaped), or the end of the
    text when the string ends there (a ``"``: the block was the last thing in it)."""
    for brk in ("\r\n", "\n", "\\r\\n", "\\n"):
        if text.startswith(brk, pos):
            return pos + len(brk)
    return len(text)


def _key_indent(text: str, i: int) -> int:
    """The blanks that start the line holding ``i``: it starts after the last real or
    ``\\n``-escaped break, looked for 256 characters back (a longer line counts as 0)."""
    start = line_start(text, i, 256)
    if start < 0:
        return 0
    if start == 0 and text[:1] == '"':
        start = 1  # JSON text: the string's first line starts after its quote
    j = start
    while j < i and text[j] in " \t":
        j += 1
    return j - start


def _next_indent(text: str, pos: int) -> int:
    """The blanks that start the first line at or after ``pos`` (a line start) that is not
    blank, blank lines skipped for up to 256 characters (then, or at a break beyond, as
    deep as can be: the block may go on); -1 at the end of the text."""
    n = len(text)
    stop = min(n, pos + 256)
    start = j = pos
    while j < stop:
        ch = text[j]
        if ch in " \t":
            j += 1
        elif ch == "\r" or ch == "\n":
            start = j = j + 1  # a blank line
        elif text.startswith("\\n", j) or text.startswith("\\r", j):
            start = j = j + 2
        else:
            return j - start
    return -1 if j >= n else 256


# the characters of a name after its key word (``DB_PASSWORD``'s ``word``, ``api.token``)
_NAME_REST = "abcdefghijklmnopqrstuvwxyz0123456789_.-"
# method-name prefixes of a setter or builder option, whose one argument is the value of the
# secret its name names: Java/C# ``setPassword``, Go ``SetAPIKey`` / ``option.WithAPIKey``,
# Python ``set_api_key``, Rust ``with_api_key``
_SETTERS = ("set", "with")
# a builder method named after the secret it takes, lowered, ``_`` dropped (``.apiKey(…)``,
# ``.api_key(…)``, ``.clientSecret(…)``)
_BUILDER_NAMES = frozenset((
    "password", "passwd", "passphrase", "secret", "apikey", "apitoken", "token", "accesstoken",
    "authtoken", "bearertoken", "refreshtoken", "sessiontoken", "clientsecret", "secretkey",
    "accesskey", "secretaccesskey", "privatekey", "signingkey", "webhooksecret",
))  # fmt: skip


def _setter(text: str, subject: str, i: int) -> bool:
    """Whether the key word at ``i`` is in the name of a setter or builder method: the name
    (after any ``obj.``) starts with ``set``/``with`` followed by a capital or ``_``
    (``setApiKey``, ``WithToken``, ``set_password``; not ``settle_token`` or ``without``),
    or it is a builder's method named after the secret itself, called on an object
    (``Client.builder().apiKey("…")``, Spring's ``User.withUsername(u).password("…")``,
    Rust's ``.api_key("…")``: the whole name is one of ``_BUILDER_NAMES``; not a getter's
    ``.getSecret(…)``, ``.passwordEncoder(…)`` or a plain function ``token(…)``)."""
    j = i
    while j > 0 and subject[j - 1] in _KEY_CHARS and subject[j - 1] not in ".$":
        j -= 1
    for prefix in _SETTERS:
        after = j + len(prefix)
        if subject.startswith(prefix, j) and after <= i:
            nxt = text[after : after + 1]
            return nxt == "_" or nxt.isupper()
    if j == 0 or subject[j - 1] != ".":
        return False
    e = i
    while e < len(subject) and (subject[e].isalnum() or subject[e] == "_"):
        e += 1
    return subject.startswith("(", e) and subject[j:e].replace("_", "") in _BUILDER_NAMES


# keyring's ``set_password(service, username, password)``: the value is the last of three
_SETTER_ARGS = 3
_QUOTE_CHARS = frozenset("\"'`")  # and a JSON-escaped \" or \'
# an argument that is no literal: a variable, ``self.user``, ``SERVICE``, PHP's ``$dsn`` and
# ``$this->user``, a number, and one call or subscript of such a name without parentheses or
# brackets inside (``os.getenv("USER")``, ``env["USER"]``)
_ARG_NAME = _Lazy(
    r"(?:\$?[A-Za-z_][A-Za-z0-9_.]{0,127}+(?:->[A-Za-z_][A-Za-z0-9_]{0,63}+)*+"
    r"(?:\([^()\[\]\r\n]{0,128}+\)|\[[^()\[\]\r\n]{0,128}+\])?|[0-9]{1,10}+)"
)
# after a literal: Java's ``"…".toCharArray()``, Python's ``"…".encode()``: still the value
_LITERAL_CALL = _Lazy(r"\.[A-Za-z]{1,20}+\(\)")


def _setter_value(text: str, pos: int) -> Span | None:
    """The span of a setter call's value, its last argument: ``setApiKey("…")``, a secret
    store's ``setSecret("name", "…")``, keyring's ``set_password(service, user, "…")``.
    ``pos`` is just after the call's ``(``; the call has one to ``_SETTER_ARGS`` arguments
    (``_call_args``) and the last is a literal; otherwise None (``setToken(token)``,
    ``setSecret("name", value)``: nothing to redact)."""
    args = _call_args(text, pos, _SETTER_ARGS)
    return args[-1] if args else None


def _call_args(text: str, pos: int, most: int, bare: bool = False) -> list[Span | None] | None:
    """The arguments of the call whose ``(`` is just before ``pos``, when it has one to
    ``most`` of them, each a quoted literal (JSON-escaped or not; its span without the
    quotes) or a name (``_ARG_NAME``; None in the list), blanks and line breaks between them
    and maybe a trailing comma (Prettier's, black's); otherwise None. ``bare``: a call
    without parentheses (Ruby's ``basic_auth 'user', 'pass'``), its arguments on one line,
    ending at the line's end, a ``;`` or the end of the (JSON) string."""
    if bare:
        return _bare_call_args(text, pos, most)
    n = len(text)
    args: list[Span | None] = []
    while len(args) < most:
        pos = _skip_call_blanks(text, pos)
        if args and text.startswith(")", pos):
            return args  # a trailing comma after the last argument
        quote = _quote_at(text, pos)
        if quote:
            start = pos + len(quote)
            close = text.find(quote, start, min(n, start + 257))
            if close < 0:
                return None
            args.append((start, close))
            pos = close + len(quote)
            if (call := _LITERAL_CALL().match(text, pos)) is not None:
                pos = call.end()
        else:
            name = _ARG_NAME().match(text, pos)
            if name is None:
                return None
            args.append(None)
            pos = name.end()
        pos = _skip_call_blanks(text, pos)
        if text.startswith(")", pos):
            return args
        if not text.startswith(",", pos):
            return None
        pos += 1
    # a comma after the last argument the shape allows: only a trailing one
    return args if text.startswith(")", _skip_call_blanks(text, pos)) else None


def _quote_at(text: str, pos: int) -> str:
    """The quote that opens a literal at ``pos`` (``"``, ``'``, a backtick, or a JSON-escaped
    ``\\"``/``\\'``), or ``""``."""
    quote = text[pos : pos + 1]
    if quote == "\\":
        return text[pos : pos + 2] if text[pos + 1 : pos + 2] in ("'", '"') else ""
    return quote if quote in _QUOTE_CHARS else ""


def _bare_call_args(text: str, pos: int, most: int) -> list[Span | None] | None:
    """``_call_args`` of a call without parentheses: one to ``most`` quoted literals or
    names on the rest of the line, comma-separated, then the line's end (a real or escaped
    break), a ``;``, the end of the text or of its JSON string (``"``)."""
    n = len(text)
    args: list[Span | None] = []
    while len(args) < most:
        pos = _skip_blanks(text, pos)
        quote = _quote_at(text, pos)
        if quote:
            close = text.find(quote, pos + len(quote), min(n, pos + 257))
            if close < 0:
                return None
            args.append((pos + len(quote), close))
            pos = close + len(quote)
        elif (name := _ARG_NAME().match(text, pos)) is not None:
            args.append(None)
            pos = name.end()
        else:
            return None
        pos = _skip_blanks(text, pos)
        if pos >= n or text[pos] in '\r\n;"' or text.startswith(("\\n", "\\r"), pos):
            return args
        if text[pos] != ",":
            return None
        pos += 1
    return None


# between a call's arguments: blanks and line breaks (a formatter puts a long argument on a
# line of its own: ``client.setApiKey(\n    "…"\n);``), also JSON-escaped
_CALL_BLANKS = _Lazy(r"(?:[ \t\r\n]|\\[nrt])*+")


def _skip_call_blanks(text: str, pos: int) -> int:
    """The first position at or after ``pos`` that is not a blank or a line break, real or
    JSON-escaped (``_CALL_BLANKS``)."""
    m = _CALL_BLANKS().match(text, pos)
    return m.end() if m is not None else pos


def _skip_blanks(text: str, pos: int) -> int:
    """The first position at or after ``pos`` that is not a space or tab."""
    n = len(text)
    while pos < n and text[pos] in " \t":
        pos += 1
    return pos


_GEN_COLON = _Lazy(r"[a-z0-9_.=+/~$!#%^*@-]*+(?::(?!//)[a-z0-9_.=+/~$!#%^*@-]*+)++")
_COLON_PARTS = 3  # more parts is a time, an address or a path list, not a prefixed secret


def _colon_tail(subject: str, pos: int) -> Span:
    """The last part of the colon-joined value at ``pos``, or an empty span at its end when
    it is none: more than ``_COLON_PARTS`` parts, a part under 8 characters, or a digest
    (``sha256:<hex>``). A ``://`` ends the value (a URL is ``url-credentials``' to judge)."""
    m = _GEN_COLON().match(subject, pos)
    end = m.end() if m is not None else pos
    start = subject.rfind(":", pos, end) + 1
    if start <= pos or end - start < 8 or subject.count(":", pos, end) >= _COLON_PARTS:
        return end, end
    if _digest_shape(subject[pos:end]):
        return end, end
    return start, end


def _assigned_secret(key: str, value: str) -> bool:
    """Whether the unquoted assignment ``key = value`` is a secret, as ``_generic_finder``
    judges one (its key words, the key's exclusions, ``_generic_verdict``): for commands that
    set a key to a value (``aws configure set aws_secret_access_key <value>``)."""
    low = key.lower()
    words = [w for w in _GEN_WORDS if w in low]
    if not words:
        return False
    excluded = _key_exclusion(key)
    if excluded == "*" or (excluded and _shape_fits(excluded, value)):
        return False  # aws_access_key_id, web_identity_token_file
    weak = words == ["key"] and not low.rpartition("key")[0].endswith(_KEY_BEFORE)
    return _generic_verdict(low, value, False, weak, False)


# (key, value, quoted, weak, PascalCase key) -> verdict: pathological and ordinary texts alike
# repeat one assignment many times, and the value filters are Python loops
_GEN_VERDICTS: dict[tuple[str, str, bool, bool, bool], bool] = {}


# ``-u``/``--user`` (curl, wget's ``--user``), ``--auth`` and, after an HTTPie command only,
# ``-a`` (HTTPie's and xh's ``-a user:password``; ``-a`` is many tools' other flag). The
# value may be quoted, also JSON-escaped (``\"user:password\"``).
_CURL_USER = _Lazy(
    r"-(u|-user|a|-auth)(?:[ \t]++|=)(?:\\?[\"'])?([^\s:\"']{0,128}+):([^\s\"'`]{1,256}+)"
)
# HTTPie's commands and xh's (its Rust port) as a command's word: after the line's start, a
# space, a quote (``{"command": "http …``), a path (``/usr/bin/http``) or a ``\n`` escape
_HTTPIE_AT = _Lazy(r"(?:(?<![^\s\"'/])|(?<=\\[nt]))(?:https?|xhs?)(?=[ \t])")
_COMMAND_REACH = 400  # characters of one command line read before a flag for its tool's name
# HTTPie's and xh's bearer auth (``-A bearer -a <token>``, ``--auth-type=bearer
# --auth=<token>``): the ``-a``/``--auth`` value is the token itself, no ``user:`` before it
_AUTH_BARE = _Lazy(r"-(?:a|-auth)(?:[ \t]++|=)(?:\\?[\"'])?([^\s\"'`\\]{1,4096}+)")
_BEARER_TYPE = _Lazy(r"(?:-A[ \t]*+|--auth-type(?:[ \t]++|=))(?:\\?[\"'])?bearer(?![\w-])")
_COMMAND_CUTS = ("\n", "\r", ";", "|", "&", "\\n")  # what ends a command (and its JSON escape)


def _curl_user_finder(text: str, low: str) -> Iterator[Span]:
    """``curl -u user:password`` / ``--user user:password``, ``--auth user:password`` and
    HTTPie's ``http -a user:password``: only the password."""
    httpie: list[int] | None = None  # where HTTPie's commands start, found on the first -a
    for m in _CURL_USER().finditer(text):
        if m.start() > 0 and text[m.start() - 1] not in " \t":
            continue
        if m.group(1) == "a":
            if httpie is None:
                httpie = [t.start() for t in _HTTPIE_AT().finditer(text)]
            if not _after_tool(text, m.start(), httpie):
                continue  # ls -a, git commit -a, redis-cli -a (scrub_finders reads that one)
        start, end = m.span(3)
        value = text[start:end]
        if value.startswith("//"):
            continue  # az login -u http://app: a URL as the user, not user:password
        if value.endswith("\\") and text[end : end + 1] in ('"', "'"):
            value = value[:-1]  # the escape of a closing quote: \"user:password\"
        if len(value) < 4 or not _url_password_ok(value):  # placeholders, as for URLs
            continue
        if value.lower() in _STOP and m.group(2).lower() in _STOP:
            continue  # curl -u test:test, -u username:token: the documentation's pair
        yield start, start + len(value)
    if "bearer" in low and ("-A" in text or "--auth-type" in text):
        yield from _httpie_bearer(text, httpie)


def _httpie_bearer(text: str, httpie: list[int] | None) -> Iterator[Span]:
    """HTTPie's ``-A bearer -a <token>`` (``--auth-type[=| ]bearer``, ``--auth[=| ]<token>``,
    either order): the whole ``-a`` value, when the bearer type is given in the same command
    (with another type, or none, ``-a`` is ``user:password``, read above). ``httpie``: where
    an HTTPie command starts, when the caller found them already; else found here, and only
    once a bearer type occurs (the word ``bearer`` alone is common in documentation)."""
    bearers = [m.start() for m in _BEARER_TYPE().finditer(text)]
    if not bearers:
        return
    if httpie is None:
        httpie = [t.start() for t in _HTTPIE_AT().finditer(text)]
    for m in _AUTH_BARE().finditer(text):
        i = m.start()
        if i > 0 and text[i - 1] not in " \t":
            continue
        if not _after_tool(text, i, httpie) or not _bearer_near(text, i, bearers, httpie):
            continue
        start, end = m.span(1)
        if _auth_ok(text[start:end]):  # a token, not $TOKEN, <token> or a bare user name
            yield start, end


def _bearer_near(text: str, i: int, bearers: list[int], httpie: list[int]) -> bool:
    """Whether a bearer auth type (``bearers``: where one starts, ascending) is given in the
    command of the ``-a`` at ``i``, whose HTTPie command starts in ``httpie``: between that
    start and ``i``, or after ``i`` with no command end between."""
    k = bisect_left(bearers, i)
    if k > 0 and bearers[k - 1] > httpie[bisect_left(httpie, i) - 1]:
        return True  # http -A bearer … -a <token>: _after_tool saw no cut since the start
    if k == len(bearers) or bearers[k] - i > _COMMAND_REACH:
        return False
    return not any(text.find(c, i, bearers[k]) >= 0 for c in _COMMAND_CUTS)


def _after_tool(text: str, i: int, starts: list[int]) -> bool:
    """Whether a tool's name (``starts``: where it occurs in ``text``, ascending) comes before
    ``i`` in the same command: no line end, ``\\n`` escape, ``;``, ``|`` or ``&`` between, at
    most ``_COMMAND_REACH`` characters back. The nearest start before ``i`` decides: an
    earlier one is farther and has the same separators and more between. Each flag costs a
    bisection and a few bounded ``find`` calls, not a walk of its command's words."""
    k = bisect_left(starts, i) - 1
    if k < 0 or i - starts[k] > _COMMAND_REACH:
        return False
    j = starts[k]
    return not any(text.find(c, j, i) >= 0 for c in _COMMAND_CUTS)


# ----------------------------------------------------------------------------- the rule set


# names that end in an identifier word: the value points at a secret, it is not one
_ID_ENDS = ("id", "ids", "arn", "arns", "ref", "refs", "uri", "uris")


_HEX_CHARS = frozenset("0123456789abcdefABCDEF")

_QUOTED_PW = _Lazy(
    r"((?:passw(?:or)?d|pwd|passphrase|secret|pass(?![a-z])|(?:user|basic|http|proxy)_?auth"
    r"(?![a-z]))[\w.-]{0,20}+)(?:\\?[\"'`])?(?:[ \t]++(?:string|str|&str))?[ \t]{0,40}+"
    r"(?::::=|::=|:=|\?=|\.=|=>|=|:)[ \t]{0,3}+\\?([\"'`])([^\"'`\\\r\n]{4,128}+)\\?\2"
)
# segments of names about a password (``password_hint``, ``secretsManager``), for quoted
# passwords only; with every word of ``_PW_EXCLUDE``
_ABOUT_PASSWORD = frozenset((
    "last", "used", "date", "reset", "policy", "policies", "changed", "manager", "required",
    "strength", "rotation", "salt", "label", "labels", "placeholder", "title", "text",
    "message", "messages", "msg", "error", "errors", "help", "description", "selector",
    "button", "input", "inputs", "form", "forms", "field", "fields", "link", "links", "route",
    "routes", "page", "pages", "output", "prompt", "total", "budget",
))  # fmt: skip
_PW_NAMES_OK = frozenset(("password", "passwd", "pwd", "pass", "secret", "passphrase"))


_PROSE_WORDS = (
    "the a an your you enter please must should is are be to of for and or not this that with"
    " will can if in on at by from here new old invalid incorrect wrong required missing"
    " type use set"
)
_PROSE = frozenset(_PROSE_WORDS.split(" "))


_PW_EXCLUDE: frozenset[str] = frozenset()  # set below, once every exclusion list is defined


def _quoted_password_finder(text: str, low: str) -> Iterator[Span]:
    """A quoted literal under a password-ish key (``"password": "hunter-two"``, also escaped
    inside JSON text). Unlike ``generic-assignment`` an all-letter value counts: a quoted
    literal is not a code identifier, and human passwords are often plain words."""
    subject = low if len(low) == len(text) else _lower_same_length(text)
    for m in prefixed_finditer(_QUOTED_PW, subject):
        name = m.group(1)
        start, end = m.span(3)
        value = text[start:end]
        if name not in _PW_NAMES_OK:
            excluded = _pw_exclusion(text[m.start(1) : m.end(1)])  # as written
            if excluded == "*" or (excluded and _shape_fits(excluded, value)):
                continue  # password_hint, secret_name = "db-prod", passwordRef = "vault:…"
        k = m.start()
        while k > 0 and subject[k - 1] in _KEY_CHARS and subject[k - 1] not in ".$":
            k -= 1  # the whole name: AWS::MSK::BatchScramSecret, not just "secret"
        if _names_a_secret(value) or subject[max(0, k - 2) : k] == "::":
            continue  # SECRET_KEY = 'aws_secret_access_key'; AWS::SecretsManager::Secret
        if " " in value:  # a passphrase, not a sentence: few words, no prose words
            if value != value.strip():
                continue
            words = value.lower().split()
            if len(words) > 6 or any(w in _PROSE for w in words) or value[-1] in ".?!:":
                continue
        if not _placeholder(value.strip(), identifiers=False):
            yield start, end


_CLI = _Lazy(
    r"--(password|passwd|token|api-key|apikey|secret|client-secret|requirepass|masterauth)"
    r"(?:=|[ \t]++)[\"']?([^\s\"'`;|&]{6,}+)"
)


def _cli_finder(text: str, low: str) -> Iterator[Span]:
    """``--password X``, ``--token=X`` and similar command-line flags."""
    subject = low if len(low) == len(text) else _lower_same_length(text)
    for m in _CLI().finditer(subject):
        start, end = m.span(2)
        value = text[start:end]
        passwordish = m.group(1).startswith("pass") or m.group(1).endswith(("pass", "auth"))
        if _placeholder(value, identifiers=not passwordish):
            continue
        if not passwordish and not _generic_ok(value):
            continue
        yield start, end


# Flags whose name ends in a secret word, and their value: PowerShell parameters
# (``Connect-VIServer -Password <v>``, ``Invoke-Sqlcmd -Password '<v>'``, ``Publish-Module
# -NuGetApiKey <v>``, ``Connect-AzAccount -AccessToken <v>``, also ``-Password:<v>``), Go's
# flag package (``-token=<v>``), Java tools (``-password <v>``), and long flags of any tool
# (``--github-token <v>``, ``--db-password=<v>``, ``gpg --passphrase <v>``, ``az storage …
# --account-key <v>``, ``aws secretsmanager … --secret-string <v>``); after a blank, a quote
# or the text's start. Read on the lowered text (PowerShell's names are case-insensitive);
# the name as written decides exclusions as an assignment's would (``-NextToken``, AWS's
# paging id). Each secret word is found where the assignment finder's key words are
# (``_word_positions``, found once for both) and the dashes and the rest of the name before
# it are read leftwards (``_dash_name``): a regex entered at every letter the words start
# with cost ~170 µs on a 20 KB payload, more than the assignment finder, and its own
# ``str.find`` passes ~30 µs.
_DASH_WORDS = (
    "password", "passwd", "passphrase", "pwd", "token", "secret", "apikey", "api-key",
    "api_key", "account-key", "access-key", "secret-key", "auth-key", "subscription-key",
    "master-key",
)  # fmt: skip
# the assignment finder's key words (``_GEN_WORDS``) the words above are found from: their
# positions are found once for both finders (``_word_positions``)
_DASH_BASES = ("pass", "pwd", "token", "secret", "key")
# what a ``key`` word needs before it (``--account-key``, ``-ApiKey``, ``--api_key``)
_KEY_HEADS = ("api-", "api_", "api", "account-", "access-", "secret-", "auth-", "subscription-",
              "master-")  # fmt: skip
# what follows the flag's name: its separator and the value
_DASH_VALUE = _Lazy(r"(?::|=|[ \t]++)(?:\\?[\"'])?([^\s\"'`;|&,)]{6,512}+)")
_DASH_NAME_REACH = 40  # characters of a name before its secret word (--aws-secret-access-key)
# how far before a base word (``_DASH_BASES``) a flag's dash can be: a name's reach before the
# secret word, which starts up to a key head before ``key`` (``--subscription-key``)
_DASH_REACH = _DASH_NAME_REACH + max(map(len, _KEY_HEADS))
# autotools' feature switches (``--with-<feature>[=<value>]``, ``--enable-<feature>``): the
# value is a path or an option
_FEATURE_SWITCHES = ("with-", "without-", "enable-", "disable-")
# token flags that take an id, not a secret: the AWS CLI's idempotency tokens
# (``--client-token``, ``--client-request-token``), paging (``--starting-token``,
# ``--next-token``, ``--continuation-token``), WAF's ``--lock-token``, Auto Scaling's
# ``--lifecycle-action-token``, Cloud Control's ``--request-token``, IoT's
# ``--confirmation-token``, Service Catalog's ``--copy-product-token``, Lake Formation's
# ``--work-unit-token`` (each an id its API returned)
_ID_TOKEN_FLAGS = tuple(
    f"{head}-token"
    for head in (
        "client", "request", "starting", "next", "continuation", "page", "pagination", "lock",
        "lifecycle-action", "confirmation", "copy-product", "work-unit", "idempotency",
        "change", "sync", "resume",
    )
)  # fmt: skip
_DASH_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-_")


def _dash_name(subject: str, i: int) -> int:
    """Where the flag whose secret word starts at ``i`` starts (its first ``-``), or -1 when
    the word does not end such a flag's name: a name of letters, digits, ``-`` and ``_``
    after one or two dashes, the dashes after a blank, a quote, a JSON escape or the text's
    start (not ``x-api-key``, ``pre-token``, ``a--token``)."""
    j = i
    stop = max(0, i - _DASH_NAME_REACH)
    while j > stop and subject[j - 1] in _DASH_NAME_CHARS:
        j -= 1
    if subject[j : j + 1] != "-" or j == i:
        return -1
    head = j + 2 if subject.startswith("--", j) else j + 1
    if head > i or not ("a" <= subject[head : head + 1] <= "z"):
        return -1  # ---token, --9token: not a flag's name
    if j == 0:
        return j
    before = subject[j - 1]
    if before.isalnum() and not (before in "nrt" and subject[j - 2 : j - 1] == "\\"):
        return -1  # a word's dash; \n--token (a JSON-escaped line break) is not one
    return -1 if before in "_." else j


def _dash_flag_finder(text: str, low: str) -> Iterator[Span]:
    """``-Password <v>``, ``-ApiKey:<v>``, ``--github-token=<v>`` (see ``_DASH_WORDS``): the
    value, unless it is a placeholder, a variable (``$pw``), a subexpression or the next
    flag."""
    if "-" not in text:
        return
    subject = low if len(low) == len(text) else _lower_same_length(text)
    absent = _absent_in(subject)
    value_at = _DASH_VALUE().match
    dash_before = subject.rfind
    for base in _DASH_BASES:
        if base in absent:
            continue
        done = 0  # a value read is not searched again (keeps "-token=" * n linear)
        for k in _word_positions(subject, base):
            if k < done or dash_before("-", max(0, k - _DASH_REACH), k) < 0:
                continue  # no dash within a flag name's reach before the word
            i, pos = _dash_word(subject, base, k)
            if i < 0 or (dash := _dash_name(subject, i)) < 0:
                continue
            if (m := value_at(subject, pos)) is None:
                continue
            start, end = m.span(1)
            done = end
            if text[end - 1] == "\\" and text[end : end + 1] in ('"', "'"):
                end -= 1  # the escape of a closing quote: -Password \"…\"
            value = text[start:end]
            if end - start < 6 or value[0] in "-<(`$":
                continue
            name = text[dash + 1 : pos].lstrip("-")
            if name.lower().startswith(_FEATURE_SWITCHES):
                continue  # ./configure --with-secret <path>: a feature's switch, not a secret
            excluded = _key_exclusion(name)
            if excluded == "*" or (excluded and _shape_fits(excluded, value)):
                continue  # -NextToken <paging id>, -SecretName <name>
            if base in ("pass", "pwd"):
                if _placeholder(value, identifiers=False):
                    continue  # a password may be a word: only placeholders are kept
            elif base == "token" and name.lower().endswith(_ID_TOKEN_FLAGS):
                continue  # aws … --client-token <idempotency id>, --starting-token <page>
            elif not _generic_verdict(name.lower(), value, False, False, False):
                continue  # a UUID, a version, a name, a placeholder: as an assignment's
            yield start, end


def _dash_word(subject: str, base: str, k: int) -> tuple[int, int]:
    """The start and end of the secret word of ``_DASH_WORDS`` around the assignment finder's
    key word ``base`` found at ``k`` (``pass`` -> ``password``/``passwd``/``passphrase``,
    ``key`` -> ``apikey``/``--account-key``, …, ``secret`` -> also ``secret-string``), or
    (-1, -1)."""
    if base == "pass":
        for word in ("password", "passwd", "passphrase"):
            if subject.startswith(word, k):
                return k, k + len(word)
        return -1, -1
    if base == "key":
        for head in _KEY_HEADS:
            if k >= len(head) and subject.startswith(head, k - len(head)):
                return k - len(head), k + 3
        return -1, -1
    if base == "secret" and subject.startswith("secret-string", k):
        return k, k + 13  # aws secretsmanager --secret-string <v>
    return k, k + len(base)


_XML_CLOSE = _Lazy(r"</([A-Za-z_][\w.:-]{0,60}+)>")
# an attribute's value in double quotes (``\\"`` inside JSON) or in single quotes, which XML
# allows as well (``<add key='ApiKey' value='…'/>``): name in group 1 or 2, value in 3 or 4
_XML_ATTR = _Lazy(
    r"(?:key|name)[ \t]*+=[ \t]*+(?:\\?\"([^\"\\]{1,64}+)\\?\"|'([^'\\]{1,64}+)')"
    r"[ \t]++value[ \t]*+=[ \t]*+(?:\\?\"([^\"\\]{1,512}+)\\?\"|'([^'\\]{1,512}+)')"
)
# Spring's ``<property name="apiKey">…</property>`` (also ``<value>…</value>`` inside), .NET
# settings' ``<setting name="ApiKey" serializeAs="String"><value>…</value>``, Ant's
# ``<property name="…">``, ``<param name="password">…</param>``: the name in an attribute
# (up to 4 more after it), the secret in the element's text. The name is in group 1 or 2
# (double or single quotes), the text in 3, the closing tag's name in 4.
_XML_NAMED = _Lazy(
    r"(?:key|name)[ \t]*+=[ \t]*+(?:\\?\"([^\"\\<>]{1,64}+)\\?\"|'([^'\\<>]{1,64}+)')"
    r"(?:[ \t]++[\w:.-]{1,40}+=(?:\\?\"[^\"\\<>]{0,100}+\\?\"|'[^'\\<>]{0,100}+')){0,4}+"
    r"[ \t]*+>(?:(?:\s|\\[nrt])*+<value>)?([^<]{1,512}+)</([\w.:-]{1,64}+)>"
)
_XML_BLANK = " \t\r\n"
_XML_WINDOW = 4096
_XML_KINDS: dict[str, int] = {}  # _field_kind of an element name's last part, by name
_XML_KINDS_MAX = 4096


def _xml_finder(text: str, low: str) -> Iterator[Span]:
    """``<apiToken>…</apiToken>``, ``<password>…</password>``, Jenkins ``<secret>{AQAAAB…}``
    (also across lines), and ``<add key="Password" value="…"/>`` / ``<entry name="xToken"
    value="…"/>``: the element's text or the ``value`` attribute, when the element or key name
    says the whole value is a secret (as a JSON key would, ``_field_kind``)."""
    from trace_ingest.scrub_rules import _field_kind  # defined below; resolved at call time

    if "</" in text and _xml_secret_names(text):
        kinds = _XML_KINDS
        for m in _XML_CLOSE().finditer(text):
            name = m.group(1)
            if _xml_kind(kinds, name) != 2:
                continue
            lo = max(0, m.start() - _XML_WINDOW)
            op = text.rfind("<" + name, lo, m.start())
            if op < 0:
                continue
            gt = text.find(">", op, m.start())
            if gt < 0 or text[gt - 1] == "/":
                continue
            inner = text[gt + 1 : m.start()]
            if "<" in inner:
                continue  # nested elements: not a text value
            value = inner.strip()
            if _xml_secret(name, value):
                start = gt + 1 + inner.find(value)
                yield start, start + len(value)
    if "value" in low:
        for m in prefixed_finditer(_XML_ATTR, text):
            name = m.group(1) or m.group(2)
            if _field_kind(name) != 2:
                continue
            at = 3 if m.group(3) is not None else 4
            if _xml_secret(name, m.group(at)):
                yield m.span(at)
    if "</" in text:
        yield from _xml_named_text(text)


def _xml_named_text(text: str) -> Iterator[Span]:
    """The text of an element whose ``name``/``key`` attribute names a secret (``_XML_NAMED``):
    the attribute must be its opening tag's, and the element (or a ``<value>`` inside it) must
    close right after the text."""
    from trace_ingest.scrub_rules import _field_kind  # defined below; resolved at call time

    for m in prefixed_finditer(_XML_NAMED, text):
        name = m.group(1) or m.group(2)
        if _field_kind(name) != 2:
            continue
        lt = text.rfind("<", max(0, m.start() - 256), m.start())
        if lt < 0 or ">" in text[lt : m.start()]:
            continue  # not an attribute of the tag that opens this text
        tag = text[lt + 1 : m.start()].split(None, 1)[0] if lt + 1 < m.start() else ""
        if m.group(4) not in (tag, "value"):
            continue
        start, end = m.span(3)
        while start < end and (text[start] in _XML_BLANK or text.startswith(_ESCAPES, start)):
            start += 1 if text[start] in _XML_BLANK else 2
        while end > start and (text[end - 1] in _XML_BLANK or text.endswith(_ESCAPES, 0, end)):
            end -= 1 if text[end - 1] in _XML_BLANK else 2
        if _xml_secret(name, text[start:end]):
            yield start, end


_ESCAPES = ("\\n", "\\r", "\\t")  # JSON escapes of the blanks around an element's text


def _xml_kind(kinds: dict[str, int], name: str) -> int:
    """``_field_kind`` of an element name's last part; element names repeat (``</p>``,
    ``</code>`` all through HTML docs), so each is worked out once (``kinds``)."""
    kind = kinds.get(name)
    if kind is None:
        if len(kinds) >= _XML_KINDS_MAX:
            kinds.clear()
        kind = kinds[name] = _field_kind(name.rsplit(":", 1)[-1])
    return kind


def _xml_secret_names(text: str) -> bool:
    """Whether a closing tag of ``text`` names a secret: ``findall`` gives the names of
    exactly the matches ``finditer`` gives, in C and without a match object each, so the
    closing tags of a document naming nothing secret (93,644 in botocore's HTML docs, none
    secret) cost no Python loop."""
    kinds = _XML_KINDS
    return any(_xml_kind(kinds, name) == 2 for name in set(_XML_CLOSE().findall(text)))


def helper_patterns() -> set[str]:
    """The patterns of every ``_Lazy`` regex of the scrubber's modules (the finders' and the
    engine's own: token runs, base64 runs): with the rules' patterns, every regex the
    scrubber compiles. For the generated index and the tests."""
    from trace_ingest import scrub, scrub_bulk, scrub_finders, scrub_values

    modules = (sys.modules[__name__], scrub_finders, scrub_values, scrub, scrub_bulk)
    return {v.pattern for m in modules for v in vars(m).values() if isinstance(v, _Lazy)}


def builtin_rules() -> list[Rule]:
    """The default rules, most specific first (the order breaks ties between overlaps)."""
    return [*_format_rules(), *vendor_rules(), *_context_rules()]


def lazy_builtin_rules() -> tuple[list[Rule | None], int]:
    """``builtin_rules()`` with the ``_VENDORS`` rules not made yet (None): they are
    ``vendor_rule(i - first)`` for the ``first`` returned. A hook runs a few of the 138, so it
    makes only those (docs/scrubbing.md, "What a hook call pays")."""
    head = _format_rules()
    lazy: list[Rule | None] = [*head]
    lazy += [None] * len(_VENDORS)
    lazy += _vendor_finder_rules()
    lazy += _context_rules()
    return lazy, len(head)


def _fmt(rule_id: str, keywords: tuple[str, ...], pattern: str, **kw: Any) -> Rule:
    """A known-format rule: shape filter only."""
    kw.setdefault("validate", _not_format_fake)
    rule = Rule(rule_id, keywords, pattern, **kw)
    rule.in_token = True
    return rule


def _format_rules() -> list[Rule]:
    """The known token formats before the vendor table."""
    ft = _fake_token
    fmt = _fmt
    rules = [
        Rule("private-key", ("-----begin",), finder=_pem_finder),
        fmt(
            "jwt",
            ("eyj",),
            # an unsigned JWT (``alg: none``) has an empty signature: header.claims.
            r"eyJ[A-Za-z0-9_-]{8,}+\.eyJ[A-Za-z0-9_-]{8,}+\.(?:[A-Za-z0-9_-]{8,}+)?+",
            anchor="eyJ",
            validate=lambda v: not ft(v),  # base64 of JSON: its bytes may repeat
        ),
        fmt(
            "github-token",
            ("gh",),
            # classic 36-character bodies; app installation tokens (ghs_) may be longer and
            # hold "_" (then they must look random, see _github_ok)
            r"(?:gh[pour]_[A-Za-z0-9]{36,255}+|ghs_[A-Za-z0-9_]{36,1024}+)",
            lb=True,
            rb=_WORD,
            validate=_github_ok,
        ),
        fmt("github-fine-grained", ("github_pat_",), r"github_pat_[A-Za-z0-9_]{60,}+", lb=True),
        fmt(
            "gitlab-token",
            ("gl",),
            r"gl(?:pat|dt|rt|ptt|cbt|oas|soat|ft|ffct|imt|agent)-[A-Za-z0-9_.-]{20,}+",
            lb=True,
        ),
        fmt(
            "aws-access-key-id",
            ("akia", "asia"),
            r"A[KS]IA[A-Z2-7]{16}+(?![A-Za-z0-9])",
            lb=True,
            glued=_always,  # upper case by format; the exact length and end bound it
            validate=lambda v: not _format_fake(v) and entropy(v) >= 3.0,
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
            ("sk",),
            r"sk-ant-[a-z]{2,6}\d{2}-[A-Za-z0-9_-]{20,}+",
            lb=True,
        ),
        fmt(
            "openai-key",
            ("sk",),
            r"sk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}+"
            r"|[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}(?![A-Za-z0-9]))",
            lb=True,
        ),
        Rule(
            "slack-token",
            ("xox", "xapp-"),
            # every Slack token format has a numeric field right after the prefix
            # (xoxb-<team>-<bot>-…, xoxe-1-…, xapp-1-A…-<n>-…): "hugs-xoxo-b.png" is no token
            r"(?:xox[abposre]|xapp)-[0-9]{1,16}+-[A-Za-z0-9][A-Za-z0-9-]{8,}+",
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
        fmt(
            "pypi-token",
            ("pypi-age",),
            # the macaroon's location: b"\x02\x01\x08pypi.org" / b"\x02\x01\x0dtest.pypi.org"
            r"pypi-AgE(?:IcHlwaS5vcmc|NdGVzdC5weXBpLm9yZw)[A-Za-z0-9_-]{50,}+",
        ),
        fmt(
            "huggingface-token",
            ("hf_",),
            r"hf_[A-Za-z0-9]{34}+",
            lb=True,
            rb=_WORD,
            validate=lambda v: not _format_fake(v) and _glued_ok(v),  # random: both cases
        ),
    ]
    for rule in rules:
        if rule.id == "slack-token":
            rule.in_token = True  # xoxb-… / xapp-…: one run of 16+ token characters
    return rules


def _context_rules() -> list[Rule]:
    """After the vendor table: pairs, grammar and context rules."""
    ft = _fake_token
    return [
        Rule("aws-secret-key", ("akia", "asia"), finder=_aws_pair_finder),
        Rule(
            "azure-key",
            ("account", "sharedaccess"),
            finder=_azure_finder,
            validate=lambda v: not ft(v),
        ),
        Rule("azure-sas", ("sharedaccess", "sig="), finder=_sas_finder),
        Rule(
            # the signature of a pre-signed URL (S3 SigV4 and V2, Google Cloud Storage V4,
            # CloudFront): whoever holds the URL has the object until it expires
            "signed-url-signature",
            ("signature=",),
            r"(?:[?&;]|\\u0026)(?:x-amz-|x-goog-)?signature=([a-z0-9%+/=_~-]{20,1024}+)",
            lower=True,
            group=1,
            # not the docs' ``X-Amz-Signature=EXAMPLE1234…`` (AWS CLI examples)
            validate=lambda v: _has_letter_and_digit(v) and not _fake_token(v),
        ),
        Rule(
            "url-credentials",
            ("://",),
            r"://[^\s:/?#@\"'\\<>\[\]]{0,256}+:([^\s/?@\"'\\<>]{1,256}+)@",
            group=1,
            validate=_url_password_ok,
        ),
        Rule(
            # a token as the URL's user, no password (``https://<token>@github.com/o/r.git``,
            # as ``git remote -v`` prints a cloned-with-token remote): random-looking only, so
            # ``git@``, ``john.doe@`` and Sentry's hex DSN keys are kept
            "url-credentials",
            ("://",),
            r"://([A-Za-z0-9_-]{20,256}+)@",
            group=1,
            validate=_url_user_token,
        ),
        Rule(
            "auth-header",
            ("auth", "bearer", "api-key", "subscription-key", "token"),
            finder=_auth_finder,
            min_entropy=3.0,
            validate=_auth_ok,
        ),
        Rule("cookie", ("cookie",), finder=_cookie_finder),
        Rule(
            # ``vault operator unseal <key>`` and ``vault operator init``'s ``Unseal Key 1:
            # <key>`` lines: a share of Vault's root key (base64, 44 characters for the
            # default 32 bytes; more with larger shares). Without a key argument the command
            # asks for it.
            "vault-unseal-key",
            ("unseal",),
            r"[Uu]nseal(?:[ \t]++[Kk]ey[ \t]*+[0-9]{0,2}+:|"
            r"(?:[ \t]++-{1,2}[a-z-]{1,32}+(?:=[^\s]{0,256}+)?)*+)[ \t]++(?:\\?[\"'])?"
            r"([A-Za-z0-9+/]{40,200}+={0,2}+)",
            group=1,
            terminated=True,
            validate=lambda v: _has_letter_and_digit(v) and not _fake_token(v),
        ),
        Rule(
            # libcurl's ``CURLOPT_USERPWD``/``CURLOPT_PROXYUSERPWD`` option (PHP's
            # ``curl_setopt($ch, CURLOPT_USERPWD, "user:pass")``, pycurl's
            # ``c.setopt(pycurl.USERPWD, "user:pass")``): the password after the ``:``
            "cli-secret-flag",
            ("userpwd",),
            r"userpwd[ \t]*+,[ \t]*+\\?[\"'][^\s\"'\\:]{0,128}+:([^\s\"'\\]{1,256}+)\\?[\"']",
            lower=True,
            group=1,
            validate=lambda v: len(v) >= 4 and _url_password_ok(v),
        ),
        Rule(
            "netrc-password",
            ("machine",),
            r"machine[ \t]++\S++[ \t\r\n]++login[ \t]++\S++[ \t\r\n]++password[ \t]++(\S++)",
            lower=True,
            group=1,
            validate=lambda v: not _placeholder(v, identifiers=False),
        ),
        Rule(
            "conn-string-password",
            ("pass", "pwd"),
            finder=_conn_finder,
        ),
        Rule(
            "cli-secret-flag",
            ("--",),
            finder=_cli_finder,
        ),
        Rule("cli-secret-flag", _DASH_WORDS, finder=_dash_flag_finder),
        # ``-a`` only before what the pattern takes after it: a bare ``-a`` is in every
        # ``x-amz-…``, ``meta-analysis`` and ``ls -al``, and would run the finder on them.
        # Not ``-a<tab>``: a keyword with a character JSON escapes turns off the import
        # path's flagging from an event's JSON text (``scrub_bulk``, ``_loads``)
        Rule("cli-secret-flag", ("-u", "-a ", "-a=", "--auth"), finder=_curl_user_finder),
        Rule("cli-secret-flag", _CLI_TOOLS, finder=_cli_short_finder),
        Rule("cli-secret-flag", _CLI_ARG_TOOLS, finder=_cli_args_finder),
        Rule("cli-secret-flag", _SECRET_COMMAND_KEYS, finder=_secret_command_finder),
        Rule("sql-password", ("password", "identified"), finder=_sql_password_finder),
        Rule("credential-call", _CREDENTIAL_KEYS, finder=_credential_call_finder),
        Rule("credential-call", ("convertto-securestring",), finder=_secure_string_finder),
        Rule("credential-call", _BASIC_PAIR_KEYS, finder=_basic_pair_finder),
        Rule("conn-string-password", _PGPASS_KEYS, finder=_pgpass_finder),
        Rule(
            "npmrc-auth",
            # npm's per-registry keys are ``//<registry path>/:_authToken`` (the ``/`` is part
            # of the format); the legacy global ``_auth`` starts its line
            ("/:_auth", "/:_password", "_auth="),
            r"(?:/:_(?:authtoken|auth|password)(?:[ \t]*+=[ \t]*+|[ \t]++)|(?<!\S)_auth=)"
            r"[\"']?([^\s\"'`;|&]{8,}+)",
            lower=True,
            group=1,
            validate=lambda v: not _placeholder(v, identifiers=False),
        ),
        Rule("secret-field", ("</", "value="), finder=_xml_finder),
        Rule("secret-field", ("value",), finder=_name_value_finder),
        Rule(
            "dotenv-secret",
            ("key", "token", "secret", "pass", "pwd", "credential", "auth"),
            finder=_dotenv_finder,
        ),
        Rule(
            "quoted-password",
            ("pass", "pwd", "secret"),
            finder=_quoted_password_finder,
        ),
        Rule(
            "generic-assignment",
            ("key", "token", "secret", "pass", "pwd", "credential", "auth", "salt"),
            finder=_generic_finder,
        ),
    ]


# the keywords of ``scrub_finders._credential_call_finder``: the callee names' ends with
# their ``(``, and the auth tuples
_CREDENTIAL_KEYS = (
    "basicauth(", "digestauth(", "proxyauth(", "plaincredentials(", "userpassword(",
    "ssh.password(", "networkcredential(", "passwordcredential", "passwordauthentication(",
    "simple_bind", "login(", "directoryentry(", "getconnection(", "pdo(", "mysqli(",
    "mysqli_connect(", "mysql_connect(", "auth=(", "auth = (", "credentials.basic(",
    "ftp(", "ftp_tls(", "basic_auth(", "basic_auth ",
)  # fmt: skip

# the keywords of ``scrub_finders._pgpass_finder``: PostgreSQL's default port and a wildcard
# field of a ``.pgpass`` line, and the file's names (any port then; not ``PGPASSWORD``)
_PGPASS_KEYS = (":5432:", ":*:", ".pgpass", "pgpass.conf")

# the keywords of ``scrub_finders._basic_pair_finder``: the calls that base64-encode a
# ``user:password`` literal for Basic auth, and the shell's pipe into ``base64``
_BASIC_PAIR_KEYS = ("btoa(", "b64encode(", "base64_encode(", "encode64(", "tobase64string(",
                    "encodetostring(", "buffer.from(", "| base64", "|base64")  # fmt: skip

# the keywords of ``scrub_finders._secret_command_finder``: the commands it reads, as typed
# (``scrub_finders._SECRET_COMMANDS``; test_secret_command_keywords_are_its_commands)
_SECRET_COMMAND_KEYS = (
    "cargo login", "ngrok authtoken", "ngrok config add-authtoken", "wandb login",
    "doppler secrets set", "dotnet user-secrets set", "netlify env:set", "git config",
    "npm config set", "yarn config set", "poetry config", "wrangler secret put",
    "vercel env add", "gcloud secrets create", "gcloud secrets versions add",
    "docker secret create", "gh auth login", "firebase functions:secrets:set", "vault login",
    "snyk auth", "rclone obscure", "neo4j-admin set-initial-password",
    "neo4j-admin dbms set-initial-password", "rabbitmqctl add_user",
    "rabbitmqctl change_password", "mc alias set", "mc config host add", "glab variable set",
    "heroku config:set", "fly secrets set", "flyctl secrets set", "chpasswd", "sqlplus",
    "expdp", "impdp", "ssh-keygen", "sqlcmd", "doctl", "vsce", "ovsx", "netlify", "codecov",
    "codecovcli", "oc login", "poetry publish", "hatch publish", "cqlsh", "cypher-shell",
    "ldapsearch", "ldapadd", "ldapmodify", "ldapdelete", "ldapwhoami", "ldapcompare",
    "ldapmodrdn", "ldapexop", "ldappasswd", "useradd", "usermod", "az keyvault secret set",
    "unrar", "lftp",
)  # fmt: skip

# 7-Zip's command line is ``7z <command> [<switches>…]``: its keywords are the commands that
# read an archive's password (add, extract, update, test, list), and a switch written first.
# Not a bare ``7z ``: every log line stamped at a second ending in 7 holds one
# (``10:00:07Z INFO``), and would load the finder's module into a hook call for nothing.
_7Z_KEYS = ("7z a ", "7z e ", "7z x ", "7z u ", "7z t ", "7z l ", "7z -p")
# the keywords of ``scrub_finders._cli_short_finder``: the tools whose short flags it reads
# (``zip `` with the blank its command needs: a bare ``7z`` or ``zip`` turns up in random ids)
_CLI_TOOLS = (
    "mysql", "mariadb", "login", "mongo", "twine", "sshpass", "redis-cli", "keytool",
    "password-stdin", "psexec", "zip ", *_7Z_KEYS, "7za ", "7zz ", "smbclient", "rpcclient",
    "smbget", "smbcacls", "openssl", "sudo", "add-generic-password", "add-internet-password",
)  # fmt: skip

# the keywords of ``scrub_finders._cli_args_finder``: the commands whose arguments it reads
# (Windows ``net use`` among them), and the Windows password flags (``/p <password>``
# after ``/u <user>``: ``_SLASH_PASSWORDS``)
_CLI_ARG_TOOLS = ("secret set", "variable set", "configure", "htpasswd", "/p ", "/p:", "/rp ",
                  "/rp:", "/password:", "net use", "securestring")  # fmt: skip

_CONN = _Lazy(r"(?:password|pwd)[ \t]*+=[ \t]*+([^;\s\"'&,(){}<>\[\]]{4,}+)")


def _conn_finder(text: str, low: str) -> Iterator[Span]:
    """ADO/ODBC ``Password=…;`` and ``Pwd=…``; plain words only in ``;``-separated strings."""
    subject = low if len(low) == len(text) else _lower_same_length(text)
    for m in prefixed_finditer(_CONN, subject):
        start, end = m.span(1)
        value = text[start:end]
        if value.lower() in ("none", "null", "self", "kwargs") or value.startswith("$"):
            continue
        before = text[max(0, m.start() - 2) : m.start()]
        ado = any(c in before for c in ";&?") and (end == len(text) or text[end] in ";&\"'\r\n")
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
# name segments of pagination, counters, limits and references (see ``_GEN_EXCLUDE``); ``id``
# not right before ``token`` (an OpenID ``id_token`` is a secret), ``next`` not before
# ``public`` (Next.js ``NEXT_PUBLIC_*`` names are keys)
_FIELD_EXCLUDE = frozenset((
    "next", "page", "pages", "paging", "continuation", "max", "maximum", "count", "counts",
    "counter", "num", "nums", "number", "numbers", "limit", "limits", "type", "types", "usage",
    "ttl", "length", "lengths", "file", "files", "path", "paths", "url", "urls", "name", "names",
    "env", "envs", "envvar", "cache", "cached", "policy", "policies", "mode", "modes", "format",
    "formats", "id", "header", "headers", "field", "fields", "param", "params", "parameter",
    "parameters", "hint", "hints",
))  # fmt: skip
_EXCLUDE_ALL = _FIELD_EXCLUDE | _GEN_EXCLUDE
_PW_EXCLUDE = _EXCLUDE_ALL | _ABOUT_PASSWORD
# a substring of every exclusion word, stem, infix and soft word above: a lower-cased name
# holding none of these has no exclusion word, and is not split into words at all
# (test_exclusion_hints_cover_every_word)
_EXCLUDE_HINTS = (
    "id", "name", "type", "next", "page", "max", "count", "num", "env", "path", "file", "url",
    "hash", "arn", "time", "date", "input", "output", "prompt", "total", "budget", "cache",
    "limit", "usage", "expir", "ttl", "length", "policy", "policies", "mode", "format",
    "header", "field", "param", "hint", "continuation", "paging", "paginat", "sha1", "sha256",
    "sha512", "md5", "digest", "checksum", "etag", "fingerprint", "change", "marker",
    "sequence", "kind", "scope", "version", "prefix", "suffix", "source", "cursor",
    "clienttoken", "requesttoken", "last", "used", "vault", "reset", "manager", "required",
    "strength", "rotation", "salt", "label", "placeholder", "title", "text", "message", "msg",
    "error", "help", "description", "selector", "button", "form", "link", "route", "region",
    "public", "publish", "site", "gpg", "pgp",
)  # fmt: skip
_KEY_HINTS = ("key", "token", "secret", "passw", "pwd", "credential", "auth", "cookie",
              "passphrase")  # fmt: skip
# what the bulk prefilter flags as a key that ``_field_kind`` may give a kind: the hints and
# ``pass`` (``REDIS_PASS``, ``_pass_name``)
_FLAG_HINTS = (*_KEY_HINTS, "pass")


def _field_kind(key: str) -> int:
    """0: ordinary key; 1: key worth scanning with its value; 2: value is wholly a secret;
    3: a secret key with an identifier suffix (``SecretArn``, ``passwordRef``, ``key_hash``)
    or a soft exclusion word (``VAULT_TOKEN``), whose value counts only when it does not
    have that shape (``_value_kind``). The exclusions are judged on the name's words
    (``_excluded_part``), so the key is taken as written: its case marks them."""
    low = key.lower()
    if not any(h in low for h in _KEY_HINTS) and not _pass_name(key):
        return 0
    if "::" in key:
        return 0  # AWS::MSK::BatchScramSecret: a type name, as in text (_generic_finder)
    name = key.strip("_- \"'")
    excluded, stem = _suffix_exclusion(name, _field_excluded)
    if not excluded:
        return 2 if _secret_field_name(name) else 1  # apiTokenAlg: no exclusion to narrow
    if excluded == "*":
        return 0  # next_token, max_tokens, ChangeToken, key_hash_algorithm, next_token_id
    # credentialsId, SecretArn, passwordRef, tokenUri, key_hash, VAULT_TOKEN: when the value fits
    return 3 if any(h in stem.lower() for h in _KEY_HINTS) or _pass_name(stem) else 0


def _pass_name(name: str) -> bool:
    """A name whose last word is ``pass`` (``pass``, ``REDIS_PASS``, ``rabbitmq-default-pass``,
    ``redisPass``): a password's name; not ``bypass`` or ``compass``."""
    if not name.lower().endswith("pass"):
        return False
    if len(name) == 4 or name[-5] in "_-. ":
        return True
    return name[-4] == "P" and (name[-5].islower() or name[-5].isdigit())


def _secret_field_name(name: str) -> bool:
    """A name whose value is wholly a secret (``_FIELD_SUFFIXES``, a final ``pass``)."""
    return name.lower().replace("-", "_").endswith(_FIELD_SUFFIXES) or _pass_name(name)


def _field_excluded(name: str) -> str:
    """``_excluded_part`` for a field's name, or ``"*"`` when it ends in an identifier word
    (``_ID_ENDS``)."""
    if name.lower().endswith(_ID_ENDS):
        return "*"
    return _excluded_part(name)
