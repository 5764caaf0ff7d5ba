"""JSON text to and from the component: one compact encoder built once, and a decoder that reads its one
document."""

from __future__ import annotations

import json
from typing import Any, Callable

from ._errors import ArgumentTypeError

_MISSING: Any = object()
_stdlib_compact = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode


def _unserializable(o: Any) -> Any:
    raise TypeError(f"Object of type {type(o).__name__} is not JSON serializable")


def _make_compact() -> Callable[[Any], str]:
    """Compact JSON text, as `_stdlib_compact` writes it, from one C encoder built once.

    `JSONEncoder.encode` builds a new C encoder on every call (a third of a small map_error's Python-side
    cost). The C encoder built here keeps no state between calls: no circular-reference markers (a cycle ends
    in RecursionError instead, reported as a TypeError), so threads can share it.
    """
    make = getattr(json.encoder, "c_make_encoder", None)
    basestring = getattr(json.encoder, "c_encode_basestring", None)
    if make is None or basestring is None:  # pragma: no cover - Pythons without the C accelerator
        return _stdlib_compact
    encoder = make(None, _unserializable, basestring, None, ":", ",", False, False, False)

    def compact(value: Any) -> str:
        try:
            return "".join(encoder(value, 0))
        except RecursionError:
            raise TypeError("the value is nested too deeply or holds a circular reference") from None

    return compact


_compact = _make_compact()
# raw_decode skips json.loads' type checks and trailing-whitespace scan: the component's output is one
# document with nothing after it.
_raw_decode = json.JSONDecoder().raw_decode


def _loads(text: str) -> Any:
    return _raw_decode(text)[0]


def _json_text(value: Any, what: str) -> str:
    try:
        return _compact(value)
    except (TypeError, ValueError) as e:
        raise ArgumentTypeError(f"{what} is not JSON-serializable: {e}") from None
