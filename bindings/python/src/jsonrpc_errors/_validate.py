"""Request envelopes (`validate`) and upstream error responses (`sanitize`), judged by the component."""

from __future__ import annotations

from typing import Any, Optional, Union

from . import _runtime
from ._args import Context, _context, _dialect, _raw, _text, _u64
from ._errors import JsonRpcErrorsValueError
from ._jsontext import _loads
from ._taxonomy import DEFAULT_MAX_BYTES, Dialect


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
