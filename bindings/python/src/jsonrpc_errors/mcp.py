"""The guard inside programs built on the official MCP Python SDK (``pip install 'jsonrpc-errors[mcp]'``).

A proxy or gateway gets exactly what ``jsonrpc-errors guard`` does, decided by the same component
(:class:`jsonrpc_errors.GuardSession`); this module only moves the SDK's messages in and out of the session,
keeps its clock and logs its events:

* :func:`guard_streams` wraps the stream pair of an SDK transport that leads to the upstream server
  (``stdio_client``, ``streamable_http_client``, the in-memory streams, ...) and returns the pair the client
  side uses (a ``ClientSession``, or a proxy's relay from a client-facing transport); :func:`guard_transport`
  does it for a whole transport, run in a task of its own so that its failure is answered, not spread.
* :func:`upstream_stderr_log` gives an upstream process a stderr whose lines are logged with secrets
  redacted (``stdio_client(params, errlog=...)``), as the Rust guard relays its upstream's stderr.
* :func:`guard_call_tool` (low-level ``Server(on_call_tool=...)``) and :func:`guard_tool` (``MCPServer``
  tool functions) answer a tool's failure as the guard answers the SDK's own reply to it
  (:func:`canonical_tool_error`): the SDK's meaning is kept (tool output stays tool output, a protocol error a
  protocol error), what leaks is scrubbed.

Events go to :mod:`logging` (logger ``jsonrpc_errors.mcp`` unless one is given): one record per event, at
the level the component gives it, with the event's fields in ``record.guard_event``. Message bodies are never
logged; an event's ``detail`` is the component's, redacted for the operator. So is every other text logged
here (a tool's exception and traceback, a transport's failure): secrets go, stack traces and paths stay.
"""

from __future__ import annotations

import functools
import inspect
import json
import logging
import os
import time
import traceback
import weakref
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from enum import Enum
from typing import Any, Literal, Optional, TextIO, Tuple, TypedDict, TypeVar, Union, cast

try:
    import anyio
    import anyio.abc
    import anyio.to_thread
    from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
    from mcp.shared._stream_protocols import ReadStream, WriteStream
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ResourceError, ToolError, UnexpectedResourceError, UnexpectedToolError
    from mcp.server.mcpserver.tools import ToolManager
    from mcp.shared.exceptions import MCPError
    from mcp.shared.message import SessionMessage
    from mcp.types import (
        INTERNAL_ERROR,
        INVALID_PARAMS,
        CallToolRequestParams,
        CallToolResult,
        ErrorData,
        JSONRPCMessage,
        TextContent,
        jsonrpc_message_adapter,
    )
    from mcp.types.version import MODERN_PROTOCOL_VERSIONS
    from pydantic import ValidationError
    from typing_extensions import Unpack
except ImportError as missing:  # pragma: no cover - exercised in a subprocess without the SDK
    raise ImportError(
        "jsonrpc_errors.mcp needs the official MCP SDK: pip install 'jsonrpc-errors[mcp]' "
        f"(the `mcp` extra: mcp>=2.3,<3); {missing}"
    ) from missing

from . import _runtime
from ._guard import GuardSession, Outcome, Step, UpstreamFailure, check_policy
from ._taxonomy import DEFAULT_MAX_BYTES, Dialect

__all__ = [
    "DEFAULT_OFFLOAD_BYTES",
    "DEFAULT_MAX_UPSTREAM_BYTES",
    "DEFAULT_TIMEOUT",
    "GuardOptions",
    "GuardedWriteStream",
    "OVERSIZE_EDGE_BYTES",
    "OversizeLine",
    "QUEUE_BUDGET_BYTES",
    "RawLine",
    "ServerApi",
    "canonical_tool_error",
    "guard_call_tool",
    "guard_streams",
    "guard_transport",
    "guard_tool",
    "guard_tools",
    "upstream_stderr_log",
]


def __dir__() -> list[str]:
    """The public API only (`__all__`), not the SDK names and helpers this module imports."""
    return sorted(__all__)

Peer = Literal["client", "upstream"]
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
    def of(cls, line: bytes) -> "OversizeLine":
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
            return SessionMessage(jsonrpc_message_adapter.validate_json(self.line.decode("utf-8", "replace"), by_name=False))
        except ValueError:
            return None


#: Guard calls on messages larger than this run on a worker thread, so the event loop keeps running while the
#: component reads them (most of a second for 10 MB). Smaller ones run inline: on a small message the thread hop
#: would cost more than the call.
DEFAULT_OFFLOAD_BYTES = 64 * 1024
#: The Rust guard's `--max-upstream-bytes` default: an upstream message this long is discarded, not relayed.
DEFAULT_MAX_UPSTREAM_BYTES = 64 * 1024 * 1024
#: Bytes queued toward one peer before the side producing them waits (the Rust guard's budget).
QUEUE_BUDGET_BYTES = 16 * 1024 * 1024

_LOGGER = logging.getLogger("jsonrpc_errors.mcp")
_LEVELS = {"error": logging.ERROR, "warn": logging.WARNING, "info": logging.INFO, "debug": logging.DEBUG}
# The event fields shown in the record's text, in this order (all of them are in record.guard_event).
_SHOWN = ("kind", "code", "id", "method", "correlation_id", "rule", "tool", "detail")


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


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


def _line_of(item: Item) -> Optional[Tuple[bytes, Optional[SessionMessage]]]:
    """The line the guard judges for what a transport delivered, with the message itself when it is one;
    None for a transport failure that carries no line."""
    if isinstance(item, SessionMessage):
        return _wire(item.message), item
    recovered = _unread_line(item)
    return None if recovered is None else (recovered, None)


def _judged(item: Item, limit: int) -> Optional[Tuple[Union[bytes, OversizeLine], Optional[SessionMessage]]]:
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


def _log_event(logger: logging.Logger, step: Step) -> None:
    """One record per guard event, at the component's level for it."""
    fields = {key: value for key, value in step.items() if key != "step"}
    level = _LEVELS.get(str(fields.get("level")), logging.ERROR)
    if not logger.isEnabledFor(level):
        return
    shown = " ".join(f"{key}={json.dumps(fields[key], ensure_ascii=False)}" for key in _SHOWN if key in fields)
    logger.log(level, "%s %s", fields.get("event", "event"), shown, extra={"guard_event": fields})


class _Outbox:
    """Messages for one peer, in the order the session decided them.

    A message relayed in its own direction (the client's request toward the upstream, the upstream's answer
    toward the client) is delivered by the task that read it, once the session's lock is released, when
    nothing is queued ahead of it: a slow peer then slows the side that feeds it, like a plain stream. What
    the session writes to the side a call came from (its answer to a bad client line, the answers when the
    upstream ends or a deadline passes) is queued for a writer task instead, so that no caller ever waits on
    a consumer that may be waiting on it. A producer waits when more than ``QUEUE_BUDGET_BYTES`` are queued.
    """

    def __init__(self, peer: Peer, stream: Union[WriteStream[SessionMessage], MemoryObjectSendStream[SessionMessage]],
                 logger: logging.Logger) -> None:
        self.peer = peer
        self._stream = stream
        self._logger = logger
        self._queue: deque[tuple[SessionMessage, int]] = deque()
        self._queued_bytes = 0
        self._wake_writer = anyio.Event()
        self._has_room = anyio.Event()
        self._has_room.set()
        self._closing = False
        self._gone = False
        # A delivery is under way (or reserved for the task that read the message): others queue behind it.
        self._busy = False
        # A receiver already waiting on a plain memory stream takes a message without a task switch.
        self._nowait = stream.send_nowait if isinstance(stream, MemoryObjectSendStream) else None

    def reserve(self) -> bool:
        """Whether the caller may deliver its message itself (nothing ahead of it). Under the session's lock."""
        if self._queue or self._busy or self._closing or self._gone:
            return False
        self._busy = True
        return True

    async def deliver(self, message: SessionMessage) -> None:
        """Delivers a message :meth:`reserve` made room for."""
        try:
            if self._nowait is not None:
                try:
                    self._nowait(message)
                    return
                except anyio.WouldBlock:
                    pass
            await self._stream.send(message)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._stream_gone()
        finally:
            self._busy = False
            if self._queue or self._closing:
                self._wake_writer.set()  # what queued up behind this message, or the close

    def put(self, message: SessionMessage, size: int) -> None:
        """Queues a message for the writer task. Under the session's lock."""
        if self._closing or self._gone:
            self._logger.debug("a message for the %s was dropped: it is gone", self.peer)
            return
        if self._nowait is not None and not self._queue and not self._busy:
            try:
                self._nowait(message)
                return
            except anyio.WouldBlock:
                pass
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                self._stream_gone()
                return
        self._queue.append((message, size))
        self._queued_bytes += size
        self._wake_writer.set()
        if self._queued_bytes > QUEUE_BUDGET_BYTES and self._has_room.is_set():
            self._has_room = anyio.Event()

    async def room(self) -> None:
        """Waits while this peer is behind by more than the budget."""
        await self._has_room.wait()

    def close(self) -> None:
        """No more messages: what is queued is delivered, then the stream is closed."""
        self._closing = True
        self._wake_writer.set()

    def _stream_gone(self) -> None:
        if not self._gone:
            self._logger.debug("the %s's stream is closed; %d queued messages dropped", self.peer, len(self._queue))
        self._gone = True
        self._queue.clear()
        self._queued_bytes = 0
        self._has_room.set()

    async def run(self) -> None:
        """The writer task."""
        try:
            while not self._gone:
                if self._busy or not self._queue:
                    if self._closing and not self._busy and not self._queue:
                        await self._stream.aclose()
                        break
                    self._wake_writer = anyio.Event()
                    await self._wake_writer.wait()
                    continue
                message, size = self._queue.popleft()
                self._queued_bytes -= size
                if self._queued_bytes <= QUEUE_BUDGET_BYTES:
                    self._has_room.set()
                self._busy = True
                try:
                    await self._stream.send(message)
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    self._stream_gone()
                finally:
                    self._busy = False
        finally:
            self._gone = True
            self._has_room.set()


class GuardedWriteStream:
    """The write stream :func:`guard_streams` returns: every message goes through the guard's ``client_line``.

    It takes ``SessionMessage`` items and also the ``Exception`` items a client-facing SDK transport yields for
    lines it cannot parse (so a proxy relays its client's stream as it is), and :class:`OversizeLine` for a
    line a proxy's own reader discarded unread: the guard answers those.
    """

    def __init__(self, guard: "_Guard") -> None:
        self._guard = guard

    async def send(self, item: Item, /) -> None:
        await self._guard.from_client(item)

    async def upstream_failed(self, failure: UpstreamFailure, /) -> None:
        """The upstream can answer nothing more, for a reason its read stream does not tell: its process exited
        (``("exited", status)``, ``("killed", signal)``) while something else holds its stdout open, or its
        transport failed. Every pending request is answered at once (and every later one), and the read
        stream ends. Only the first report of the upstream's end counts (the end of its read stream is one)."""
        await self._guard.upstream_failed(failure)

    async def set_policy(self, policy: str, env: Optional[Mapping[str, str]] = None) -> None:
        """Replaces the session's policy file (TOML) for the requests from now on: a reload, as SIGHUP is to
        ``jsonrpc-errors guard --config``. Requests in flight keep the policy they arrived under. A document
        the component refuses raises :class:`jsonrpc_errors.InvalidInput` (``data``: ``line``, ``column``,
        ``details``) and leaves the policy as it was. ``env``: where ``hash_key_env`` is read (default: this
        process's environment)."""
        await self._guard.set_policy(policy, env)

    async def aclose(self) -> None:
        self._guard.client_closed()

    def close(self) -> None:
        self._guard.client_closed()

    async def __aenter__(self) -> "GuardedWriteStream":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class _Guard:
    """One guard session between the client side and one upstream, carried out over SDK streams."""

    def __init__(
        self,
        session: GuardSession,
        upstream_read: ReadStream[Item],
        upstream_write: WriteStream[SessionMessage],
        client_send: MemoryObjectSendStream[SessionMessage],
        task_group: anyio.abc.TaskGroup,
        *,
        logger: logging.Logger,
        offload_bytes: float,
        max_bytes: Optional[int],
        max_upstream_bytes: int,
        grace: float,
    ) -> None:
        self._session = session
        self._upstream_read = upstream_read
        self._task_group = task_group
        self._logger = logger
        self._offload_bytes = offload_bytes
        # Longer lines are answered (client) or dropped (upstream) by their length: the component takes no
        # input over its own limit, and the session reads none over max_bytes anyway.
        limit = _runtime.get().max_input_bytes()
        self._max_client_bytes = min(max_bytes if max_bytes is not None else DEFAULT_MAX_BYTES, limit)
        self._max_upstream_bytes = min(max_upstream_bytes, limit)
        self._grace = grace
        # One guard call at a time; anyio's lock, since a large message's call is awaited on a worker thread.
        # fast_acquire: an uncontended acquire does not yield to the event loop (a task switch per message).
        self._lock = anyio.Lock(fast_acquire=True)
        self._outboxes: dict[Peer, _Outbox] = {
            "client": _Outbox("client", client_send, logger),
            "upstream": _Outbox("upstream", upstream_write, logger),
        }
        self._pending = 0
        self._deadline: Optional[int] = None
        self._timer_target: Optional[int] = None
        self._wake_timer = anyio.Event()
        self._client_closed = False
        self._upstream_ended = False
        # guard_streams has exited (the session is closed): a late report of the upstream's end is moot.
        self.shut = False
        self._nothing_pending = anyio.Event()

    # ------------------------------------------------------------------ tasks

    def start(self) -> None:
        for outbox in self._outboxes.values():
            self._task_group.start_soon(outbox.run)
        self._task_group.start_soon(self._relay_upstream)
        self._task_group.start_soon(self._expire_when_due)

    async def _relay_upstream(self) -> None:
        try:
            async for item in self._upstream_read:
                await self._from_upstream(item)
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass
        # However it ended (EOF, the process died, the transport closed): it can answer nothing more.
        await self.upstream_failed("closed-output")

    async def set_policy(self, policy: str, env: Optional[Mapping[str, str]]) -> None:
        # Under the lock: between two messages, never while one is being decided (on a worker thread).
        async with self._lock:
            self._session.set_policy(policy, env)

    async def upstream_failed(self, failure: UpstreamFailure) -> None:
        """The upstream's end, reported once: by the end of its read stream, or by whoever saw it first."""
        async with self._lock:
            if self._upstream_ended or self.shut:
                return
            self._upstream_ended = True
            self._apply(self._session.upstream_failed(failure), None, None)
        self._outboxes["upstream"].close()
        self._outboxes["client"].close()

    async def _expire_when_due(self) -> None:
        # Woken only when a deadline earlier than the one it sleeps toward appears; at its target it rereads
        # the session's deadline, so steady traffic costs one wake-up per timeout, not one per message.
        while True:
            self._wake_timer = anyio.Event()
            deadline = self._deadline
            self._timer_target = deadline
            if deadline is None:
                await self._wake_timer.wait()
                continue
            # One millisecond late rather than early: the session compares the deadline with the wall clock.
            delay = (deadline + 1 - _now_ms()) / 1000
            if delay > 0:
                with anyio.move_on_after(delay):
                    await self._wake_timer.wait()
                continue
            async with self._lock:
                self._apply(self._session.expire(), None, None)

    async def _finish_after_client(self) -> None:
        """The client closed: the read stream ends once nothing is pending (at most ``grace`` later)."""
        with anyio.move_on_after(self._grace):
            await self._nothing_pending.wait()
        async with self._lock:
            if not self._upstream_ended and self._pending:
                # What the Rust guard answers once the upstream it closed has gone.
                self._apply(self._session.upstream_failed("closed-output"), None, None)
        self._outboxes["client"].close()

    # ------------------------------------------------------------------ messages

    async def from_client(self, item: Item) -> None:
        if self._client_closed:
            raise anyio.ClosedResourceError
        judged = _judged(item, self._max_client_bytes)
        if judged is None:
            self._logger.warning("the client's transport reported %s; nothing to answer it with", type(item).__name__)
            return
        line, original = judged
        async with self._lock:
            if isinstance(line, OversizeLine):
                outcome = self._session.client_oversize(line.length, head=line.head, tail=line.tail)
            else:
                outcome = await self._decide(self._session.client_line_json, line)
            inline = self._apply(outcome, original, "upstream", len(line) if isinstance(line, bytes) else 0)
        if inline is not None:
            await inline[0].deliver(inline[1])
        await self._room("upstream")

    async def _from_upstream(self, item: Item) -> None:
        judged = _judged(item, self._max_upstream_bytes)
        if judged is None:
            # Not a line the guard could judge (the transport's own failure): logged, never relayed.
            self._logger.warning("the upstream's transport reported %s; not relayed", type(item).__name__)
            return
        line, original = judged
        async with self._lock:
            if isinstance(line, OversizeLine):
                outcome = self._session.upstream_oversize(line.length, head=line.head, tail=line.tail)
            else:
                outcome = await self._decide(self._session.upstream_line_json, line)
            inline = self._apply(outcome, original, "client", len(line) if isinstance(line, bytes) else 0)
        if inline is not None:
            await inline[0].deliver(inline[1])
        await self._room("client")

    async def _decide(self, call: Callable[[bytes], str], line: bytes) -> Outcome:
        if len(line) > self._offload_bytes:
            text = await anyio.to_thread.run_sync(call, line)
        else:
            text = call(line)
        outcome: Outcome = json.loads(text)
        return outcome

    def _apply(
        self, outcome: Outcome, original: Optional[SessionMessage], toward: Optional[Peer], size: int = 0
    ) -> Optional[tuple[_Outbox, SessionMessage]]:
        """Carries out a session call's steps (queues messages, logs events). Called under the lock.

        Returns the message the caller delivers itself once the lock is released, if any: the first one
        going ``toward`` the peer the call's message was heading for, when nothing is queued ahead of it.
        """
        metadata = original.metadata if original is not None else None
        inline: Optional[tuple[_Outbox, SessionMessage]] = None
        for step in outcome["steps"]:
            what = step["step"]
            if what == "event":
                _log_event(self._logger, step)
            elif what == "forward":
                if original is None:
                    self._logger.error("the guard asked to forward a message twice; the second copy was not sent")
                    continue
                # The SDK's message itself, metadata and all: never re-encoded by us.
                inline = inline or self._send(step["to"], toward, original, size)
                original = None
            elif what == "send":
                line = step["line"]
                # A reply to the message just read keeps its transport metadata (e.g. the request it relates to).
                kept = metadata if step["to"] == toward else None
                for message in _messages(line):
                    inline = inline or self._send(step["to"], toward, SessionMessage(message, kept), len(line))
        self._pending = outcome["pending"]
        self._set_deadline(outcome["deadline"])
        if self._client_closed and self._pending == 0:
            self._nothing_pending.set()
        return inline

    def _send(self, to: Peer, toward: Optional[Peer], message: SessionMessage, size: int) -> Optional[tuple[_Outbox, SessionMessage]]:
        outbox = self._outboxes[to]
        if to == toward and outbox.reserve():
            return outbox, message
        outbox.put(message, size)
        return None

    def _set_deadline(self, deadline: Optional[int]) -> None:
        self._deadline = deadline
        if deadline is not None and (self._timer_target is None or deadline < self._timer_target):
            self._wake_timer.set()

    async def _room(self, toward: Peer) -> None:
        """Waits while ``toward`` is too far behind: a reader waits on the far side only, never on itself."""
        await self._outboxes[toward].room()

    def client_closed(self) -> None:
        if self._client_closed:
            return
        self._client_closed = True
        if self._upstream_ended:
            return  # nothing left to close or to wait for
        self._logger.info("client-closed: the client closed its stream; closing the upstream's")
        self._outboxes["upstream"].close()
        if self._pending == 0:
            self._nothing_pending.set()
        try:
            self._task_group.start_soon(self._finish_after_client)
        except RuntimeError:
            pass  # guard_streams has already exited: nothing is left to finish


def _messages(line: str) -> list[JSONRPCMessage]:
    """The guard's line as SDK messages. A batch answer (``batch="allow"``) is delivered as its members: the
    SDK's streams carry one message per item."""
    if line.lstrip().startswith("["):
        return [jsonrpc_message_adapter.validate_python(member) for member in json.loads(line)]
    return [jsonrpc_message_adapter.validate_json(line, by_name=False)]


class _Unset(Enum):
    """An option the caller did not give: the policy file's ``[defaults]`` say, else the CLI's default."""

    UNSET = "unset"


UNSET = _Unset.UNSET

#: The CLI's default ``--timeout``, in seconds (below the 60 s most MCP clients wait).
DEFAULT_TIMEOUT = 50.0


def _resolved(given: Any, from_file: Any, default: Any) -> Any:
    """The caller's option, else the policy file's default (``check_policy``'s answer), else the CLI's."""
    if given is not UNSET:
        return given
    return default if from_file is None else from_file


def _timeout_ms(timeout: Optional[float]) -> Optional[int]:
    """Seconds as the session takes them: 0 or None means no timeout, anything else at least 1 ms."""
    if timeout is None or timeout == 0:
        return None
    if timeout < 0:
        raise ValueError(f"timeout must be a non-negative number of seconds, not {timeout!r}")
    return max(1, int(timeout * 1000))


@asynccontextmanager
async def guard_streams(
    read_stream: ReadStream[Item],
    write_stream: WriteStream[SessionMessage],
    *,
    dialect: Union[str, Dialect, _Unset] = UNSET,
    timeout: Union[Optional[float], _Unset] = UNSET,
    upstream: str = "upstream",
    max_bytes: Union[Optional[int], _Unset] = UNSET,
    batch: Union[Literal["reject", "allow"], _Unset] = UNSET,
    max_upstream_bytes: Union[int, _Unset] = UNSET,
    failed_result_bytes: Union[Optional[int], _Unset] = UNSET,
    offload_bytes: float = DEFAULT_OFFLOAD_BYTES,
    grace: float = 2.0,
    logger: Optional[logging.Logger] = None,
    policy: Optional[str] = None,
    policy_env: Optional[Mapping[str, str]] = None,
) -> AsyncIterator[tuple[MemoryObjectReceiveStream[SessionMessage], GuardedWriteStream]]:
    """Puts a guard session between an upstream's SDK streams and the client side.

    ``read_stream``/``write_stream`` lead to the upstream server (what ``stdio_client`` and the other client
    transports yield); the ``(read, write)`` pair yielded is what the client side uses instead. Messages the
    client side writes go through the session's ``client_line``, the upstream's through ``upstream_line``;
    a message the session forwards is passed on as the same ``SessionMessage`` object, one it writes itself
    is parsed from its line. The session's deadline drives ``expire``. When the upstream's read stream ends,
    every pending request is answered (``upstream_failed``) and the returned read stream ends.

    Closing the returned write stream closes the upstream's; the returned read stream then ends once nothing
    is pending, answering what is still pending after ``grace`` seconds. An item the upstream's transport
    could not parse is handed to the session as the line it was (dropped and logged), never relayed.

    Options as ``jsonrpc-errors guard``: ``dialect`` (default "canonical"), ``timeout`` (seconds; 0 or None:
    none; default 50), ``max_bytes`` (client messages; default 10 MiB), ``batch`` (default "reject"),
    ``max_upstream_bytes``, ``failed_result_bytes`` (the longest text of a failed tool result passed on;
    default 8 KiB); ``upstream`` names the upstream in answers (the Rust guard says ``stdio:<program>``).
    Guard calls on messages over ``offload_bytes`` run on a worker thread.

    ``policy`` is a policy file's text (TOML, as ``jsonrpc-errors guard --config FILE`` reads it: per-tool
    timeouts, redaction scopes, actions, ...), handed to the session as it is: the component reads it and
    decides what it means. ``policy_env`` is the environment its ``hash_key_env`` is read from (default:
    this process's). As with the CLI, the options given here override the file's ``[defaults]``, which
    override the defaults above. A document the component refuses raises
    :class:`jsonrpc_errors.InvalidInput` here, before anything starts (``data``: ``line``, ``column``,
    ``details``). The returned write stream's ``set_policy`` reloads it for the requests from then on.
    """
    file: dict[str, Any] = check_policy(policy, policy_env) if policy is not None else {}
    dialect = _resolved(dialect, file.get("dialect"), "canonical")
    batch = _resolved(batch, file.get("batch"), "reject")
    max_bytes = _resolved(max_bytes, file.get("max_bytes"), None)
    max_upstream_bytes = _resolved(max_upstream_bytes, file.get("max_upstream_bytes"), DEFAULT_MAX_UPSTREAM_BYTES)
    failed_result_bytes = _resolved(failed_result_bytes, file.get("failed_result_bytes"), None)
    if timeout is UNSET:
        file_timeout_ms = file.get("timeout_ms")
        timeout_ms = _timeout_ms(DEFAULT_TIMEOUT) if file_timeout_ms is None else (file_timeout_ms or None)
    else:
        timeout_ms = _timeout_ms(timeout)
    session = GuardSession(dialect, max_bytes=max_bytes, batch=batch, timeout_ms=timeout_ms, upstream=upstream,
                           failed_result_bytes=failed_result_bytes, policy=policy, policy_env=policy_env)
    client_send, client_receive = anyio.create_memory_object_stream[SessionMessage](0)
    try:
        async with anyio.create_task_group() as task_group:
            guard = _Guard(
                session,
                read_stream,
                write_stream,
                client_send,
                task_group,
                logger=logger or _LOGGER,
                offload_bytes=offload_bytes,
                max_bytes=max_bytes,
                max_upstream_bytes=max_upstream_bytes,
                grace=grace,
            )
            guard.start()
            try:
                yield client_receive, GuardedWriteStream(guard)
            finally:
                guard.shut = True
                task_group.cancel_scope.cancel()
    finally:
        client_send.close()
        client_receive.close()
        session.close()


class GuardOptions(TypedDict, total=False):
    """:func:`guard_streams`'s keyword options."""

    dialect: Union[str, Dialect]
    timeout: Optional[float]
    upstream: str
    max_bytes: Optional[int]
    batch: Literal["reject", "allow"]
    max_upstream_bytes: int
    failed_result_bytes: Optional[int]
    offload_bytes: float
    grace: float
    logger: Optional[logging.Logger]
    policy: Optional[str]
    policy_env: Optional[Mapping[str, str]]


@asynccontextmanager
async def guard_transport(
    transport: AbstractAsyncContextManager[tuple[ReadStream[Item], WriteStream[SessionMessage]]],
    **options: Unpack[GuardOptions],
) -> AsyncIterator[tuple[MemoryObjectReceiveStream[SessionMessage], GuardedWriteStream]]:
    """A client transport with the guard in front: ``Client(guard_transport(stdio_client(params), dialect="mcp"))``.

    Enters ``transport`` and yields :func:`guard_streams` over its streams; ``options`` are guard_streams's.
    The transport runs in a task of its own, so that its failure is the guard's to answer: the SDK's
    ``streamable_http_client``, when the server dies mid-call, fails its task group, which cancels whatever
    task entered it; entered by the caller, that would cancel the very calls the guard owes answers. Here the
    failure is logged (redacted) and every pending request answered (``upstream_failed``), as when a stdio
    upstream exits. A transport that cannot be entered raises as it did.
    """
    log = options.get("logger") or _LOGGER
    closing = anyio.Event()
    # The guard to tell, while there is one.
    guarded: list[GuardedWriteStream] = []

    async def hold_transport(*, task_status: anyio.abc.TaskStatus[object]) -> None:
        opened = False
        try:
            async with transport as streams:
                opened = True
                task_status.started(streams)
                await closing.wait()
        except Exception as failure:  # noqa: BLE001 - whatever ended the transport, the guard answers for it
            if not opened:
                task_status.started(failure)  # raised to the caller, outside the task group
                return
            _log_transport_failure(log, failure, closing.is_set())
            if guarded:
                await guarded[0].upstream_failed("closed-output")

    refused: Optional[BaseException] = None
    async with anyio.create_task_group() as task_group:
        opened = await task_group.start(hold_transport)
        if isinstance(opened, BaseException):
            refused = opened
        else:
            read_stream, write_stream = cast("tuple[ReadStream[Item], WriteStream[SessionMessage]]", opened)
            try:
                async with guard_streams(read_stream, write_stream, **options) as pair:
                    guarded.append(pair[1])
                    try:
                        yield pair
                    finally:
                        guarded.clear()
            finally:
                closing.set()
    if refused is not None:
        raise refused


def _log_transport_failure(log: logging.Logger, failure: BaseException, closing: bool) -> None:
    """The exception that ended an upstream's transport, for the operator: redacted (traces and paths stay)."""
    level = logging.INFO if closing else logging.WARNING
    if not log.isEnabledFor(level):
        return
    with GuardSession() as redactor:
        text = redactor.upstream_log("".join(traceback.format_exception(type(failure), failure, failure.__traceback__))).rstrip("\n")
    what = "closing the upstream's transport failed" if closing else "the upstream's transport failed; every pending request is answered"
    log.log(level, "%s\n%s", what, text, extra={"guard_event": {"event": "upstream-transport-failed", "level": logging.getLevelName(level).lower(), "detail": text}})


# ---------------------------------------------------------------------------------------------- upstream stderr


@asynccontextmanager
async def upstream_stderr_log(logger: Optional[logging.Logger] = None, *, settle: float = 0.5) -> AsyncIterator[TextIO]:
    """A file to give an upstream process as its stderr; every line it writes is logged, secrets redacted.

    ``async with upstream_stderr_log() as errlog, stdio_client(params, errlog=errlog) as streams: ...``.
    Each line becomes one ``upstream-stderr`` record at INFO (``record.guard_event``), redacted by the
    component as the Rust guard redacts its upstream's stderr: tokens, credentials and personal data go,
    stack traces and paths stay for the operator. On exit, what the process wrote last is still logged (until
    its stderr closes, at most ``settle`` seconds). POSIX only (the pipe is watched by the event loop).
    """
    log = logger or _LOGGER
    read_fd, write_fd = os.pipe()
    os.set_blocking(read_fd, False)
    errlog = open(write_fd, "w", encoding="utf-8", closefd=True)  # noqa: SIM115 - closed below, by design early
    redactor = GuardSession()
    ended = anyio.Event()

    def emit(clean: str) -> None:
        for line in clean.splitlines():
            if line:
                log.info("upstream-stderr %s", line, extra={"guard_event": {"event": "upstream-stderr", "level": "info", "message": line}})

    async def relay() -> None:
        # The bytes go to the session as read: it cuts them at line ends (a line cut in two would be
        # redacted as two), holding an unfinished line until its end, as in every runtime.
        try:
            while True:
                await anyio.wait_readable(read_fd)
                try:
                    chunk = os.read(read_fd, 64 * 1024)
                except BlockingIOError:
                    continue
                if not chunk:
                    break
                emit(redactor.upstream_stderr(chunk))
        finally:
            # At the end, or when no longer waited for (a process that left the pipe open): the line held.
            emit(redactor.upstream_stderr_end())
            ended.set()

    try:
        async with anyio.create_task_group() as task_group:
            task_group.start_soon(relay)
            try:
                yield errlog
            finally:
                # Our copy of the write end: the pipe ends once every process holding the other copy is gone.
                errlog.close()
                with anyio.move_on_after(settle):
                    await ended.wait()
                task_group.cancel_scope.cancel()
    finally:
        os.close(read_fd)
        redactor.close()


# ---------------------------------------------------------------------------------------------- tool errors


#: Which of the SDK's server APIs a tool runs under: they answer the same exception differently.
ServerApi = Literal["mcpserver", "lowlevel"]
#: The protocol revisions the SDK serves statelessly (2026-07-28 on): there a low-level handler's crash is
#: answered with a generic -32603; under the 2025 handshake with the exception's own text.
_STATELESS_VERSIONS = frozenset(MODERN_PROTOCOL_VERSIONS)


def _error_member(error: ErrorData) -> dict[str, object]:
    # As the SDK's transports write an error object: the members that were set, and only those.
    member: dict[str, object] = error.model_dump(by_alias=True, mode="json", exclude_unset=True)
    return member


def _mcpserver_reply(tool: str, error: BaseException) -> dict[str, object]:
    """What ``MCPServer`` writes when tool ``tool`` raises ``error`` (mcp 2.3: ``Tool.run`` and
    ``MCPServer._handle_call_tool``): an ``MCPError`` is the protocol error it carries; a ``ToolError`` or
    ``ResourceError`` (raised on purpose, or the SDK's own wrapper of a nested tool's crash) is a failed
    result for the model with its text after the SDK's prefix; anything else is a crash, whose text stays on
    the server."""
    if isinstance(error, MCPError):
        return {"error": _error_member(error.error)}
    text = f"Error executing tool {tool}: {error}" if isinstance(error, (ToolError, ResourceError)) else f"Error executing tool {tool}"
    result = CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)
    return {"result": result.model_dump(by_alias=True, mode="json", exclude_none=True)}


def _lowlevel_reply(error: BaseException, protocol_version: Optional[str]) -> dict[str, object]:
    """What the low-level ``Server`` writes when its ``on_call_tool`` handler raises ``error`` (mcp 2.3's
    dispatchers): an ``MCPError``'s own error; -32602 for a pydantic ``ValidationError``; anything else is
    answered by the protocol in use: the stateless one gives a generic -32603, the 2025 handshake the
    exception's text with code 0 (``JSONRPCDispatcher`` keeps 0 for its older servers)."""
    if isinstance(error, MCPError):
        data = error.error
    elif isinstance(error, ValidationError):
        data = ErrorData(code=INVALID_PARAMS, message="Invalid request parameters", data="")
    elif protocol_version in _STATELESS_VERSIONS:
        data = ErrorData(code=INTERNAL_ERROR, message="Internal server error")
    else:
        data = ErrorData(code=0, message=str(error))
    return {"error": _error_member(data)}


def _sdk_reply(tool: str, error: BaseException, server_api: ServerApi, protocol_version: Optional[str]) -> dict[str, object]:
    """The response member (``result`` or ``error``) the SDK itself writes for ``error`` escaping a tool."""
    if server_api == "mcpserver":
        return _mcpserver_reply(tool, error)
    if server_api == "lowlevel":
        return _lowlevel_reply(error, protocol_version)
    raise ValueError(f"server_api must be 'mcpserver' or 'lowlevel', not {server_api!r}")


def _is_crash(error: BaseException, server_api: ServerApi) -> bool:
    """Whether the SDK takes ``error`` for a crash (logged with its traceback at ERROR) rather than a failure
    raised on purpose (INFO)."""
    if server_api == "mcpserver":
        anticipated = isinstance(error, (MCPError, ToolError, ResourceError))
        return not anticipated or isinstance(error, (UnexpectedToolError, UnexpectedResourceError))
    return not isinstance(error, (MCPError, ValidationError))


def _through_guard(
    tool: str, reply: dict[str, object], dialect: Union[str, Dialect], trace: Optional[str] = None
) -> tuple[dict[str, object], Optional[str]]:
    """The message a guard session in ``dialect`` writes the client when the upstream answers a
    ``tools/call`` of ``tool`` with ``reply`` (its ``result`` or ``error`` member); and ``trace`` as the
    same session redacts it for the operator's log (secrets go, stack traces and paths stay)."""
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool}}
    with GuardSession(dialect) as session:
        session.client_line(json.dumps(request, ensure_ascii=False, separators=(",", ":")))
        outcome = session.upstream_line(json.dumps({"jsonrpc": "2.0", "id": 1, **reply}, ensure_ascii=False, separators=(",", ":")))
        logged = session.upstream_log(trace) if trace is not None else None
    for step in outcome["steps"]:
        if step["step"] == "send" and step["to"] == "client":
            answer: dict[str, object] = json.loads(step["line"])
            return answer, logged
        if step["step"] == "forward" and step["to"] == "client":
            return {"jsonrpc": "2.0", "id": 1, **reply}, logged
    # The session answers every response to a pending request; anything else is a broken component.
    raise RuntimeError("the guard session wrote nothing for the tool's answer")


def canonical_tool_error(
    tool: str,
    error: BaseException,
    *,
    dialect: Union[str, Dialect] = "mcp",
    server_api: ServerApi = "mcpserver",
    protocol_version: Optional[str] = None,
) -> Union[CallToolResult, ErrorData]:
    """What the guard answers a client whose ``tools/call`` of ``tool`` failed with ``error``.

    ``error`` is described as the wire message the SDK itself writes for it (``server_api``: ``MCPServer``'s
    texts, or the low-level ``Server``'s, which depend on the request's ``protocol_version``): a
    ``ToolError`` is a failed tool result ``"Error executing tool <tool>: <text>"``, an ``MCPError`` its
    JSON-RPC error, any other exception ``MCPServer``'s generic failed result (the low-level server: code 0
    with the exception's text under the 2025 handshake, a generic -32603 for the stateless protocol). A
    private guard session reads a ``tools/call`` request of ``tool`` and then that message; what it writes
    for the client is returned: a tool result (``isError``), or the error object. The component decides the
    rest: results are redacted and cut, standard and MCP-spec codes kept with their data scrubbed,
    server-specific codes become the dialect's upstream error (in ``mcp``, a failed tool result). The
    TypeScript package describes its SDK's failures the same way.
    """
    answer, _ = _through_guard(tool, _sdk_reply(tool, error, server_api, protocol_version), dialect)
    if "result" in answer:
        return CallToolResult.model_validate(answer["result"])
    return ErrorData.model_validate(answer["error"])


def _answered(
    tool: str,
    error: Exception,
    dialect: Union[str, Dialect],
    logger: Optional[logging.Logger],
    server_api: ServerApi,
    protocol_version: Optional[str],
) -> CallToolResult:
    """Logs ``error`` for the operator, redacted, and returns the canonical result or raises the canonical
    error (as ``MCPError``, which the SDK answers with as it is)."""
    log = logger or _LOGGER
    crash = _is_crash(error, server_api)
    level = logging.ERROR if crash else logging.INFO
    # Never the exception itself (exc_info, its text, its locals): the log would hold every secret in it.
    # Its traceback goes through the component, which keeps the frames and paths and drops the secrets.
    trace = "".join(traceback.format_exception(type(error), error, error.__traceback__)) if log.isEnabledFor(level) else None
    answer, logged = _through_guard(tool, _sdk_reply(tool, error, server_api, protocol_version), dialect, trace)
    if logged is not None:
        event = {"event": "tool-failed", "level": "error" if crash else "info", "tool": tool, "exception": type(error).__name__, "detail": logged}
        log.log(level, "tool %r raised %s; the client gets the canonical tool error\n%s", tool, type(error).__name__, logged.rstrip("\n"),
                extra={"guard_event": event})
    if "result" in answer:
        return CallToolResult.model_validate(answer["result"])
    canonical = ErrorData.model_validate(answer["error"])
    # `from None`: nothing of the original rides along with what the SDK sends.
    raise MCPError(canonical.code, canonical.message, canonical.data) from None


_Result = TypeVar("_Result")


def _checked(tool: str, result: _Result, dialect: Union[str, Dialect]) -> _Result:
    """A tool's own ``isError`` result with its text redacted and cut as the guard does an upstream's; any
    other result untouched."""
    if not (isinstance(result, CallToolResult) and result.is_error):
        return result
    answer, _ = _through_guard(tool, {"result": result.model_dump(by_alias=True, mode="json", exclude_none=True)}, dialect)
    if "result" in answer:
        return cast(_Result, CallToolResult.model_validate(answer["result"]))
    error = ErrorData.model_validate(answer["error"])
    raise MCPError(error.code, error.message, error.data)


CallToolHandler = TypeVar("CallToolHandler", bound=Callable[..., Awaitable[object]])
ToolFunction = TypeVar("ToolFunction", bound=Callable[..., object])


def guard_call_tool(
    handler: Optional[CallToolHandler] = None,
    *,
    dialect: Union[str, Dialect] = "mcp",
    logger: Optional[logging.Logger] = None,
) -> Union[CallToolHandler, Callable[[CallToolHandler], CallToolHandler]]:
    """Wraps a low-level server's ``on_call_tool`` handler ``(ctx, params) -> CallToolResult``.

    An exception it raises is answered as the guard answers the low-level ``Server``'s own reply to it
    (:func:`canonical_tool_error` for ``params.name``, by the protocol of the request): a tool result is
    returned, an error object raised as ``MCPError``, which the SDK sends as it is. ``MCPError`` and its
    subclasses (``UrlElicitationRequiredError``) go through the guard too: their codes and data's structure
    stay where the component keeps them. The exception goes to the log, redacted (its traceback and paths
    stay). An ``isError`` result the handler returns is redacted and cut as the guard does an upstream's; any
    other result is returned untouched. ``Server(on_call_tool=guard_call_tool(handler))`` or
    ``@guard_call_tool(dialect="thoughtgate")``.
    """
    GuardSession(dialect).close()  # an unknown dialect is refused now, not at the first failure

    def wrap(inner: CallToolHandler) -> CallToolHandler:
        @functools.wraps(inner)
        async def guarded(ctx: object, params: CallToolRequestParams) -> object:
            try:
                result = await inner(ctx, params)
            except Exception as error:  # noqa: BLE001 - every tool failure gets the canonical answer
                # What the SDK writes for a crash depends on the request's protocol (ServerRequestContext's).
                version = getattr(ctx, "protocol_version", None)
                return await anyio.to_thread.run_sync(_answered, params.name, error, dialect, logger, "lowlevel", version)
            return await anyio.to_thread.run_sync(_checked, params.name, result, dialect)

        return cast(CallToolHandler, guarded)

    return wrap(handler) if handler is not None else wrap


def guard_tool(
    fn: Optional[ToolFunction] = None,
    *,
    name: Optional[str] = None,
    dialect: Union[str, Dialect] = "mcp",
    logger: Optional[logging.Logger] = None,
) -> Union[ToolFunction, Callable[[ToolFunction], ToolFunction]]:
    """Wraps an ``MCPServer`` tool function (sync or async); put it under ``@server.tool()``.

    An exception the tool raises is answered as the guard answers ``MCPServer``'s own reply to it
    (:func:`canonical_tool_error`; ``name`` is the tool's registered name, by default the function's, as
    ``@server.tool()`` names it): a ``ToolError`` stays a failed tool result for the model, its text
    scrubbed; an ``MCPError`` (``UrlElicitationRequiredError`` included) stays a protocol error where the
    component keeps its code; any other exception is the SDK's generic failed result. A tool result is
    returned, an error object raised as ``MCPError``, which ``MCPServer`` sends as it is. The exception goes
    to the log, redacted (its traceback and paths stay). A ``CallToolResult`` with ``is_error`` the tool
    returns is redacted and cut as the guard does an upstream's. The signature, context parameter and return
    annotation stay the function's (``MCPServer`` reads them). Put above ``@server.tool()`` instead, it would
    guard a copy nobody calls: a ``TypeError`` says so, wherever the server lives (this module notes which
    functions ``MCPServer`` registers unguarded: the SDK's ``ToolManager.add_tool`` is wrapped, unchanged, on
    import; a registration made before that import is found when the server is in sight, in the decorated
    function's module or where the decorator is applied).
    """
    GuardSession(dialect).close()  # an unknown dialect is refused now, not at the first failure
    caller = inspect.currentframe()
    # The servers in sight where the decorator is applied (the frame itself is not kept).
    in_sight = _servers_in(caller.f_back.f_locals, caller.f_back.f_globals) if caller is not None and caller.f_back is not None else []
    del caller

    def wrap(inner: ToolFunction) -> ToolFunction:
        registered = _still_registered(inner)
        if registered is None:
            registered = _registered_bare(inner, [*in_sight, *_servers_in(getattr(inner, "__globals__", {}))])
        if registered is not None:
            raise TypeError(
                f"@guard_tool is applied above @server.tool(): tool {registered!r} is already registered unguarded "
                "(server.tool() registers the function it is given); put @guard_tool below @server.tool()"
            )
        tool = name or inner.__name__
        if _is_async(inner):

            @functools.wraps(inner)
            async def guarded_async(*args: object, **kwargs: object) -> object:
                try:
                    result = await cast(Callable[..., Awaitable[object]], inner)(*args, **kwargs)
                except Exception as error:  # noqa: BLE001
                    return await anyio.to_thread.run_sync(_answered, tool, error, dialect, logger, "mcpserver", None)
                return await anyio.to_thread.run_sync(_checked, tool, result, dialect)

            setattr(guarded_async, _GUARDED, True)
            return cast(ToolFunction, guarded_async)

        @functools.wraps(inner)
        def guarded(*args: object, **kwargs: object) -> object:
            # MCPServer runs a sync tool on a worker thread, so the guard's calls here block no event loop.
            try:
                result = inner(*args, **kwargs)
            except Exception as error:  # noqa: BLE001
                return _answered(tool, error, dialect, logger, "mcpserver", None)
            return _checked(tool, result, dialect)

        setattr(guarded, _GUARDED, True)
        return cast(ToolFunction, guarded)

    return wrap(fn) if fn is not None else wrap


def guard_tools(server: MCPServer, *, dialect: Union[str, Dialect] = "mcp", logger: Optional[logging.Logger] = None) -> MCPServer:
    """Guards every tool ``server`` registers from now on (``@server.tool()``, ``server.add_tool``) with
    :func:`guard_tool` under the name it is registered with. Call it before registering tools; returns the
    server: ``mcp = guard_tools(MCPServer("name"))``."""
    GuardSession(dialect).close()
    add_tool = server.add_tool

    @functools.wraps(add_tool)
    def add_guarded_tool(fn: Callable[..., object], name: Optional[str] = None, *args: object, **kwargs: object) -> None:
        add_tool(guard_tool(fn, name=name or fn.__name__, dialect=dialect, logger=logger), name, *args, **kwargs)  # type: ignore[arg-type]

    # On the instance: `@server.tool()` registers through `self.add_tool`.
    setattr(server, "add_tool", add_guarded_tool)
    return server


#: Marks the functions guard_tool returns: registering one is registering a guarded tool.
_GUARDED = "__jsonrpc_errors_guarded__"
#: Every function an ``MCPServer`` registered as it is (not guarded), with the name it was registered under:
#: what ``@guard_tool`` stacked above ``@server.tool()`` is given, wherever the server lives (an attribute,
#: another module, a factory's return value). Weak: a registry keeps no function alive.
_REGISTERED_BARE: "weakref.WeakKeyDictionary[Callable[..., object], list[tuple[weakref.ref[Any], str]]]" = weakref.WeakKeyDictionary()


def _weakly_keyed(fn: object) -> bool:
    try:
        weakref.ref(fn)
    except TypeError:
        return False
    return True


def _record_registrations() -> None:
    """Makes ``ToolManager.add_tool`` (every way ``MCPServer`` registers a tool: ``@server.tool()``,
    ``server.add_tool``) note which functions it registered unguarded, once per process. It calls the SDK's
    own method first and returns what that returns: registration is unchanged."""
    add_tool = getattr(ToolManager, "add_tool", None)
    if not callable(add_tool) or getattr(add_tool, _GUARDED, False):
        return

    @functools.wraps(add_tool)
    def add_tool_noted(self: object, fn: Callable[..., object], *args: object, **kwargs: object) -> object:
        tool = add_tool(self, fn, *args, **kwargs)
        name = getattr(tool, "name", None)
        if not getattr(fn, _GUARDED, False) and isinstance(name, str) and _weakly_keyed(fn):
            try:
                _REGISTERED_BARE.setdefault(fn, []).append((weakref.ref(self), name))
            except TypeError:  # a manager that cannot be weakly referenced: the in-sight check remains
                pass
        return tool

    setattr(add_tool_noted, _GUARDED, True)
    setattr(ToolManager, "add_tool", add_tool_noted)


_record_registrations()


def _still_registered(fn: Callable[..., object]) -> Optional[str]:
    """The name under which a live server still runs ``fn`` itself, as noted when it was registered."""
    if not _weakly_keyed(fn):
        return None
    for manager_ref, name in _REGISTERED_BARE.get(fn, ()):
        manager = manager_ref()
        get_tool = getattr(manager, "get_tool", None)
        tool = get_tool(name) if callable(get_tool) else None
        if tool is not None and getattr(tool, "fn", None) is fn:
            return name
    return None


def _servers_in(*scopes: dict[str, object]) -> list[MCPServer]:
    return [value for scope in scopes for value in list(scope.values()) if isinstance(value, MCPServer)]


def _registered_bare(fn: Callable[..., object], servers: list[MCPServer]) -> Optional[str]:
    """The name under which one of ``servers`` already runs ``fn`` itself: ``@guard_tool`` stacked above
    ``@server.tool()``, which registered the bare function and returned it. ``MCPServer`` lists its tools
    only asynchronously, so this reads its private tool manager; without one, nothing is found."""
    for server in servers:
        list_tools = getattr(getattr(server, "_tool_manager", None), "list_tools", None)
        if not callable(list_tools):
            continue
        for tool in list_tools():
            if getattr(tool, "fn", None) is fn:
                return str(tool.name)
    return None


def _is_async(fn: Callable[..., object]) -> bool:
    while isinstance(fn, functools.partial):
        fn = fn.func
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(getattr(fn, "__call__", None))
