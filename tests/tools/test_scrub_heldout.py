"""tools/scrub_heldout.py: the self-identifying / context-only verdict read from a source's rule,
and the committed corpus' trufflehog part (tokens only)."""

from __future__ import annotations

import re

import pytest

from tools import scrub_heldout as tool


@pytest.mark.parametrize(
    ("pattern", "group", "verdict"),
    [
        (r"\b(xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+)\b", 1, "self"),  # a vendor prefix
        (r"SG\.[\w-]{22}\.[\w-]{43}", 0, "self"),
        (r"([0-9]{5,16}:A[a-z0-9_\-]{34})", 1, "self"),  # an infix of two characters
        (r"\b([a-z0-9]{32}NRAL)\b", 1, "self"),  # a suffix
        (r"(?:A3T[A-Z0-9]|AKIA|ASIA)[A-Z2-7]{16}", 0, "self"),  # the weakest branch counts
        (r"(?i:asana)(?:.|[\n\r]){0,40}?\b([0-9a-z]{32})\b", 1, "context"),  # keyword outside
        (r"\b([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b", 1, "context"),
        (r"\b(s[0-9a-f]{31})\b", 1, "context"),  # one fixed letter is no format
        (r"(?:ab|[0-9a-f])[0-9a-f]{30}", 0, "context"),  # a branch without a fixed literal
    ],
)
def test_format_of_reads_the_capture_group(pattern: str, group: int, verdict: str) -> None:
    assert tool.format_of(re.compile(pattern), group) == verdict


def test_go_patterns_expand_trufflehog_prefix_regex() -> None:
    src = (
        'var keyPat = regexp.MustCompile(detectors.PrefixRegex([]string{"acme"}) + '
        "`\\b([a-z0-9]{32})\\b`)\n"
        "var tokPat = regexp.MustCompile(`\\b(acme_[[:alnum:]]{36})\\b`)\n"
        "var other = regexp.MustCompile(common.EmailPattern)\n"
    )
    pats = tool.go_patterns(src)
    assert len(pats) == 2  # the one built from an identifier is skipped
    key = "0123456789abcdef" * 2
    assert tool.format_by_patterns(pats, f"acme key {key}", key) == "context"
    tok = "acme_" + "Ab3" * 12
    assert tool.format_by_patterns(pats, f"x {tok} y", tok) == "self"
    assert tool.format_by_patterns(pats, "nothing here", "absent") is None


def test_trufflehog_cases_are_reduced_to_their_token() -> None:
    case = tool.case("trufflehog", "acme", "tp", "log line acme_TOKEN1234 here",
                     ["acme_TOKEN1234"], "acme", "self")  # fmt: skip
    out = tool.token_only(case)
    assert out is not None
    assert out["text"] == "acme_TOKEN1234" and out["token_only"] and out["format"] == "self"
    assert tool.token_only(tool.case("trufflehog", "acme", "fp", "invalid", [], "acme")) is None
