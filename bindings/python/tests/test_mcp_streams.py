"""jsonrpc_errors.mcp.guard_streams in process: the official SDK's client and server on memory streams.

The server is examples/guard/misbehaving_server.py's (mcp 2.3.0 `MCPServer`), run in this process; a raw
upstream (a task on memory streams) stands in where a test needs a server that hangs, dies or prints garbage.
"""

from __future__ import annotations

import functools
import json
import logging
import re
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp import Client, MCPError
from mcp.client._memory import InMemoryTransport
from mcp.shared.message import ClientMessageMetadata, SessionMessage
from mcp.types import JSONRPCRequest, JSONRPCResponse, jsonrpc_message_adapter
from pydantic import ValidationError

import jsonrpc_errors
from jsonrpc_errors import _callers
from jsonrpc_errors.mcp import OversizeLine, guard_streams, guard_transport, upstream_stderr_log

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "examples" / "guard"))
import misbehaving_server  # noqa: E402

SERVER = misbehaving_server.mcp
# Every one of these is in the server's failures (see misbehaving_server.py).
SECRETS = ["ghp_A1b2", "hunter2", "sk_live_51", "/home/alice", "Traceback (most recent call last)", "admin:"]

# The guard's cut of a failed result's text (taxonomy.toml is its single home).
FAILED_RESULT_BYTES = int(
    re.search(
        r"^failed_result_text_bytes = (\d+)",
        (Path(__file__).resolve().parents[3] / "taxonomy" / "taxonomy.toml").read_text(),
        re.M,
    ).group(1)
)


def _assert_cut_keeping_both_ends(text: str) -> None:
    """export_report's ~13 KB text comes back cut to the limit, its first and last lines kept."""
    size = len(text.encode())
    assert FAILED_RESULT_BYTES // 2 < size <= FAILED_RESULT_BYTES, size
    assert "export failed after a long run" in text and "processed batch 199 of 200 (ok)" in text, text[-200:]


def wire(model: Any) -> Any:
    return model.model_dump(by_alias=True, mode="json", exclude_unset=True)


async def outcome(call: Awaitable[Any]) -> dict[str, Any]:
    """A call's result or error, as the client got it."""
    try:
        return {"result": wire(await call)}
    except MCPError as error:
        return {"error": {"code": error.code, "message": error.message, "data": error.data}}


async def session(client: Client) -> dict[str, Any]:
    progress: list[float] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(value)

    steps = {
        "list_tools": await outcome(client.list_tools()),
        "echo": await outcome(client.call_tool("echo", {"text": "hello"})),
        "count": await outcome(client.call_tool("count", {"steps": 3, "delay_ms": 5}, progress_callback=on_progress)),
        "read_info": await outcome(client.read_resource("info://server")),
        "query_orders": await outcome(client.call_tool("query_orders", {"customer": "acme"})),
        "charge_card": await outcome(client.call_tool("charge_card", {"amount": 12.5})),
        "export_report": await outcome(client.call_tool("export_report", {})),
        "echo_again": await outcome(client.call_tool("echo", {"text": "still there?"})),
    }
    steps["progress"] = progress
    return steps


def run_session(guarded: bool, **options: Any) -> dict[str, Any]:
    async def main() -> dict[str, Any]:
        transport = InMemoryTransport(SERVER)
        async with Client(guard_transport(transport, **options) if guarded else transport, mode="legacy") as client:
            return await session(client)

    return anyio.run(main)


@pytest.fixture(scope="module")
def sessions() -> tuple[dict[str, Any], dict[str, Any]]:
    return run_session(False), run_session(True, dialect="canonical", timeout=5)


def test_normal_calls_resources_and_progress_are_unchanged(sessions):
    direct, guarded = sessions
    for step in ["list_tools", "echo", "count", "read_info", "echo_again"]:
        assert "result" in guarded[step], guarded[step]
        assert guarded[step] == direct[step], step
    assert guarded["progress"] == direct["progress"] == [1, 2, 3]


def test_failing_tools_are_canonical_and_clean(sessions):
    direct, guarded = sessions
    # Without the guard the server really leaks (else this test would prove nothing) ...
    assert [s for s in SECRETS if s in json.dumps(direct)] == SECRETS
    # ... and with it nothing reaches the client, in any step or field.
    seen = json.dumps(guarded)
    assert [s for s in SECRETS if s in seen] == [], seen
    query = guarded["query_orders"]["result"]
    assert query["isError"] is True and "[REDACTED:github-token]" in query["content"][0]["text"]
    report = guarded["export_report"]["result"]
    assert report["isError"] is True
    _assert_cut_keeping_both_ends(report["content"][0]["text"])
    # MCPError(-32010, ...) is a server-specific code: the canonical upstream-error, scrubbed.
    charge = guarded["charge_card"]["error"]
    assert (charge["message"], charge["data"]["type"]) == ("Upstream error", "upstream-error")


def test_every_event_is_one_structured_record_and_no_body_is_logged(caplog):
    caplog.set_level(logging.DEBUG, logger="jsonrpc_errors.mcp")
    run_session(True, dialect="mcp")
    events = [r for r in caplog.records if hasattr(r, "guard_event")]
    by_kind = {r.guard_event.get("kind"): r for r in events}
    sanitized = by_kind["upstream-error"]
    assert sanitized.levelno == logging.WARNING and sanitized.guard_event["event"] == "sanitized"
    # In the mcp dialect the client got an isError result (no code); the operator's detail keeps the upstream's.
    assert sanitized.guard_event["method"] == "tools/call" and "code" not in sanitized.guard_event
    assert sanitized.guard_event["detail"].startswith("upstream error -32010: charge of 12.5 declined")
    assert [r.guard_event["event"] for r in events if r.guard_event.get("id") == 6] == ["redacted"]
    text = "\n".join(r.getMessage() for r in caplog.records)
    # Request and result bodies never reach the log; credentials not even in the internal details.
    assert "still there?" not in text and "misbehaving-server 1.0.0" not in text
    assert [s for s in ["ghp_A1b2", "hunter2", "sk_live_51"] if s in text] == []


def test_the_default_client_mode_works_through_the_guard():
    # The SDK's default probes server/discover and runs the stateless 2026-07-28 protocol: relayed untouched.
    async def main() -> Any:
        async with Client(guard_transport(InMemoryTransport(SERVER))) as client:
            return wire(await client.call_tool("echo", {"text": "hi"}))

    assert anyio.run(main)["structuredContent"] == {"result": "hi"}


def test_concurrent_calls_on_one_session_are_each_answered_once():
    async def main() -> dict[int, Any]:
        answers: dict[int, Any] = {}
        async with Client(guard_transport(InMemoryTransport(SERVER), timeout=5), mode="legacy") as client:

            async def one(i: int) -> None:
                # A mix of slow and fast calls, so that answers come back out of order.
                if i % 3 == 0:
                    result = await client.call_tool("sleep", {"ms": 30 - i % 30})
                else:
                    result = await client.call_tool("echo", {"text": f"call {i}"})
                answers[i] = wire(result)["structuredContent"]["result"]

            async with anyio.create_task_group() as tg:
                for i in range(60):
                    tg.start_soon(one, i)
        return answers

    answers = anyio.run(main)
    assert answers == {i: "slept" if i % 3 == 0 else f"call {i}" for i in range(60)}


def test_progress_restarts_the_timeout():
    # Four steps 150 ms apart with a 400 ms timeout: answered, because each progress notification restarts
    # the wait (the guard's rule); the same call without a progress token times out.
    async def main() -> tuple[dict[str, Any], dict[str, Any], list[float]]:
        progress: list[float] = []

        async def on_progress(value: float, total: float | None, message: str | None) -> None:
            progress.append(value)

        async with Client(guard_transport(InMemoryTransport(SERVER), timeout=0.4), mode="legacy") as client:
            arguments = {"steps": 4, "delay_ms": 150}
            with_progress = await outcome(client.call_tool("count", arguments, progress_callback=on_progress))
            without = await outcome(client.call_tool("count", arguments))
        return with_progress, without, progress

    with_progress, without, progress = anyio.run(main)
    assert with_progress["result"]["structuredContent"] == {"result": "counted 4"} and progress == [1, 2, 3, 4]
    assert without["error"]["code"] == -32001 and without["error"]["data"]["type"] == "upstream-timeout", without


# ---------------------------------------------------------------------------------------------- raw upstreams

Upstream = Callable[[MemoryObjectReceiveStream[SessionMessage], MemoryObjectSendStream[Any]], Awaitable[None]]


@asynccontextmanager
async def raw(server: Upstream, **options: Any) -> AsyncIterator[tuple[Any, Any]]:
    """guard_streams in front of a hand-written upstream task."""
    to_upstream, upstream_in = anyio.create_memory_object_stream[SessionMessage](16)
    upstream_out, from_upstream = anyio.create_memory_object_stream[Any](16)
    async with anyio.create_task_group() as tg:
        tg.start_soon(server, upstream_in, upstream_out)
        async with guard_streams(from_upstream, to_upstream, **options) as pair:
            yield pair
        tg.cancel_scope.cancel()


def request(id_: int, method: str = "tools/call", **params: Any) -> SessionMessage:
    return SessionMessage(JSONRPCRequest(jsonrpc="2.0", id=id_, method=method, params=params or None))


def as_json(item: SessionMessage) -> dict[str, Any]:
    return json.loads(item.message.model_dump_json(by_alias=True, exclude_unset=True))


def parse_error(line: str) -> ValidationError:
    """What the SDK's stdio transports yield for a line they cannot parse."""
    try:
        jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValidationError as error:
        return error
    raise AssertionError(f"{line!r} parsed")


def test_an_upstream_that_dies_mid_request_is_answered_at_once_and_the_read_stream_ends():
    async def dies(inbox: MemoryObjectReceiveStream[SessionMessage], outbox: MemoryObjectSendStream[Any]) -> None:
        await inbox.receive()
        await outbox.aclose()  # gone without a word, like a crashed process's closed stdout

    async def main() -> tuple[dict[str, Any], float, bool]:
        async with raw(dies, upstream="stdio:python") as (read, write):
            started = time.monotonic()
            await write.send(request(7, name="crash"))
            answer = as_json(await read.receive())
            elapsed = time.monotonic() - started
            with anyio.fail_after(2):
                ended = [item async for item in read] == []
            return answer, elapsed, ended

    answer, elapsed, ended = anyio.run(main)
    assert answer["id"] == 7 and answer["error"]["code"] == -32000, answer
    assert answer["error"]["data"]["type"] == "upstream-connection-failed"
    assert answer["error"]["data"]["details"] == "stdio:python"
    assert elapsed < 1.0 and ended


def test_a_reported_exit_answers_every_pending_request_at_once_and_ends_the_read_stream(caplog):
    # An upstream process that exits while something it started keeps its stdout open: its read stream never
    # ends, so whoever watches the process tells the guard (the example proxy does).
    caplog.set_level(logging.INFO, logger="jsonrpc_errors.mcp")

    async def hangs(inbox: MemoryObjectReceiveStream[SessionMessage], outbox: MemoryObjectSendStream[Any]) -> None:
        async for _ in inbox:
            pass

    async def main() -> tuple[list[dict[str, Any]], float, list[Any]]:
        async with raw(hangs, upstream="stdio:python") as (read, write):
            await write.send(request(1, name="slow"))
            await write.send(request(2, name="slower"))
            await anyio.sleep(0.05)
            started = time.monotonic()
            await write.upstream_failed(("exited", 3))
            await write.upstream_failed(("killed", 9))  # the end of its output, later: already answered
            with anyio.fail_after(2):
                answers = [as_json(await read.receive()), as_json(await read.receive())]
                elapsed = time.monotonic() - started
                rest = [item async for item in read]
            return answers, elapsed, rest

    answers, elapsed, rest = anyio.run(main)
    assert [(a["id"], a["error"]["data"]["type"]) for a in answers] == [
        (1, "upstream-connection-failed"),
        (2, "upstream-connection-failed"),
    ]
    assert elapsed < 1.0 and rest == []
    ended = [
        r.guard_event["detail"]
        for r in caplog.records
        if getattr(r, "guard_event", {}).get("event") == "upstream-ended"
    ]
    assert ended == ["the upstream exited with status 3 (2 requests pending)"], ended


def test_a_client_message_longer_than_the_component_takes_is_answered_oversize_not_a_crash():
    # Over 64 MiB the component takes no input at all: the guard answers by the length, as for any line over
    # max_bytes, and goes on (before, the component's refusal escaped from write.send and ended the proxy).
    seen: list[dict[str, Any]] = []

    async def echo(inbox: MemoryObjectReceiveStream[SessionMessage], outbox: MemoryObjectSendStream[Any]) -> None:
        async for item in inbox:
            seen.append(as_json(item))
            await outbox.send(SessionMessage(JSONRPCResponse(jsonrpc="2.0", id=item.message.id, result={})))

    async def main() -> list[dict[str, Any]]:
        async with raw(echo) as (read, write):
            await write.send(request(1, name="echo", arguments={"text": "x" * (65 << 20)}))
            await write.send(OversizeLine(12 << 20))  # a line a raw reader discarded unread
            await write.send(request(2, method="ping"))
            with anyio.fail_after(5):
                return [as_json(await read.receive()) for _ in range(3)]

    huge, unread, ping = anyio.run(main)
    # The session reads the id from the line's start: the request gets its answer, once.
    assert (huge["id"], huge["error"]["code"], huge["error"]["data"]["reason"]) == (1, -32600, "oversize"), huge
    assert (unread["id"], unread["error"]["code"], unread["error"]["data"]["reason"]) == (None, -32600, "oversize"), (
        unread
    )
    assert ping == {"jsonrpc": "2.0", "id": 2, "result": {}}
    assert [m["method"] for m in seen] == ["ping"]


def test_a_transport_that_cannot_be_entered_raises_as_it_does_without_the_guard():
    # guard_transport enters the transport in a task of its own; a failure to enter it still reaches the
    # caller as the transport raised it, not wrapped in the task group's ExceptionGroup.
    from mcp.client.stdio import StdioServerParameters, stdio_client

    async def main() -> None:
        async with guard_transport(stdio_client(StdioServerParameters(command="/nonexistent/mcp-server"))):
            raise AssertionError("entered")

    with pytest.raises(FileNotFoundError):
        anyio.run(main)


def test_a_hung_request_is_answered_by_the_timeout_and_cancelled_upstream():
    seen: list[dict[str, Any]] = []

    async def hangs(inbox: MemoryObjectReceiveStream[SessionMessage], outbox: MemoryObjectSendStream[Any]) -> None:
        async for item in inbox:
            seen.append(as_json(item))

    async def main() -> tuple[dict[str, Any], float]:
        async with raw(hangs, timeout=0.2) as (read, write):
            started = time.monotonic()
            await write.send(request(3, name="sleep"))
            with anyio.fail_after(5):
                answer = as_json(await read.receive())
            elapsed = time.monotonic() - started
            await anyio.sleep(0.05)
            return answer, elapsed

    answer, elapsed = anyio.run(main)
    assert answer["id"] == 3 and answer["error"]["code"] == -32001, answer
    assert answer["error"]["data"]["type"] == "upstream-timeout"
    assert 0.2 <= elapsed < 2.0, elapsed
    assert [m["method"] for m in seen] == ["tools/call", "notifications/cancelled"], seen
    assert seen[1]["params"]["requestId"] == 3


def test_an_upstream_line_the_sdk_could_not_parse_is_dropped_and_logged(caplog):
    caplog.set_level(logging.DEBUG, logger="jsonrpc_errors.mcp")

    async def prints(inbox: MemoryObjectReceiveStream[SessionMessage], outbox: MemoryObjectSendStream[Any]) -> None:
        item = await inbox.receive()
        await outbox.send(parse_error("DEBUG: entering flaky_print (this line is not JSON)\n"))
        await outbox.send(SessionMessage(JSONRPCResponse(jsonrpc="2.0", id=item.message.id, result={"ok": True})))

    async def main() -> list[Any]:
        async with raw(prints) as (read, write):
            await write.send(request(1, name="flaky_print"))
            with anyio.fail_after(5):
                return [as_json(await read.receive())]

    assert anyio.run(main) == [{"jsonrpc": "2.0", "id": 1, "result": {"ok": True}}]
    dropped = [r.guard_event for r in caplog.records if getattr(r, "guard_event", {}).get("event") == "dropped"]
    assert len(dropped) == 1 and "DEBUG: entering flaky_print" in dropped[0]["detail"], dropped


def test_an_upstream_line_its_reader_discarded_as_oversize_is_dropped_and_logged(caplog):
    caplog.set_level(logging.DEBUG, logger="jsonrpc_errors.mcp")

    async def huge(inbox: MemoryObjectReceiveStream[SessionMessage], outbox: MemoryObjectSendStream[Any]) -> None:
        first = await inbox.receive()
        await outbox.send(OversizeLine(100 << 20))  # nothing to tell whose it was: dropped
        await outbox.send(SessionMessage(JSONRPCResponse(jsonrpc="2.0", id=first.message.id, result={"ok": True})))
        second = await inbox.receive()
        # The response to the second request, too long: its start shows whose it is.
        await outbox.send(
            OversizeLine(100 << 20, b'{"jsonrpc":"2.0","id":%d,"result":{"text":"' % second.message.id, b'xxxx"}}')
        )

    async def main() -> list[dict[str, Any]]:
        async with raw(huge) as (read, write):
            await write.send(request(1, name="huge"))
            with anyio.fail_after(5):
                answers = [as_json(await read.receive())]
            await write.send(request(2, name="huge"))
            with anyio.fail_after(5):
                return [*answers, as_json(await read.receive())]

    relayed, answered = anyio.run(main)
    assert relayed == {"jsonrpc": "2.0", "id": 1, "result": {"ok": True}}
    assert (answered["id"], answered["error"]["data"]["type"]) == (2, "upstream-error"), (
        answered
    )  # at once, not at the timeout
    dropped = [r.guard_event for r in caplog.records if getattr(r, "guard_event", {}).get("event") == "dropped"]
    assert len(dropped) == 2 and all(str(100 << 20) in d["detail"] for d in dropped), dropped


def test_client_lines_the_sdk_could_not_parse_are_answered_by_the_guard():
    async def silent(inbox: MemoryObjectReceiveStream[SessionMessage], outbox: MemoryObjectSendStream[Any]) -> None:
        async for _ in inbox:
            raise AssertionError("nothing should reach the upstream")

    async def main() -> list[dict[str, Any]]:
        async with raw(silent) as (read, write):
            answers = []
            for line in [
                "this is not json\n",
                '{"jsonrpc":"2.0","id":5}',
                '[{"jsonrpc":"2.0","id":6,"method":"ping"}]',
            ]:
                await write.send(parse_error(line))
                with anyio.fail_after(5):
                    answers.append(as_json(await read.receive()))
            return answers

    not_json, not_a_request, batch = anyio.run(main)
    assert (not_json["id"], not_json["error"]["code"]) == (None, -32700), not_json
    assert (not_a_request["id"], not_a_request["error"]["code"]) == (5, -32600), not_a_request
    assert batch["error"]["code"] == -32600, batch  # MCP forbids batches (--batch reject, the default)


def test_forwarded_messages_are_the_sdks_own_objects_metadata_and_all():
    received: list[SessionMessage] = []

    async def echo(inbox: MemoryObjectReceiveStream[SessionMessage], outbox: MemoryObjectSendStream[Any]) -> None:
        async for item in inbox:
            received.append(item)
            await outbox.send(SessionMessage(JSONRPCResponse(jsonrpc="2.0", id=item.message.id, result={"n": 1})))

    sent = request(1, method="tools/list")
    sent.metadata = ClientMessageMetadata(headers={"x-test": "1"})

    async def main() -> SessionMessage:
        async with raw(echo) as (read, write):
            await write.send(sent)
            with anyio.fail_after(5):
                return await read.receive()

    answer = anyio.run(main)
    assert received == [sent] and received[0] is sent
    assert as_json(answer) == {"jsonrpc": "2.0", "id": 1, "result": {"n": 1}}


def test_closing_the_client_side_closes_the_upstreams_and_ends_the_read_stream():
    closed = anyio.Event()

    async def upstream(inbox: MemoryObjectReceiveStream[SessionMessage], outbox: MemoryObjectSendStream[Any]) -> None:
        async for item in inbox:
            if isinstance(item.message, JSONRPCRequest):
                await anyio.sleep(0.1)  # answers after the client has closed: still relayed
                await outbox.send(SessionMessage(JSONRPCResponse(jsonrpc="2.0", id=item.message.id, result={})))
        closed.set()

    async def main() -> list[Any]:
        async with raw(upstream) as (read, write):
            await write.send(request(1, method="ping"))
            await write.aclose()
            with pytest.raises(anyio.ClosedResourceError):
                await write.send(request(2, method="ping"))
            with anyio.fail_after(3):
                rest = [as_json(item) async for item in read]
                await closed.wait()
            return rest

    assert anyio.run(main) == [{"jsonrpc": "2.0", "id": 1, "result": {}}]


def test_large_messages_are_judged_on_a_worker_thread_and_pass_intact(monkeypatch):
    threads: list[tuple[str, int, bool]] = []
    main_thread = threading.current_thread()
    for name in ("client_line_json", "upstream_line_json"):
        original = getattr(jsonrpc_errors.GuardSession, name)

        def recording(self: Any, line: bytes, *, _original: Any = original, _name: str = name, **kw: Any) -> str:
            threads.append((_name, len(line), threading.current_thread() is main_thread))
            return _original(self, line, **kw)

        monkeypatch.setattr(jsonrpc_errors.GuardSession, name, recording)
    big = "x" * 200_000

    async def main() -> list[Any]:
        transport = InMemoryTransport(SERVER)
        async with Client(guard_transport(transport, offload_bytes=64 * 1024), mode="legacy") as client:
            return [
                wire(await client.call_tool("echo", {"text": big})),
                wire(await client.call_tool("echo", {"text": "small"})),
            ]

    large, small = anyio.run(main)
    assert large["structuredContent"] == {"result": big} and small["structuredContent"] == {"result": "small"}
    on_loop = {(name, size > 64 * 1024, inline) for name, size, inline in threads}
    assert ("client_line_json", True, False) in on_loop and ("upstream_line_json", True, False) in on_loop
    assert not [t for t in threads if t[1] > 64 * 1024 and t[2]], threads
    assert not [t for t in threads if t[1] <= 64 * 1024 and not t[2]], threads


@pytest.mark.skipif(
    not _callers.FAST, reason="pins the fast path's lowering; the public API's takes ~25 s per 10 MB, in bytecode"
)
def test_a_10_mb_message_each_way_leaves_the_event_loop_turning():
    # The guard's call on a large message runs on a worker thread, but lowering its line (one component value
    # per byte) holds the GIL: done in one step, the event loop stopped for its whole length (200-480 ms for
    # 10 MB here; 15-50 ms since). A ticker that sleeps 1 ms at a time records its longest wait beyond that; the
    # smallest of three runs' figures is read, since the machine's noise only ever lengthens a wait.
    size = 10_000_000
    request = SessionMessage(
        JSONRPCRequest(
            jsonrpc="2.0", id=1, method="tools/call", params={"name": "echo", "arguments": {"text": "x" * size}}
        )
    )
    result = SessionMessage(
        JSONRPCResponse(jsonrpc="2.0", id=1, result={"content": [{"type": "text", "text": "x" * size}]})
    )

    async def longest_stall() -> float:
        to_upstream, upstream_in = anyio.create_memory_object_stream[SessionMessage](1)
        upstream_out, from_upstream = anyio.create_memory_object_stream[Any](1)
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
            with anyio.fail_after(60):
                async with guard_streams(from_upstream, to_upstream) as (read, write):
                    await write.send(request)
                    assert (await upstream_in.receive()) is request
                    await upstream_out.send(result)
                    assert (await read.receive()) is result
            done.set()
        return worst

    stalls = [anyio.run(longest_stall) for _ in range(3)]
    assert min(stalls) < 0.15, f"the event loop stalled {[round(s * 1000) for s in stalls]} ms"


def test_every_limit_is_the_sessions_to_resolve_given_then_the_files_then_the_default():
    """The adapter keeps no default and no merge rule: it hands the session what it was given, and its line
    limits are what the session resolved (the same rules as the CLI, in the component)."""
    policy = "[defaults]\ntimeout = 7\nmax_bytes = 4096\nmax_upstream_bytes = 8192\nfailed_result_bytes = 300\n"

    async def settings(**options: Any) -> dict[str, Any]:
        up_in_send, up_in = anyio.create_memory_object_stream[Any](1)
        up_out, up_out_receive = anyio.create_memory_object_stream[Any](1)
        async with guard_streams(up_in, up_out, **options) as (_, write):
            got = dict(write.settings)
        for stream in (up_in_send, up_in, up_out, up_out_receive):
            stream.close()
        return got

    def resolved(**options: Any) -> dict[str, Any]:
        return anyio.run(functools.partial(settings, **options))

    given = resolved(policy=policy, timeout=3, max_bytes=100, max_upstream_bytes=200, failed_result_bytes=500)
    limits = ("timeout_ms", "max_bytes", "failed_result_bytes", "max_upstream_bytes")
    assert [given[k] for k in limits] == [3000, 100, 500, 200]
    from_file = resolved(policy=policy)
    assert [from_file[k] for k in limits] == [7000, 4096, 300, 8192]
    default = resolved()
    assert [default[k] for k in limits[:3]] == [50_000, 10 * 1024 * 1024, 8192]
    assert default["max_upstream_bytes"] == jsonrpc_errors._runtime.get().max_input_bytes()
    for no_limit in (None, 0):
        assert resolved(policy=policy, timeout=no_limit)["timeout_ms"] is None
    assert resolved(policy="[defaults]\ntimeout = 0\n")["timeout_ms"] is None
    # On a session of one's own, too: left out is not given; None is no limit.
    with jsonrpc_errors.GuardSession() as session:
        assert session.settings()["timeout_ms"] == 50_000
    with jsonrpc_errors.GuardSession(timeout_ms=None) as session:
        assert session.settings()["timeout_ms"] is None


def test_the_package_imports_without_the_sdk_and_the_adapter_names_the_extra():
    blocker = (
        "import sys\n"
        "class NoMcp:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name in ('mcp', 'mcp_types') or name.startswith(('mcp.', 'mcp_types.')):\n"
        "            raise ImportError(f'No module named {name!r}')\n"
        "sys.meta_path.insert(0, NoMcp())\n"
        "import jsonrpc_errors\n"
        "assert jsonrpc_errors.redact('password=hunter2') == 'password=[REDACTED:secret-assignment]'\n"
        "try:\n"
        "    import jsonrpc_errors.mcp\n"
        "except ImportError as e:\n"
        "    print(e)\n"
    )
    proc = subprocess.run([sys.executable, "-c", blocker], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "pip install 'jsonrpc-errors[mcp]'" in proc.stdout, proc.stdout


def test_an_upstream_processes_stderr_is_logged_line_by_line_with_secrets_redacted(caplog):
    caplog.set_level(logging.INFO, logger="jsonrpc_errors.mcp")
    script = (
        "import sys\n"
        "sys.stderr.write('starting with API_KEY=sk-proj-Zq8xW3vN6mK2pL9rT4yU7iO1aS5dF0gH\\n')\n"
        "sys.stderr.write('Traceback (most recent call last):\\n  File \"/srv/app.py\", line 1\\n')\n"
        "sys.stderr.write('last words, no newline')\n"
    )

    async def main() -> None:
        async with upstream_stderr_log() as errlog:
            await anyio.run_process([sys.executable, "-c", script], stderr=errlog)

    anyio.run(main)
    lines = [
        r.guard_event["message"]
        for r in caplog.records
        if getattr(r, "guard_event", {}).get("event") == "upstream-stderr"
    ]
    assert lines == [
        "starting with API_KEY=[REDACTED:secret-assignment]",
        "Traceback (most recent call last):",  # traces and paths stay: they are what the operator debugs with
        '  File "/srv/app.py", line 1',
        "last words, no newline",
    ], lines


def test_a_key_block_and_an_endless_line_on_stderr_never_reach_the_log_in_part(caplog):
    # The block is written a line at a time (each read may get one line): the session redacts the lines that
    # continue a block an earlier read left open. The endless line is cut between characters, not inside one.
    caplog.set_level(logging.INFO, logger="jsonrpc_errors.mcp")
    body = ["MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0g" + f"{i:02d}" for i in range(20)]
    script = (
        "import sys, time\n"
        f"for line in ['loading key', '-----BEGIN RSA PRIVATE KEY-----', *{body!r},"
        " '-----END RSA PRIVATE KEY-----', 'key loaded']:\n"
        "    sys.stderr.write(line + '\\n'); sys.stderr.flush(); time.sleep(0.002)\n"
        "sys.stderr.write('\u20ac' * 400000 + '\\n')\n"
    )

    async def main() -> None:
        async with upstream_stderr_log() as errlog:
            await anyio.run_process([sys.executable, "-c", script], stderr=errlog)

    anyio.run(main)
    lines = [
        r.guard_event["message"]
        for r in caplog.records
        if getattr(r, "guard_event", {}).get("event") == "upstream-stderr"
    ]
    logged = "\n".join(lines)
    assert not [b for b in body if b[:30] in logged], lines[:30]
    assert "loading key" in lines and "key loaded" in lines, lines[:30]
    euros = "".join(line for line in lines if line.startswith("\u20ac"))
    assert euros == "\u20ac" * 400000, f"{len(euros)} characters, {euros.count(chr(0xFFFD))} replaced"


# ---------------------------------------------------------------------------------------------- policy files

# A file a tool reads, with secrets of the shapes the catalogue knows (made up for these tests).
DOTENV = (
    "APP_NAME=orders\n"
    "DATABASE_URL=postgres://orders:T4k-9vW2-qLm@db.staging.internal:5432/orders\n"
    "GITHUB_TOKEN=ghp_Vb7kQ2mZx9LpR4tN8wYc3HdF6sJ1uA5eK0gT\n"
    "LOG_LEVEL=debug\n"
)
RESULTS_SCOPE = '[redaction]\nscopes = ["errors", "results"]\n'


def reads_dotenv(delay: float = 0.0) -> Upstream:
    """An upstream whose every tools/call answers with DOTENV as a successful result (after `delay` s)."""

    async def server(inbox: MemoryObjectReceiveStream[SessionMessage], outbox: MemoryObjectSendStream[Any]) -> None:
        async for item in inbox:
            if isinstance(item.message, JSONRPCRequest) and item.message.method == "tools/call":
                await anyio.sleep(delay)
                result = {"content": [{"type": "text", "text": DOTENV}], "isError": False}
                await outbox.send(SessionMessage(JSONRPCResponse(jsonrpc="2.0", id=item.message.id, result=result)))

    return server


def call_tool(id_: int, name: str = "read_text_file") -> SessionMessage:
    return request(id_, name=name, arguments={"path": "/srv/orders/.env"})


def test_a_policy_given_to_the_adapter_redacts_the_results_scope_and_nothing_by_default(caplog):
    caplog.set_level(logging.INFO, logger="jsonrpc_errors.mcp")

    async def main(**options: Any) -> dict[str, Any]:
        async with raw(reads_dotenv(), dialect="mcp", **options) as (read, write):
            await write.send(call_tool(1))
            with anyio.fail_after(5):
                return as_json(await read.receive())

    untouched = anyio.run(lambda: main())
    assert untouched["result"]["content"][0]["text"] == DOTENV  # no policy: a successful result passes as is
    assert anyio.run(lambda: main(policy="[defaults]\ntimeout = 30\n")) == untouched  # the default scopes: neither
    redacted = anyio.run(lambda: main(policy=RESULTS_SCOPE))["result"]["content"][0]["text"]
    assert redacted == DOTENV.replace("orders:T4k-9vW2-qLm", "[REDACTED:url-credentials]").replace(
        "ghp_Vb7kQ2mZx9LpR4tN8wYc3HdF6sJ1uA5eK0gT", "[REDACTED:github-token]"
    ), redacted
    event = [r.guard_event for r in caplog.records if getattr(r, "guard_event", {}).get("event") == "redacted"][-1]
    # A tool the upstream did not list is labelled `other` (a metrics label), its name in the detail.
    assert (event["rule"], event["tool"]) == ("url-credentials,github-token", "other"), event
    assert "(tool read_text_file)" in event["detail"], event
    assert "T4k-9vW2" not in caplog.text and "ghp_Vb7k" not in caplog.text


def test_a_policy_block_answers_with_the_policy_error_and_audit_passes_untouched(caplog):
    caplog.set_level(logging.INFO, logger="jsonrpc_errors.mcp")
    block = RESULTS_SCOPE + '[actions]\ngithub-token = "block"\n'
    audit = (
        '[redaction]\nscopes = ["errors", "results"]\ndisable = ["url-credentials"]\n'
        '[actions]\ngithub-token = "audit"\n'
    )

    async def main(policy: str, dialect: str) -> dict[str, Any]:
        async with raw(reads_dotenv(), dialect=dialect, policy=policy) as (read, write):
            await write.send(call_tool(4))
            with anyio.fail_after(5):
                return as_json(await read.receive())

    mcp = anyio.run(main, block, "mcp")
    assert mcp == {
        "jsonrpc": "2.0",
        "id": 4,
        "result": {
            "content": [{"type": "text", "text": "Policy denied access to tool 'read_text_file'"}],
            "isError": True,
        },
    }, mcp
    canonical = anyio.run(main, block, "canonical")
    assert canonical["id"] == 4 and canonical["error"]["data"]["type"] == "policy-denied", canonical
    blocked = [r.guard_event for r in caplog.records if getattr(r, "guard_event", {}).get("event") == "blocked"]
    assert [(e["rule"], e["tool"]) for e in blocked] == [("github-token", "other")] * 2, blocked
    assert all("(tool read_text_file)" in e["detail"] for e in blocked), blocked
    audited = anyio.run(main, audit, "mcp")
    assert audited["result"]["content"][0]["text"] == DOTENV, audited
    events = [r.guard_event for r in caplog.records if getattr(r, "guard_event", {}).get("event") == "audited"]
    assert [(e["rule"], e["tool"]) for e in events] == [("github-token", "other")], events
    assert "ghp_Vb7k" not in caplog.text


def test_a_refused_policy_raises_with_line_and_column_before_anything_starts():
    async def main() -> None:
        async with guard_streams(
            *anyio.create_memory_object_stream[Any](1)[::-1], policy='[redaction]\nscopes = ["errors", "resluts"]\n'
        ):
            raise AssertionError("started")

    with pytest.raises(jsonrpc_errors.InvalidInput) as refused:
        anyio.run(main)
    data = refused.value.data
    assert (data["reason"], data["line"], data["column"]) == ("invalid-policy", 2, 21), data
    assert "unknown `resluts`" in data["details"]


def test_set_policy_reloads_for_new_requests_and_a_refused_one_keeps_the_old():
    async def main() -> tuple[list[dict[str, Any]], jsonrpc_errors.InvalidInput]:
        async with raw(reads_dotenv(), dialect="mcp") as (read, write):
            answers = []
            await write.send(call_tool(1))
            with anyio.fail_after(5):
                answers.append(as_json(await read.receive()))
            await write.set_policy(RESULTS_SCOPE)
            await write.send(call_tool(2))
            with anyio.fail_after(5):
                answers.append(as_json(await read.receive()))
            with pytest.raises(jsonrpc_errors.InvalidInput) as refused:
                await write.set_policy('[actions]\ngithub-token = "explode"\n')
            await write.send(call_tool(3))
            with anyio.fail_after(5):
                answers.append(as_json(await read.receive()))
            return answers, refused.value

    (before, after, kept), refused = anyio.run(main)
    assert before["result"]["content"][0]["text"] == DOTENV
    assert "[REDACTED:github-token]" in after["result"]["content"][0]["text"]
    assert kept["result"] == after["result"]
    assert (refused.data["line"], refused.data["column"]) == (2, 16), refused.data


def test_the_policys_defaults_and_tool_timeouts_apply_and_the_callers_options_win():
    policy = '[defaults]\ntimeout = 0.3\n\n[[tool]]\nmatch = "slow_*"\ntimeout = 0.1\n'

    async def main(name: str, **options: Any) -> tuple[dict[str, Any], float]:
        async with raw(reads_dotenv(delay=0.6), policy=policy, **options) as (read, write):
            started = time.monotonic()
            await write.send(call_tool(9, name))
            with anyio.fail_after(5):
                return as_json(await read.receive()), time.monotonic() - started

    for name, options, low, high in [
        ("read_text_file", {}, 0.3, 0.55),
        ("slow_export", {}, 0.1, 0.28),
        ("read_text_file", {"timeout": 2}, 0.6, 1.5),
    ]:
        answer, elapsed = anyio.run(functools.partial(main, name, **options))
        assert low <= elapsed < high, (name, options, elapsed, answer)
        if options:
            assert answer["result"]["content"][0]["text"] == DOTENV  # --timeout 2 overrides the file's 0.3 s
        else:
            assert answer["error"]["data"]["type"] == "upstream-timeout", answer
    # The file's dialect too, where the caller gives none; the caller's own wins.
    policy = '[defaults]\ndialect = "mcp"\ntimeout = 0.1\n'
    answer, _ = anyio.run(lambda: main("read_text_file"))
    assert answer["result"]["isError"] is True, answer
    answer, _ = anyio.run(lambda: main("read_text_file", dialect="canonical"))
    assert answer["error"]["data"]["type"] == "upstream-timeout", answer


def test_the_upstreams_environment_given_to_the_adapter_is_redacted_from_failed_results():
    # A value no rule knows (an internal service's key, handed to the server in its env): only the session
    # given that environment can tell it is a secret.
    secret = "zq-upstream-7c1f9e2b40"

    async def fails_with_its_key(inbox: MemoryObjectReceiveStream[SessionMessage], outbox: MemoryObjectSendStream[Any]):
        async for item in inbox:
            if isinstance(item.message, JSONRPCRequest):
                result = {"content": [{"type": "text", "text": f"auth failed with {secret}"}], "isError": True}
                await outbox.send(SessionMessage(JSONRPCResponse(jsonrpc="2.0", id=item.message.id, result=result)))

    async def main(**options: Any) -> str:
        async with raw(fails_with_its_key, dialect="mcp", **options) as (read, write):
            await write.send(call_tool(1))
            with anyio.fail_after(5):
                text: str = as_json(await read.receive())["result"]["content"][0]["text"]
                return text

    assert secret in anyio.run(lambda: main())  # else this test proves nothing
    guarded = anyio.run(lambda: main(environment={"BILLING_API_KEY": secret}))
    assert secret not in guarded and guarded.startswith("auth failed with "), guarded
