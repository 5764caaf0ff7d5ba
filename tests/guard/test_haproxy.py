"""Three `jsonrpc-errors guard --listen` replicas behind HAProxy (Debian's haproxy, installed by setup.sh), with
the configuration in examples/guard-http/haproxy.cfg, on loopback.

Under load (stateless requests spread round robin, some in flight for a while), one replica gets SIGTERM:
every request is answered exactly once, with its own id and a result (the draining replica finishes what it
holds; what it refuses before forwarding, HAProxy retries elsewhere), the replica exits 0 and leaves nothing.
Legacy sessions stay pinned to the replica that created them (by Mcp-Session-Id).
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections import Counter
from typing import Any

import pytest

from harness import FAULT_SERVER, HANG, PY, ROOT, wait_gone
from test_http import META, MODERN, Listener

CONFIG = ROOT / "examples" / "guard-http" / "haproxy.cfg"
HAPROXY = shutil.which("haproxy") or "/usr/sbin/haproxy"
LOAD_SECONDS = 4.0
WORKERS = 8

pytestmark = pytest.mark.skipif(not os.path.exists(HAPROXY), reason="haproxy is not installed (tests/guard/setup.sh installs it)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def cluster(tmp_path):
    replicas: list[Listener] = []
    lb = None
    try:
        replicas = [Listener([PY, str(FAULT_SERVER)]) for _ in range(3)]
        port = free_port()
        env = {**os.environ, "LISTEN": f"127.0.0.1:{port}"}
        for i, r in enumerate(replicas, 1):
            r.wait_ready()
            env[f"GUARD_{i}"] = f"127.0.0.1:{r.port}"
        lb = subprocess.Popen([HAPROXY, "-db", "-f", str(CONFIG)], env=env, stdout=open(tmp_path / "haproxy.log", "wb"),
                              stderr=subprocess.STDOUT)
        deadline = time.monotonic() + HANG
        while True:
            try:
                c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
                c.request("GET", "/readyz")
                if c.getresponse().status == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline and lb.poll() is None, (tmp_path / "haproxy.log").read_text()
            time.sleep(0.1)
        # Every replica up in HAProxy's view (rise 2 checks each).
        time.sleep(1.0)
        yield port, replicas
    finally:
        if lb is not None and lb.poll() is None:
            lb.send_signal(signal.SIGTERM)
            lb.wait(timeout=HANG)
        for r in replicas:
            r.kill()


def stateless(conn: http.client.HTTPConnection, id: int, method: str, params: dict) -> tuple[int, dict]:
    body = json.dumps({"jsonrpc": "2.0", "id": id, "method": method, "params": {**params, "_meta": META}})
    conn.request("POST", "/mcp", body=body, headers={
        "content-type": "application/json", "accept": "application/json, text/event-stream",
        "mcp-protocol-version": MODERN, "mcp-method": method, "host": "127.0.0.1"})
    r = conn.getresponse()
    return r.status, json.loads(r.read())


def test_sigterm_of_a_replica_under_load_loses_no_request_and_sessions_stay_pinned(cluster):
    port, replicas = cluster
    # Legacy sessions: opened through the balancer, then pinned.
    sessions = []
    for n in range(3):
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=HANG)
        params = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "lb", "version": "1"}}
        c.request("POST", "/mcp", body=json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}),
                  headers={"content-type": "application/json", "accept": "application/json, text/event-stream"})
        r = c.getresponse()
        r.read()
        assert r.status == 200
        sessions.append(r.getheader("mcp-session-id"))
        c.close()
    for sid in sessions:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=HANG)
        for i in range(10):
            c.request("POST", "/mcp", body=json.dumps({"jsonrpc": "2.0", "id": i, "method": "echo", "params": {"i": i}}),
                      headers={"content-type": "application/json", "accept": "application/json", "mcp-session-id": sid})
            r = c.getresponse()
            assert r.status == 200 and json.loads(r.read())["result"]["echo"] == {"i": i}, "a session was not pinned"
        c.close()
    opened = sum(len(r.events("session-opened")) for r in replicas)
    assert opened == 3 and all(len(r.events("session-opened")) == 1 for r in replicas), "sessions spread round robin"

    # Stateless load; one replica gets SIGTERM in the middle of it.
    results: list[tuple[int, int, Any]] = []
    errors: list[str] = []
    lock = threading.Lock()
    stop_at = time.monotonic() + LOAD_SECONDS

    def worker(w: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=HANG)
        n = 0
        while time.monotonic() < stop_at:
            id = w * 100_000 + n
            n += 1
            method, params = ("late", {"ms": 150}) if n % 4 == 0 else ("echo", {"n": id})
            try:
                status, answer = stateless(conn, id, method, params)
                with lock:
                    results.append((id, status, answer))
            except (OSError, http.client.HTTPException, ValueError) as e:
                with lock:
                    errors.append(f"{id}: {type(e).__name__}: {e}")
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=HANG)
        conn.close()

    threads = [threading.Thread(target=worker, args=(w,)) for w in range(WORKERS)]
    for t in threads:
        t.start()
    time.sleep(LOAD_SECONDS / 3)
    victim = replicas[1]
    pids = victim.upstream_pids()
    victim.proc.send_signal(signal.SIGTERM)
    for t in threads:
        t.join(HANG + LOAD_SECONDS)
    assert errors == [], f"{len(errors)} requests failed: {errors[:5]}"
    assert len(results) > 100, f"only {len(results)} requests in {LOAD_SECONDS} s"
    bad = [(id, status, answer) for id, status, answer in results if status != 200 or answer.get("id") != id or "result" not in answer]
    assert bad == [], bad[:5]
    assert Counter(id for id, _, _ in results).most_common(1)[0][1] == 1, "an answer came twice"
    assert victim.wait() == 0
    assert wait_gone(pids) == []
    served = [sum(1 for e in r.events("http-refused")) for r in replicas]
    print(f"{len(results)} requests, 0 lost; refused-before-forwarding by replica: {served}")
