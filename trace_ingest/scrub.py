"""The scrubber: removes secrets from every value before anything reaches disk.

Hot-path safe: standard library only. ``re`` is imported, and rules compiled, only on the
first keyword hit; JSON goes through ``trace_ingest.fastjson``; the fingerprint key is read only
when a redaction actually happens. Design and measurements: ``docs/scrubbing.md``.

CONTRACT (used by the hook, importers, error log and ``trail scrub``):

    scrubber = load_scrubber(home)                 # reads home/config.json "scrub" section
    clean, counts = scrubber.scrub_value(obj)      # any JSON value -> same shape, redacted
    clean_text, counts = scrubber.scrub_text(s)    # one string

``counts`` maps rule id -> number of redactions. Redactions look like
``[REDACTED:<rule>:<fingerprint>]``. Scrubbing twice changes nothing.

How a string is scanned:

1. lowercase a copy once; each rule names lowercase keywords that are literal substrings of
   every match, and a rule runs only when one of its keywords occurs (``k in low``);
2. the rule's regex is compiled on that first hit; patterns start with a literal so ``sre``'s
   literal-prefix search applies, use possessive quantifiers so nothing backtracks, and check
   left boundaries and terminators in Python rather than with look-behinds;
3. candidate spans go through the rule's filters (shape, entropy gate for context rules,
   placeholders, allow-list); spans overlapping an existing ``[REDACTED:...]`` tag are dropped,
   overlapping spans are merged, and each span is replaced by a tag whose fingerprint is a
   keyed BLAKE2b of the normalized secret.

JSON values are scanned as decoded string leaves (dict keys too). A string that itself holds a
JSON object or array is decoded, scrubbed and re-encoded (only when something was redacted). A
string value under a secret-looking key (``"password": ...``) is scanned together with its key.
"""

from __future__ import annotations

import sys as _sys

from trace_ingest import _os as os  # os without its import cost (see _os)
from trace_ingest import _regex, fastjson
from trace_ingest.errors import ConfigError, ScrubError
from trace_ingest.scrub_index import (
    KW_ALWAYS,
    KW_FULL,
    KW_TOKEN,
    PREFIX_WORDS,
    RULE_KEYS,
    TRIES,
)
from trace_ingest.scrub_rules import (
    _HEX_CHARS,
    _ID_RULE,
    _PCT,
    _VENDORS,
    ABSENT,
    KEY_BYTES,
    MIN_SCAN,
    PII_CATEGORIES,
    TAG_RE,
    WORDS_AT,
    AbsentOf,
    Rule,
    _blake2b,
    _field_kind,
    _Lazy,
    _lower_same_length,
    bisect_right,
    builtin_rules,
    lazy_builtin_rules,
    pii_rules,
    vendor_rule,
)

TYPE_CHECKING = False  # typing costs ~5 ms to import; annotations are strings here
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator
    from typing import Any

    Finder = Callable[[str, str], Iterator["Span"]]
    KeywordTable = tuple[tuple[str, tuple[int, ...]], ...]

Span = tuple[int, int]

# JSON held in a string is decoded and scrubbed as JSON only within these bounds (as the
# hook bounds payloads); past them it is scanned as text, which the rules handle as well.
NESTED_MAX_DEPTH = fastjson.MAX_DEPTH
NESTED_MAX_ELEMENTS = fastjson.MAX_ELEMENTS
# Bulk scrubbing remembers verdicts on short strings (keys, ids, type names repeat from event
# to event): at most MEMO_ENTRIES strings of at most MEMO_CHARS characters per memo (~2 MB).
MEMO_ENTRIES = 16384
MEMO_CHARS = 128


# ----------------------------------------------------------------------------- the scrubber


class Scrubber:
    """Redacts secrets; see the module docstring for the contract."""

    # Bulk scrubbing (import, sync, ``trail scrub``: ``scrub_bulk.BulkScrubber``) may find
    # keywords with one hyperscan or Aho-Corasick pass instead of one ``in`` test per
    # keyword (docs/scrubbing.md, "Prefilter engine"). The hook never loads that module nor
    # hyperscan (~20 ms to import); it builds its own pyahocorasick automaton only once a
    # call has scanned enough long text to pay for it (``_long_words``).
    _automaton: Any = None
    _hs: Any = None
    _hs_rules: tuple[tuple[int, ...], ...] = ()
    _hs_words: tuple[str, ...] = ()  # the keyword of each _hs_rules entry
    _hs_every: frozenset[str] = frozenset()

    def __init__(
        self,
        home: str,
        extra_rules: list[Rule] | None = None,
        allow: frozenset[str] = frozenset(),
        pii: tuple[str, ...] = (),
    ) -> None:
        self.home = home
        self._key: bytes | None = None
        # The regex program cache is authenticated with this install's key (see _regex).
        _regex.use_cache(home, self._load_key)
        self.allow = allow
        self.pii = pii
        # The rules, by index; None for a vendor rule not made yet (``_rule``). With the
        # built-in rules alone (the usual hook), the keyword tables come from ``scrub_index``
        # and a vendor rule is made on its first keyword hit: a hook runs a few of them,
        # making all the built-in rules and their tables cost a fresh process ~0.4 ms
        # (176 rules when measured, 2026-12-01).
        self._table: list[Rule | None]
        self._first_vendor = -1
        lazy = None if extra_rules or pii else _lazy_tables()
        if lazy is not None:
            self._table, self._first_vendor = lazy
            self._keywords: tuple[tuple[str, tuple[int, ...]], ...] = KW_FULL + KW_TOKEN
            self._kw_full = KW_FULL
            self._kw_token = KW_TOKEN
            self._always: tuple[int, ...] = KW_ALWAYS
        else:
            rules: list[Rule] = builtin_rules()
            if extra_rules:
                # after the known formats, before the context rules
                cut = next(i for i, r in enumerate(rules) if r.id == "url-credentials")
                rules[cut:cut] = extra_rules
            rules.extend(pii_rules(pii))
            self._table = [*rules]
            self._keywords, self._kw_full, self._kw_token, self._always = keyword_tables(rules)
        rules_of = dict(self._keywords)
        rules_of.pop("", None)
        # ... and, in place of one ``in`` test per keyword, one pass of a keyword trie where
        # that is cheaper (``_trie_hits``): built on first use, from ``scrub_index`` for the
        # built-in keyword sets.
        self._kw_rules: dict[str, tuple[int, ...]] = rules_of
        self._tries: tuple[_Lazy, _Lazy, dict[str, tuple[str, ...]]] | None = None
        self._kw_token_set = frozenset(k for k, _ in self._kw_token)
        self._words: Any = None  # _long_words' automaton: None not built yet, False missing
        self._long_seen = 0  # characters of long strings (TOKEN_RUNS_FROM+) scanned so far
        self._hs_long: Any = None  # _long_db's database: None not built yet, False missing
        self._kinds: dict[str, int] = {}  # _field_kind by key (keys repeat from event to event)

    @property
    def rules(self) -> list[Rule]:
        """Every rule, by index (the vendor rules not made yet are made now)."""
        return [self._rule(i) for i in range(len(self._table))]

    def _rule(self, i: int) -> Rule:
        """Rule ``i``, made now if it was not yet (a vendor rule of the lazy table)."""
        rule = self._table[i]
        if rule is None:
            rule = self._table[i] = vendor_rule(i - self._first_vendor)
        return rule

    # -- key and fingerprint

    def _load_key(self) -> bytes:
        if self._key is None:
            self._key = load_or_create_key(self.home)
        return self._key

    def key_id(self) -> str:
        """A short public id of the fingerprint key (fingerprints compare only within one id)."""
        return _blake2b(self._load_key(), b"", 4, b"trail-kid")

    def fingerprint(self, secret: str) -> str:
        """12 hex characters of a keyed BLAKE2b of ``secret``."""
        data = secret.encode("utf-8", "surrogatepass")
        return _blake2b(data, self._load_key(), 6)

    # -- scanning

    def find(self, text: str, depth: int = 0) -> list[tuple[int, int, str]]:
        """Spans to redact in ``text``: sorted, non-overlapping ``(start, end, rule_id)``.

        Encoded forms are rescanned (``decoded_spans``): base64 runs that decode to text,
        percent-encoded and ``\\uXXXX``-escaped runs; ``depth`` bounds the nesting."""
        if len(text) < MIN_SCAN:
            return []
        spans = self._find(text)
        if depth < 2 and len(text) >= 16:
            enc = decoded_spans(self, text, depth, spans)
            if enc:
                spans = _union(spans, enc)
        return spans

    def _find(self, text: str) -> list[tuple[int, int, str]]:
        low = text.lower()
        if len(low) != len(text):
            # U+0130 lowers to two characters: the rules read offsets of ``low`` as offsets
            # of ``text``, so lower it one character per character (as ``re``'s IGNORECASE
            # does: İ matches i)
            low = _lower_same_length(text)
        hit = self._prefilter(low)
        if not hit:
            ABSENT[0] = None
            return []
        cands: list[tuple[int, int, int]] = []
        table = self._table
        ids: dict[int, str] = {}
        allow = self.allow
        for i in sorted(hit):
            rule = table[i] or self._rule(i)
            ids[i] = rule.id
            for start, end in rule.spans(text, low):
                if end <= start:
                    continue
                value = text[start:end]
                if value in allow or not rule.accept(value):
                    continue
                cands.append((start, end, i))
        ABSENT[0] = WORDS_AT[0] = None  # no string kept alive past its scan
        if cands and "[redacted:" in low:
            tags = [m.span() for m in TAG_RE().finditer(text)]
            if tags:
                cands = [c for c in cands if not any(c[0] < e and s < c[1] for s, e in tags)]
        if not cands:
            return []
        cands.sort()
        out: list[tuple[int, int, str]] = []
        cur_s, cur_e, cur_i = cands[0]
        for s, e, i in cands[1:]:
            if s < cur_e:
                cur_e = max(cur_e, e)
                cur_i = min(cur_i, i)
            else:
                out.append((cur_s, cur_e, ids[cur_i]))
                cur_s, cur_e, cur_i = s, e, i
        out.append((cur_s, cur_e, ids[cur_i]))
        return _repeats(text, out)

    def _prefilter(self, low: str) -> set[int]:
        """The indexes of the rules whose keywords occur in ``low`` (the lowered text), with
        the rules that run everywhere; sets ``ABSENT`` for the context finders where the
        pass knows which keywords are absent."""
        hit: set[int] = set()
        if self._automaton is not None:
            hit.update(self._always)
            found = self._hs_hits(low) if self._hs is not None else None
            if found is None:
                found = [k for _, k in self._automaton.iter(low)]
            rules_of = self._hs_rules
            for k in found:
                hit.update(rules_of[k])
            # the keywords not found are absent: the context finders skip their key words
            words = self._hs_words
            ABSENT[0] = (low, AbsentOf(self._hs_every, {words[k] for k in found}))
            return hit
        n = len(low)
        if n >= TOKEN_RUNS_FROM:
            self._long_seen += n  # what the long-text engines' thresholds count
            present = None
            long_db = self._long_db()
            if long_db is not None:
                present = self._hs_present(long_db, low)
            if present is None and (words := self._long_words()) is not None:
                present = self._present(words, low)
            if present is not None:
                # one hyperscan or Aho-Corasick pass finds every keyword present
                # (docs/scrubbing.md, "Prefilter engine"); the rest are absent, which the
                # finders use
                rules = self._kw_rules
                hit.update(self._always)
                for kw in present:
                    hit.update(rules[kw])
                ABSENT[0] = (low, rules.keys() - present)
                return hit
        tries = self._tries or self._build_tries()
        short = n < TOKEN_RUNS_FROM
        trie = tries[0] if short else tries[1]
        # No regex used yet in this process (not ready): the ``in`` tests give the same
        # rules without reading the key and the regex cache (or importing ``re``) for it.
        ready = trie.ready()
        if short and ready:
            # every keyword at once: one trie pass beats ~180 ``in`` calls on short text
            hit.update(self._always)
            self._trie_hits(trie, tries[2], low, hit)
            return hit
        # long text without the automaton: the ``in`` test is the cheaper pass per character
        # for the few dozen keywords of context rules; the token-format keywords (over a
        # hundred) are looked for in the token runs only, by one trie pass when it is ready
        absent: set[str] = set()
        for kw, idxs in self._kw_full:
            if kw in low:
                hit.update(idxs)
            else:
                absent.add(kw)
        # the context finders' key words are among these keywords: a finder skips those
        # known absent instead of searching the whole string again for each (one reference
        # stored: atomic, so another thread's scan never pairs its string with these keywords)
        ABSENT[0] = (low, absent)
        runs = low if short or not self._kw_token else _token_runs(low)
        if not ready:
            for kw, idxs in self._kw_token:
                if kw in runs:
                    hit.update(idxs)
        elif self._kw_token:
            self._trie_hits(trie, tries[2], runs, hit)
        return hit

    def _present(self, words: Any, low: str) -> set[str]:
        """The keywords of the automaton ``words`` that occur in ``low``; a token-only
        keyword counts only inside a token run, as on the ``in`` path (``_token_runs``),
        so the automaton runs exactly the rules the ``in`` tests would."""
        present: set[str] = set()
        token_only = self._kw_token_set
        probe = b""
        plain = True
        for end, k in words.iter(low):
            if k in present:
                continue
            if k in token_only:
                if not probe:
                    probe = low.encode("ascii", "replace").translate(_TOKEN_TABLE)
                    plain = low.isascii()
                if not _in_token_run(low, probe, end + 1 - len(k), end + 1, plain):
                    continue
            present.add(k)
        return present

    def _hs_present(self, long_db: tuple[Any, tuple[str, ...]], low: str) -> set[str] | None:
        """``_present``'s answer from one hyperscan scan (``_long_db``), or None when it could
        not scan (its scratch in use by another thread): then the automaton runs. Each
        keyword is reported once, at its first occurrence; a token-only keyword whose first
        occurrence lies outside every token run is looked for again further on."""
        db, words = long_db
        firsts: list[tuple[int, int]] = []
        # one "?" per non-ASCII character: byte offsets are character offsets (no keyword is
        # non-ASCII or holds "?", else ``_long_db`` is not built)
        data = low.encode("ascii", "replace")
        try:
            db.scan(data, match_event_handler=lambda k, a, b, f, c: firsts.append((k, b)))
        except Exception:
            return None
        present: set[str] = set()
        token_only = self._kw_token_set
        probe = b""
        plain = True
        for k, end in firsts:
            kw = words[k]
            if kw in token_only:
                if not probe:
                    probe = data.translate(_TOKEN_TABLE)
                    plain = low.isascii()
                i = end - len(kw)
                while i >= 0 and not _in_token_run(low, probe, i, i + len(kw), plain):
                    i = low.find(kw, i + 1)
                if i < 0:
                    continue
            present.add(kw)
        return present

    def _long_db(self) -> tuple[Any, tuple[str, ...]] | None:
        """A hyperscan database over the keywords (with the keyword of each id), once this
        process has scanned ``HYPERSCAN_FROM`` characters of long text: a long-lived
        process (``trail collect``, a test run), never one ordinary hook call. Its import
        and compile (~15 ms) then cost less than the Aho-Corasick passes it replaces (a
        10 KB string: ~140 µs against ~8). None before that, where hyperscan is missing
        (the automaton runs, same keywords), and when a keyword is not ASCII or holds
        ``?`` (a configured pattern's)."""
        built = self._hs_long
        if built is None:
            if self._long_seen < HYPERSCAN_FROM:
                return None
            words = tuple(self._kw_rules)
            db = None
            if all(k.isascii() and "?" not in k for k in words):
                from trace_ingest.scrub_bulk import _hs_database

                db = _hs_database(list(words), single=True)
            built = self._hs_long = (db, words) if db is not None else False
        return built or None

    def _long_words(self) -> Any:
        """The hook's keyword automaton (pyahocorasick, each keyword its own value), once
        the long text scanned in this process reaches ``AUTOMATON_FROM`` characters: its
        import and build (~0.5 ms) then cost less than the ``in`` tests they replace. None
        before that, and where the package is missing (the ``in`` tests give the same)."""
        words = self._words
        if words is None:
            if self._long_seen < AUTOMATON_FROM:
                return None
            words = self._words = keyword_automaton((k, k) for k in self._kw_rules) or False
        return words or None

    def _build_tries(self) -> tuple[_Lazy, _Lazy, dict[str, tuple[str, ...]]]:
        """The hook prefilter's keyword tries (every keyword; the token-only ones) and the
        keywords that are prefixes of each keyword; from ``scrub_index`` when the keyword
        sets are the built-in ones (building them costs a fresh hook process ~0.3 ms)."""
        every = tuple(sorted(self._kw_rules))
        token = tuple(sorted(k for k, _ in self._kw_token))
        pre = PREFIX_WORDS.get(every)
        self._tries = (
            _Lazy(TRIES.get(every) or keyword_trie(every)),
            _Lazy(TRIES.get(token) or keyword_trie(token)),
            pre if pre is not None else prefix_words(every),
        )
        return self._tries

    def _trie_hits(
        self, trie: _Lazy, pre: dict[str, tuple[str, ...]], text: str, hit: set[int]
    ) -> None:
        """Add to ``hit`` the rules of every keyword of ``trie`` that occurs in ``text``.

        ``findall`` of the trie (``keyword_trie``) gives, at every position where a keyword
        starts, the longest one starting there; every other keyword starting there is one
        of its prefixes (``pre``). So the keywords found are exactly those ``k in text``
        finds. Long text goes in chunks (each seen up to the longest keyword past its end),
        so a text of one keyword repeated never builds a list of a million matches."""
        rules = self._kw_rules
        rx = trie()
        n = len(text)
        found: set[str] = set()
        if n <= _TRIE_CHUNK:
            found.update(rx.findall(text))
        else:
            reach = max(map(len, rules)) if rules else 0
            for pos in range(0, n, _TRIE_CHUNK):
                found.update(rx.findall(text, pos, pos + _TRIE_CHUNK + reach))
        for k in found:
            hit.update(rules[k])
            for shorter in pre.get(k, ()):
                hit.update(rules[shorter])

    def scrub_text(self, text: str) -> tuple[str, dict[str, int]]:
        """Redact one string; returns the clean string and counts by rule."""
        try:
            spans = self.find(text)
            if not spans:
                return text, {}
            return self._apply(text, spans)
        except ScrubError:
            raise
        except Exception as exc:  # fail closed: the caller writes a stub, never the raw value
            raise ScrubError(f"scrubbing failed: {type(exc).__name__}: {exc}") from exc

    def _apply(self, text: str, spans: list[tuple[int, int, str]]) -> tuple[str, dict[str, int]]:
        parts: list[str] = []
        counts: dict[str, int] = {}
        tags: dict[tuple[str, str], str] = {}  # a value repeated is fingerprinted once
        pos = 0
        for start, end, rule_id in spans:
            parts.append(text[pos:start])
            secret = text[start:end]
            tag = tags.get((rule_id, secret))
            if tag is None:
                fp = self.fingerprint(normalize_secret(rule_id, secret))
                tag = tags[(rule_id, secret)] = f"[REDACTED:{rule_id}:{fp}]"
            parts.append(tag)
            counts[rule_id] = counts.get(rule_id, 0) + 1
            pos = end
        parts.append(text[pos:])
        return "".join(parts), counts

    def scrub_value(self, value: Any) -> tuple[Any, dict[str, int]]:
        """Redact any JSON value (same shape back); dict keys are scanned too.

        The result may be ``value`` itself when nothing was redacted: callers must not
        mutate it in place expecting the input to stay as it was."""
        counts: dict[str, int] = {}
        try:
            clean = self._walk(value, counts)
        except ScrubError:
            raise
        except Exception as exc:
            raise ScrubError(f"scrubbing failed: {type(exc).__name__}: {exc}") from exc
        return clean, counts

    def scrub_event(self, body: dict[str, Any], text: bytes) -> tuple[Any, dict[str, int]]:
        """Redact one event's body (its fields but ``v`` and ``id``), for the importers:
        ``(None, {})`` when nothing in it is to be redacted, else ``(clean body, counts)``.

        ``text`` is ``body`` serialized as compact JSON (orjson); this scrubber walks
        ``body`` and ignores it, ``BulkScrubber`` may flag from it alone."""
        clean, counts = self.scrub_value(body)
        return (clean, counts) if counts else (None, {})

    def _walk(self, value: Any, counts: dict[str, int]) -> Any:
        """``value`` scrubbed, its redactions added to ``counts`` (``scrub_value``'s work)."""
        return self._value(value, counts)

    def _value(
        self,
        value: Any,
        counts: dict[str, int],
        pre: dict[str, tuple[str, dict[str, int]]] | None = None,
    ) -> Any:
        """``value`` scrubbed. With ``pre`` (``_value_bulk``), the strings of this structure
        (keys and values, not the strings inside JSON held in one) that are not in ``pre``
        are known clean and kept as they are, and those in it have their scan done already;
        values under secret-looking keys always get ``_keyed``'s scan."""
        if isinstance(value, str):
            if pre is None:
                return self._string(value, counts)
            done = pre.get(value)
            if done is None:
                return value
            _merge(counts, done[1])
            return done[0]
        if isinstance(value, dict):
            out: dict[Any, Any] = {}
            pair = self._pair(value) if len(value) <= PAIR_KEYS else None
            for k, v in value.items():
                if pair is not None and k == pair[0] and isinstance(v, str):
                    out[k] = self._keyed(pair[1], v, pair[2], counts)
                    continue
                if not isinstance(k, str):
                    key = k
                elif pre is None or k.lstrip()[:1] in ("{", "["):
                    key = self._string(k, counts, decode=False) if pre is None or k in pre else k
                else:
                    key = self._value(k, counts, pre)  # a key is scanned as text: as a value
                if isinstance(v, str) and isinstance(k, str) and len(v) >= 4:
                    kind = self._kind(k)
                    if kind:
                        out[key] = self._keyed(k, v, kind, counts)
                        continue
                out[key] = self._value(v, counts, pre)
            return out
        if isinstance(value, list):
            return [self._value(v, counts, pre) for v in value]
        if isinstance(value, tuple):
            return tuple(self._value(v, counts, pre) for v in value)
        if value is None or isinstance(value, (bool, int, float)):
            return value
        if isinstance(value, (bytes, bytearray)):
            return self._string(bytes(value).decode("utf-8", "replace"), counts)
        return self._string(str(value), counts)

    def _pair(self, d: dict[Any, Any]) -> tuple[str, str, int] | None:
        """``(value key, name, _field_kind of the name)`` of a name/value pair whose name
        says its value is a secret: a Kubernetes or ECS ``env`` entry (``{"name": "API_TOKEN",
        "value": …}``), a HAR header, an SSM parameter (``"Name": "/prod/db/password"``, its
        last path part judged); else None."""
        for vk in ("value", "Value"):
            if isinstance(d.get(vk), str):
                break
        else:
            return None
        for nk in ("name", "Name", "key", "Key"):
            name = d.get(nk)
            if isinstance(name, str):
                name = name.rpartition("/")[2]
                kind = self._kind(name) if 0 < len(name) <= 128 else 0
                return (vk, name, kind) if kind else None
        return None

    def _kind(self, key: str) -> int:
        """``_field_kind(key)``, remembered (keys repeat from event to event)."""
        kind = self._kinds.get(key)
        if kind is None:
            if len(self._kinds) > MEMO_ENTRIES:
                self._kinds.clear()
            kind = self._kinds[key] = _field_kind(key)
        return kind

    def _hs_hits(self, low: str) -> list[int] | None:
        """Indexes into ``_hs_rules`` of the keywords ``low`` holds (each once), or None when
        hyperscan could not scan (its scratch in use by another thread): then the automaton
        runs. UTF-8 bytes: a keyword's bytes match exactly where the keyword occurs."""
        found: list[int] = []
        try:
            self._hs.scan(
                low.encode("utf-8", "surrogatepass"),
                match_event_handler=lambda k, a, b, f, c: found.append(k),
            )
        except Exception:
            return None
        return found

    def _string(self, text: str, counts: dict[str, int], decode: bool = True) -> str:
        if decode and len(text) >= 2:
            head = text.lstrip()[:1]
            if head in ("{", "["):
                # Not fastjson.loads: text that only looks like JSON ("[INFO] ...") is common,
                # and building a JSONDecodeError would import json and re. JSON text too deep
                # or too big to walk in bounded time is scanned as text instead.
                brackets = text.count("[") + text.count("{")
                inner = (
                    fastjson.parse_or_none(text)
                    if brackets + text.count(",") <= NESTED_MAX_ELEMENTS
                    else None
                )
                if (
                    isinstance(inner, (dict, list))
                    and brackets > NESTED_MAX_DEPTH
                    and fastjson.shape_problem(inner, NESTED_MAX_DEPTH, NESTED_MAX_ELEMENTS)
                ):
                    inner = None
                if isinstance(inner, (dict, list)):
                    sub: dict[str, int] = {}
                    clean = self._value(inner, sub)
                    if not sub:
                        return text
                    _merge(counts, sub)
                    compact = '": ' not in text and '", ' not in text
                    seps = (",", ":") if compact else (", ", ": ")
                    indent = 2 if "\n" in text.strip() else None
                    if indent is not None:
                        seps = (",", ": ")
                    ascii_only = "\\u" in text and text.isascii()
                    return fastjson.dumps(
                        clean, ensure_ascii=ascii_only, separators=seps, indent=indent
                    )
        spans = self.find(text)
        if not spans:
            return text
        clean_text, sub_counts = self._apply(text, spans)
        _merge(counts, sub_counts)
        return clean_text

    def _keyed(self, key: str, value: str, kind: int, counts: dict[str, int]) -> str:
        """A string under a secret-looking key: scan it as ``key: value``."""
        sub: dict[str, int] = {}
        direct = self._string(value, sub)
        if direct != value:  # a more specific rule found something: keep its verdict
            _merge(counts, sub)
            return direct
        stripped = value.strip()
        if kind >= 2:
            from trace_ingest.scrub_values import _field_secret, _value_kind
        if kind == 3:  # SecretArn, passwordRef: is the value the identifier its suffix names?
            kind = _value_kind(key, stripped)
            if not kind:
                return value
        if (
            stripped[:1] not in ("{", "[")
            and stripped not in self.allow
            and not TAG_RE().search(value)
            and (
                (kind == 2 and _field_secret(key, stripped))
                # docker's config.json: ``"auths": {"<registry>": {"auth": base64("user:pw")}}``
                or (key.lower() == "auth" and _basic_pair(_b64_text(stripped) or ""))
            )
        ):
            fp = self.fingerprint(stripped)
            counts["secret-field"] = counts.get("secret-field", 0) + 1
            lead = value[: len(value) - len(value.lstrip())]
            tail = value[len(value.rstrip()) :]
            return f"{lead}[REDACTED:secret-field:{fp}]{tail}"
        prefix = f"{key}: "
        spans = [
            (s - len(prefix), e - len(prefix), r)
            for s, e, r in self.find(prefix + value)
            if s >= len(prefix)
        ]
        if not spans:
            return value
        clean, sub = self._apply(value, spans)
        _merge(counts, sub)
        return clean


PAIR_KEYS = 6  # a name/value pair (``_pair``) is a small object: name, value, type, ...
TOKEN_RUNS_FROM = 2048  # shorter strings are tested whole: the run pass would cost more
# long text scanned before the hook builds its keyword automaton (``_long_words``): about
# where one Aho-Corasick pass has saved its import and build over the ``in`` tests
AUTOMATON_FROM = 8192
# long text scanned before a process loads hyperscan for it (``_long_db``): far beyond one hook
# call (its fields are bounded at 64 Ki characters), where the import and compile (~15 ms)
# have paid for themselves over the automaton passes they replace
HYPERSCAN_FROM = 2_000_000
_TRIE_CHUNK = 1 << 16  # characters per findall of a keyword trie (bounds its match list)
# what re.escape escapes (the hook builds patterns without importing re)
_RX_SPECIAL = frozenset("()[]{}?*+-|^$\\.&~# \t\n\r\v\f")


def keyword_trie(words: tuple[str, ...]) -> str:
    """A regex over the non-empty ``words`` whose ``findall`` gives, at every position of a
    text where one of them starts, the longest one that starts there: a lookahead (so
    occurrences that overlap are all found) around the words as a trie, each node's
    continuations tried before it ends (so the longest wins)."""
    root: dict[str, Any] = {}
    for word in words:
        if word:
            node = root
            for ch in word:
                node = node.setdefault(ch, {})
            node[""] = {}
    # iterative, so a configured keyword of any length cannot exhaust the stack
    out: list[str] = []
    stack: list[Any] = [root]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        node = item
        kids = sorted(ch for ch in node if ch)
        if not kids:
            continue
        grouped = len(kids) > 1 or "" in node
        tail = ")?" if "" in node else ")"
        seq: list[Any] = ["(?:"] if grouped else []
        for n, ch in enumerate(kids):
            if n:
                seq.append("|")
            seq.append("\\" + ch if ch in _RX_SPECIAL else ch)
            seq.append(node[ch])
        if grouped:
            seq.append(tail)
        stack.extend(reversed(seq))
    if not out:
        return "(?!)"
    # The lookahead alone enters the matcher at every position of the text; led by the class
    # of the words' first characters (consumed, then looked back over), sre skips at C speed
    # to the positions where a word can start. Each match consumes one character, so every
    # position is still tried, and group 1 is the same longest word: 381 against 477 µs on
    # the bench payload's 6.9 KB of token runs.
    first = "".join("\\" + ch if ch in _RX_SPECIAL else ch for ch in sorted(root))
    return f"[{first}](?<=(?=({''.join(out)}))(?s:.))"


def prefix_words(words: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """For each word of ``words`` that has some, the other words that are prefixes of it."""
    known = set(words)
    out: dict[str, tuple[str, ...]] = {}
    for word in words:
        shorter = tuple(word[:i] for i in range(1, len(word)) if word[:i] in known)
        if shorter:
            out[word] = shorter
    return out


_TOKEN_RUN = _Lazy(r"[^\s\"'`<>()\[\]{},;\\]{16,}+")


def _token_runs(low: str) -> str:
    """The runs of 16 or more token characters of ``low``, joined by spaces: every match of
    a token-format rule lies inside one (its keyword with it), and in code, prose and logs
    they are a small part of the text.

    ASCII text (the usual payload) is read with byte searches over a translated copy, as
    ``_b64_runs`` does: the regex would try every position of every shorter run first."""
    if not low.isascii():
        return " ".join(_TOKEN_RUN().findall(low))
    probe = low.encode("ascii").translate(_TOKEN_TABLE)
    runs: list[str] = []
    pos = probe.find(_TOKEN_PROBE)
    while pos >= 0:
        end = probe.find(b"\x00", pos)
        if end < 0:
            end = len(low)
        runs.append(low[pos:end])
        pos = probe.find(_TOKEN_PROBE, end)
    return " ".join(runs)


# 1 for the ASCII characters _TOKEN_RUN's class accepts (not \s, not a quote, bracket, comma,
# semicolon or backslash), 0 for the rest; a test checks the table against the regex
def _byte_table(ascii_ones: bool, flip: bytes) -> bytes:
    """A ``translate`` table of 0s and 1s: 1 for the ASCII bytes when ``ascii_ones``, else 0
    everywhere; then the bytes of ``flip`` flipped. A loop over a few dozen bytes: a
    generator over all 256 cost every fresh process ~0.05 ms per table."""
    table = bytearray(b"\x01" * 128 + b"\x00" * 128 if ascii_ones else b"\x00" * 256)
    for b in flip:
        table[b] ^= 1
    return bytes(table)


_TOKEN_TABLE = _byte_table(True, b" \t\n\x0b\x0c\r\x1c\x1d\x1e\x1f\"'`<>()[]{},;\\")
_TOKEN_PROBE = b"\x01" * 16


def _in_token_run(low: str, probe: bytes, start: int, end: int, plain: bool) -> bool:
    """Whether ``low[start:end]`` lies inside one of ``_token_runs``' runs. ``probe`` is
    ``low`` encoded with one ``?`` per non-ASCII character and translated by
    ``_TOKEN_TABLE``; ``plain``: ``low`` is ASCII, so the probe is exact. Elsewhere a
    non-ASCII character may be Unicode whitespace, which ends a run: the regex decides."""
    if probe.find(b"\x00", start, end) >= 0:
        return False
    a = probe.rfind(b"\x00", 0, start) + 1
    b = probe.find(b"\x00", end)
    if b < 0:
        b = len(probe)
    if b - a < 16:
        return False
    if plain or low[a:b].isascii():
        return True
    return any(m.start() <= start and end <= m.end() for m in _TOKEN_RUN().finditer(low, a, b))


def keyword_automaton(words: Iterable[tuple[str, object]]) -> Any:
    """A pyahocorasick automaton over the non-empty keywords of ``words`` (keyword, the
    value a match gives), or None when the package is missing (then the ``in`` tests run:
    the same results, slower on large inputs). The hook's (``_long_words``) and the bulk
    prefilter's (``scrub_bulk``)."""
    try:
        import ahocorasick  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return None
    auto = ahocorasick.Automaton()
    for kw, value in words:
        if kw:
            auto.add_word(kw, value)
    auto.make_automaton()
    return auto


def _union(
    a: list[tuple[int, int, str]], b: list[tuple[int, int, str]]
) -> list[tuple[int, int, str]]:
    """Spans of both lists, the earlier-found ones winning an overlap."""
    out = list(a)
    for s, e, rid in b:
        if not any(s < e2 and s2 < e for s2, e2, _ in a):
            out.append((s, e, rid))
    out.sort()
    return out


def decoded_spans(
    scrubber: Scrubber,
    text: str,
    depth: int,
    found: list[tuple[int, int, str]] | tuple[()] = (),
) -> list[tuple[int, int, str]]:
    """Secrets inside encoded runs of ``text``, where decoding is cheap:

    - a base64 (or base64url) run of 32 or more characters that decodes to mostly printable
      UTF-8 text (a Kubernetes ``data:`` value, a docker ``auth``, ``echo … | base64``): the
      whole run is redacted when the decoded text holds a secret (the run cannot be cut);
    - a percent-encoded run (``password%3Dhunter2%26…``) and a run with ``\\uXXXX`` escapes:
      decoded with offsets kept, so only the secret's own characters are redacted.

    Hex runs (hashes) and runs that decode to binary are skipped at once, and so are runs
    that overlap a span of ``found`` (the spans ``text``'s own scan found, sorted): a run is
    redacted whole or not at all, and ``find`` keeps the earlier span of an overlap, so
    decoding such a run (a token, a JWT's segments) could change nothing."""
    out: list[tuple[int, int, str]] = []
    j = 0
    # Only when a run of 32 base64 characters exists at all (one C-speed translate, no regex:
    # an ordinary string never compiles or runs the run pattern).
    for start, end in _b64_runs(text):
        while j < len(found) and found[j][1] <= start:
            j += 1
        if j < len(found) and found[j][0] < end:
            continue  # overlaps a span found already
        run = text[start:end]
        if not run.strip("0123456789abcdef"):
            continue  # a hash or an id: hex decodes to binary anyway
        if run in scrubber.allow:
            continue  # the user's allow-list holds the encoded value itself
        decoded = _b64_text(run)
        if decoded is None:
            continue
        inner = scrubber.find(decoded, depth + 1)
        if inner:
            out.append((start, end, inner[0][2]))
        elif _basic_pair(decoded):
            out.append((start, end, "auth-header"))  # a Basic credential, wherever it stands
    if "%" in text:
        out.extend(_mapped(scrubber, text, None, _pct_decode, depth))
    if "\\u" in text:
        out.extend(_mapped(scrubber, text, None, _uesc_decode, depth))
    return out


def _mapped(
    scrubber: Scrubber,
    text: str,
    rx: Any,
    decode: Callable[[str], tuple[str, list[int]]],
    depth: int,
) -> Iterator[tuple[int, int, str]]:
    """Decode each run of non-space characters that holds an escape (found from the escape
    itself, no regex over the whole text) and map the inner spans back to raw offsets."""
    mark = "%" if decode is _pct_decode else "\\u"
    pos = 0
    n = len(text)
    while True:
        i = text.find(mark, pos)
        if i < 0:
            return
        pos = i + 1
        k = i + len(mark)
        if not (_is_hex2(text, k) and (mark == "%" or _is_hex2(text, k + 2))):
            continue  # 100%, %s, \\user: no escape here
        a = i
        while a > 0 and i - a < 512 and text[a - 1] not in _RUN_STOP:
            a -= 1
        b = i + 1
        while b < n and b - i < 2048 and text[b] not in _RUN_STOP:
            b += 1
        pos = b
        run = text[a:b]
        decoded, where = decode(run)
        if decoded == run or not where:
            continue
        for s, e, rid in scrubber.find(decoded, depth + 1):
            yield a + where[s], a + where[e - 1] + _width(run, where[e - 1]), rid


_RUN_STOP = frozenset(" \t\r\n\"'<>`")


def _width(run: str, i: int) -> int:
    """Raw width of the encoded character starting at ``i`` (``%41`` is 3, ``\\u0041`` 6)."""
    if run.startswith("%", i):
        return 3
    if run.startswith("\\u", i):
        return 6
    return 1


def _pct_decode(run: str) -> tuple[str, list[int]]:
    """Percent-decode ``run`` (bytes as UTF-8); ``where[k]`` is the raw offset of decoded
    character ``k``."""
    raw = bytearray()
    starts: list[int] = []
    i = 0
    n = len(run)
    while i < n:
        if run[i] == "%" and i + 2 < n + 0 and _is_hex2(run, i + 1):
            raw.append(int(run[i + 1 : i + 3], 16))
            starts.append(i)
            i += 3
        else:
            for b in run[i].encode("utf-8", "surrogatepass"):
                raw.append(b)
                starts.append(i)
            i += 1
    decoded = raw.decode("utf-8", "replace")
    if len(decoded.encode("utf-8", "surrogatepass")) != len(raw):
        return run, []  # invalid UTF-8 inside: offsets would not line up; not rescanned
    where: list[int] = []
    pos = 0
    for ch in decoded:
        where.append(starts[pos])
        pos += len(ch.encode("utf-8", "surrogatepass"))
    return decoded, where


def _is_hex2(run: str, i: int) -> bool:
    return i + 1 < len(run) and run[i] in _HEX_CHARS and run[i + 1] in _HEX_CHARS


def _uesc_decode(run: str) -> tuple[str, list[int]]:
    out: list[str] = []
    where: list[int] = []
    i = 0
    n = len(run)
    while i < n:
        if (
            run.startswith("\\u", i)
            and i + 6 <= n
            and _is_hex2(run, i + 2)
            and _is_hex2(run, i + 4)
        ):
            out.append(chr(int(run[i + 2 : i + 6], 16)))
            where.append(i)
            i += 6
        else:
            out.append(run[i])
            where.append(i)
            i += 1
    return "".join(out), where


def _b64_runs(text: str) -> Iterator[Span]:
    """The spans ``_B64_RUN().finditer(text)`` yields (maximal runs of 32 or more base64
    characters, with up to two ``=`` after them), found with C-speed byte searches: the text
    is encoded with one ``?`` per non-ASCII character, so byte offsets are its offsets, and
    translated to 1 for base64 characters and 0 for the rest. A regex would try every
    position of every shorter run first."""
    probe = text.encode("ascii", "replace").translate(_B64_TABLE)
    pos = probe.find(_B64_PROBE)
    n = len(text)
    while pos >= 0:
        start = probe.rfind(b"\x00", 0, pos) + 1
        end = probe.find(b"\x00", pos)
        if end < 0:
            end = n
        stop = end
        while stop < n and stop - end < 2 and text[stop] == "=":
            stop += 1
        yield start, stop
        pos = probe.find(_B64_PROBE, end)


_USER_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._@+-")


def _basic_pair(decoded: str) -> bool:
    """Whether base64-decoded text is a ``user:password`` pair and nothing else (the Basic
    scheme's credential, docker's ``auth``): one colon, a user of 1-128 name characters
    (letters, digits, ``._@+-``: not a fragment of JSON), a password of 6+ that is no
    placeholder, no whitespace."""
    user, colon, password = decoded.partition(":")
    if not colon or not user or len(user) > 128 or len(password) < 6 or ":" in password:
        return False
    if not _USER_CHARS.issuperset(user):
        return False
    if any(c.isspace() or not c.isprintable() for c in decoded):
        return False
    from trace_ingest.scrub_values import _placeholder

    return not _placeholder(password, identifiers=False)


def _b64_text(run: str) -> str | None:
    """The text a base64/base64url run decodes to, or None (binary, or not base64)."""
    body = run.rstrip("=").replace("-", "+").replace("_", "/")
    raw = _a2b_short(body)
    if raw is None:
        import binascii

        body += "=" * (-len(body) % 4)
        try:
            raw = binascii.a2b_base64(body)
        except (binascii.Error, ValueError):
            return None
    if len(raw) < 12:
        return None
    if len(raw.translate(None, _PRINTABLE)) > len(raw) // 10:
        return None  # binary (a hash, a compressed blob): only text can hold a secret
    return raw.decode("utf-8", "replace")


def _a2b_short(body: str) -> bytes | None:
    """``binascii.a2b_base64`` of ``body`` padded, for a short ``body`` of standard base64
    characters (``b""`` where binascii raises: one character past a multiple of four, which
    ``_b64_text`` treats as too short either way); None for anything else, and once
    ``binascii`` is loaded or this process has used up ``_A2B_LEFT``: the caller then decodes
    with ``binascii``. Loading it costs a fresh hook process ~0.45 ms (a shared library) on
    its first base64 run, and an ordinary payload's runs are short. C speed: two
    ``translate``s give each character's six bits as two octal digits, and ``int`` reads
    them (``test_a2b_short_is_binascii`` checks every length against ``binascii``)."""
    if len(body) > _A2B_SHORT or _A2B_LEFT[0] <= 0 or "binascii" in _sys.modules:
        return None
    if not body.isascii():
        return None
    data = body.encode("ascii")
    if data.translate(None, _B64_ALPHABET):
        return None
    _A2B_LEFT[0] -= 1
    n = len(data)
    if n % 4 == 1 or not n:
        return b""
    digits = bytearray(2 * n)
    digits[0::2] = data.translate(_B64_HIGH)
    digits[1::2] = data.translate(_B64_LOW)
    size = n * 6 // 8
    return (int(digits, 8) >> (n * 6 - size * 8)).to_bytes(size, "big")


_A2B_SHORT = 512  # characters: longer runs go to binascii
_A2B_LEFT = [64]  # decodes per process before binascii takes over (a long-lived process)
_B64_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
# each character's six bits as two octal digits: the high three (v >> 3), the low three (v & 7)
_B64_HIGH = bytes.maketrans(
    _B64_ALPHABET,
    b"0" * 8 + b"1" * 8 + b"2" * 8 + b"3" * 8 + b"4" * 8 + b"5" * 8 + b"6" * 8 + b"7" * 8,
)
_B64_LOW = bytes.maketrans(_B64_ALPHABET, b"01234567" * 8)

# 1 for the ASCII letters, digits, "+", "/", "_" and "-"
_B64_TABLE = _byte_table(False, _B64_ALPHABET + b"_-")
_B64_PROBE = b"\x01" * 32
_PRINTABLE = bytes(range(32, 127)) + b"\t\n\r"
_HEXCHARS = frozenset("0123456789abcdef")
# a line's number as _pem_finder accepts it (scrub_finders._LINE_NO), after the escapes are
# decoded: it starts the line, and a base64 line never holds a tab, arrow, colon or bar
_PEM_LINE_NUMBERS = _Lazy(r"(?<![^\n])[ \t]*+\d{1,9}+(?:[ \t]*+[\u2192:|]|\t)")
_B64_RUN = _Lazy(r"[A-Za-z0-9+/_-]{32,}+={0,2}+")  # what _b64_runs finds (a test checks)


def _repeats(text: str, spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Other occurrences of a found secret in the same string (``token = 'X' | 'X'``, a
    password echoed in an error message) are redacted too, with the same rule id; only
    secrets of 8 or more characters that are not plain names, so words are not chased.
    ``spans`` is sorted and non-overlapping; overlap checks bisect it (linear overall)."""
    seen = {v: rid for s, e, rid in spans if e - s >= 8 and not _is_name(v := text[s:e])}
    if not seen:
        return spans
    starts = [s for s, _, _ in spans]
    extra: list[tuple[int, int, str]] = []
    for value, rid in seen.items():
        pos = 0
        while len(extra) < 10_000:
            i = text.find(value, pos)
            if i < 0:
                break
            pos = i + len(value)
            k = bisect_right(starts, i) - 1  # the last span starting at or before i
            if k >= 0 and spans[k][1] > i:
                continue  # inside a span already
            if k + 1 < len(spans) and spans[k + 1][0] < pos:
                continue  # runs into the next span
            extra.append((i, pos, rid))
    if not extra:
        return spans
    merged: list[tuple[int, int, str]] = []
    for s, e, rid in sorted(spans + extra):
        if merged and s < merged[-1][1]:
            continue
        merged.append((s, e, rid))
    return merged


def _is_name(value: str) -> bool:
    return all(c.isalpha() or c in "_.-" for c in value)


def _merge(into: dict[str, int], sub: dict[str, int]) -> None:
    for k, v in sub.items():
        into[k] = into.get(k, 0) + v


def normalize_secret(rule_id: str, secret: str) -> str:
    """The form that is fingerprinted, so one secret correlates across encodings."""
    if rule_id == "private-key":
        body = secret.replace("\\n", "\n").replace("\\r", "\n")
        if "\\" in body:
            body = body.replace("\\t", "\t").replace("\\u2192", "\u2192")
        # a key shown with line numbers (cat -n, an agent's file reader) is the same key
        return "".join(_PEM_LINE_NUMBERS().sub("", body).split())
    if rule_id == "url-credentials" and "%" in secret:
        raw = _PCT().sub(lambda m: chr(int(m.group(1), 16)), secret)
        return raw
    return secret


# ----------------------------------------------------------------------------- key file


def load_or_create_key(home: str) -> bytes:
    """The per-install fingerprint key at ``paths.key_path(home)`` (32 random bytes, 0600).

    - Created atomically: the 32 bytes are written to a temporary file (``O_EXCL``), fsynced,
      then hard-linked to ``scrub.key``. The key file therefore never exists half-written, and
      when two processes race, the loser of the link reads the winner's key.
    - Validated on every read: a regular file owned by this user, not a symlink, exactly 32
      bytes. A key that fails (a 0-byte file left by a full disk, a truncated or foreign
      file) is moved aside to ``scrub.key.bad-<time>`` and replaced; both are logged to the
      hook error log. Fingerprints made with the old key no longer match new ones.
    - When no key can be stored (a full disk, a read-only data dir), this process uses a
      random key of its own, logged: secrets are still redacted, only their fingerprints do
      not correlate with other processes'. Scrubbing never fails because of the key.
    """
    try:
        return _load_or_create_key(home)
    except OSError as exc:
        _key_log(
            home,
            f"cannot store the fingerprint key ({type(exc).__name__}: {exc}); this process "
            "uses a temporary key, so its fingerprints match no other process's",
        )
        return os.urandom(KEY_BYTES)


def _load_or_create_key(home: str) -> bytes:
    from trace_ingest.paths import key_path, open_home

    path = key_path(home)
    folder = open_home(home)
    try:
        for _ in range(5):
            key, bad, inode = _read_key(folder, path)
            if key is not None:
                return key
            if bad is not None:
                _set_aside(folder, path, inode, bad)
            created = _create_key(folder)
            if created is not None:
                return created
            # Another process linked its key first: read (and check) that one.
        raise OSError(f"{path} keeps changing; giving up")
    finally:
        os.close(folder)


def _read_key(folder: int, path: str) -> tuple[bytes | None, str | None, int]:
    """``(key, None, ino)`` when valid; ``(None, why, ino)`` when present but bad; ``(None,
    None, 0)`` when missing."""
    from trace_ingest.paths import UnsafePath, open_file_stat

    try:
        # Two links for a moment: a new key is linked from its temporary name, then unlinked.
        fd, st = open_file_stat(folder, "scrub.key", path, os.O_RDONLY, max_links=2)
    except FileNotFoundError:
        return None, None, 0
    except UnsafePath as exc:
        try:
            inode = os.stat("scrub.key", dir_fd=folder, follow_symlinks=False).st_ino
        except OSError:
            inode = 0
        return None, str(exc), inode
    try:
        inode = st.st_ino
        key = os.read(fd, KEY_BYTES + 1)
    finally:
        os.close(fd)
    if len(key) == KEY_BYTES:
        return key, None, inode
    return None, f"the fingerprint key {path} is {len(key)} bytes, not {KEY_BYTES}", inode


def _set_aside(folder: int, path: str, inode: int, why: str) -> None:
    """Rename a bad key out of the way (unless another process already replaced it)."""
    import time

    aside = f"scrub.key.bad-{time.time_ns()}"
    try:
        if os.stat("scrub.key", dir_fd=folder, follow_symlinks=False).st_ino == inode:
            os.rename("scrub.key", aside, src_dir_fd=folder, dst_dir_fd=folder)
    except FileNotFoundError:
        return
    _key_log(
        os.path.dirname(path),
        f"{why}: moved aside to {aside} and replaced by a new key "
        "(fingerprints from before will not match new ones)",
    )


def _create_key(folder: int) -> bytes | None:
    """Write a new key atomically; None when another process's key got there first."""
    from trace_ingest.paths import FILE_MODE

    key = os.urandom(KEY_BYTES)
    tmp = f"scrub.key.{os.getpid()}.{os.urandom(4).hex()}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(tmp, flags, FILE_MODE, dir_fd=folder)
    try:
        try:
            if os.write(fd, key) != KEY_BYTES:
                raise OSError("short write of the fingerprint key")
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(tmp, "scrub.key", src_dir_fd=folder, dst_dir_fd=folder)
        except FileExistsError:
            return None
        try:  # noqa: SIM105 - contextlib is not on the hook's path
            os.fsync(folder)
        except OSError:
            pass
        return key
    finally:
        try:  # noqa: SIM105
            os.unlink(tmp, dir_fd=folder)
        except OSError:
            pass


def _key_log(home: str, message: str) -> None:
    from trace_ingest.events import now_iso
    from trace_ingest.store import append_error

    append_error(home, {"ts": now_iso(), "harness": None, "stage": "scrub-key", "error": message})


# ----------------------------------------------------------------------------- configuration


def _config_error(msg: str) -> ConfigError:
    return ConfigError(f"config.json scrub: {msg}")


def parse_config(section: Any) -> tuple[list[Rule], frozenset[str], tuple[str, ...]]:
    """Validate the ``scrub`` section; returns (extra rules, allow-list, PII categories)."""
    if section is None:
        return [], frozenset(), ()
    if not isinstance(section, dict):
        raise _config_error(f"must be an object, not {type(section).__name__}")
    unknown = sorted(set(section) - {"extra_patterns", "allow", "pii"})
    if unknown:
        raise _config_error(
            f"unknown key(s) {', '.join(map(repr, unknown))}; expected extra_patterns, allow, pii"
        )
    extra: list[Rule] = []
    patterns = section.get("extra_patterns", [])
    # Only a config that adds patterns needs the built-in ids (to refuse a clash): building
    # the rule list costs the hook time on every call.
    builtin_ids = (
        {r.id for r in builtin_rules()} | {"secret-field", "email", "ip", "home-user"}
        if patterns
        else set()
    )
    if not isinstance(patterns, list):
        raise _config_error("extra_patterns must be a list of objects")
    seen: set[str] = set()
    for n, item in enumerate(patterns):
        where = f"extra_patterns[{n}]"
        if not isinstance(item, dict):
            raise _config_error(f"{where} must be an object with id, pattern and keywords")
        bad = sorted(set(item) - {"id", "pattern", "keywords"})
        if bad:
            raise _config_error(f"{where}: unknown key(s) {', '.join(map(repr, bad))}")
        rid, pattern, keywords = item.get("id"), item.get("pattern"), item.get("keywords", [])
        if not isinstance(rid, str) or not _ID_RULE().fullmatch(rid):
            raise _config_error(
                f"{where}.id must match [a-z0-9][a-z0-9_-]{{0,40}} (it appears in the tag), "
                f"got {rid!r}"
            )
        if rid in builtin_ids or rid in seen:
            raise _config_error(f"{where}.id {rid!r} is already used by another rule")
        seen.add(rid)
        if not isinstance(pattern, str) or not pattern:
            raise _config_error(f"{where}.pattern must be a non-empty string")
        import re

        try:
            compiled = re.compile(pattern)
        except re.error as exc:
            raise _config_error(f"{where}.pattern does not compile: {exc}") from exc
        if compiled.match(""):
            raise _config_error(f"{where}.pattern matches the empty string")
        if not isinstance(keywords, list) or not all(isinstance(k, str) and k for k in keywords):
            raise _config_error(f"{where}.keywords must be a list of non-empty strings")
        rule = Rule(rid, tuple(k.lower() for k in keywords), pattern,
                    group=1 if compiled.groups else 0)  # fmt: skip
        rule._rx = compiled
        extra.append(rule)
    allow = section.get("allow", [])
    if not isinstance(allow, list) or not all(isinstance(a, str) and a for a in allow):
        raise _config_error("allow must be a list of non-empty strings (literal values)")
    pii_raw = section.get("pii", False)
    pii: tuple[str, ...]
    if pii_raw is True:
        pii = PII_CATEGORIES
    elif pii_raw is False or pii_raw is None:
        pii = ()
    elif isinstance(pii_raw, list) and all(isinstance(p, str) for p in pii_raw):
        wrong = [p for p in pii_raw if p not in PII_CATEGORIES]
        if wrong:
            raise _config_error(
                f"pii: unknown categor{'y' if len(wrong) == 1 else 'ies'} "
                f"{', '.join(map(repr, wrong))}; known: {', '.join(PII_CATEGORIES)}"
            )
        pii = tuple(p for p in PII_CATEGORIES if p in pii_raw)
    else:
        raise _config_error(f"pii must be true, false or a list of {list(PII_CATEGORIES)}")
    return extra, frozenset(allow), pii


_UNREAD = object()


def keyword_tables(
    rules: list[Rule],
) -> tuple[KeywordTable, KeywordTable, KeywordTable, tuple[int, ...]]:
    """The prefilter's tables of ``rules``: every keyword with the indexes of the rules that
    have it (``""`` for rules without keywords), which is the next two one after the other:
    the keywords tested on the whole string (some rule other than a token-format one has
    them) and those tested on long strings' token runs only, each in the order first seen;
    and the rules without keywords."""
    kw: dict[str, list[int]] = {}
    mixed: set[str] = set()  # keywords some rule other than a token-format one uses
    for i, rule in enumerate(rules):
        token = rule.in_token
        for k in rule.keywords or ("",):
            found = kw.get(k)
            if found is None:
                kw[k] = [i]
            else:
                found.append(i)
            if not (token and k):
                mixed.add(k)
    every = tuple((k, tuple(v)) for k, v in kw.items())
    # The hook's ``in`` loop: keywords only token-format rules use are tested on the string's
    # long token runs (usually a small part of it), the rest on the whole string.
    full = tuple(item for item in every if item[0] in mixed)
    token_only = tuple(item for item in every if item[0] not in mixed)
    return full + token_only, full, token_only, tuple(kw.get("", ()))


def _lazy_tables() -> tuple[list[Rule | None], int] | None:
    """``lazy_builtin_rules()`` when ``scrub_index``'s keyword tables (generated from the
    built-in rules) are theirs: the rules made now and the vendor table's keywords are those
    ``RULE_KEYS`` was generated from, so a stale index is not used (None: make every rule and
    work the tables out); a test checks the whole index against the code."""
    table, first = lazy_builtin_rules()
    keys = RULE_KEYS
    if len(table) != len(keys):
        return None
    for i, rule in enumerate(table):
        if rule is not None and (rule.keywords, rule.in_token) != keys[i]:
            return None
    for j, vendor in enumerate(_VENDORS):
        if vendor[1] != keys[first + j][0]:
            return None
    return table, first


def load_scrubber(home: str, section: Any = _UNREAD, *, bulk: bool = False) -> Scrubber:
    """The scrubber configured for this data directory.

    ``section`` is the ``scrub`` section when the caller has already read ``config.json``
    (the hook has); otherwise the file is read here. Raises ConfigError (with the exact
    problem) when the section is invalid; callers on the hot path log that and fall back to
    ``default_scrubber(home)``.

    ``bulk=True`` is for the import, sync and ``trail scrub`` paths: a ``BulkScrubber``
    (``scrub_bulk``), whose keyword prefilter runs as one hyperscan or Aho-Corasick pass when
    one of those packages is installed. Never on the hook path, which stays standard-library
    only and never loads that module.
    """
    if section is _UNREAD:
        from trace_ingest.config import user_section  # the one reader of config.json

        section = user_section(home, "scrub")
    extra, allow, pii = parse_config(section)
    if bulk:
        from trace_ingest.scrub_bulk import BulkScrubber

        return BulkScrubber(home, extra, allow, pii)
    return Scrubber(home, extra, allow, pii)


_DEFAULT: dict[str, Scrubber] = {}


def default_scrubber(home: str) -> Scrubber:
    """The built-in rules only, ignoring the user configuration (the fallback); one per home
    and process, since the error log asks for it on every entry."""
    found = _DEFAULT.get(home)
    if found is None:
        found = _DEFAULT[home] = Scrubber(home)
    return found
