"""The guard built for Windows (x86_64-pc-windows-gnu), run under Wine against a Windows build of a server that
misbehaves on request (server/): the stdio guard's promises on Windows, end to end.

- a normal session is relayed byte for byte both ways;
- a server that crashes, and one that hangs, get each pending request answered exactly once;
- the server's whole process tree ends with the guard, however the guard ends (killed outright; or after the
  server exited, leaving a child behind), through the job object;
- Ctrl-C drains: what is in flight is answered, then the server is stopped and the guard exits with its status;
  a server that does not leave is ended after `--grace` (no SIGTERM on Windows: the job is terminated);
- stdout carries messages only; the log is JSON lines; `--metrics-addr` and `--listen` serve.

Wine maps each Windows process onto a Linux one, so the tests see the processes in /proc: a Windows process's
command line holds its arguments, and the markers the tests give the server's processes find them there.
run-tests.sh builds the executables (and the ProcessPrng shim Wine 8 needs, wine/) and sets up the Wine prefix.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import sys
import time
import uuid
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "guard"))
from harness import HANG, Guard  # the stdio guard's test driver

ROOT = HERE.parent.parent
BIN = Path(os.environ.get("JSONRPC_ERRORS_WINDOWS_BIN", ROOT / "target" / "cross" / "x86_64-pc-windows-gnu" / "release"))
GUARD_EXE = BIN / "jsonrpc-errors.exe"
SERVER_EXE = BIN / "misbehaving-server.exe"
WINE = os.environ.get("WINE", "/usr/lib/wine/wine64")


def windows_path(path: Path) -> str:
    """A Linux path as Windows programs under Wine name it (Wine maps drive Z: to /)."""
    return "Z:" + str(path).replace("/", "\\")


def processes_with(marker: str) -> list[int]:
    """Live Linux processes whose command line holds `marker` (a Windows process's does, under Wine)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if marker.encode() in (entry / "cmdline").read_bytes():
                stat = (entry / "stat").read_text()
                if stat[stat.rindex(")") + 2] not in "ZX":
                    found.append(int(entry.name))
        except OSError:
            pass
    return found


def wait_none_with(marker: str, timeout: float = 15.0) -> list[int]:
    """Polls until no process holds `marker`; returns those still alive at the deadline."""
    deadline = time.monotonic() + timeout
    while (left := processes_with(marker)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


class WineGuard(Guard):
    """`jsonrpc-errors.exe guard ARGS -- misbehaving-server.exe --log FILE` under Wine. The server's log file
    is named after a marker, which is thus in its command line (see `processes_with`)."""

    def __init__(self, tmp_path: Path, args: list[str] = ()):
        self.marker = f"server-{uuid.uuid4().hex[:12]}"
        self.received_log = tmp_path / f"{self.marker}.log"
        server = [windows_path(SERVER_EXE), "--log", windows_path(self.received_log)]
        super().__init__(list(args), server, guard=[WINE, str(GUARD_EXE)])

    def received(self) -> list[bytes]:
        """The lines the server received, as it received them."""
        return self.received_log.read_bytes().splitlines() if self.received_log.exists() else []

    def say(self, id, line: str, method: str = "say", **params) -> None:
        """A request the server answers by writing `line`, as it is."""
        self.request(id, method, {"line": line, **params})


@pytest.fixture(scope="session", autouse=True)
def wine_session():
    for exe in (GUARD_EXE, SERVER_EXE, BIN / "bcryptprimitives.dll"):
        assert exe.exists(), f"{exe} is missing: tests/platforms/build.sh builds it"
    assert "WINEPREFIX" in os.environ, "run-tests.sh sets up Wine (wine-env.sh)"


@pytest.fixture
def start(tmp_path):
    guards: list[WineGuard] = []

    def start(args=()) -> WineGuard:
        g = WineGuard(tmp_path, list(args))
        guards.append(g)
        return g

    yield start
    for g in guards:
        g.kill()
        wait_none_with(g.marker)


def assert_answered_once(g: WineGuard, id, code: int, kind: str) -> None:
    message = g.read()
    assert message.get("id") == id and "result" not in message, message
    assert message["error"]["code"] == code and message["error"]["data"]["type"] == kind, message


# ───────────────────────────── relaying ─────────────────────────────


def test_a_normal_session_is_relayed_byte_for_byte(start):
    g = start()
    # Lines as peers write them, not as a serializer would: spacing, escapes, number spellings, non-ASCII.
    sent = [
        b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}',
        b'{ "method" : "say", "id" : 2 , "jsonrpc" : "2.0", "params" : {"line": "{\\"jsonrpc\\":\\"2.0\\", \\"id\\" : 2, \\"result\\":{\\"text\\":\\"h\\u00e9llo \\\\\\"w\\u00f6rld\\\\\\"\\", \\"n\\": 1.50e1}}"}}',
        b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
        '{"jsonrpc":"2.0","id":"caf\u00e9","method":"say","params":{"line":"{\\"result\\":{\\"emoji\\":\\"\u2713 \U0001f600\\"},\\"id\\":\\"caf\\\\u00e9\\",\\"jsonrpc\\":\\"2.0\\"}"}}'.encode(),
        b'{"jsonrpc":"2.0","id":3,"method":"say","params":{"lines":["{\\"jsonrpc\\":\\"2.0\\",\\"method\\":\\"notifications/message\\",\\"params\\":{\\"level\\":\\"info\\"}}", "{\\"id\\":3.0,\\"result\\":[],\\"jsonrpc\\":\\"2.0\\"}"]}}',
        b'{"jsonrpc":"2.0","id":4,"method":"say","params":{"line":"{\\"jsonrpc\\":\\"2.0\\",\\"id\\":4,\\"result\\":{}}"}}',
    ]
    for line in sent:
        g.send(line)
    got = [g.read_raw() for _ in range(6)]
    said = [json.loads(line)["params"] for line in sent if b'"say"' in line]
    written = [text.encode() + b"\n" for p in said for text in p.get("lines", [p.get("line")])]
    initialize = got.pop(0)
    assert json.loads(initialize)["result"]["echo"] == {"protocolVersion": "2025-11-25"}
    assert got == written, "the server's lines did not reach the client byte for byte"
    assert g.received() == sent, "the client's lines did not reach the server byte for byte"
    g.close_stdin()
    assert g.wait() == 0
    assert g.read_until_eof() == []
    g.assert_log_is_json()


# ───────────────────────────── the server fails ─────────────────────────────


def test_a_crash_answers_every_pending_request_once(start):
    g = start()
    g.say(1, '{"jsonrpc":"2.0","id":1,"result":{}}', method="slow", ms=30000)
    g.request(2, "crash")
    answers = sorted((g.read() for _ in range(2)), key=lambda m: m["id"])
    for answer, id in zip(answers, (1, 2)):
        assert answer["id"] == id and answer["error"]["code"] == -32000, answer
        assert answer["error"]["data"]["type"] == "upstream-connection-failed", answer
    # A panicking Rust program exits 101: the guard's status is the server's.
    assert g.wait() == 101
    assert g.read_until_eof() == [], "a request was answered twice"
    assert g.events("upstream-ended") or g.events("upstream-stderr"), "the crash was not logged"


def test_a_hang_is_answered_once_and_cancelled_upstream(start):
    g = start(["--timeout", "1"])
    started = time.monotonic()
    g.request(1, "hang")
    assert_answered_once(g, 1, -32001, "upstream-timeout")
    assert 0.8 < time.monotonic() - started < 10
    # The server was told (MCP's cancellation), and still serves: the next request is answered by it.
    g.say(2, '{"jsonrpc":"2.0","id":2,"result":{"ok":true}}')
    assert g.read() == {"jsonrpc": "2.0", "id": 2, "result": {"ok": True}}
    cancelled = [json.loads(line) for line in g.received() if b"notifications/cancelled" in line]
    assert [c["params"]["requestId"] for c in cancelled] == [1], g.received()
    g.close_stdin()
    assert g.wait() == 0
    assert g.read_until_eof() == [], "the hung request was answered twice"


# ───────────────────────────── the process tree ─────────────────────────────


def test_the_tree_ends_when_the_guard_is_killed(start):
    g = start()
    g.request(1, "spawn", {"marker": g.marker + "-grandchild"})
    assert "pid" in g.read()["result"]
    assert len(processes_with(g.marker)) >= 2, "the server and its child run"
    # Killed outright: no code of the guard's runs; Windows closes its handles, the job's among them.
    g.proc.send_signal(signal.SIGKILL)
    g.proc.wait()
    assert wait_none_with(g.marker) == [], "the server's tree outlived the guard"


def test_a_server_that_exits_leaves_no_child_behind(start):
    g = start()
    g.request(1, "spawn", {"marker": g.marker + "-grandchild"})
    g.read()
    g.request(2, "crash")
    assert_answered_once(g, 2, -32000, "upstream-connection-failed")
    assert g.wait() == 101
    assert wait_none_with(g.marker) == [], "the server's child outlived it (and the guard)"
    assert g.events("leftovers"), "the job's leftovers were not ended"


# ───────────────────────────── shutdown ─────────────────────────────


def test_ctrl_c_drains_what_is_in_flight(start):
    g = start(["--grace", "5"])
    g.say(1, '{"jsonrpc":"2.0","id":1,"result":{"late":true}}', method="slow", ms=1500)
    # Running, its handler installed (before, Ctrl-C would end it as it ends any console program).
    deadline = time.monotonic() + HANG
    while not g.received() and time.monotonic() < deadline:
        time.sleep(0.05)
    # Wine turns SIGINT into the console's Ctrl-C event, which the guard alone receives (the server runs in
    # a console process group of its own).
    g.proc.send_signal(signal.SIGINT)
    g.wait_event("signal", message="CTRL_C")
    assert g.read() == {"jsonrpc": "2.0", "id": 1, "result": {"late": True}}, "the answer in flight was lost"
    # The server saw its input close, finished, and exited 0: the guard exits with its status.
    status = g.wait()
    assert status == 0, f"exit status {status}; log:\n" + "\n".join(g.stderr_lines[-20:])
    assert g.read_until_eof() == []
    assert not g.events("terminating")
    assert wait_none_with(g.marker) == []


def test_a_server_that_does_not_leave_is_ended_after_the_grace(start):
    g = start(["--grace", "1"])
    # It will not exit before this answer, a minute away.
    g.say(1, '{"jsonrpc":"2.0","id":1,"result":{}}', method="slow", ms=60000)
    time.sleep(0.3)
    started = time.monotonic()
    g.close_stdin()
    assert g.wait() == 124, "the guard had to end it: 124"
    assert time.monotonic() - started < 10
    assert any("TerminateJobObject" in e.get("message", "") for e in g.events("terminating")), g.events()
    assert wait_none_with(g.marker) == []


# ───────────────────────────── the channel, metrics, HTTP ─────────────────────────────


def test_usage_errors_write_nothing_on_stdout(start):
    g = start(["--no-such-option"])
    assert g.wait() == 2
    assert g.read_until_eof() == []


def test_metrics_are_served(start):
    g = start(["--metrics-addr", "127.0.0.1:0"])
    addr = g.wait_event("metrics")["addr"]
    g.say(1, '{"jsonrpc":"2.0","id":1,"result":{}}')
    g.read()
    host, port = addr.rsplit(":", 1)
    c = http.client.HTTPConnection(host, int(port), timeout=HANG)
    c.request("GET", "/metrics")
    body = c.getresponse().read().decode()
    assert 'jsonrpc_errors_guard_lines_read_total{peer="client"} 1' in body, body[:2000]


def test_the_http_front_serves_a_session(start, tmp_path):
    g = start(["--listen", "127.0.0.1:0"])
    addr = g.wait_event("listening")["addr"]
    host, port = addr.rsplit(":", 1)

    def post(body: dict, session: str | None = None) -> tuple[int, dict[str, str], bytes]:
        c = http.client.HTTPConnection(host, int(port), timeout=HANG)
        headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
        if session:
            headers["mcp-session-id"] = session
        c.request("POST", "/mcp", body=json.dumps(body), headers=headers)
        r = c.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()

    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    status, headers, body = post(init)
    assert status == 200, body
    session = headers["mcp-session-id"]
    assert len(session) == 32 and all(c in "0123456789abcdef" for c in session), session
    # Echoed under the id the server was sent: a session renames each request's id upstream (guard.md), so a
    # line the server writes with the client's own id would answer nothing.
    status, _, body = post({"jsonrpc": "2.0", "id": 2, "method": "echo", "params": {"via": "http"}}, session)
    assert status == 200 and b'"via":"http"' in body, body
