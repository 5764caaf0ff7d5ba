"""What the guard judges: the line for each item an SDK stream carries, and the SDK's messages for the lines the
guard writes. :class:`OversizeLine` and :class:`RawLine` are the items a reader of raw lines adds to them."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Optional, Union

from mcp.shared.message import SessionMessage
from mcp.types import JSONRPCMessage, JSONRPCNotification, jsonrpc_message_adapter
from pydantic import ValidationError

Item = Union[SessionMessage, Exception]


#: How much of each end of an oversize line the session is given: it reads the line's id there, to answer it.
OVERSIZE_EDGE_BYTES = 4096


class OversizeLine(Exception):
    """A line too long to read, discarded as it streamed: its length, and its first and last bytes as they
    passed (up to :data:`OVERSIZE_EDGE_BYTES` each). A reader of raw lines (as ``jsonrpc-errors guard`` reads
    its pipes) yields it where the line was, as the SDK's transports yield an exception for a line they
    cannot parse: sent to :class:`GuardedWriteStream`, the guard answers the client (-32600, ``oversize``,
    with the id the line's start shows); in the upstream's read stream, it is dropped and logged (and a
    response whose id its ends show answers its request at once)."""

    def __init__(self, length: int, head: bytes = b"", tail: bytes = b"") -> None:
        super().__init__(f"a line of {length} bytes, discarded unread")
        self.length = length
        self.head = head[:OVERSIZE_EDGE_BYTES]
        self.tail = tail[-OVERSIZE_EDGE_BYTES:]

    @classmethod
    def of(cls, line: bytes) -> OversizeLine:
        """A line that was read whole but is too long for the guard to take."""
        return cls(len(line), line[:OVERSIZE_EDGE_BYTES], line[-OVERSIZE_EDGE_BYTES:])


class RawLine(Exception):
    """A line exactly as a reader of raw lines read it (its newline removed), for the guard to judge: its own
    bytes, not what the SDK's parser makes of them. The parser changes what it cannot represent before the
    guard could see it: it drops a null or object ``id`` (a request becomes a notification, relayed), keeps
    one of ``result`` and ``error`` from an answer that has both, refuses a line behind a byte order mark.
    Sent to :class:`GuardedWriteStream` or yielded by the upstream's read stream where the SDK's transports
    yield a message (an ``Exception`` subclass for the same reason as :class:`OversizeLine`); what the guard
    relays of it reaches the other side as the SDK's message parsed from it."""

    def __init__(self, line: bytes) -> None:
        super().__init__(f"a line of {len(line)} bytes")
        self.line = line

    def message(self) -> Optional[SessionMessage]:
        """The SDK's message for the line, if the SDK can represent it."""
        message = _message_of(self.line.decode("utf-8", "replace"))
        return None if message is None else SessionMessage(message)


#: The largest power of ten an integer id written with an exponent (`1E400`) is carried with: past it, the
#: integer would take longer to build than the message is worth.
_ID_EXPONENT_LIMIT = 4000


def _message_of(text: str) -> Optional[JSONRPCMessage]:
    """The SDK's message for a line's text, or None when the SDK cannot represent it.

    An integer id however it is spelled (``1.0``, ``1E2``, ``-0``) is given to the SDK as the integer it is: the
    guard matches ids by value, as JSON-RPC and MCP compare them, but the SDK's message type takes only JSON
    integers written as such, and reads a request whose id it refuses as a notification: relayed so, it was
    never answered. A fractional id (``1.5``) the session refuses itself, in every runtime: MCP ids are
    strings or integers.
    """
    try:
        message = jsonrpc_message_adapter.validate_json(text, by_name=False)
    except ValueError:
        message = None
    # A notification is what the SDK makes of a request whose id it refused: read again, as the guard read it.
    if message is not None and not isinstance(message, JSONRPCNotification):
        return message
    try:
        # The second reading keeps the id's digits as written (no float rounding).
        value, exact = json.loads(text), json.loads(text, parse_float=Decimal)
    except ValueError:
        return None
    if message is not None and not (isinstance(value, dict) and "id" in value):
        return message
    return _message_of_value(value, exact)


def _message_of_value(value: object, exact: object) -> Optional[JSONRPCMessage]:
    """As :func:`_message_of`, for a parsed message (``exact``: the same parsed with decimal floats)."""
    id_ = exact.get("id") if isinstance(exact, dict) else None
    if isinstance(value, dict) and isinstance(id_, Decimal):
        if not id_.is_finite() or id_ != id_.to_integral_value() or id_.adjusted() > _ID_EXPONENT_LIMIT:
            return None
        value = {**value, "id": int(id_)}
    try:
        message = jsonrpc_message_adapter.validate_python(value, by_name=False)
    except ValueError:
        return None
    # An id the SDK would drop (null, an object) is no request it can carry.
    if isinstance(message, JSONRPCNotification) and isinstance(value, dict) and "id" in value:
        return None
    return message


def _wire(message: JSONRPCMessage) -> bytes:
    """The message as the guard reads it: compact JSON, wire names, absent members left out."""
    return message.__pydantic_serializer__.to_json(message, by_alias=True, exclude_none=True)


def _unread_line(error: Exception) -> Optional[bytes]:
    """The text an SDK transport could not read as a message, recovered from its parse error.

    The SDK's stdio transports hand the session a pydantic ``ValidationError`` instead of a line they cannot
    parse; the guard must see that line to decide about it (answer -32700 or -32600 to a client, drop an
    upstream's stray print). Not JSON: the error carries the text itself. JSON but not a JSON-RPC message:
    the errors carry the parsed value, which is written back compactly. None when neither is there.
    """
    if not isinstance(error, ValidationError):
        return None
    for detail in error.errors():
        loc, value = detail["loc"], detail.get("input")
        if detail["type"] == "json_invalid" and not loc:
            text = value.decode("utf-8", "replace") if isinstance(value, (bytes, bytearray)) else value
            if isinstance(text, str):
                return (text[:-1] if text.endswith("\n") else text).encode("utf-8", "replace")
        # A union member's own error (not a model) or a missing member: `input` is the whole value.
        if len(loc) == 1 or (detail["type"] == "missing" and len(loc) == 2):
            try:
                return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "replace")
            except (TypeError, ValueError):
                return None
    return None


def _line_of(item: Item) -> Optional[tuple[bytes, Optional[SessionMessage]]]:
    """The line the guard judges for what a transport delivered, with the message itself when it is one;
    None for a transport failure that carries no line."""
    if isinstance(item, SessionMessage):
        return _wire(item.message), item
    recovered = _unread_line(item)
    if recovered is None:
        return None
    # A line the SDK's parser refused that it can still carry once read as the guard reads it (an integer id
    # spelled `1.0`): the message to relay if the session forwards it.
    message = _message_of(recovered.decode("utf-8", "replace"))
    return recovered, None if message is None else SessionMessage(message)


def _judged(item: Item, limit: int) -> Optional[tuple[Union[bytes, OversizeLine], Optional[SessionMessage]]]:
    """As :func:`_line_of`; a line longer than ``limit`` (the session reads none that long, the component takes
    none over its own limit) stands as the :class:`OversizeLine` it is, as does one a reader discarded."""
    if isinstance(item, OversizeLine):
        return item, None
    if isinstance(item, RawLine):
        # Parsed only for the other side, if the guard relays it (the SDK's own message, metadata-free).
        return (OversizeLine.of(item.line) if len(item.line) > limit else item.line), item.message()
    judged = _line_of(item)
    if judged is None:
        return None
    line, original = judged
    return (OversizeLine.of(line) if len(line) > limit else line), original


def _messages(line: str) -> list[JSONRPCMessage]:
    """The guard's line as SDK messages. A batch answer (``batch="allow"``) is delivered as its members: the
    SDK's streams carry one message per item."""
    if line.lstrip().startswith("["):
        messages = [_message_of_value(m, e) for m, e in zip(json.loads(line), json.loads(line, parse_float=Decimal))]
    else:
        messages = [_message_of(line)]
    if any(m is None for m in messages):
        # Never for a line the session wrote from ones the SDK could carry: the guard relays ids as it got them.
        raise ValueError(f"the SDK cannot represent a message the guard wrote: {line[:200]!r}")
    return [m for m in messages if m is not None]
