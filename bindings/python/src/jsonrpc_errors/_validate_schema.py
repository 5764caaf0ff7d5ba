# Generated from wit/world.wit (interface `types`: `validate-options`) by `cargo xtask gen`; do not edit.
"""Validate options, as ``validate-options`` in wit/world.wit states them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, Optional, TypedDict, Union

from ._args import _dialect, _text, _u64
from ._errors import ArgumentTypeError, JsonRpcErrorsValueError
from ._taxonomy import DEFAULT_MAX_BYTES, Dialect

BatchPolicy = Literal["reject", "allow"]


class ValidateOptions(TypedDict, total=False):
    """The keyword options of ``validate`` and ``validate_json``. What `validate` checks a request's bytes against. Every shell's mirror is generated from this record
    (`cargo xtask gen`); a field that is not an `option` states its default."""

    #: Default: 10 MiB.
    max_bytes: Optional[int]
    #: Default: `reject`.
    batch: BatchPolicy
    #: The transport's Content-Type header, checked when present.
    content_type: Optional[str]
    #: The transport's declared length: lets an oversize body be refused unread.
    content_length: Optional[int]
    #: Default: `canonical`.
    dialect: Union[str, Dialect]


#: The options' names.
VALIDATE_OPTIONS = frozenset(("max_bytes", "batch", "content_type", "content_length", "dialect",))


def _validate_record(options: Mapping[str, Any], what: str) -> tuple[Any, ...]:
    """``validate-options`` for the component, in the WIT's field order: each option checked (None or
    absent: not given, or its default)."""
    unknown = sorted(set(options) - VALIDATE_OPTIONS)
    if unknown:
        raise ArgumentTypeError(f"{what} got an unexpected option {unknown[0]!r} (known: {', '.join(sorted(VALIDATE_OPTIONS))})")
    max_bytes = options.get("max_bytes")
    max_bytes_value = None if max_bytes is None else _u64(max_bytes, "max_bytes")
    batch = options.get("batch")
    if batch is None:
        batch = "reject"
    if batch not in ("reject", "allow",):
        raise JsonRpcErrorsValueError(f"batch must be 'reject' or 'allow', not {batch!r}")
    batch_value = batch.encode()
    content_type = options.get("content_type")
    content_type_value = None if content_type is None else _text(content_type, "content_type")
    content_length = options.get("content_length")
    content_length_value = None if content_length is None else _u64(content_length, "content_length")
    dialect = options.get("dialect")
    dialect_value = _dialect("canonical" if dialect is None else dialect)
    return (max_bytes_value, batch_value, content_type_value, content_length_value, dialect_value,)


def _validate_record_for_body(
    options: Mapping[str, Any], what: str, length: int, max_input: int
) -> tuple[tuple[Any, ...], bool]:
    """``_validate_record`` for a body of ``length`` bytes, and whether the body is withheld: one over
    ``max_bytes`` (else ``DEFAULT_MAX_BYTES``) or over ``max_input`` does not enter wasm;
    ``content_length`` tells the component its length instead, so that it answers it unread."""
    record = _validate_record(options, what)
    limit = options.get("max_bytes")
    if length <= min(DEFAULT_MAX_BYTES if limit is None else limit, max_input):
        return record, False
    return _validate_record({**options, "content_length": length}, what), True
