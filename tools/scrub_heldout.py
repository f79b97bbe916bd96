"""Build the scrubber's held-out corpus from four other scanners' own public test data.

    python tools/scrub_heldout.py [--full] GITLEAKS DETECT_SECRETS TRUFFLEHOG NOSEYPARKER

Without ``--full`` it writes the committed corpus, where trufflehog (AGPL-3.0) contributes its
fake token strings only; ``--full`` writes the git-ignored ``scrub_heldout.full.dat`` with
trufflehog's test inputs as written, for local runs (``bench/scrub.py --heldout-full``).
Each positive gets ``format`` (``self`` / ``context``) from the source project's own rule
("token formats" below).

Each argument is a git directory (a clone or a bare mirror) of, in order, gitleaks/gitleaks,
Yelp/detect-secrets, trufflesecurity/trufflehog and praetorian-inc/noseyparker. Their test
data is read at HEAD with ``git show`` (nothing is run):

- gitleaks: the ``tps``/``fps`` lists in ``cmd/generate/config/rules/*.go``, evaluated by a small
  Go-expression reader (string literals, ``+``, ``fmt.Sprintf``, ``secrets.NewSecret(regex)``
  generated here from the regex, ``utils.GenerateSampleSecrets`` with gitleaks' own contexts);
  the secret of a literal positive is what the rule's regex in ``config/gitleaks.toml`` captures;
- detect-secrets: the string cases of ``tests/plugins/*_test.py`` (``pytest.mark.parametrize``
  tuples whose last element says whether the plugin should fire);
- trufflehog: ``pkg/detectors/*/*_test.go`` pattern tests (``input`` and ``want``);
- Nosey Parker: ``examples`` / ``negative_examples`` of its rules, the secret being the rule's
  capture group.

The cases are written obfuscated (``tests/trace_ingest/scrub_heldout.py`` decodes them at run
time): a realistic token is never stored in the repository in plain text. The trail rules were
not written against these lists; see docs/scrubbing.md ("Held-out evaluation").
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import tomllib
import warnings
from collections.abc import Iterator
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tests", "trace_ingest"))
from scrub_heldout import (  # noqa: E402
    CORPUS_PATH,
    FULL_CORPUS_PATH,
    credential_reading,
    encode_corpus,
    positive_prefixes,
)


def git_show(repo: str, path: str) -> str:
    return subprocess.run(
        ["git", "--git-dir", repo, "show", f"HEAD:{path}"],
        check=True,
        capture_output=True,
        text=True,
        errors="replace",
    ).stdout


def git_ls(repo: str, prefix: str) -> list[str]:
    out = subprocess.run(
        ["git", "--git-dir", repo, "ls-tree", "-r", "--name-only", "HEAD", prefix],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return out.split()


def git_head(repo: str) -> str:
    return subprocess.run(
        ["git", "--git-dir", repo, "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()


# ----------------------------------------------------------------------------- regex -> text


def generate(pattern: str, rng: random.Random) -> str:
    """A random string matching ``pattern`` (as gitleaks' ``secrets.NewSecret`` does)."""
    pattern = pattern.replace("(?i)", "")
    tree = sre_parse.parse(pattern)
    return "".join(_gen(tree, rng))


_CATS = {
    sre_parse.CATEGORY_DIGIT: "0123456789",
    sre_parse.CATEGORY_WORD: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_",
    sre_parse.CATEGORY_SPACE: " ",
}


def _gen(tree: Any, rng: random.Random) -> Iterator[str]:
    for op, av in tree:
        name = str(op)
        if name == "LITERAL":
            yield chr(av)
        elif name == "IN":
            yield rng.choice(_charset(av))
        elif name == "ANY":
            yield rng.choice("abcdefghijklmnopqrstuvwxyz0123456789")
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            lo, hi, sub = av
            hi = lo + 10 if hi == sre_parse.MAXREPEAT else hi
            for _ in range(rng.randint(lo, hi)):
                yield from _gen(sub, rng)
        elif name == "SUBPATTERN":
            yield from _gen(av[-1], rng)
        elif name == "ATOMIC_GROUP":
            yield from _gen(av, rng)
        elif name == "BRANCH":
            yield from _gen(rng.choice(av[1]), rng)
        elif name == "CATEGORY":
            yield rng.choice(_CATS.get(av, "x"))
        elif name in ("AT", "ASSERT", "ASSERT_NOT", "GROUPREF"):
            continue
        elif name == "NOT_LITERAL":
            yield "x" if av != ord("x") else "y"
        else:
            raise ValueError(f"cannot generate {name}")


def _charset(items: Any) -> str:
    chars: list[str] = []
    negate = False
    for op, av in items:
        name = str(op)
        if name == "LITERAL":
            chars.append(chr(av))
        elif name == "RANGE":
            chars.extend(chr(c) for c in range(av[0], av[1] + 1))
        elif name == "CATEGORY":
            chars.extend(_CATS.get(av, ""))
        elif name == "NEGATE":
            negate = True
    if negate:
        base = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
        return "".join(c for c in base if c not in chars) or "x"
    return "".join(chars) or "x"


# ----------------------------------------------------------------------------- Go reader

_TOKEN = re.compile(
    r'"(?:[^"\\\n]|\\.)*"|`[^`]*`|\'(?:[^\'\\]|\\.)\'|//[^\n]*|/\*.*?\*/'
    r"|[A-Za-z_][A-Za-z0-9_.]*|\d+|\.\.\.|:=|[-+*/%(){}\[\],:;=<>!&|.]|\s+",
    re.S,
)


def go_tokens(src: str) -> list[str]:
    out = []
    for m in _TOKEN.finditer(src):
        t = m.group(0)
        if t.isspace() or t.startswith(("//", "/*")):
            continue
        out.append(t)
    return out


def go_string(tok: str) -> str:
    if tok.startswith("`"):
        return tok[1:-1]
    text: str = json.loads(
        tok.replace("\\'", "'").replace("\\x60", "`")
        if "\\x" not in tok
        else re.sub(r"\\x([0-9a-fA-F]{2})", lambda m: "\\u00" + m.group(1), tok)
    )
    return text


class Unsupported(Exception):
    pass


class GoEval:
    """Evaluates the string expressions the test files use; raises Unsupported otherwise."""

    def __init__(self, toks: list[str], env: dict[str, Any], rng: random.Random) -> None:
        self.t = toks
        self.env = env
        self.rng = rng

    def expr(self, i: int) -> tuple[Any, int]:
        val, i = self.primary(i)
        while i < len(self.t) and self.t[i] == "+":
            rhs, i = self.primary(i + 1)
            if isinstance(val, str) and isinstance(rhs, str):
                val = val + rhs
            else:
                raise Unsupported("+ of non-strings")
        return val, i

    def args(self, i: int) -> tuple[list[Any], int]:
        assert self.t[i] == "("
        i += 1
        out: list[Any] = []
        while self.t[i] != ")":
            v, i = self.expr(i)
            if self.t[i] == "...":
                i += 1
                if not isinstance(v, list):
                    raise Unsupported("spread")
                out.extend(v)
            else:
                out.append(v)
            if self.t[i] == ",":
                i += 1
        return out, i + 1

    def primary(self, i: int) -> tuple[Any, int]:
        tok = self.t[i]
        if tok[0] in '"`':
            return go_string(tok), i + 1
        if tok.isdigit():
            return int(tok), i + 1
        if tok == "[" and self.t[i + 1] == "]":  # []string{...}
            j = i + 2
            while self.t[j] != "{":
                j += 1
            return self.brace_list(j)
        if tok == "map":
            j = i
            while self.t[j] != "{":
                j += 1
            return self.brace_map(j)
        if tok.startswith(("utils.", "secrets.", "fmt.", "strings.", "string")) or tok == "append":
            if self.t[i + 1] != "(":
                raise Unsupported(tok)
            args, j = self.args(i + 1)
            return self.call(tok, args), j
        if tok in self.env:
            return self.env[tok], i + 1
        raise Unsupported(tok)

    def brace_list(self, i: int) -> tuple[list[Any], int]:
        assert self.t[i] == "{"
        i += 1
        out: list[Any] = []
        while self.t[i] != "}":
            if self.t[i] == "{":  # a struct literal inside: not a string list
                raise Unsupported("struct")
            v, i = self.expr(i)
            if self.t[i] == "...":
                i += 1
                out.extend(v)
            else:
                out.append(v)
            if self.t[i] == ",":
                i += 1
        return out, i + 1

    def brace_map(self, i: int) -> tuple[list[Any], int]:
        i += 1
        out: list[Any] = []
        while self.t[i] != "}":
            _k, i = self.expr(i)
            if self.t[i] != ":":
                raise Unsupported("map")
            v, i = self.expr(i + 1)
            out.append(v)
            if self.t[i] == ",":
                i += 1
        return out, i + 1

    def call(self, name: str, args: list[Any]) -> Any:
        short = name.split(".")[-1]
        if name == "append":
            base = list(args[0]) if isinstance(args[0], list) else [args[0]]
            return base + list(args[1:])
        if short in ("Numeric", "Hex", "AlphaNumeric", "AlphaNumericExtendedShort",
                     "AlphaNumericExtended", "AlphaNumericExtendedLong"):  # fmt: skip
            cls = {
                "Numeric": "0-9", "Hex": "a-f0-9", "AlphaNumeric": "a-z0-9",
                "AlphaNumericExtendedShort": "a-z0-9_-", "AlphaNumericExtended": "a-z0-9=_\\-",
                "AlphaNumericExtendedLong": "a-z0-9\\/=_\\+\\-",
            }[short]  # fmt: skip
            return f"[{cls}]{{{args[0]}}}"
        if short == "Hex8_4_4_4_12":
            return r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
        if short == "NewSecret":
            return generate(args[0], self.rng)
        if short == "GenerateSampleSecrets":
            return sample_secrets(args[0], args[1])
        if short == "GenerateSampleSecret":
            return f'{args[0]}_api_token = "{args[1]}"'
        if name == "fmt.Sprintf":
            return sprintf(args[0], args[1:])
        if name == "strings.Repeat":
            return args[0] * int(args[1])
        if name == "strings.ToUpper":
            return args[0].upper()
        if name == "strings.ToLower":
            return args[0].lower()
        if name == "strings.Join":
            return args[1].join(args[0])
        if name == "string" and args and isinstance(args[0], str):
            return args[0]
        raise Unsupported(name)


def sprintf(fmt: str, args: list[Any]) -> str:
    it = iter(args)

    def one(m: re.Match[str]) -> str:
        if m.group(0) == "%%":
            return "%"
        try:
            return str(next(it))
        except StopIteration as exc:
            raise Unsupported("sprintf arity") from exc

    return re.sub(r"%%|%[-+# 0-9.]*[svdqx]", one, fmt)


def sample_secrets(identifier: str, secret: str) -> list[str]:
    templates = [
        '{i}Token="{s}"', '{i}Token = "{s}"', "{i}Token={s}", "{i}Token = {s}",
        '{\n    "{i}_token": "{s}"\n}', '{"config.ini": "{I}_TOKEN={s}\\nBACKUP_ENABLED=true"}',
        "<{i}Token>\n    {s}\n</{i}Token>", "{i}_token: {s}", "{i}_token: '{s}'",
        '{i}_token: "{s}"', 'string {i}Token = "{s}";', 'var {i}Token string = "{s}"',
        '{i}Token := "{s}"', "{i}Token := `{s}`", 'String {i}Token = "{s}";',
        'var {i}Token = "{s}"', '${i}Token .= "{s}"', "{i}Token = '{s}'", '{i}Token = "{s}"',
        'System.setProperty("{I}_TOKEN", "{s}")', '  "{i}Token" => "{s}"',
        '{i}_TOKEN = "{s}"', '{i}_TOKEN := "{s}"', '{i}_TOKEN ::= "{s}"',
        '{i}_TOKEN :::= "{s}"', '{i}_TOKEN ?= "{s}"',
    ]  # fmt: skip
    return [
        t.replace("{i}", identifier).replace("{I}", identifier.upper()).replace("{s}", secret)
        for t in templates
    ]


def go_env(toks: list[str], rng: random.Random) -> dict[str, Any]:
    """String variables and constants (``x = "…"``, ``x := "…"``) that evaluate."""
    env: dict[str, Any] = {}
    ev = GoEval(toks, env, rng)
    for i in range(1, len(toks) - 1):
        if toks[i] in ("=", ":=") and re.fullmatch(r"[A-Za-z_]\w*", toks[i - 1]):
            try:
                v, _ = ev.expr(i + 1)
            except (Unsupported, IndexError, AssertionError, ValueError, KeyError, TypeError):
                continue
            if isinstance(v, str):
                env[toks[i - 1]] = v
    return env


# ----------------------------------------------------------------------------- sources


def case(
    src: str,
    family: str,
    kind: str,
    text: str,
    secrets: list[str],
    rule: str,
    fmt: str | None = None,
) -> dict[str, Any]:
    out = {"src": src, "family": family, "kind": kind, "text": text, "secrets": secrets,
           "rule": rule}  # fmt: skip
    if kind == "tp" and secrets:
        out["format"] = fmt or CONTEXT  # a secret no source pattern re-finds: not claimed as self
    return out


def vendor_of(rule_id: str) -> str:
    low = rule_id.lower().removeprefix("np.")
    return re.split(r"[^a-z0-9]", low)[0] or low


_POSIX = {"[:alnum:]": "a-zA-Z0-9", "[:alpha:]": "a-zA-Z", "[:digit:]": "0-9",
          "[:xdigit:]": "0-9a-fA-F", "[:upper:]": "A-Z", "[:lower:]": "a-z", "[:word:]": "\\w",
          "[:space:]": "\\s"}  # fmt: skip


def py_regex(go: str, flags: int = 0) -> re.Pattern[str] | None:
    """A Go (RE2) pattern as a Python one: ``\\z``, ``(?-i:…)`` and POSIX classes translated."""
    for posix, cls in _POSIX.items():
        go = go.replace(posix, cls)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            return re.compile(go.replace("\\z", "\\Z").replace("(?-i:", "(?:"), flags)
    except re.error:
        return None


# ----------------------------------------------------------------------------- token formats
#
# Whether a positive's token identifies itself (docs/scrubbing.md, "Self-identifying tokens"):
# judged from the source project's own rule for it, never from trail's rules. A token is
# self-identifying when the pattern the source wrote for the secret itself (its capture group)
# holds a fixed literal of two or more characters with a letter or digit in it — a vendor
# prefix (``xapp-``, ``SG.``, ``shpat_``), an infix (``:A``, ``.atlasv1.``) or a suffix
# (``NRAL``) — and, for gitleaks, when the rule is not built with ``GenerateSemiGenericRegex``
# (gitleaks' authors' own verdict that the value needs its keyword next to it). Otherwise the
# token is context-only: a run of hex, alphanumerics or a UUID that only a nearby word makes a
# secret.

SELF, CONTEXT = "self", "context"


def fixed_run(tree: Any) -> int:
    """The longest run of adjacent mandatory literal characters (holding a letter or digit)
    in a parsed pattern; an alternation counts its weakest branch."""
    best = 0
    run = ""

    def close() -> None:
        nonlocal run, best
        if any(c.isalnum() for c in run):
            best = max(best, len(run))
        run = ""

    for op, av in tree:
        name = str(op)
        if name == "LITERAL":
            run += chr(av)
        elif name == "IN" and len(av) == 1 and str(av[0][0]) == "LITERAL":
            run += chr(av[0][1])
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            lo, hi, sub = av
            if lo >= 1 and len(sub) == 1 and str(sub[0][0]) == "LITERAL":
                run += chr(sub[0][1]) * min(lo, 64)
                if hi != lo:
                    close()
            else:
                close()
                if lo >= 1:
                    best = max(best, fixed_run(sub))
        elif name == "SUBPATTERN":
            sub = av[-1]
            if all(str(o) == "LITERAL" for o, _ in sub):
                run += "".join(chr(a) for _, a in sub)
            else:
                close()
                best = max(best, fixed_run(sub))
        elif name == "BRANCH":
            close()
            best = max(best, min(fixed_run(alt) for alt in av[1]))
        elif name == "AT":
            continue  # a zero-width boundary does not break a run
        else:
            close()
    close()
    return best


def _group_tree(tree: Any, group: int) -> Any:
    for op, av in tree:
        name = str(op)
        if name == "SUBPATTERN":
            if av[0] == group:
                return av[-1]
            found = _group_tree(av[-1], group)
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            found = _group_tree(av[2], group)
        elif name == "BRANCH":
            found = None
            for alt in av[1]:
                found = found or _group_tree(alt, group)
        elif name in ("ASSERT", "ASSERT_NOT"):
            found = _group_tree(av[1], group)
        elif name == "ATOMIC_GROUP":
            found = _group_tree(av, group)
        else:
            continue
        if found is not None:
            return found
    return None


def format_of(rx: re.Pattern[str], group: int) -> str:
    """``self`` or ``context`` for the secret that ``rx``'s ``group`` captures (0: the match)."""
    tree = sre_parse.parse(rx.pattern, rx.flags)
    sub = tree if group == 0 else _group_tree(tree, group)
    return SELF if sub is not None and fixed_run(sub) >= 2 else CONTEXT


def _secret_group(rx: re.Pattern[str], text: str, secret: str) -> int | None:
    for m in rx.finditer(text):
        for g in range(rx.groups, -1, -1):
            if m.group(g) == secret:
                return g
    return None


def format_by_patterns(patterns: list[re.Pattern[str]], text: str, secret: str) -> str | None:
    """The format of ``secret`` by whichever of the source's patterns captures it exactly."""
    verdicts = []
    for rx in patterns:
        g = _secret_group(rx, text, secret)
        if g is not None:
            verdicts.append(format_of(rx, g))
    if not verdicts:
        return None
    return SELF if SELF in verdicts else CONTEXT


_GO_MUSTCOMPILE = re.compile(r"regexp\.MustCompile\(")
_GO_PART = re.compile(
    r'`[^`]*`|"(?:[^"\\\n]|\\.)*"|detectors\.PrefixRegex\(\[\]string\{([^}]*)\}\)|\+|\s+'
)


def go_patterns(src: str) -> list[re.Pattern[str]]:
    """The ``regexp.MustCompile(…)`` patterns of a trufflehog detector that evaluate from
    string literals and ``detectors.PrefixRegex([]string{…})`` (trufflehog's keyword context,
    ``(?i:kw|…)(?:.|[\n\r]){0,40}?``); others are skipped."""
    out = []
    for m in _GO_MUSTCOMPILE.finditer(src):
        i = m.end()
        parts: list[str] = []
        while i < len(src):
            p = _GO_PART.match(src, i)
            if p is None:
                break
            tok = p.group(0)
            if tok.startswith("`"):
                parts.append(tok[1:-1])
            elif tok.startswith('"'):
                parts.append(go_string(tok))
            elif p.group(1) is not None:
                kws = [go_string(k.strip()) for k in p.group(1).split(",") if k.strip()]
                parts.append("(?i:" + "|".join(kws) + ")(?:.|[\n\r]){0,40}?")
            i = p.end()
        if i < len(src) and src[i] == ")" and parts:
            rx = py_regex("".join(parts))
            if rx is not None:
                out.append(rx)
    return out


def from_gitleaks(repo: str, rng: random.Random) -> Iterator[dict[str, Any]]:
    toml = tomllib.loads(git_show(repo, "config/gitleaks.toml"))
    regex = {r["id"]: (py_regex(r.get("regex", "")), r.get("secretGroup", 0))
             for r in toml["rules"] if r.get("regex")}  # fmt: skip
    for path in git_ls(repo, "cmd/generate/config/rules/"):
        if not path.endswith(".go") or path.endswith("_test.go"):
            continue
        src = git_show(repo, path)
        for fn in re.split(r"\nfunc ", src)[1:]:
            m = re.search(r'RuleID:\s*"([^"]+)"', fn)
            if not m:
                continue
            rid = m.group(1)
            gen = re.search(r"Regex:\s*utils\.Generate(\w+)Regex", fn)
            toks = go_tokens(fn)
            env = go_env(toks, rng)
            ev = GoEval(toks, env, rng)
            lists: dict[str, list[str]] = {}
            for i in range(1, len(toks) - 1):
                name = toks[i - 1]
                if toks[i] not in ("=", ":=") or not re.fullmatch(
                    r"(tps|fps|truePositives|falsePositives|tp|fp)\w*", name
                ):
                    continue
                try:
                    v, _ = ev.expr(i + 1)
                except (Unsupported, IndexError, AssertionError, ValueError, KeyError, TypeError):
                    continue
                if isinstance(v, str):
                    v = [v]
                if isinstance(v, list):
                    lists[name] = [x for x in v if isinstance(x, str)]
            rx, group = regex.get(rid, (None, 0))
            for name, items in lists.items():
                kind = "fp" if name.startswith(("fp", "false")) else "tp"
                for text in items:
                    secrets: list[str] = []
                    fmt = None
                    if kind == "tp" and rx is not None:
                        found = rx.search(text)
                        if found:
                            g = group if group and found.re.groups >= group else 0
                            if group == 0 and found.re.groups >= 1 and found.group(1):
                                g = 1
                            secrets = [found.group(g)] if found.group(g) else []
                            semi = gen is not None and gen.group(1) == "SemiGeneric"
                            fmt = CONTEXT if semi else format_of(rx, g)
                    yield case("gitleaks", vendor_of(rid), kind, text, secrets, rid, fmt)


def _py_literal(node: Any) -> Any:
    import ast

    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError):
        return None


def from_detect_secrets(repo: str) -> Iterator[dict[str, Any]]:
    import ast

    for path in git_ls(repo, "tests/plugins/"):
        if not path.endswith("_test.py") or "base" in path or "high_entropy" in path:
            continue
        fam = path.rsplit("/", 1)[1].removesuffix("_test.py")
        tree = ast.parse(git_show(repo, path))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "parametrize"):
                continue
            if len(node.args) < 2:
                continue
            values = _py_literal(node.args[1])
            if not isinstance(values, list):
                continue
            for v in values:
                if not isinstance(v, tuple) or len(v) < 2 or not isinstance(v[0], str):
                    continue
                flag = v[-1]
                if not isinstance(flag, bool):
                    continue
                yield case("detect-secrets", vendor_of(fam), "tp" if flag else "fp", v[0], [],
                           fam)  # fmt: skip


def from_noseyparker(repo: str) -> Iterator[dict[str, Any]]:
    import yaml

    for path in git_ls(repo, "crates/noseyparker/data/default/builtin/rules/"):
        if not path.endswith(".yml"):
            continue
        doc = yaml.safe_load(git_show(repo, path)) or {}
        for rule in doc.get("rules", []):
            rid = rule.get("id", "")
            rx = None
            try:
                rx = re.compile(rule.get("pattern", ""), re.X)
            except re.error:
                rx = None
            for kind, key in (("tp", "examples"), ("fp", "negative_examples")):
                for text in rule.get(key) or []:
                    if not isinstance(text, str):
                        continue
                    secrets: list[str] = []
                    fmt = None
                    if kind == "tp" and rx is not None:
                        found = rx.search(text)
                        if found:
                            groups = [g for g in found.groups() if g] or [found.group(0)]
                            secrets = [max(groups, key=len)]
                            fmt = format_by_patterns([rx], text, secrets[0])
                    yield case("noseyparker", vendor_of(rid), kind, text.rstrip("\n"), secrets,
                               rid, fmt)  # fmt: skip


def from_trufflehog(repo: str, rng: random.Random) -> Iterator[dict[str, Any]]:
    detector_src: dict[str, str] = {}
    for path in git_ls(repo, "pkg/detectors/"):
        parts = path.split("/")
        if len(parts) >= 4 and path.endswith(".go") and not path.endswith("_test.go"):
            detector_src[parts[2]] = detector_src.get(parts[2], "") + git_show(repo, path)
    patterns = {fam: go_patterns(src) for fam, src in detector_src.items()}
    for path in git_ls(repo, "pkg/detectors/"):
        parts = path.split("/")
        if not path.endswith("_test.go") or "integration" in path or len(parts) < 4:
            continue
        fam = parts[2]
        try:
            src = git_show(repo, path)
        except subprocess.CalledProcessError:
            continue
        if "input:" not in src and "input :" not in src:
            continue
        toks = go_tokens(src)
        env = go_env(toks, rng)
        ev = GoEval(toks, env, rng)
        # test cases: { name: ..., input: EXPR, want: []string{...} }
        for i in range(len(toks) - 2):
            if toks[i] != "input" or toks[i + 1] != ":":
                continue
            try:
                text, j = ev.expr(i + 2)
            except (Unsupported, IndexError, AssertionError, ValueError, KeyError, TypeError):
                continue
            if not isinstance(text, str):
                continue
            # find want: within this struct literal
            depth, k, want = 0, j, None
            while k < len(toks) - 2 and depth >= 0:
                if toks[k] in "{(":
                    depth += 1
                elif toks[k] in "})":
                    depth -= 1
                elif depth == 0 and toks[k] == "want" and toks[k + 1] == ":":
                    want = k + 2
                    break
                k += 1
            if want is None:
                continue
            leaves = _want_leaves(toks, want, ev)
            if leaves is None:
                continue
            kind = "tp" if leaves else "fp"
            secrets = [s for s in leaves if s and s in text]
            if kind == "tp" and not secrets:
                continue  # the expected result is built, not found verbatim
            chosen = (secrets[-1:] if len(secrets) > 1 and max(secrets, key=len) == secrets[-1]
                      else [max(secrets, key=len)] if secrets else [])  # fmt: skip
            fmt = format_by_patterns(patterns.get(fam, []), text, chosen[0]) if chosen else None
            yield case("trufflehog", vendor_of(fam), kind, text, chosen, fam, fmt)


def _want_leaves(toks: list[str], i: int, ev: GoEval) -> list[str] | None:
    """The string leaves of ``want: []string{a + b, "c"}`` (``nil`` / ``{}``: none)."""
    if toks[i] == "nil":
        return []
    if toks[i] != "[" or toks[i + 1] != "]":
        return None
    j = i + 2
    while toks[j] != "{":
        j += 1
    j += 1
    out: list[str] = []
    while toks[j] != "}":
        tok = toks[j]
        if tok[0] in '"`':
            out.append(go_string(tok))
        elif tok in ev.env and isinstance(ev.env[tok], str):
            out.append(ev.env[tok])
        elif tok in ("+", ","):
            pass
        elif tok.startswith(("fmt.", "strings.")):
            try:
                v, j = ev.primary(j)
            except (Unsupported, IndexError, AssertionError, ValueError, KeyError, TypeError):
                return None
            if isinstance(v, str):
                out.append(v)
            continue
        else:
            return None
        j += 1
    # ``a + b`` concatenations: keep the parts (each may appear in the input)
    return out


def token_only(c: dict[str, Any]) -> dict[str, Any] | None:
    """A trufflehog positive reduced to its token: the text becomes the secret alone.

    trufflehog is AGPL-3.0; its test inputs (log lines, XML and JSON around the token) are its
    text, so the committed corpus keeps only the fake token string and the detector's name
    (docs/scrub-heldout.md, "Provenance and licences"). Its "invalid pattern" inputs are text
    too and are left out. Such a case is tried in the token forms only (export, neutral, bare).
    """
    if c["kind"] != "tp" or not c["secrets"]:
        return None
    secret = max(c["secrets"], key=len)
    return dict(c, text=secret, secrets=[secret], token_only=True)


def main(argv: list[str]) -> int:
    full = "--full" in argv
    argv = [a for a in argv if a != "--full"]
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    gl, ds, th, np_ = argv
    rng = random.Random(20261201)
    cases = [*from_gitleaks(gl, rng), *from_detect_secrets(ds)]  # in this order: one rng
    truffle = list(from_trufflehog(th, rng))
    if not full:
        truffle = [r for r in map(token_only, truffle) if r is not None]
    cases += [*truffle, *from_noseyparker(np_)]
    seen: set[tuple[str, str, str]] = set()
    uniq = []
    for c in cases:
        key = (c["kind"], c["text"], c["family"])
        if key in seen or not c["text"].strip():
            continue
        seen.add(key)
        uniq.append(c)
    heads = {
        "gitleaks/gitleaks": git_head(gl),
        "Yelp/detect-secrets": git_head(ds),
        "trufflesecurity/trufflehog": git_head(th),
        "praetorian-inc/noseyparker": git_head(np_),
    }
    path = FULL_CORPUS_PATH if full else CORPUS_PATH
    encode_corpus(uniq, heads, path)
    by: dict[str, int] = {}
    for c in uniq:
        by[f"{c['src']} {c['kind']}"] = by.get(f"{c['src']} {c['kind']}", 0) + 1
    print(f"{len(uniq)} cases -> {path}", json.dumps(by, sort_keys=True))
    # the negatives that hold a credential by any reading (docs/scrub-heldout.md): the bench
    # reports the near-miss figure with and without them
    prefixes = positive_prefixes(uniq)
    readings: dict[str, int] = {}
    for c in uniq:
        if c["kind"] == "fp" and c["src"] != "trufflehog":
            r = credential_reading(c, prefixes) or "none"
            readings[r] = readings.get(r, 0) + 1
    print("negatives by credential reading:", json.dumps(readings, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
