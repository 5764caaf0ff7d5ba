"""The operator's log: the guard's events, an upstream transport's failure, an upstream process's stderr.

Every text logged here is redacted by the component first (secrets go, stack traces and paths stay); message
bodies are never logged. The bottom of the package's stack: it imports nothing of its siblings.
"""

from __future__ import annotations

import json
import logging
import os
import traceback
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Optional, TextIO

import anyio

from .._guard import GuardSession, Step

_LOGGER = logging.getLogger("jsonrpc_errors.mcp")
_LEVELS = {"error": logging.ERROR, "warn": logging.WARNING, "info": logging.INFO, "debug": logging.DEBUG}
# The event fields shown in the record's text, in this order (all of them are in record.guard_event).
_SHOWN = ("kind", "code", "id", "method", "correlation_id", "rule", "tool", "detail")


def _log_event(logger: logging.Logger, step: Step) -> None:
    """One record per guard event, at the component's level for it."""
    fields = {key: value for key, value in step.items() if key != "step"}
    level = _LEVELS.get(str(fields.get("level")), logging.ERROR)
    if not logger.isEnabledFor(level):
        return
    shown = " ".join(f"{key}={json.dumps(fields[key], ensure_ascii=False)}" for key in _SHOWN if key in fields)
    logger.log(level, "%s %s", fields.get("event", "event"), shown, extra={"guard_event": fields})


def _log_transport_failure(log: logging.Logger, failure: BaseException, closing: bool) -> None:
    """The exception that ended an upstream's transport, for the operator: redacted (traces and paths stay)."""
    level = logging.INFO if closing else logging.WARNING
    if not log.isEnabledFor(level):
        return
    with GuardSession() as redactor:
        text = redactor.upstream_log(
            "".join(traceback.format_exception(type(failure), failure, failure.__traceback__))
        ).rstrip("\n")
    what = (
        "closing the upstream's transport failed"
        if closing
        else "the upstream's transport failed; every pending request is answered"
    )
    log.log(
        level,
        "%s\n%s",
        what,
        text,
        extra={
            "guard_event": {
                "event": "upstream-transport-failed",
                "level": logging.getLevelName(level).lower(),
                "detail": text,
            }
        },
    )


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
    # The write end of a pipe of our own: opening it does not block. Closed below, by design before the read end.
    errlog = open(write_fd, "w", encoding="utf-8", closefd=True)  # noqa: SIM115, ASYNC230
    redactor = GuardSession()
    ended = anyio.Event()

    def emit(clean: str) -> None:
        for line in clean.splitlines():
            if line:
                log.info(
                    "upstream-stderr %s",
                    line,
                    extra={"guard_event": {"event": "upstream-stderr", "level": "info", "message": line}},
                )

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
