"""An A2A agent on the official SDK (PyPI `a2a-sdk` 1.3, A2A 1.0 over JSON-RPC), for the guard's A2A tests.

    a2a_agent.py [--port N]

Prints `port N` on stdout once it listens. It serves its agent card at `/.well-known/agent-card.json` (one
JSON-RPC interface, `/rpc`, streaming on, push notifications off, no extended card) and the JSON-RPC
endpoint at `/rpc`. What a task does is picked by the first word of the message's text:

    echo TEXT     a completed task with one artifact, `echo: TEXT`
    stream N      a task that streams N artifact chunks (`chunk i`), then completes
    fail          a task that fails, its status message carrying a credential (what an agent's error text does)
    slow S        a task that works for S seconds (a killed agent's pending requests), then completes
    headers       a completed task whose artifact is the request's headers as JSON (names lowercased)

On stdout, after `port N`: `disconnect` each time a client leaves a response before it ended (what a guard
closing the agent's stream looks like from here).

Everything else about errors is the SDK's own: `GetTask` of an unknown id (-32001 TaskNotFoundError),
`CancelTask` of a finished task (-32002 TaskNotCancelableError), a push notification config (-32003),
`GetExtendedAgentCard` (-32007), a request without `A2A-Version: 1.0` (-32009 VersionNotSupportedError).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import sys
from typing import Any

import uvicorn
from a2a.helpers.proto_helpers import new_text_artifact, new_text_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events.event_queue_v2 import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types.a2a_pb2 import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    Role,
    Task,
    TaskState,
    TaskStatus,
)
from starlette.applications import Starlette

# What an agent's failure text carries in the field: a credential the guard must not let through.
SECRET = "ghp_" + "A2aSecretTokenValue0123456789abcdefAB"
RPC_PATH = "/rpc"


class TestAgent(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        text = context.get_user_input().strip()
        word, _, rest = text.partition(" ")
        task_id = context.task_id or ""
        context_id = context.context_id or ""
        if context.current_task is None:
            await event_queue.enqueue_event(
                Task(id=task_id, context_id=context_id, status=TaskStatus(state=TaskState.TASK_STATE_SUBMITTED))
            )
        updater = TaskUpdater(event_queue, task_id, context_id)
        await updater.start_work()
        if word == "echo":
            await updater.add_artifact(new_text_artifact(name="echo", text=f"echo: {rest}").parts, name="echo")
            await updater.complete()
        elif word == "stream":
            count = int(rest or "3")
            for i in range(count):
                await updater.add_artifact(
                    new_text_artifact(name="chunks", text=f"chunk {i}").parts,
                    artifact_id="chunks",
                    name="chunks",
                    append=i > 0,
                    last_chunk=i == count - 1,
                )
                await asyncio.sleep(0.05)
            await updater.complete()
        elif word == "fail":
            await updater.failed(
                new_text_message(
                    f"cannot reach the build server with token {SECRET} (connection refused)",
                    context_id=context_id,
                    task_id=task_id,
                    role=Role.ROLE_AGENT,
                )
            )
        elif word == "headers":
            seen = json.dumps({k.lower(): v for k, v in context.call_context.state.get("headers", {}).items()})
            await updater.add_artifact(new_text_artifact(name="headers", text=seen).parts, name="headers")
            await updater.complete()
        elif word == "slow":
            await asyncio.sleep(float(rest or "30"))
            await updater.complete()
        else:
            await updater.reject(new_text_message(f"unknown command: {word}", role=Role.ROLE_AGENT))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        updater = TaskUpdater(event_queue, context.task_id or "", context.context_id or "")
        await updater.cancel()


def card(base: str) -> AgentCard:
    return AgentCard(
        name="guard test agent",
        description="Streams, fails tasks with secrets in their status, raises the SDK's errors",
        version="1.0.0",
        supported_interfaces=[AgentInterface(url=base + RPC_PATH, protocol_binding="JSONRPC", protocol_version="1.0")],
        capabilities=AgentCapabilities(streaming=True, push_notifications=False, extended_agent_card=False),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[AgentSkill(id="echo", name="echo", description="echoes, streams, fails", tags=["test"])],
    )


class Disconnects:
    """ASGI middleware: prints `disconnect` when a client leaves a response that has not ended (the server
    hears it while it still listens for it: an event stream's client that goes away)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        done = False

        async def sending(message: Any) -> None:
            nonlocal done
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                done = True
            await send(message)

        async def receiving() -> Any:
            message = await receive()
            if message["type"] == "http.disconnect" and not done:
                print("disconnect", flush=True)
            return message

        await self.app(scope, receiving, sending)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    sock.listen(128)
    port = sock.getsockname()[1]
    agent_card = card(f"http://127.0.0.1:{port}")
    handler = DefaultRequestHandler(agent_executor=TestAgent(), task_store=InMemoryTaskStore(), agent_card=agent_card)
    app = Starlette(routes=create_agent_card_routes(agent_card) + create_jsonrpc_routes(handler, RPC_PATH))
    config = uvicorn.Config(Disconnects(app), log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    print(f"port {port}", flush=True)
    sys.stdout.flush()
    asyncio.run(server.serve(sockets=[sock]))


if __name__ == "__main__":
    main()
