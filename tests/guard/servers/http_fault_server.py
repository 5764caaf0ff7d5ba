"""An MCP server over Streamable HTTP (and, with --legacy, the HTTP+SSE transport of 2024-11-05) that fails on
demand, for the guard's HTTP upstream tests. Standard library only (http.server, ssl).

    http_fault_server.py [--port N] [--tls CERT KEY] [--token T] [--legacy] [--record FILE]

Prints `port N` on stdout once it listens. `tools/call` picks the behaviour by the tool's name:

    echo         a JSON answer (its arguments)
    sse          an SSE stream: two progress notifications, then the answer
    cut          an SSE stream: one progress notification, then the connection closes (no answer, no event ids)
    reset        a JSON body declared longer than it is, then a TCP reset
    never        the headers of an SSE stream, then nothing until the client leaves
    twice        an SSE stream with the answer twice
    stranger     a JSON answer to an id the guard never sent
    status       HTTP arguments.status with an HTML (or arguments.content_type) body and arguments.retry_after
    rpc400       HTTP 400 with a JSON-RPC error whose id is null (what SDK servers write)
    headers      a JSON answer with the request headers it got (names lowercased)
    big          an answer of arguments.mb MiB (default 1), as JSON, or with arguments.sse as one SSE event
    forget       a JSON answer; then every session is forgotten (the next request with one gets 404)
    forget-all   as forget, and `initialize` is refused from then on (HTTP 500)
    secret       a JSON-RPC error whose message and data carry a credential

`initialize` opens a session (`Mcp-Session-Id`); notifications and answers get 202; GET is 405; DELETE 200.
Every request (method, path, headers, body) is appended as a JSON line to --record.
"""

from __future__ import annotations

import argparse
import json
import socket
import ssl
import struct
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

STATE: dict[str, Any] = {"sessions": set(), "refuse_initialize": False, "record": None, "token": None, "legacy": {}}
LOCK = threading.Lock()


def record(entry: dict) -> None:
    if STATE["record"]:
        with LOCK, open(STATE["record"], "a") as f:
            f.write(json.dumps(entry) + "\n")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    # --- plumbing ---
    def body(self) -> bytes:
        length = int(self.headers.get("content-length") or 0)
        return self.rfile.read(length) if length else b""

    def reply(self, status: int, body: bytes = b"", content_type: str = "application/json", headers: dict | None = None) -> None:
        self.send_response(status)
        if body or status != 202:
            self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def json(self, message: dict, status: int = 200, headers: dict | None = None) -> None:
        self.reply(status, json.dumps(message).encode(), headers=headers)

    def sse_start(self) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()

    def chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def event(self, message: dict, name: str | None = None) -> None:
        text = (f"event: {name}\n" if name else "") + f"data: {json.dumps(message)}\n\n"
        self.chunk(text.encode())

    def sse_end(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def reset(self) -> None:
        """Closes the connection with a TCP reset (SO_LINGER 0)."""
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.close_connection = True
        self.connection.close()

    def authorized(self) -> bool:
        token = STATE["token"]
        if token and self.headers.get("authorization") != f"Bearer {token}":
            self.reply(401, b"<html><body>401 Unauthorized: Bearer token for realm mcp</body></html>", "text/html",
                       {"www-authenticate": 'Bearer realm="mcp"'})
            return False
        return True

    def record(self, body: bytes) -> None:
        record({"method": self.command, "path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
                "body": body.decode(errors="replace")})

    # --- Streamable HTTP ---
    def do_GET(self) -> None:
        self.record(b"")
        if STATE["legacy_mode"] and self.path.startswith("/sse"):
            return self.legacy_stream()
        self.reply(405, b"", headers={"allow": "POST, DELETE"})

    def do_DELETE(self) -> None:
        self.record(b"")
        with LOCK:
            STATE["sessions"].discard(self.headers.get("mcp-session-id"))
        self.reply(200, b"")

    def do_POST(self) -> None:
        body = self.body()
        self.record(body)
        if not self.authorized():
            return
        if STATE["legacy_mode"]:
            return self.legacy_post(body)
        try:
            message = json.loads(body)
        except ValueError:
            return self.json({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}, 400)
        method, id = message.get("method"), message.get("id")
        if method == "initialize":
            if STATE["refuse_initialize"]:
                return self.reply(500, b"<html>500 Internal Server Error</html>", "text/html")
            session = uuid.uuid4().hex
            with LOCK:
                STATE["sessions"].add(session)
            result = {"protocolVersion": message["params"].get("protocolVersion", "2025-11-25"),
                      "capabilities": {"tools": {}}, "serverInfo": {"name": "http-fault-server", "version": "1"}}
            return self.json({"jsonrpc": "2.0", "id": id, "result": result}, headers={"mcp-session-id": session})
        session = self.headers.get("mcp-session-id")
        with LOCK:
            known = session in STATE["sessions"]
        if session is not None and not known:
            return self.json({"jsonrpc": "2.0", "id": None, "error": {"code": -32001, "message": "Session not found"}}, 404)
        if id is None or method is None:
            return self.reply(202)
        if method == "tools/call":
            return self.tool(id, message["params"]["name"], message["params"].get("arguments") or {}, message)
        return self.json({"jsonrpc": "2.0", "id": id, "result": {}})

    def tool(self, id: Any, name: str, args: dict, message: dict) -> None:
        answer = {"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": json.dumps(args)}]}}
        token = ((message["params"].get("_meta") or {}).get("progressToken"))
        progress = {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": token, "progress": 1}}
        if name == "echo":
            return self.json(answer)
        if name == "sse":
            self.sse_start()
            for i in range(2):
                self.event({**progress, "params": {**progress["params"], "progress": i + 1}})
            self.event(answer)
            return self.sse_end()
        if name == "cut":
            self.sse_start()
            self.event(progress)
            time.sleep(0.1)
            return self.reset()
        if name == "reset":
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", "1000")
            self.end_headers()
            self.wfile.write(b'{"jsonrpc":"2.0","id":')
            self.wfile.flush()
            time.sleep(0.1)
            return self.reset()
        if name == "never":
            self.sse_start()
            self.connection.settimeout(0.2)
            while True:
                try:
                    if self.connection.recv(1, socket.MSG_PEEK) == b"":
                        break
                except TimeoutError:
                    continue
                except OSError:
                    break
            self.close_connection = True
            return None
        if name == "twice":
            self.sse_start()
            self.event(answer)
            self.event(answer)
            return self.sse_end()
        if name == "stranger":
            return self.json({**answer, "id": "never-sent-by-anyone"})
        if name == "status":
            headers = {"retry-after": str(args["retry_after"])} if "retry_after" in args else {}
            body = args.get("body", "<html><head><title>Oops</title></head><body>Error at /home/alice/app.py</body></html>")
            return self.reply(int(args["status"]), body.encode(), args.get("content_type", "text/html"), headers)
        if name == "rpc400":
            return self.json({"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Bad Request: no valid session"}}, 400)
        if name == "big":
            # An answer of about arguments.mb MiB, as JSON or as one SSE event, written in 64 KiB pieces.
            text = "x" * (64 * 1024)
            pieces = int(args.get("mb", 1)) * 16
            head = json.dumps({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": ""}]}})
            before, after = head.split('"text": ""')
            if args.get("sse"):
                self.sse_start()
                self.chunk(("data: " + before + '"text": "').encode())
                for _ in range(pieces):
                    self.chunk(text.encode())
                self.chunk(('"' + after + "\n\n").encode())
                return self.sse_end()
            length = len(before) + len('"text": "') + pieces * len(text) + 1 + len(after)
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(length))
            self.end_headers()
            self.wfile.write((before + '"text": "').encode())
            for _ in range(pieces):
                self.wfile.write(text.encode())
            self.wfile.write(('"' + after).encode())
            return None
        if name == "headers":
            got = {k.lower(): v for k, v in self.headers.items()}
            return self.json({**answer, "result": {"content": [{"type": "text", "text": json.dumps(got)}]}})
        if name in ("forget", "forget-all"):
            with LOCK:
                STATE["sessions"].clear()
                STATE["refuse_initialize"] = name == "forget-all"
            return self.json(answer)
        if name == "secret":
            error = {"code": -32010, "message": "db down: postgres://app:hunter2@db.internal/x",
                     "data": {"token": "ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d"}}
            return self.json({"jsonrpc": "2.0", "id": id, "error": error})
        return self.json({"jsonrpc": "2.0", "id": id, "error": {"code": -32602, "message": f"Unknown tool: {name}"}})

    # --- HTTP+SSE (2024-11-05) ---
    def legacy_stream(self) -> None:
        session = uuid.uuid4().hex
        outbox: list[bytes] = []
        cond = threading.Condition()
        with LOCK:
            STATE["legacy"][session] = (outbox, cond)
        self.sse_start()
        self.chunk(f"event: endpoint\ndata: /message?sessionId={session}\n\n".encode())
        try:
            while True:
                with cond:
                    cond.wait_for(lambda: outbox, timeout=0.5)
                    items, outbox[:] = list(outbox), []
                for item in items:
                    if item == b"<cut>":
                        return self.reset()
                    self.chunk(b"event: message\ndata: " + item + b"\n\n")
        except OSError:
            pass
        finally:
            with LOCK:
                STATE["legacy"].pop(session, None)

    def legacy_post(self, body: bytes) -> None:
        session = self.path.partition("sessionId=")[2]
        with LOCK:
            link = STATE["legacy"].get(session)
        if link is None:
            return self.reply(404, b"Session not found", "text/plain")
        outbox, cond = link
        self.reply(202, b"Accepted", "text/plain")
        message = json.loads(body)
        method, id = message.get("method"), message.get("id")
        if id is None or method is None:
            return None
        if method == "initialize":
            reply = {"jsonrpc": "2.0", "id": id, "result": {"protocolVersion": "2024-11-05", "capabilities": {"tools": {}},
                                                          "serverInfo": {"name": "http-fault-server-legacy", "version": "1"}}}
        elif method == "tools/call" and message["params"]["name"] == "cut":
            reply = None
        elif method == "tools/call":
            reply = {"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": "legacy " + message["params"]["name"]}]}}
        else:
            reply = {"jsonrpc": "2.0", "id": id, "result": {}}
        with cond:
            outbox.append(b"<cut>" if reply is None else json.dumps(reply).encode())
            cond.notify()
        return None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
    parser.add_argument("--token")
    parser.add_argument("--legacy", action="store_true")
    parser.add_argument("--record")
    args = parser.parse_args()
    STATE["record"], STATE["token"], STATE["legacy_mode"] = args.record, args.token, args.legacy
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    if args.tls:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(*args.tls)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    print(f"port {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
