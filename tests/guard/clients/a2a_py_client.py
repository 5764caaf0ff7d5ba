"""Drives an A2A agent with the official Python SDK (PyPI `a2a-sdk` 1.3, JSON-RPC transport) through the same
fixed scenario as a2a_js_client.mjs, and prints what it saw as one JSON object on stdout.

    python a2a_py_client.py BASE_URL

Each step's outcome is reduced to what the SDK hands its caller: task states, artifact and status texts,
streamed event kinds, and for an error its JSON-RPC code and data.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
from a2a.client import ClientConfig, create_client
from a2a.helpers.proto_helpers import new_text_message
from a2a.types.a2a_pb2 import (
    CancelTaskRequest,
    GetTaskRequest,
    Role,
    SendMessageRequest,
    Task,
    TaskState,
)
from a2a.utils.errors import JSON_RPC_ERROR_CODE_MAP, A2AError


def texts(parts: Any) -> list[str]:
    return [p.text for p in parts if p.WhichOneof("content") == "text"]


def task(t: Task) -> dict[str, Any]:
    return {
        "state": TaskState.Name(t.status.state),
        "status": texts(t.status.message.parts),
        "artifacts": ["".join(texts(a.parts)) for a in t.artifacts],
    }


async def outcome(step: Callable[[], Awaitable[Any]]) -> dict[str, Any]:
    try:
        return {"ok": await step()}
    except A2AError as e:
        code = JSON_RPC_ERROR_CODE_MAP.get(type(e))
        return {"error": {"code": code, "data": e.data}} if code is not None else {"failed": type(e).__name__}


seq = 0


def message(text: str) -> SendMessageRequest:
    global seq
    seq += 1
    m = new_text_message(text, role=Role.ROLE_USER)
    m.message_id = f"py-{os.getpid()}-{seq}"
    return SendMessageRequest(message=m)


async def main(base: str) -> None:
    async with httpx.AsyncClient(timeout=30) as http:
        card = (await http.get(base.rstrip("/") + "/.well-known/agent-card.json")).json()
        plain = await create_client(base, ClientConfig(streaming=False, httpx_client=http))
        streaming = await create_client(base, ClientConfig(streaming=True, httpx_client=http))
        out: dict[str, Any] = {"card": {"name": card["name"], "interfaces": [i["url"] for i in card["supportedInterfaces"]]}}
        echoed: list[Task] = []

        async def send(text: str) -> dict[str, Any]:
            last = None
            async for ev in plain.send_message(message(text)):
                last = ev
            assert last is not None and last.HasField("task")
            echoed.append(last.task)
            return task(last.task)

        async def stream() -> list[list[str]]:
            events: list[list[str]] = []
            async for ev in streaming.send_message(message("stream 3")):
                kind = ev.WhichOneof("payload")
                if kind == "task":
                    events.append(["task", TaskState.Name(ev.task.status.state)])
                elif kind == "status_update":
                    events.append(["status", TaskState.Name(ev.status_update.status.state)])
                elif kind == "artifact_update":
                    events.append(["artifact", "".join(texts(ev.artifact_update.artifact.parts))])
                elif kind == "message":
                    events.append(["message", "".join(texts(ev.message.parts))])
            return events

        out["echo"] = await outcome(lambda: send("echo hi"))
        first = echoed[0].id if echoed else ""
        out["stream"] = await outcome(stream)
        out["fail"] = await outcome(lambda: send("fail"))

        async def get(id: str) -> dict[str, Any]:
            return task(await plain.get_task(GetTaskRequest(id=id)))

        async def cancel(id: str) -> dict[str, Any]:
            return task(await plain.cancel_task(CancelTaskRequest(id=id)))

        out["get"] = await outcome(lambda: get(first))
        out["unknown"] = await outcome(lambda: get("no-such-task"))
        out["cancel"] = await outcome(lambda: cancel(first))
        sys.stdout.write(json.dumps(out) + "\n")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
