"""Servers at a URL (`jsonrpc-errors guard --upstream URL`), nobody here wrote them: server-everything in its
Streamable HTTP mode (npm), and a Python SDK 2.x server in the SDK's own streamable-http mode
(examples/guard/misbehaving_server.py --http, on `mcp` 2.3.0's MCPServer). Each is driven by both official SDK
clients three ways, each run on a server of its own:

    direct   driver --url http://SERVER/mcp
    stdio    driver -- [recorded.py] jsonrpc-errors guard --upstream http://SERVER/mcp
    listen   jsonrpc-errors guard --listen 127.0.0.1:0 --upstream http://SERVER/mcp;  driver --url http://GUARD/mcp

and what the client SDK got is compared step by step (test_upstream_peers.py).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness import GUARD, PY, ROOT, parse_log, wait_gone

import peers

MISBEHAVING = ROOT / "examples" / "guard" / "misbehaving_server.py"
HOWS = ["stdio", "listen"]
UPSTREAM_SERVERS = ["everything-http", "python-http"]
# What misbehaving_server.py leaks on purpose (its module doc): none may reach a guarded client.
SECRETS = ["ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8", "hunter2", "sk_live_51HxQ2eZvKYlo2C9x8w7v6u5t4",
           "sk-proj-Zq8xW3vN6mK2pL9rT4yU7iO1aS5dF0gH", "/home/alice"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_steps(fx: peers.Fixtures) -> dict[str, list[dict[str, Any]]]:
    return {
        "everything-http": peers.server_specs(fx)["everything"].steps,
        "python-http": [
            {"step": "list_tools", "op": "list_tools"},
            peers.call("echo", "echo", {"text": "hello"}),
            peers.call("count", "count", {"steps": 3, "delay_ms": 30}, progress=True),
            {"step": "read_info", "op": "read_resource", "uri": "info://server"},
            peers.call("query_orders", "query_orders", {"customer": "acme"}),
            peers.call("charge_card", "charge_card", {"amount": 12.5}),
            peers.call("export_report", "export_report"),
            peers.call("echo_again", "echo", {"text": "still here"}),
        ],
    }


class Upstream:
    """One server at a URL, started for one run."""

    def __init__(self, name: str, d: Path):
        self.port = free_port()
        self.log = open(d / f"{name}.log", "wb")  # noqa: SIM115 - the server's output, open as long as it runs
        if name == "everything-http":
            cmd, ready = [peers.NODE, str(peers.EVERYTHING), "streamableHttp"], "listening on port"
        else:
            cmd, ready = [PY, str(MISBEHAVING), "--http", str(self.port)], "Uvicorn running"
        self.proc = subprocess.Popen(cmd, cwd=d, stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT,
                                     env={**peers.session_env(), "PORT": str(self.port)}, start_new_session=True)
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        deadline = time.monotonic() + 60
        path = Path(self.log.name)
        while ready not in path.read_text(errors="replace") and time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{name} exited: {path.read_text(errors='replace')[-2000:]}")
            time.sleep(0.05)

    def stop(self) -> list[int]:
        pid = self.proc.pid
        try:
            os.killpg(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()
        return wait_gone([pid], timeout=5)


@dataclass
class UpstreamRun:
    key: str
    server: str
    client: str
    how: str  # direct | stdio | listen
    dir: Path
    returncode: int
    stdout: str
    stderr: str
    lines: list[dict[str, Any]]
    events: list[dict[str, Any]]
    bad_log_lines: list[str]
    guard_status: int | None
    leftover: list[int]
    guard_log: str

    @property
    def steps(self) -> dict[str, dict[str, Any]]:
        return {line["step"]: line for line in self.lines}

    def describe(self) -> str:
        via = {"direct": "directly", "stdio": "through guard --upstream (stdio)",
               "listen": "through guard --listen --upstream"}[self.how]
        return f"{self.client} client -> {self.server} {via}"


def run_upstream_session(fx: peers.Fixtures, server: str, client: str, how: str) -> UpstreamRun:
    key = f"upstream-{server}-{client}-{how}"
    d = fx.workdir / "runs" / key
    d.mkdir(parents=True)
    steps = server_steps(fx)[server]
    (d / "steps.json").write_text(json.dumps(steps))
    roots = [a for uri in ([fx.folder.as_uri()] if server == "everything-http" else []) for a in ("--root", uri)]
    driver = [*peers.CLIENTS[client], "--steps", str(d / "steps.json"), *roots]
    up = Upstream(server, d)
    guard = None
    guard_status = None
    log_path = d / "stderr.log"
    returncode, stdout, stderr = -1, "", ""
    try:
        if how == "direct":
            cmd = [*driver, "--url", up.url]
        elif how == "stdio":
            cmd = [*driver, "--", PY, str(peers.RECORDED), str(d), "--", str(GUARD), "guard", "--upstream", up.url]
        else:
            log = open(log_path, "wb")  # noqa: SIM115 - the guard's log, open as long as it runs
            guard = subprocess.Popen([str(GUARD), "guard", "--listen", "127.0.0.1:0", "--upstream", up.url], cwd=d,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log,
                                     env=peers.session_env())
            url = None
            deadline = time.monotonic() + 30
            while url is None and time.monotonic() < deadline and guard.poll() is None:
                for line in log_path.read_text(errors="replace").splitlines():
                    try:
                        event = json.loads(line)
                    except ValueError:
                        continue
                    if event.get("event") == "listening":
                        url = f"http://{event['addr']}/mcp"
                time.sleep(0.05)
            cmd = [*driver, "--url", url or "http://127.0.0.1:9/none"]
        try:
            proc = subprocess.run(cmd, cwd=d, capture_output=True, text=True, timeout=peers.SESSION_TIMEOUT,
                                  env=peers.session_env(), check=False)
            returncode, stdout, stderr = proc.returncode, proc.stdout, proc.stderr
        except subprocess.TimeoutExpired:
            stderr = f"session timed out after {peers.SESSION_TIMEOUT} s"
        if guard is not None:
            guard.send_signal(signal.SIGTERM)
            try:
                guard_status = guard.wait(timeout=30)
            except subprocess.TimeoutExpired:
                guard.kill()
            log.close()
        elif how == "stdio" and (d / "status").exists():
            guard_status = int((d / "status").read_text())
    finally:
        leftover = up.stop()
    guard_log = log_path.read_text(encoding="utf-8", errors="replace") if log_path.exists() else ""
    events, bad = parse_log(guard_log.splitlines())
    if how == "stdio" and (d / "pid").exists():
        leftover += wait_gone([int((d / "pid").read_text())], timeout=10)
    lines = []
    for raw in stdout.splitlines():
        try:
            lines.append(json.loads(raw))
        except ValueError:
            pass
    (d / "stdout.jsonl").write_text(stdout)
    (d / "stderr.txt").write_text(stderr)
    return UpstreamRun(key, server, client, how, d, returncode, stdout, stderr, lines, events, bad, guard_status,
                       leftover, guard_log)
