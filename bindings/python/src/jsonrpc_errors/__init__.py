"""jsonrpc-errors: the canonical JSON-RPC 2.0 error layer (a WebAssembly component) for Python.

Every function runs the packaged component on wasmtime; this package only converts arguments and results.
The engine, compiled component and instance pool are created lazily on first use and shared by all threads.

Environment scrubbing: on first use the component is handed this process's environment (``os.environ``);
it keeps only the secret-looking variables (by name) and redacts their values from all output. Opt out with
``JSONRPC_ERRORS_NO_ENV=1`` or by calling ``set_environment({})`` (or your own mapping) before or after.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Callable, NamedTuple, Optional, Union, cast

if TYPE_CHECKING:
    # For the type checker only: typing.Unpack is Python 3.11's.
    from typing_extensions import Unpack

from . import _runtime
from ._args import Context, _context, _dialect, _dialect_name, _raw, _s64, _text, _u64
from ._errors import ArgumentTypeError, ComponentFault, InvalidInput, JsonRpcErrorsError, JsonRpcErrorsValueError
from ._guard import GuardSession, check_policy
from ._guard import Outcome as GuardOutcome
from ._guard import Step as GuardStep
from ._redaction_schema import ExtraRule as ExtraRule
from ._redaction_schema import RedactionMethod as RedactionMethod
from ._redaction_schema import RedactionOptions as RedactionOptions
from ._redaction_schema import _redaction_options_json
from ._taxonomy import DEFAULT_MAX_BYTES, KINDS, TAXONOMY_VERSION, Dialect, ErrorKind, KindInfo

__all__ = [
    "DEFAULT_MAX_BYTES",
    "KINDS",
    "TAXONOMY_VERSION",
    "ArgumentTypeError",
    "ComponentFault",
    "Context",
    "Dialect",
    "ErrorKind",
    "ExtraRule",
    "Finding",
    "GuardOutcome",
    "GuardSession",
    "GuardStep",
    "InvalidInput",
    "JsonFinding",
    "JsonRedaction",
    "JsonRpcError",
    "JsonRpcErrorsError",
    "JsonRpcErrorsValueError",
    "KindInfo",
    "Redaction",
    "RedactionMethod",
    "RedactionOptions",
    "check_policy",
    "codes",
    "error_response",
    "explain",
    "explain_json",
    "kinds",
    "kinds_json",
    "lookup_kind",
    "map_error",
    "map_error_json",
    "redact",
    "redact_details",
    "redact_json",
    "redact_json_value",
    "redact_json_value_json",
    "redact_many",
    "redact_with",
    "redact_with_json",
    "sanitize",
    "sanitize_json",
    "set_environment",
    "validate",
    "validate_json",
]


def __dir__() -> list[str]:
    """The public API only (`__all__`): not the typing helpers and modules this one imports. The submodules
    `jsonrpc_errors.logging`, `.prometheus` and `.mcp` are imported by name (the last two need extras)."""
    return sorted(__all__)


_MISSING: Any = object()
_stdlib_compact = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode


def _unserializable(o: Any) -> Any:
    raise TypeError(f"Object of type {type(o).__name__} is not JSON serializable")


def _make_compact() -> Callable[[Any], str]:
    """Compact JSON text, as `_stdlib_compact` writes it, from one C encoder built once.

    `JSONEncoder.encode` builds a new C encoder on every call (a third of a small map_error's Python-side
    cost). The C encoder built here keeps no state between calls: no circular-reference markers (a cycle ends
    in RecursionError instead, reported as a TypeError), so threads can share it.
    """
    make = getattr(json.encoder, "c_make_encoder", None)
    basestring = getattr(json.encoder, "c_encode_basestring", None)
    if make is None or basestring is None:  # pragma: no cover - Pythons without the C accelerator
        return _stdlib_compact
    encoder = make(None, _unserializable, basestring, None, ":", ",", False, False, False)

    def compact(value: Any) -> str:
        try:
            return "".join(encoder(value, 0))
        except RecursionError:
            raise TypeError("the value is nested too deeply or holds a circular reference") from None

    return compact


_compact = _make_compact()
# raw_decode skips json.loads' type checks and trailing-whitespace scan: the component's output is one
# document with nothing after it.
_raw_decode = json.JSONDecoder().raw_decode


def _loads(text: str) -> Any:
    return _raw_decode(text)[0]


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


def _json_text(value: Any, what: str) -> str:
    try:
        return _compact(value)
    except (TypeError, ValueError) as e:
        raise ArgumentTypeError(f"{what} is not JSON-serializable: {e}") from None


# ---------------------------------------------------------------------------------------- the API


def map_error_json(
    input_text: str, dialect: Union[str, Dialect] = "canonical", *, context: Optional[Context] = None
) -> str:
    """`{kind, id?, correlation_id?, timestamp?, ...fields}` (or an array of such) as JSON text → the response text."""
    return _runtime.get().outcome("map-error-json", _text(input_text, "input"), _dialect(dialect), _context(context))


def map_error(
    error: Union[Mapping[str, Any], Sequence[Mapping[str, Any]]],
    dialect: Union[str, Dialect] = "canonical",
    *,
    context: Optional[Context] = None,
) -> dict[str, Any]:
    """The JSON-RPC 2.0 response (a dict) for an error object like the CLI's `map` input.

    `error` is `{"kind": ..., "id"?: ..., "correlation_id"?: ..., "timestamp"?: ..., **fields}` or a list of
    such objects (several errors for one request: the component picks the winner).
    """
    if type(error) is not dict:  # the common case skips the ABC checks
        if not isinstance(error, (Mapping, list, tuple)):
            raise ArgumentTypeError(f"error must be a mapping (or a list of mappings), not {type(error).__name__}")
        if isinstance(error, Mapping) and not isinstance(error, dict):
            error = dict(error)  # json serializes dicts, not every Mapping
    result: dict[str, Any] = _loads(map_error_json(_json_text(error, "error"), dialect, context=context))
    return result


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


def validate_json(
    raw: Union[bytes, bytearray, memoryview, str],
    *,
    max_bytes: Optional[int] = None,
    batch: str = "reject",
    content_type: Optional[str] = None,
    content_length: Optional[int] = None,
    dialect: Union[str, Dialect] = "canonical",
    context: Optional[Context] = None,
) -> Any:
    """`validate` returning the component's JSON text."""
    body = _raw(raw, sized=False)
    if max_bytes is not None:
        _u64(max_bytes, "max_bytes")
    if content_length is not None:
        _u64(content_length, "content_length")
    if batch not in ("reject", "allow"):
        raise JsonRpcErrorsValueError(f"batch must be 'reject' or 'allow', not {batch!r}")
    ctype = None if content_type is None else _text(content_type, "content_type")
    d = _dialect(dialect)
    limit = DEFAULT_MAX_BYTES if max_bytes is None else max_bytes
    if len(body) > min(limit, _runtime.get().max_input_bytes()):
        body, content_length = b"", len(body)  # refused unread, exactly as the Rust host does
    opts = (max_bytes, batch.encode(), ctype, content_length, d)
    rt = _runtime.get()
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        # Only invalid UTF-8 goes as a byte list (at most max_bytes of it): the guest reports where it breaks.
        return rt.outcome("validate", body, opts, _context(context))
    return rt.outcome("validate-text", body, opts, _context(context))


def validate(
    raw: Union[bytes, bytearray, memoryview, str],
    *,
    max_bytes: Optional[int] = None,
    batch: str = "reject",
    content_type: Optional[str] = None,
    content_length: Optional[int] = None,
    dialect: Union[str, Dialect] = "canonical",
    context: Optional[Context] = None,
) -> Any:
    """Validates raw request bytes: `{"valid": true, "id"?, "method"}`, the error response, or (batch="allow")
    a list with one entry per member."""
    return _loads(
        validate_json(
            raw,
            max_bytes=max_bytes,
            batch=batch,
            content_type=content_type,
            content_length=content_length,
            dialect=dialect,
            context=context,
        )
    )


def sanitize_json(
    raw: Union[bytes, bytearray, memoryview, str],
    dialect: Union[str, Dialect] = "canonical",
    *,
    context: Optional[Context] = None,
) -> str:
    """`sanitize` returning the component's JSON text."""
    body = _raw(raw)
    d = _dialect(dialect)
    # As text: invalid UTF-8 replaced by U+FFFD here exactly as the guest repairs it (CPython's "replace"
    # and Rust's from_utf8_lossy both substitute maximal subparts; a test compares the two paths).
    text = body.decode("utf-8", "replace").encode("utf-8")
    return _runtime.get().outcome("sanitize-text", text, d, _context(context))


def sanitize(
    raw: Union[bytes, bytearray, memoryview, str],
    dialect: Union[str, Dialect] = "canonical",
    *,
    context: Optional[Context] = None,
) -> Any:
    """An upstream error response (raw bytes; invalid UTF-8 is repaired) made safe to pass on, for a dialect."""
    return _loads(sanitize_json(raw, dialect, context=context))


def explain_json(code: int, dialect: Union[str, Dialect] = "canonical") -> str:
    """`explain` returning the component's JSON text."""
    c = _s64(code, "code")
    return _runtime.get().outcome("explain", _dialect(dialect), c)


def explain(code: int, dialect: Union[str, Dialect] = "canonical") -> Any:
    """Every kind `dialect` renders with `code`, with its facts."""
    return _loads(explain_json(code, dialect))


def lookup_kind(
    code: int,
    dialect: Union[str, Dialect] = "canonical",
    message: Optional[str] = None,
    data: Any = _MISSING,
) -> Union[ErrorKind, str, None]:
    """The kind a dialect's `code` stands for (`message` and `data` tell shared codes apart), or None."""
    c = _s64(code, "code")
    msg = None if message is None else _text(message, "message")
    data_json = None if data is _MISSING else _text(_json_text(data, "data"), "data")
    kind: Optional[str] = _loads(_runtime.get().outcome("lookup-kind", _dialect(dialect), c, msg, data_json))
    if kind is None:
        return None
    try:
        return ErrorKind(kind)
    except ValueError:  # a kind newer than this package's generated taxonomy
        return kind


def codes(dialect: Union[str, Dialect, None] = None, format: str = "markdown") -> str:
    """The code table of one dialect (or all) as Markdown or JSON text."""
    d = None if dialect is None else _dialect(dialect)
    if format not in ("markdown", "json"):
        # The typed boundary cannot carry another name: the component words the refusal (as in every runtime).
        _text(format, "format")  # a str, or a clear type error
        raise _runtime.get().refused("unknown-format", format)
    return cast(str, _runtime.get().call("codes", d, format.encode()))


def kinds_json() -> str:
    """The taxonomy table as JSON text: every kind as `explain` describes it under `canonical`, its fields
    included."""
    return cast(str, _runtime.get().call("kinds-json"))


def kinds() -> list[dict[str, Any]]:
    """The taxonomy table: every kind as `explain` describes it under `canonical`, its fields included —
    `{kind, code, message, summary, category, gate, retryable, retry_hint, http_status, log_level,
    fields: [{name, type, required}]}`, the same objects the TypeScript package's `kinds()` returns."""
    table: list[dict[str, Any]] = _loads(kinds_json())
    return table


def set_environment(env: Union[Mapping[str, str], Iterable[tuple[str, str]]]) -> int:
    """Hands the component candidate environment variables; it keeps the secret-looking ones (by name) and
    scrubs their values from all output. Replaces any earlier environment (also the default `os.environ`).
    Returns how many were kept."""
    items = env.items() if isinstance(env, Mapping) else env
    pairs: list[tuple[str, str]] = []
    for item in items:
        try:
            k, v = item
        except (TypeError, ValueError):
            raise ArgumentTypeError("environment entries must be (name, value) pairs") from None
        _text(k, "environment name")
        _text(v, "environment value")
        pairs.append((k, v))
    return _runtime.set_environment(pairs)


# ---------------------------------------------------------------------------------------- typed errors


class JsonRpcError(Exception):
    """A JSON-RPC error a server can raise and a client can parse back.

    Server: ``raise JsonRpcError.from_kind(ErrorKind.METHOD_NOT_FOUND, method="x")`` then answer with
    ``err.to_response(request_id)``. Client: ``JsonRpcError.from_response(response_dict)``; `.kind` is filled
    by the component's reverse lookup.
    """

    def __init__(
        self,
        code: int,
        message: str,
        data: Any = None,
        *,
        kind: Union[ErrorKind, str, None] = None,
        dialect: Union[str, Dialect] = "canonical",
    ) -> None:
        super().__init__(f"{message} ({code})")
        self.code = code
        self.message = message
        self.data = data
        self.kind = kind
        self.dialect = _dialect_name(dialect)

    @classmethod
    def from_kind(
        cls,
        kind: Union[ErrorKind, str],
        dialect: Union[str, Dialect] = "canonical",
        *,
        context: Optional[Context] = None,
        **fields: Any,
    ) -> JsonRpcError:
        """Renders `kind` (with its fields) through the component and wraps the resulting error object."""
        name = kind.value if isinstance(kind, ErrorKind) else kind
        response = map_error({"kind": name, **fields}, dialect, context=context)
        err = response.get("error")
        if not isinstance(err, dict):
            raise JsonRpcErrorsValueError(
                f"dialect {_dialect_name(dialect)!r} reports {name!r} as a result, not as an error object: "
                "map_error() gives that response"
            )
        k: Union[ErrorKind, str] = kind if isinstance(kind, ErrorKind) else _as_kind(name)
        return cls(err["code"], err["message"], err.get("data"), kind=k, dialect=dialect)

    @classmethod
    def from_response(cls, response: Mapping[str, Any], dialect: Union[str, Dialect] = "canonical") -> JsonRpcError:
        """Parses a JSON-RPC response (or a bare error object) back into an exception with `.kind`."""
        if not isinstance(response, Mapping):
            raise ArgumentTypeError(f"response must be a mapping, not {type(response).__name__}")
        err = response.get("error", response)
        if not isinstance(err, Mapping) or not isinstance(err.get("code"), int) or isinstance(err.get("code"), bool):
            raise JsonRpcErrorsValueError("response has no JSON-RPC error object with an integer code")
        message = err.get("message")
        if not isinstance(message, str):
            raise JsonRpcErrorsValueError("the error object's message must be a string")
        code = err["code"]
        data = err.get("data", _MISSING)
        kind = lookup_kind(code, dialect, message, data)
        return cls(code, message, None if data is _MISSING else data, kind=kind, dialect=dialect)

    def to_error(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            out["data"] = self.data
        return out

    def to_response(self, id: Any = None) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "error": self.to_error(), "id": id}


def _as_kind(name: str) -> Union[ErrorKind, str]:
    try:
        return ErrorKind(name)
    except ValueError:
        return name


# Last: the server helper is built on the functions above.
from ._server import error_response  # noqa: E402
