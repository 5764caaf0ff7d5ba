"""Argument checks and conversions shared by the package's functions and classes."""

from __future__ import annotations

import os
import struct
import threading
import time
from typing import Any, Optional

from . import _runtime
from ._errors import ArgumentTypeError, InvalidInput, JsonRpcErrorsValueError
from ._taxonomy import Dialect

Context = tuple[int, int]
_U64 = (1 << 64) - 1
_DIALECTS = {d.value: d.value.encode() for d in Dialect}


# ---------------------------------------------------------------------------------------- argument checks


class _EntropyPool:
    """Random u64s for correlation ids, drawn from the OS 256 at a time (one syscall, not one per call)."""

    _N = 256

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._values: list[int] = []

    def next(self) -> int:
        with self._lock:
            if not self._values:
                self._values = list(struct.unpack(f"<{self._N}Q", os.urandom(8 * self._N)))
            return self._values.pop()


_entropy = _EntropyPool()


def _context(context: Optional[Context]) -> Context:
    if context is None:
        return time.time_ns() // 1_000_000, _entropy.next()
    try:
        millis, entropy = context
    except (TypeError, ValueError):
        raise ArgumentTypeError("context must be a (unix_millis, entropy) tuple of two ints") from None
    _u64(millis, "context unix_millis")
    _u64(entropy, "context entropy")
    return millis, entropy


def _u64(x: Any, what: str) -> int:
    if isinstance(x, bool) or not isinstance(x, int):
        raise ArgumentTypeError(f"{what} must be an int, not {type(x).__name__}")
    if not 0 <= x <= _U64:
        raise JsonRpcErrorsValueError(f"{what} must be between 0 and 2**64-1, got {x}")
    return x


def _s64(x: Any, what: str) -> int:
    if isinstance(x, bool) or not isinstance(x, int):
        raise ArgumentTypeError(f"{what} must be an int, not {type(x).__name__}")
    if not -(1 << 63) <= x < (1 << 63):
        raise JsonRpcErrorsValueError(f"{what} must fit in a signed 64-bit integer, got {x}")
    return x


def _text(x: Any, what: str) -> bytes:
    if not isinstance(x, str):
        raise ArgumentTypeError(f"{what} must be str, not {type(x).__name__}")
    try:
        return x.encode("utf-8")
    except UnicodeEncodeError as e:
        raise JsonRpcErrorsValueError(f"{what} is not encodable as UTF-8 (lone surrogate at {e.start})") from None


def _raw(x: Any, what: str = "raw") -> bytes:
    if isinstance(x, (bytes, bytearray, memoryview)):
        return bytes(x)
    if isinstance(x, str):
        return _text(x, what)
    raise ArgumentTypeError(f"{what} must be bytes (or str), not {type(x).__name__}")


def _dialect_name(d: Any) -> str:
    if isinstance(d, Dialect):
        return d.value
    if not isinstance(d, str):
        raise ArgumentTypeError(f"dialect must be str or Dialect, not {type(d).__name__}")
    return d


def _dialect(d: Any) -> bytes:
    name = _dialect_name(d)
    enc = _DIALECTS.get(name)
    if enc is not None:
        return enc
    # Not a member of the WIT enum: let the component describe the problem (map-error-json takes the name as
    # text and refuses an unknown dialect first), so the error object is the component's, not ours.
    ok, value = _runtime.get().call("map-error-json", b"{}", _text(name, "dialect"), 0, 0)
    if not ok:
        raise InvalidInput(value["code"], value["message"], value["data_json"])
    raise JsonRpcErrorsValueError(f"unknown dialect {name!r}")  # pragma: no cover - component accepted it


