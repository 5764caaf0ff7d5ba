"""The isolation model: N hostile HTTP clients in both protocol eras against `guard --listen` in front of a
hostile stdio server (`servers/hostile_server.py`), with random interleavings and colliding ids, and the checks
that nothing one client sent or was sent reaches another (issue 34).

    python isolation_model.py [--family F] [--seed N] [--iterations K] [--seconds S] [--keep DIR] [-v]

Used by `test_isolation_model.py` (one seeded run per family, seconds each) and by `scripts/fuzz.sh isolation`
(the `mixed` family, seed after seed, for as long as it is given). Exit status 1 when any run found a violation;
each is printed with the seed that reproduces it (`--seed N --family F`; timing varies, the plan does not).

The model. Every client request carries a marker unique to it (`mk.c<client>.r<n>`); every client numbers its
requests 1, 2, 3... (ids collide across clients, as the SDKs' do) and uses its request id as its progress token.
The server embeds, in everything it writes, the marker of the request it attributes the message to (the owner
of an id or token it was given; the request it is serving for ids and tokens it made up, its own requests to the
client and its unsolicited notifications: see the server's docstring). Then:

- `cross-client`: no client receives a message carrying another client's marker (answers, progress, the server's
  requests and notifications, on any stream);
- `cross-request`: on a request's response stream, the answer and the progress carry that request's marker and
  progress token only;
- `exactly-once`: every request owed an answer gets exactly one, on its own response, with its own id (the empty
  body: 400 at once);
- `answer-mismatch`: a request the server answered (the first line it had ready with the request's upstream id,
  once it had read the request, carries its marker) gets that answer, not the guard's error, unless the line was
  ready only near the guard's deadline; one the server did not answer, or answered with a line over the limit,
  gets the guard's error; a line with its id that the server wrote for another request is a violation;
- `repeated-members`: the server never reads a message with a repeated member, and such a request is answered
  -32600 by the guard, with its id;
- `foreign-response`: the server only gets answers to its requests from a client the request was delivered to,
  at most one per request;
- `server-request-unanswered`: a request the shared (stateless) child wrote that no client was asked gets an
  answer (the guard's error) by the end of the run; one over the line limit is refused to the server;
- `foreign-cancel`: the server gets a cancellation only for a request its own client cancelled or abandoned, or
  the guard answered without it (timeout, a stream it closed);
- `forwarded-twice`: no request reaches the server twice.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import shutil
import signal
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "clients"))
sys.path.insert(0, str(HERE))

from harness import HANG, PY, Guard, wait_gone  # noqa: E402
from raw_http import Exchange, exchange  # noqa: E402

HOSTILE_SERVER = HERE / "servers" / "hostile_server.py"
MODERN = "2026-07-28"
LEGACY = "2025-11-25"
MARKER = re.compile(r"mk\.c(\d+)\.r(\d+)")
# The guard's --timeout (a request the server drops is answered by then), and how long a client waits for an
# answer it is owed before it counts as never answered.
GUARD_TIMEOUT = 4.0
CLIENT_WAIT = GUARD_TIMEOUT + 6.0
# Lines over this are the server's "huge lines" (--max-upstream-bytes).
MAX_UPSTREAM_BYTES = 1 << 20
HUGE_BYTES = MAX_UPSTREAM_BYTES + 4096

FAMILIES = ["honest", "routing", "server-requests", "repeated-members", "floods", "stall", "answers", "mixed"]


def key(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return json.dumps(value, sort_keys=True)


def markers_in(text: str) -> set[str]:
    return {m.group(0) for m in MARKER.finditer(text)}


def client_of(marker: str) -> int:
    m = MARKER.fullmatch(marker)
    assert m, marker
    return int(m.group(1))


def is_final(message: Any) -> bool:
    return isinstance(message, dict) and "method" not in message and ("result" in message or "error" in message)


# ── what the clients send ──


@dataclass
class Sent:
    """One HTTP exchange a client made, and what it expects of it."""

    client: int
    era: str  # "modern" | "legacy"
    n: int
    kind: str
    id: Any = None
    marker: str | None = None
    token: Any = None
    # An answer is owed on this exchange's response (exactly one, with `id`).
    owed: bool = False
    # The guard must refuse it itself with this JSON-RPC code (it never reaches the server).
    refused_with: int | None = None
    # The client gave up on it on purpose (closed it, or did not read it): only the markers are checked.
    loose: bool = False
    # The client asked the server to stop it (`notifications/cancelled`): any outcome.
    cancelled: bool = False
    expect_status: int | None = None
    finish: str | None = None
    ex: Exchange | None = None
    method: str = "POST"


@dataclass
class ClientState:
    number: int
    era: str
    rng: random.Random
    sent: list[Sent] = field(default_factory=list)
    next_n: int = 0
    session: str | None = None
    # Tags of the server's requests this client received (on any stream), and the ids it was given them with.
    got_srqs: dict[str, Any] = field(default_factory=dict)
    inflight: dict[str, Sent] = field(default_factory=dict)

    def marker(self) -> tuple[int, str]:
        self.next_n += 1
        return self.next_n, f"mk.c{self.number}.r{self.next_n}"

    @property
    def markers(self) -> set[str]:
        return {s.marker for s in self.sent if s.marker}


@dataclass
class Family:
    modern: int
    legacy: int
    requests: int
    # Client behaviours (weights) besides a plain call.
    behaviours: Mapping[str, float]
    # Server actions (weights) a call's plan draws from, and how many per call.
    actions: Mapping[str, float]
    per_call: tuple[int, int]
    finishes: Mapping[str, float]
    # Legacy clients end with a request the server drops, then stay quiet.
    quiet_drop: bool = False
    # One request early in the run floods the shared child's stream 0; one client stalls its response.
    flood: bool = False
    stall: bool = False


ROUTING = {
    "progress-own": 3,
    "progress-near": 2,
    "progress-foreign": 1,
    "progress-finished": 1,
    "progress-invented": 1,
    "progress-literal": 1,
    "answer-near": 2,
    "answer-foreign": 1,
    "answer-answered": 1,
    "answer-literal": 1,
}
SRQS = {"request-elicitation": 2, "request-sampling": 1, "request-roots": 1, "notify-message": 1, "notify-updated": 1}
HUGE = {"huge-notification": 1, "huge-request": 1, "answer-near-huge": 1, "notify-big": 2, "progress-own": 1}

FAMILY = {
    # No attack at all: honest calls with their own progress, results and errors, and log notifications. The
    # model's control: it must hold for this on any guard that serves MCP at all (it does on 4a9143b).
    "honest": Family(6, 3, 8, {"call": 1}, {"progress-own": 3, "notify-message": 1}, (0, 3), {"answer": 4, "error": 1}),
    "routing": Family(
        6,
        3,
        8,
        {"call": 6, "reuse-id": 1, "cancel-guess": 1, "cancel-own": 1, "abandon": 1},
        ROUTING,
        (1, 4),
        {"answer": 8, "error": 2},
    ),
    "server-requests": Family(5, 3, 6, {"call": 6, "respond-guess": 3}, SRQS, (1, 3), {"answer": 1}),
    "repeated-members": Family(
        4,
        2,
        6,
        {"call": 3, "dup-name": 1, "dup-arguments": 1, "dup-meta": 1, "dup-token": 1},
        {"progress-own": 1},
        (1, 2),
        {"answer": 1},
    ),
    "floods": Family(4, 2, 6, {"call": 1}, HUGE, (0, 2), {"answer": 6, "huge": 1}, flood=True),
    "stall": Family(4, 1, 6, {"call": 1}, {"progress-own": 1}, (0, 2), {"answer": 1}, stall=True),
    "answers": Family(
        4,
        3,
        4,
        {"call": 4, "null-id": 1, "empty-body": 1, "blank-body": 1},
        {"progress-own": 1},
        (0, 1),
        {"answer": 4, "drop": 1},
        quiet_drop=True,
    ),
    "mixed": Family(
        6,
        3,
        8,
        {
            "call": 8,
            "reuse-id": 1,
            "cancel-guess": 1,
            "cancel-own": 1,
            "abandon": 1,
            "respond-guess": 2,
            "dup-name": 0.5,
            "dup-arguments": 0.5,
            "dup-meta": 0.5,
            "dup-token": 0.5,
            "null-id": 0.5,
            "empty-body": 0.5,
        },
        {**ROUTING, **SRQS, "huge-notification": 0.5, "answer-near-huge": 0.5, "notify-big": 0.5},
        (0, 4),
        {"answer": 8, "error": 1, "drop": 1},
        quiet_drop=True,
    ),
}


def pick(rng: random.Random, weights: Mapping[str, float]) -> str:
    names = [n for n, w in weights.items() if w > 0]
    return rng.choices(names, [weights[n] for n in names])[0]


def action(rng: random.Random, name: str, at_ms: int) -> dict[str, Any]:
    k = rng.choice([-2, -1, 1, 2, 3])
    table: dict[str, dict[str, Any]] = {
        "progress-own": {"do": "progress", "token": "own"},
        "progress-near": {"do": "progress", "token": "near", "k": k},
        "progress-foreign": {"do": "progress", "token": "foreign"},
        "progress-finished": {"do": "progress", "token": "finished"},
        "progress-invented": {"do": "progress", "token": "invented"},
        "progress-literal": {"do": "progress", "token": "literal", "value": rng.randint(1, 12)},
        "answer-near": {"do": "answer", "id": "near", "k": k},
        "answer-foreign": {"do": "answer", "id": "foreign"},
        "answer-answered": {"do": "answer", "id": "answered"},
        "answer-literal": {"do": "answer", "id": "literal", "value": rng.randint(1, 12)},
        "answer-near-huge": {"do": "answer", "id": "near", "k": k, "huge": True},
        "request-elicitation": {"do": "request", "method": "elicitation/create"},
        "request-sampling": {"do": "request", "method": "sampling/createMessage"},
        "request-roots": {"do": "request", "method": "roots/list"},
        "notify-message": {"do": "notify", "method": "notifications/message"},
        "notify-updated": {"do": "notify", "method": "notifications/resources/updated"},
        "notify-big": {"do": "notify", "method": "notifications/message", "bytes": 200_000},
        "huge-notification": {"do": "huge", "kind": "notification"},
        "huge-request": {"do": "huge", "kind": "request"},
    }
    return {"at_ms": at_ms, **table[name]}


def plan(rng: random.Random, family: Family) -> dict[str, Any]:
    finish_ms = rng.randint(40, 700)
    steps = [
        action(rng, pick(rng, family.actions), rng.randint(0, finish_ms)) for _ in range(rng.randint(*family.per_call))
    ]
    return {
        "plan": sorted(steps, key=lambda s: s["at_ms"]),
        "finish": pick(rng, family.finishes),
        "finish_ms": finish_ms,
    }


# ── a run ──


class Run:
    def __init__(self, seed: int, family_name: str, workdir: Path, verbose: bool = False) -> None:
        self.seed = seed
        self.family_name = family_name
        self.family = FAMILY[family_name]
        self.workdir = workdir
        self.verbose = verbose
        self.rng = random.Random(seed)
        self.clients: list[ClientState] = []
        self.host = "127.0.0.1"
        self.port = 0
        self.guard: Guard | None = None
        self.violations: list[tuple[str, str]] = []
        # Answers to the server's requests, sent as they come (kept referenced until done).
        self.background: set[asyncio.Future[None]] = set()
        self.started = time.monotonic()

    def say(self, text: str) -> None:
        if self.verbose:
            print(f"[{time.monotonic() - self.started:6.2f}] {text}", file=sys.stderr)

    # ── the guard ──

    def start_guard(self) -> None:
        logs = self.workdir / "server-logs"
        logs.mkdir(parents=True, exist_ok=True)
        args = [
            "--listen",
            "127.0.0.1:0",
            "--timeout",
            str(GUARD_TIMEOUT),
            "--max-upstream-bytes",
            str(MAX_UPSTREAM_BYTES),
            "--max-sessions",
            "64",
            "--log-level",
            "debug",
        ]
        upstream = [
            PY,
            str(HOSTILE_SERVER),
            "--log",
            str(logs),
            "--seed",
            str(self.seed),
            "--huge-bytes",
            str(HUGE_BYTES),
        ]
        self.guard = Guard(args, upstream)
        try:
            addr = self.guard.wait_event("listening")["addr"]
        except BaseException:
            self.guard.kill()
            raise
        self.host, port = addr.rsplit(":", 1)
        self.port = int(port)

    async def wait_ready(self) -> None:
        deadline = time.monotonic() + HANG
        while time.monotonic() < deadline:
            ex = await exchange(self.host, self.port, "GET", "/readyz", {}, timeout=2)
            if ex.status == 200:
                return
            await asyncio.sleep(0.05)
        raise AssertionError("the guard never became ready")

    def stop_guard(self) -> None:
        assert self.guard is not None
        pids = [int(e["pid"]) for e in self.guard.events("started")]
        self.guard.proc.send_signal(signal.SIGTERM)
        try:
            self.guard.proc.wait(timeout=15)
        except Exception:  # noqa: BLE001 - a guard that does not drain is killed; the model checks go on
            self.guard.kill()
        wait_gone(pids, timeout=5)
        self.guard.kill()

    # ── HTTP ──

    async def post(self, c: ClientState, s: Sent, body: bytes, headers: dict[str, str], **kw: Any) -> Exchange:
        c.sent.append(s)
        base = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if c.era == "legacy" and c.session:
            base["Mcp-Session-Id"] = c.session
            base["MCP-Protocol-Version"] = LEGACY
        on_message = kw.pop("on_message", None) or (lambda m, raw, c=c: self.seen(c, m, raw))
        s.ex = await exchange(
            self.host,
            self.port,
            s.method,
            "/mcp",
            {**base, **headers},
            body,
            timeout=kw.pop("timeout", CLIENT_WAIT),
            on_message=on_message,
            **kw,
        )
        if s.ex.headers.get("content-type", "").startswith("application/json"):
            for m, raw in zip(s.ex.messages, s.ex.raw, strict=True):
                await self.seen(c, m, raw)
        self.say(f"c{c.number} {s.kind} id={s.id} {s.marker} -> {s.ex.status} {s.ex.ended} {len(s.ex.messages)} msgs")
        return s.ex

    async def seen(self, c: ClientState, message: Any, raw: str) -> None:
        """A message a client received: a request of the server's is recorded, and (mostly) answered."""
        if not (isinstance(message, dict) and "method" in message and "id" in message):
            return
        tag = ((message.get("params") or {}).get("_meta") or {}).get("x-hostile/tag")
        if tag:
            c.got_srqs[tag] = message["id"]
        # A session's client leaves some unanswered (the server waits: its business). A stateless client that is
        # asked anything answers, so that a question nobody answers is one nobody was asked.
        if c.era == "modern" or c.rng.random() < 0.8:
            task = asyncio.ensure_future(self.respond(c, message["id"], "respond"))
            self.background.add(task)
            task.add_done_callback(self.background.discard)

    async def respond(self, c: ClientState, srq_id: Any, kind: str) -> None:
        n, marker = c.marker()
        s = Sent(c.number, c.era, n, kind, id=srq_id, marker=marker)
        body = {
            "jsonrpc": "2.0",
            "id": srq_id,
            "result": {"action": "accept", "content": {"ok": True, "marker": marker}},
        }
        headers = {"MCP-Protocol-Version": MODERN} if c.era == "modern" else {}
        await self.post(c, s, json.dumps(body).encode(), headers, timeout=5)

    # ── requests ──

    def call_body(
        self, c: ClientState, rid: Any, marker: str, token: Any, p: dict[str, Any], kind: str
    ) -> tuple[bytes, dict[str, str]]:
        """A `tools/call` of `trick`, as raw JSON text (the repeated-member kinds repeat a member)."""
        meta: dict[str, Any] = {"progressToken": token}
        if c.era == "modern":
            meta = {
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": {},
                "progressToken": token,
            }
        arguments = {"marker": marker, **p}
        j = lambda v: json.dumps(v, separators=(",", ":"))  # noqa: E731
        guess = c.rng.randint(1, 12)
        name = '"name":"trick"'
        args_text = f'"arguments":{j(arguments)}'
        meta_text = f'"_meta":{j(meta)}'
        if kind == "dup-name":
            # The guard (and its policy, and the Mcp-Name check) reads the first; the server runs the last.
            name = '"name":"echo","name":"trick"'
        elif kind == "dup-arguments":
            args_text = f'"arguments":{j({"marker": marker, "finish": "answer"})},{args_text}'
        elif kind == "dup-meta":
            meta_text = f'{meta_text},"_meta":{j({**meta, "progressToken": guess})}'
        elif kind == "dup-token":
            meta_text = meta_text[:-1] + f',"progressToken":{guess}}}'
        id_text = "null" if kind == "null-id" else j(rid)
        body = f'{{"jsonrpc":"2.0","id":{id_text},"method":"tools/call","params":{{{name},{args_text},{meta_text}}}}}'
        headers = (
            {
                "MCP-Protocol-Version": MODERN,
                "Mcp-Method": "tools/call",
                "Mcp-Name": "echo" if kind == "dup-name" else "trick",
            }
            if c.era == "modern"
            else {}
        )
        return body.encode(), headers

    async def request(self, c: ClientState, kind: str, rid: Any, p: dict[str, Any] | None = None) -> None:
        n, marker = c.marker()
        p = p or plan(c.rng, self.family)
        s = Sent(c.number, c.era, n, kind, id=rid, marker=marker, token=rid, owed=True, finish=p["finish"])
        if kind.startswith("dup-"):
            s.refused_with = -32600
        if kind == "null-id":
            s.id, s.refused_with = None, -32600
        abandon = None
        stall = 0.0
        if kind == "abandon":
            p = {**p, "finish": "answer", "finish_ms": 900}
            abandon, s.loose, s.owed = 0.25, True, False
        if kind == "stall":
            # Its own progress, 26 MB of it, while it reads nothing for 4 s.
            p = {
                "plan": [{"at_ms": 0, "do": "flood", "to": "own", "n": 400, "bytes": 65536}],
                "finish": "answer",
                "finish_ms": 50,
            }
            stall, s.loose, s.owed = 4.0, True, False
        s.finish = p["finish"]
        body, headers = self.call_body(c, rid, marker, rid, p, kind)
        c.inflight[marker] = s
        try:
            await self.post(c, s, body, headers, abandon_after=abandon, stall=stall)
        finally:
            c.inflight.pop(marker, None)

    async def envelope(self, c: ClientState, kind: str) -> None:
        """A POST the front must answer itself (an empty or blank body): 400 at once."""
        n, _ = c.marker()
        s = Sent(c.number, c.era, n, kind, expect_status=400)
        headers = {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call"} if c.era == "modern" else {}
        await self.post(c, s, b"" if kind == "empty-body" else b" \r\n\t ", headers, timeout=CLIENT_WAIT)

    async def cancel(self, c: ClientState, own: bool) -> None:
        n, marker = c.marker()
        target: Any = c.rng.randint(1, 12)
        if own and c.inflight:
            victim = c.inflight[c.rng.choice(sorted(c.inflight))]
            target = victim.id
            # A session's client may stop a request it sent; a stateless client cancels by closing its request's
            # stream, so its notification is dropped and the request is still owed its answer.
            victim.cancelled = c.era == "legacy"
        s = Sent(c.number, c.era, n, "cancel-own" if own else "cancel-guess", id=target, marker=marker)
        params: dict[str, Any] = {"requestId": target, "reason": marker}
        headers = {}
        if c.era == "modern":
            params["_meta"] = {
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": {},
            }
            headers = {"MCP-Protocol-Version": MODERN, "Mcp-Method": "notifications/cancelled"}
        body = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params}
        await self.post(c, s, json.dumps(body).encode(), headers, timeout=5)

    # ── clients ──

    async def modern_client(self, c: ClientState) -> None:
        tasks = []
        first_flood = self.family.flood and c.number == 1
        first_stall = self.family.stall and c.number == 2
        for i in range(1, self.family.requests + 1):
            kind = pick(c.rng, self.family.behaviours)
            if i == 1 and first_flood:
                # Early in the run: a few hundred large notifications nobody can receive, on the shared child.
                p = {
                    "plan": [{"at_ms": 0, "do": "flood", "to": "stream0", "n": 300, "bytes": 65536}],
                    "finish": "answer",
                    "finish_ms": 100,
                }
                tasks.append(asyncio.ensure_future(self.request(c, "call", i, p)))
            elif i == 1 and first_stall:
                tasks.append(asyncio.ensure_future(self.request(c, "stall", i)))
            else:
                tasks.append(asyncio.ensure_future(self.act(c, kind, i)))
            await asyncio.sleep(c.rng.uniform(0, 0.25))
        await asyncio.gather(*tasks)

    async def act(self, c: ClientState, kind: str, i: int) -> None:
        if kind in ("call", "abandon") or kind.startswith("dup-") or kind == "null-id":
            await self.request(c, kind, i)
        elif kind == "reuse-id":
            # An id this client has in flight already (the ids of different clients collide anyway).
            rid = c.rng.choice([s.id for s in c.inflight.values()]) if c.inflight else 1
            await self.request(c, kind, rid)
        elif kind in ("cancel-guess", "cancel-own"):
            await self.cancel(c, own=kind == "cancel-own")
        elif kind == "respond-guess":
            await self.respond(c, c.rng.randint(1, 8), "respond-guess")
        elif kind in ("empty-body", "blank-body"):
            await self.envelope(c, kind)
        else:
            raise AssertionError(kind)

    async def legacy_client(self, c: ClientState) -> None:
        n, marker = c.marker()
        init = {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": LEGACY,
                "capabilities": {"elicitation": {}, "sampling": {}, "roots": {}},
                "clientInfo": {"name": marker, "version": "1"},
            },
        }
        s = Sent(c.number, c.era, n, "initialize", id=0, marker=marker, owed=True)
        ex = await self.post(c, s, json.dumps(init).encode(), {})
        c.session = ex.headers.get("mcp-session-id")
        if not c.session:
            return
        n, marker = c.marker()
        await self.post(
            c,
            Sent(c.number, c.era, n, "initialized", marker=marker),
            b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
            {},
            timeout=5,
        )
        n, marker = c.marker()
        get = Sent(c.number, c.era, n, "get-stream", marker=marker, method="GET", loose=True)
        c.sent.append(get)
        stream = asyncio.ensure_future(
            exchange(
                self.host,
                self.port,
                "GET",
                "/mcp",
                {"Accept": "text/event-stream", "Mcp-Session-Id": c.session, "MCP-Protocol-Version": LEGACY},
                timeout=60,
                on_message=lambda m, raw: self.seen(c, m, raw),
            )
        )
        tasks = []
        for i in range(1, self.family.requests + 1):
            tasks.append(asyncio.ensure_future(self.act(c, pick(c.rng, self.family.behaviours), i)))
            await asyncio.sleep(c.rng.uniform(0, 0.25))
        await asyncio.gather(*tasks)
        if self.family.quiet_drop:
            # The last request: the server drops it and then stays quiet. The guard's deadline must fire anyway.
            p = {"plan": [], "finish": "drop", "finish_ms": 10}
            await self.request(c, "call", self.family.requests + 1, p)
        await asyncio.sleep(0.3)
        n, marker = c.marker()
        await self.post(c, Sent(c.number, c.era, n, "delete", marker=marker, method="DELETE"), b"", {}, timeout=5)
        try:
            get.ex = await asyncio.wait_for(stream, 5)
        except TimeoutError:
            stream.cancel()

    async def run_clients(self) -> None:
        number = 0
        runs = []
        for era, count in (("modern", self.family.modern), ("legacy", self.family.legacy)):
            for _ in range(count):
                number += 1
                c = ClientState(number, era, random.Random(self.rng.getrandbits(64)))
                self.clients.append(c)
                runs.append(self.modern_client(c) if era == "modern" else self.legacy_client(c))
        await asyncio.gather(*runs)

    async def main(self) -> None:
        self.start_guard()
        try:
            await self.wait_ready()
            await self.run_clients()
            # The guard's answers to the server's requests on the shared child, and its cancellations, land.
            await asyncio.sleep(0.7)
        finally:
            self.stop_guard()

    def run(self) -> list[tuple[str, str]]:
        asyncio.run(self.main())
        self.check()
        return self.violations

    # ── the checks ──

    def flag(self, cls: str, text: str) -> None:
        self.violations.append((cls, text))

    def server_records(self) -> list[dict[str, Any]]:
        records = []
        for f in sorted((self.workdir / "server-logs").glob("server-*.jsonl")):
            for line in f.read_text().splitlines():
                try:
                    records.append(json.loads(line))
                except ValueError:
                    pass  # a line cut by a kill
        return records

    def check(self) -> None:
        records = self.server_records()
        by_marker: dict[str, list[dict]] = defaultdict(list)
        answers: dict[tuple[int, str], list[dict]] = defaultdict(list)
        self.written = {
            (r["pid"], r.get("nonce")): r["t"] for r in records if r.get("ev") == "wrote" and r.get("nonce")
        }
        shared_pids = {r["pid"] for r in records if r.get("ev") == "request" and r.get("method") == "server/discover"}
        for r in records:
            if r.get("ev") == "request" and r.get("marker"):
                by_marker[r["marker"]].append(r)
            if r.get("ev") == "queued" and r.get("kind") == "answer":
                answers[(r["pid"], key(r["id"]))].append(r)
        owner = {s.marker: (c, s) for c in self.clients for s in c.sent if s.marker}

        # What the server read.
        for r in records:
            if r.get("ev") == "recv" and r.get("dups"):
                self.flag(
                    "repeated-members",
                    f"the server read a message repeating {sorted(set(r['dups']))}: {r['line'][:300]}",
                )
        for m, got in by_marker.items():
            if len(got) > 1:
                self.flag("forwarded-twice", f"request {m} reached the server {len(got)} times")

        # The server's requests: who answered them.
        received_by: dict[str, set[int]] = defaultdict(set)
        for c in self.clients:
            for tag in c.got_srqs:
                received_by[tag].add(c.number)
        responses: dict[str, list[dict]] = defaultdict(list)
        for r in records:
            if r.get("ev") == "srq-response":
                responses[r["tag"]].append(r)
                for m in r.get("markers", []):
                    if client_of(m) not in received_by[r["tag"]]:
                        who = sorted(received_by[r["tag"]]) or "no client"
                        self.flag(
                            "foreign-response",
                            f"client c{client_of(m)} answered the server's request {r['tag']} "
                            f"(raised while serving {r['for']}), which was delivered to {who}",
                        )
        for tag, got in responses.items():
            if len(got) > 1:
                self.flag("foreign-response", f"the server's request {tag} was answered {len(got)} times")
        # Only what the server got out: a guard that stopped reading it is another violation (answer-mismatch).
        for r in records:
            if r.get("ev") != "wrote" or r.get("kind") != "srq" or responses.get(r["tag"]):
                continue
            if r.get("huge"):
                self.flag(
                    "server-request-unanswered",
                    f"the server's {r['method']} {r['tag']} over the line limit was never refused to it",
                )
            elif r["pid"] in shared_pids and not received_by[r["tag"]]:
                self.flag(
                    "server-request-unanswered",
                    f"the shared child's {r['method']} {r['tag']} (raised while serving {r['marker']}) was never "
                    "answered, though no stateless client was asked it",
                )

        # Cancellations the server got.
        for r in records:
            if r.get("ev") == "cancelled" and r.get("marker") in owner:
                c, s = owner[r["marker"]]
                got = self.final(s)
                if not (s.loose or s.cancelled or got is None or self.guards_own(got, s)):
                    self.flag(
                        "foreign-cancel",
                        f"the server got a cancellation of {s.marker} ({s.kind}), which its client "
                        f"neither cancelled nor abandoned and which was answered {json.dumps(got)[:200]}",
                    )

        for c in self.clients:
            self.check_client(c, by_marker, answers)

    def final(self, s: Sent) -> Any:
        finals = [m for m in (s.ex.messages if s.ex else []) if is_final(m)]
        return finals[0] if finals else None

    def guards_own(self, message: Any, s: Sent) -> bool:
        """An answer the guard wrote itself: an error carrying no marker."""
        return "error" in message and not markers_in(json.dumps(message))

    def check_client(
        self, c: ClientState, by_marker: dict[str, list[dict]], answers: dict[tuple[int, str], list[dict]]
    ) -> None:
        mine = c.markers
        for s in c.sent:
            ex = s.ex
            if ex is None:
                continue
            where = f"c{c.number} ({c.era}) {s.kind} id={json.dumps(s.id)} {s.marker or ''}".rstrip()
            for m, raw in zip(ex.messages, ex.raw, strict=True):
                foreign = {x for x in markers_in(raw) if x not in mine}
                if foreign:
                    what = m.get("method") if isinstance(m, dict) and "method" in m else "an answer"
                    self.flag("cross-client", f"{where} received {what} carrying {sorted(foreign)}: {raw[:240]}")
                    continue
                if s.method != "POST" or s.marker is None or s.kind in ("respond", "respond-guess"):
                    continue
                others = markers_in(raw) - {s.marker}
                if isinstance(m, dict) and m.get("method") == "notifications/progress":
                    token = (m.get("params") or {}).get("progressToken")
                    if others or key(token) != key(s.token):
                        self.flag(
                            "cross-request",
                            f"{where} got progress for token {json.dumps(token)} carrying "
                            f"{sorted(markers_in(raw))} on its response: {raw[:200]}",
                        )
                elif is_final(m) and others:
                    self.flag("cross-request", f"{where} got an answer carrying {sorted(others)}: {raw[:200]}")
            if s.expect_status is not None:
                if ex.status != s.expect_status or ex.ended != "done":
                    self.flag(
                        "exactly-once",
                        f"{where}: HTTP {ex.status} ({ex.ended} after {ex.done_at - ex.sent_at:.1f} s), "
                        f"expected {s.expect_status} at once",
                    )
                continue
            if s.loose:
                finals = [m for m in ex.messages if is_final(m)]
                if len(finals) > 1:
                    self.flag("exactly-once", f"{where}: {len(finals)} answers on one response")
                continue
            if not s.owed:
                continue
            self.check_answer(c, s, where, by_marker, answers)

    def check_answer(
        self,
        c: ClientState,
        s: Sent,
        where: str,
        by_marker: dict[str, list[dict]],
        answers: dict[tuple[int, str], list[dict]],
    ) -> None:
        ex = s.ex
        assert ex is not None
        finals = [m for m in ex.messages if is_final(m)]
        if len(finals) != 1:
            self.flag(
                "exactly-once",
                f"{where}: {len(finals)} answers (HTTP {ex.status}, {ex.ended} after "
                f"{ex.done_at - ex.sent_at:.1f} s{', ' + '; '.join(ex.problems) if ex.problems else ''})",
            )
            return
        got = finals[0]
        if key(got.get("id")) != key(s.id):
            self.flag("exactly-once", f"{where}: answered with id {json.dumps(got.get('id'))}: {json.dumps(got)[:200]}")
        at_server = by_marker.get(s.marker or "", [])
        if s.refused_with is not None:
            code = (got.get("error") or {}).get("code")
            if code != s.refused_with or at_server:
                self.flag(
                    "repeated-members" if s.kind.startswith("dup-") else "exactly-once",
                    f"{where}: expected the guard's {s.refused_with}, never forwarded; got "
                    f"{json.dumps(got)[:200]}{' (it reached the server)' if at_server else ''}",
                )
            return
        if s.cancelled:
            return
        if not at_server:
            if not self.guards_own(got, s):
                self.flag("answer-mismatch", f"{where} never reached the server, yet got {json.dumps(got)[:200]}")
            return
        r = at_server[0]
        # What the server wrote with its id once it had the request (a line written with that id before then
        # answered nothing: the guard had not given the id out yet, or gave it to another request).
        written = [w for w in answers.get((r["pid"], key(r["id"])), []) if w["t"] >= r["t"]]
        first = written[0] if written else None
        if first is None:
            if not self.guards_own(got, s):
                self.flag(
                    "answer-mismatch", f"{where}: the server never answered it, yet it got {json.dumps(got)[:200]}"
                )
            return
        if first.get("marker") != s.marker:
            self.flag(
                "answer-mismatch",
                f"{where}: its upstream id {json.dumps(r['id'])} was answered first by a line the server wrote for "
                f"{first.get('marker')} ({first.get('pick')}{', huge' if first.get('huge') else ''}); "
                f"the client got {json.dumps(got)[:160]}",
            )
            return
        # Ready after the guard's deadline had (nearly) passed: the guard's timeout answer is right too. Ready in
        # time but written late means the guard stopped reading the server: its timeout answer is then wrong.
        late = first["t"] - ex.sent_at > GUARD_TIMEOUT - 1.5
        if first.get("huge"):
            if not self.guards_own(got, s):
                self.flag(
                    "answer-mismatch", f"{where}: its answer was over the limit, yet it got {json.dumps(got)[:200]}"
                )
        elif first.get("error"):
            if "error" not in got and not late:
                self.flag(
                    "answer-mismatch", f"{where}: the server answered an error, the client got {json.dumps(got)[:200]}"
                )
        elif first.get("nonce") not in json.dumps(got) and not (late and self.guards_own(got, s)):
            written = self.written.get((first["pid"], first.get("nonce")))
            when = (
                f"written {written - ex.sent_at:.2f} s after" if written else "never written: the guard stopped reading"
            )
            self.flag(
                "answer-mismatch",
                f"{where}: the server answered it ({first.get('nonce')}, ready {first['t'] - ex.sent_at:.2f} s "
                f"after it was sent, {when}) but the client got {json.dumps(got)[:200]}",
            )


def report(seed: int, family: str, violations: list[tuple[str, str]], limit: int = 40) -> str:
    by_class: dict[str, list[str]] = defaultdict(list)
    for cls, text in violations:
        by_class[cls].append(text)
    lines = [
        f"isolation model: family {family}, seed {seed}: {len(violations)} violations "
        f"(reproduce: python tests/guard/isolation_model.py --family {family} --seed {seed})"
    ]
    for cls in sorted(by_class):
        lines.append(f"  {cls}: {len(by_class[cls])}")
        lines += [f"    - {t}" for t in by_class[cls][: max(3, limit // max(1, len(by_class)))]]
    return "\n".join(lines)


def run_once(seed: int, family: str, keep: Path | None = None, verbose: bool = False) -> list[tuple[str, str]]:
    workdir = Path(tempfile.mkdtemp(prefix=f"isolation-{family}-{seed}-", dir=keep))
    try:
        return Run(seed, family, workdir, verbose).run()
    finally:
        if keep is None:
            shutil.rmtree(workdir, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--family", default="mixed", choices=FAMILIES)
    parser.add_argument("--seed", type=int, default=None, help="the first seed (default: from the clock)")
    parser.add_argument("--iterations", type=int, default=1)
    parser.add_argument(
        "--seconds", type=float, default=0, help="run seed after seed for this long (overrides --iterations)"
    )
    parser.add_argument("--keep", type=Path, default=None, help="keep each run's server logs under this folder")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else int(time.time()) % 1_000_000
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    runs = failed = 0
    while True:
        violations = run_once(seed, args.family, args.keep, args.verbose)
        runs += 1
        if violations:
            failed += 1
            print(report(seed, args.family, violations), flush=True)
        else:
            print(f"isolation model: family {args.family}, seed {seed}: ok", flush=True)
        seed += 1
        if args.seconds:
            if time.monotonic() - start >= args.seconds:
                break
        elif runs >= args.iterations:
            break
    print(f"isolation model: {runs} runs, {failed} with violations, {time.monotonic() - start:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
