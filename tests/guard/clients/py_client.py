"""Scripted MCP session on the official Python SDK's stdio client (mcp 2.3.0).

    python py_client.py [--per-call-timeout-ms N] [--only a,b,c] [--mode legacy|auto]
                        [--sleep-ms N] -- UPSTREAM_CMD [ARGS...]
    python py_client.py [...] --url http://127.0.0.1:PORT/mcp

Spawns UPSTREAM_CMD (a server, or `jsonrpc-errors guard -- server`), or connects to a
Streamable HTTP server at URL (`jsonrpc-errors guard --listen`), runs the steps and
prints one JSON line per step on stdout; nothing else goes to stdout. The line shape is
shared with ts_client.mjs (see tests/guard/README.md) so outputs compare across SDKs.
Exit 0 whenever the script ran to its end, whatever the calls did.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from mcp import Client, MCPError, StdioServerParameters
from mcp.types import CONNECTION_CLOSED, REQUEST_TIMEOUT

DEFAULT_STEPS = [
    "initialize",
    "list_tools",
    "echo",
    "count",
    "read_info",
    "query_orders",
    "charge_card",
    "export_report",
    "flaky_print",
    "echo_again",
    "crash",
]
# Not in the default session; for --only (e.g. hang tests through the guard's --timeout).
EXTRA_STEPS = ["sleep"]


def emit(line: dict[str, Any]) -> None:
    # Compact, one line, flushed: the test harness reads this line by line.
    sys.stdout.write(json.dumps(line, separators=(",", ":"), ensure_ascii=False) + "\n")
    sys.stdout.flush()


def wire(model: Any) -> Any:
    """A pydantic result as the JSON it was on the wire (camelCase names, unset fields left out)."""
    return model.model_dump(by_alias=True, mode="json", exclude_unset=True)


def unwrap(exc: BaseException) -> BaseException:
    """The SDK's task groups can wrap a failure (e.g. an initialize timeout) in an ExceptionGroup."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = next((e for e in exc.exceptions if isinstance(e, MCPError)), exc.exceptions[0])
    return exc


def classify(exc: BaseException) -> dict[str, Any]:
    """Turn a failed call into the shared outcome fields."""
    exc = unwrap(exc)
    if isinstance(exc, MCPError):
        # The SDK raises MCPError both for a JSON-RPC error response and for its own
        # timeout/closed conditions; those two carry fixed codes and texts of its own.
        if exc.code == REQUEST_TIMEOUT and exc.message.endswith("timed out"):
            return {"outcome": "timeout", "exception": f"MCPError: {exc.message}"}
        if exc.code == CONNECTION_CLOSED and exc.message == "Connection closed":
            return {"outcome": "closed", "exception": f"MCPError: {exc.message}"}
        error: dict[str, Any] = {"code": exc.code, "message": exc.message}
        if exc.data is not None:
            error["data"] = exc.data
        return {"outcome": "error", "error": error}
    return {"outcome": "error", "exception": f"{type(exc).__name__}: {exc}"}


async def run(args: argparse.Namespace) -> None:
    steps = [s for s in args.only.split(",") if s] if args.only else DEFAULT_STEPS
    unknown = [s for s in steps if s not in DEFAULT_STEPS + EXTRA_STEPS]
    if unknown:
        raise SystemExit(f"py_client: unknown step(s) {unknown}; known: {DEFAULT_STEPS + EXTRA_STEPS}")
    # The connection is the initialize step; it always comes first.
    steps = ["initialize"] + [s for s in steps if s != "initialize"]

    transport_errors: list[str] = []

    async def on_message(message: Any) -> None:
        # The SDK hands transport-level faults (e.g. an unparseable stdout line) to the
        # message handler as exception objects; keep them for the current step's line.
        if isinstance(message, Exception):
            transport_errors.append(f"{type(message).__name__}: {message}".splitlines()[0])

    # The whole environment, not the SDK's default allow-list (HOME, PATH, ...): the
    # upstream may be the guard, whose secret-env scrubbing the tests drive by env vars.
    params = StdioServerParameters(command=args.upstream[0], args=args.upstream[1:], env=dict(os.environ)) if not args.url else None
    client = Client(
        args.url or params,
        mode=args.mode,
        read_timeout_seconds=args.per_call_timeout_ms / 1000,
        message_handler=on_message,
    )

    def finish(name: str, started: float, fields: dict[str, Any]) -> None:
        line = {"step": name, "elapsed_ms": round((time.monotonic() - started) * 1000), **fields}
        if transport_errors:
            line["transport_errors"] = list(transport_errors)
            transport_errors.clear()
        emit(line)

    # Entered and exited by hand rather than `async with`, so that a failed connect is the
    # initialize step's outcome and an SDK teardown error after a crash is not a driver bug.
    started = time.monotonic()
    try:
        await client.__aenter__()
    except Exception as exc:  # noqa: BLE001 - reported as the step's outcome
        finish("initialize", started, classify(exc))
        return
    try:
        finish(
            "initialize",
            started,
            {
                "outcome": "result",
                "result": {
                    "protocolVersion": client.protocol_version,
                    "serverInfo": wire(client.server_info) if client.server_info else None,
                    "capabilities": wire(client.server_capabilities),
                },
            },
        )

        progress: list[float] = []

        async def on_progress(value: float, total: float | None, message: str | None) -> None:
            # pydantic parses 1 as 1.0; print whole numbers as the integers the wire had.
            progress.append(int(value) if float(value).is_integer() else value)

        def call(name: str, arguments: dict[str, Any], **kw: Any) -> Callable[[], Awaitable[Any]]:
            return lambda: client.call_tool(name, arguments, **kw)

        actions: dict[str, Callable[[], Awaitable[Any]]] = {
            "list_tools": client.list_tools,
            "echo": call("echo", {"text": "hello"}),
            "count": call("count", {"steps": 3, "delay_ms": 50}, progress_callback=on_progress),
            "read_info": lambda: client.read_resource("info://server"),
            "query_orders": call("query_orders", {"customer": "alice"}),
            "charge_card": call("charge_card", {"amount": 42.5}),
            "export_report": call("export_report", {}),
            "flaky_print": call("flaky_print", {}),
            "echo_again": call("echo", {"text": "still there?"}),
            "crash": call("crash", {}),
            "sleep": call("sleep", {"ms": args.sleep_ms}),
        }
        for name in steps[1:]:
            progress.clear()
            started = time.monotonic()
            try:
                fields = {"outcome": "result", "result": wire(await actions[name]())}
            except Exception as exc:  # noqa: BLE001 - every failure is data here
                print(f"py_client: step {name}: {type(exc).__name__}: {exc}", file=sys.stderr)
                fields = classify(exc)
            if name == "count":
                fields["progress"] = list(progress)
            finish(name, started, fields)
    finally:
        try:
            await client.__aexit__(None, None, None)
        except Exception as exc:  # noqa: BLE001 - teardown after a crash is not a driver bug
            print(f"py_client: close: {type(exc).__name__}: {exc}", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-call-timeout-ms", type=int, default=5000)
    parser.add_argument("--only", default="", help="comma-separated steps, run in this order")
    parser.add_argument("--mode", choices=["legacy", "auto"], default="legacy",
                        help="legacy: initialize handshake (default); auto: the SDK's default, "
                             "probing server/discover first")
    parser.add_argument("--sleep-ms", type=int, default=1000, help="argument of the `sleep` step")
    parser.add_argument("--url", default="", help="a Streamable HTTP server instead of UPSTREAM_CMD")
    parser.add_argument("upstream", nargs="*", help="-- UPSTREAM_CMD [ARGS...]")
    args = parser.parse_args()
    # The SDK logs transport faults through `logging`; send them to stderr, never stdout.
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="py_client[%(name)s]: %(message)s")
    anyio.run(run, args)


if __name__ == "__main__":
    main()
