"""The taxonomy as the component reports it: a code explained, a code looked up to its kind, the tables."""

from __future__ import annotations

from typing import Any, Optional, Union, cast

from . import _runtime
from ._args import _dialect, _s64, _text
from ._jsontext import _MISSING, _json_text, _loads
from ._taxonomy import Dialect, ErrorKind


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
