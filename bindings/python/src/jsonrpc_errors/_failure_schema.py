# Generated from wit/world.wit (interface `guard`) by `cargo xtask gen`; do not edit.
"""Why the upstream failed, as ``interface guard`` in wit/world.wit states it: each variant a union of
``("case", payload)`` tuples and bare ``"case"`` names, each record a TypedDict."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, Optional, TypedDict, Union

from wasmtime.component import Record, Variant

from ._args import _text
from ._errors import ArgumentTypeError, JsonRpcErrorsValueError


class _HttpRefusalRequired(TypedDict):
    """HttpRefusal's fields that are always given."""

    status: int


class HttpRefusal(_HttpRefusalRequired, total=False):
    """An HTTP status an upstream refused a request with."""

    #: Its `Retry-After`, in seconds, when it gave one.
    retry_after_secs: Optional[int]


#: Why the upstream can no longer answer.
UpstreamFailure = Union[
    # It could not be started: the operating system's reason.
    tuple[Literal["spawn-failed"], str],
    # It exited with this status.
    tuple[Literal["exited"], int],
    # A signal ended it.
    tuple[Literal["killed"], int],
    # It closed its output while still running.
    Literal["closed-output"],
]

#: Why one request got no answer from an upstream reached request by request (over HTTP, each request is
#: an exchange of its own). The upstream is not gone: the next request is tried again.
RequestFailure = Union[
    # No answer could be had: the connection was refused or reset, the name did not resolve, TLS failed,
    # the response ended before its answer. The reason, naming no credential.
    tuple[Literal["unreachable"], str],
    # The upstream answered with an HTTP status and no JSON-RPC answer to the request (its body is never
    # passed on).
    tuple[Literal["refused"], HttpRefusal],
    # The upstream's session that the request was sent on is gone (HTTP 404 to a request that named it),
    # and no new one could be opened in its place.
    Literal["session-gone"],
]


def _upstream_failure(failure: Any) -> Any:
    """``upstream-failure`` as the component's call takes it, each part checked: a ``Variant`` (wasmtime-py tells its cases apart by their tag)."""
    if failure == "closed-output":
        return Variant("closed-output", None)
    try:
        tag, payload = failure
    except (TypeError, ValueError):
        raise ArgumentTypeError("failure must be ('spawn-failed', ...), ('exited', ...), ('killed', ...) or 'closed-output'") from None
    if tag == "spawn-failed":
        return Variant("spawn-failed", _str(payload, "spawn-failed"))
    if tag == "exited":
        return Variant("exited", _int(payload, "exited", -2147483648, 2147483647))
    if tag == "killed":
        return Variant("killed", _int(payload, "killed", -2147483648, 2147483647))
    raise JsonRpcErrorsValueError(f"unknown upstream failure {tag!r}")


def _request_failure(failure: Any) -> Any:
    """``request-failure`` as the component's call takes it, each part checked: its payload alone (wasmtime-py tells its cases apart by their Python type)."""
    if failure == "session-gone":
        return None
    try:
        tag, payload = failure
    except (TypeError, ValueError):
        raise ArgumentTypeError("failure must be ('unreachable', ...), ('refused', ...) or 'session-gone'") from None
    if tag == "unreachable":
        return _str(payload, "unreachable")
    if tag == "refused":
        return _http_refusal(payload, "refused")
    raise JsonRpcErrorsValueError(f"unknown request failure {tag!r}")


def _http_refusal(value: Any, what: str) -> Record:
    """``http-refusal`` as the component's call takes it, each field checked."""
    if not isinstance(value, Mapping):
        raise ArgumentTypeError(f"{what} must be a HttpRefusal dict")
    unknown = sorted(set(value) - {"status", "retry_after_secs"})
    if unknown:
        raise ArgumentTypeError(f"{what} has no field {unknown[0]!r}")
    record = Record()
    setattr(record, "status", _int(value.get("status"), f"{what}.status", 0, 65535))
    item = value.get("retry_after_secs")
    setattr(record, "retry-after-secs", None if item is None else _int(item, f"{what}.retry_after_secs", 0, 18446744073709551615))
    return record


def _str(value: Any, what: str) -> str:
    _text(value, what)
    return str(value)


def _int(value: Any, what: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ArgumentTypeError(f"{what} must be an int from {lo} to {hi}, not {value!r}")
    return value
