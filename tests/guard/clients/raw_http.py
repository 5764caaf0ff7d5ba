"""A raw HTTP/1.1 client on asyncio streams, for tests that must write exactly the bytes they mean to.

One connection per exchange (`Connection: close`): the body goes as given (repeated JSON members, an empty
body, `"id": null`), and the response is read as it comes: `application/json` whole, `text/event-stream`
event by event (each JSON-RPC message handed to `on_message` as it arrives, which is how a client answers
the server's requests on a GET stream), chunked or not. A caller can stall (read nothing for a while after
the head) or abandon the exchange (close the connection mid-response). Standard library only.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Exchange:
    status: int | None = None
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    # Every JSON-RPC message received (the JSON body, or each SSE event's data), as parsed, with its raw text.
    messages: list[Any] = field(default_factory=list)
    raw: list[str] = field(default_factory=list)
    # How it ended: "done" (the response ended), "timeout", "abandoned" (closed by the caller), "reset"
    # (the peer closed the connection before the response was whole), "refused" (no connection).
    ended: str = "done"
    sent_at: float = 0.0
    done_at: float = 0.0
    problems: list[str] = field(default_factory=list)


OnMessage = Callable[[Any, str], Awaitable[None] | None]


async def exchange(
    host: str,
    port: int,
    method: str,
    path: str,
    headers: dict[str, str] | list[tuple[str, str]],
    body: bytes = b"",
    *,
    timeout: float = 10.0,  # noqa: ASYNC109 - the whole exchange's deadline, connection included
    on_message: OnMessage | None = None,
    stall: float = 0.0,
    abandon_after: float | None = None,
) -> Exchange:
    """One HTTP request and its response; never raises for what the peer does (see `Exchange.ended`)."""
    out = Exchange()
    out.sent_at = time.monotonic()
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
    except (TimeoutError, OSError) as exc:
        out.ended = "refused"
        out.problems.append(repr(exc))
        out.done_at = time.monotonic()
        return out
    pairs = list(headers.items()) if isinstance(headers, dict) else list(headers)
    names = {name.lower() for name, _ in pairs}
    if "host" not in names:
        pairs.insert(0, ("Host", f"{host}:{port}"))
    if method in ("POST", "PUT") and "content-length" not in names:
        pairs.append(("Content-Length", str(len(body))))
    pairs.append(("Connection", "close"))
    head = f"{method} {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in pairs) + "\r\n"
    deadline = out.sent_at + (abandon_after if abandon_after is not None else timeout)
    try:
        writer.write(head.encode("latin-1") + body)
        await writer.drain()
        await asyncio.wait_for(_read_response(reader, out, on_message, stall), max(0.01, deadline - time.monotonic()))
    except TimeoutError:
        out.ended = "abandoned" if abandon_after is not None else "timeout"
    except (ConnectionError, asyncio.IncompleteReadError) as exc:
        out.ended = "reset"
        out.problems.append(repr(exc))
    finally:
        writer.close()
        try:
            await writer.wait_closed()
        except (ConnectionError, OSError):
            pass
    out.done_at = time.monotonic()
    return out


async def _read_response(
    reader: asyncio.StreamReader, out: Exchange, on_message: OnMessage | None, stall: float
) -> None:
    status_line = await reader.readline()
    if not status_line:
        raise asyncio.IncompleteReadError(b"", None)
    parts = status_line.decode("latin-1").split(" ", 2)
    out.status = int(parts[1])
    while True:
        line = await reader.readline()
        if not line:
            raise asyncio.IncompleteReadError(b"", None)
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode("latin-1").partition(":")
        out.headers[name.strip().lower()] = value.strip()
    if stall:
        await asyncio.sleep(stall)
    sse = out.headers.get("content-type", "").startswith("text/event-stream")
    parser = _Sse(out, on_message) if sse else None
    async for chunk in _body(reader, out.headers):
        if parser is not None:
            await parser.feed(chunk)
        else:
            out.body += chunk
    if parser is None and out.body.strip():
        try:
            text = out.body.decode()
            out.messages.append(json.loads(text))
            out.raw.append(text)
        except ValueError:
            out.problems.append(f"a body that is not JSON: {out.body[:200]!r}")


async def _body(reader: asyncio.StreamReader, headers: dict[str, str]):
    if "chunked" in headers.get("transfer-encoding", "").lower():
        while True:
            size_line = await reader.readline()
            if not size_line:
                raise asyncio.IncompleteReadError(b"", None)
            size = int(size_line.split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while (await reader.readline()) not in (b"\r\n", b"\n", b""):
                    pass
                return
            chunk = await reader.readexactly(size)
            await reader.readexactly(2)
            yield chunk
    elif "content-length" in headers:
        left = int(headers["content-length"])
        while left > 0:
            chunk = await reader.read(min(left, 1 << 16))
            if not chunk:
                raise asyncio.IncompleteReadError(b"", left)
            left -= len(chunk)
            yield chunk
    else:
        while chunk := await reader.read(1 << 16):
            yield chunk


class _Sse:
    """Server-sent events, fed bytes as they come: each event's `data` lines joined, parsed as JSON."""

    def __init__(self, out: Exchange, on_message: OnMessage | None) -> None:
        self.out = out
        self.on_message = on_message
        self.buffer = b""
        self.data: list[str] = []

    async def feed(self, chunk: bytes) -> None:
        self.buffer += chunk
        while b"\n" in self.buffer:
            line, self.buffer = self.buffer.split(b"\n", 1)
            text = line.decode("utf-8", "replace").rstrip("\r")
            if text == "":
                if self.data:
                    await self.event("\n".join(self.data))
                    self.data = []
            elif text.startswith("data:"):
                self.data.append(text[6:] if text[5:6] == " " else text[5:])

    async def event(self, text: str) -> None:
        try:
            message = json.loads(text)
        except ValueError:
            self.out.problems.append(f"an SSE event that is not JSON: {text[:200]!r}")
            return
        self.out.messages.append(message)
        self.out.raw.append(text)
        if self.on_message is not None:
            result = self.on_message(message, text)
            if asyncio.iscoroutine(result):
                await result
