"""The relay: one guard session between the client side and one upstream, carried out over SDK streams (the
session decides, the relay moves each message it is told to, in order, keeps the session's clock and logs its
events)."""

from __future__ import annotations

import json
import logging
import time
from collections import deque
from collections.abc import Callable, Mapping
from typing import Literal, Optional, Union

import anyio
import anyio.abc
import anyio.to_thread
from anyio.streams.memory import MemoryObjectSendStream
from mcp.shared._stream_protocols import ReadStream, WriteStream
from mcp.shared.message import SessionMessage

from .. import _runtime
from .._guard import GuardSession, Outcome, Settings, UpstreamFailure
from ._lines import Item, OversizeLine, _judged, _messages
from ._logger import _log_event

Peer = Literal["client", "upstream"]


#: Guard calls on messages larger than this run on a worker thread, so the event loop keeps running while the
#: component reads them (most of a second for 10 MB). Smaller ones run inline: on a small message the thread hop
#: would cost more than the call.
DEFAULT_OFFLOAD_BYTES = 64 * 1024
#: Bytes queued toward one peer before the side producing them waits (the Rust guard's budget).
QUEUE_BUDGET_BYTES = 16 * 1024 * 1024


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


class _Outbox:
    """Messages for one peer, in the order the session decided them.

    A message relayed in its own direction (the client's request toward the upstream, the upstream's answer
    toward the client) is delivered by the task that read it, once the session's lock is released, when
    nothing is queued ahead of it: a slow peer then slows the side that feeds it, like a plain stream. What
    the session writes to the side a call came from (its answer to a bad client line, the answers when the
    upstream ends or a deadline passes) is queued for a writer task instead, so that no caller ever waits on
    a consumer that may be waiting on it. A producer waits when more than ``QUEUE_BUDGET_BYTES`` are queued.
    """

    def __init__(
        self,
        peer: Peer,
        stream: Union[WriteStream[SessionMessage], MemoryObjectSendStream[SessionMessage]],
        logger: logging.Logger,
    ) -> None:
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
        settings: Settings,
        grace: float,
    ) -> None:
        self._session = session
        self._upstream_read = upstream_read
        self._task_group = task_group
        self._logger = logger
        self._offload_bytes = offload_bytes
        # Longer lines are answered (client) or dropped (upstream) by their length: the component takes no
        # input over its own limit, and the session reads none over max_bytes anyway.
        self.settings = settings
        limit = _runtime.get().max_input_bytes()
        self._max_client_bytes = min(settings["max_bytes"], limit)
        self._max_upstream_bytes = min(settings["max_upstream_bytes"], limit)
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
        # However it ended (EOF, the process died, the transport closed): it can answer nothing more; the end
        # of a transport is `closed-output` (the contract: `upstream-failed` in wit/world.wit).
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
            # Until the deadline: a wake a little early is the session's to allow for (`expire` in the WIT).
            delay = (deadline - _now_ms()) / 1000
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

    def _send(
        self, to: Peer, toward: Optional[Peer], message: SessionMessage, size: int
    ) -> Optional[tuple[_Outbox, SessionMessage]]:
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
