"""The finders of rarer secret formats (PEM blocks, cookies, Azure, Telegram, Sidekiq, AWS
key pairs, ...) and of the PII categories: each runs only when its rule's keyword occurs.
``scrub_rules`` owns the rules that name them and loads this module on the first call
(``scrub_rules._later``)."""

from __future__ import annotations

from trace_ingest._regex import IGNORECASE, MULTILINE
from trace_ingest.scrub_rules import (
    _7Z_KEYS,
    _AN,
    _B64URL,
    _BASIC_PAIR_KEYS,
    _COMMAND_CUTS,
    _CREDENTIAL_KEYS,
    _LETTERS,
    _SEP,
    _UA,
    _absent_in,
    _after_tool,
    _assigned_secret,
    _boundary_before,
    _call_args,
    _env_name,
    _env_secret,
    _Lazy,
    _lower_same_length,
    _occurrences,
    _prefixed_matches,
    line_start,
    prefixed_finditer,
    windowed_finditer,
)
from trace_ingest.scrub_values import (
    _field_secret,
    _has_letter_and_digit,
    _mixed_ok,
    _placeholder,
    entropy,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

    from trace_ingest.scrub_rules import Span


_NON_B64 = _Lazy(r"[^A-Za-z0-9+/=]++")
_PEM_HEAD = _Lazy(r"-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----")
# A line number a viewer puts before each line: ``cat -n`` ("     7<TAB>"), an agent's file
# reader ("     7\u2192", also JSON-escaped), ``grep -n`` ("7:"), a listing's "   7 | ". The
# spaces before the number are _SEP's. A base64 line never holds a tab, arrow, colon or bar.
_LINE_NO = r"\d{1,9}+(?:[ \t]*+(?:\u2192|\\{1,3}u2192|[:|])|\t|\\{1,3}t)[ \t]*+"
# BEGIN's run: armour headers (encrypted PEM, PGP), then base64 lines of 16+ characters, each
# maybe numbered; a numbered empty line; then a last short line, and the END line's number when
# END follows. A number is taken only before base64 or END, so a run without END does not end
# in the next line's number (every part is possessive or bounded: linear on any input).
_PEM_RUN = _Lazy(
    rf"{_SEP}*+(?:(?:{_LINE_NO})?(?:Proc-Type|DEK-Info|Version|Comment|Charset):[^\r\n\\]*+"
    rf"{_SEP}++)*+(?:(?:{_LINE_NO})?[A-Za-z0-9+/=]{{16,}}+{_SEP}*+|{_LINE_NO}{_SEP}++)*+"
    rf"(?:(?:{_LINE_NO}(?=[A-Za-z0-9+/=])|(?!{_LINE_NO}))[A-Za-z0-9+/=]*+)?"
    rf"(?:{_SEP}*+{_LINE_NO}(?=-----END))?"
)
# the line numbers of a run, left out when its base64 characters are counted
_PEM_LINE_NO = _Lazy(_LINE_NO)
PEM_MAX = 16384
_COOKIE_HEAD = _Lazy(r"(?:set-)?cookie[\"']?[ \t]*+[:=][ \t]*+[\"']?|--cookie[ =]++[\"']?")
# every match of _COOKIE_HEAD holds "cookie" 0 ("cookie"), 2 ("--cookie") or 4 ("set-cookie")
# characters after its start (offset_literals does not read a pattern with alternatives)
_COOKIE_AT = (0, 4, ("cookie",))
_COOKIE_VALUE = _Lazy(r"[^\r\n\"'\\]{1,8192}+")
_COOKIE_PAIR = _Lazy(r"([!#$%&*+.^_`|~0-9A-Za-z-]{1,128}+)=([^;,\s\"'\\]{1,4096}+)")
_SESSIONISH = (
    "sess", "sid", "token", "auth", "jwt", "csrf", "xsrf", "remember", "login", "secret",
    "credential", "saml", "oauth", "refresh", "access", "identity", "key", "_u", "user_session",
)  # fmt: skip
_EMAIL_AT = _Lazy(r"@(?:[A-Za-z0-9-]{1,63}+\.)++[A-Za-z]{2,24}+")
_LOCAL = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._%+-")
_IPV4 = _Lazy(r"(?<![\d.])(?:\d{1,3}\.){3}\d{1,3}(?![\d.])")
_HOME = _Lazy(r"(?:/home/|/users/|[a-z]:\\{1,2}users\\{1,2})([^/\\\s\"'<>:;,*?|]{1,64}+)")
_HOME_SKIP = frozenset({"shared", "public", "default", "all users", "user", "username", "me"})
_SAS = _Lazy(r"sharedaccesssignature[ \t]*+=[ \t]*+([^;\s\"'\\]{20,}+)|sig=([a-z0-9%+/=_-]{30,}+)")
_DISCORD_BOT = _Lazy(rf"[MNO][{_AN}]{{23,25}}+\.[{_UA}]{{6}}\.[{_UA}]{{27,38}}+")
_TELEGRAM_TAIL = _Lazy(rf":AA[{_UA}]{{32,33}}+")
_SIDEKIQ_CRED = _Lazy(r"(?<![0-9a-f])[0-9a-f]{8}:[0-9a-f]{8}(?![0-9a-f])")
_SIDEKIQ_WINDOW = 200
_AZ_AD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_~.-")
_AZURE = _Lazy(
    r"(?:account_?key|sharedaccesskey)(?:\\?[\"'])?[ \t]*+(=|:|>)[ \t]*+(?:\\?[\"'])?"
    r"([a-z0-9+/]{20,}+={0,2}+)"
)
_AWS_ID = _Lazy(r"A[KS]IA[A-Z2-7]{16}+")
_B40 = _Lazy(r"[A-Za-z0-9/+]{40}+")
_B64SET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")
_AWS_WINDOW = 400


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
        if len(_NON_B64().sub("", _PEM_LINE_NO().sub("", body))) < 64 or "EXAMPLE" in body[:4096]:
            continue  # too short, or a documentation key (AWS docs sprinkle EXAMPLE in it)
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


def _cookie_finder(text: str, low: str) -> Iterator[Span]:
    """Values of session-like cookies in ``Cookie:`` / ``Set-Cookie:`` / ``--cookie`` values."""
    covered = 0
    for head in windowed_finditer(_COOKIE_HEAD, low, _COOKIE_AT):
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


def _ip_finder(text: str, low: str) -> Iterator[Span]:
    for m in _IPV4().finditer(text):
        parts = [int(p) for p in m.group(0).split(".")]
        if any(p > 255 for p in parts) or parts[0] in (0, 127) or parts == [255] * 4:
            continue
        yield m.span()


def _home_finder(text: str, low: str) -> Iterator[Span]:
    subject = low if len(low) == len(text) else _lower_same_length(text)
    for m in _HOME().finditer(subject):
        start, end = m.span(1)
        name = text[start:end]
        if name.lower() in _HOME_SKIP or name.startswith(("$", "%", "<", "{", "[", ".")):
            continue
        if len(name) > 3 and _placeholder(name, identifiers=False):
            continue
        yield start, end


def _sas_finder(text: str, low: str) -> Iterator[Span]:
    """Azure ``SharedAccessSignature=…`` values and ``?…&sig=…`` SAS signatures."""
    subject = low if len(low) == len(text) else _lower_same_length(text)
    for m in prefixed_finditer(_SAS, subject):
        if m.group(1) is not None:
            yield m.span(1)
        elif m.start() > 0 and subject[m.start() - 1] in "?&;":
            yield m.span(2)


def _discord_bot_finder(text: str, low: str) -> Iterator[Span]:
    """Discord bot tokens (base64 user id . timestamp . HMAC), only near the word discord."""
    for m in _DISCORD_BOT().finditer(text):
        end = m.end()
        if _boundary_before(text, m.start()) and (end == len(text) or text[end] not in _B64URL):
            yield m.span()


def _telegram_finder(text: str, low: str) -> Iterator[Span]:
    """Telegram bot tokens, ``<8-10 digit bot id>:AA<32-33 base64url>``: found from the literal
    ``:AA``, the id by walking left over digits (bounded)."""
    pos = 0
    rx = _TELEGRAM_TAIL()
    while True:
        i = text.find(":AA", pos)
        if i < 0:
            return
        pos = i + 1
        start = i
        while start > 0 and i - start < 11 and text[start - 1].isdigit():
            start -= 1
        if not 8 <= i - start <= 10 or not _boundary_before(text, start):
            continue
        m = rx.match(text, i)
        if m is None or (m.end() < len(text) and text[m.end()] in _B64URL):
            continue
        pos = m.end()
        yield start, m.end()


def _sidekiq_finder(text: str, low: str) -> Iterator[Span]:
    """Sidekiq Pro/Enterprise gem credentials, ``<8 hex>:<8 hex>`` (as contribsys issues them),
    in the 200 characters after a ``contribsys`` mention: Bundler's
    ``BUNDLE_ENTERPRISE__CONTRIBSYS__COM`` setting under any syntax (``:=``, XML, ``setProperty``,
    a Go ``var``) or the ``enterprise.contribsys.com`` source URL."""
    subject = low if len(low) == len(text) else _lower_same_length(text)
    rx = _SIDEKIQ_CRED()
    pos = 0
    done = 0
    while True:
        i = subject.find("contribsys", pos)
        if i < 0:
            return
        pos = i + 10
        for m in rx.finditer(subject, max(i, done), min(len(subject), i + _SIDEKIQ_WINDOW)):
            done = m.end()
            yield m.span()


def _azure_ad_finder(text: str, low: str) -> Iterator[Span]:
    """Azure AD (Entra) client secrets: 3 characters, a digit, ``Q~``, then 31-34 of
    ``[A-Za-z0-9_~.-]``; found from the literal ``Q~`` and checked in Python."""
    pos = 0
    n = len(text)
    while True:
        i = text.find("Q~", pos)
        if i < 0:
            return
        pos = i + 2
        start = i - 4
        if start < 0 or not text[i - 1].isdigit():
            continue
        if any(c not in _AZ_AD_CHARS or c == "-" for c in text[start : i - 1]):
            continue
        if start > 0 and text[start - 1] in _AZ_AD_CHARS:
            continue
        end = i + 2
        while end < n and end - i - 2 < 35 and text[end] in _AZ_AD_CHARS:
            end += 1
        if not 31 <= end - i - 2 <= 34 or (end < n and text[end] in _AZ_AD_CHARS):
            continue
        value = text[start:end]
        if _has_letter_and_digit(value) and entropy(value) >= 3.5:
            pos = end
            yield start, end


def _azure_finder(text: str, low: str) -> Iterator[Span]:
    """Azure storage / Service Bus keys: ``AccountKey=…`` in connection strings, and (88
    base64 characters, as storage keys are) after ``account_key:``, ``"accountKey":``,
    ``storageAccountKey:`` and ``<AccountKey>``."""
    subject = low if len(low) == len(text) else _lower_same_length(text)
    for m in prefixed_finditer(_AZURE, subject):
        start, end = m.span(2)
        if m.group(1) != "=" and (end - start < 40 or entropy(text[start:end]) < 4.0):
            continue
        if end < len(text) and text[end] in _B64URL:
            continue
        yield start, end


def _aws_pair_finder(text: str, low: str) -> Iterator[Span]:
    """An AWS secret key not under an AWS name: a 40-character base64 run within 400
    characters of an ``AKIA``/``ASIA`` key id (they travel together). It must look random
    (upper, lower and a digit, not hex: a git SHA is 40 hex)."""
    rx = _B40()
    done = 0
    for idm in _AWS_ID().finditer(text):
        lo = max(done, idm.start() - _AWS_WINDOW)
        hi = min(len(text), idm.end() + _AWS_WINDOW)
        for m in rx.finditer(text, lo, hi):
            a, b = m.span()
            if (a > 0 and text[a - 1] in _B64SET and text[a - 1] != "=") or (
                b < len(text) and text[b] in _B64SET
            ):
                continue
            v = m.group(0)
            if not _mixed_ok(v) or entropy(v) < 4.0:
                continue
            yield a, b
        done = max(done, hi)


# Short password flags, tool by tool (each from the tool's own manual): the MySQL and MariaDB
# clients take the password glued to ``-p`` (``-p secret`` asks for it, and ``secret`` is the
# database); docker/podman/helm ``login`` (``docker run -p`` publishes a port), mongosh, twine
# and ``az login`` take it as the
# argument after ``-p`` (as does Sysinternals' PsExec: ``psexec \\host -u <user> -p <password>``);
# sshpass after ``-p`` with or without a space; redis-cli after ``-a``;
# keytool after ``-storepass``/``-keypass`` (and their ``-src``/``-dest`` forms). Long
# ``--password`` flags are ``_cli_finder``'s.
_CLI_TOOL = _Lazy(
    r"(?<![\w.-])(?:((?:mysql|mariadb)(?:-?(?:dump|admin|import|show|check|pump|binlog|sh))?)|"
    r"((?:docker|podman|nerdctl|buildah|skopeo|oras|crane|helm(?:[ \t]++registry)?|az)[ \t]++"
    r"login|mongo(?:sh|dump|restore|import|export|stat|top|files)?|twine|psexec(?:64)?(?:\.exe)?)|"
    r"(sshpass)|(redis-cli)|"
    r"(keytool)|((?:un)?zip)|(7z[az]?|7zz)|(smbclient|rpcclient|smbget|smbcacls)|(openssl)|"
    r"(security[ \t]++add-(?:generic|internet)-password))(?![\w.-])",
    IGNORECASE,  # the tool's name in any case; the flags below keep theirs (-p, not -P)
)
# Where _CLI_TOOL is tried: its names' first words, found with ``str.find`` in the lowered
# text. A program that starts with a lookbehind gives ``sre`` no literal to search for, so
# ``finditer`` over a large text ran the whole program at every character (9 ms a call on
# botocore's 1-5 MB service files). ``az`` is looked for with the blank its ``login`` needs
# (``amazon`` holds an ``az``).
_CLI_TOOL_WORDS = (
    ("mysql", "mysql"),
    ("mariadb", "mariadb"),
    ("mongo", "mongo"),
    ("twine", "twine"),
    ("sshpass", "sshpass"),
    ("redis-cli", "redis-cli"),
    ("keytool", "keytool"),
    ("psexec", "psexec"),
    ("zip", "zip "),
    ("unzip", "zip "),
    *(("7z", keyword) for keyword in _7Z_KEYS),
    ("7za", "7za "),
    ("7zz", "7zz "),
    ("smbclient", "smbclient"),
    ("rpcclient", "rpcclient"),
    ("smbget", "smbget"),
    ("smbcacls", "smbcacls"),
    ("openssl", "openssl"),
    ("security", "add-generic-password"),
    ("security", "add-internet-password"),
    *(
        (w, "login")
        for w in (
            "docker",
            "podman",
            "nerdctl",
            "buildah",
            "skopeo",
            "oras",
            "crane",
            "helm",
            "az ",
            "az\t",
        )
    ),
)  # (word, the prefilter keyword without which it cannot start a match: scrub_rules._CLI_TOOLS)
_CLI_VALUE = r"[\"']?([^\s\"'`;|&]{4,}+)"
# module-level names (not only the tuple): ``scrub_rules.helper_patterns`` finds them
_CLI_P_GLUED = _Lazy(r"(?<!\S)-p([^\s\"'`;|&]{4,}+)")
_CLI_P = _Lazy(r"(?<!\S)-p[ \t]++" + _CLI_VALUE)
_CLI_P_EITHER = _Lazy(r"(?<!\S)-p[ \t]*+" + _CLI_VALUE)
_CLI_A = _Lazy(r"(?<!\S)-a[ \t]++" + _CLI_VALUE)
_CLI_STOREPASS = _Lazy(r"(?<!\S)-(?:src|dest)?(?:store|key)pass[ \t]++" + _CLI_VALUE)
_CLI_P_UPPER = _Lazy(r"(?<!\S)-P[ \t]++" + _CLI_VALUE)
# Samba's ``-U <user>%<password>`` / ``--user=<user>%<password>``: the part after the ``%``
_CLI_SMB = _Lazy(
    r"(?<!\S)(?:-U[ \t]*+|--user(?:=|[ \t]++))[\"']?[^\s%\"'`;|&]{1,128}+%([^\s\"'`;|&]{4,}+)"
)
_CLI_K = _Lazy(r"(?<!\S)-k[ \t]++" + _CLI_VALUE)
_CLI_W = _Lazy(r"(?<!\S)-w[ \t]++" + _CLI_VALUE)
# by the group of _CLI_TOOL that matched: zip and unzip take ``-P <password>``, 7-Zip
# ``-p<password>`` glued (``-p`` alone asks), openssl's ``enc`` ``-k <password>``, macOS
# ``security add-generic-password … -w <password>`` (``-w`` last and alone asks)
_CLI_SHORT = (
    _CLI_P_GLUED, _CLI_P, _CLI_P_EITHER, _CLI_A, _CLI_STOREPASS, _CLI_P_UPPER, _CLI_P_GLUED,
    _CLI_SMB, _CLI_K, _CLI_W,
)  # fmt: skip
_CLI_REACH = 400  # characters of one command line read after the tool's name
_CLI_STDIN = _Lazy(
    r"echo[ \t]++" + _CLI_VALUE + r"[\"']?[ \t]*+\|[ \t]*+(?:docker|podman|nerdctl|buildah|"
    r"skopeo|helm|oras|crane)\b[^\n|;&]{0,200}?--password-stdin",
)

# ``echo <password> | sudo -S …``: sudo reads the password from stdin with ``-S`` (also in a
# cluster of flags, ``-kS``, after other flags: ``sudo -k -S``)
_SUDO_STDIN = _Lazy(
    r"echo[ \t]++(?:-[neE]{1,2}+[ \t]++)?(?:\\?[\"'])?([^\s\"'`;|&\\]{4,}+)(?:\\?[\"'])?"
    r"[ \t]*+\|[ \t]*+sudo[ \t]++"
    r"(?:-[A-RT-Za-z]++[ \t]++){0,4}+-[A-Za-z]*?S"
)


def _cli_short_finder(text: str, low: str) -> Iterator[Span]:
    """``mysql -uroot -p<password>``, ``docker login -u bob -p <password>``, ``sshpass -p``,
    ``redis-cli -a``, ``keytool -storepass``, ``echo <password> | docker login
    --password-stdin``: the password, unless it is a placeholder or a variable."""
    n = len(text)
    done = 0
    subject = low if len(low) == len(text) else _lower_same_length(text)
    match = _CLI_TOOL().match
    absent = _absent_in(subject)
    words = tuple(dict.fromkeys(w for w, keyword in _CLI_TOOL_WORDS if keyword not in absent))
    for at in _occurrences(subject, words):
        if at < done or (tool := match(text, at)) is None:
            continue
        # the rest of this command: up to the line's end or the next command of the line
        end = min(n, tool.end() + _CLI_REACH)
        for stop in ("\n", "|", ";", "&"):
            cut = text.find(stop, tool.end(), end)
            if cut >= 0:
                end = cut
        done = end
        flag = _CLI_SHORT[tool.lastindex - 1 if tool.lastindex else 0]()
        for m in flag.finditer(text, tool.end(), end):
            value = m.group(1)
            if value[:1] != "-" and not _placeholder(value, identifiers=False):
                yield m.span(1)
    if "password-stdin" in low:
        for m in _CLI_STDIN().finditer(text):
            if not _placeholder(m.group(1), identifiers=False):
                yield m.span(1)
    if "sudo" in low:
        for m in _SUDO_STDIN().finditer(text):
            if not _placeholder(m.group(1), identifiers=False):
                yield m.span(1)


# SQL's own password clauses (PostgreSQL ``CREATE|ALTER USER|ROLE … [WITH] [ENCRYPTED]
# PASSWORD '…'``, MySQL ``IDENTIFIED [WITH <plugin>] BY '…'`` and ``SET PASSWORD FOR … = '…'``,
# Oracle's unquoted ``IDENTIFIED BY <password>;``), read on the lowered text
# (each word's boundary is a lookbehind after it, ``password(?<!\wpassword)`` for
# ``\bpassword``: a program that starts with ``\b`` gives ``sre`` nothing to search for, and
# ``finditer`` runs it at every character, ~3x slower on a large text)
_SQL_PASSWORD = _Lazy(
    r"password(?<!\wpassword)[ \t]++'([^'\n\\]{4,128}+)'"
    r"|identified(?<!\widentified)(?:[ \t]++with[ \t]++[a-z0-9_]{1,40}+)?[ \t]++by"
    r"(?:[ \t]++password)?[ \t]++"
    r"(?:'([^'\n\\]{4,128}+)'|\"([^\"\n\\]{4,128}+)\"|([^\s;'\"]{4,64}+)(?=[ \t]*+(?:;|$)))"
    r"|set(?<!\wset)[ \t]++password\b[^=\n]{0,120}+=[ \t]*+(?:password[ \t]*+\([ \t]*+)?"
    r"'([^'\n\\]{4,128}+)'",
    MULTILINE,
)
_SQL_HASHED = ("md5", "scram-sha-256$", "*")  # a stored hash given back, not the password
_SQL_REACH = 160  # characters of its statement read before ``PASSWORD``


def _sql_statement(subject: str, i: int) -> bool:
    """Whether the ``password`` at ``i`` closes a ``… USER|ROLE|LOGIN …`` clause of its own
    statement (on its line, after the last ``;``)."""
    head = subject[max(0, i - _SQL_REACH) : i]
    head = head[max(head.rfind(";"), head.rfind("\n")) + 1 :]
    return any(f"{w} " in head for w in ("user", "role", "login"))


def _sql_starts(subject: str) -> list[int]:
    """Where a match of ``_SQL_PASSWORD`` may start, ascending: at each ``password`` and
    ``identified``, and at the ``set`` of ``set <blanks> password``. Its program's scan
    entered the matcher at every ``p``, ``i`` and ``s`` of a large text."""
    found = _occurrences(subject, ("password", "identified"))
    for i in _occurrences(subject, ("password",)):
        j = i
        while j > 0 and subject[j - 1] in " \t":
            j -= 1
        if j < i and subject.startswith("set", j - 3):
            found.append(j - 3)
    found.sort()
    return found


def _sql_password_finder(text: str, low: str) -> Iterator[Span]:
    """``CREATE USER app WITH PASSWORD '<password>'``, ``IDENTIFIED BY '<password>'`` and
    the other SQL password clauses: the password, unless it is a placeholder, a bind
    variable, ``NULL`` or a stored hash."""
    subject = low if len(low) == len(text) else _lower_same_length(text)
    for m in _prefixed_matches(_SQL_PASSWORD(), subject, (), _sql_starts(subject)):
        group = m.lastindex or 1
        start, end = m.span(group)
        value = text[start:end]
        if group == 1 and not _sql_statement(subject, m.start()):
            continue  # ``enter the password 'below'``: prose, not a statement
        if group == 4 and (value.isalpha() and value.islower()):
            continue  # ``identified by hashing;``: a word of prose, not Oracle's password
        if value[:1] in ":?" or value.lower().startswith(_SQL_HASHED):
            continue
        if _placeholder(value, identifiers=False):
            continue
        yield start, end


# A name/value pair in YAML or JSON text: a Kubernetes ``env`` entry (``- name: API_TOKEN`` then
# ``value: …`` on the next line), ECS/HAR ``{"name": "DB_PASSWORD", "value": "…"}``; read on the
# lowered text. ``valueFrom:`` (a reference to a Secret) is not ``value:``.
# (``name(?<!\wname)`` is ``\bname`` with the boundary after the word, so ``sre`` searches for
# the literal: 35x faster over a large text)
_NAME_VALUE = _Lazy(
    r"name(?<!\wname)[\"']?[ \t]*+[:=][ \t]*+[\"']?([a-z0-9_./-]{1,128}+)[\"']?[ \t]*+"
    r"(?:,[ \t]*+(?:\r?\n[ \t]*+|\\n[ \t]*+)?|\r?\n[ \t]*+(?:-[ \t]++)?|\\n[ \t]*+)"
    r"[\"']?value[\"']?[ \t]*+[:=][ \t]*+"
    r"(?:\"([^\"\n\\]{1,512}+)\"|'([^'\n\\]{1,512}+)'|([^\s\"',}\]]{1,512}+))"
)


def _name_value_finder(text: str, low: str) -> Iterator[Span]:
    """The value of a name/value pair in text whose name says the value is a secret (as a
    JSON key would: ``_field_kind`` 2), by the secret-field verdict."""
    from trace_ingest.scrub_rules import _field_kind

    subject = low if len(low) == len(text) else _lower_same_length(text)
    for m in _NAME_VALUE().finditer(subject):
        name = text[m.start(1) : m.end(1)].rpartition("/")[2]
        if _field_kind(name) != 2:
            continue
        group = m.lastindex or 2
        start, end = m.span(group)
        if _field_secret(name, text[start:end]):
            yield start, end


# Secrets given as a command's arguments, read from the command's words tool by tool (each
# from the tool's own manual): GitHub CLI ``gh secret set NAME --body <value>`` (also ``-b``,
# ``-b<value>``, ``--body=<value>``, ``<<< <value>``; whatever the name, the value is a
# secret), ``gh variable set NAME --body <value>`` (a variable is shown to anyone who can read
# the repository: its value counts only when the name says secret, as ``NAME=value`` would),
# ``aws configure set [profile.]<key> <value>`` (the credentials file's ``key = value``, judged
# as the assignment rules judge it), and Apache's ``htpasswd -b[c…] <file> <user> <password>``
# (``-nb <user> <password>`` prints instead of writing a file; without ``-b`` it asks).
_GH_SET = _Lazy(r"gh(?<![\w.-]gh)[ \t]++(secret|variable)[ \t]++set(?=[ \t])")
_GH_VALUE_FLAGS = frozenset(("-e", "--env", "-o", "--org", "-r", "--repos", "-v", "--visibility",
                             "-a", "--app", "-f", "--env-file", "-R", "--repo"))  # fmt: skip
# the AWS CLI's global options that take no value (every other one takes the next word)
_AWS_BOOLEAN = frozenset((
    "--debug", "--no-verify-ssl", "--no-paginate", "--no-sign-request", "--no-cli-pager",
    "--cli-auto-prompt", "--no-cli-auto-prompt",
))  # fmt: skip
# the AWS CLI's command as a word (as ``scrub_rules._HTTPIE_AT`` finds HTTPie's)
# (its lookbehinds after the word, which lets ``sre`` search for the literal ``aws``)
_AWS_AT = _Lazy(r"aws(?:(?<![^\s\"'/]aws)|(?<=\\[nt]aws))(?=[ \t])")
_HTPASSWD_VALUE_FLAGS = "Cr"  # -C <bcrypt cost>, -r <rounds>: the next word is theirs
_COMMAND_ENDS = frozenset("\n\r;|&")
_PLAIN_RUN = _Lazy(r"[^\s\"'\\;|&]++")  # a word's characters that need no second look
_BLANKS = _Lazy(r"(?:[ \t]|\\t)++")  # between words: spaces, tabs, JSON's \t escape
_ARGS_REACH = 400  # characters of one command read after the tool's name
# Windows commands that run on another machine as another user take its password after a
# slash flag, the user before it in the same command: ``setx /s <host> /u <user> /p
# <password>``, ``schtasks /s <host> /u <user> /p <password>`` (``/ru <user> /rp <password>``:
# the task's own account), ``wmic /user:<user> /password:<password>``, also ``/p:<password>``.
# ``/p`` with no value or ``/p *`` asks for it. Read on the lowered text (flags are
# case-insensitive: ``/P``, ``/U``); the password flags are ``_CLI_ARG_TOOLS`` keywords.
_SLASH_PASSWORDS = ("/p", "/rp", "/password")
_SLASH_FLAG = _Lazy(r"/(?:r?p[ \t:]|password:)")  # one of them, and what must follow it
# the user flags (``/u``, ``/ru``, ``/user``) as words, in the lowered text
_SLASH_USER = _Lazy(r"(?:(?<![^\s])|(?<=\\t))/(?:r?u|user)(?=[ \t:])")
# what may pipe a value into ``gh secret set`` (its stdin is the value when no --body)
_PIPED_TOOLS = ("echo", "printf")
_ECHO_FLAGS = frozenset(("-n", "-e", "-E", "-ne", "-en", "-nE", "-En"))


def _cli_args_finder(text: str, low: str) -> Iterator[Span]:
    """The secret argument of ``gh secret set`` / ``gh variable set``, ``aws configure set``
    and ``htpasswd -b`` (see above), unless it is a placeholder or a variable."""
    if "secret set" in low or "variable set" in low:
        done = 0
        for m in _GH_SET().finditer(text):
            if m.start() >= done:
                words = _command_words(text, m.end())
                done = words[-1][1] if words else m.end()
                piped = _piped_value(text, m.start())
                yield from _gh_set_value(text, words, m.group(1) == "variable", piped)
    if "/p" in low or "/rp" in low:
        yield from _slash_password_values(text, low)
    if "net use" in low:
        yield from _net_use_values(text, low)
    if "securestring" in low:
        yield from _ssm_secure_values(text, low)
    aws: list[int] | None = None  # where the AWS CLI's command starts, found on need
    for tool in ("configure", "htpasswd"):
        pos = 0
        while (i := text.find(tool, pos)) >= 0:
            pos = i + len(tool)
            if not _boundary_before(text, i) or text[pos : pos + 1] not in (" ", "\t"):
                continue  # reconfigure, htpasswd.c
            if tool == "configure":
                if aws is None:
                    aws = [m.start() for m in _AWS_AT().finditer(text)]
                if not _after_tool(text, i, aws):
                    continue  # ./configure --prefix=…: autotools, not the AWS CLI
            words = _command_words(text, pos)
            if words:
                pos = words[-1][1]
            yield from (_aws_set_value if tool == "configure" else _htpasswd_value)(text, words)


def _command_words(text: str, pos: int, most: int = -1) -> list[Span]:
    """The words of the command going on at ``pos``, up to its end (a newline, a ``\\n``
    escape, an unquoted ``;``, ``|`` or ``&``) or ``_ARGS_REACH`` characters: their spans,
    quotes included (``_unquoted``); the first ``most`` of them when ``most`` is given. A
    quoted part (``"…"``, ``'…'``, JSON-escaped ``\\"…\\"``) is part of its word. Runs of
    plain characters and of blanks are skipped by a regex each, so the loop turns once per
    word and quote, not per character."""
    end = min(len(text), pos + _ARGS_REACH)
    plain, blanks = _PLAIN_RUN(), _BLANKS()
    words: list[Span] = []
    i = pos
    while len(words) != most:
        if (b := blanks.match(text, i, end)) is not None:
            i = b.end()
        if i >= end or text[i] in _COMMAND_ENDS or text.startswith(("\\n", "\\r"), i):
            return words
        start = i
        while i < end:
            if (p := plain.match(text, i, end)) is not None:
                i = p.end()
                if i >= end:
                    break
            c, nxt = text[i], text[i + 1 : i + 2]
            if c in " \t" or c in _COMMAND_ENDS or (c == "\\" and nxt in ("n", "r", "t")):
                break
            if c == "\\" and nxt in ('"', "'"):
                close = text.find("\\" + nxt, i + 2, end)
                i = close + 2 if close >= 0 else end
            elif c in "\"'":
                close = text.find(c, i + 1, end)
                i = close + 1 if close >= 0 else end
            else:
                i += 1 + (c == "\\")  # another escape, or a space \s holds (\v, U+00A0)
        words.append((start, min(i, end)))
    return words


def _unquoted(text: str, span: Span) -> Span:
    """A word's span without the quotes around it (``"v"``, ``'v'``, ``\\"v\\"``)."""
    start, end = span
    for q in ('\\"', "\\'", '"', "'"):
        if end - start >= 2 * len(q) and text.startswith(q, start) and text.endswith(q, 0, end):
            return start + len(q), end - len(q)
    return start, end


def _cli_secret(text: str, span: Span) -> Iterator[Span]:
    """``span``, unquoted, when its value is no placeholder, variable or flag (the bar of the
    other command-line passwords)."""
    start, end = _unquoted(text, span)
    value = text[start:end]
    if value and value[0] not in "-<(`" and not _placeholder(value, identifiers=False):
        yield start, end


def _slash_password_values(text: str, low: str) -> Iterator[Span]:
    """``/p <password>``, ``/p:<password>`` (``/rp``, ``/password``) after a ``/u <user>``
    (``/ru``, ``/user``) of the same command: the password (``_SLASH_PASSWORDS``)."""
    subject = low if len(low) == len(text) else _lower_same_length(text)
    users: list[int] | None = None  # where the user flags are, found on the first /p
    blanks = _BLANKS()
    done: dict[str, int] = {}  # each flag's own scan resumes after the value it last read
    # a password flag with what must follow it (not /proc, /path, a URL's /password/reset),
    # in one C scan: a Python loop over every "/p" cost ~0.7 ms a call in a large text
    for flag in _SLASH_FLAG().finditer(subject):
        i = flag.start()
        name = flag.group()[:-1]
        if i < done.get(name, 0):
            continue
        pos = flag.end() - 1
        after = subject[pos]
        if not ((i > 0 and subject[i - 1] in " \t") or subject[i - 2 : i] == "\\t"):
            continue  # a path's /p: or /rp:
        j = pos + 1  # the value: glued after the colon, or the next word
        if after != ":" and (b := blanks.match(text, j)) is not None:
            j = b.end()
        if text[j : j + 1] in ("/", "*", "", " ") or text[j] in _COMMAND_ENDS:
            continue  # /p asks for the password (no value, *, the next flag)
        if users is None:
            users = [m.start() for m in _SLASH_USER().finditer(subject)]
        if not _after_tool(subject, i, users):
            continue  # /p without /u: another tool's flag (xcopy's prompt, msiexec's patch)
        words = _command_words(text, j, 1)
        if words:
            done[name] = words[0][1]
            yield from _cli_secret(text, words[0])


def _command_start(text: str, i: int) -> int:
    """Where the command going on at ``i`` starts: after the last of ``_COMMAND_CUTS``
    before ``i``, at most ``_ARGS_REACH`` characters back."""
    lo = max(0, i - _ARGS_REACH)
    for c in _COMMAND_CUTS:
        if (j := text.rfind(c, lo, i)) >= 0:
            lo = max(lo, j + len(c))
    return lo


def _piped_value(text: str, i: int) -> Span | None:
    """The value ``echo <value> |`` or ``printf '%s' <value> |`` pipes into the command at
    ``i`` (``gh secret set``), when the words before the pipe are that and nothing else."""
    j = i
    while j > 0 and text[j - 1] in " \t":
        j -= 1
    if j < 2 or text[j - 1] != "|" or text[j - 2] == "|":
        return None  # no pipe, or ``||`` (or else)
    bar = j - 1
    lo = _command_start(text, bar)
    # the last echo or printf word before the pipe: a command's start may also be a quote
    # (``{"command": "echo …``), so the words are read from after it, not from ``lo``
    at, tool = max((text.rfind(t, lo, bar), t) for t in _PIPED_TOOLS)
    if at < 0:
        at, tool = _printf_before(text, lo), "printf"
    if at < 0 or (at > lo and text[at - 1] not in " \t\"'/") or text[at + len(tool)] not in " \t":
        return None  # cat file | …, op read … | …: the value is not on the line
    rest = _command_words(text, at + len(tool), 4)
    if not rest or rest[-1][1] > bar or _command_words(text, rest[-1][1], 1):
        return None  # more words, or a quote that runs past the pipe (echo 'a|b')
    if tool == "echo":
        while rest and text[slice(*rest[0])] in _ECHO_FLAGS:
            rest = rest[1:]
    elif tool == "printf" and len(rest) == 2:
        fmt = text[slice(*_unquoted(text, rest[0]))]
        if not fmt.startswith("%s"):
            return None  # printf '%d' …: not the value as it is
        rest = rest[1:]
    if len(rest) != 1 or (tool == "printf" and "%" in text[slice(*rest[0])]):
        return None  # echo a b | …: words, not one value
    return rest[0]


def _printf_before(text: str, lo: int) -> int:
    """Where ``printf`` starts when the command cut at ``lo`` (``_command_start``) is inside
    its quoted format (``printf '%s\\n' <value> |``: the ``\\n`` escape there is printf's,
    not a JSON-escaped line break), else -1."""
    at = text.rfind("printf", max(0, lo - _ARGS_REACH), lo)
    after = at + len("printf")
    if at < 0 or text[after : after + 1] not in (" ", "\t"):
        return -1
    fmt = _command_words(text, after, 1)
    if not fmt or _unquoted(text, fmt[0]) == fmt[0] or not fmt[0][0] < lo <= fmt[0][1]:
        return -1  # no quoted format around the cut
    if _command_start(text, fmt[0][0]) > at:
        return -1  # printf is not the command's start
    return at


def _gh_set_value(
    text: str, words: list[Span], variable: bool, piped: Span | None = None
) -> Iterator[Span]:
    """``gh secret|variable set`` (``words`` after ``set``): the ``--body`` value, else the
    value ``piped`` into it (``echo <value> | gh secret set NAME``; gh reads stdin)."""
    name = ""
    body: Span | None = None
    k = 0
    while k < len(words):
        s, e = words[k]
        word = text[s:e]
        k += 1
        if word[0] not in "-<":
            name = name or word  # the first word that is no flag's
        elif word in ("-b", "--body", "<<<"):
            body = words[k] if k < len(words) else None
            k += 1
        elif word.startswith("--body="):
            body = (s + 7, e)
        elif word.startswith("<<<"):
            body = (s + 3, e)
        elif word.startswith("-b") and word[1] != "-":
            body = (s + 2 + (word[2] == "="), e)  # -b<value>, -b=<value> (pflag's short forms)
        elif word in _GH_VALUE_FLAGS:
            k += 1  # --repo owner/name: the flag's value, not the name
    if body is None:
        body = piped
    if body is None:
        return
    if variable:
        start, end = _unquoted(text, body)
        upper = name.strip("\"'\\").upper()
        if not (_env_name(upper) and _env_secret(upper, text[start:end])):
            return  # gh variable set NODE_VERSION --body 20: not a secret
    yield from _cli_secret(text, body)


def _aws_set_value(text: str, words: list[Span]) -> Iterator[Span]:
    """``aws … configure set <key> <value>`` (``words``: those after ``configure``): the
    value, when ``key = value`` is a secret assignment (``_assigned_secret``)."""
    positional: list[Span] = []
    k = 0
    while k < len(words):
        s, e = words[k]
        word = text[s:e]
        if word.startswith("--"):
            if "=" not in word and word not in _AWS_BOOLEAN:
                k += 1  # --profile dev
        else:
            positional.append(words[k])
        k += 1
    if len(positional) < 3 or text[slice(*positional[0])] != "set":
        return
    key = text[slice(*_unquoted(text, positional[1]))].rpartition(".")[2]
    start, end = _unquoted(text, positional[2])
    if _assigned_secret(key, text[start:end]):
        yield start, end


# Windows ``net use [<device>] [\\\\<server>\\<share>] [<password> | *] [/user:<name>] …``:
# the positional word after the share is the password (``*`` asks for it); the switches
# (``/user:…``, ``/persistent:no``, ``/savecred``, ``/delete``) may come before or after it.
# A device is a drive letter, ``*`` (the next free one) or a printer port. ``net user <name>
# <password> [/add]`` sets that account's password: its second positional word.
_NET_DEVICE = _Lazy(r"(?:[a-z]|lpt[1-9]|com[1-9]):|\*|prn")


def _net_use_values(text: str, low: str) -> Iterator[Span]:
    """``net use … \\\\server\\share <password>`` and ``net user <name> <password>``: the
    password (see above)."""
    subject = low if len(low) == len(text) else _lower_same_length(text)
    device = _NET_DEVICE()
    pos = 0
    while (i := subject.find("net use", pos)) >= 0:
        pos = i + 7
        user = subject[pos : pos + 1] == "r"
        pos += user
        if not _boundary_before(subject, i) or subject[pos : pos + 1] not in (" ", "\t"):
            continue  # dotnet use, net users
        words = _command_words(text, pos)
        if words:
            pos = words[-1][1]
        share = False  # net use: the share was read; net user: the account's name was
        for span in words:
            start, end = _unquoted(text, span)
            word = subject[start:end]
            if word.startswith("/"):
                if word in ("/delete", "/d"):
                    break  # net use Z: /delete, net user alice /delete: no password
                continue
            if share:
                if word != "*":
                    yield from _cli_secret(text, span)
                break
            if user or word.startswith("\\\\"):
                share = True
            elif device.fullmatch(word) is None:
                break  # not net use's arguments as documented: read nothing


def _htpasswd_value(text: str, words: list[Span]) -> Iterator[Span]:
    """``htpasswd -b … <file> <user> <password>`` / ``-nb … <user> <password>``: the
    password. Flags come first (Apache's own parser stops at the first other word)."""
    flags = ""
    k = 0
    while k < len(words):
        word = text[slice(*words[k])]
        if not word.startswith("-") or len(word) < 2:
            break
        flags += word[1:]
        if word[-1] in _HTPASSWD_VALUE_FLAGS:
            k += 1  # -C 12: the cost
        k += 1
    if "b" not in flags:
        return  # htpasswd -c file user: the password is asked for
    password = k + (1 if "n" in flags else 2)
    if password < len(words):
        yield from _cli_secret(text, words[password])


# Calls and tuples that take a user and a password as positional arguments, from each API's
# own documentation: the callee's name (its last identifier, lowered) -> (the password's
# index, fewest arguments, most arguments). Python requests/httpx ``HTTPBasicAuth(user, pw)``
# (``HTTPDigestAuth``, ``HTTPProxyAuth``, aiohttp/httpx ``BasicAuth``), Go's
# ``req.SetBasicAuth(user, pw)``, ``url.UserPassword(user, pw)`` and ``ssh.Password(pw)``,
# pika's ``PlainCredentials(user, pw)``, .NET ``NetworkCredential(user, pw[, domain])`` and
# ``DirectoryEntry(path, user, pw[, type])``, Java's ``PasswordAuthentication(user,
# pw.toCharArray())``, Apache HttpClient's ``UsernamePasswordCredentials(user, pw)``, Azure's
# ``UsernamePasswordCredential(client_id, user, pw)``, ``DriverManager.getConnection(url, user,
# pw)``, python-ldap's ``simple_bind_s(dn, pw)``, smtplib/imaplib/ftplib ``login(user, pw)``,
# PHP ``new PDO(dsn, user, pw[, options])`` and ``mysqli(host, user, pw, …)``, OkHttp's
# ``Credentials.basic(user, pw)``, Python's ``ftplib.FTP(host, user, pw)`` (``FTP_TLS``), and
# Ruby's Net::HTTP ``req.basic_auth user, pw`` (with or without parentheses).
_CREDENTIAL_CALLS: dict[str, tuple[int, int, int]] = {
    "httpbasicauth": (1, 2, 2), "httpdigestauth": (1, 2, 2), "httpproxyauth": (1, 2, 2),
    "basicauth": (1, 2, 2), "setbasicauth": (1, 2, 2), "digestauth": (1, 2, 2),
    "plaincredentials": (1, 2, 2), "userpassword": (1, 2, 2), "password": (0, 1, 1),
    "networkcredential": (1, 2, 3), "usernamepasswordcredentials": (1, 2, 2),
    "usernamepasswordcredential": (2, 3, 3), "passwordauthentication": (1, 2, 2),
    "simple_bind_s": (1, 2, 2), "simple_bind": (1, 2, 2), "login": (1, 2, 2),
    "directoryentry": (2, 3, 4), "getconnection": (2, 3, 3), "pdo": (2, 3, 4),
    "mysqli": (2, 3, 6), "mysqli_connect": (2, 3, 6), "mysql_connect": (2, 3, 5),
    "basic": (1, 2, 2), "ftp": (2, 3, 4), "ftp_tls": (2, 3, 4), "basic_auth": (1, 2, 2),
}  # fmt: skip
# callees whose name is too common alone: Go's ``ssh.Password(pw)``, OkHttp's
# ``Credentials.basic(user, pw)``
_QUALIFIED_CALLEES = {"password": "ssh.", "basic": "credentials."}
# requests/httpx ``auth=(user, pw)``, elasticsearch-py ``basic_auth=(…)`` / ``http_auth=(…)``
_AUTH_TUPLES = ("auth=(", "auth = (")
_CALLEE_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")


def _credential_call_finder(text: str, low: str) -> Iterator[Span]:
    """The password literal of a call or tuple that takes a user and a password
    (``_CREDENTIAL_CALLS``, ``_AUTH_TUPLES``), unless it is a placeholder or a variable."""
    subject = low if len(low) == len(text) else _lower_same_length(text)
    absent = _absent_in(subject)
    for key in _CREDENTIAL_KEYS:
        if key in absent:
            continue
        pos = 0
        while (i := subject.find(key, pos)) >= 0:
            pos = i + len(key)
            bare = key == "basic_auth "  # Ruby: basic_auth 'user', 'pass'
            if key in _AUTH_TUPLES:
                shape = (1, 2, 2)
            elif bare:
                if not _boundary_before(subject, i):
                    continue
                shape = (1, 2, 2)
            else:
                if key[-1] != "(":  # passwordcredential(s)(, simple_bind(_s)(
                    while pos < len(subject) and subject[pos] in _CALLEE_CHARS:
                        pos += 1
                    if subject[pos : pos + 1] != "(":
                        continue
                    pos += 1
                j = i = pos - 1  # the call's ``(``; its callee is the name before it
                while i > 0 and subject[i - 1] in _CALLEE_CHARS:
                    i -= 1
                callee = subject[i:j]
                shape = _CREDENTIAL_CALLS.get(callee, (-1, 0, 0))
                qualifier = _QUALIFIED_CALLEES.get(callee, "")
                if shape[0] < 0 or not subject.endswith(qualifier, 0, i):
                    continue  # autologin(…), a password(…) that is not Go's ssh.Password
            args = _call_args(text, pos, shape[2], bare)
            if args is None or len(args) < shape[1] or (span := args[shape[0]]) is None:
                continue
            value = text[span[0] : span[1]]
            if not value or value[0] in "$<{%" or _placeholder(value, identifiers=False):
                continue
            user = args[shape[0] - 1] if shape[0] else None
            if user is not None and text[user[0] : user[1]].lower() == value.lower():
                continue  # PlainCredentials('guest', 'guest'): the documented default pair
            yield span


# A Basic-auth pair encoded by hand: ``btoa("user:pass")`` (JavaScript), Node's
# ``Buffer.from("user:pass").toString("base64")``, Python's ``base64.b64encode(b"user:pass")``,
# PHP's ``base64_encode``, Ruby's ``Base64.strict_encode64``, Java's
# ``encodeToString("user:pass".getBytes())``, Go's ``EncodeToString([]byte("user:pass"))``, .NET's
# ``ToBase64String(Encoding.UTF8.GetBytes("user:pass"))``, and the shell's ``echo -n
# user:pass | base64``: the password after the first ``:`` of the literal. The literal is the
# call's first argument (or that of one call inside it); a name before the ``:`` holds no
# ``:``, blank, quote or template character, so ``f"{u}:{p}"``, ``${u}:${p}`` and
# ``user + ":" + pw`` (no literal pair) are kept, as is a ``data:`` URI.
_BASIC_LITERAL = _Lazy(
    r"[ \t]*+(?:\[\]byte\(|[A-Za-z_][\w.]{0,40}+\([ \t]*+)?[bu]?(\\?[\"'`])"
    r"([^\s:\"'`\\$%{}<>()]{1,64}+):([^\s\"'`\\]{4,128}+)\1"
)
_BASIC_ECHO = _Lazy(
    r"(?:echo|printf)(?:[ \t]++-[neE]{1,3}+)?(?:[ \t]++\\?[\"']%s\\?[\"'])?[ \t]++"
    r"(\\?[\"']?)([^\s:\"'`\\$%{}<>()|;&]{1,64}+):([^\s\"'`\\|;&]{4,128}+)\1[ \t]*+\Z"
)
_BASIC_REACH = 300  # characters of a line read back from ``| base64`` for its ``echo``


def _basic_pair_finder(text: str, low: str) -> Iterator[Span]:
    """The password of a ``user:password`` literal encoded for Basic auth by hand (see
    ``_BASIC_LITERAL``), unless it is a placeholder or a variable."""
    subject = low if len(low) == len(text) else _lower_same_length(text)
    absent = _absent_in(subject)
    literal, echo = _BASIC_LITERAL(), _BASIC_ECHO()
    for key in _BASIC_PAIR_KEYS:
        if key in absent:
            continue
        pos = 0
        while (i := subject.find(key, pos)) >= 0:
            pos = i + len(key)
            if key[-1] == "(":
                if not _boundary_before(subject, i) and subject[i - 1 : i] not in "._":
                    continue  # mybtoa(…); base64.b64encode(, strict_encode64(, urlsafe_b64encode(
                m = literal.match(text, pos)
                if m is None:
                    continue
                if key == "buffer.from(" and "base64" not in subject[m.end() : m.end() + 40]:
                    continue  # Buffer.from("a:b") read as text, not encoded
            else:
                start = line_start(text, i, _BASIC_REACH)
                if start < 0:
                    start = i - _BASIC_REACH  # a longer line: its last _BASIC_REACH characters
                at = max(subject.rfind("echo", start, i), subject.rfind("printf", start, i))
                if at < 0 or (m := echo.match(text, at, i)) is None:
                    continue
            user, value = m.group(2), m.group(3)
            if user.lower() == "data" or value.startswith("//"):
                continue  # a data: URI, a URL
            if _placeholder(value, identifiers=False):
                continue
            yield m.span(3)


# PowerShell's ``ConvertTo-SecureString "<password>" -AsPlainText -Force`` (also ``-String
# '<password>'``, and ``'<password>' | ConvertTo-SecureString -AsPlainText``): a plain-text
# password made a SecureString, as scripts pass one to ``-Password``/``PSCredential``.
# Without ``-AsPlainText`` the input is an encrypted standard string, and is kept.
_SECURE_STRING = "convertto-securestring"
_PIPED_LITERAL = _Lazy(
    r"(?:\\?\"([^\"\r\n\\]{1,256}+)\\?\"|'([^'\r\n\\]{1,256}+)')[ \t]*+\|[ \t]*+$"
)


def _secure_string_finder(text: str, low: str) -> Iterator[Span]:
    """The plain-text password given to ``ConvertTo-SecureString -AsPlainText`` (see above),
    unless it is a placeholder or a variable."""
    subject = low if len(low) == len(text) else _lower_same_length(text)
    pos = 0
    while (i := subject.find(_SECURE_STRING, pos)) >= 0:
        pos = i + len(_SECURE_STRING)
        words = _command_words(text, pos)
        flags = [subject[s:e].rstrip(")") for s, e in words]
        if "-asplaintext" not in flags:
            continue
        value: Span | None = None
        if "-string" in flags and flags.index("-string") + 1 < len(flags):
            value = words[flags.index("-string") + 1]
        elif words and not flags[0].startswith("-"):
            value = words[0]
        else:
            m = _PIPED_LITERAL().search(text, max(0, i - 300), i)
            value = m.span(m.lastindex or 1) if m is not None else None
        if value is not None:
            start, end = value
            if text[end - 1 : end] == ")" and text.count("(", start, end) == 0:
                end -= 1  # (ConvertTo-SecureString "…" -AsPlainText -Force): the group's )
            yield from _cli_secret(text, (start, end))


def _ssm_secure_values(text: str, low: str) -> Iterator[Span]:
    """``aws ssm put-parameter … --type SecureString --value <v>`` (either order, ``=`` or a
    space): the value, which SSM stores encrypted; a ``String`` parameter's value is no
    secret, and ``file://…`` names a file."""
    subject = low if len(low) == len(text) else _lower_same_length(text)
    pos = 0
    while (i := subject.find("put-parameter", pos)) >= 0:
        pos = i + len("put-parameter")
        words = _command_words(text, pos)
        if words:
            pos = words[-1][1]
        secure, value = False, None
        for k, (s, e) in enumerate(words):
            word = subject[s:e]
            nxt = words[k + 1] if k + 1 < len(words) else None
            if word == "--type" or word.startswith("--type="):
                kind = word[7:] if "=" in word else (subject[slice(*nxt)] if nxt else "")
                secure = kind.lstrip("\"'\\").startswith("securestring")  # SecureString"}
            elif word == "--value":
                value = nxt
            elif word.startswith("--value="):
                value = (s + 8, e)
        if secure and value is not None and not subject.startswith("file://", value[0]):
            yield from _cli_secret(text, value)


# OpenLDAP's client tools, ``ldap<op>``: all take the bind password as ``-w <password>``
_LDAP_OPS = ("search", "add", "modify", "delete", "whoami", "compare", "modrdn", "exop",
             "passwd")  # fmt: skip

# Commands that take a secret as an argument or on stdin, each from its tool's documentation:
# the command's words as typed (lowered, one space between) -> how the secret comes:
#   "secret" n: the n-th word after the command that is no flag is a secret, whatever it names
#   "named" n: the n-th, when the word before it names a secret (``NAME value``, judged as
#     ``NAME=value`` would be: the dotenv verdict on the upper-cased name)
#   "keyed": ``<key> <value>``, when ``key = value`` is a secret assignment (the
#     ``generic-assignment`` verdict, as for ``aws configure set``)
#   "stdin": the value ``echo``/``printf`` pipe into the command, or its ``<<<`` here-string
#   "stdin-pair": the password of the ``user:password`` piped in (``chpasswd``)
#   "assign": each ``NAME=value`` word, when ``NAME=value`` would be a ``.env`` secret
#   "slash": the password of Oracle's ``user/password[@db]`` connect word (not ``/nolog``)
#   "flag": the value of a flag of ``_SECRET_FLAGS`` (``-p v``, ``--pass=v``, see there)
# Words shaped ``name=value`` are no positional of a "secret" command (``vault login
# -method=userpass username=bob``: the token is the bare word).
_SECRET_COMMANDS: dict[str, tuple[str, int]] = {
    "cargo login": ("secret", 1),
    "ngrok authtoken": ("secret", 1),
    "ngrok config add-authtoken": ("secret", 1),
    "wandb login": ("secret", 1),
    "doppler secrets set": ("secret", 2),
    "dotnet user-secrets set": ("secret", 2),
    "netlify env:set": ("named", 2),
    "git config": ("keyed", 0),
    "npm config set": ("keyed", 0),
    "yarn config set": ("keyed", 0),
    "poetry config": ("keyed", 0),
    "wrangler secret put": ("stdin", 0),
    "vercel env add": ("stdin", 0),
    "gcloud secrets create": ("stdin", 0),
    "gcloud secrets versions add": ("stdin", 0),
    "docker secret create": ("stdin", 0),
    "gh auth login": ("stdin", 0),
    "firebase functions:secrets:set": ("stdin", 0),
    "vault login": ("secret", 1),
    "snyk auth": ("secret", 1),
    "rclone obscure": ("secret", 1),
    "neo4j-admin set-initial-password": ("secret", 1),
    "neo4j-admin dbms set-initial-password": ("secret", 1),
    "rabbitmqctl add_user": ("secret", 2),
    "rabbitmqctl change_password": ("secret", 2),
    "mc alias set": ("secret", 4),
    "mc config host add": ("secret", 4),
    "glab variable set": ("named", 2),
    "heroku config:set": ("assign", 0),
    "fly secrets set": ("assign", 0),
    "flyctl secrets set": ("assign", 0),
    "chpasswd": ("stdin-pair", 0),
    "sqlplus": ("slash", 0),
    "expdp": ("slash", 0),
    "impdp": ("slash", 0),
    "ssh-keygen": ("flag", 0),
    "sqlcmd": ("flag", 0),
    "doctl": ("flag", 0),
    "vsce": ("flag", 0),
    "ovsx": ("flag", 0),
    "netlify": ("flag", 0),
    "codecov": ("flag", 0),
    "codecovcli": ("flag", 0),
    "oc login": ("flag", 0),
    "poetry publish": ("flag", 0),
    "hatch publish": ("flag", 0),
    "cqlsh": ("flag", 0),
    "cypher-shell": ("flag", 0),
    **{f"ldap{op}": ("flag", 0) for op in _LDAP_OPS},
    "useradd": ("flag", 0),
    "usermod": ("flag", 0),
    "az keyvault secret set": ("flag", 0),
    "unrar": ("flag", 0),
    "lftp": ("flag", 0),
}

# The flags of a "flag" command that take a secret, each from its tool's manual and
# case-sensitive as they are (sqlcmd's ``-p`` prints statistics, ``-P`` is the password):
# the value is the next word, or glued after ``=`` for a long flag; a flag ending ``*`` also
# takes it glued (``unrar -p<pw>``), one ending ``,`` takes the part after the comma of
# ``user,password`` (``lftp -u``). A flag given alone asks for the secret, and is kept.
_SECRET_FLAGS: dict[str, tuple[str, ...]] = {
    "ssh-keygen": ("-N", "-P"),  # the new and the old passphrase
    "sqlcmd": ("-P",),
    "doctl": ("-t", "--access-token"),
    "vsce": ("-p", "--pat"),
    "ovsx": ("-p", "--pat"),
    "netlify": ("--auth",),
    "codecov": ("-t", "--token"),
    "codecovcli": ("-t", "--token"),
    "oc login": ("-p", "--password", "--token"),
    "poetry publish": ("-p", "--password"),
    "hatch publish": ("-a", "--auth"),
    "cqlsh": ("-p", "--password"),
    "cypher-shell": ("-p", "--password"),
    **{f"ldap{op}": ("-w",) for op in _LDAP_OPS if op != "passwd"},
    "ldappasswd": ("-w", "-s", "-a"),  # the bind, the new and the old password
    "useradd": ("-p", "--password"),  # an encrypted password: a hash, no less secret
    "usermod": ("-p", "--password"),
    "az keyvault secret set": ("--value",),
    "unrar": ("-p*",),
    "lftp": ("-u,",),
}


def _secret_command_finder(text: str, low: str) -> Iterator[Span]:
    """The secret a command of ``_SECRET_COMMANDS`` is given (see there), unless it is a
    placeholder, a variable or a flag."""
    subject = low if len(low) == len(text) else _lower_same_length(text)
    for command, (how, nth) in _SECRET_COMMANDS.items():
        pos = 0
        while (i := subject.find(command, pos)) >= 0:
            pos = i + len(command)
            nxt = subject[pos : pos + 1]
            if not _boundary_before(subject, i):
                continue  # mygit config
            if nxt not in ("", " ", "\t") and (
                not how.startswith("stdin") or nxt.isalnum() or nxt in "_-./:="
            ):
                # cargo loginx, "cargo login" in prose, a JSON string's "vault login" (its
                # words would run into the next key); a command reading stdin may end its
                # string (``echo 'u:p' | chpasswd"}``)
                continue
            if how == "stdin-pair":
                yield from _piped_pairs(text)  # one scan finds them all
                break
            if how == "flag":
                dash = text.find("-", pos, pos + _ARGS_REACH)
                if dash < 0:
                    continue  # ``doctl x``: no flag anywhere near
                pos = _command_end(text, pos)
                if dash < pos:
                    yield from _flag_secrets(text, i + len(command), pos, command)
                continue
            # the secret is among a command's first words (after a few flags); the values of
            # a setter of NAME=value pairs may go on
            words = _command_words(text, pos, -1 if how in ("assign", "keyed") else nth + 5)
            if words:
                pos = max(pos, words[-1][1])
            if how == "stdin":
                yield from _stdin_secret(text, i, words)
                continue
            plain = _positional(text, words)
            if how == "assign":
                yield from _assigned_words(text, plain)
            elif how == "slash":
                yield from _slash_connect(text, plain)
            elif how == "secret":
                name_is = _NAME_IS().match
                plain = [w for w in plain if name_is(text, *_unquoted(text, w)) is None]
                if nth <= len(plain):
                    yield from _command_secret(text, plain[nth - 1])
            elif how == "keyed":
                yield from _keyed_secret(text, plain)
            elif nth <= len(plain):
                value = plain[nth - 1]
                if how == "named":
                    name = text[slice(*_unquoted(text, plain[nth - 2]))].upper()
                    start, end = _unquoted(text, value)
                    if not (_env_name(name) and _env_secret(name, text[start:end])):
                        continue  # netlify env:set NODE_VERSION 20: not a secret
                yield from _command_secret(text, value)


# the flags of these commands that take the next word as their value (doppler's ``-p
# <project> -c <config>``, netlify's ``--context <ctx>``, dotnet's ``--project <path>``,
# cargo's ``--registry <name>``, wandb's ``--host <url>``, git's ``--file <path>``, mc's
# ``--api S3v4``, vault's Go-style ``-path <p>``, ``-method <m>``, ``-ns <ns>``)
_SECRET_COMMAND_VALUE_FLAGS = frozenset((
    "-p", "--project", "-c", "--config", "--context", "--scope", "--filter", "--id",
    "--configuration", "--registry", "--host", "-f", "--file", "--location", "--api",
    "-path", "-method", "-ns", "-namespace", "-address", "-format", "-field",
))  # fmt: skip


def _command_end(text: str, pos: int) -> int:
    """Where the command going on at ``pos`` ends: at the first of ``_COMMAND_CUTS`` after
    it, or ``_ARGS_REACH`` characters on (a few C scans; a quoted ``;`` ends it too)."""
    end = min(len(text), pos + _ARGS_REACH)
    for c in _COMMAND_CUTS:
        if (k := text.find(c, pos, end)) >= 0:
            end = k
    return end


_NAME_IS = _Lazy(r"[A-Za-z_][\w.-]*+=[^=]")  # ``name=value``; not base64's ``…==``
# one lower-case word of prose, maybe with its punctuation: ``After vault login succeeds``,
# ``ssh-keygen -N sets the passphrase``, ``codecov -t flag:``
_PROSE_WORD = _Lazy(r"[a-z]++(?:[-_][a-z]++)*+[.,:;!?)]?")  # also change_password


def _opened(text: str, span: Span) -> tuple[Span, bool]:
    """``span`` without the quotes around it (``_unquoted``), and whether it was quoted
    whole; else without an opening quote whose close is not the word's end (``\\"<v>\\""}``
    in JSON-escaped then raw text, ``'<v>' to …`` in prose)."""
    start, end = _unquoted(text, span)
    if (start, end) != span:
        return (start, end), True
    for q in ('\\"', '"', "'"):
        if text.startswith(q, start):
            return (start + len(q), end), False
    return (start, end), False


def _command_secret(text: str, span: Span, prose: bool = True) -> Iterator[Span]:
    """The secret word ``span`` of a secret-taking command, as ``_cli_secret`` gives it,
    unless it is under 4 characters or, with ``prose``, an unquoted word of prose
    (``_PROSE_WORD``: a lower-case one-word password is read as prose, and kept). A word
    not quoted whole ends at a quote or a shell metacharacter (`` ` ``, ``(``, ``)``, ``<``,
    ``>``): a JSON string's end (``"vault login <t>", "cwd": …`` keeps the rest of the
    object), prose's closing quote (``Run 'vault login <t>' to …``), ``$(… <t>)``."""
    (start, end), whole = _opened(text, span)
    if not whole and (m := _WORD_STOP().search(text, start, end)) is not None:
        end = m.start()
    if end - start < 4 or (prose and not whole and _PROSE_WORD().fullmatch(text, start, end)):
        return
    yield from _cli_secret(text, (start, end))


_WORD_STOP = _Lazy(r"\\?[\"'`()<>]")  # what ends an unquoted shell word inside it


# A flag and its value, for the flag commands (``_SECRET_FLAGS``): a dash word then blanks
# or ``=`` then the value (group 2), or a one-letter flag with the value glued (groups 3, 4:
# ``-P<pw>``); a value is quoted, or 4+ characters that start with no dash or backslash.
# One scan of the command finds every candidate; ``_flag_secrets`` keeps its command's.
_FLAG_VALUE = _Lazy(
    r"(?<![^\s\"'\\])(?:(--?[A-Za-z][\w-]*+)(?:[ \t]++|=)"
    r"(\\?\"[^\"\n\\]{1,256}+\\?\"|'[^'\n]{1,256}+'|[^\s\"'`;|&\\-][^\s\"'`;|&]{3,}+)"
    r"|(-[A-Za-z])(\\?\"[^\"\n\\]{1,256}+\\?\"|'[^'\n]{1,256}+'|[^\s\"'`;|&\\-][^\s\"'`;|&]{3,}+))"
)


def _flag_kinds(flags: tuple[str, ...]) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """A command's secret flags (``_SECRET_FLAGS``) as (those taking the next word or, when
    long, ``=<v>``; those taking ``user,<pw>``; those taking the value glued: every
    one-letter flag, as getopt allows, ``-P<pw>``, and those marked ``*``)."""
    plain = frozenset(f for f in flags if not f.endswith(("*", ",")))
    paired = frozenset(f[:-1] for f in flags if f.endswith(","))
    glued = frozenset(f[:-1] for f in flags if f.endswith("*"))
    return plain, paired, glued | {f for f in plain if len(f) == 2}


_FLAG_KINDS = {command: _flag_kinds(flags) for command, flags in _SECRET_FLAGS.items()}


def _flag_secrets(text: str, start: int, end: int, command: str) -> Iterator[Span]:
    """The values the secret flags of ``command`` (``_SECRET_FLAGS``) are given between
    ``start`` and ``end``, its command's extent (``_FLAG_VALUE``)."""
    plain, paired, glued = _FLAG_KINDS[command]
    for m in _FLAG_VALUE().finditer(text, start, end):
        flag = m.group(1)
        value: Span | None = None
        if flag is None:  # a one-letter flag, the value glued
            if m.group(3) in glued:
                value = m.span(4)
        elif flag in plain:
            value = m.span(2)
        elif flag in paired:
            vs, ve = _unquoted(text, m.span(2))
            comma = text.find(",", vs, ve)
            value = (comma + 1, ve) if comma >= 0 else None
        elif flag[:2] in glued and len(flag) > 2 and flag[1] != "-":
            value = (m.start(1) + 2, m.end(1))  # -pS3cret then another word: glued
        if value is not None and value[1] - value[0] >= 4:
            yield from _command_secret(text, value)


def _assigned_words(text: str, plain: list[Span]) -> Iterator[Span]:
    """The values of the ``NAME=value`` words of ``plain`` the ``.env`` verdict calls secret
    (``heroku config:set STRIPE_KEY=…``, ``fly secrets set SESSION_SECRET=…``; not
    ``PORT=8080``, which fly users store as a secret too)."""
    for word in plain:
        start, end = _unquoted(text, word)
        eq = text.find("=", start, end)
        if eq <= start or end - eq <= 4:
            continue
        name = text[start:eq]
        vs, ve = _unquoted(text, (eq + 1, end))
        if not name.replace("_", "").isalnum():
            continue
        if _env_name(name.upper()) and _env_secret(name.upper(), text[vs:ve]):
            yield from _command_secret(text, (vs, ve), prose=False)


_ORACLE_USER = _Lazy(r"[A-Za-z_][\w$#]{0,127}+")  # an Oracle user name (unquoted)


def _slash_connect(text: str, plain: list[Span]) -> Iterator[Span]:
    """The password of Oracle's ``user/password[@db]`` connect word, the first positional
    (``sqlplus scott/<pw>@orcl``, ``expdp system/<pw>``); ``/nolog``, ``/ as sysdba``
    (operating-system login) and ``user@db`` (asks) give none."""
    if not plain:
        return
    (start, end), _ = _opened(text, plain[0])
    slash = text.find("/", start, end)
    if slash <= start or _ORACLE_USER().fullmatch(text, start, slash) is None:
        return  # /nolog, @script.sql, user@//host/service, parfile=/x.par, ../init.sql
    blank = text.find(" ", slash, end)  # "sys/<pw> as sysdba", quoted whole
    end = blank if blank >= 0 else end
    at = text.rfind("@", slash, end)
    yield from _command_secret(text, (slash + 1, at if at > slash else end))


# ``echo [-n|-e] 'user:<pw>' | [sudo [-flags]] chpasswd``: the user (group 1), the password
# (group 2)
_PIPED_PAIR = _Lazy(
    r"echo[ \t]++(?:-[neE]{1,2}+[ \t]++)?(?:\\?[\"'])?([^\s\"'`;|&\\:]{1,64}+):"
    r"([^\s\"'`;|&\\]{4,256}+)(?:\\?[\"'])?[ \t]*+\|[ \t]*+"
    r"(?:sudo[ \t]++(?:-[A-Za-z]++[ \t]++){0,4}+)?chpasswd"
)


def _piped_pairs(text: str) -> Iterator[Span]:
    """The passwords of the ``user:password`` pairs ``echo`` pipes into ``chpasswd``
    (``_PIPED_PAIR``), in one scan of the text."""
    for m in _PIPED_PAIR().finditer(text):
        yield from _command_secret(text, m.span(2))


def _positional(text: str, words: list[Span]) -> list[Span]:
    """The words of ``words`` that are no flag and no flag's value
    (``_SECRET_COMMAND_VALUE_FLAGS``)."""
    plain: list[Span] = []
    skip = False
    for s, e in words:
        word = text[s:e]
        if skip:
            skip = False
        elif word.startswith("-"):
            skip = word in _SECRET_COMMAND_VALUE_FLAGS
        else:
            plain.append((s, e))
    return plain


def _stdin_secret(text: str, i: int, words: list[Span]) -> Iterator[Span]:
    """What the command at ``i`` (its ``words`` after it) reads on stdin: a ``<<< <v>``
    here-string among its words, else the value ``echo``/``printf`` pipe into the command."""
    for k, (s, e) in enumerate(words):
        word = text[s:e]
        if word == "<<<" and k + 1 < len(words):
            yield from _command_secret(text, words[k + 1])
            return
        if word.startswith("<<<") and len(word) > 3:
            yield from _command_secret(text, (s + 3, e))
            return
    start = _command_start(text, i)
    while start < i and text[start] in " \t":
        start += 1
    piped = _piped_value(text, start)
    if piped is not None:
        yield from _command_secret(text, piped)


def _keyed_secret(text: str, plain: list[Span]) -> Iterator[Span]:
    """``<key> <value>`` of a config command (``git config github.token <v>``, ``yarn config
    set npmAuthToken <v>``, ``poetry config pypi-token.pypi <v>``): the value when ``key =
    value`` is a secret assignment; poetry's ``http-basic.<repo> <user> <password>``: the
    password."""
    if len(plain) < 2:
        return
    key = text[slice(*_unquoted(text, plain[0]))]
    if key.lower().startswith("http-basic.") and len(plain) >= 3:
        yield from _cli_secret(text, plain[2])
        return
    start, end = _unquoted(text, plain[1])
    if _assigned_secret(key.replace(".", "_").replace("-", "_"), text[start:end]):
        yield start, end


# A ``.pgpass`` line, ``hostname:port:database:username:password`` (PostgreSQL's libpq
# documentation, "The Password File"; each of the first four may be ``*``): the password.
# The host holds a letter or a dot, the port is a number without a leading zero, the
# database and the user hold a letter or ``_`` (not a timestamp's ``T10:30:45:1234:…``), the
# password a character other than a letter (not a Redis key ``app:*:user:cart:items``, an
# ACL ``User:*:Operation:Read:Allow``; an all-letter password is kept); the line stands
# alone, after blanks, a quote, ``>`` or a ``\n`` escape, and ends at blanks, a quote or
# shell syntax (``…:<pw>>>~/.pgpass``).
_PGPASS_LINE = _Lazy(
    r"(?:(?<![^\s\"'>])|(?<=\\n))(?:\*|(?=[0-9_-]*+[A-Za-z.])[A-Za-z0-9][\w.-]{0,252}+)"
    r":(?:\*|[1-9]\d{0,4}+):(?:\*|(?=[0-9.$-]*+[A-Za-z_])[\w.$-]{1,63}+)"
    r":(?:\*|(?=[0-9.@$-]*+[A-Za-z_])[\w.@$-]{1,63}+)"
    r":((?=[A-Za-z]*+[^\sA-Za-z:\"'`\\<>|&;])[^\s:\"'`\\<>|&;]{4,128}+)(?![^\s\"'`\\<>|&;),])"
)
_PGPASS_REACH = 400  # characters of a line read around its keyword


def _pgpass_finder(text: str, low: str) -> Iterator[Span]:
    """The password of a ``.pgpass`` line (``_PGPASS_LINE``), unless it is a placeholder or
    a variable: on every line when the text names the file, else on the lines holding
    PostgreSQL's default port or a wildcard field (the rule's keywords). Each stretch of
    text is scanned once, however many keywords it holds."""
    rx = _PGPASS_LINE()
    n = len(text)
    windows = [(0, n)] if ".pgpass" in low or "pgpass.conf" in low else []
    for keyword in (":5432:", ":*:") if not windows else ():
        pos = 0
        while (k := text.find(keyword, pos)) >= 0:
            lo, hi = max(0, k - _PGPASS_REACH), min(n, k + _PGPASS_REACH)
            ends = [e for e in (text.find("\n", k, hi), text.find("\\n", k, hi)) if e >= 0]
            hi = min(ends, default=hi)
            windows.append((max(lo, text.rfind("\n", lo, k) + 1), hi))
            pos = max(k + len(keyword), hi)  # the keywords before the line's end are in it
    scanned = 0
    for lo, hi in sorted(windows):
        for m in rx.finditer(text, max(lo, scanned), hi):
            if not _placeholder(m.group(1), identifiers=False):
                yield m.span(1)
        scanned = max(scanned, hi)
