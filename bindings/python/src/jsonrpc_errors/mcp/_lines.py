"""What the guard judges: the line for each item an SDK stream carries, and the SDK's messages for the lines the
guard writes. :class:`OversizeLine` and :class:`RawLine` are the items a reader of raw lines adds to them."""

from __future__ import annotations

import json
from typing import Optional, Union

from mcp.shared.message import SessionMessage
from mcp.types import JSONRPCMessage, jsonrpc_message_adapter
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
        try:
            return SessionMessage(
                jsonrpc_message_adapter.validate_json(self.line.decode("utf-8", "replace"), by_name=False)
            )
        except ValueError:
            return None


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
    return None if recovered is None else (recovered, None)


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
        return [jsonrpc_message_adapter.validate_python(member) for member in json.loads(line)]
    return [jsonrpc_message_adapter.validate_json(line, by_name=False)]
