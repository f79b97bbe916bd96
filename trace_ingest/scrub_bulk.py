"""The scrubber of the bulk paths (import, sync, ``trail scrub``): ``Scrubber``'s rules and
verdicts, with prefilter engines that pay off over many events and cost too much to load per
hook call.

``load_scrubber(home, bulk=True)`` returns a ``BulkScrubber``. Where hyperscan (or, without
its wheel, pyahocorasick) is installed, it finds every keyword of a string in one pass
instead of one ``in`` test per keyword, flags the strings of a whole JSON value that can
hold a catch in one pass over all of them (``_flagged``), and for the importers' events
flags them from the event's compact JSON text without walking the body (``scrub_event``);
docs/scrubbing.md, "Prefilter engine" and "Whole-value prefilter". It finds exactly what
``Scrubber`` finds (tests/trace_ingest/test_scrub_bulk.py compares the two).

The hook never imports this module: its code is ~40% of the scrubber's, and a fresh hook
process pays for every byte of code it loads (docs/scrubbing.md, "What a hook call pays").
A long-lived hook scrubber (``trail collect``) takes ``_hs_database`` from it once it has
scanned ``scrub.HYPERSCAN_FROM`` characters of long strings (``Scrubber._long_db``).
"""

from __future__ import annotations

from trace_ingest.errors import ScrubError
from trace_ingest.scrub import (
    _B64_PROBE,
    _B64_TABLE,
    MEMO_CHARS,
    MEMO_ENTRIES,
    PAIR_KEYS,
    Scrubber,
    _b64_runs,
    _b64_text,
    _is_hex2,
    keyword_automaton,
)
from trace_ingest.scrub_rules import _FLAG_HINTS, Rule, _field_kind, _lower_same_length

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import Any


class BulkScrubber(Scrubber):
    """A ``Scrubber`` with the bulk prefilter engines (see the module docstring)."""

    # set by ``_bulk_tables``
    _flagger: Any  # the whole-value flagging automaton, None when a rule runs everywhere
    _hs_flag: Any  # the same as a hyperscan database, None without hyperscan
    _hint_ids: frozenset[int]
    _loads: Any  # orjson.loads, when scrub_event may flag from the JSON text
    _ascii_keywords: bool

    def __init__(
        self,
        home: str,
        extra_rules: list[Rule] | None = None,
        allow: frozenset[str] = frozenset(),
        pii: tuple[str, ...] = (),
    ) -> None:
        super().__init__(home, extra_rules, allow, pii)
        self._bulk_tables({k: list(v) for k, v in self._keywords})
        self._clean: set[str] = set()  # short flagged strings found clean (as value and key)
        self._b64: dict[str, bool] = {}  # _b64_live by short string (ids repeat too)
        self._b64_raw: dict[bytes, bool] = {}  # the same, by a short string's JSON text
        self._b64_run: dict[bytes, bool] = {}  # _b64_run_live by a short run's bytes

    def _bulk_tables(self, kw: dict[str, list[int]]) -> None:
        """The bulk prefilter engines over the keywords ``kw`` (keyword -> rule indexes)."""
        # hyperscan, where its wheel exists, does both bulk passes about 8x faster still
        # (docs/scrubbing.md, "Prefilter engine"); the automaton stays as the fallback. Both
        # give a keyword's index into these tables.
        self._hs_words = tuple(k for k, _ in self._keywords if k)
        self._hs_every = frozenset(self._hs_words)
        self._hs_rules = tuple(idxs for k, idxs in self._keywords if k)
        self._automaton = keyword_automaton((k, i) for i, k in enumerate(self._hs_words))
        self._hs = _hs_database([k for k, _ in self._keywords if k], single=True)
        # Bulk scrubbing of JSON values: one prefilter pass over all of a value's strings
        # (``_flagged``), over every keyword and every key hint (``_FLAG_HINTS``); only when
        # no rule runs everywhere (a keyword-less rule would flag every string).
        self._flagger = (
            keyword_automaton((k, ()) for k in (*kw, *_FLAG_HINTS))
            if self._automaton is not None and not self._always
            else None
        )
        self._ascii_keywords = all(k.isascii() for k in kw)
        flag_words = tuple((k, ()) for k in (*kw, *_FLAG_HINTS) if k)
        self._hs_flag = (
            _hs_database([k for k, _ in flag_words], single=False)
            if self._flagger is not None and self._ascii_keywords and not any("?" in k for k in kw)
            else None
        )
        # ``scrub_event`` may flag from an event's JSON text (``_flagged_text``) when every
        # flag word appears there as it does in the strings: none holds a character JSON
        # escapes (a quote, a backslash, a control character).
        self._hint_ids = frozenset(i for i, (k, _) in enumerate(flag_words) if k in _FLAG_HINTS)
        self._loads = None
        if self._hs_flag is not None and not any(
            c in '"\\' or c < " " for k, _ in flag_words for c in k
        ):
            try:
                import orjson
            except ImportError:  # pragma: no cover - a dependency of the importers
                pass
            else:
                self._loads = orjson.loads

    def scrub_event(self, body: dict[str, Any], text: bytes) -> tuple[Any, dict[str, int]]:
        """Redact one event's body (its fields but ``v`` and ``id``), for the importers:
        ``(None, {})`` when nothing in it is to be redacted, else ``(clean body, counts)``.

        ``text`` is ``body`` serialized as compact JSON (orjson: UTF-8, only ``"``, ``\\``
        and control characters escaped). The caller writes ``text`` itself when nothing is
        redacted, so an engine that can prove from ``text`` alone, in one pass, that no rule
        matches anywhere in the event need not walk ``body`` at all."""
        if self._loads is not None and type(body) is dict:
            counts: dict[str, int] = {}
            try:
                flagged = self._flagged_text(text)
                if flagged is not None:
                    clean = self._scan_flagged(body, flagged, (), counts)
                    return (clean, counts) if counts else (None, {})
            except ScrubError:
                raise
            except Exception as exc:
                raise ScrubError(f"scrubbing failed: {type(exc).__name__}: {exc}") from exc
        return super().scrub_event(body, text)

    def _walk(self, value: Any, counts: dict[str, int]) -> Any:
        if self._flagger is not None:
            return self._value_bulk(value, counts)
        return self._value(value, counts)

    def _value_bulk(self, value: Any, counts: dict[str, int]) -> Any:
        """``_value`` with one prefilter pass over all of the value's strings: strings that
        cannot hold a catch are not scanned one by one, and a value none of whose strings can
        comes back as it is (docs/scrubbing.md, "Whole-value prefilter")."""
        got = self._strings_of(value)
        if got is None:  # not plain JSON (a tuple, bytes, an object): the general walk
            return self._value(value, counts)
        leaves, keyed = got
        return self._scan_flagged(value, self._flagged(leaves), keyed, counts)

    def _scan_flagged(
        self,
        value: Any,
        flagged: set[str],
        keyed: Iterable[tuple[str, str, int]],
        counts: dict[str, int],
    ) -> Any:
        """``value`` scrubbed, given the strings of it that may hold a catch (``flagged``:
        every other one comes out of ``_string`` unchanged) and its string values under
        secret-looking keys (``keyed``)."""
        # Most flagged strings are clean after all (a key named input_tokens): when every
        # one is, the value comes back as it is, without a rebuilding walk.
        pre: dict[str, tuple[str, dict[str, int]]] = {}
        dirty = False
        clean = self._clean
        for text in flagged:
            if text in clean:
                pre[text] = (text, {})
                continue
            sub: dict[str, int] = {}
            out = self._string(text, sub)
            pre[text] = (out, sub)
            if sub:
                dirty = True
            elif text.lstrip()[:1] in ("{", "["):
                as_key: dict[str, int] = {}
                self._string(text, as_key, decode=False)  # a key is scanned as text
                dirty = dirty or bool(as_key)
            elif len(text) <= MEMO_CHARS:
                if len(clean) > MEMO_ENTRIES:
                    clean.clear()
                clean.add(text)
        if not dirty:
            for k, v, kind in keyed:
                sub = {}
                self._keyed(k, v, kind, sub)
                if sub:
                    dirty = True
                    break
        if not dirty:
            return value
        return self._value(value, counts, pre)

    def _strings_of(self, value: Any) -> tuple[list[str], list[tuple[str, str, int]]] | None:
        """Every string of a plain JSON value (dict keys too) and whether some string value
        sits under a secret-looking key (``_keyed`` then scans it whatever the prefilter says);
        None when the value holds anything but dict, list, str, int, float, bool and None."""
        leaves: list[str] = []
        keyed: list[tuple[str, str, int]] = []
        kinds = self._kinds
        stack = [value]
        while stack:
            v = stack.pop()
            t = type(v)
            if t is str:
                leaves.append(v)
            elif t is dict:
                for k, x in v.items():
                    if type(k) is not str:
                        return None
                    leaves.append(k)
                    tx = type(x)
                    if tx is str:
                        leaves.append(x)
                        if len(x) >= 4:
                            kind = kinds.get(k)
                            if kind is None:
                                kind = self._kind(k)
                            if kind:
                                keyed.append((k, x, kind))
                    elif tx is dict or tx is list:
                        stack.append(x)
                    elif not (x is None or tx is int or tx is float or tx is bool):
                        return None
                if len(v) <= PAIR_KEYS:
                    pair = self._pair(v)
                    if pair is not None:  # {"name": "API_TOKEN", "value": …}
                        keyed.append((pair[1], v[pair[0]], pair[2]))
            elif t is list:
                stack.extend(v)
            elif not (v is None or t is int or t is float or t is bool):
                return None
        return leaves, keyed

    def _flagged(self, leaves: list[str]) -> set[str]:
        """The strings of ``leaves`` that may hold a catch; every other one is certain to
        come out of ``_string`` (as a value or as a key) unchanged.

        One string is scanned: the leaves lowered and joined by newlines. A leaf is flagged
        when it holds any rule's keyword or a key hint of ``_field_kind`` (a JSON string
        that is itself JSON has its keys and values inside it), a backslash that starts a
        ``\\u`` escape or JSON text (whose decoded strings could differ from their raw
        text), a percent escape, or a base64 run that decodes to text (``decoded_spans``).
        Otherwise ``find`` has no rule to run and nothing to decode, and the JSON inside
        the string, if any, has only substrings of it as its strings."""
        from bisect import bisect_right
        from itertools import accumulate

        joined = "\n".join(leaves)
        low = joined.lower()
        if len(low) != len(joined):  # as _find lowers: one character per character
            low = _lower_same_length(joined)
        if self._ascii_keywords:
            # Offsets are the leaves' own. Lowering in context (a final sigma) can differ
            # from each leaf's own, only in Greek.
            ends = list(accumulate([len(x) + 1 for x in leaves]))  # past each leaf's newline
        else:  # lower each leaf as _find does
            lows = [_lower_same_length(x) for x in leaves]
            low = "\n".join(lows)
            ends = list(accumulate([len(x) + 1 for x in lows]))
        hit: set[int] = set()
        lasts = self._hs_lasts(low) if self._hs_flag is not None else None
        if lasts is not None:
            stop = -1
            for last in lasts:
                if last >= stop:
                    i = bisect_right(ends, last)
                    hit.add(i)
                    stop = ends[i]  # the rest of this leaf needs no second look
        else:
            it = self._flagger.iter
            pos = 0
            n = len(low)
            while pos < n:
                for end, _ in it(low, pos):
                    i = bisect_right(ends, end)
                    hit.add(i)
                    pos = ends[i]  # the rest of this leaf needs no second look
                    break
                else:
                    break
        for mark in ("\\", "%"):
            pos = low.find(mark)
            while pos >= 0:
                i = bisect_right(ends, pos)
                if i not in hit:
                    leaf = leaves[i]
                    if (
                        "\\u" in leaf or leaf.lstrip()[:1] in ("{", "[")
                        if mark == "\\"
                        else any(_is_hex2(leaf, j + 1) for j in _all(leaf, "%"))
                    ):
                        hit.add(i)
                pos = low.find(mark, ends[i])
        # base64 runs: where 32 base64 characters follow each other (decoded_spans' probe);
        # each non-ASCII character becomes one "?", so byte offsets are character offsets
        probe = low.encode("ascii", "replace").translate(_B64_TABLE)
        pos = probe.find(_B64_PROBE)
        while pos >= 0:
            i = bisect_right(ends, pos)
            if i not in hit and self._b64_live(leaves[i]):
                hit.add(i)
            pos = probe.find(_B64_PROBE, ends[i])
        return {leaves[i] for i in hit}

    def _flagged_text(self, text: bytes) -> set[str] | None:
        """``_flagged`` of a dict's strings (keys too) from ``text``, its compact JSON as orjson
        writes it (UTF-8; only ``"``, ``\\`` and control characters escaped), or None when
        only the walk can tell: a character that lowers to ASCII from outside it (U+0130,
        U+212A), a hyperscan failure, or a key with a secret-looking key hint that
        ``_field_kind`` gives a kind, over a string value (``_keyed`` scans the value whatever
        the prefilter says).

        It may flag more strings than ``_flagged`` (a match across an escape, ``\\npm_``; the
        text between two strings), never fewer: a flag word holds no character JSON escapes
        (else ``_loads`` is None), so each of its occurrences in a lowered string is in the
        text's bytes lowered, inside that string's quotes; a literal backslash is ``\\\\``
        there, and a ``%`` and a run of base64 characters appear as they are. Each such place
        is mapped to the string around it (``_string_around``), whose decoded value takes
        ``_flagged``'s own test."""
        if b"\xc4\xb0" in text or b"\xe2\x84\xaa" in text:
            return None  # İ and K lower to ASCII letters: bytes.lower() would miss them
        try:
            return self._flagged_in(text)
        except ValueError:  # a place outside every string (a long number at the end): walk
            return None

    def _flagged_in(self, text: bytes) -> set[str] | None:
        """``_flagged_text``'s scan (None as there); ValueError when a place it must map is
        in no string."""
        low = text.lower()
        found: list[tuple[int, int]] = []
        try:
            self._hs_flag.scan(
                low, match_event_handler=lambda k, a, b, f, c: found.append((b - 1, k))
            )
        except Exception:
            return None
        found.sort()
        quotes = _unescaped_quotes(text)
        loads = self._loads
        hints = self._hint_ids
        flagged: dict[int, str] = {}  # opening quote -> the string's value
        stop = -1
        leaf = ""
        # strings holding a key hint, with their quotes' offsets
        hinted: list[tuple[str, int, int]] = []
        for last, k in found:
            if last >= stop:
                start, stop = _string_around(quotes, last)
                leaf = flagged[start] = loads(text[start : stop + 1])
            if k in hints and (not hinted or hinted[-1][2] != stop):
                hinted.append((leaf, start, stop))
        for leaf, begin, end in hinted:
            # Only a key with a string value is ``_keyed`` (a key is followed by a colon in
            # compact JSON, a string value opens with a quote): a hinted value, or a key over
            # a number or an object (``currentTokens: 1234``), is flagged as any other; but
            # the name of a name/value pair (``"name":"API_TOKEN"``) makes ``_keyed`` scan
            # the pair's value too (``Scrubber._pair``), which only the walk finds.
            keyish = text[end + 1 : end + 3] == b':"'
            if not keyish and not text.endswith(_PAIR_NAMES, 0, begin):
                continue
            name = leaf if keyish else leaf.rpartition("/")[2]
            if self._kind(name) if len(name) <= MEMO_CHARS else _field_kind(name):
                return None
        for mark in (b"\\\\", b"%"):
            pos = text.find(mark)
            while pos >= 0:
                start, stop = _string_around(quotes, pos)
                if start not in flagged:
                    leaf = loads(text[start : stop + 1])
                    if (
                        "\\u" in leaf or leaf.lstrip()[:1] in ("{", "[")
                        if mark != b"%"
                        else any(_is_hex2(leaf, j + 1) for j in _all(leaf, "%"))
                    ):
                        flagged[start] = leaf
                pos = text.find(mark, stop + 1)
        probe = text.translate(_B64_TABLE)
        b64 = self._b64_raw
        runs = self._b64_run
        n = len(text)
        pos = probe.find(_B64_PROBE)
        while pos >= 0:
            # The run of base64 characters here, as ``_b64_runs`` finds it (no character of
            # it is escaped in the text). Unless a backslash comes before it (it may start
            # inside an escape, ``\\nAAAA``), it is a run of the string it lies in, and
            # that string's other runs are found by this loop too: a run that decodes to no
            # text flags nothing, told without finding or decoding its string.
            begin = probe.rfind(b"\0", 0, pos) + 1
            end = probe.find(b"\0", pos)
            if end < 0:
                end = n
            if begin == 0 or text[begin - 1] != 92:  # 92: a backslash
                tail = end
                while tail < n and tail - end < 2 and text[tail] == 61:  # 61: "="
                    tail += 1
                run = text[begin:tail]
                live = runs.get(run)
                if live is None:
                    live = not _uuid(run) and _b64_run_live(run.decode("ascii"))
                    if len(run) <= MEMO_CHARS:
                        if len(runs) > MEMO_ENTRIES:
                            runs.clear()
                        runs[run] = live
                if not live:
                    pos = probe.find(_B64_PROBE, end)
                    continue
            start, stop = _string_around(quotes, pos)
            if start not in flagged:
                raw = text[start : stop + 1]
                live = b64.get(raw)  # the same ids in every event: not decoded again
                if live is None:
                    leaf = loads(raw)
                    live = self._b64_live(leaf)
                    if len(raw) <= MEMO_CHARS:
                        if len(b64) > MEMO_ENTRIES:
                            b64.clear()
                        b64[raw] = live
                if live:
                    flagged[start] = loads(raw)
            pos = probe.find(_B64_PROBE, stop + 1)
        return set(flagged.values())

    def _hs_lasts(self, low: str) -> list[int] | None:
        """The offset of the last character of every keyword and key-hint occurrence in
        ``low``, ascending, or None (as ``_hs_hits``). Encoded with one ``?`` per non-ASCII
        character, so offsets are character offsets; no keyword is non-ASCII or holds ``?``
        (else this database is not built), so the occurrences are exactly those in ``low``."""
        ends: list[int] = []
        try:
            self._hs_flag.scan(
                low.encode("ascii", "replace"),
                match_event_handler=lambda k, a, b, f, c: ends.append(b - 1),
            )
        except Exception:
            return None
        ends.sort()
        return ends

    def _b64_live(self, text: str) -> bool:
        """Whether ``decoded_spans`` would rescan a base64 run of ``text``."""
        if len(text) <= MEMO_CHARS:
            found = self._b64.get(text)
            if found is None:
                if len(self._b64) > MEMO_ENTRIES:
                    self._b64.clear()
                found = self._b64[text] = _b64_live(text)
            return found
        return _b64_live(text)


# what comes before the name of a name/value pair in compact JSON (``Scrubber._pair``)
_PAIR_NAMES = (b'"name":', b'"Name":', b'"key":', b'"Key":')


def _string_around(quotes: bytes, pos: int) -> tuple[int, int]:
    """The offsets of the quotes around ``pos``: the nearest ``"`` in ``quotes`` before it and
    the nearest at or after it. ``quotes`` is JSON text with its escaped quotes blanked
    (``_unescaped_quotes``), so these are the string's own quotes when ``pos`` is inside one,
    and the ends of the stretch between two strings otherwise (still a valid JSON string: no
    backslash and no control character outside strings). ValueError when there is none."""
    start = quotes.rfind(b'"', 0, pos)
    stop = quotes.find(b'"', pos)
    if start < 0 or stop < 0:
        raise ValueError("no JSON string around the offset")
    return start, stop


def _unescaped_quotes(text: bytes) -> bytes:
    """JSON ``text`` with every escaped backslash and quote blanked (same length): its only
    ``"`` left are the strings' own. In a run of backslashes, escapes pair up from the left,
    as ``replace`` does (``\\\\\\"`` is a backslash, then a quote)."""
    return text.replace(b"\\\\", b"\0\0").replace(b'\\"', b"\0\0")


def _b64_live(text: str) -> bool:
    """Whether some base64 run of ``text`` decodes to text (``decoded_spans`` rescans it)."""
    return any(_b64_run_live(text[start:end]) for start, end in _b64_runs(text))


_UUID_CHARS = b"0123456789abcdef-"


def _uuid(run: bytes) -> bool:
    """Whether ``run`` is a lowercase UUID (8-4-4-4-12 hex digits): never live
    (``_b64_run_live``), so not decoded. Its 27 decoded bytes hold at least 3 that are not
    text, more than ``_b64_text`` allows (27 // 10): each of the groups of four characters
    it decodes in, over the hex digits and ``-`` at its places, gives some (the least per
    group, found over all 16**4 fillings: tests/trace_ingest/test_scrub_bulk.py)."""
    return (
        len(run) == 36
        and run[8] == run[13] == run[18] == run[23] == 45  # 45: "-"
        and run.count(b"-") == 4
        and not run.translate(None, _UUID_CHARS)
    )


def _b64_run_live(run: str) -> bool:
    """Whether ``decoded_spans`` would rescan the base64 run ``run`` (one ``_b64_runs``
    gives): not hex (a hash or an id), and decodes to text."""
    return bool(run.strip("0123456789abcdef")) and _b64_text(run) is not None


def _all(text: str, mark: str) -> Iterator[int]:
    """Every position of ``mark`` in ``text``."""
    pos = text.find(mark)
    while pos >= 0:
        yield pos
        pos = text.find(mark, pos + 1)


def _hs_database(words: list[str], single: bool) -> Any:
    """A hyperscan literal database over non-empty ``words`` (id = index in ``words``; with
    ``single``, each reported once per scan), or None when hyperscan is missing (it has no
    wheel for Linux on ARM: the automaton then runs, same results)."""
    if not words:
        return None
    try:
        import hyperscan  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return None
    db = hyperscan.Database()
    db.compile(
        expressions=[k.encode("utf-8", "surrogatepass") for k in words],
        ids=list(range(len(words))),
        elements=len(words),
        flags=[hyperscan.HS_FLAG_SINGLEMATCH if single else 0] * len(words),
        literal=True,
    )
    return db
