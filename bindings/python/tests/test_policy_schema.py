"""The published JSON Schema of the guard's policy file (docs/guard-policy.schema.json, written by `cargo xtask
gen` from the reader's own key lists) agrees with the component, which is the judge: every document the
vectors hold as valid validates against it, and every one refused for its shape (an unknown key or table, a
wrong type, a value outside a choice, an override without `match`) fails it. What only the component can
check (rule names, patterns, the hash key's variable) is left to it."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[3]
SCHEMA = json.loads((ROOT / "docs" / "guard-policy.schema.json").read_text())
CASES = [
    c
    for c in json.loads((ROOT / "tests" / "vectors" / "policy.json").read_text())["cases"]
    if c["op"] == "check_policy"
]
# Refused by the component for what a schema cannot know.
SEMANTIC = {
    "unknown-rule-in-actions",
    "unknown-rule-in-disable",
    "bad-extra-rule-pattern",
    "bad-allow-pattern",
    "hash-without-key",
}


def _document(case):
    return tomllib.loads(case["policy"])


@pytest.mark.parametrize("case", [c for c in CASES if "expect" in c], ids=lambda c: c["name"])
def test_valid_documents_validate(case):
    jsonschema.validate(_document(case), SCHEMA)


@pytest.mark.parametrize(
    "case",
    [c for c in CASES if "expect_failure" in c and c["name"].rsplit("/", 1)[-1] not in SEMANTIC],
    ids=lambda c: c["name"],
)
def test_documents_refused_for_their_shape_fail_the_schema(case):
    try:
        document = _document(case)
    except tomllib.TOMLDecodeError:
        return  # not TOML at all: refused before any schema applies
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(document, SCHEMA)


def test_the_schema_is_a_valid_schema():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
