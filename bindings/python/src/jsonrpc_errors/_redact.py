"""Redaction: the functions over the component's redaction engine and the shapes of what they return."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, NamedTuple, cast

if TYPE_CHECKING:
    # For the type checker only: typing.Unpack is Python 3.11's.
    from typing_extensions import Unpack

from . import _runtime
from ._args import _text
from ._jsontext import _json_text, _loads
from ._redaction_schema import RedactionOptions, _redaction_options_json


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


def redact_with_json(text: str, options_json: str = "{}") -> str:
    """`redact_with` on options JSON (``redaction-options`` in wit/world.wit, snake_case keys): the component's
    `{"text", "findings"}` text."""
    return _runtime.get().outcome("redact-with", _text(text, "text"), _text(options_json, "options"))


def redact_with(text: str, **options: Unpack[RedactionOptions]) -> Redaction:
    """Redacts `text` under the keyword options of :class:`RedactionOptions` (``redaction-options`` in
    wit/world.wit): how secrets are replaced (`"replace"` (default), `"mask"`, `"hash"`: an HMAC-SHA256 under
    `hash_key` of at least 16 bytes, so equal secrets correlate, `"remove"`), rule ids or categories to switch
    off, extra rules, exact values and patterns never redacted. An unknown option raises
    :class:`ArgumentTypeError`; bad values raise `InvalidInput` (-32602) naming what is wrong."""
    doc = _loads(redact_with_json(text, _redaction_options_json(options, "redact_with")))
    return Redaction(
        doc["text"], tuple(Finding(f["rule"], f["category"], f["start"], f["end"]) for f in doc["findings"])
    )


def redact_json_value_json(json_text: str, options_json: str = "{}") -> str:
    """`redact_json_value` on JSON text: the component's `{"value", "findings"}` text."""
    return _runtime.get().outcome("redact-json-value", _text(json_text, "json"), _text(options_json, "options"))


def redact_json_value(value: Any, **options: Unpack[RedactionOptions]) -> JsonRedaction:
    """JSON-aware redaction of a JSON value (dicts, lists, strings, numbers, ...): values under sensitive keys
    (password, token, authorization, cookie, api_key, ... and `sensitive_keys`) go whole, every other string
    is scanned. Options as for `redact_with`."""
    options_json = _redaction_options_json(options, "redact_json_value")
    doc = _loads(redact_json_value_json(_json_text(value, "value"), options_json))
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
