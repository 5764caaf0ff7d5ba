"""The TypeScript example proxy (`examples/mcp-proxy-ts/proxy.js`: `jsonrpc-errors/mcp` with stdio of its own)
on real pipes, next to `jsonrpc-errors guard`: what the SDK's stdio transports used to cost it.

- Ids and numbers are forwarded byte for byte both ways (the SDK parsed and re-serialized every line: an id
  beyond 2^53 went upstream as another number, an id like 1.5 failed its schema, and neither was answered).
- A client line over 64 MiB is answered, and the proxy goes on (the SDK's transport closed for good on it).
- An upstream that exits while its descendants hold its stdout is answered at once, with its exit status in
  the log, and nothing it started survives the proxy (the SDK waited for the stdout's end, so the request
  waited for the timeout, and the descendants were left running).
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from harness import FAULT_SERVER, GUARD, HANG, PY, ROOT, alive, parse_log, wait_gone

TS_PROXY = ROOT / "examples" / "mcp-proxy-ts" / "proxy.js"


class Piped:
    """A proxy (`program ... -- upstream...`) on real pipes: raw lines in, raw lines out, its log kept."""

    def __init__(self, program: list[str], upstream: list[str]):
        assert Path(program[-1]).exists() or program[-1] == "guard", f"{program} is missing (run ./scripts/setup.sh)"
        self.proc = subprocess.Popen([*program, "--", *upstream], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, cwd=ROOT)
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.log: list[str] = []
        threading.Thread(target=self._pump_stdout, daemon=True).start()
        threading.Thread(target=lambda: self.log.extend(l.decode(errors="replace") for l in self.proc.stderr), daemon=True).start()

    def _pump_stdout(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send(self, line: bytes) -> None:
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()

    def read_raw(self, timeout: float = HANG) -> bytes:
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no line within {timeout} s; log:\n" + "".join(self.log[-15:]))
        assert line is not None, "stdout closed; log:\n" + "".join(self.log[-15:])
        return line.rstrip(b"\n")

    def read(self, timeout: float = HANG) -> Any:
        return json.loads(self.read_raw(timeout))

    def wait(self, timeout: float = HANG) -> int:
        self.proc.stdin.close()
        return self.proc.wait(timeout=timeout)

    def events(self, name: str) -> list[dict]:
        return [e for e in parse_log(self.log)[0] if e.get("event") == name]

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


PROXIES = {"rust guard": [str(GUARD), "guard"], "typescript proxy": ["node", str(TS_PROXY)]}

# Lines whose ids and numbers a parse would change: beyond 2^53, an exponent, -0, an escape, a fraction and a
# number beyond any integer type in params; then a server notification carrying one (fault_server's `say`). (A
# fractional id is no MCP id: every runtime answers it itself, test_cross_runtime.py's fidelity session.)
ID_LINES = [
    b'{"jsonrpc":"2.0","id":12345678901234567890,"method":"echo","params":{"n":123456789012345678901234567890,"f":1.50}}',
    b'{"jsonrpc":"2.0","id":1E2,"method":"echo"}',
    b'{"jsonrpc":"2.0","id":-0.0,"method":"echo"}',
    b'{"jsonrpc":"2.0","id":"\\u00e9","method":"echo"}',
    b'{"jsonrpc":"2.0","id":9007199254740993,"method":"say","params":{"answer":true,"lines":'
    b'["{\\"jsonrpc\\":\\"2.0\\",\\"method\\":\\"notifications/message\\",\\"params\\":{\\"data\\":98765432109876543210}}"]}}',
]


def test_ids_and_numbers_cross_the_typescript_proxy_byte_for_byte_as_the_rust_guard(tmp_path: Path) -> None:
    seen: dict[str, tuple[list[bytes], list[bytes]]] = {}
    for name, program in PROXIES.items():
        received = tmp_path / f"{name}.log"
        p = Piped(program, [PY, str(FAULT_SERVER), "--log", str(received)])
        try:
            for line in ID_LINES:
                p.send(line)
            answers = [p.read_raw(timeout=10) for _ in range(len(ID_LINES) + 1)]
            assert p.wait() == 0
        finally:
            p.kill()
        seen[name] = (answers, received.read_bytes().splitlines())
    answers, received = seen["typescript proxy"]
    assert received == ID_LINES, "the upstream got other bytes than the client wrote"
    assert b'"id":12345678901234567890,' in answers[0] and b"123456789012345678901234567890" in answers[0]
    assert b'"data":98765432109876543210' in answers[4]
    assert seen["typescript proxy"] == seen["rust guard"]


def test_a_client_line_over_64_mib_is_answered_and_the_typescript_proxy_goes_on() -> None:
    huge = b'{"jsonrpc":"2.0","id":2,"method":"echo","params":{"pad":"' + b"x" * (65 << 20) + b'"}}'
    got: dict[str, list[Any]] = {}
    for name, program in PROXIES.items():
        p = Piped(program, [PY, str(FAULT_SERVER)])
        try:
            p.send(b'{"jsonrpc":"2.0","id":1,"method":"echo"}')
            assert p.read()["id"] == 1
            # Written from a thread: the proxy reads (and discards) as it goes.
            writer = threading.Thread(target=lambda: (p.send(huge), p.send(b'{"jsonrpc":"2.0","id":3,"method":"echo"}')), daemon=True)
            started = time.monotonic()
            writer.start()
            oversize, after = p.read(timeout=30), p.read(timeout=30)
            print(f"{name}: 65 MiB line answered and the next one relayed in {time.monotonic() - started:.2f} s")
            writer.join(timeout=5)
            assert p.wait() == 0
        finally:
            p.kill()
        oversize["error"]["data"].pop("correlation_id", None)
        got[name] = [oversize, after]
    oversize, after = got["typescript proxy"]
    # Answered under its own id, read from the line's first bytes as they passed.
    assert (oversize["id"], oversize["error"]["code"], oversize["error"]["data"]["reason"]) == (2, -32600, "oversize")
    assert after == {"jsonrpc": "2.0", "id": 3, "result": {"echo": None}}
    assert got["typescript proxy"] == got["rust guard"]


# Serves `ping`; on `exit`, exits 3 without answering; with --linger, runs on after its stdin closes. First it
# starts two sleepers that hold its stdout (and stderr) open: one in its process group, and one that left it
# (a new session, as a daemonizing child does) and ignores SIGTERM.
DIES_LEAVING_DESCENDANTS = r"""
import json, os, subprocess, sys, time
def sleeper(ready, ignore_sigterm):
    code = ("import pathlib, signal, sys, time\n"
            + ("signal.signal(signal.SIGTERM, signal.SIG_IGN)\n" if ignore_sigterm else "")
            + "pathlib.Path(sys.argv[1]).touch()\ntime.sleep(60)")
    return [sys.executable, "-c", code, ready]
ready = [sys.argv[1] + ".ready0", sys.argv[1] + ".ready1"]
kids = [subprocess.Popen(sleeper(ready[0], False)), subprocess.Popen(sleeper(ready[1], True), start_new_session=True)]
while not all(os.path.exists(r) for r in ready):
    time.sleep(0.01)
with open(sys.argv[1], "w") as f:
    json.dump([k.pid for k in kids], f)
for line in sys.stdin:
    request = json.loads(line)
    if request["method"] == "exit":
        os._exit(3)
    print(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": {}}), flush=True)
if "--linger" in sys.argv:  # an upstream that does not take its closed stdin as the end
    time.sleep(60)
"""


def test_an_upstream_that_exits_with_descendants_on_its_stdout_is_answered_at_once_and_leaves_nothing(tmp_path: Path) -> None:
    script, pids = tmp_path / "upstream.py", tmp_path / "pids.json"
    script.write_text(DIES_LEAVING_DESCENDANTS)
    p = Piped(["node", str(TS_PROXY)], [PY, str(script), str(pids)])
    descendants: list[int] = []
    try:
        p.send(b'{"jsonrpc":"2.0","id":1,"method":"ping"}')
        assert p.read()["id"] == 1
        descendants = json.loads(pids.read_text())
        assert all(alive(pid) for pid in descendants)
        started = time.monotonic()
        p.send(b'{"jsonrpc":"2.0","id":2,"method":"exit"}')
        answer = p.read(timeout=10)  # the timeout is 50 s: an answer within 10 s is the exit's
        elapsed = time.monotonic() - started
        assert (answer["id"], answer["error"]["code"], answer["error"]["data"]["type"]) == (2, -32000, "upstream-connection-failed")
        assert elapsed < 3, f"answered {elapsed:.2f} s after the request"
        print(f"answered {elapsed:.2f} s after the upstream was asked to exit")
        assert p.proc.wait(timeout=HANG) == 3  # the upstream's status, as the CLI exits
        assert [e["detail"] for e in p.events("upstream-ended")] == ["the upstream exited with status 3 (1 requests pending)"]
        assert wait_gone(descendants, timeout=5) == [], "a descendant of the upstream survived the proxy"
    finally:
        p.kill()
        for pid in descendants:  # whatever the outcome, nothing of this test keeps running
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def test_a_signal_to_the_typescript_proxy_stops_the_upstreams_whole_tree(tmp_path: Path) -> None:
    # The upstream ignores its closed stdin, so the proxy escalates to SIGTERM for its process group and its
    # tagged descendants; the one that left the group with setsid goes too.
    script, pids = tmp_path / "upstream.py", tmp_path / "pids.json"
    script.write_text(DIES_LEAVING_DESCENDANTS)
    p = Piped(["node", str(TS_PROXY)], [PY, str(script), str(pids), "--linger"])
    descendants: list[int] = []
    try:
        p.send(b'{"jsonrpc":"2.0","id":1,"method":"ping"}')
        assert p.read()["id"] == 1
        descendants = json.loads(pids.read_text())
        p.proc.send_signal(signal.SIGTERM)
        status = p.proc.wait(timeout=HANG)
        assert wait_gone(descendants, timeout=5) == [], "a descendant of the upstream survived the proxy"
        assert status == 124  # the proxy had to terminate the upstream, as the CLI says
    finally:
        p.kill()
        for pid in descendants:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
