"""A plain JSON-RPC server's failure, in one call: the canonical response for the client, a redacted record for
the operator. What the MCP tool wrappers do for a tool, for any method of any JSON-RPC server (Starlette,
aiohttp, Django, a socket loop). The TypeScript package's `errorResponse` (`jsonrpc-errors/guard`) makes the
same calls, so both answer and log the same failure alike."""

from __future__ import annotations

import logging
import traceback
from collections.abc import Mapping
from enum import Enum
from typing import Any, Optional, Union

from ._args import Context
from ._errors import ArgumentTypeError
from ._guard import GuardSession
from ._map import JsonRpcError, map_error
from ._redact import redact_json_value, redact_with
from ._redaction_schema import REDACTION_OPTIONS
from ._taxonomy import KINDS, Dialect

_LOGGER = logging.getLogger("jsonrpc_errors.server")
_LEVELS = {"error": logging.ERROR, "warn": logging.WARNING, "info": logging.INFO, "debug": logging.DEBUG}


def _for_log(session: GuardSession, text: str) -> str:
    """Text for the operator's log, redacted as the guard's log is: secrets go, stack traces and paths stay."""
    return session.upstream_log(text).rstrip("\n")


def _carriable(error: Any) -> bool:
    return isinstance(error.code, int) and not isinstance(error.code, bool) and isinstance(error.message, str)


def error_response(
    error: BaseException,
    id: Any = None,
    *,
    method: Optional[str] = None,
    dialect: Union[str, Dialect] = "canonical",
    redaction: Optional[Mapping[str, Any]] = None,
    logger: Optional[logging.Logger] = None,
    context: Optional[Context] = None,
) -> dict[str, Any]:
    """The JSON-RPC response a server sends for ``error``, raised while it handled request ``id`` (of
    ``method``), and one log record of it for the operator.

    * A :class:`JsonRpcError` (``JsonRpcError.from_kind(...)``, raised on purpose) is answered as it is, its
      message and data redacted (``redaction``: the options of :func:`redact_json_value`, such as
      ``{"sensitive_keys": [...], "method": "mask"}``): a hand-built one cannot leak a secret either.
    * Anything else is the dialect's ``internal-error`` (in ``canonical``: -32603 with a correlation id), as
      :func:`map_error` renders it: nothing of the exception reaches the client.

    The record goes to ``logger`` (default ``jsonrpc_errors.server``) at the kind's level (ERROR for an
    unexpected exception), as the MCP adapters log: the fields in ``record.guard_event`` (``event``
    "request-failed", ``level``, ``kind``, ``code``, ``id``, ``method``, ``correlation_id`` — the one the
    client got —, ``exception``: the type's name, and ``detail``: the traceback, redacted by the component;
    secrets go, the frames and paths stay). Never the exception object itself (no ``exc_info``).

    ``id`` must be what JSON-RPC allows (a string, an integer or None): anything else raises the component's
    :class:`InvalidInput`. A notification (no id) is owed no response: do not send this one.
    """
    if not isinstance(error, BaseException):
        raise ArgumentTypeError(f"error must be an exception, not {type(error).__name__}")
    options = dict(redaction or {})
    unknown = sorted(set(options) - REDACTION_OPTIONS)
    if unknown:
        raise ArgumentTypeError(f"unknown redaction option(s) {unknown}; known: {sorted(REDACTION_OPTIONS)}")
    # Also what checks the id and the dialect: the component refuses what JSON-RPC cannot carry.
    response: dict[str, Any] = map_error({"kind": "internal-error", "id": id}, dialect, context=context)
    # A JsonRpcError that JSON-RPC cannot carry (a code that is no integer, a message that is no string) is
    # answered as any other exception: the internal error.
    if isinstance(error, JsonRpcError) and _carriable(error):
        # The same options for both: `sensitive_keys` means nothing to text, which the component allows.
        member: dict[str, Any] = {"code": error.code, "message": redact_with(error.message, **options).text}
        if error.data is not None:
            member["data"] = redact_json_value(error.data, **options).value
        response = {"jsonrpc": "2.0", "error": member, "id": response["id"]}
        kind = error.kind.value if isinstance(error.kind, Enum) else error.kind
        # Raised on purpose: logged at the kind's level (a kind this package does not know: INFO).
        info = KINDS.get(kind) if kind is not None else None
        level = info.log_level if info is not None else "info"
    else:
        member = response.get("error") or {}
        kind, level = "internal-error", KINDS["internal-error"].log_level
    log = logger or _LOGGER
    python_level = _LEVELS.get(level, logging.ERROR)
    if log.isEnabledFor(python_level):
        data = member.get("data")
        correlation = data.get("correlation_id") if isinstance(data, Mapping) else None
        with GuardSession() as session:
            trace = _for_log(session, "".join(traceback.format_exception(type(error), error, error.__traceback__)))
            shown_method = None if method is None else _for_log(session, str(method))
            shown_id = _for_log(session, id) if isinstance(id, str) else id
            exception = _for_log(session, type(error).__name__)
        event = {
            "event": "request-failed",
            "level": level,
            "kind": kind,
            "code": member.get("code"),
            "id": shown_id,
            "method": shown_method,
            "correlation_id": correlation,
            "exception": exception,
            "detail": trace,
        }
        log.log(
            python_level,
            "request %s (id %s) raised %s; the client gets %s %s%s\n%s",
            shown_method if shown_method is not None else "?",
            shown_id,
            exception,
            member.get("code"),
            kind or "(a kind of its own)",
            f" correlation_id={correlation}" if correlation else "",
            trace,
            extra={"guard_event": event},
        )
    return response
