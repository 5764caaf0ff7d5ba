"""Mapping an error kind to a dialect's response, and the typed error built on it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Optional, Union

from . import _runtime
from ._args import Context, _context, _dialect, _dialect_name, _text
from ._errors import ArgumentTypeError, JsonRpcErrorsValueError
from ._jsontext import _MISSING, _json_text, _loads
from ._lookup import lookup_kind
from ._taxonomy import Dialect, ErrorKind


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
