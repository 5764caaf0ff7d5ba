# Generated from wit/world.wit (interface `types`: `redaction-options`) by `cargo xtask gen`; do not edit.
"""Redaction options, as ``redaction-options`` in wit/world.wit states them."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Literal, TypedDict

from ._errors import ArgumentTypeError

#: How a found secret is replaced.
RedactionMethod = Literal["replace", "mask", "hash", "remove"]


class ExtraRule(TypedDict, total=False):
    """A caller's own redaction rule, with the keys of a rule of `redaction/rules.toml` (whose header documents
    each): `id`, `category` and `pattern` are required."""

    #: kebab-case ASCII (`[a-z0-9-]`, 1 to 64 characters).
    id: str
    #: kebab-case ASCII, as `id`: what `disable` names to switch the rule off with others of its kind.
    category: str
    description: str
    #: The literals that open a window for the pattern (none: the rule always runs, or its `trigger` opens
    #: them); none may be empty.
    keywords: Sequence[str]
    #: A regex (regex-lite syntax), at most 2048 characters.
    pattern: str
    #: The capture groups that are the secret (none: the whole match).
    secret_groups: Sequence[int]
    #: A check a match must pass (a validator of rules.toml: `assignment`, `luhn`, `entropy`, ...).
    validator: str
    #: Bytes after the keyword's line that a match may reach (multi-line secrets).
    span: int
    #: A keyword counts only when an assignment operator follows it.
    assignment_after_keyword: bool
    #: What opens the rule's windows: `keywords` (default), or a structural scan (`digit-run`, ...).
    trigger: str
    #: How much text around a hit the pattern sees: `line` (default), `word`, `assignment`, `column`,
    #: `sql-values`.
    window: str
    #: For `window` `word`: how many following words the window takes too.
    words_after: int
    #: Literals of which every match holds one: a window holding none is refused unread.
    requires: Sequence[str]
    #: The match ends at a delimiter of the text's structure (URL userinfo at its `@`).
    delimits: bool
    #: For `window` `column`: the byte that separates a table's cells (default `,`).
    separator: str
    #: The match must sit in a flat JSON object that holds this literal too.
    object_holds: str


class RedactionOptions(TypedDict, total=False):
    """Adding a redaction option: a field of `redaction-options` (an `option` or a `list`: "not given" is every
    shell's default), read where the guest uses it (`guest/src/redact/redactor.rs`), then `cargo xtask gen`
    writes the guest's reader and every shell's type and builder (docs/where-to-change.md).
    What a caller may change about redaction (`redact-with`, `redact-json-value`, a guard's error handler),
    as JSON text with these fields in snake_case; every field may be left out. Bad options fail with -32602
    naming what is wrong."""

    #: How a found secret is replaced. Default: `replace`.
    method: RedactionMethod
    #: The HMAC key `method` `hash` needs: at least 16 bytes.
    hash_key: str
    #: Rule ids or categories to switch off.
    disable: Sequence[str]
    #: The caller's own rules, run beside the catalogue's (at most 64).
    extra_rules: Sequence[ExtraRule]
    #: Exact values never redacted.
    allowlist: Sequence[str]
    #: Patterns (regex-lite) of values never redacted, each matched against a whole value (at most 64, each
    #: at most 2048 characters).
    allow_patterns: Sequence[str]
    #: `redact-json-value` only: more JSON keys whose values are secrets whole.
    sensitive_keys: Sequence[str]


#: The options' names.
REDACTION_OPTIONS = frozenset(("method", "hash_key", "disable", "extra_rules", "allowlist", "allow_patterns", "sensitive_keys",))


def _items(value: Any, name: str) -> list[Any]:
    """A list option: any iterable but a single string."""
    if isinstance(value, (str, bytes)):
        raise ArgumentTypeError(f"{name} must be a list of strings, not a single string")
    try:
        return list(value)
    except TypeError:
        raise ArgumentTypeError(f"{name} must be a list, not {type(value).__name__}") from None


def _rule(rule: Any, what: str) -> dict[str, Any]:
    """An extra rule: a mapping of its keys (the component checks them)."""
    if not isinstance(rule, Mapping):
        raise ArgumentTypeError(f"{what} must be a mapping, not {type(rule).__name__}")
    return dict(rule)


def _redaction_options_json(options: Mapping[str, Any], what: str) -> str:
    """``redaction-options`` as the JSON text the component reads: what the caller gave (None: not given), lists
    as lists; the component checks the values."""
    unknown = sorted(set(options) - REDACTION_OPTIONS)
    if unknown:
        raise ArgumentTypeError(f"{what} got an unexpected option {unknown[0]!r} (known: {', '.join(sorted(REDACTION_OPTIONS))})")
    out: dict[str, Any] = {}
    value = options.get("method")
    if value is not None:
        out["method"] = value
    value = options.get("hash_key")
    if value is not None:
        out["hash_key"] = value
    value = options.get("disable")
    if value is not None:
        out["disable"] = _items(value, "disable")
    value = options.get("extra_rules")
    if value is not None:
        out["extra_rules"] = [_rule(r, f"extra_rules[{i}]") for i, r in enumerate(_items(value, "extra_rules"))]
    value = options.get("allowlist")
    if value is not None:
        out["allowlist"] = _items(value, "allowlist")
    value = options.get("allow_patterns")
    if value is not None:
        out["allow_patterns"] = _items(value, "allow_patterns")
    value = options.get("sensitive_keys")
    if value is not None:
        out["sensitive_keys"] = _items(value, "sensitive_keys")
    try:
        return json.dumps(out, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError) as e:
        raise ArgumentTypeError(f"{what}: the options are not JSON-serializable: {e}") from None
