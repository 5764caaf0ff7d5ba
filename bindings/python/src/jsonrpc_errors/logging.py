"""`logging` integration: one structured record per JSON-RPC error, at the level the taxonomy gives its kind.

    import logging
    from jsonrpc_errors.logging import log_error
    log_error(logging.getLogger("rpc"), err)          # err: JsonRpcError, response dict, or ErrorKind

The record's message is "<kind>: <message> (<code>)"; the structured facts are in `record.jsonrpc_error`
(a dict: code, message, kind, category, gate, retryable, http_status, log_level, correlation_id) and in
`record.jsonrpc_kind`/`record.jsonrpc_code` for formatters. An error whose kind is unknown is logged at ERROR.
"""

from __future__ import annotations

import logging as _logging
from collections.abc import Mapping, MutableMapping
from typing import TYPE_CHECKING, Any, Optional, Union

from ._describe import describe
from ._taxonomy import KINDS, Dialect, ErrorKind

__all__ = ["LEVELS", "JsonRpcLoggerAdapter", "level_for", "log_error"]

# LoggerAdapter is generic to type checkers; at run time only from Python 3.11 on.
if TYPE_CHECKING:
    _Adapter = _logging.LoggerAdapter[Any]
else:
    _Adapter = _logging.LoggerAdapter


def __dir__() -> list[str]:
    return sorted(__all__)


LEVELS: Mapping[str, int] = {
    "error": _logging.ERROR,
    "warn": _logging.WARNING,
    "info": _logging.INFO,
    "debug": _logging.DEBUG,
}


def level_for(kind: Union[ErrorKind, str, None]) -> int:
    """The `logging` level of a kind (ERROR for an unknown kind)."""
    name = kind.value if isinstance(kind, ErrorKind) else kind
    info = KINDS.get(name) if name is not None else None
    return LEVELS[info.log_level] if info else _logging.ERROR


def log_error(
    logger: Union[_logging.Logger, _Adapter],
    error: Any,
    *,
    dialect: Union[str, Dialect] = "canonical",
    extra: Optional[Mapping[str, Any]] = None,
) -> dict[str, Any]:
    """Logs `error` at its kind's level; returns the structured facts that were attached."""
    facts = describe(error, dialect=dialect)
    level = LEVELS.get(facts["log_level"], _logging.ERROR)
    record_extra: dict[str, Any] = dict(extra or {})
    record_extra.update(jsonrpc_error=facts, jsonrpc_kind=facts["kind"], jsonrpc_code=facts["code"])
    logger.log(
        level,
        "%s: %s (%s)",
        facts["kind"] or "unknown-kind",
        facts["message"] if facts["message"] is not None else "",
        facts["code"],
        extra=record_extra,
    )
    return facts


class JsonRpcLoggerAdapter(_Adapter):
    """A LoggerAdapter with `.jsonrpc_error(err)`; its own `extra` is merged into every record."""

    def __init__(
        self,
        logger: _logging.Logger,
        extra: Optional[Mapping[str, Any]] = None,
        dialect: Union[str, Dialect] = "canonical",
    ) -> None:
        super().__init__(logger, dict(extra or {}))
        self.dialect = dialect

    def process(self, msg: Any, kwargs: MutableMapping[str, Any]) -> tuple[Any, MutableMapping[str, Any]]:
        kwargs["extra"] = {**(self.extra or {}), **kwargs.get("extra", {})}
        return msg, kwargs

    def jsonrpc_error(self, error: Any) -> dict[str, Any]:
        return log_error(self, error, dialect=self.dialect)
