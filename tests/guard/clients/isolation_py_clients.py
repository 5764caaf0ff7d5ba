"""Many official Python SDK clients (`mcp` 2.3.0) at once, each on a connection of its own, for
`test_isolation_sdk.py`.

    python isolation_py_clients.py --url URL --spec SPEC.json [--per-call-timeout-ms N]

SPEC.json is a list of clients: `{"client": K, "calls": [{"round": R, "name": TOOL, "arguments": {...},
"progress": BOOL}, ...], "sampling_reply": TEXT}`. Every client connects as the SDK does by default
(`mode="auto"`: `server/discover` at 2026-07-28, falling back to `initialize`), runs its rounds one after the
other and the calls of a round all at once, answers the server's sampling requests with its `sampling_reply`
(and records the text it was asked), and declines elicitations (recorded too). The clients run concurrently in
one event loop; the SDK numbers each client's requests from 1, so ids repeat across them.

One JSON line per client on stdout: `{"client", "sdk": "python", "protocol", "connect", "calls": [{"name",
"round", "outcome", "text", "structured", "is_error", "progress": [[value, total, message], ...], "error"}],
"sampling": [...], "elicitation": [...], "transport_errors": [...]}`. Nothing is judged here: the test does. On
stderr, `isolation_py_clients: client K calls NAME` as each call starts.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types
from mcp import Client, MCPError


def wire(model: Any) -> Any:
    if model is None or isinstance(model, (dict, list, str, int, float, bool)):
        return model
    return model.model_dump(by_alias=True, mode="json", exclude_unset=True)


def describe(exc: BaseException) -> dict[str, Any]:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, MCPError):
        return {"code": exc.code, "message": exc.message, "data": exc.error.data}
    return {"exception": f"{type(exc).__name__}: {exc}".splitlines()[0][:500]}


async def one_client(url: str, spec: dict[str, Any], timeout_s: float, out: list[dict[str, Any]]) -> None:
    record: dict[str, Any] = {
        "client": spec["client"],
        "sdk": "python",
        "protocol": None,
        "connect": "ok",
        "calls": [],
        "sampling": [],
        "elicitation": [],
        "transport_errors": [],
    }
    out.append(record)

    async def on_message(message: Any) -> None:
        if isinstance(message, Exception):
            record["transport_errors"].append(f"{type(message).__name__}: {message}".splitlines()[0][:300])

    async def on_sampling(context: Any, params: mcp_types.CreateMessageRequestParams) -> mcp_types.CreateMessageResult:
        record["sampling"].append(json.dumps(wire(params), sort_keys=True))
        return mcp_types.CreateMessageResult(
            role="assistant",
            model="isolation-model",
            stop_reason="endTurn",
            content=mcp_types.TextContent(type="text", text=spec["sampling_reply"]),
        )

    async def on_elicitation(context: Any, params: Any) -> mcp_types.ElicitResult:
        record["elicitation"].append(json.dumps(wire(params), sort_keys=True))
        return mcp_types.ElicitResult(action="decline")

    client = Client(
        url,
        mode="auto",
        read_timeout_seconds=timeout_s,
        message_handler=on_message,
        sampling_callback=on_sampling,
        elicitation_callback=on_elicitation,
        cache=None,
    )
    try:
        await client.__aenter__()
    except Exception as exc:  # noqa: BLE001 - a client that cannot connect is a finding, not a crash
        record["connect"] = describe(exc)
        return
    try:
        record["protocol"] = client.protocol_version
        rounds = sorted({c["round"] for c in spec["calls"]})
        for r in rounds:
            async with anyio.create_task_group() as tg:
                for call in [c for c in spec["calls"] if c["round"] == r]:
                    tg.start_soon(run_call, client, call, record)
    finally:
        try:
            await client.__aexit__(None, None, None)
        except Exception as exc:  # noqa: BLE001
            record["transport_errors"].append(f"close: {describe(exc)}")


async def run_call(client: Client, call: dict[str, Any], record: dict[str, Any]) -> None:
    entry: dict[str, Any] = {"name": call["name"], "round": call["round"], "progress": []}
    record["calls"].append(entry)

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        entry["progress"].append([progress, total, message])

    # On stderr, for a test that acts while a call is in flight.
    print(f"isolation_py_clients: client {record['client']} calls {call['name']}", file=sys.stderr, flush=True)
    try:
        result = await client.call_tool(
            call["name"], call["arguments"], progress_callback=on_progress if call.get("progress") else None
        )
        wired = wire(result)
        entry["outcome"] = "result"
        entry["text"] = "\n".join(c.get("text", "") for c in wired.get("content", []) if isinstance(c, dict))
        entry["structured"] = wired.get("structuredContent")
        entry["is_error"] = bool(wired.get("isError"))
    except Exception as exc:  # noqa: BLE001 - every failure is data here
        entry["outcome"] = "error"
        entry["error"] = describe(exc)


async def main_async(args: argparse.Namespace, specs: list[dict[str, Any]]) -> None:
    out: list[dict[str, Any]] = []
    async with anyio.create_task_group() as tg:
        for spec in specs:
            tg.start_soon(one_client, args.url, spec, args.per_call_timeout_ms / 1000, out)
    for record in sorted(out, key=lambda r: r["client"]):
        sys.stdout.write(json.dumps(record, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--spec", required=True)
    parser.add_argument("--per-call-timeout-ms", type=int, default=20000)
    args = parser.parse_args()
    anyio.run(main_async, args, json.loads(Path(args.spec).read_text(encoding="utf-8")))


if __name__ == "__main__":
    main()
