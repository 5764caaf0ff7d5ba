"""What jsonrpc_errors.mcp.guard_streams costs, measured against the bare SDK transport in one run.

    scripts/bench.sh python-mcp [-- --calls N --rounds R --mb M]    (python-stall: part 2 alone)
    bindings/python/.venv/bin/python bench/python/bench_mcp.py [--calls N] [--rounds R] [--mb M] [--stall-only]

1. Per-message overhead: N `tools/call` round trips of the official SDK's client (`Client`, legacy mode) to a
   low-level `Server` whose tool echoes its argument, over the SDK's in-memory streams, direct and through
   guard_streams, rounds alternating (the machine may be busy). Each round trip is two guarded messages (the
   request through `client_line`, the result through `upstream_line`). Prints the median per round.
2. Event-loop stall: a ticker task sleeps 1 ms at a time and records its longest wait beyond that while one
   M-MB message passes through the guard each way (request up, result down, raw streams: no SDK session
   parses it), with the guard call on a worker thread (the default, offload over 64 KiB) and inline; and the
   same message over a bare memory stream for reference. Also prints the two costs inside a stall:
   serializing the message (on the loop either way) and the component's call.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from mcp import Client
from mcp.client._memory import InMemoryTransport  # what Client(server) connects with
from mcp.server.lowlevel import Server
from mcp.shared.message import SessionMessage
from mcp.types import (
    CallToolRequestParams,
    CallToolResult,
    JSONRPCRequest,
    JSONRPCResponse,
    ListToolsResult,
    TextContent,
    Tool,
)

import jsonrpc_errors
from jsonrpc_errors.mcp import guard_streams, guard_transport


async def list_tools(ctx: Any, params: Any) -> ListToolsResult:
    return ListToolsResult(tools=[Tool(name="echo", input_schema={"type": "object"})])


async def call_tool(ctx: Any, params: CallToolRequestParams) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=str((params.arguments or {}).get("text")))])


SERVER = Server("bench", on_list_tools=list_tools, on_call_tool=call_tool)


async def round_trips(calls: int, guarded: bool) -> tuple[float, float]:
    """Seconds per tools/call round trip: wall clock, and this process's CPU time (the steadier figure on a
    busy machine: other processes' load does not count)."""
    transport: Any = InMemoryTransport(SERVER)
    if guarded:
        transport = guard_transport(transport, dialect="canonical", timeout=50)
    async with Client(transport, mode="legacy") as client:
        for _ in range(50):  # warm-up
            await client.call_tool("echo", {"text": "warm"})
        started, cpu = time.perf_counter(), time.process_time()
        for i in range(calls):
            await client.call_tool("echo", {"text": f"message {i}"})
        return (time.perf_counter() - started) / calls, (time.process_time() - cpu) / calls


async def longest_stall(work: Callable[[], Awaitable[None]]) -> float:
    """The event loop's longest stall (seconds beyond a 1 ms sleep) while `work` runs."""
    worst = 0.0
    done = anyio.Event()

    async def tick() -> None:
        nonlocal worst
        while not done.is_set():
            before = time.perf_counter()
            await anyio.sleep(0.001)
            worst = max(worst, time.perf_counter() - before - 0.001)

    async with anyio.create_task_group() as tg:
        tg.start_soon(tick)
        await anyio.sleep(0.05)
        await work()
        done.set()
    return worst


def big_request(size: int) -> SessionMessage:
    return SessionMessage(
        JSONRPCRequest(
            jsonrpc="2.0", id=1, method="tools/call", params={"name": "echo", "arguments": {"text": "x" * size}}
        )
    )


def big_result(size: int) -> SessionMessage:
    return SessionMessage(
        JSONRPCResponse(jsonrpc="2.0", id=1, result={"content": [{"type": "text", "text": "x" * size}]})
    )


async def through_guard(size: int, offload_bytes: float) -> float:
    to_upstream, upstream_in = anyio.create_memory_object_stream[SessionMessage](1)
    upstream_out, from_upstream = anyio.create_memory_object_stream[Any](1)
    request, result = big_request(size), big_result(size)

    async def work() -> None:
        async with guard_streams(from_upstream, to_upstream, offload_bytes=offload_bytes) as (read, write):
            await write.send(request)
            assert (await upstream_in.receive()) is request
            await upstream_out.send(result)
            assert (await read.receive()) is result

    return await longest_stall(work)


async def bare(size: int) -> float:
    send, receive = anyio.create_memory_object_stream[SessionMessage](1)
    request, result = big_request(size), big_result(size)

    async def work() -> None:
        for message in (request, result):
            await send.send(message)
            await receive.receive()

    return await longest_stall(work)


def costs_inside(size: int) -> tuple[float, float]:
    """Seconds to serialize the request as the guard reads it, and for the component's call on it."""
    message = big_request(size).message
    started = time.perf_counter()
    line = message.__pydantic_serializer__.to_json(message, by_alias=True, exclude_none=True)
    serialized = time.perf_counter() - started
    with jsonrpc_errors.GuardSession() as session:
        started = time.perf_counter()
        session.client_line_json(line)
        called = time.perf_counter() - started
    return serialized, called


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000, help="round trips per round (default 1000)")
    parser.add_argument("--rounds", type=int, default=7, help="rounds each way, alternating (default 7)")
    parser.add_argument("--mb", type=float, default=10.0, help="size of the big message in MB (default 10)")
    parser.add_argument("--stall-only", action="store_true", help="only the event-loop stall (part 2)")
    args = parser.parse_args()

    if not args.stall_only:
        per_message(args.calls, args.rounds)
    stall(args.mb)


def per_message(calls: int, rounds: int) -> None:
    direct: list[tuple[float, float]] = []
    guarded: list[tuple[float, float]] = []
    for _ in range(rounds):
        direct.append(anyio.run(round_trips, calls, False))
        guarded.append(anyio.run(round_trips, calls, True))
    print(
        f"tools/call round trips over in-memory streams ({calls} x {rounds} rounds each, alternating; "
        "median of rounds):"
    )
    for label, pick in (("wall clock", 0), ("process CPU", 1)):
        d = statistics.median(r[pick] for r in direct)
        g = statistics.median(r[pick] for r in guarded)
        d_rounds = ", ".join(f"{r[pick] * 1e6:.0f}" for r in direct)
        g_rounds = ", ".join(f"{r[pick] * 1e6:.0f}" for r in guarded)
        print(f"  {label}:")
        print(f"    bare SDK transport      {d * 1e6:8.1f} us per round trip  (rounds: {d_rounds})")
        print(f"    through guard_streams   {g * 1e6:8.1f} us per round trip  (rounds: {g_rounds})")
        print(
            f"    added per message       {(g - d) / 2 * 1e6:8.1f} us  (2 guarded messages per round trip); "
            f"ratio {g / d:.2f}x"
        )
    print()


def stall(mb: float) -> None:
    size = int(mb * 1_000_000)
    print(f"event-loop stall while a {mb:g} MB message passes each way (longest wait beyond a 1 ms tick, median of 3):")
    for name, measure in [
        ("bare memory stream", lambda: anyio.run(bare, size)),
        (
            "guard, call on a worker thread (offload > 64 KiB, the default)",
            lambda: anyio.run(through_guard, size, 64 * 1024),
        ),
        ("guard, call inline on the event loop", lambda: anyio.run(through_guard, size, float("inf"))),
    ]:
        stalls = [measure() for _ in range(3)]
        runs = ", ".join(f"{s * 1000:.1f}" for s in stalls)
        print(f"  {name:<64} {statistics.median(stalls) * 1000:7.1f} ms  (runs: {runs})")
    serialized, called = costs_inside(size)
    print(
        f"  inside: serializing the request {serialized * 1000:.1f} ms (on the loop either way); "
        f"the component's call {called * 1000:.1f} ms"
    )


if __name__ == "__main__":
    main()
