"""Requests (`validate`) and upstream error responses (`sanitize`), judged by the component."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Union

from . import _runtime
from ._args import Context, _context, _dialect, _raw
from ._jsontext import _loads
from ._taxonomy import Dialect
from ._validate_schema import ValidateOptions, _validate_record_for_body

if TYPE_CHECKING:
    # For the type checker only: typing.Unpack is Python 3.11's.
    from typing_extensions import Unpack


def validate_json(
    raw: Union[bytes, bytearray, memoryview, str],
    *,
    context: Optional[Context] = None,
    **options: Unpack[ValidateOptions],
) -> Any:
    """`validate` returning the component's JSON text; the keyword options are :class:`ValidateOptions`
    (``validate-options`` in wit/world.wit)."""
    body = _raw(raw, sized=False)
    rt = _runtime.get()
    record, withheld = _validate_record_for_body(options, "validate", len(body), rt.max_input_bytes())
    if withheld:
        # Refused unread, exactly as the Rust host does: the component is told the body's length instead.
        body = b""
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        # Only invalid UTF-8 goes as a byte list (at most max_bytes of it): the guest reports where it breaks.
        return rt.outcome("validate", body, record, _context(context))
    return rt.outcome("validate-text", body, record, _context(context))


def validate(
    raw: Union[bytes, bytearray, memoryview, str],
    *,
    context: Optional[Context] = None,
    **options: Unpack[ValidateOptions],
) -> Any:
    """Validates raw request bytes: `{"valid": true, "id"?, "method"}`, the error response, or (batch="allow")
    a list with one entry per member. The keyword options are :class:`ValidateOptions`."""
    return _loads(validate_json(raw, context=context, **options))


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
