"""The guard around an SDK transport: :func:`guard_streams` over a stream pair, :func:`guard_transport` over a
whole client transport (held in a task of its own), and :class:`GuardedWriteStream`, the client side's way in."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from enum import Enum
from typing import Any, Literal, Optional, TypedDict, TypeVar, Union, cast

import anyio
import anyio.abc
from anyio.streams.memory import MemoryObjectReceiveStream
from mcp.shared._stream_protocols import ReadStream, WriteStream
from mcp.shared.message import SessionMessage
from typing_extensions import Unpack

from .._guard import GuardSession, Settings, UpstreamFailure, check_policy
from .._taxonomy import Dialect
from ._lines import Item
from ._logger import _LOGGER, _log_transport_failure
from ._relay import DEFAULT_OFFLOAD_BYTES, _Guard


class GuardedWriteStream:
    """The write stream :func:`guard_streams` returns: every message goes through the guard's ``client_line``.

    It takes ``SessionMessage`` items and also the ``Exception`` items a client-facing SDK transport yields for
    lines it cannot parse (so a proxy relays its client's stream as it is), and :class:`OversizeLine` for a
    line a proxy's own reader discarded unread: the guard answers those.
    """

    def __init__(self, guard: _Guard) -> None:
        self._guard = guard

    @property
    def settings(self) -> Settings:
        """What the session resolved when it opened (the options given, else the policy file's ``[defaults]``,
        else the built-in defaults): ``max_bytes`` and ``max_upstream_bytes`` are the line limits a proxy
        reading its own lines keeps."""
        return self._guard.settings

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

    async def __aenter__(self) -> GuardedWriteStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


_T = TypeVar("_T")


class _Unset(Enum):
    """An option the caller did not give: the session resolves it (the policy file's ``[defaults]``, else the
    built-in default) and reports what it chose in its settings."""

    UNSET = "unset"


UNSET = _Unset.UNSET


def _timeout_ms(timeout: Optional[float]) -> Optional[int]:
    """Seconds as the session takes them: 0 or None means no limit (None), anything else at least 1 ms."""
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
    timeout: Union[Optional[float], _Unset] = UNSET,  # noqa: ASYNC109 - the guard's request timeout, as the CLI's
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
    environment: Optional[Mapping[str, str]] = None,
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
    no limit; default 50), ``max_bytes`` (client messages; default 10 MiB), ``batch`` (default "reject"),
    ``max_upstream_bytes`` (default 64 MiB), ``failed_result_bytes`` (the longest text of a failed tool result
    passed on; default 8 KiB); ``upstream`` names the upstream in answers (the Rust guard says
    ``stdio:<program>``). The session resolves what is not given (the defaults are ``guard-options``' in
    wit/world.wit); the returned write stream's ``settings`` says what it resolved.
    Guard calls on messages over ``offload_bytes`` run on a worker thread.

    ``policy`` is a policy file's text (TOML, as ``jsonrpc-errors guard --config FILE`` reads it: per-tool
    timeouts, redaction scopes, actions, ...), handed to the session as it is: the component reads it and
    decides what it means. ``policy_env`` is the environment its ``hash_key_env`` is read from (default:
    this process's). As with the CLI, the options given here override the file's ``[defaults]``, which
    override the defaults above. A document the component refuses raises
    :class:`jsonrpc_errors.InvalidInput` here, before anything starts (``data``: ``line``, ``column``,
    ``details``). The returned write stream's ``set_policy`` reloads it for the requests from then on.

    ``environment``: the upstream's environment (e.g. the ``env`` of the SDK's ``StdioServerParameters``),
    whose secret-looking values the session redacts from everything it passes on and logs, in place of the
    runtime's (:func:`jsonrpc_errors.set_environment`).
    """
    # A refused document raises here, before anything starts (the session would answer every request with it).
    if policy is not None:
        check_policy(policy, policy_env)
    # The options go to the session as given, and only if given: it resolves the rest.
    given: dict[str, Any] = {
        name: value
        for name, value in (
            ("batch", batch),
            ("max_bytes", max_bytes),
            ("max_upstream_bytes", max_upstream_bytes),
            ("failed_result_bytes", failed_result_bytes),
        )
        if value is not UNSET
    }
    if timeout is not UNSET:
        given["timeout_ms"] = _timeout_ms(timeout)
    session = GuardSession(
        None if dialect is UNSET else dialect,
        upstream=upstream,
        policy=policy,
        policy_env=policy_env,
        environment=environment,
        **given,
    )
    settings = session.settings()
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
                settings=settings,
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
    environment: Optional[Mapping[str, str]]


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
