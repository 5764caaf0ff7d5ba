"""A hostile stdio MCP server for the isolation model test (`tests/guard/test_isolation_model.py`).

    python hostile_server.py --log DIR [--seed N] [--huge-bytes N]

Standard library only, newline-delimited JSON-RPC on stdin/stdout. It serves whatever reaches it, in both eras
(`server/discover` names 2026-07-28, so a guard's shared child serves stateless requests straight; `initialize`
opens a 2025-11-25 session), and it tries every cross-delivery trick it is asked to. The plan of each
`tools/call` of the tool `trick` comes in its `arguments.plan` (written by the test from its seed), so a run is
reproducible up to timing; the picks that need the server's knowledge (which ids are in flight for others, which
are answered) are made here, from `--seed`.

The model (what the test checks against): every client request carries a marker unique to it
(`mk.c<client>.r<request>`, found in the request's raw line; the last one wins, as the last of a repeated member
does). Every message the server writes is attributed to one request, and carries that request's marker:

- to the request whose id or progress token it uses, when it was given that id or token (its own, or another
  request's it knows: a "foreign" id or token, one "answered" or "finished");
- to the request it is serving, when it made the id or token up (`near`: the given one plus or minus a little,
  `literal`: a value the client asked for, `invented`), and for its own requests to the client (elicitation,
  sampling, roots, each with a unique `tag`) and its unsolicited notifications.

Plan actions, each `{"at_ms": N, "do": ...}`:

- `progress`: `notifications/progress`; `token`: `own`, `near` (`k`), `foreign`, `finished`, `invented`,
  `literal` (`value`);
- `answer`: a response; `id`: `near` (`k`), `foreign`, `answered`, `literal` (`value`); `huge`: over `--huge-bytes`;
- `request`: a request of its own: `method` `elicitation/create`, `sampling/createMessage` or `roots/list`;
- `notify`: an unsolicited notification: `method` `notifications/message` or `notifications/resources/updated`;
  `bytes`: padding;
- `flood`: `n` unsolicited `notifications/message` of `bytes` each (`to`: `stream0`), or `n` progress
  notifications on its own token (`to`: `own`);
- `huge`: a line over `--huge-bytes`: `kind` `notification` or `request`.

`arguments.finish` (at `arguments.finish_ms`): `answer` (a result with a fresh `nonce`), `error` (a JSON-RPC
error carrying the marker), `huge` (its own answer over `--huge-bytes`), `drop` (never answered). A request
cancelled (`notifications/cancelled` naming its id) is not finished.

Everything goes to `DIR/server-<pid>.jsonl`, one JSON record per line, flushed: `recv` (every line read, raw,
with `dups`: the members it repeats, at any depth), `request` (a request it attributes: its id, marker,
progress token), `queued` (every line the server has ready to write, in the order it writes them: `kind`, the
id or token used, the marker it carries, `pick` (how the id or token was chosen), `huge`, `nonce`, `tag`),
`wrote` (the same, once written: a write waits while the guard reads nothing), `srq-response`
(a response to one of its own requests: the request's tag, and the markers the response carries),
`stray-response`, `cancelled`. Monotonic times are CLOCK_MONOTONIC, comparable with the test's.
"""

from __future__ import annotations

import argparse
import heapq
import itertools
import json
import os
import queue
import random
import re
import sys
import threading
import time
from typing import Any

MARKER = re.compile(r"mk\.c\d+\.r\d+")


class Log:
    def __init__(self, folder: str) -> None:
        os.makedirs(folder, exist_ok=True)
        # Open for the process's life, flushed after every record: a server killed mid-run keeps what it logged.
        self.file = open(os.path.join(folder, f"server-{os.getpid()}.jsonl"), "a", encoding="utf-8")  # noqa: SIM115
        self.lock = threading.Lock()

    def __call__(self, record: dict[str, Any]) -> None:
        record = {"pid": os.getpid(), "t": time.monotonic(), **record}
        with self.lock:
            self.file.write(json.dumps(record, separators=(",", ":")) + "\n")
            self.file.flush()


def key(value: Any) -> str:
    """An id or token as a key: JSON text, numbers by value (the guard writes ids as it likes)."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return json.dumps(value, sort_keys=True)


def parse_with_dups(line: str) -> tuple[Any, list[str]]:
    """The line as Python and JSON servers read it (a repeated member: the last wins), and the repeated names."""
    dups: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        for name, value in items:
            if name in seen:
                dups.append(name)
            seen[name] = value
        return seen

    return json.loads(line, object_pairs_hook=pairs), dups


def near(value: Any, k: int) -> Any:
    """A guess next to a given id or token: what a server (or a client steering it) would try."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value + k
    if isinstance(value, float):
        return value + k
    if isinstance(value, str):
        digits = re.search(r"(\d+)$", value)
        if digits:
            return value[: digits.start()] + str(max(0, int(digits.group(1)) + k))
        return value[:-1] + chr(ord(value[-1]) + k) if value else str(k)
    return k


class Server:
    def __init__(self, log: Log, rng: random.Random, huge_bytes: int) -> None:
        self.log = log
        self.rng = rng
        self.huge_bytes = huge_bytes
        self.lock = threading.Lock()
        self.queue_lock = threading.Lock()
        self.out: queue.Queue[tuple[bytes, dict[str, Any]] | None] = queue.Queue()
        # What it was given: id key -> {"id", "marker", "token"}; token key -> id key.
        self.requests: dict[str, dict[str, Any]] = {}
        self.tokens: dict[str, str] = {}
        self.inflight: list[str] = []
        self.answered: list[str] = []
        self.cancelled: set[str] = set()
        self.srq_ids = itertools.count(1)
        self.nonces = itertools.count(1)
        self.srqs: dict[str, dict[str, Any]] = {}
        self.timers: list[tuple[float, int, Any]] = []
        self.timer_seq = itertools.count()
        self.timer_wake = threading.Condition()
        self.writer = threading.Thread(target=self.write_loop, daemon=True)
        self.writer.start()
        threading.Thread(target=self.timer_loop, daemon=True).start()

    def nonce(self) -> str:
        """Unique across the run's servers: which write a client got is told by it."""
        return f"n{os.getpid()}.{next(self.nonces)}"

    # ── writing ──

    def write_loop(self) -> None:
        out = sys.stdout.buffer
        while (item := self.out.get()) is not None:
            data, record = item
            try:
                out.write(data)
                out.flush()
            except (BrokenPipeError, OSError):
                os._exit(0)
            self.log({"ev": "wrote", **record})

    def send(self, message: dict[str, Any], record: dict[str, Any], pad: int = 0) -> None:
        text = json.dumps(message, separators=(",", ":"))
        if pad:
            # Padding inside the message, so that it stays one valid (if huge) JSON line.
            text = text[:-1] + ',"pad":"' + "x" * pad + '"}'
        # Logged when the line is ready (`queued`), and again once written (`wrote`): a write waits while the
        # guard reads nothing, and what the server decided to send is what the model compares with.
        record = {**record, "bytes": len(text) + 1}
        with self.queue_lock:
            self.log({"ev": "queued", **record})
            self.out.put((text.encode() + b"\n", record))

    # ── timers ──

    def at(self, delay_ms: float, action: Any) -> None:
        with self.timer_wake:
            heapq.heappush(self.timers, (time.monotonic() + delay_ms / 1000, next(self.timer_seq), action))
            self.timer_wake.notify()

    def timer_loop(self) -> None:
        while True:
            with self.timer_wake:
                while not self.timers or self.timers[0][0] > time.monotonic():
                    self.timer_wake.wait(None if not self.timers else max(0.0, self.timers[0][0] - time.monotonic()))
                _, _, action = heapq.heappop(self.timers)
            try:
                action()
            except Exception as exc:  # noqa: BLE001 - a trick gone wrong is logged, the server goes on
                self.log({"ev": "trick-failed", "error": repr(exc)})

    # ── reading ──

    def handle_line(self, raw: bytes) -> None:
        line = raw.decode("utf-8", "replace").rstrip("\n")
        try:
            message, dups = parse_with_dups(line)
        except ValueError:
            self.log({"ev": "recv", "line": line[:2000], "json": False})
            return
        self.log({"ev": "recv", "line": line if len(line) < 20000 else line[:20000], "dups": dups})
        if not isinstance(message, dict):
            return
        if "method" not in message:
            self.response(message, line)
            return
        method = message.get("method")
        params = message.get("params") if isinstance(message.get("params"), dict) else {}
        if "id" not in message:
            if method == "notifications/cancelled":
                k = key(params.get("requestId"))
                with self.lock:
                    self.cancelled.add(k)
                    known = self.requests.get(k)
                self.log(
                    {"ev": "cancelled", "id": params.get("requestId"), "marker": known["marker"] if known else None}
                )
            return
        self.request(message["id"], method, params, line)

    def request(self, rid: Any, method: Any, params: dict[str, Any], line: str) -> None:
        markers = MARKER.findall(line)
        marker = markers[-1] if markers else None
        meta = params.get("_meta") if isinstance(params.get("_meta"), dict) else {}
        token = meta.get("progressToken")
        k = key(rid)
        with self.lock:
            self.requests[k] = {"id": rid, "marker": marker, "token": token}
            if token is not None:
                self.tokens[key(token)] = k
            self.inflight.append(k)
        self.log({"ev": "request", "id": rid, "method": method, "marker": marker, "token": token})
        if method == "server/discover":
            self.finish(
                rid,
                {
                    "supportedVersions": ["2025-11-25", "2026-07-28"],
                    "capabilities": {"tools": {}, "logging": {}},
                    "serverInfo": {"name": "hostile", "version": "1"},
                    "resultType": "complete",
                },
                marker,
            )
        elif method == "initialize":
            version = params.get("protocolVersion") if isinstance(params.get("protocolVersion"), str) else "2025-11-25"
            self.finish(
                rid,
                {
                    "protocolVersion": version,
                    "capabilities": {"tools": {}, "logging": {}},
                    "serverInfo": {"name": "hostile", "version": "1"},
                },
                marker,
            )
        elif method == "ping":
            self.finish(rid, {}, marker)
        elif method == "tools/list":
            tool = {"name": "trick", "inputSchema": {"type": "object"}}
            self.finish(rid, {"tools": [tool]}, marker)
        elif method == "tools/call":
            arguments = params.get("arguments") if isinstance(params.get("arguments"), dict) else {}
            for step in arguments.get("plan") or []:
                self.at(step.get("at_ms", 0), lambda step=step: self.trick(k, marker, step))
            finish = arguments.get("finish", "answer")
            self.at(arguments.get("finish_ms", 0), lambda: self.end(k, rid, marker, finish))
        else:
            self.send(
                {"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "Method not found"}},
                {"kind": "answer", "id": rid, "marker": None, "pick": "own", "huge": False, "nonce": None},
            )
            self.settle(k)

    def settle(self, k: str) -> None:
        with self.lock:
            if k in self.inflight:
                self.inflight.remove(k)
            self.answered.append(k)

    def finish(self, rid: Any, result: dict[str, Any], marker: str | None) -> None:
        nonce = self.nonce()
        result = {**result, "_meta": {"x-hostile/marker": marker, "x-hostile/nonce": nonce}}
        self.send(
            {"jsonrpc": "2.0", "id": rid, "result": result},
            {"kind": "answer", "id": rid, "marker": marker, "pick": "own", "huge": False, "nonce": nonce},
        )
        self.settle(key(rid))

    def end(self, k: str, rid: Any, marker: str | None, how: str) -> None:
        with self.lock:
            cancelled = k in self.cancelled
        if cancelled:
            self.log({"ev": "not-finished", "id": rid, "marker": marker, "why": "cancelled"})
            self.settle(k)
            return
        if how == "drop":
            self.log({"ev": "not-finished", "id": rid, "marker": marker, "why": "drop"})
            self.settle(k)
            return
        if how == "error":
            nonce = self.nonce()
            self.send(
                {
                    "jsonrpc": "2.0",
                    "id": rid,
                    "error": {
                        "code": -32010,
                        "message": f"trick failed for {marker}",
                        "data": {"marker": marker, "nonce": nonce},
                    },
                },
                {
                    "kind": "answer",
                    "id": rid,
                    "marker": marker,
                    "pick": "own",
                    "huge": False,
                    "nonce": nonce,
                    "error": True,
                },
            )
            self.settle(k)
            return
        self.answer(rid, marker, "own", huge=how == "huge")
        self.settle(k)

    def answer(self, rid: Any, marker: str | None, pick: str, huge: bool = False) -> None:
        nonce = self.nonce()
        result = {
            "content": [{"type": "text", "text": f"{marker} {nonce}"}],
            "structuredContent": {"marker": marker, "nonce": nonce},
            "isError": False,
            "resultType": "complete",
        }
        self.send(
            {"jsonrpc": "2.0", "id": rid, "result": result},
            {"kind": "answer", "id": rid, "marker": marker, "pick": pick, "huge": huge, "nonce": nonce},
            pad=self.huge_bytes if huge else 0,
        )

    # ── the tricks ──

    def pick(self, among: list[str], exclude: str) -> dict[str, Any] | None:
        with self.lock:
            choices = [k for k in among if k != exclude and k in self.requests]
            return self.requests[self.rng.choice(choices)] if choices else None

    def trick(self, k: str, marker: str | None, step: dict[str, Any]) -> None:
        do = step.get("do")
        with self.lock:
            mine = self.requests.get(k, {})
        if do == "progress":
            self.progress(mine, marker, step)
        elif do == "answer":
            how = step.get("id")
            target: Any = None
            owner_marker = marker
            if how == "near":
                target = near(mine.get("id"), step.get("k", 1))
            elif how == "literal":
                target = step.get("value")
            elif how in ("foreign", "answered"):
                got = self.pick(self.inflight if how == "foreign" else self.answered, k)
                if got is None:
                    return
                target, owner_marker = got["id"], got["marker"]
            if target is None:
                return
            self.answer(target, owner_marker, how, huge=bool(step.get("huge")))
        elif do == "request":
            self.server_request(step.get("method", "elicitation/create"), marker, pad=0)
        elif do == "notify":
            self.notify(step.get("method", "notifications/message"), marker, step.get("bytes", 0))
        elif do == "flood":
            n, size = step.get("n", 100), step.get("bytes", 65536)
            for i in range(n):
                if step.get("to") == "own" and mine.get("token") is not None:
                    self.progress(mine, marker, {"token": "own"}, pad=size, i=i)
                else:
                    self.notify("notifications/message", marker, size, flood=True)
        elif do == "huge":
            if step.get("kind") == "request":
                self.server_request("roots/list", marker, pad=self.huge_bytes)
            else:
                self.notify("notifications/message", marker, self.huge_bytes)

    def progress(
        self, mine: dict[str, Any], marker: str | None, step: dict[str, Any], pad: int = 0, i: int = 0
    ) -> None:
        how = step.get("token")
        token: Any = None
        owner_marker = marker
        if how == "own":
            token = mine.get("token")
        elif how == "near":
            base = mine.get("token") if mine.get("token") is not None else mine.get("id")
            token = near(base, step.get("k", 1))
        elif how == "literal":
            token = step.get("value")
        elif how == "invented":
            token = f"tok-{self.rng.getrandbits(32):08x}"
        elif how in ("foreign", "finished"):
            with self.lock:
                pool = [
                    t
                    for t, owner in self.tokens.items()
                    if (owner in self.inflight) == (how == "foreign") and owner != key(mine.get("id"))
                ]
                chosen = self.rng.choice(pool) if pool else None
                owner = self.requests[self.tokens[chosen]] if chosen else None
            if owner is None:
                return
            token, owner_marker = owner["token"], owner["marker"]
        if token is None:
            return
        params = {"progressToken": token, "progress": i + 1, "total": 1000, "message": f"{owner_marker}"}
        self.send(
            {"jsonrpc": "2.0", "method": "notifications/progress", "params": params},
            {"kind": "progress", "token": token, "marker": owner_marker, "pick": how, "huge": pad >= self.huge_bytes},
            pad=pad,
        )

    def server_request(self, method: str, marker: str | None, pad: int) -> None:
        sid = next(self.srq_ids)
        tag = f"srq{os.getpid()}-{sid}"
        if method == "sampling/createMessage":
            params: dict[str, Any] = {
                "messages": [{"role": "user", "content": {"type": "text", "text": f"{marker} {tag}"}}],
                "maxTokens": 16,
            }
        elif method == "roots/list":
            params = {}
        else:
            params = {
                "mode": "form",
                "message": f"{marker} {tag}",
                "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}},
            }
        params["_meta"] = {"x-hostile/marker": marker, "x-hostile/tag": tag}
        with self.lock:
            self.srqs[key(sid)] = {"tag": tag, "marker": marker, "method": method}
        self.send(
            {"jsonrpc": "2.0", "id": sid, "method": method, "params": params},
            {"kind": "srq", "id": sid, "tag": tag, "marker": marker, "method": method, "huge": pad > 0},
            pad=pad,
        )

    def notify(self, method: str, marker: str | None, pad: int, flood: bool = False) -> None:
        if method == "notifications/resources/updated":
            params: dict[str, Any] = {"uri": f"mem://{marker}"}
        else:
            params = {"level": "info", "logger": "hostile", "data": {"marker": marker}}
        self.send(
            {"jsonrpc": "2.0", "method": method, "params": params},
            {"kind": "notify", "method": method, "marker": marker, "huge": pad >= self.huge_bytes, "flood": flood},
            pad=pad,
        )

    def response(self, message: dict[str, Any], line: str) -> None:
        k = key(message.get("id"))
        with self.lock:
            srq = self.srqs.get(k)
        markers = sorted(set(MARKER.findall(line)))
        if srq is None:
            self.log({"ev": "stray-response", "id": message.get("id"), "markers": markers})
            return
        self.log(
            {
                "ev": "srq-response",
                "id": message.get("id"),
                "tag": srq["tag"],
                "for": srq["marker"],
                "markers": markers,
                "error": "error" in message,
            }
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--log", required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--huge-bytes", type=int, default=1 << 20)
    args = parser.parse_args()
    server = Server(Log(args.log), random.Random(args.seed), args.huge_bytes)
    for raw in sys.stdin.buffer:
        if raw.strip():
            server.handle_line(raw)
    server.log({"ev": "eof"})
    server.out.put(None)
    server.writer.join(timeout=1)
    os._exit(0)


if __name__ == "__main__":
    main()
