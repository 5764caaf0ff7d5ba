"""Scripted MCP session on the official Python SDK's client (mcp 2.3.0), for the real-peer tests.

    python py_driver.py --steps STEPS.json [--mode auto|legacy] [--ahead VERSION] [--root URI]...
                        [--per-call-timeout-ms N] -- UPSTREAM_CMD [ARGS...]

Spawns UPSTREAM_CMD (a reference server, or `jsonrpc-errors guard -- server`), connects the way the SDK
connects by default (`mode="auto"`: `server/discover` at 2026-07-28, falling back to `initialize`), runs the
steps of STEPS.json (a JSON list shared with ts_driver.mjs; see tests/guard/real/README.md) and prints one JSON
line per step on stdout, then one `_callbacks` line: the server-to-client requests it answered (sampling,
elicitation, roots), as sorted method names. Nothing else goes to stdout. Exit 0 when the script ran to its end.

The client answers what a real client with a user and a model would: sampling with a fixed text, form
elicitation with `accept` and a value for each required string field, URL elicitation with `accept`, roots
with the `--root` URIs. It declares these capabilities only because it has these callbacks.

`--ahead VERSION` makes the client one protocol revision ahead of the SDK: its `server/discover` probe offers
VERSION (which no server knows) and it lists VERSION before 2026-07-28 among the versions it speaks, so the
SDK's own negotiation (mcp/client/_probe.py) has to use the -32022 error's `data.supported` to settle on
2026-07-28. Nothing else of the SDK is changed.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from typing import Any

import anyio
import mcp.client._probe as probe
import mcp_types
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from mcp import Client, MCPError, StdioServerParameters
from mcp.types import CONNECTION_CLOSED, REQUEST_TIMEOUT


def emit(line: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(line, separators=(",", ":"), ensure_ascii=False) + "\n")
    sys.stdout.flush()


def wire(model: Any) -> Any:
    """A pydantic result as the JSON it was on the wire (camelCase names, unset fields left out)."""
    if isinstance(model, dict):
        return model
    return model.model_dump(by_alias=True, mode="json", exclude_unset=True)


def unwrap(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = next((e for e in exc.exceptions if isinstance(e, MCPError)), exc.exceptions[0])
    return exc


def classify(exc: BaseException) -> dict[str, Any]:
    exc = unwrap(exc)
    if isinstance(exc, MCPError):
        if exc.code == REQUEST_TIMEOUT and exc.message.endswith("timed out"):
            return {"outcome": "timeout", "exception": f"MCPError: {exc.message}"}
        if exc.code == CONNECTION_CLOSED and exc.message == "Connection closed":
            return {"outcome": "closed", "exception": f"MCPError: {exc.message}"}
        error: dict[str, Any] = {"code": exc.code, "message": exc.message}
        if exc.error.data is not None:
            error["data"] = exc.error.data
        return {"outcome": "error", "error": error}
    # Anything else is the SDK refusing what it got (e.g. a pydantic ValidationError for a result that does not
    # fit the negotiated revision's schema): its type and first line, which is what a test needs to tell.
    text = f"{type(exc).__name__}: {exc}".splitlines()
    return {"outcome": "error", "exception": " | ".join(text[:3])}


def make_one_revision_ahead(version: str) -> None:
    """The SDK's negotiation, with `version` as the newest modern revision it offers first."""
    probe.LATEST_MODERN_VERSION = version
    probe.MODERN_PROTOCOL_VERSIONS = (*MODERN_PROTOCOL_VERSIONS, version)


async def run(args: argparse.Namespace) -> None:
    steps: list[dict[str, Any]] = json.loads(open(args.steps, encoding="utf-8").read())
    transport_errors: list[str] = []
    served: list[str] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, Exception):
            transport_errors.append(f"{type(message).__name__}: {message}".splitlines()[0])

    async def on_sampling(_ctx: Any, params: mcp_types.CreateMessageRequestParams) -> mcp_types.CreateMessageResult:
        served.append("sampling/createMessage")
        first = params.messages[0].content if params.messages else None
        text = getattr(first, "text", "") if first is not None else ""
        return mcp_types.CreateMessageResult(
            role="assistant",
            content=mcp_types.TextContent(type="text", text=f"sampled reply to: {text}"),
            model="scripted-model",
            stop_reason="endTurn",
        )

    async def on_elicitation(_ctx: Any, params: Any) -> mcp_types.ElicitResult:
        served.append(f"elicitation/create:{getattr(params, 'mode', None) or 'form'}")
        if getattr(params, "mode", None) == "url":
            return mcp_types.ElicitResult(action="accept")
        schema = getattr(params, "requested_schema", None) or {}
        if not isinstance(schema, dict):
            schema = wire(schema)
        props = schema.get("properties", {})
        content: dict[str, Any] = {}
        for name in schema.get("required", []):
            kind = props.get(name, {}).get("type")
            content[name] = {"string": f"scripted {name}", "boolean": True, "integer": 1, "number": 1}.get(kind, "x")
        return mcp_types.ElicitResult(action="accept", content=content)

    async def on_roots(_ctx: Any) -> mcp_types.ListRootsResult:
        served.append("roots/list")
        return mcp_types.ListRootsResult(roots=[mcp_types.Root(uri=u, name=f"root{i}") for i, u in enumerate(args.root)])

    if args.ahead:
        make_one_revision_ahead(args.ahead)
    params = StdioServerParameters(command=args.upstream[0], args=args.upstream[1:], env=dict(os.environ)) if not args.url else None
    client = Client(
        args.url or params,
        mode=args.mode,
        read_timeout_seconds=args.per_call_timeout_ms / 1000,
        message_handler=on_message,
        sampling_callback=on_sampling,
        elicitation_callback=on_elicitation,
        list_roots_callback=on_roots if args.root else None,
        cache=None,  # every call reaches the server: the two runs must send the same requests
    )

    def finish(name: str, started: float, fields: dict[str, Any]) -> None:
        line = {"step": name, "elapsed_ms": round((time.monotonic() - started) * 1000), **fields}
        if transport_errors:
            line["transport_errors"] = list(transport_errors)
            transport_errors.clear()
        emit(line)

    started = time.monotonic()
    try:
        await client.__aenter__()
    except Exception as exc:  # noqa: BLE001 - the connection's failure is the initialize step's outcome
        finish("initialize", started, classify(exc))
        emit({"step": "_callbacks", "requests": sorted(served)})
        return
    try:
        finish("initialize", started, {"outcome": "result", "result": {
            "protocolVersion": client.protocol_version,
            "serverInfo": wire(client.server_info) if client.server_info else None,
            "capabilities": wire(client.server_capabilities),
        }})
        for step in steps:
            progress: list[Any] = []

            async def on_progress(value: float, total: float | None, message: str | None) -> None:
                progress.append(int(value) if float(value).is_integer() else value)

            op = step["op"]
            started = time.monotonic()
            try:
                if op == "list_tools":
                    result = await client.list_tools()
                elif op == "call_tool":
                    result = await client.call_tool(step["name"], step.get("arguments", {}),
                                                    progress_callback=on_progress if step.get("progress") else None)
                elif op == "list_resources":
                    result = await client.list_resources()
                elif op == "list_resource_templates":
                    result = await client.list_resource_templates()
                elif op == "read_resource":
                    result = await client.read_resource(step["uri"])
                elif op == "list_prompts":
                    result = await client.list_prompts()
                elif op == "get_prompt":
                    result = await client.get_prompt(step["name"], step.get("arguments", {}))
                else:
                    raise SystemExit(f"py_driver: unknown op {op!r}")
                fields: dict[str, Any] = {"outcome": "result", "result": wire(result)}
            except SystemExit:
                raise
            except Exception as exc:  # noqa: BLE001 - every failure is data here
                print(f"py_driver: step {step['step']}: {type(exc).__name__}: {exc}", file=sys.stderr)
                fields = classify(exc)
            if step.get("progress"):
                fields["progress"] = progress
            finish(step["step"], started, fields)
        if args.linger_ms:
            await anyio.sleep(args.linger_ms / 1000)
    finally:
        try:
            await client.__aexit__(None, None, None)
        except Exception as exc:  # noqa: BLE001
            print(f"py_driver: close: {type(exc).__name__}: {exc}", file=sys.stderr)
    emit({"step": "_callbacks", "requests": sorted(served)})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", required=True)
    parser.add_argument("--mode", default="auto", help="the SDK's connect mode: auto (its default) or legacy")
    parser.add_argument("--ahead", default="", help="offer this (unknown) revision first: see the module doc")
    parser.add_argument("--root", action="append", default=[], help="a root URI to answer roots/list with")
    parser.add_argument("--per-call-timeout-ms", type=int, default=15000)
    parser.add_argument("--linger-ms", type=int, default=0, help="stay connected this long after the last step")
    parser.add_argument("--url", default="", help="a Streamable HTTP server (guard --listen) instead of UPSTREAM_CMD")
    parser.add_argument("upstream", nargs="*")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="py_driver[%(name)s]: %(message)s")
    anyio.run(run, args)


if __name__ == "__main__":
    main()
