"""fastjson gives exactly what json gives, on every sample file and on bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from trace_ingest import fastjson

BAD = ["", " ", "{", '{"a":1} x', "[1,]", "nul", '{"a" 1}', '"unterminated', "[1, 2"]


def documents(samples: Path) -> list[str]:
    docs = []
    for path in sorted(samples.rglob("*.json*")):
        text = path.read_bytes().decode("utf-8", "replace")
        docs += [text] if path.suffix == ".json" else text.splitlines()
    return docs


def test_same_results_as_json_on_the_samples(samples: Path) -> None:
    checked = 0
    for doc in documents(samples):
        try:
            expected = json.loads(doc)
        except ValueError:
            with pytest.raises(ValueError):
                fastjson.loads(doc)
            continue
        assert fastjson.loads(doc) == expected
        assert fastjson.dumps(expected) == json.dumps(
            expected, ensure_ascii=False, separators=(",", ":")
        )
        checked += 1
    assert checked > 500


@pytest.mark.parametrize("bad", BAD)
def test_bad_input_raises_the_same_error_as_json(bad: str) -> None:
    with pytest.raises(json.JSONDecodeError) as ours:
        fastjson.loads(bad)
    with pytest.raises(json.JSONDecodeError) as theirs:
        json.loads(bad)
    assert str(ours.value) == str(theirs.value)


def test_bad_input_in_a_process_that_never_imported_json() -> None:
    code = (
        "import sys; from trace_ingest import fastjson\n"
        "assert 'json' not in sys.modules\n"
        "try:\n    fastjson.loads('{\"a\" 1}')\nexcept ValueError as e:\n    print(e)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "Expecting ':' delimiter: line 1 column 6 (char 5)"


def test_scalars_nan_and_default() -> None:
    assert fastjson.dumps("é\n") == '"é\\n"' and fastjson.dumps(None) == "null"
    assert fastjson.dumps({"b": 1, "a": object()}, default=lambda o: "x", sort_keys=True) == (
        '{"a":"x","b":1}'
    )
    assert fastjson.loads("[NaN, 1e400, -Infinity]")[2] == float("-inf")
    with pytest.raises(TypeError):
        fastjson.dumps({"a": object()})


def test_separators_ascii_and_indent_match_json() -> None:
    value = {"é": [1, "x\u2028", {"k": None}], "b": True}
    for seps in ((",", ":"), (", ", ": ")):
        for ascii_only in (True, False):
            assert fastjson.dumps(value, separators=seps, ensure_ascii=ascii_only) == json.dumps(
                value, separators=seps, ensure_ascii=ascii_only
            )
    assert fastjson.dumps(value, separators=(",", ": "), indent=2) == json.dumps(
        value, separators=(",", ": "), indent=2, ensure_ascii=False
    )


def test_parse_or_none() -> None:
    assert fastjson.parse_or_none(' {"a": [1]} ') == {"a": [1]}
    for bad in [*BAD, "[default]\nkey = 1", "[INFO] started"]:
        assert fastjson.parse_or_none(bad) is None
    code = (
        "import sys; from trace_ingest import fastjson\n"
        "assert fastjson.parse_or_none('[INFO] x') is None\n"
        "print(sorted(m for m in ('json', 're') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
