"""Argument checks and conversions shared by the package's functions and classes."""

from __future__ import annotations

import os
import struct
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any, Optional

from . import _runtime
from ._errors import ArgumentTypeError, JsonRpcErrorsValueError
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


def _sized(data: bytes) -> bytes:
    """Refuses (as the guest words it) an input longer than the guest takes, before it is copied in."""
    rt = _runtime.get()
    if len(data) > rt.max_input_bytes():
        raise rt.refused("too-large", len(data))
    return data


def _pairs(env: Optional[Mapping[str, str]], what: str) -> list[tuple[str, str]]:
    """An environment as (name, value) pairs: the process's when none is given."""
    if env is None:
        return list(os.environ.items())
    if not isinstance(env, Mapping):
        raise ArgumentTypeError(f"{what} must be a mapping of str to str, not {type(env).__name__}")
    pairs = list(env.items())
    for name, value in pairs:
        if not isinstance(name, str) or not isinstance(value, str):
            raise ArgumentTypeError(f"{what} must map str to str")
    return pairs


def _texts(values: Any, what: str) -> list[str]:
    """A sequence of str (not one str, which is a sequence of its characters) as a list."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise ArgumentTypeError(f"{what} must be a sequence of str, not {type(values).__name__}")
    for value in values:
        if not isinstance(value, str):
            raise ArgumentTypeError(f"{what} must be a sequence of str, not of {type(value).__name__}")
    return list(values)


def _bool(x: Any, what: str) -> bool:
    if not isinstance(x, bool):
        raise ArgumentTypeError(f"{what} must be a bool, not {type(x).__name__}")
    return x


def _text(x: Any, what: str) -> bytes:
    if not isinstance(x, str):
        raise ArgumentTypeError(f"{what} must be str, not {type(x).__name__}")
    try:
        return _sized(x.encode("utf-8"))
    except UnicodeEncodeError as e:
        # A lone surrogate: refused by the guest, at the UTF-8 offset where the text stops being valid
        # (the offset every runtime reports for the same text).
        raise _runtime.get().refused("not-unicode", len(x[: e.start].encode("utf-8"))) from None


def _raw(x: Any, what: str = "raw", *, sized: bool = True) -> bytes:
    """Bytes (or str, encoded). `sized=False` for `validate`, which answers an oversize body itself."""
    if isinstance(x, (bytes, bytearray, memoryview)):
        return _sized(bytes(x)) if sized else bytes(x)
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
    # Not a member of the WIT enum: the guest words the refusal (and scrubs the name it echoes).
    raise _runtime.get().refused("unknown-dialect", name)
