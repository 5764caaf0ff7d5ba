"""guard_transport over the official SDK's Streamable HTTP client (`streamable_http_client`), in front of a real
MCPServer process serving streamable-http on a loopback port, killed mid-call.

Without the guard the SDK's transport fails its task group when the server goes away mid-request, which
cancels the caller's pending calls (a CancelledError, then an ExceptionGroup out of `Client`). Through the
guard every pending request gets one answer, as over stdio when the upstream exits, and so does every later
one."""

from __future__ import annotations

import logging
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Optional

import pytest

pytest.importorskip("mcp")

import anyio
from mcp import Client, MCPError
from mcp.client.streamable_http import streamable_http_client

from jsonrpc_errors.mcp import guard_transport

SERVER = r"""
import sys, time
from pathlib import Path
from mcp.server.mcpserver import MCPServer

mcp = MCPServer("http-upstream")
started = Path(sys.argv[2])

@mcp.tool()
def echo(text: str) -> str:
    return text

@mcp.tool()
def sleep(tag: str) -> str:
    (started / tag).touch()  # the test kills the server once every call is in here
    time.sleep(30)
    return "slept"

mcp.run("streamable-http", host="127.0.0.1", port=int(sys.argv[1]))
"""
MODERN, LEGACY = None, "legacy"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(tmp_path: Path) -> tuple[subprocess.Popen[bytes], str, Path]:
    port = free_port()
    started = tmp_path / "started"
    started.mkdir()
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(port), str(started)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 20
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proc, f"http://127.0.0.1:{port}/mcp", started
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise AssertionError("the streamable-http server did not start") from None
            time.sleep(0.05)


async def outcome(call: Any) -> dict[str, Any]:
    try:
        return {"result": (await call).model_dump(by_alias=True, mode="json", exclude_unset=True)}
    except MCPError as error:
        return {"error": {"code": error.code, "message": error.message, "data": error.data}}


@pytest.mark.parametrize("mode", [MODERN, LEGACY], ids=["modern", "legacy"])
def test_a_server_killed_mid_call_leaves_no_request_unanswered(
    mode: Optional[str], tmp_path: Path, caplog: Any
) -> None:
    caplog.set_level(logging.INFO, logger="jsonrpc_errors.mcp")
    proc, url, started = start_server(tmp_path)

    async def main() -> tuple[dict[str, Any], dict[str, dict[str, Any]], dict[str, Any], float]:
        transport = guard_transport(
            streamable_http_client(url), dialect="canonical", timeout=20, upstream="http:upstream"
        )
        async with Client(transport, **({"mode": mode} if mode else {})) as client:
            echo = await outcome(client.call_tool("echo", {"text": "hi"}))
            pending: dict[str, dict[str, Any]] = {}

            async def one(tag: str) -> None:
                pending[tag] = await outcome(client.call_tool("sleep", {"tag": tag}))

            with anyio.fail_after(10):
                async with anyio.create_task_group() as tg:
                    for tag in ("a", "b"):
                        tg.start_soon(one, tag)
                    while len(list(started.iterdir())) < 2:  # noqa: ASYNC110 - files the server processes write
                        await anyio.sleep(0.02)
                    killed = time.monotonic()
                    os.killpg(proc.pid, signal.SIGKILL)
                answered_in = time.monotonic() - killed
                later = await outcome(client.call_tool("echo", {"text": "still there?"}))
        return echo, pending, later, answered_in

    try:
        echo, pending, later, answered_in = anyio.run(main)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert echo["result"]["content"] == [{"type": "text", "text": "hi"}]
    # Each call in flight got its answer, at once (the guard's timeout is 20 s).
    assert sorted(pending) == ["a", "b"] and answered_in < 5, (pending, answered_in)
    kinds = {tag: answer["error"]["data"]["type"] for tag, answer in pending.items()}
    if mode is MODERN:
        # The POST in flight fails: the transport fails, the guard answers what is pending.
        assert kinds == {"a": "upstream-connection-failed", "b": "upstream-connection-failed"}, pending
        assert pending["a"]["error"]["data"]["details"] == "http:upstream"
    else:
        # Under the 2025 handshake each request's SSE stream ends first, and the SDK's transport answers the
        # request itself (-32000 "SSE stream ended without a response"), which the guard sanitizes.
        assert set(kinds.values()) <= {"upstream-error", "upstream-connection-failed"}, pending
    # A later call is answered too: by the guard, or by the SDK's client once the guard's stream has ended.
    assert "error" in later and later["error"]["code"] == -32000, later
    failed = [r for r in caplog.records if getattr(r, "guard_event", {}).get("event") == "upstream-transport-failed"]
    assert failed and failed[0].levelno == logging.WARNING, [r.getMessage()[:200] for r in caplog.records]
