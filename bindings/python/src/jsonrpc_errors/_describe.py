"""Shared by the logging and metrics integrations: the facts of one error, from the generated taxonomy."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional, Union

from ._map import JsonRpcError
from ._taxonomy import KINDS, Dialect, ErrorKind


def describe(error: Any, *, dialect: Union[str, Dialect] = "canonical") -> dict[str, Any]:
    """`error`: a JsonRpcError, a JSON-RPC response/error-object mapping, or an ErrorKind / kind name.

    Returns {code, message, kind, category, gate, retryable, http_status, log_level, correlation_id}; the kind
    of a response is found by the component's reverse lookup."""
    if isinstance(error, (ErrorKind, str)):
        kind: Optional[str] = error.value if isinstance(error, ErrorKind) else error
        code = message = data = None
    else:
        if not isinstance(error, JsonRpcError):
            if not isinstance(error, Mapping):
                raise TypeError(f"expected a JsonRpcError, a response mapping or a kind, not {type(error).__name__}")
            error = JsonRpcError.from_response(error, dialect)
        k = error.kind
        kind = None if k is None else (k.value if isinstance(k, ErrorKind) else str(k))
        code, message, data = error.code, error.message, error.data
    info = KINDS.get(kind) if kind is not None else None
    correlation = data.get("correlation_id") if isinstance(data, Mapping) else None
    return {
        "code": code,
        "message": message,
        "kind": kind,
        "category": info.category if info else None,
        "gate": info.gate if info else None,
        "retryable": info.retryable if info else None,
        "http_status": info.http_status if info else None,
        "log_level": info.log_level if info else "error",
        "correlation_id": correlation,
    }
