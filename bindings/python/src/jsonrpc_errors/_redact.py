"""Redaction: the functions over the component's redaction engine and the shapes of what they return."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal, NamedTuple, Optional, TypedDict, cast

from . import _runtime
from ._args import _text
from ._errors import ArgumentTypeError
from ._jsontext import _json_text, _loads


class Finding(NamedTuple):
    """One redacted span (byte offsets into the UTF-8 input); the secret itself is never returned."""

    rule: str
    category: str
    start: int
    end: int


class Redaction(NamedTuple):
    """The redacted text and its findings (immutable records: NamedTuple rather than dataclasses, which
    alone would add ~15 ms to the import)."""

    text: str
    findings: tuple[Finding, ...]


class JsonFinding(NamedTuple):
    """One secret found in a JSON document: `path` is the JSON Pointer of the string that held it, `start`
    and `end` UTF-8 byte offsets into that string; `key` is true when the secret was in a member's name."""

    rule: str
    category: str
    path: str
    start: int
    end: int
    key: bool = False


class JsonRedaction(NamedTuple):
    """The redacted JSON value and its findings."""

    value: Any
    findings: tuple[JsonFinding, ...]


class ExtraRule(TypedDict, total=False):
    """A caller's own redaction rule: `pattern` is a regex (regex-lite syntax); `secret_groups` names the
    capture groups that are the secret (default: the whole match); a rule with `keywords` runs only near one
    of them. `id`, `category` and `pattern` are required."""

    id: str
    category: str
    pattern: str
    keywords: list[str]
    secret_groups: list[int]


def redact_json(text: str) -> str:
    """`{"text": redacted, "findings": [...]}` as JSON text."""
    return cast(str, _runtime.get().call("redact-json", _text(text, "text")))


def redact(text: str) -> str:
    """`text` with secrets, credentials, PII, home paths, stack traces and configured env values replaced."""
    return cast(str, _runtime.get().call("redact", _text(text, "text")))


def redact_details(text: str) -> Redaction:
    doc = _loads(redact_json(text))
    return Redaction(
        doc["text"], tuple(Finding(f["rule"], f["category"], f["start"], f["end"]) for f in doc["findings"])
    )


def _redact_options(
    method: Optional[str],
    hash_key: Optional[str],
    disable: Optional[Iterable[str]],
    extra_rules: Optional[Iterable[Mapping[str, Any]]],
    allowlist: Optional[Iterable[str]],
    sensitive_keys: Optional[Iterable[str]] = None,
) -> str:
    """The options as the JSON the component reads; only what the caller set (the component checks values)."""
    options: dict[str, Any] = {}
    if method is not None:
        options["method"] = method
    if hash_key is not None:
        options["hash_key"] = hash_key
    for name, items in (("disable", disable), ("allowlist", allowlist), ("sensitive_keys", sensitive_keys)):
        if items is not None:
            if isinstance(items, (str, bytes)):
                raise ArgumentTypeError(f"{name} must be a list of strings, not a single string")
            options[name] = list(items)
    if extra_rules is not None:
        options["extra_rules"] = [dict(r) for r in extra_rules]
    return _json_text(options, "redaction options")


RedactionMethod = Literal["replace", "mask", "hash", "remove"]


def redact_with_json(text: str, options_json: str = "{}") -> str:
    """`redact_with` on options JSON (`method`, `hash_key`, `disable`, `extra_rules`, `allowlist`): the
    component's `{"text", "findings"}` text."""
    return _runtime.get().outcome("redact-with", _text(text, "text"), _text(options_json, "options"))


def redact_with(
    text: str,
    *,
    method: Optional[RedactionMethod] = None,
    hash_key: Optional[str] = None,
    disable: Optional[Iterable[str]] = None,
    extra_rules: Optional[Iterable[ExtraRule]] = None,
    allowlist: Optional[Iterable[str]] = None,
) -> Redaction:
    """Redacts `text` under options: how secrets are replaced (`"replace"` (default), `"mask"`, `"hash"`: an
    HMAC-SHA256 under `hash_key` of at least 16 bytes, so equal secrets correlate, `"remove"`), rule ids or
    categories to switch off, extra rules, and exact values never redacted. Bad options raise
    `InvalidInput` (-32602) naming what is wrong."""
    doc = _loads(redact_with_json(text, _redact_options(method, hash_key, disable, extra_rules, allowlist)))
    return Redaction(
        doc["text"], tuple(Finding(f["rule"], f["category"], f["start"], f["end"]) for f in doc["findings"])
    )


def redact_json_value_json(json_text: str, options_json: str = "{}") -> str:
    """`redact_json_value` on JSON text: the component's `{"value", "findings"}` text."""
    return _runtime.get().outcome("redact-json-value", _text(json_text, "json"), _text(options_json, "options"))


def redact_json_value(
    value: Any,
    *,
    sensitive_keys: Optional[Iterable[str]] = None,
    method: Optional[RedactionMethod] = None,
    hash_key: Optional[str] = None,
    disable: Optional[Iterable[str]] = None,
    extra_rules: Optional[Iterable[ExtraRule]] = None,
    allowlist: Optional[Iterable[str]] = None,
) -> JsonRedaction:
    """JSON-aware redaction of a JSON value (dicts, lists, strings, numbers, ...): values under sensitive keys
    (password, token, authorization, cookie, api_key, ... and `sensitive_keys`) go whole, every other string
    is scanned. Options as for `redact_with`."""
    options = _redact_options(method, hash_key, disable, extra_rules, allowlist, sensitive_keys)
    doc = _loads(redact_json_value_json(_json_text(value, "value"), options))
    findings = tuple(
        JsonFinding(f["rule"], f["category"], f["path"], f["start"], f["end"], bool(f.get("key", False)))
        for f in doc["findings"]
    )
    return JsonRedaction(doc["value"], findings)


def redact_many(texts: Iterable[str]) -> list[str]:
    """`redact` for many texts on one instance (saves the per-call pool round trip)."""
    encoded = [_text(t, "text") for t in texts]

    def run(w: Any) -> list[str]:
        f = w.fast["redact-json"]
        return [_loads(f(t))["text"] for t in encoded]

    return _runtime.get().run(run)
