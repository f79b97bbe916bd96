"""JSON for the hook's hot path, without importing ``json`` (which imports ``re`` and ``enum``).

``import json`` costs a fresh interpreter about 10 ms, most of it ``re`` and ``enum`` pulled in
by ``json.decoder``; the hook's whole budget is about one interpreter start. The parsing and
encoding themselves are done by the same C accelerator ``json`` uses (``_json``), so results
are identical to ``json.loads`` / ``json.dumps`` (a test checks this on the sample payloads).
Falls back to ``json`` where ``_json`` is missing. Errors raise ``ValueError`` subclasses, as
``json`` does (a syntax error imports ``json`` then, off the common path).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

_WS = " \t\n\r"
_NAN = float("nan")
_INF = float("inf")
_CONSTANTS = {"NaN": _NAN, "Infinity": _INF, "-Infinity": -_INF}

try:
    import _json as _c

    class _Context:
        """The attributes ``_json.make_scanner`` reads from a ``JSONDecoder``."""

        strict = True
        object_hook = None
        object_pairs_hook = None
        parse_float = float
        parse_int = int
        parse_constant = _CONSTANTS.__getitem__
        memo: dict[Any, Any] = {}  # noqa: RUF012 - mirrors JSONDecoder

    _scan = _c.make_scanner(_Context())  # type: ignore[arg-type]
    _AVAILABLE = True

    class _StrictContext(_Context):
        """Non-finite numbers come back as the text they were written as (``_float``)."""

        parse_constant = staticmethod(lambda name: _nonfinite(name))  # type: ignore[assignment]
        parse_float = staticmethod(lambda text: _float(text))  # type: ignore[assignment]
        parse_int = staticmethod(lambda text: _int(text))  # type: ignore[assignment]

    _scan_strict = _c.make_scanner(_StrictContext())  # type: ignore[arg-type]
except (ImportError, AttributeError):  # pragma: no cover - interpreters without _json
    _AVAILABLE = False


_replaced = [0]  # non-finite numbers replaced by the strict scanner in the current call


def _nonfinite(name: str) -> str:
    _replaced[0] += 1
    return name


def _float(text: str) -> Any:
    value = float(text)
    if value - value != 0:  # inf (1e999) or nan
        return _nonfinite(text)
    return value


# The bounds of a JSON value trail walks (hook payloads, JSON inside a scrubbed string): past
# them the hook records a stub and the scrubber scans the text as text (docs/security.md).
MAX_DEPTH = 100  # nesting levels of arrays and objects
MAX_ELEMENTS = 100_000  # values in all arrays and objects together

_INT_MIN = -(1 << 63)
_INT_MAX = (1 << 64) - 1


def _int(text: str) -> Any:
    """An integer literal, or the text itself when the mirror could not hold it exactly.

    The mirror's reader (orjson) takes integers from -2**63 to 2**64-1; past that it reads a
    float, and past about 309 digits infinity, which it rejects, so the line would be
    quarantined. Python itself refuses to convert more than 4,300 digits. Such literals are
    kept as the text they were written as (and counted, as non-finite numbers are).
    """
    if len(text) < 19:
        return int(text)
    if len(text) <= 21:
        value = int(text)
        if _INT_MIN <= value <= _INT_MAX:
            return value
    return _nonfinite(text)


def _fail(msg: str, doc: str, pos: int) -> ValueError:
    from json import JSONDecodeError

    return JSONDecodeError(msg, doc, pos)


def loads(text: str) -> Any:
    """``json.loads`` for a ``str``."""
    if not _AVAILABLE:  # pragma: no cover
        import json

        return json.loads(text)
    n = len(text)
    i = 0
    while i < n and text[i] in _WS:
        i += 1
    try:
        value, end = _scan(text, i)
    except StopIteration as exc:
        raise _fail("Expecting value", text, exc.value) from None
    except SystemError:
        # The C scanner reports syntax errors through json.decoder.JSONDecodeError, which it
        # looks up in sys.modules only; before `json` is imported it fails without a message.
        # Let json parse it again to raise the precise error.
        import json

        return json.loads(text)
    while end < n and text[end] in _WS:
        end += 1
    if end != n:
        raise _fail("Extra data", text, end)
    return value


def loads_strict(text: str) -> tuple[Any, int]:
    """Like ``loads``, but every number JSON cannot represent (``NaN``, ``Infinity``,
    ``-Infinity``, or an overflowing literal such as ``1e999``), and every integer outside
    -2**63..2**64-1 (``_int``), comes back as the string it was written as.
    Returns ``(value, how many were replaced)``: whatever is parsed here can be
    written back as strict JSON.

    Raises ``RecursionError`` for nesting deeper than the interpreter's recursion limit.
    """
    _replaced[0] = 0
    if not _AVAILABLE:  # pragma: no cover
        import json

        value = json.loads(text, parse_constant=_nonfinite, parse_float=_float, parse_int=_int)
        return value, _replaced[0]
    n = len(text)
    i = 0
    while i < n and text[i] in _WS:
        i += 1
    try:
        value, end = _scan_strict(text, i)
    except StopIteration as exc:
        raise _fail("Expecting value", text, exc.value) from None
    except SystemError:
        import json  # to raise the precise syntax error (see ``loads``)

        value = json.loads(text, parse_constant=_nonfinite, parse_float=_float, parse_int=_int)
        return value, _replaced[0]
    while end < n and text[end] in _WS:
        end += 1
    if end != n:
        raise _fail("Extra data", text, end)
    return value, _replaced[0]


def shape_problem(value: Any, max_depth: int, max_items: int) -> str | None:
    """Why ``value`` is too deep or too big to walk (``None`` when it is not); iterative, and
    it stops as soon as a limit is passed, so it costs at most ``max_items`` steps."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    items = 0
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth > max_depth:
            return f"nested deeper than {max_depth} levels"
        items += len(children)
        if items > max_items:
            return f"more than {max_items} elements"
        for child in children:
            if isinstance(child, (dict, list)):
                stack.append((child, depth + 1))
    return None


def parse_or_none(text: str) -> Any:
    """``loads(text)``, or ``None`` when ``text`` is not JSON — without building the error
    (which would import ``json`` and ``re``): for probing strings that merely look like JSON."""
    if not _AVAILABLE:  # pragma: no cover
        try:
            return loads(text)
        except ValueError:
            return None
    n = len(text)
    i = 0
    while i < n and text[i] in _WS:
        i += 1
    try:
        value, end = _scan(text, i)
    except (StopIteration, SystemError, ValueError, RecursionError):
        return None
    while end < n and text[end] in _WS:
        end += 1
    return value if end == n else None


def _encoder(
    default: Callable[[Any], Any] | None,
    sort_keys: bool,
    separators: tuple[str, str],
    ensure_ascii: bool,
    allow_nan: bool = True,
) -> Callable[..., Any]:
    quote = _c.encode_basestring_ascii if ensure_ascii else _c.encode_basestring
    item_sep, key_sep = separators
    return _c.make_encoder(
        {}, default or _type_error, quote, None, key_sep, item_sep, sort_keys, False, allow_nan
    )


def _type_error(o: object) -> Any:
    raise TypeError(f"Object of type {type(o).__name__} is not JSON serializable")


def dumps(
    obj: Any,
    default: Callable[[Any], Any] | None = None,
    sort_keys: bool = False,
    separators: tuple[str, str] = (",", ":"),
    ensure_ascii: bool = False,
    indent: int | None = None,
    allow_nan: bool = True,
) -> str:
    """``json.dumps`` with these arguments (compact, non-ASCII kept, by default)."""
    if not _AVAILABLE or indent is not None:  # the C encoder does not indent
        import json

        return json.dumps(
            obj,
            ensure_ascii=ensure_ascii,
            separators=separators,
            default=default,
            sort_keys=sort_keys,
            indent=indent,
            allow_nan=allow_nan,
        )
    encode = _encoder(default, sort_keys, separators, ensure_ascii, allow_nan)
    if isinstance(obj, dict | list):
        return "".join(encode(obj, 0))
    return "".join(encode([obj], 0))[1:-1]


def dumps_str(text: str) -> str:
    """``dumps(text)`` for a ``str``: its JSON string literal, non-ASCII kept."""
    if not _AVAILABLE:  # pragma: no cover
        return dumps(text)
    return _c.encode_basestring(text)  # what the encoder quotes every string with


def strict_numbers(value: Any) -> Any:
    """``value`` with every number strict JSON (and the mirror) cannot hold written as text:
    ``NaN``, ``Infinity``, ``-Infinity``, and integers outside -2**63..2**64-1 (as
    ``loads_strict`` reads them). For values that were not parsed strictly."""
    if isinstance(value, float):
        if value != value:
            return "NaN"
        if value - value != 0:
            return "Infinity" if value > 0 else "-Infinity"
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        if _INT_MIN <= value <= _INT_MAX:
            return value
        try:
            return str(value)
        except ValueError:  # past Python's int/str conversion limit
            return f"[integer of {value.bit_length()} bits]"
    if isinstance(value, dict):
        return {k: strict_numbers(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [strict_numbers(v) for v in value]
    return value
