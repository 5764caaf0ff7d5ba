"""A stdio MCP proxy on the official Python SDK with the guard in between: `jsonrpc-errors guard` in ~50 lines.

    python examples/mcp-proxy-python/proxy.py [--dialect D] [--timeout SECS] -- CMD [ARGS...]

The client talks to this process over stdin/stdout (the SDK's `stdio_server()`); the upstream server CMD is
spawned with the SDK's `stdio_client()`, with this process's whole environment; `guard_streams` puts a guard
session between the two, so the client sees what it would see through `jsonrpc-errors guard` (same defaults:
dialect "canonical", timeout 50 s, 0 = none). stdout carries only messages; stderr is the log, one line per
guard event, the upstream's stderr relayed with its secrets redacted. It exits when the client closes stdin
(the SDK then closes the upstream) or when the upstream ends, once every pending request is answered.
Needs `pip install 'jsonrpc-errors[mcp]'`.
"""

from __future__ import annotations

import argparse
import codecs
import logging
import os
import shutil
import sys
import threading
from pathlib import Path
from typing import cast

import anyio
import anyio.from_thread
import anyio.lowlevel
from anyio.streams.memory import MemoryObjectSendStream
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.server.stdio import stdio_server

from jsonrpc_errors.mcp import guard_streams, upstream_stderr_log


def read_client_stdin(lines: MemoryObjectSendStream[str], token: anyio.lowlevel.EventLoopToken) -> None:
    """stdin's lines into `lines`, on a daemon thread: `stdio_server()`'s own reader waits in a worker thread
    that nothing can stop, so a client keeping stdin open would keep the proxy alive after its upstream ended.
    Plain os.read: a daemon thread blocked inside sys.stdin's buffer would abort the interpreter's shutdown."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    partial = ""
    try:
        while chunk := os.read(0, 65536):
            *complete, partial = (partial + decoder.decode(chunk)).split("\n")
            for line in complete:
                anyio.from_thread.run(lines.send, line + "\n", token=token)
        if partial + decoder.decode(b"", final=True):
            anyio.from_thread.run(lines.send, partial, token=token)
        anyio.from_thread.run_sync(lines.close, token=token)
    except (RuntimeError, anyio.ClosedResourceError, anyio.BrokenResourceError):
        pass  # the proxy is finishing


async def proxy(args: argparse.Namespace) -> None:
    command = args.command
    params = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
    # The name `jsonrpc-errors guard` gives the upstream; it shows in the errors the client gets.
    upstream = f"stdio:{Path(command[0]).name}"
    lines_in, lines_out = anyio.create_memory_object_stream[str](16)
    threading.Thread(target=read_client_stdin, args=(lines_in, anyio.lowlevel.current_token()), daemon=True).start()
    async with (
        stdio_server(stdin=cast("anyio.AsyncFile[str]", lines_out)) as (client_read, client_write),  # it only iterates
        upstream_stderr_log() as errlog,
        stdio_client(params, errlog=errlog) as (upstream_read, upstream_write),
        guard_streams(upstream_read, upstream_write, dialect=args.dialect, timeout=args.timeout, upstream=upstream) as (read, write),
        anyio.create_task_group() as task_group,
    ):
        async def from_client() -> None:
            async with write:  # the client closed stdin: the guard closes the upstream's side
                async for item in client_read:
                    await write.send(item)

        task_group.start_soon(from_client)
        async for message in read:  # ends when the upstream has ended or the client has left
            await client_write.send(message)
        task_group.cancel_scope.cancel()
        lines_in.close()  # stdio_server()'s reader stops, its writer once it has written everything
        await client_write.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dialect", default="canonical", help="error dialect (default: canonical)")
    parser.add_argument("--timeout", type=float, default=50.0, help="seconds a request may wait (default 50; 0 = none)")
    parser.add_argument("command", nargs="+", help="-- CMD [ARGS...]: the upstream server")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("mcp").setLevel(logging.WARNING)
    # The SDK logs each upstream line it cannot parse, text and all; the guard logs it once, redacted.
    logging.getLogger("mcp.client.stdio").addFilter(lambda record: not record.getMessage().startswith("Failed to parse JSONRPC"))
    if shutil.which(args.command[0]) is None:  # jsonrpc-errors guard's statuses: 127 not found, 126 not runnable
        logging.error("upstream-failed: cannot start the upstream %r", args.command[0])
        sys.exit(126 if os.path.exists(args.command[0]) else 127)
    anyio.run(proxy, args)


if __name__ == "__main__":
    main()
