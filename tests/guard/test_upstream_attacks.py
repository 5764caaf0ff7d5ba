"""`guard --upstream URL` attacked by a hostile or broken server at that URL (servers/hostile_http_upstream.py, raw
sockets) and by a careless operator: the guard's promises must hold whatever the upstream sends. Every request is
answered exactly once (no hang, no second answer); nothing leaks (the guard's `--upstream-header` credential, the
URL's userinfo and query, a client's Authorization); memory stays bounded; stdout carries messages only.

Each test is a promise that holds; each was first written as a finding that failed (the notes of issue 35).
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
import test_upstream
from harness import HANG, HERE, Guard, vm_rss_kb
from test_upstream import (
    AT_ONCE,
    INIT,
    Server,
    assert_error,
    assert_nothing_more,
    call,
    connect,
    listening,
    read_answer,
    started_servers,
)

# test_upstream's fixture: a guard in front of a URL, killed at the test's end.
guard = test_upstream.guard

HOSTILE = HERE / "servers" / "hostile_http_upstream.py"
CREDENTIAL = "UPHDR-0123456789-credential"
BASIC_PASSWORD = "pw-USERINFO-4242"
QUERY_KEY = "QUERYKEY-777777"


class Hostile(Server):
    """hostile_http_upstream.py on a free loopback port; its request record."""

    SCRIPT = HOSTILE


@pytest.fixture
def hostile(tmp_path):
    with started_servers(Hostile, tmp_path) as start:
        yield start


def with_credentials(h: Hostile) -> tuple[str, list[str], dict[str, str]]:
    """The upstream's URL with userinfo and a query key, and the guard's own credential header."""
    url = h.url.replace("http://", f"http://alice:{BASIC_PASSWORD}@") + f"?api_key={QUERY_KEY}"
    return url, ["--upstream-header", "X-Upstream-Key: env:UPSTREAM_KEY"], {"UPSTREAM_KEY": CREDENTIAL}


def open_connections(pid: int, port: int) -> int:
    """The guard's TCP connections to `port` (from /proc/net/tcp, matched to its socket inodes)."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    count = 0
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        remote_port = int(fields[2].split(":")[1], 16)
        if remote_port == port and fields[3] == "01" and fields[9] in inodes:  # ESTABLISHED
            count += 1
    return count


def raw_until_answer(g: Guard, id: Any, timeout: float = AT_ONCE) -> tuple[dict, list[bytes]]:
    """Reads stdout line by line until the answer to `id`; every line read must be one JSON object."""
    lines = []
    deadline = time.monotonic() + timeout
    while True:
        line = g.read_raw(max(0.1, deadline - time.monotonic()))
        assert line is not None, "the guard closed its stdout"
        lines.append(line)
        try:
            message = json.loads(line)
        except ValueError:
            raise AssertionError(f"a stdout line that is no JSON message: {line[:200]!r}")
        assert isinstance(message, dict), line
        if message.get("id") == id and "method" not in message:
            return message, lines


# ── stdout: messages only, one per line ──


def test_a_pretty_printed_json_answer_reaches_the_client_as_one_line(hostile, guard):
    h = hostile()
    g = guard(h.url)
    connect(g)
    call(g, 1, "pretty")
    answer, lines = raw_until_answer(g, 1)
    assert len(lines) == 1 and answer["result"]["content"][0]["text"] == "pretty", lines
    assert_nothing_more(g)


def test_an_sse_event_over_several_data_lines_cannot_forge_a_line_on_stdout(hostile, guard):
    h = hostile()
    g = guard(h.url, "--timeout", "2")
    connect(g)
    # Request 7 is in flight (the server never answers it) while request 1's event smuggles an answer to 7.
    call(g, 7, "silent")
    call(g, 1, "multiline-sse", {"forge": 7})
    raw = []
    deadline = time.monotonic() + 4
    while time.monotonic() < deadline:
        with contextlib.suppress(queue.Empty):
            raw.append(g.lines.get(timeout=0.2))
    messages = [json.loads(line) for line in raw if line]  # every stdout line is one message
    assert [m.get("id") for m in messages] == [1, 7], messages
    assert_error(messages[1], 7, -32001, "upstream-timeout")
    # What the event hid after its line break is data of request 1's successful result (a server may put any
    # text in its own results; the default policy leaves them as they are), never a message of its own.
    for m in messages[1:]:
        assert "ghp_" not in json.dumps(m) and "/home/alice" not in json.dumps(m), m


def test_behind_listen_an_answer_with_line_ends_reaches_an_sse_client_whole(hostile):
    h = hostile()
    with listening(h.url) as g:
        headers, _ = g.post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT})
        session = headers["mcp-session-id"]
        g.post({"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
        # A progress notification first: the guard answers with an event stream.
        headers, body = g.post({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "progress-multiline", "arguments": {}, "_meta": {"progressToken": "p"}}}, session)
        assert headers["content-type"].startswith("text/event-stream"), headers
        # The WHATWG reading of the stream: events end at a blank line, their `data:` lines joined with LF.
        events = []
        for block in body.decode().replace("\r\n", "\n").split("\n\n"):
            data = [line[5:].removeprefix(" ") for line in block.split("\n") if line.startswith("data:")]
            if data:
                events.append("\n".join(data))
        messages = [json.loads(e) for e in events]
        assert [m.get("id") for m in messages if "method" not in m] == [2], messages


# ── every request answered exactly once, whatever the upstream sends ──


@pytest.mark.parametrize("tool", ["batch", "gzip", "short-cl", "bad-chunk", "html200", "no-content", "odd-event"])
def test_a_malformed_response_is_answered_once_and_the_next_request_served(hostile, guard, tool):
    h = hostile()
    g = guard(h.url)
    connect(g)
    call(g, 1, tool)
    answer, lines = raw_until_answer(g, 1)
    assert len(lines) == 1, lines
    text = json.dumps(answer)
    assert "<html" not in text and "/home/alice" not in text, answer
    assert_nothing_more(g)
    call(g, 2, "echo", {"after": tool})
    assert read_answer(g, 2)[0]["result"]["content"][0]["text"] == json.dumps({"after": tool})
    g.assert_log_is_json()


MODERN_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}


@pytest.mark.parametrize("modern", [False, True], ids=["session", "stateless"])
@pytest.mark.parametrize("tool", ["comments", "silent", "endless-line"])
def test_a_response_that_never_ends_is_timed_out_and_its_connection_closed(hostile, guard, tool, modern):
    h = hostile()
    g = guard(h.url, "--timeout", "1", "--max-upstream-bytes", str(1024 * 1024))
    connect(g)
    call(g, 1, tool, meta=MODERN_META if modern else None)
    answer, _, took = read_answer(g, 1, timeout=HANG)
    assert_error(answer, 1, -32001, "upstream-timeout")
    assert took < AT_ONCE
    # The exchange is closed: no connection stays open for it.
    deadline = time.monotonic() + AT_ONCE
    while open_connections(g.proc.pid, h.port) > 1 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert open_connections(g.proc.pid, h.port) <= 1
    rss = vm_rss_kb(g.proc.pid)
    assert rss is not None and rss < 60 * 1024, f"{rss} KiB"
    call(g, 2, "echo")
    assert "result" in read_answer(g, 2)[0]
    assert_nothing_more(g)


def test_an_sse_field_of_10_mb_and_10000_retry_fields_cost_no_memory(hostile, guard):
    h = hostile()
    g = guard(h.url, "--max-upstream-bytes", str(1024 * 1024))
    connect(g)
    call(g, 1, "big-id")
    answer = read_answer(g, 1, timeout=HANG)[0]
    assert answer["result"]["content"][0]["text"] == "after a big id", answer
    rss = vm_rss_kb(g.proc.pid)
    assert rss is not None and rss < 40 * 1024, f"{rss} KiB"


def test_a_stream_kept_open_after_its_answer_holds_no_connection(hostile, guard):
    h = hostile()
    g = guard(h.url)
    connect(g)
    for id in range(1, 31):
        call(g, id, "keep-open")
        assert read_answer(g, id)[0]["result"]["content"][0]["text"] == "kept open"
    time.sleep(1)
    held = open_connections(g.proc.pid, h.port)
    assert held <= 2, f"{held} connections held for 30 answered requests"


def test_streams_kept_open_after_their_answers_do_not_exhaust_the_guards_descriptors(hostile):
    h = hostile()
    g = Guard(["--upstream", h.url], [], max_open_files=64)
    try:
        connect(g)
        for id in range(1, 81):
            call(g, id, "keep-open")
            answer = read_answer(g, id)[0]
            assert "result" in answer, (id, answer)
        call(g, 100, "echo")
        assert "result" in read_answer(g, 100)[0]
    finally:
        g.kill()


def test_a_notification_the_upstream_sits_on_does_not_stall_the_requests_after_it(hostile, guard):
    h = hostile()
    g = guard(h.url, "--timeout", "3")
    connect(g)
    call(g, 1, "stall")
    assert "result" in read_answer(g, 1)[0]
    g.send({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"})
    call(g, 2, "echo", {"after": "a stalled notification"})
    answer = read_answer(g, 2, timeout=HANG)[0]
    assert "result" in answer, answer


# ── nothing leaks ──


def test_a_redirect_is_not_followed_and_no_credential_reaches_another_origin(hostile, guard):
    h = hostile()
    elsewhere = hostile()
    url, header, env = with_credentials(h)
    g = guard(url, *header, env=env)
    connect(g)
    for id, status in enumerate([301, 302, 307, 308], start=1):
        call(g, id, "redirect", {"status": status, "location": f"{elsewhere.url}?from={status}"})
        answer, lines = raw_until_answer(g, id)
        assert "error" in answer and len(lines) == 1, answer
        assert str(elsewhere.port) not in json.dumps(answer), answer
    time.sleep(0.3)
    assert elsewhere.requests() == []
    # https -> http downgrade: the same.
    call(g, 9, "redirect", {"status": 307, "location": elsewhere.url.replace("http:", "https:")})
    assert "error" in read_answer(g, 9)[0]
    assert_nothing_more(g)
    assert elsewhere.requests() == []


@pytest.mark.parametrize("tool", ["reflect", "reflect-result"])
@pytest.mark.parametrize("credential", [
    "header-from-env",
    "header-from-env-plain-name",
    "header-as-written",
    "userinfo-as-basic",
    "query-key",
])
def test_an_upstream_reflecting_the_guards_credentials_leaks_none_of_them(hostile, guard, tool, credential):
    import base64

    h = hostile()
    secret, args, env = {
        "header-from-env": (CREDENTIAL, [h.url, "--upstream-header", "X-Upstream-Key: env:UPSTREAM_KEY"],
                            {"UPSTREAM_KEY": CREDENTIAL}),
        # The env-value rule keeps only variables whose names look secret (KEY, TOKEN, ...): this one does not.
        "header-from-env-plain-name": (CREDENTIAL, [h.url, "--upstream-header", "X-Upstream-Key: env:MCP_UPSTREAM"],
                                       {"MCP_UPSTREAM": CREDENTIAL}),
        "header-as-written": (CREDENTIAL, [h.url, "--upstream-header", f"X-Upstream-Key: {CREDENTIAL}"], {}),
        "userinfo-as-basic": (base64.b64encode(f"alice:{BASIC_PASSWORD}".encode()).decode(),
                              [h.url.replace("http://", f"http://alice:{BASIC_PASSWORD}@")], {}),
        "query-key": (QUERY_KEY, [f"{h.url}?k={QUERY_KEY}"], {}),
    }[credential]
    g = guard(*args, env=env)
    connect(g)
    call(g, 1, tool)
    answer = read_answer(g, 1)[0]
    g.close_stdin()
    g.wait()
    sent = [r for r in h.requests() if r["method"] == "POST"]
    assert secret in json.dumps(sent[-1]), "the upstream got the credential (the test's premise)"
    assert secret not in json.dumps(answer), answer
    assert secret not in "\n".join(g.stderr_lines), "in the operator log"


def test_the_upstreams_headers_never_reach_a_listen_client_and_its_session_id_is_kept(hostile):
    h = hostile("--rotate-session")
    with listening(h.url, stdout=subprocess.PIPE) as g:
        headers, _ = g.post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT})
        session = headers["mcp-session-id"]
        g.post({"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
        headers, body = g.post({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                                "params": {"name": "cookie", "arguments": {}}}, session)
        everything = json.dumps(headers) + body.decode()
        for secret in ("COOKIE-SECRET", "XHDR-SECRET", "upstream-realm", "rotated-in-a-tool-answer"):
            assert secret not in everything, secret
        assert "set-cookie" not in headers and "www-authenticate" not in headers, headers
        g.post({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "echo", "arguments": {}}}, session)
        # The upstream's session is the one initialize named, whatever later responses say.
        sent = {r["headers"].get("mcp-session-id") for r in h.requests() if "tools/call" in r["body"]}
        assert len(sent) == 1 and None not in sent and "rotated-in-a-tool-answer" not in sent, sent


@pytest.mark.parametrize("session", ["huge", "control"])
def test_a_hostile_session_id_is_answered_once(hostile, guard, session):
    h = hostile("--session-id-bytes", "200000") if session == "huge" else hostile("--session-id", "a\x01b")
    g = guard(h.url)
    g.request(0, "initialize", INIT)
    answer, lines = raw_until_answer(g, 0, timeout=HANG)
    assert len(lines) == 1
    if "result" in answer:
        g.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        call(g, 1, "echo")
        answer, lines = raw_until_answer(g, 1, timeout=HANG)
        assert len(lines) == 1
    assert_nothing_more(g)
    assert g.proc.poll() is None
    g.assert_log_is_json()


# ── HTTP+SSE (2024-11-05): the endpoint the stream names ──


@pytest.mark.parametrize("where", ["other-host", "other-port", "https", "scheme-relative", "userinfo-trick"])
def test_a_legacy_endpoint_on_another_origin_gets_nothing(hostile, guard, where):
    elsewhere = hostile()
    endpoint = {
        "other-host": f"http://localhost:{elsewhere.port}/messages",
        "other-port": f"http://127.0.0.1:{elsewhere.port}/messages",
        "https": f"https://127.0.0.1:{elsewhere.port}/messages",
        # A path to the guard's resolver, a host to a browser's: on the same origin or refused, never elsewhere.
        "scheme-relative": f"//127.0.0.1:{elsewhere.port}/messages",
        "userinfo-trick": "http://127.0.0.1:{port}@127.0.0.1:" + f"{elsewhere.port}/messages",
    }[where]
    h = hostile("--legacy-endpoint", endpoint)
    url, header, env = with_credentials(h)
    g = guard(url, *header, env=env)
    g.request(0, "initialize", INIT)
    _, lines = raw_until_answer(g, 0, timeout=HANG)
    assert len(lines) == 1, lines
    assert_nothing_more(g)
    assert elsewhere.requests() == []


@pytest.mark.parametrize("endpoint", ["/a/../messages?sessionId=1", "../../messages?sessionId=1",
                                      "http://mallory:stolen@127.0.0.1:{port}/messages?sessionId=1"])
def test_a_legacy_endpoint_on_the_same_origin_is_served_with_the_guards_credential_only(hostile, guard, endpoint):
    h = hostile("--legacy-endpoint", endpoint)
    g = guard(h.url, "--upstream-header", "X-Upstream-Key: env:UPSTREAM_KEY", env={"UPSTREAM_KEY": CREDENTIAL})
    connect(g)
    call(g, 1, "echo")
    answer, lines = raw_until_answer(g, 1, timeout=HANG)
    assert answer["result"]["content"][0]["text"] == "legacy" and len(lines) == 1, answer
    posts = [r for r in h.requests() if r["method"] == "POST" and not r["path"].startswith("/mcp")]
    assert posts and all(r["path"].endswith("messages?sessionId=1") for r in posts), posts
    # The endpoint's userinfo is the upstream's word, never sent as a credential of the guard's.
    assert all(r["headers"].get("x-upstream-key") == CREDENTIAL for r in posts)
    assert not [r for r in posts if "authorization" in r["headers"] or "mallory" in json.dumps(r)], posts


# ── more of what a broken upstream sends ──


def test_an_informational_response_before_the_answer_is_skipped(hostile, guard):
    h = hostile()
    g = guard(h.url)
    connect(g)
    call(g, 1, "early-hints")
    answer, lines = raw_until_answer(g, 1)
    assert answer["result"]["content"][0]["text"] == "after early hints" and len(lines) == 1, answer
    assert_nothing_more(g)


def test_a_request_of_the_servers_own_in_place_of_the_answer_is_relayed_and_the_request_answered(hostile, guard):
    h = hostile()
    g = guard(h.url)
    connect(g)
    call(g, 1, "request")
    answer, lines = raw_until_answer(g, 1)
    assert_error(answer, 1, -32000, "upstream-connection-failed")
    before = [json.loads(line) for line in lines[:-1]]
    assert [m.get("method") for m in before] == ["roots/list"], before
    assert_nothing_more(g)


def test_an_answer_with_its_id_twice_answers_no_other_request(hostile, guard):
    h = hostile()
    g = guard(h.url, "--timeout", "2")
    connect(g)
    call(g, 7, "silent")
    call(g, 1, "dup-id", {"id": 7})
    _, lines = raw_until_answer(g, 1)
    assert len(lines) == 1, lines
    seven, lines = raw_until_answer(g, 7, timeout=HANG)
    assert_error(seven, 7, -32001, "upstream-timeout")
    assert len(lines) == 1, lines
    assert_nothing_more(g)


def test_a_get_stream_that_ends_at_once_is_not_reopened_forever(hostile, guard):
    h = hostile("--get-stream-ends")
    g = guard(h.url)
    connect(g)
    time.sleep(3)
    gets = [r for r in h.requests() if r["method"] == "GET"]
    assert len(gets) <= 6, f"{len(gets)} GET streams in 3 s"


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_an_upstream_body_cannot_forge_a_log_line(hostile, guard, fmt):
    h = hostile()
    g = guard(h.url, "--log-format", fmt)
    connect(g)
    call(g, 1, "log-inject")
    assert "error" in read_answer(g, 1)[0]
    g.close_stdin()
    assert g.wait() == 0
    assert not [line for line in g.stderr_lines if line.startswith(("2026-01-01", '{"timestamp": "2026-01-01'))]
    if fmt == "json":
        g.assert_log_is_json()
        assert not g.events("forged")


def test_a_body_that_is_no_json_is_logged_redacted(hostile, guard):
    h = hostile()
    g = guard(h.url)
    connect(g)
    call(g, 1, "not-json-secret", {"mark": "zz9"})
    assert_error(read_answer(g, 1)[0], 1, -32000, "upstream-connection-failed")
    g.wait_event("dropped", detail="not JSON")
    assert "hunter2-zz9" not in "\n".join(g.stderr_lines)


def test_the_debug_log_names_no_credential(hostile, guard):
    # The upstream's session id is a bearer of the session too (MCP's security guidance): not logged either.
    h = hostile("--session-id", "upstream-session-SECRET-31337")
    url, header, env = with_credentials(h)
    g = guard(url, *header, "--log-level", "debug", env=env)
    connect(g)
    call(g, 1, "echo")
    read_answer(g, 1)
    call(g, 2, "redirect", {"location": "http://127.0.0.1:9/x?token=QUERYKEY-777777"})
    read_answer(g, 2)
    g.close_stdin()
    g.wait()
    log = "\n".join(g.stderr_lines)
    assert "DEBUG" in log or '"level":"DEBUG"' in log
    for secret in (CREDENTIAL, BASIC_PASSWORD, QUERY_KEY, "alice", "SECRET-31337"):
        assert secret not in log, secret


def test_exit_is_bounded_when_the_upstream_sits_on_everything(hostile, guard):
    h = hostile()
    g = guard(h.url, "--timeout", "2")
    connect(g)
    call(g, 1, "stall")
    assert "result" in read_answer(g, 1)[0]
    call(g, 2, "silent")
    g.send({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"})
    started = time.monotonic()
    g.close_stdin()
    messages = g.read_until_eof(timeout=60)
    status = g.wait(timeout=60)
    took = time.monotonic() - started
    assert [m.get("id") for m in messages] == [2], messages
    assert status == 0
    assert took < 10, f"{took:.1f} s to exit"


# ── cross-client integrity behind --listen (issue 34's rules, over an HTTP upstream) ──


def test_an_upstream_answering_another_clients_request_reaches_neither_client(hostile):
    import threading

    h = hostile()
    with listening(h.url, "--timeout", "2", stdout=subprocess.PIPE) as g:

        def post(message: dict, session: str | None = None) -> tuple[dict, Any]:
            headers, raw = g.post(message, session)
            body = raw.decode()
            if headers.get("content-type", "").startswith("text/event-stream"):
                messages = [json.loads(line[5:]) for line in body.splitlines() if line.startswith("data:")]
                return headers, [m for m in messages if "id" in m and "method" not in m][-1]
            return headers, json.loads(body) if body else None

        def open_session() -> str:
            headers, _ = post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": INIT})
            post({"jsonrpc": "2.0", "method": "notifications/initialized"}, headers["mcp-session-id"])
            return headers["mcp-session-id"]

        a, b = open_session(), open_session()
        got: dict[str, Any] = {}
        waiting = threading.Thread(target=lambda: got.update(a=post(
            {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "silent", "arguments": {}}}, a)[1]))
        waiting.start()
        deadline = time.monotonic() + AT_ONCE
        while not (silent := [r for r in h.requests() if '"silent"' in r["body"]]) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert silent
        a_id = json.loads(silent[0]["body"])["id"]
        # B's upstream exchange answers A's request (by the id the upstream saw for it).
        _, b_answer = post({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                            "params": {"name": "other-id", "arguments": {"id": a_id}}}, b)
        waiting.join(HANG)
        assert "answered for another" not in json.dumps(b_answer), b_answer
        assert "error" in b_answer, b_answer
        assert got["a"]["error"]["data"]["type"] == "upstream-timeout", got["a"]
