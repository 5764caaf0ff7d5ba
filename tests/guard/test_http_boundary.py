"""`guard --listen` as a security boundary: the HTTP front, attacked as a client or a server would.

Each test is one class of attack on the front (host/src/proxy/http/), on real sockets (loopback) with a real
guard and a small stdio server that misbehaves on purpose (servers/noisy_server.py, servers/fault_server.py):

- resources: a client that does not read its stream, and messages no stream can receive, never cost another
  client anything; a child that stopped answering is reported by `/readyz` and replaced; metrics labels come
  from bounded sets;
- every request answered exactly once: an empty body, a null id, a repeated `Host` or `Origin`, a body the
  header checks cannot read (each refused at once);
- sessions: an abandoned session gives way to a new client at `--max-sessions`; a session whose child died
  is 404.

docs/http.md ("What the front guarantees") lists the guarantees and the test that holds each.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import threading
import time
from typing import Any

import pytest
from harness import FAULT_SERVER, HANG, HERE, PY, alive, vm_rss_kb, wait_gone
from test_http import META, MODERN, Listener, initialize, messages

NOISY = [PY, str(HERE / "servers" / "noisy_server.py")]


@pytest.fixture
def listener(request):
    made: list[Listener] = []

    def make(upstream: list[str], args: list[str] | None = None, env: dict[str, str] | None = None) -> Listener:
        g = Listener(upstream, args, env)
        made.append(g)
        return g

    yield make
    for g in made:
        g.kill()


def modern_body(id: Any, method: str, params: dict | None = None) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": id, "method": method,
                       "params": {**(params or {}), "_meta": {**META, **(params or {}).get("_meta", {})}}}).encode()


def raw_request(g: Listener, head: str, body: bytes = b"", rcvbuf: int | None = None) -> socket.socket:
    """Sends a request as raw bytes (repeated fields and all) on a fresh connection; returns the socket."""
    s = socket.socket()
    if rcvbuf is not None:
        # Set before connecting: the window the guard may fill before it has to wait for this client.
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.connect((g.host, g.port))
    s.sendall(head.replace("\n", "\r\n").encode() + b"\r\n" + body)
    return s


def response_of(s: socket.socket, timeout: float = 5.0) -> tuple[int, bytes]:
    """The status and the whole rest of a response on `s` (the test's requests close their connection)."""
    s.settimeout(timeout)
    data = b""
    try:
        while chunk := s.recv(65536):
            data += chunk
            if b"\r\n\r\n" in data:
                head, _, rest = data.partition(b"\r\n\r\n")
                length = next((int(l.split(b":", 1)[1]) for l in head.split(b"\r\n") if l.lower().startswith(b"content-length:")), None)
                if length is not None and len(rest) >= length:
                    break
    finally:
        s.close()
    return int(data.split(b" ", 2)[1]), data


def scrape(g: Listener) -> str:
    host, port = g.wait_event("metrics")["addr"].rsplit(":", 1)
    c = http.client.HTTPConnection(host, int(port), timeout=HANG)
    try:
        c.request("GET", "/metrics")
        return c.getresponse().read().decode()
    finally:
        c.close()


def metric(text: str, name: str) -> float:
    """The value of one series (`name` with its labels, as printed), 0 when it is absent."""
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[-1])
    return 0.0


def timed_call(g: Listener, id: Any, method: str = "echo", params: dict | None = None) -> tuple[float, int, Any]:
    started = time.monotonic()
    status, answer = g.call(id, method, params)
    return time.monotonic() - started, status, answer


# ── resources: one slow or noisy client costs no other anything ──

def test_a_client_that_does_not_read_its_stream_costs_no_other_client_anything(listener, tmp_path):
    log = tmp_path / "received.log"
    g = listener([*NOISY, "--log", str(log)], ["--metrics-addr", "127.0.0.1:0"])
    g.wait_ready()
    # A: a tool that streams 40 MB of progress to a client that never reads its response (a tiny window).
    body = modern_body("a", "progress", {"count": 4000, "size": 10_000, "_meta": {"progressToken": "a-token"}})
    head = (f"POST /mcp HTTP/1.1\nHost: 127.0.0.1\nContent-Type: application/json\n"
            f"Accept: application/json, text/event-stream\nMCP-Protocol-Version: {MODERN}\nMcp-Method: progress\n"
            f"Content-Length: {len(body)}\n")
    stalled = raw_request(g, head, body, rcvbuf=4096)
    try:
        time.sleep(1.0)  # the flood is written and relayed meanwhile
        # B, C, D: other clients of the same shared child are answered at once.
        for i in range(3):
            took, status, answer = timed_call(g, f"b{i}", "echo", {"n": i})
            assert status == 200 and answer["result"]["echo"]["n"] == i, answer
            assert took < 5, f"another client waited {took:.1f} s behind one that does not read"
        # A's stream is closed (counted, logged), never the child; its request is cancelled upstream.
        event = g.wait_event("stream-stalled")
        assert "bytes waiting for the client" in event.get("detail", ""), event
        deadline = time.monotonic() + HANG
        while b"notifications/cancelled" not in log.read_bytes():
            assert time.monotonic() < deadline, "the stalled stream's request was never cancelled upstream"
            time.sleep(0.05)
        assert metric(scrape(g), "jsonrpc_errors_guard_streams_stalled_total") >= 1
        assert len(g.upstream_pids()) == 1, "the child was restarted"
        # The guard closed A's connection: what was on its way drains, then the end (no final answer).
        stalled.settimeout(HANG)
        tail = b""
        while chunk := stalled.recv(1 << 20):
            tail = (tail + chunk)[-4096:]
        assert b'"result"' not in tail
    finally:
        stalled.close()
    assert g.stop() == 0


def test_a_reading_client_gets_every_message_and_its_final_answer(listener):
    """The stall bound never cuts a client that reads: 40 MB of progress, then the answer, all delivered."""
    g = listener(NOISY)
    g.wait_ready()
    params = {"count": 4000, "size": 10_000, "_meta": {"progressToken": "t"}}
    status, headers, body = g.post(json.loads(modern_body(1, "progress", params)),
                                   {"mcp-protocol-version": MODERN, "mcp-method": "progress"})
    got = messages(headers, body)
    # The noisy server speaks the handshake era: the session adds what the request's revision requires.
    assert status == 200 and got[-1]["result"] == {"resultType": "complete", "done": 4000}, got[-1]
    assert len(got) == 4001
    assert not g.events("stream-stalled")
    assert g.stop() == 0


def test_messages_no_stream_can_receive_never_wedge_the_shared_child(listener):
    g = listener(NOISY, ["--metrics-addr", "127.0.0.1:0"])
    g.wait_ready()
    # 400 log notifications of 100 KB that belong to no request: the shared child has no stream for them.
    took, status, answer = timed_call(g, 1, "log", {"count": 400, "size": 100_000})
    assert status == 200 and answer["result"] == {"resultType": "complete", "logged": 400}, answer
    for i in range(3):
        took, status, answer = timed_call(g, f"after{i}", "echo")
        assert status == 200 and "result" in answer, answer
        assert took < 5, f"a request waited {took:.1f} s behind messages nobody can receive"
    assert g.get("/readyz")[0] == 200
    # Dropped and counted: by the session, which knows they answer no request on a shared child (a
    # `dropped` event), or by the front, for whatever reaches it that no stream can receive.
    text = scrape(g)
    dropped = metric(text, "jsonrpc_errors_guard_undeliverable_dropped_total") + metric(
        text, 'jsonrpc_errors_guard_events_total{event="dropped"}'
    )
    assert dropped >= 400, dropped
    rss = vm_rss_kb(g.proc.pid)
    assert rss is not None and rss < 200_000, f"VmRSS {rss} kB: undeliverable messages are held"
    assert g.stop() == 0


def test_a_legacy_sessions_backlog_is_bounded_in_bytes(listener):
    g = listener(NOISY, ["--metrics-addr", "127.0.0.1:0"])
    g.wait_ready()
    status, headers, _ = initialize(g)
    sid = headers["mcp-session-id"]
    # No GET stream: 200 notifications of 200 KB (40 MB) wait for one, within the backlog's bytes.
    status, _, body = g.post({"jsonrpc": "2.0", "id": 1, "method": "log", "params": {"count": 200, "size": 200_000}},
                             {"mcp-session-id": sid})
    assert status == 200 and json.loads(body)["result"] == {"logged": 200}, body[:200]
    status, _, body = g.post({"jsonrpc": "2.0", "id": 2, "method": "echo"}, {"mcp-session-id": sid})
    assert status == 200 and "result" in json.loads(body)
    # A GET stream now gets what was kept: at most the backlog's bytes (4 MiB), the rest dropped and counted.
    s = raw_request(g, f"GET /mcp HTTP/1.1\nHost: 127.0.0.1\nAccept: text/event-stream\nMcp-Session-Id: {sid}\n")
    s.settimeout(1.0)
    kept = b""
    try:
        while True:
            chunk = s.recv(1 << 20)
            if not chunk:
                break
            kept += chunk
    except TimeoutError:
        pass
    finally:
        s.close()
    held = kept.count(b"event: message")
    assert 0 < held and len(kept) <= 4 * 1024 * 1024 + 300_000, (held, len(kept))
    assert metric(scrape(g), "jsonrpc_errors_guard_undeliverable_dropped_total") >= 200 - held
    assert g.stop() == 0


def test_a_child_that_stopped_answering_is_reported_and_replaced(listener):
    g = listener([PY, str(FAULT_SERVER)], ["--timeout", "1"])
    g.wait_ready()
    first = g.upstream_pids()[0]
    os.kill(first, signal.SIGSTOP)  # alive, but answers nothing any more
    try:
        status, answer = g.call(1, "echo")
        assert status == 200 and answer["error"]["code"] == -32001, answer  # the request's own timeout
        # Silent past the timeout with a request it did not answer: not ready, and replaced.
        deadline = time.monotonic() + HANG
        while g.get("/readyz")[0] != 503:
            assert time.monotonic() < deadline, "/readyz never reported the child that stopped answering"
            time.sleep(0.05)
        g.wait_event("unresponsive")
        while len(g.upstream_pids()) < 2:
            assert time.monotonic() < deadline, "the child that stopped answering was never replaced"
            time.sleep(0.05)
        g.wait_ready()
        status, answer = g.call(2, "echo", {"x": 2})
        assert status == 200 and answer["result"]["echo"]["x"] == 2, answer
        assert wait_gone([first]) == [], "the old child is still there"
    finally:
        if alive(first):
            os.kill(first, signal.SIGCONT)
    assert g.stop() == 0


def test_metrics_labels_come_from_bounded_sets(listener):
    g = listener([PY, str(FAULT_SERVER)], ["--metrics-addr", "127.0.0.1:0"])
    g.wait_ready()
    for i in range(40):
        s = raw_request(g, f"X{i:02d}{'Y' * 200} /mcp HTTP/1.1\nHost: 127.0.0.1\nContent-Length: 0\n")
        status, _ = response_of(s)
        assert status in (400, 401, 403, 405), status
    text = scrape(g)
    responses = [l for l in text.splitlines() if l.startswith("jsonrpc_errors_guard_http_responses_total{")]
    assert not [l for l in responses if "X0" in l or "YYY" in l], responses
    assert any('method="other"' in l for l in responses), responses
    assert all(len(l) < 200 for l in text.splitlines() if not l.startswith("#")), "a label over its cap"
    assert g.stop() == 0


# ── every request answered exactly once ──

def test_an_empty_body_is_refused_at_once(listener):
    g = listener([PY, str(FAULT_SERVER)], ["--max-streams", "4"])
    g.wait_ready()
    status, headers, _ = initialize(g)
    sid = headers["mcp-session-id"]
    modern = {"mcp-protocol-version": MODERN, "mcp-method": "echo"}
    for body in [b"", b"   ", b"\r\n\t \n"]:
        for headers_ in (modern, {"mcp-session-id": sid}):
            started = time.monotonic()
            c = g.connection(timeout=5)
            try:
                c.request("POST", "/mcp", body=body, headers={"content-type": "application/json",
                                                              "accept": "application/json, text/event-stream", **headers_})
                r = c.getresponse()
                status, answer = r.status, json.loads(r.read())
            finally:
                c.close()
            assert status == 400 and answer["error"]["code"] == -32700, (body, headers_, status, answer)
            assert time.monotonic() - started < 5
    # No stream slot was kept by them (--max-streams 4): requests still go through.
    status, answer = g.call(1, "echo")
    assert status == 200 and "result" in answer
    assert g.stop() == 0


def test_a_stateless_request_with_a_null_id_is_refused(listener, tmp_path):
    log = tmp_path / "received.log"
    g = listener([PY, str(FAULT_SERVER), "--log", str(log)])
    g.wait_ready()
    status, _, body = g.post({"jsonrpc": "2.0", "id": None, "method": "echo", "params": {"_meta": META}},
                                   {"mcp-protocol-version": MODERN, "mcp-method": "echo"})
    assert status == 400, (status, body)
    answer = json.loads(body)
    assert answer["id"] is None and answer["error"]["code"] == -32600, answer
    status, answer = g.call(2, "echo")
    assert status == 200
    assert b'"id":null' not in log.read_bytes().replace(b" ", b"")
    assert g.stop() == 0


def test_repeated_host_and_origin_fields_are_refused(listener):
    g = listener([PY, str(FAULT_SERVER)])
    g.wait_ready()
    body = modern_body(1, "echo")
    common = (f"Content-Type: application/json\nAccept: application/json\nMCP-Protocol-Version: {MODERN}\n"
              f"Mcp-Method: echo\nContent-Length: {len(body)}\nConnection: close\n")
    s = raw_request(g, f"POST /mcp HTTP/1.1\nHost: 127.0.0.1\nHost: evil.example\n{common}", body)
    assert response_of(s)[0] == 400, "two Host fields (RFC 9112: 400)"
    s = raw_request(g, f"POST /mcp HTTP/1.1\nHost: 127.0.0.1\nOrigin: http://localhost\nOrigin: https://evil.example\n{common}", body)
    assert response_of(s)[0] == 403, "a second Origin not allowed"
    s = raw_request(g, f"POST /mcp HTTP/1.1\nHost: 127.0.0.1\nOrigin: http://localhost\n{common}", body)
    assert response_of(s)[0] == 200
    assert g.stop() == 0


def test_the_header_checks_fail_closed(listener, tmp_path):
    log = tmp_path / "received.log"
    g = listener([PY, str(FAULT_SERVER), "--log", str(log)])
    g.wait_ready()
    headers = {"content-type": "application/json", "accept": "application/json",
               "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": "safe"}
    meta = json.dumps(META)
    bodies = {
        # The header names one tool, the server reads the last `name`.
        "repeated name": f'{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"safe","name":"evil","_meta":{meta}}}}}',
        "repeated _meta": f'{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"safe","_meta":{meta},"_meta":{{}}}}}}',
        "escaped repeated name": f'{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"safe","na\\u006de":"evil","_meta":{meta}}}}}',
        "params not an object": '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":["safe"]}',
        "name not a string": f'{{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{{"name":["safe"],"_meta":{meta}}}}}',
        "no name": f'{{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{{"_meta":{meta}}}}}',
        "repeated version": f'{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"safe","_meta":{{"io.modelcontextprotocol/protocolVersion":"{MODERN}","io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}',
    }
    for what, body in bodies.items():
        c = g.connection(timeout=5)
        try:
            c.request("POST", "/mcp", body=body.encode(), headers=headers)
            r = c.getresponse()
            status, answer = r.status, json.loads(r.read())
        finally:
            c.close()
        assert status == 400 and "error" in answer, (what, status, answer)
    received = log.read_bytes() if log.exists() else b""
    assert b"tools/call" not in received, received[:500]
    assert g.stop() == 0


# ── sessions ──

def test_an_abandoned_session_gives_way_at_max_sessions(listener):
    g = listener([PY, str(FAULT_SERVER)], ["--max-sessions", "2", "--metrics-addr", "127.0.0.1:0"])
    g.wait_ready()
    ids = [initialize(g)[1]["mcp-session-id"] for _ in range(2)]
    # Both clients left without DELETE; the first was used last longest ago.
    assert g.post({"jsonrpc": "2.0", "id": 1, "method": "echo"}, {"mcp-session-id": ids[1]})[0] == 200
    status, headers, _ = initialize(g)
    assert status == 200, "a new client refused while abandoned sessions hold every slot"
    g.wait_event("session-closed", message="least recently used")
    assert g.post({"jsonrpc": "2.0", "id": 2, "method": "echo"}, {"mcp-session-id": ids[0]})[0] == 404
    assert g.post({"jsonrpc": "2.0", "id": 3, "method": "echo"}, {"mcp-session-id": ids[1]})[0] == 200
    assert metric(scrape(g), "jsonrpc_errors_guard_sessions_evicted_total") == 1
    # A session with a request open is never the one that goes: both busy, the next client gets 503.
    busy = [ids[1], headers["mcp-session-id"]]
    threads = [threading.Thread(target=g.post, args=({"jsonrpc": "2.0", "id": 9, "method": "late", "params": {"ms": 1500}},
                                                     {"mcp-session-id": sid})) for sid in busy]
    for t in threads:
        t.start()
    time.sleep(0.5)
    assert initialize(g)[0] == 503
    for t in threads:
        t.join(HANG)
    assert g.stop() == 0


def test_a_request_whose_answer_the_server_dropped_is_timed_out(listener):
    """A server that lost one answer and then stays quiet: the deadline fires on its own (a session, stateless)."""
    g = listener(NOISY, ["--timeout", "1"])
    g.wait_ready()
    status, headers, _ = initialize(g)
    sid = headers["mcp-session-id"]
    assert g.post({"jsonrpc": "2.0", "method": "notifications/initialized"}, {"mcp-session-id": sid})[0] == 202
    assert g.post({"jsonrpc": "2.0", "id": 1, "method": "echo"}, {"mcp-session-id": sid})[0] == 200
    for accept in ["application/json, text/event-stream", "application/json"]:
        started = time.monotonic()
        status, h, body = g.post({"jsonrpc": "2.0", "id": 2, "method": "drop"}, {"mcp-session-id": sid, "accept": accept})
        answer = messages(h, body)[-1]
        assert status == 200 and answer["id"] == 2 and answer["error"]["code"] == -32001, answer
        assert time.monotonic() - started < 5
    # The same on the shared child (stateless).
    started = time.monotonic()
    status, answer = g.call(3, "drop")
    assert status == 200 and answer["id"] == 3 and answer["error"]["code"] == -32001, answer
    assert time.monotonic() - started < 5
    assert g.stop() == 0


def test_a_session_whose_child_died_is_not_found(listener):
    g = listener([PY, str(FAULT_SERVER)])
    g.wait_ready()
    status, headers, _ = initialize(g)
    sid = headers["mcp-session-id"]
    child = g.upstream_pids()[-1]
    os.kill(child, signal.SIGKILL)
    g.wait_event("upstream-ended")
    status, _, body = g.post({"jsonrpc": "2.0", "id": 1, "method": "echo"}, {"mcp-session-id": sid})
    assert status == 404, (status, body)
    assert g.stop() == 0
