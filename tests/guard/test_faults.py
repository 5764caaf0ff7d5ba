"""`jsonrpc-errors guard` against an upstream that fails on purpose (servers/fault_server.py), driven with raw
JSON lines over real pipes: exactly-once answers, timeouts and cancellation, floods, dead or hung upstreams,
the shutdown sequence and exit statuses, bad client lines, batches and metrics."""

from __future__ import annotations

import base64
import collections
import hashlib
import json
import os
import random
import re
import signal
import socket
import subprocess
import threading
import time
import urllib.request

import pytest

from harness import FAILED_RESULT_BYTES, FAULT_SERVER, GUARD, HANG, PY, Guard, pgid_of, vm_rss_kb, wait_gone, wait_group_gone

SECRETS = ["hunter2", "ghp_A1b2", "sk_live_", "/home/alice", "Traceback (most recent call last)"]
GITHUB_TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


@pytest.fixture
def start(tmp_path):
    """start(guard_args, *server_args) -> Guard, with the server recording what it receives (see `received`).
    Whatever a test leaves running is killed at the end."""
    guards: list[Guard] = []

    def start(guard_args=(), *server_args: str) -> Guard:
        g = Guard(list(guard_args), [PY, str(FAULT_SERVER), "--log", str(tmp_path / "received.log"), *server_args])
        guards.append(g)
        return g

    yield start
    for g in guards:
        pid = next((e["pid"] for e in g.events("started")), None)
        g.kill()
        if pid:
            wait_gone([int(pid)])


@pytest.fixture
def received(tmp_path):
    """The raw lines the fault server has received so far (what the guard forwarded)."""
    def received() -> list[bytes]:
        path = tmp_path / "received.log"
        return path.read_bytes().splitlines() if path.exists() else []
    return received


def wait_for(predicate, timeout: float = HANG, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while not (value := predicate()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)
    return value


def cancellations(lines: list[bytes]) -> list[dict]:
    messages = [json.loads(line) for line in lines]
    return [m["params"] for m in messages if m.get("method") == "notifications/cancelled"]


def assert_error(message: dict, id, code: int, type_: str | None = None) -> dict:
    assert message.get("id") == id and "result" not in message, message
    assert message["error"]["code"] == code, message
    if type_:
        assert message["error"]["data"]["type"] == type_, message
    return message["error"]


class RssSampler:
    """The largest VmRSS of a process while the block runs (sampled every 20 ms)."""

    def __init__(self, pid: int):
        self.pid, self.max_kb, self._stop = pid, 0, threading.Event()

    def __enter__(self):
        def sample():
            while not self._stop.is_set():
                self.max_kb = max(self.max_kb, vm_rss_kb(self.pid) or 0)
                time.sleep(0.02)
        self._thread = threading.Thread(target=sample, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


# ───────────────────────────── the upstream dies ─────────────────────────────


@pytest.mark.parametrize(("method", "params", "status"), [("exit", {"status": 5}, 5), ("kill", {"signal": 9}, 128 + 9)],
                         ids=["exits-5", "killed-by-SIGKILL"])
def test_upstream_death_answers_every_pending_request_once(start, method, params, status):
    g = start(["--grace", "1"])
    for id in [1, "two", 3]:
        g.request(id, "never")
    g.request(4, method, params)
    # Four answers, one per pending request, all the guard's own -32000 ...
    answers = [g.read() for _ in range(4)]
    assert sorted(map(str, (a["id"] for a in answers))) == ["1", "3", "4", "two"], answers
    for a in answers:
        error = assert_error(a, a["id"], -32000, "upstream-connection-failed")
        assert error["message"] == "Upstream connection failed"
    # ... then the guard leaves on its own (the client still has its stdin open) with the upstream's status,
    # and nothing more was written.
    assert g.wait() == status
    assert g.read_until_eof() == []
    assert [e["status"] for e in g.events("exit")] == [status]
    assert wait_gone([g.upstream_pid]) == []
    g.assert_log_is_json()


def test_last_stderr_lines_before_the_upstream_dies_are_logged(start):
    # The upstream writes a line on stderr, then exits; a child it leaves behind keeps that stderr open
    # (as a wrapper script's children do). The line was written before the exit: it belongs in the log.
    g = start(["--grace", "1"])
    g.request(1, "exit", {"status": 5, "stderr": "last words before exiting", "linger": 3})
    assert_error(g.read(), 1, -32000)
    g.close_stdin()  # not the subject here: the guard may leave as soon as it likes
    assert g.wait() == 5
    assert [e for e in g.events("upstream-stderr") if "last words before exiting" in e.get("message", "")], g.stderr_lines
    # The child was in the upstream's process group: it is gone with it.
    assert wait_group_gone(g.upstream_pid) == []


def test_a_request_after_the_upstream_died_is_answered(start):
    # The guard may still be reading when the upstream is gone: a request then must still get its answer
    # (-32000 at once) or see the guard's stdout close; it must never be left hanging.
    g = start(["--grace", "1"])
    g.request(1, "exit", {"status": 5})
    assert_error(g.read(), 1, -32000)
    try:
        g.request(2, "echo")
    except BrokenPipeError:
        return  # the guard had already exited: fine
    late = g.read_until_eof()
    assert late == [] or (len(late) == 1 and late[0]["id"] == 2 and late[0]["error"]["code"] == -32000), late


# ───────────────────────────── what the upstream writes ─────────────────────────────


def test_lines_that_are_not_answers_are_dropped_and_the_answer_still_arrives(start):
    g = start(["--grace", "1"])
    odd = '{ "jsonrpc" : "2.0", "result" : {"b": 1, "a" : [1,2]} , "id" : 1 }'
    g.request(1, "say", {"lines": [
        "DEBUG: this line is not JSON",
        '{"jsonrpc":"2.0","id":424242,"result":{}}',  # a response to no pending request
        '{"foo": 1}',  # JSON, but not JSON-RPC
        odd,  # the real answer, passed on byte for byte
    ]})
    assert g.read_raw() == odd.encode() + b"\n"
    # The log is another pipe: it may lag behind stdout a little.
    wait_for(lambda: len(g.events("dropped")) >= 3, what="three dropped events")
    dropped = [e.get("detail", "") for e in g.events("dropped")]
    assert any("DEBUG: this line is not JSON" in d for d in dropped), dropped
    assert [e for e in g.events("dropped") if e.get("id") == "424242"], dropped
    assert len(dropped) == 3, dropped
    # A normal shutdown: the client closes, the upstream exits by itself, the guard exits with its status.
    g.close_stdin()
    assert g.read_until_eof() == []
    assert g.wait() == 0
    assert not g.events("terminating")


def test_upstream_errors_are_sanitized(start):
    g = start()
    data = {"stack": "Traceback (most recent call last):\n  File \"/home/alice/app.py\", line 1", "token": GITHUB_TOKEN}
    nonstandard = {"code": -32010, "message": "charge declined, password=hunter2", "data": data}
    standard = {"code": -32602, "message": f"bad argument, key {GITHUB_TOKEN}", "data": {"traceback": data["stack"], "param": "amount"}}
    for id, error in [(1, nonstandard), (2, standard)]:
        g.request(id, "say", {"lines": [json.dumps({"jsonrpc": "2.0", "id": "$ID", "error": error}).replace('"$ID"', "$ID")]})
    custom, kept = g.read(), g.read()
    error = assert_error(custom, 1, -32019, "upstream-error")
    assert error["message"] == "Upstream error"
    assert "declined" in error["data"]["details"]
    error = assert_error(kept, 2, -32602)
    assert "bad argument" in error["message"]
    assert "traceback" not in error.get("data", {}) and "stack" not in error.get("data", {}), error
    for message in (custom, kept):
        assert [s for s in SECRETS if s in json.dumps(message)] == [], message
    wait_for(lambda: len(g.events("sanitized")) == 2, what="two sanitized events")


def test_is_error_tool_results_are_redacted_and_cut(start):
    g = start()
    # Longer than the cut (2 bytes a character), a secret at each end: the start and the end are kept
    # (servers write what the model should do next at the end), redacted; the middle goes.
    long_text = f"password=hunter2 {GITHUB_TOKEN} " + "é" * FAILED_RESULT_BYTES + f" password=hunter2 {GITHUB_TOKEN}"
    result = {"isError": True, "content": [{"type": "text", "text": long_text}, {"type": "text", "text": f"token {GITHUB_TOKEN}"}]}
    g.request(1, "say", {"lines": [json.dumps({"jsonrpc": "2.0", "id": 1, "result": result})]})
    message = g.read()
    texts = [c["text"] for c in message["result"]["content"]]
    assert message["result"]["isError"] is True
    assert [len(t.encode()) for t in texts if len(t.encode()) > FAILED_RESULT_BYTES] == []
    assert len(texts[0].encode()) > FAILED_RESULT_BYTES // 2, "cut to the limit, not far below it"
    assert texts[0].startswith("password=[REDACTED") and texts[0].endswith("[REDACTED:github-token]"), texts[0][:80] + " ... " + texts[0][-80:]
    assert texts[1] == "token [REDACTED:github-token]"
    assert [s for s in SECRETS if s in json.dumps(message)] == []
    # A successful result is not the guard's business: passed on as it is.
    g.request(2, "echo", {"note": "password=hunter2"})
    assert g.read()["result"] == {"echo": {"note": "password=hunter2"}}


def test_upstream_stderr_is_logged_with_secrets_redacted(start):
    g = start()
    trace = 'Traceback (most recent call last):\n  File "/srv/app/main.py", line 3, in f\nValueError: boom'
    g.request(1, "stderr", {"text": f"connecting with password=hunter2 token {GITHUB_TOKEN}\n{trace}"})
    g.read()
    first = g.wait_event("upstream-stderr", message="connecting with")
    assert "hunter2" not in first["message"] and "ghp_" not in first["message"], first
    assert "[REDACTED:" in first["message"]
    # Stack traces and paths are the operator's business: kept.
    g.wait_event("upstream-stderr", message='File "/srv/app/main.py", line 3')
    g.assert_log_is_json()


def test_a_large_stderr_burst_is_logged_without_a_secret_in_part(start):
    # 250 KB in one write: private-key blocks and token lines, read by the guard in pieces of about 64 KB.
    # Before, a piece ended wherever 64 KB fell (a token across it was logged in two halves, neither
    # redacted) and a key block across it had its remaining body lines logged as they were. Now pieces end
    # at line ends, and a block a piece leaves open is redacted in the next up to its END line.
    g = start()
    body_lines, units = [], []
    for b in range(110):
        body = ["MIIE" + base64.b64encode(hashlib.sha512(f"{b}/{i}".encode()).digest()).decode()[:60] for i in range(30)]
        body_lines += body
        units.append(f"connecting with token {GITHUB_TOKEN}\nloading key {b}\n-----BEGIN RSA PRIVATE KEY-----\n"
                     + "\n".join(body) + "\n-----END RSA PRIVATE KEY-----")
    text = "\n".join(units) + "\nstderr done"
    assert len(text) > 200_000
    g.request(1, "stderr", {"text": text})
    g.read()
    g.wait_event("upstream-stderr", message="stderr done")
    logged = "\n".join(e["message"] for e in g.events("upstream-stderr"))
    assert logged.count("loading key") == 110 and logged.count("[REDACTED:pem-private-key]") >= 110, logged[:2000]
    leaked = [line for line in body_lines if line[:24] in logged]
    assert not leaked, f"{len(leaked)} key body lines reached the log, e.g. {leaked[0]}"
    assert "ghp_" not in logged and GITHUB_TOKEN[10:30] not in logged


# ───────────────────────────── timeouts and cancellation ─────────────────────────────


def test_timeout_answers_cancels_upstream_and_drops_the_late_answer(start, received):
    g = start(["--timeout", "1"])
    g.request(7, "never")
    g.request(8, "late", {"ms": 2500})
    for id in (7, 8):
        error = assert_error(g.read(), id, -32001, "upstream-timeout")
        assert error["message"] == "Upstream timeout after 1s"
    cancelled = wait_for(lambda: len(c := cancellations(received())) >= 2 and c, what="two cancellations")
    assert sorted(c["requestId"] for c in cancelled) == [7, 8]
    assert all(c.get("reason") for c in cancelled)
    # The server answers 8 anyway, after the timeout: the client must not get a second answer for 8. The
    # next answer it sees is for 9, which the server wrote after that late answer.
    g.wait_event("upstream-stderr", message="late answer sent for 8")
    g.request(9, "echo")
    assert g.read()["id"] == 9
    g.wait_event("dropped", id="8")
    g.close_stdin()
    assert g.read_until_eof() == []
    assert g.wait() == 0


def test_initialize_timeout_is_answered_but_not_cancelled(start, received):
    g = start(["--timeout", "1"], "--never", "initialize")
    g.request(0, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}})
    assert_error(g.read(), 0, -32001, "upstream-timeout")
    # A second request that times out after it: its cancellation is written after any the initialize would
    # have had, so once it has arrived, the absence of one for 0 is final.
    g.request(1, "never")
    assert_error(g.read(), 1, -32001)
    wait_for(lambda: cancellations(received()), what="the cancellation of request 1")
    assert [c["requestId"] for c in cancellations(received())] == [1]


def test_progress_restarts_the_wait(start):
    # `--timeout` bounds the silence, not the work: a request that reports progress every 0.5 s for 3 s in
    # all is not timed out at 2 s.
    g = start(["--timeout", "2"])
    g.request(1, "late", {"ms": 3000, "_meta": {"progressToken": "p1"}})
    for i in range(5):
        time.sleep(0.5)
        note = {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "p1", "progress": i}}
        g.request(f"n{i}", "say", {"lines": [json.dumps(note)], "answer": True})
    seen = []
    while (message := g.read()).get("id") != 1:
        seen.append(message)
    assert message.get("result") == {"echo": {"ms": 3000, "_meta": {"progressToken": "p1"}}}, message
    assert len([m for m in seen if m.get("method") == "notifications/progress"]) == 5, seen
    assert not g.events("answered")


def test_client_cancellation_means_no_answer_is_owed(start, received):
    g = start(["--timeout", "1"])
    g.request(1, "late", {"ms": 1500})
    g.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1, "reason": "user gave up"}})
    # Neither the guard's timeout answer (at 1 s) nor the server's late answer (at 1.5 s) reaches the client.
    g.wait_event("upstream-stderr", message="late answer sent for 1")
    g.request(2, "echo")
    assert g.read()["id"] == 2
    assert [c["requestId"] for c in cancellations(received())] == [1]  # the client's own, forwarded once


# ───────────────────────────── floods ─────────────────────────────

RSS_LIMIT_KB = 200 * 1024


def test_notification_flood(start):
    g = start(["--timeout", "30"])
    with RssSampler(g.proc.pid) as rss:
        g.request(1, "flood", {"count": 100_000})
        notifications = 0
        while (message := g.read()).get("id") != 1:
            notifications += 1
    assert message["result"] == {"echo": {"count": 100_000}}
    assert notifications == 100_000
    assert 0 < rss.max_kb < RSS_LIMIT_KB, rss.max_kb


def test_flood_to_a_client_that_does_not_read(start):
    # 300 MB of notifications while the client reads nothing: the guard must hold back (stop reading the
    # upstream) rather than buffer it all, and deliver everything once the client reads again.
    g = start(["--timeout", "60"])
    g.pause_reading()
    with RssSampler(g.proc.pid) as rss:
        g.request(1, "flood", {"count": 30_000, "size": 10_000})
        time.sleep(3)
    assert 0 < rss.max_kb < RSS_LIMIT_KB, rss.max_kb
    g.resume_reading()
    notifications = 0
    while (message := g.read(timeout=60)).get("id") != 1:
        notifications += 1
    assert notifications == 30_000
    assert message["result"]["echo"]["count"] == 30_000


def test_answers_to_a_client_that_does_not_read_them(start):
    # The client writes lines the guard answers itself (invalid requests) and reads none of the answers. The
    # answers hold the client's budget as forwarded lines do, so the guard stops reading the client instead
    # of queueing answers without end (before: 160 bytes of memory per line, 2.8 MB of `x` lines grew it
    # to 437 MB); once the client reads, every line is answered exactly once, in order.
    g = start(["--timeout", "30", "--log-level", "error"])
    g.pause_reading()
    total = 300_000
    taken = [0]

    def write():
        try:
            for first in range(0, total, 1000):
                g.proc.stdin.write(b"".join(b'{"jsonrpc":"2.0","id":%d,"method":5}\n' % i for i in range(first, first + 1000)))
                g.proc.stdin.flush()
                taken[0] = first + 1000
        except (BrokenPipeError, ValueError):
            pass

    writer = threading.Thread(target=write, daemon=True)
    with RssSampler(g.proc.pid) as rss:
        writer.start()
        # Wait until the guard stops taking lines (no progress for 2 s) or has taken them all.
        last, still_since = -1, time.monotonic()
        while writer.is_alive() and time.monotonic() - still_since < 2:
            if taken[0] != last:
                last, still_since = taken[0], time.monotonic()
            time.sleep(0.05)
    assert writer.is_alive(), f"the guard took all {total} lines while none of its answers was read (peak {rss.max_kb} kB)"
    assert taken[0] < total // 2, taken[0]
    assert 0 < rss.max_kb < RSS_LIMIT_KB, rss.max_kb
    g.resume_reading()
    for i in range(total):
        assert_error(g.read(timeout=60), i, -32600)
    writer.join(timeout=60)
    assert not writer.is_alive()


@pytest.mark.parametrize("cap", [1 << 20, None], ids=["max-upstream-bytes-1MiB", "default-cap"])
def test_huge_upstream_line(start, cap):
    args = ["--timeout", "3"] + (["--max-upstream-bytes", str(cap)] if cap else [])
    g = start(args)
    with RssSampler(g.proc.pid) as rss:
        # 100 MB then a newline: discarded as it streams, and the answer after it arrives.
        g.request(1, "huge", {"bytes": 100 << 20, "newline": True, "answer": True})
        assert g.read(timeout=60)["id"] == 1
        g.wait_event("dropped", detail="exceeds the guard's limit")
        # 100 MB and no newline, ever: the request is still answered (by the timeout), and the guard's memory
        # stays flat.
        g.request(2, "huge", {"bytes": 100 << 20})
        assert_error(g.read(timeout=60), 2, -32001)
    assert 0 < rss.max_kb < RSS_LIMIT_KB, rss.max_kb


def test_oversize_client_line_is_answered_unread(start, received):
    g = start(["--max-bytes", "4096"])
    # Answered under its own id, read from the line's first bytes as they passed; and with the id written
    # last (as TypeScript writes it), from its last bytes.
    g.send({"jsonrpc": "2.0", "id": 1, "method": "echo", "params": {"pad": "x" * 10_000}})
    error = assert_error(g.read(), 1, -32600, "invalid-request")
    assert error["data"]["reason"] == "oversize"
    g.send(b'{"method":"echo","params":{"pad":"' + b"y" * 10_000 + b'"},"jsonrpc":"2.0","id":"last"}')
    assert_error(g.read(), "last", -32600, "invalid-request")
    g.request(2, "echo")
    assert g.read()["id"] == 2
    assert [json.loads(line)["id"] for line in received()] == [2]


def test_an_oversize_answer_is_answered_at_once_not_at_the_timeout(start):
    # A response over --max-upstream-bytes cannot be relayed: its request is answered when it streams past,
    # from the id its ends show (at the end here, as TypeScript servers write it), not when it times out.
    g = start(["--max-upstream-bytes", "4096", "--timeout", "30"])
    big = '{"result":{"content":[{"type":"text","text":"' + "z" * 20_000 + '"}]},"jsonrpc":"2.0","id":7}'
    started = time.monotonic()
    g.request(7, "say", {"lines": [big]})
    error = assert_error(g.read(timeout=10), 7, -32019, "upstream-error")
    assert "exceeds" in error["data"]["details"]
    assert time.monotonic() - started < 10


# ───────────────────────────── shutdown and processes ─────────────────────────────


@pytest.mark.parametrize("ignore_sigterm", [False, True], ids=["obeys-SIGTERM", "ignores-SIGTERM"])
def test_upstream_closes_stdout_but_keeps_running(start, ignore_sigterm):
    server = ["--ignore-stdin-eof"] + (["--ignore-sigterm"] if ignore_sigterm else [])
    g = start(["--grace", "1"], *server)
    g.request(1, "never")
    g.request(2, "never")
    g.request(3, "close-stdout")
    answers = [g.read() for _ in range(3)]
    assert sorted(a["id"] for a in answers) == [1, 2, 3]
    for a in answers:
        assert_error(a, a["id"], -32000, "upstream-connection-failed")
    # Stdin closed, grace, SIGTERM (, grace, SIGKILL): the guard had to end it, so 124.
    assert g.wait() == 124
    assert g.read_until_eof() == []
    assert len(g.events("terminating")) == (2 if ignore_sigterm else 1)
    assert wait_group_gone(g.upstream_pid) == []


def test_client_disconnect_mid_flight_terminates_a_stubborn_upstream(start, received):
    g = start(["--grace", "1"], "--ignore-stdin-eof")
    g.request(1, "never")
    wait_for(received, what="the request to reach the server")
    g.close_stdin()
    assert g.wait() == 124
    assert g.events("terminating")
    assert wait_group_gone(g.upstream_pid) == []


def test_client_disconnect_lets_the_upstream_exit_by_itself(start):
    # It takes 0.5 s to exit after its stdin closes, within the 3 s grace: no signal, its own status.
    g = start(["--grace", "3"], "--eof-exit-delay", "0.5", "--eof-exit-status", "7")
    g.request(1, "echo")
    g.read()
    g.close_stdin()
    assert g.wait() == 7
    assert not g.events("terminating")


def test_sigkill_of_the_guard_kills_the_upstream(start):
    g = start([], "--ignore-stdin-eof", "--ignore-sigterm")
    upstream = g.upstream_pid
    # Its own process group (so a wrapper's children are signalled with it), not the guard's.
    assert pgid_of(upstream) == upstream != pgid_of(g.proc.pid)
    g.request(1, "never")
    g.proc.send_signal(signal.SIGKILL)
    g.proc.wait()
    assert wait_gone([upstream]) == [], "the upstream survived the guard (PDEATHSIG)"


@pytest.mark.parametrize("setsid", [False, True], ids=["in-its-group", "setsid"])
def test_an_upstream_that_exits_leaves_no_grandchild_and_no_wait(start, setsid):
    # The grandchild holds the upstream's stdout open, so no end-of-file says the upstream is gone: its exit
    # does. Pending requests are answered at once, and the grandchild (even one that left the process group
    # with setsid) does not outlive the upstream.
    g = start(["--grace", "5", "--timeout", "30"])
    g.request(1, "spawn", {"setsid": setsid})
    grandchild = g.read()["result"]["pid"]
    g.request(2, "never")
    started = time.monotonic()
    g.request(3, "exit", {"status": 4})
    answers = [g.read(timeout=5) for _ in range(2)]
    assert time.monotonic() - started < 5, "the answers waited for more than the upstream's exit"
    assert sorted(a["id"] for a in answers) == [2, 3]
    assert wait_gone([grandchild]) == [], "the grandchild outlived its upstream"
    assert g.wait() == 4


def test_sigkill_of_the_guard_ends_the_whole_tree(start):
    # PDEATHSIG reaches the upstream only; the keeper ends the rest when the guard's lifeline closes.
    g = start([], "--ignore-stdin-eof", "--ignore-sigterm")
    upstream = g.upstream_pid
    g.request(1, "spawn", {"setsid": False})
    g.request(2, "spawn", {"setsid": True})
    grandchildren = [g.read()["result"]["pid"] for _ in range(2)]
    g.proc.send_signal(signal.SIGKILL)
    g.proc.wait()
    assert wait_gone([upstream, *grandchildren]) == [], "something of the upstream's tree outlived the guard"


def test_exit_status_when_the_upstream_cannot_start(tmp_path):
    # A client writes its first request before it can know the server did not start: it is answered, and so
    # is every later one, until the client leaves; then the status says why.
    not_executable = tmp_path / "server.sh"
    not_executable.write_text("#!/bin/sh\n")
    for command, status in [([str(tmp_path / "no-such-server")], 127), ([str(not_executable)], 126)]:
        g = Guard([], command)
        try:
            g.request(1, "initialize", {})
            assert_error(g.read(), 1, -32000, "upstream-connection-failed")
            g.request(2, "ping")
            assert_error(g.read(), 2, -32000, "upstream-connection-failed")
            g.close_stdin()
            assert g.wait() == status
            assert g.read_until_eof() == []
            g.assert_log_is_json()
        finally:
            g.kill()


def test_stdin_and_stdout_may_be_regular_files(tmp_path):
    # Pipes and sockets are driven by the guard's reactor; anything else (files here, a terminal) keeps the
    # blocking path. Every request in the file is answered into the other file, and the guard exits 0.
    requests = tmp_path / "requests.jsonl"
    requests.write_text("".join(json.dumps({"jsonrpc": "2.0", "id": i, "method": "echo", "params": {"n": i}}) + "\n"
                                for i in range(1, 4)))
    answers = tmp_path / "answers.jsonl"
    with requests.open("rb") as stdin, answers.open("wb") as stdout:
        done = subprocess.run([str(GUARD), "guard", "--", PY, str(FAULT_SERVER)], stdin=stdin, stdout=stdout,
                              stderr=subprocess.PIPE, timeout=HANG)
    assert done.returncode == 0, done.stderr[-2000:]
    got = [json.loads(line) for line in answers.read_bytes().splitlines()]
    assert sorted(a["id"] for a in got) == [1, 2, 3], got
    assert all(a["result"] == {"echo": {"n": a["id"]}} for a in got), got


def test_pipes_are_non_blocking_only_while_the_guard_runs(tmp_path):
    # A descriptor's O_NONBLOCK belongs to the open pipe, shared with whoever else holds it (here: this test):
    # the guard sets it on its stdin and stdout to drive them by readiness, and gives the old flags back.
    import fcntl

    stdin_r, stdin_w = os.pipe()
    stdout_r, stdout_w = os.pipe()
    guard = subprocess.Popen([str(GUARD), "guard", "--", PY, str(FAULT_SERVER)], stdin=stdin_r, stdout=stdout_w,
                             stderr=subprocess.DEVNULL)
    try:
        nonblocking = lambda fd: bool(fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_NONBLOCK)
        os.write(stdin_w, b'{"jsonrpc":"2.0","id":1,"method":"echo","params":{}}\n')
        with os.fdopen(os.dup(stdout_r), "rb", buffering=0) as out:
            assert json.loads(out.readline())["id"] == 1
        assert nonblocking(stdin_r) and nonblocking(stdout_w), "the guard drives its pipes by readiness"
        os.close(stdin_w)
        assert guard.wait(timeout=HANG) == 0
        assert not nonblocking(stdin_r), "stdin's flags were not given back"
        assert not nonblocking(stdout_w), "stdout's flags were not given back"
    finally:
        guard.kill()
        for fd in (stdin_r, stdout_r, stdout_w):
            os.close(fd)


@pytest.mark.parametrize("args", [["--dialect", "bogus"], ["--max-bytes", "100000000"], ["--max-upstream-bytes", "70000000"],
                                  ["--metrics-addr", "localhost"], ["--timeout", "-1"]],
                         ids=["dialect", "max-bytes", "max-upstream-bytes", "metrics-addr", "timeout"])
def test_usage_errors_write_nothing_on_the_mcp_channel(args):
    # stdout is the MCP channel: a usage error goes to stderr only, and nothing starts.
    done = subprocess.run([str(GUARD), "guard", *args, "--", PY, "-c", "pass"], capture_output=True, timeout=HANG)
    assert (done.returncode, done.stdout) == (2, b""), done
    assert done.stderr.strip(), "a usage error says why"


def test_metrics_address_may_be_a_host_name(start):
    g = start(["--metrics-addr", "localhost:0"])
    addr = g.wait_event("metrics")["addr"]
    with urllib.request.urlopen(f"http://{addr}/metrics", timeout=10) as response:
        assert b"jsonrpc_errors_guard_pending_requests" in response.read()


def test_a_stderr_nobody_reads_never_holds_up_the_relay(tmp_path):
    # 20,000 garbage lines, each logged as dropped: far more than a pipe holds. Nobody reads the guard's
    # stderr, yet the answer after them arrives, and the records that did not fit are counted.
    port = free_port()
    g = Guard(["--metrics-addr", f"127.0.0.1:{port}"], [PY, str(FAULT_SERVER), "--log", str(tmp_path / "received.log")], read_stderr=False)
    try:
        lines = [f"garbage line {i} that is not JSON-RPC" for i in range(20_000)]
        g.request(1, "say", {"lines": lines, "answer": True})
        answer = g.read(timeout=HANG)
        assert answer["id"] == 1 and "result" in answer, answer
        g.request(2, "echo", {"after": "the flood"})
        assert g.read()["id"] == 2
        assert counter(scrape(port), "jsonrpc_errors_guard_log_records_dropped_total") > 0
    finally:
        g.kill()


# ───────────────────────────── client lines ─────────────────────────────


def test_bad_client_lines_are_answered_and_never_forwarded(start, received):
    g = start()
    late = '{"jsonrpc":"2.0","id":6,"method":"late","params":{"ms":300}}'
    odd = '{ "method" : "echo", "id":99 ,"jsonrpc":"2.0", "params":{"b":1,"a":[1, 2]} }'
    g.send("this is not json")
    g.send('{"jsonrpc":"2.0","id":5}')
    g.send(late)
    g.send('{"jsonrpc":"2.0","id":6,"method":"echo"}')  # 6 is in flight
    g.send('[{"jsonrpc":"2.0","id":7,"method":"echo"}]')
    g.send(odd)
    answers = [g.read() for _ in range(6)]
    by_id = collections.defaultdict(list)
    for a in answers:
        by_id[json.dumps(a["id"])].append(a)
    # Not JSON: -32700; a batch under --batch reject: -32600. Neither has an id to answer with.
    nulls = sorted((a["error"]["code"], a["error"]["data"].get("reason")) for a in by_id["null"])
    assert nulls == [(-32700, None), (-32600, "batch-not-supported")], by_id["null"]
    missing = assert_error(by_id["5"][0], 5, -32600, "invalid-request")
    assert missing["data"]["reason"]
    duplicate, original = by_id["6"]  # the guard's answer first, the server's 0.3 s later
    assert assert_error(duplicate, 6, -32600)["data"]["reason"] == "duplicate-id"
    assert original["result"] == {"echo": {"ms": 300}}
    assert by_id["99"][0]["result"] == {"echo": {"b": 1, "a": [1, 2]}}
    # Only the two good requests reached the server, byte for byte.
    assert received() == [late.encode(), odd.encode()]


def test_allowed_batch_is_split_upstream_and_answered_as_one_array(start, received):
    g = start(["--batch", "allow"])
    members = [
        '{"jsonrpc":"2.0","id":1,"method":"echo","params":{"n":1}}',
        '{"jsonrpc":"2.0","method":"notifications/initialized"}',
        '{"jsonrpc":"2.0","id":3}',  # not a request: answered inside the array, not forwarded
        '{ "jsonrpc":"2.0", "id":"b", "method":"echo", "params":{"n":2} }',
    ]
    g.send("[" + ", ".join(members) + "]")
    line = g.read_raw()
    answer = json.loads(line)
    assert isinstance(answer, list), line
    by_id = {json.dumps(a["id"]): a for a in answer}
    assert sorted(by_id) == ['"b"', "1", "3"], answer
    assert by_id["1"]["result"] == {"echo": {"n": 1}}
    assert by_id['"b"']["result"] == {"echo": {"n": 2}}
    assert_error(by_id["3"], 3, -32600)
    assert received() == [members[0].encode(), members[1].encode(), members[3].encode()]


def test_burst_of_pipelined_requests_is_answered_exactly_once(start):
    rng = random.Random()
    ids: list = []
    while len(ids) < 200:
        id = rng.choice([rng.randrange(-10**9, 10**9), f"req-{rng.randrange(10**9)}"])
        if id not in ids:
            ids.append(id)
    g = start([], "--shuffle")
    # All 200 in one write: pipelined, the server answers them out of order.
    payload = b"".join(json.dumps({"jsonrpc": "2.0", "id": id, "method": "echo", "params": {"token": str(id)}}).encode() + b"\n" for id in ids)
    g.proc.stdin.write(payload)
    g.proc.stdin.flush()
    answers = [g.read() for _ in ids]
    g.close_stdin()
    assert g.read_until_eof() == []
    assert g.wait() == 0
    counts = collections.Counter(json.dumps(a["id"]) for a in answers)
    assert counts == collections.Counter(json.dumps(id) for id in ids)
    assert all(a["result"] == {"echo": {"token": str(a["id"])}} for a in answers)
    assert [a["id"] for a in answers] != ids, "the server did not reorder anything: the test tests nothing"


# ───────────────────────────── metrics ─────────────────────────────


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def scrape(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
        return response.read().decode()


def counter(text: str, name: str, **labels: str) -> float:
    """The sum of the samples of `name` whose labels include `labels` (0 if none)."""
    total = 0.0
    for line in text.splitlines():
        m = re.match(rf"{name}(?:\{{(.*)\}})? (\S+)$", line)
        if m and all(f'{k}="{v}"' in (m.group(1) or "") for k, v in labels.items()):
            total += float(m.group(2))
    return total


def test_metrics_are_served_while_the_guard_runs(start):
    # A free port can be taken by someone else before the guard binds it (the guard then exits 125): retry.
    for _ in range(3):
        port = free_port()
        g = start(["--metrics-addr", f"127.0.0.1:{port}", "--timeout", "1", "--grace", "2"],
                  "--ignore-stdin-eof", "--ignore-sigterm")
        g.upstream_pid  # the metrics address is bound before the upstream starts
        if g.proc.poll() is None:
            break
    g.request(1, "never")
    assert_error(g.read(), 1, -32001)
    text = scrape(port)
    assert counter(text, "jsonrpc_errors_guard_errors_total", kind="upstream-timeout", code="-32001") == 1, text
    # The upstream closes its stdout with two requests pending; it ignores SIGTERM, so the guard keeps
    # running (and serving) for two grace periods after answering them.
    g.request(2, "never")
    g.request(3, "close-stdout")
    assert_error(g.read(), 2, -32000)
    assert_error(g.read(), 3, -32000)
    text = scrape(port)
    assert counter(text, "jsonrpc_errors_guard_errors_total", kind="upstream-connection-failed", code="-32000") == 2, text
    assert counter(text, "jsonrpc_errors_guard_upstream_exits_total", how="closed-output") == 1, text
    assert "jsonrpc_errors_guard_pending_requests 0" in text
    g.close_stdin()  # the lifecycle is another test's subject
    assert g.wait() == 124


def cpu_seconds(pid: int) -> float:
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_idle_metrics_connections_neither_spin_the_guard_nor_lock_out_scrapes(tmp_path):
    # 60 connections that never send a request, to a guard allowed 56 open files. Before: they took every
    # descriptor, accept failed at once forever and the guard's one thread spun on it (3 s of CPU in 3 s),
    # and no scrape got through while they stayed open. Now scrapes are served a bounded number at a time,
    # one request per connection, and a connection that sends no request head within 5 s is closed.
    g = Guard(["--metrics-addr", "127.0.0.1:0"], [PY, str(FAULT_SERVER), "--log", str(tmp_path / "received.log")],
              max_open_files=56)
    idle = []
    try:
        host, port = g.wait_event("metrics")["addr"].rsplit(":", 1)
        g.upstream_pid
        for _ in range(60):
            idle.append(socket.create_connection((host, int(port)), timeout=5))
        time.sleep(0.5)
        before = cpu_seconds(g.proc.pid)
        time.sleep(2)
        spent = cpu_seconds(g.proc.pid) - before
        assert spent < 0.5, f"the guard used {spent:.2f} s of CPU in 2 s with idle metrics connections open"
        g.request(1, "echo", {"n": 1})
        assert g.read()["result"] == {"echo": {"n": 1}}
        # Served once the idle connections ahead of it have timed out (5 s each round), while they stay open.
        with socket.create_connection((host, int(port)), timeout=30) as s:
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
            reply = b""
            while chunk := s.recv(65536):
                reply += chunk
        assert reply.startswith(b"HTTP/1.1 200"), reply[:200]
        assert b"jsonrpc_errors_guard_lines_read_total" in reply
    finally:
        for s in idle:
            s.close()
        g.kill()
