"""A raw newline-delimited JSON-RPC server that makes noise on demand, for the HTTP front's isolation tests.

    python noisy_server.py [--log FILE]

Standard library only, no MCP. What a request does is chosen by its method (any other method answers
`{"result": {"echo": params}}`; a `tools/call` does what the method named `params.name` does, with
`params.arguments` for its params):

| method | what the server does |
|---|---|
| `initialize` | answers as a 2025-11-25 server (`server/discover` gets method not found, as from a legacy server) |
| `progress` | writes `params.count` `notifications/progress` for the request's own `_meta.progressToken`, each carrying `params.size` bytes of message, then answers (or stays silent if `params.answer` is false) |
| `log` | writes `params.count` `notifications/message` that belong to no request, each `params.size` bytes, then answers |
| `never` | never answers |
| `drop` | never answers this one, but answers the next request normally (a server that lost one answer) |

Every line received is appended (raw, one per line, flushed) to `--log`, so a test can see what the guard
forwarded (its `notifications/cancelled`, say).
"""

from __future__ import annotations

import argparse
import json
import os
import sys


def write(data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(1, view)
        view = view[n:]


def send(message: dict) -> None:
    write(json.dumps(message, separators=(",", ":")).encode() + b"\n")


def answer(req: dict, result: object) -> None:
    send({"jsonrpc": "2.0", "id": req["id"], "result": result})


def handle(req: dict) -> None:
    method = req.get("method")
    params = req.get("params") if isinstance(req.get("params"), dict) else {}
    token = (params.get("_meta") or {}).get("progressToken") if isinstance(params.get("_meta"), dict) else None
    if method == "tools/call":
        method, params = params.get("name"), params.get("arguments") or {}
    if "id" not in req or method is None:
        return  # a notification (notifications/cancelled, initialized): nothing to answer
    if method == "initialize":
        answer(req, {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}, "logging": {}},
                     "serverInfo": {"name": "noisy-server", "version": "1.0.0"}})
    elif method == "server/discover":
        send({"jsonrpc": "2.0", "id": req["id"], "error": {"code": -32601, "message": "Method not found"}})
    elif method == "progress":
        pad = "p" * max(0, int(params.get("size", 100)))
        lines = []
        for i in range(int(params.get("count", 10))):
            note = {"jsonrpc": "2.0", "method": "notifications/progress",
                    "params": {"progressToken": token, "progress": i + 1, "message": pad}}
            lines.append(json.dumps(note, separators=(",", ":")).encode() + b"\n")
            if len(lines) >= 64:
                write(b"".join(lines))
                lines.clear()
        write(b"".join(lines))
        if params.get("answer", True):
            answer(req, {"done": int(params.get("count", 10))})
    elif method == "log":
        pad = "l" * max(0, int(params.get("size", 100)))
        note = json.dumps({"jsonrpc": "2.0", "method": "notifications/message",
                           "params": {"level": "info", "data": pad}}, separators=(",", ":")).encode() + b"\n"
        for _ in range(int(params.get("count", 10))):
            write(note)
        answer(req, {"logged": int(params.get("count", 10))})
    elif method in ("never", "drop"):
        return
    else:
        answer(req, {"echo": params})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log")
    opts = parser.parse_args()
    with open(opts.log or os.devnull, "ab", buffering=0) as log:
        for raw in sys.stdin.buffer:
            log.write(raw if raw.endswith(b"\n") else raw + b"\n")
            try:
                message = json.loads(raw)
            except ValueError:
                continue
            if isinstance(message, dict):
                handle(message)


if __name__ == "__main__":
    main()
