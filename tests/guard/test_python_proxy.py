"""The Python example proxy (examples/mcp-proxy-python/proxy.py) where a proxy's lifecycle is tested: real
processes, real pipes, real signals; the Rust guard alongside wherever both must behave alike.

* a client line over 64 MiB (the component's input limit) is answered, and the proxy goes on;
* an upstream that exits while children it started keep its stdout open is answered at once, and nothing it
  started survives the proxy, not even what left its process group;
* SIGTERM and SIGINT answer every pending request before the proxy exits: the upstream's stdin is closed,
  what it answers within the grace period is relayed, the rest is answered by the guard.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from harness import GUARD, ROOT, alive, wait_gone

PY = sys.executable
PY_PROXY = Path(os.environ.get("JSONRPC_ERRORS_PY_PROXY", ROOT / "examples" / "mcp-proxy-python" / "proxy.py"))
WAIT = 20.0
GRACE = "0.5"
# Both start their upstream with a 30 s timeout: an answer that comes in seconds is not the timeout's.
PROXIES = {
    "rust guard": [str(GUARD), "guard", "--grace", GRACE, "--timeout", "30"],
    "python proxy": [PY, str(PY_PROXY), "--grace", GRACE, "--timeout", "30"],
}

# A raw JSON-RPC upstream (standard library only). Every line it reads goes to $UPSTREAM_LOG. Methods:
# `never` is never answered; `late` is answered after params.ms; `orphans` starts three children that keep
# its stdout and stderr open (one in its process group, one in a session of its own, one in a session of
# its own that ignores SIGTERM), waits until they are set up, writes their pids to params.pidfile and exits
# with status 7 without answering; anything else is echoed. With --ignore-stdin-eof it keeps running after
# its stdin closes, until signalled.
UPSTREAM = r"""
import json, os, subprocess, sys, threading, time
from pathlib import Path
CHILD = '''
import os, signal, sys, time
from pathlib import Path
if sys.argv[1] == "own-session":
    os.setsid()
if sys.argv[2] == "ignores-sigterm":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
Path(sys.argv[3]).touch()
time.sleep(60)
'''
log = open(os.environ["UPSTREAM_LOG"], "ab", buffering=0)

def send(message):
    os.write(1, json.dumps(message).encode() + b"\n")

def answer(request):
    send({"jsonrpc": "2.0", "id": request["id"], "result": {"echo": request.get("params")}})

for raw in sys.stdin.buffer:
    log.write(raw)
    request = json.loads(raw)
    params = request.get("params") or {}
    if request["method"] == "never":
        continue
    if request["method"] == "late":
        threading.Timer(params["ms"] / 1000, answer, (request,)).start()
        continue
    if request["method"] == "orphans":
        pidfile = Path(params["pidfile"])
        children = [subprocess.Popen([sys.executable, "-c", CHILD, group, sigterm, f"{pidfile}.{i}"])
                    for i, (group, sigterm) in enumerate([("same-group", "obeys-sigterm"), ("own-session", "obeys-sigterm"),
                                                          ("own-session", "ignores-sigterm")])]
        deadline = time.monotonic() + 10
        while not all(Path(f"{pidfile}.{i}").exists() for i in range(3)) and time.monotonic() < deadline:
            time.sleep(0.01)
        pidfile.write_text(json.dumps([c.pid for c in children]))
        os._exit(7)
    answer(request)
if "--ignore-stdin-eof" in sys.argv:
    while True:
        time.sleep(1)
"""


class Proxy:
    """One proxy with the upstream above behind it, on real pipes; stdout and stderr drained by threads."""

    def __init__(self, which: str, tmp_path: Path, *upstream_args: str) -> None:
        script = tmp_path / "upstream.py"
        script.write_text(UPSTREAM)
        self.received = tmp_path / "received.log"
        self.received.touch()
        command = [*PROXIES[which], "--", PY, str(script), *upstream_args]
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     env={**os.environ, "UPSTREAM_LOG": str(self.received)}, cwd=ROOT)
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.log: list[bytes] = []
        threading.Thread(target=self._pump, daemon=True).start()
        threading.Thread(target=lambda: self.log.extend(self.proc.stderr), daemon=True).start()  # type: ignore[arg-type]

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send(self, message: Any) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(message if isinstance(message, bytes) else json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def request(self, id_: int, method: str, **params: Any) -> None:
        self.send({"jsonrpc": "2.0", "id": id_, "method": method, "params": params})

    def read(self, timeout: float = WAIT) -> dict[str, Any]:
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no answer within {timeout} s; log:\n{self.text_log()[-3000:]}") from None
        assert line is not None, f"the proxy closed its stdout; log:\n{self.text_log()[-3000:]}"
        message: dict[str, Any] = json.loads(line)
        return message

    def read_until_eof(self, timeout: float = WAIT) -> list[dict[str, Any]]:
        out, deadline = [], time.monotonic() + timeout
        while (line := self.lines.get(timeout=max(0.1, deadline - time.monotonic()))) is not None:
            out.append(json.loads(line))
        return out

    def wait_received(self, count: int) -> None:
        """Until the upstream has read `count` lines."""
        deadline = time.monotonic() + WAIT
        while len(self.received.read_bytes().splitlines()) < count:
            assert time.monotonic() < deadline, f"the upstream got {self.received.read_bytes()!r}"
            time.sleep(0.01)

    def wait(self, timeout: float = WAIT) -> int:
        return self.proc.wait(timeout=timeout)

    def text_log(self) -> str:
        return b"".join(self.log).decode(errors="replace")

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture(params=list(PROXIES))
def proxy_name(request: Any) -> str:
    for path in (GUARD, PY_PROXY):
        assert path.exists(), f"{path} is missing (run ./scripts/setup.sh)"
    return str(request.param)


def test_a_client_line_over_64_mib_is_answered_and_the_proxy_goes_on(proxy_name: str, tmp_path: Path) -> None:
    # Over --max-bytes a line is answered unread; over 64 MiB the component would not even take it, which the
    # Python proxy let escape as a crash (a traceback, every pending request lost).
    proxy = Proxy(proxy_name, tmp_path)
    try:
        proxy.request(1, "late", ms=300)  # pending while the huge line passes: still answered
        huge = b'{"jsonrpc":"2.0","id":2,"method":"echo","params":{"text":"' + b"x" * (65 << 20) + b'"}}\n'
        started = time.monotonic()
        proxy.send(huge)
        proxy.request(3, "echo", text="after")
        answers = {m.get("id"): m for m in (proxy.read(), proxy.read(), proxy.read())}
        elapsed = time.monotonic() - started
        oversize = answers[2]["error"]  # its id read from the line's first bytes
        assert (oversize["code"], oversize["data"]["reason"]) == (-32600, "oversize"), oversize
        assert answers[1]["result"] == {"echo": {"ms": 300}} and answers[3]["result"] == {"echo": {"text": "after"}}
        assert proxy.proc.poll() is None, "the proxy ended"
        assert b'"id":2' not in proxy.received.read_bytes()  # never forwarded, never even held whole
        proxy.proc.stdin.close()  # type: ignore[union-attr]
        assert proxy.wait() == 0
        assert elapsed < 10, elapsed
    finally:
        proxy.kill()


def test_an_upstream_that_exits_while_its_children_hold_its_stdout_is_answered_at_once(proxy_name: str, tmp_path: Path) -> None:
    pidfile = tmp_path / "orphans.json"
    proxy = Proxy(proxy_name, tmp_path)
    pids: list[int] = []
    try:
        proxy.request(1, "echo", text="hello")
        assert proxy.read()["result"] == {"echo": {"text": "hello"}}
        proxy.request(2, "orphans", pidfile=str(pidfile))
        started = time.monotonic()
        answer = proxy.read()
        elapsed = time.monotonic() - started
        pids = json.loads(pidfile.read_text())
        assert (answer["id"], answer["error"]["data"]["type"]) == (2, "upstream-connection-failed"), answer
        # The upstream's exit is seen, not only the end of its stdout (which its children still hold).
        assert elapsed < 5, f"answered after {elapsed:.1f} s"
        assert proxy.wait() == 7  # the upstream's own status, as the CLI exits
        if proxy_name == "python proxy":
            # Nothing it started survives the proxy: the one in its process group, and the two that left it
            # (the last ignores SIGTERM).
            assert [p for p in pids if alive(p)] == [], f"left behind: {[p for p in pids if alive(p)]}\n{proxy.text_log()[-2000:]}"
    finally:
        proxy.kill()
        # The Rust guard ends its upstream's process group only: the two that left it are the test's to end.
        pids = pids or (json.loads(pidfile.read_text()) if pidfile.exists() else [])
        for pid in pids:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        wait_gone(pids, 5)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_answers_every_pending_request_before_the_proxy_exits(proxy_name: str, signum: int, tmp_path: Path) -> None:
    proxy = Proxy(proxy_name, tmp_path, "--ignore-stdin-eof")
    try:
        proxy.request(1, "late", ms=250)  # answered within the grace period: relayed
        proxy.request(2, "never")  # the upstream is terminated first: the guard answers it
        proxy.wait_received(2)
        started = time.monotonic()
        proxy.proc.send_signal(signum)
        answers = {m["id"]: m for m in proxy.read_until_eof()}
        status = proxy.wait()
        elapsed = time.monotonic() - started
        assert sorted(answers) == [1, 2], answers
        assert answers[1]["result"] == {"echo": {"ms": 250}}
        assert answers[2]["error"]["data"]["type"] == "upstream-connection-failed", answers[2]
        # It ignored its closed stdin, so it had to be terminated after the grace period: the CLI's 124.
        assert status == 124, f"{status}\n{proxy.text_log()[-2000:]}"
        assert elapsed < 10, elapsed
    finally:
        proxy.kill()
