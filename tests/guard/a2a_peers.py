"""What the A2A tests share: the test agent (servers/a2a_agent.py, on PyPI `a2a-sdk` 1.3) on a free loopback
port, and the two official SDK clients (clients/a2a_py_client.py, clients/a2a_js_client.mjs on npm
`@a2a-js/sdk` 1.3) run through one fixed scenario against a base URL, each printing what it saw as JSON.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import httpx
from harness import GUARD, HANG, HERE, PY

AGENT = HERE / "servers" / "a2a_agent.py"
CLIENTS = {
    "py": [PY, str(HERE / "clients" / "a2a_py_client.py")],
    "js": ["node", str(HERE / "clients" / "a2a_js_client.mjs")],
}
# What servers/a2a_agent.py puts in a failed task's status message.
SECRET = "ghp_A2aSecretTokenValue0123456789abcdefAB"


class Agent:
    """servers/a2a_agent.py on a free loopback port (or `port`)."""

    def __init__(self, port: int = 0) -> None:
        self.proc = subprocess.Popen([PY, str(AGENT), "--port", str(port)], stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line.startswith("port "), line
        self.port = int(line.split()[1])
        self.base = f"http://127.0.0.1:{self.port}"
        self.rpc = self.base + "/rpc"
        # What it says after its port (`disconnect` lines), read as it runs.
        self.said: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.said.append(line.strip())

    def disconnects(self) -> int:
        return self.said.count("disconnect")

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait()


def run_client(kind: str, base: str, cwd: Path = HERE) -> dict[str, Any]:
    """One SDK client's run of the scenario against `base` (an agent's, or a guard's, base URL)."""
    done = subprocess.run([*CLIENTS[kind], base], capture_output=True, text=True, timeout=HANG, cwd=cwd, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def codes(seen: dict[str, Any]) -> dict[str, Any]:
    """A run with each error reduced to its code (a2a-sdk's client keeps no `data`; @a2a-js/sdk's does)."""
    out = {}
    for step, value in seen.items():
        if isinstance(value, dict) and "error" in value:
            out[step] = {"error": value["error"]["code"]}
        else:
            out[step] = value
    return out


class ListeningGuard:
    """`jsonrpc-errors guard --listen 127.0.0.1:0 --upstream URL --upstream-protocol a2a [args]`; its log
    (stderr) collected as it runs."""

    def __init__(self, upstream: str, *args: str, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            [str(GUARD), "guard", "--listen", "127.0.0.1:0", "--upstream", upstream,
             "--upstream-protocol", "a2a", *args],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **(env or {})})
        self.log: list[str] = []
        port = None
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.log.append(line)
            if '"listening"' in line:
                port = json.loads(line)["addr"].rsplit(":", 1)[1]
                break
        assert port, "".join(self.log)
        self.base = f"http://127.0.0.1:{port}"
        self.rpc = self.base + "/a2a"
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.log.append(line)

    def stop(self) -> str:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=HANG)
        finally:
            self._reader.join(timeout=HANG)
        return "".join(self.log)


def post(url: str, message: dict[str, Any], headers: dict[str, str] | None = None,
         timeout: float = HANG) -> tuple[int, dict[str, Any]]:
    """A JSON-RPC request POSTed as an A2A 1.0 client sends it (`A2A-Version: 1.0` unless `headers` say
    otherwise); the HTTP status and the answer."""
    sent = {"content-type": "application/json", "accept": "application/json", "a2a-version": "1.0", **(headers or {})}
    sent = {k: v for k, v in sent.items() if v is not None}
    req = urllib.request.Request(url, json.dumps(message).encode(), sent)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def send(text: str, id: Any = 1, method: str = "SendMessage") -> dict[str, Any]:
    """A `SendMessage` (or `method`) request carrying `text`, as A2A 1.0's JSON-RPC binding writes it."""
    return {"jsonrpc": "2.0", "id": id, "method": method,
            "params": {"message": {"messageId": f"m-{id}", "role": "ROLE_USER", "parts": [{"text": text}]}}}


class Streamed:
    """One streaming request POSTed as the SDKs' JSON-RPC transports send it (`Accept: text/event-stream`,
    `A2A-Version: 1.0`), read event by event: `content_type`, and `events`, each event's JSON-RPC message
    (or the one JSON answer of a request answered at once)."""

    def __init__(self, url: str, message: dict[str, Any], timeout: float = HANG) -> None:
        self.client = httpx.Client(timeout=timeout)
        headers = {"content-type": "application/json", "accept": "text/event-stream", "a2a-version": "1.0"}
        self._cm = self.client.stream("POST", url, json=message, headers=headers)
        self.response = self._cm.__enter__()
        self.content_type = self.response.headers.get("content-type", "")
        self.events: list[dict[str, Any]] = []
        self._lines = self.response.iter_lines()

    def next(self) -> dict[str, Any] | None:
        """The next event's message; None once the response has ended."""
        if not self.content_type.startswith("text/event-stream"):
            if self.events:
                return None
            self.response.read()
            self.events.append(json.loads(self.response.content))
            return self.events[-1]
        data: list[str] = []
        for line in self._lines:
            if line.startswith("data:"):
                data.append(line[5:].lstrip())
            elif line == "" and data:
                self.events.append(json.loads("\n".join(data)))
                return self.events[-1]
        return None

    def all(self) -> list[dict[str, Any]]:
        """Every event to the response's end."""
        while self.next() is not None:
            pass
        self.close()
        return self.events

    def close(self) -> None:
        self._cm.__exit__(None, None, None)
        self.client.close()


def summary(message: dict[str, Any]) -> list[Any]:
    """A streamed JSON-RPC message, ids aside: the event's kind and what it says (a task's or a status's
    state, an artifact's texts, a message's texts), or the error's code."""
    if "error" in message:
        return ["error", message["error"]["code"]]
    result = message["result"]
    (kind, value), = result.items()

    def texts(parts: list[dict[str, Any]]) -> str:
        return "".join(p.get("text", "") for p in parts)

    if kind in ("task", "statusUpdate"):
        return [kind, value["status"]["state"]]
    if kind == "artifactUpdate":
        return [kind, texts(value["artifact"]["parts"])]
    return [kind, texts(value.get("parts", []))]
