"""Callers for the component's exports on wasmtime-py's public API (``wasmtime.component``), built from the
same generated signatures as ``_abi``'s (``_signatures.py``) and returning the same values.

Used when ``_abi``'s feature check fails (a wasmtime-py whose internals differ from what ``_abi`` writes to)
or when ``JSONRPC_ERRORS_PUBLIC_API=1``: every call then costs wasmtime-py's generic conversion (tens of
microseconds more), and nothing else changes. The test suite runs on both paths.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Callable

from wasmtime.component import Record, Variant

Convert = Callable[[Any], Any]


def _identity(x: Any) -> Any:
    return x


def _text(b: bytes) -> str:
    # The package's argument checks hand strings over UTF-8-encoded (what _abi writes straight into wasm).
    return b.decode("utf-8")


_CONVERT: dict[str, Convert] = {
    "string": _text,
    "enum": _text,
    "u64": _identity,
    "s64": _identity,
    "bytes": bytes,
    "borrow": _identity,
}


def _converter(desc: Any) -> Convert:
    if isinstance(desc, str):
        return _CONVERT[desc]
    tag, inner = desc
    if tag == "option":
        convert = _converter(inner)
        return lambda x: None if x is None else convert(x)
    if tag == "record":
        fields = [(name, _converter(d)) for name, d in inner]

        def to_record(values: Sequence[Any]) -> Record:
            r = Record()
            for (name, convert), value in zip(fields, values):
                setattr(r, name, convert(value))
            return r

        return to_record
    raise ValueError(f"no conversion for {desc!r}")


def _outcome(v: Any) -> tuple[bool, Any]:
    """(True, json_text) or (False, {"code", "message", "data_json"}), as _abi.lift_outcome. wasmtime-py
    hands a variant whose cases' payload types differ over untagged: the string, or the error record."""
    if isinstance(v, Variant):
        v = v.payload
    if isinstance(v, str):
        return True, v
    e = v
    return False, {"code": int(e.code), "message": str(e.message), "data_json": getattr(e, "data-json")}


_RESULTS: dict[str, Convert] = {"string": str, "outcome": _outcome, "record-text": lambda r: str(r.text)}


class PublicFunc:
    """One export called through ``Func.__call__`` (which lowers, calls and runs post-return)."""

    __slots__ = ("_converts", "_func", "_result", "_store")

    def __init__(self, store: Any, func: Any, converts: Sequence[Convert], result: Convert) -> None:
        self._store = store
        self._func = func
        self._converts = tuple(converts)
        self._result = result

    def __call__(self, *args: Any) -> Any:
        return self._result(self._func(self._store, *(c(a) for c, a in zip(self._converts, args))))


def make_caller(store: Any, func: Any, params: Sequence[Any], result: str, method: bool = False) -> PublicFunc:
    converts = [_converter(d) for d in params]
    if method:
        converts = [_identity, *converts]
    return PublicFunc(store, func, converts, _RESULTS[result])
