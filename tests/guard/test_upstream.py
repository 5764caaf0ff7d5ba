"""`jsonrpc-errors guard --upstream URL`: a server at a URL guarded, over stdio and behind `--listen`, against
`servers/http_fault_server.py` (Streamable HTTP, and HTTP+SSE with --legacy), which fails on demand.

Each fault is answered at once and exactly once, in the dialect: connection refused, DNS, TLS (unknown CA,
wrong name, expired; a CA generated here), a reset mid-response, an SSE stream cut before the answer, an
answer that never comes (the guard's --timeout), an answer given twice or to an id never sent; HTTP 401/403
(the guard's credential, said without it), 404 (the session re-opened, or the request answered), 408/429/503
with Retry-After (retry_after_secs, retryable), other statuses with an HTML body (never relayed). The URL in
answers and logs carries no userinfo, query or fragment; the guard's credential reaches the upstream, a
client's never does, and neither is logged.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import queue
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from harness import GUARD, HANG, HERE, PY, Guard, vm_rss_kb

HTTP_FAULT_SERVER = HERE / "servers" / "http_fault_server.py"
INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}
# Answered "at once": well under the guard's default 50 s timeout, and under any retry the guard could make.
AT_ONCE = 5.0


class Server:
    """A fake upstream (`script`: http_fault_server.py unless named) on a free loopback port; its request record."""

    SCRIPT = HTTP_FAULT_SERVER

    def __init__(self, tmp: Path, *args: str):
        self.record = tmp / f"record-{time.monotonic_ns()}.jsonl"
        self.proc = subprocess.Popen([PY, str(self.SCRIPT), "--record", str(self.record), *args],
                                     stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        assert line.startswith("port "), line
        self.port = int(line.split()[1])
        scheme = "https" if "--tls" in args else "http"
        self.url = f"{scheme}://127.0.0.1:{self.port}/mcp"

    def requests(self) -> list[dict]:
        if not self.record.exists():
            return []
        return [json.loads(line) for line in self.record.read_text().splitlines()]

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait()


@contextlib.contextmanager
def started_servers(kind: type[Server], tmp: Path) -> Iterator[Callable[..., Any]]:
    """A starter of `kind` servers (each with its own arguments), every one stopped at the end."""
    started: list[Server] = []

    def start(*args: str) -> Server:
        s = kind(tmp, *args)
        started.append(s)
        return s

    try:
        yield start
    finally:
        for s in started:
            s.stop()


@pytest.fixture
def server(tmp_path):
    with started_servers(Server, tmp_path) as start:
        yield start


class Listening:
    """A `guard --listen 127.0.0.1:0 --upstream URL` process: its address, and its stderr (complete once the
    `listening` block has ended)."""

    def __init__(self, proc: subprocess.Popen, addr: str, log: list[str]):
        self.proc, self.addr, self.log = proc, addr, log

    def post(self, message: dict, session: str | None = None,
             headers: dict[str, str] | None = None) -> tuple[dict[str, str], bytes]:
        """POSTs one message to /mcp: the response's headers (names in lower case) and its raw body."""
        sent = {"content-type": "application/json", "accept": "application/json, text/event-stream", **(headers or {})}
        if session:
            sent["mcp-session-id"] = session
        req = urllib.request.Request(f"http://{self.addr}/mcp", json.dumps(message).encode(), sent)
        with urllib.request.urlopen(req, timeout=HANG) as r:
            return {k.lower(): v for k, v in r.headers.items()}, r.read()


@contextlib.contextmanager
def listening(url: str, *args: str, stdout: int = subprocess.DEVNULL,
              env: dict[str, str] | None = None) -> Iterator[Listening]:
    """The guard behind `--listen` in front of `url`, terminated at the block's end."""
    proc = subprocess.Popen([str(GUARD), "guard", "--listen", "127.0.0.1:0", "--upstream", url, *args],
                            stdout=stdout, stderr=subprocess.PIPE, text=True, env=env)
    log: list[str] = []
    try:
        addr = None
        for line in proc.stderr:
            log.append(line)
            if '"listening"' in line:
                addr = json.loads(line)["addr"]
                break
        assert addr, log
        yield Listening(proc, addr, log)
    finally:
        proc.terminate()
        log.append(proc.communicate(timeout=HANG)[1])


@pytest.fixture
def guard():
    started: list[Guard] = []

    def start(url: str, *args: str, env: dict[str, str] | None = None) -> Guard:
        g = Guard(["--upstream", url, *args], [], env=env)
        started.append(g)
        return g

    yield start
    for g in started:
        g.kill()


def call(g: Guard, id: Any, tool: str, arguments: dict | None = None, meta: dict | None = None) -> None:
    params: dict[str, Any] = {"name": tool, "arguments": arguments or {}}
    if meta:
        params["_meta"] = meta
    g.request(id, "tools/call", params)


def connect(g: Guard) -> dict:
    g.request(0, "initialize", INIT)
    answer = g.read()
    assert "result" in answer, answer
    g.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    return answer


def read_answer(g: Guard, id: Any, timeout: float = AT_ONCE) -> tuple[dict, list[dict], float]:
    """The answer to `id` (and what came before it), and how long it took."""
    started = time.monotonic()
    before = []
    while (message := g.read(timeout)).get("id") != id:
        before.append(message)
    return message, before, time.monotonic() - started


def assert_error(message: dict, id: Any, code: int, kind: str) -> dict:
    assert message.get("id") == id and "error" in message, message
    error = message["error"]
    assert error["code"] == code, message
    assert error["data"]["type"] == kind, message
    return error


def assert_nothing_more(g: Guard, wait: float = 0.5) -> None:
    """No further message (a second answer) within `wait`."""
    try:
        line = g.lines.get(timeout=wait)
    except queue.Empty:
        return
    raise AssertionError(f"an extra message: {line!r}")


def test_a_session_over_http_is_relayed_as_over_a_pipe(server, guard):
    s = server()
    g = guard(s.url)
    answer = connect(g)
    assert answer["result"]["serverInfo"]["name"] == "http-fault-server"
    call(g, 1, "echo", {"x": 1})
    assert read_answer(g, 1)[0]["result"]["content"][0]["text"] == '{"x": 1}'
    # An SSE response: the progress before it, then the answer.
    call(g, 2, "sse", meta={"progressToken": "p"})
    answer, before, _ = read_answer(g, 2)
    assert [m["params"]["progress"] for m in before] == [1, 2]
    assert "result" in answer
    g.close_stdin()
    assert g.wait() == 0
    requests = s.requests()
    # The session the upstream gave is sent back on every later request, and ended with DELETE.
    session = next(r for r in requests if '"initialize"' in r["body"])
    later = [r for r in requests if r is not session]
    ids = {r["headers"].get("mcp-session-id") for r in later}
    assert len(ids) == 1 and None not in ids, later
    assert later[-1]["method"] == "DELETE"
    # The negotiated revision on every request after initialize.
    assert {r["headers"].get("mcp-protocol-version") for r in later if r["method"] == "POST"} == {"2025-11-25"}
    g.assert_log_is_json()


def test_a_refused_connection_is_answered_at_once_and_the_next_request_tries_again(guard, server):
    # A port nothing listens on: bound, then closed.
    s = server()
    url = s.url + "?api_key=sk-live-SECRETSECRETSECRET#frag"
    s.stop()
    g = guard(url.replace("http://", "http://alice:pw-SECRET@"))
    g.request(1, "initialize", INIT)
    answer, _, took = read_answer(g, 1)
    error = assert_error(answer, 1, -32000, "upstream-connection-failed")
    assert took < AT_ONCE
    assert error["data"]["details"] == f"http://127.0.0.1:{s.port}/mcp"
    g.request(2, "ping")
    assert_error(read_answer(g, 2)[0], 2, -32000, "upstream-connection-failed")
    assert_nothing_more(g)
    g.close_stdin()
    assert g.wait() == 0
    log = "\n".join(g.stderr_lines)
    assert "refused" in log
    for secret in ("SECRETSECRET", "pw-SECRET", "alice", "frag"):
        assert secret not in log and secret not in json.dumps(answer), secret


def test_a_name_that_does_not_resolve_is_answered_at_once(guard):
    g = guard("http://nonexistent.invalid/mcp")
    g.request(1, "initialize", INIT)
    answer, _, took = read_answer(g, 1, timeout=15)
    assert_error(answer, 1, -32000, "upstream-connection-failed")
    assert took < 15
    g.wait_event("answered", detail="did not resolve")


def make_pki(tmp: Path) -> dict[str, Path]:
    """A CA, and leaves it signed: for 127.0.0.1 and localhost, for another name, and one that has expired."""
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.UTC)

    def name(cn: str) -> x509.Name:
        return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])

    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (x509.CertificateBuilder().subject_name(name("guard test CA")).issuer_name(name("guard test CA"))
          .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
          .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True, content_commitment=False,
                                       key_encipherment=False, data_encipherment=False, key_agreement=False,
                                       encipher_only=False, decipher_only=False), critical=True)
          .sign(ca_key, hashes.SHA256()))
    out = {"ca": tmp / "ca.pem"}
    out["ca"].write_bytes(ca.public_bytes(serialization.Encoding.PEM))

    def leaf(label: str, names: list[x509.GeneralName], before: datetime.datetime, after: datetime.datetime) -> None:
        key = ec.generate_private_key(ec.SECP256R1())
        cert = (x509.CertificateBuilder().subject_name(name(label)).issuer_name(ca.subject)
                .public_key(key.public_key()).serial_number(x509.random_serial_number())
                .not_valid_before(before).not_valid_after(after)
                .add_extension(x509.SubjectAlternativeName(names), critical=False)
                .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
                .sign(ca_key, hashes.SHA256()))
        out[f"{label}.crt"] = tmp / f"{label}.crt"
        out[f"{label}.key"] = tmp / f"{label}.key"
        out[f"{label}.crt"].write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        out[f"{label}.key"].write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                          serialization.NoEncryption()))

    local = [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]
    leaf("good", local, now - datetime.timedelta(hours=1), now + datetime.timedelta(days=1))
    leaf("othername", [x509.DNSName("other.example")], now - datetime.timedelta(hours=1), now + datetime.timedelta(days=1))
    leaf("expired", local, now - datetime.timedelta(days=3), now - datetime.timedelta(days=2))
    return out


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    return make_pki(tmp_path_factory.mktemp("pki"))


def test_tls_with_the_guards_own_ca_works(server, guard, pki):
    s = server("--tls", str(pki["good.crt"]), str(pki["good.key"]))
    g = guard(s.url, "--upstream-ca", str(pki["ca"]))
    connect(g)
    call(g, 1, "echo", {"over": "tls"})
    assert "result" in read_answer(g, 1)[0]


@pytest.mark.parametrize("leaf, ca, words", [
    ("good", False, "authority the guard does not trust"),
    ("othername", True, "not valid for its host name"),
    ("expired", True, "has expired"),
])
def test_a_tls_failure_is_answered_at_once_and_named(server, guard, pki, leaf, ca, words):
    s = server("--tls", str(pki[f"{leaf}.crt"]), str(pki[f"{leaf}.key"]))
    g = guard(s.url, *(["--upstream-ca", str(pki["ca"])] if ca else []))
    g.request(1, "initialize", INIT)
    answer, _, took = read_answer(g, 1)
    assert_error(answer, 1, -32000, "upstream-connection-failed")
    assert took < AT_ONCE
    g.wait_event("answered", detail=words)
    assert not [r for r in s.requests()], "nothing was sent over a connection the guard refused"


@pytest.mark.parametrize("tool", ["reset", "cut"])
def test_a_response_cut_short_is_answered_at_once(server, guard, tool):
    s = server()
    g = guard(s.url)
    connect(g)
    call(g, 1, tool, meta={"progressToken": "p"})
    answer, before, took = read_answer(g, 1)
    assert_error(answer, 1, -32000, "upstream-connection-failed")
    assert took < AT_ONCE
    if tool == "cut":
        assert [m.get("method") for m in before] == ["notifications/progress"], "what came before the cut is relayed"
    assert_nothing_more(g)
    # The upstream is not gone: the next request is answered by it.
    call(g, 2, "echo")
    assert "result" in read_answer(g, 2)[0]


def test_an_answer_that_never_comes_is_timed_out_and_its_exchange_closed(server, guard):
    s = server()
    g = guard(s.url, "--timeout", "1")
    connect(g)
    call(g, 1, "never")
    answer, _, took = read_answer(g, 1, timeout=HANG)
    assert_error(answer, 1, -32001, "upstream-timeout")
    assert 0.9 < took < AT_ONCE
    # The guard told the upstream (a session's notifications/cancelled) and closed the exchange.
    cancelled = lambda: [r for r in s.requests() if "notifications/cancelled" in r["body"]]
    deadline = time.monotonic() + AT_ONCE
    while not cancelled() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert cancelled()
    call(g, 2, "echo")
    assert "result" in read_answer(g, 2)[0]
    assert_nothing_more(g)


def test_an_answer_given_twice_or_to_an_id_never_sent_reaches_the_client_once(server, guard):
    s = server()
    g = guard(s.url)
    connect(g)
    call(g, 1, "twice")
    assert "result" in read_answer(g, 1)[0]
    assert_nothing_more(g)
    call(g, 2, "stranger")
    # The stranger's answer is dropped; the request, whose exchange ended without its answer, is answered.
    answer, before, _ = read_answer(g, 2)
    assert before == []
    assert_error(answer, 2, -32000, "upstream-connection-failed")
    g.wait_event("dropped", detail="no pending request")
    assert_nothing_more(g)


@pytest.mark.parametrize("status, retry_after, code, kind", [
    (408, 3, -32013, "service-unavailable"),
    (429, 30, -32009, "rate-limited"),
    (503, 7, -32013, "service-unavailable"),
    (500, None, -32019, "upstream-error"),
    (502, None, -32000, "upstream-connection-failed"),
    (418, None, -32019, "upstream-error"),
])
def test_an_http_status_is_answered_in_the_dialect_and_its_body_never_relayed(server, guard, status, retry_after, code, kind):
    s = server()
    g = guard(s.url)
    connect(g)
    arguments: dict[str, Any] = {"status": status}
    if retry_after is not None:
        arguments["retry_after"] = retry_after
    call(g, 1, "status", arguments)
    answer, _, took = read_answer(g, 1)
    error = assert_error(answer, 1, code, kind)
    assert took < AT_ONCE
    text = json.dumps(answer)
    assert "<html" not in text and "/home/alice" not in text and "Oops" not in text
    if retry_after is not None:
        assert error["data"]["retry_after_secs"] == retry_after and error["data"]["retryable"] is True
    # In the mcp dialect a tool call's failure is a tool result.
    g2 = guard(s.url, "--dialect", "mcp")
    connect(g2)
    call(g2, 1, "status", arguments)
    result = read_answer(g2, 1)[0]
    assert result["result"]["isError"] is True, result
    assert "<html" not in json.dumps(result)


def test_a_json_rpc_error_in_an_http_error_answers_its_request(server, guard):
    s = server()
    g = guard(s.url)
    connect(g)
    call(g, 1, "rpc400")
    answer = read_answer(g, 1)[0]
    # The upstream's own JSON-RPC error (a code JSON-RPC owns: kept), under the request's id.
    assert answer["id"] == 1 and answer["error"]["code"] == -32600, answer
    call(g, 2, "secret")
    answer = read_answer(g, 2)[0]
    assert_error(answer, 2, -32019, "upstream-error")
    text = json.dumps(answer)
    assert "hunter2" not in text and "ghp_" not in text


def test_a_refused_credential_is_the_guards_and_neither_credential_is_logged(server, guard):
    s = server("--token", "upstream-token-0123456789abcdef")
    g = guard(s.url, "--upstream-header", "Authorization: env:UPSTREAM_TOKEN",
              env={"UPSTREAM_TOKEN": "Bearer wrong-token-0123456789abcdef"})
    g.request(1, "initialize", INIT)
    answer = read_answer(g, 1)[0]
    error = assert_error(answer, 1, -32019, "upstream-error")
    assert "the guard's credentials" in error["data"]["details"] and "401" in error["data"]["details"]
    assert error["data"]["retryable"] is False
    text = json.dumps(answer) + "\n".join(g.stderr_lines)
    assert "wrong-token" not in text and "<html" not in text and "realm" not in text
    # With the right one, the upstream gets it (and nothing else that looks like a credential).
    g = guard(s.url, "--upstream-header", "Authorization: env:UPSTREAM_TOKEN",
              env={"UPSTREAM_TOKEN": "Bearer upstream-token-0123456789abcdef"})
    connect(g)
    call(g, 1, "headers")
    seen = json.loads(read_answer(g, 1)[0]["result"]["content"][0]["text"])
    assert seen["authorization"] == "Bearer upstream-token-0123456789abcdef"
    g.close_stdin()
    g.wait()
    assert "upstream-token" not in "\n".join(g.stderr_lines)


def test_a_lost_session_is_reopened_and_the_request_sent_again(server, guard):
    s = server()
    g = guard(s.url)
    connect(g)
    call(g, 1, "forget")
    assert "result" in read_answer(g, 1)[0]
    call(g, 2, "echo", {"after": "forget"})
    answer = read_answer(g, 2)[0]
    assert answer["result"]["content"][0]["text"] == '{"after": "forget"}', answer
    g.wait_event("session-reopened")
    inits = [r for r in s.requests() if '"initialize"' in r["body"]]
    assert len(inits) == 2 and "jsonrpc-errors-guard:reopen" in inits[1]["body"]
    # When no new session can be opened, the request is answered.
    call(g, 3, "forget-all")
    read_answer(g, 3)
    call(g, 4, "echo")
    answer, _, took = read_answer(g, 4)
    assert_error(answer, 4, -32000, "upstream-connection-failed")
    assert took < AT_ONCE
    assert_nothing_more(g)


def test_a_server_that_speaks_only_http_sse_is_found_and_its_streams_end_answers_what_is_pending(server, guard):
    s = server("--legacy")
    g = guard(f"http://127.0.0.1:{s.port}/sse")
    answer = connect(g)
    assert answer["result"]["serverInfo"]["name"] == "http-fault-server-legacy"
    call(g, 1, "echo")
    assert read_answer(g, 1)[0]["result"]["content"][0]["text"] == "legacy echo"
    call(g, 2, "cut")
    answer, _, took = read_answer(g, 2)
    assert_error(answer, 2, -32000, "upstream-connection-failed")
    assert took < AT_ONCE
    # A new stream, the session opened on it again (its answer the guard's own), and the next request served.
    call(g, 3, "echo")
    assert read_answer(g, 3)[0]["result"]["content"][0]["text"] == "legacy echo"
    assert_nothing_more(g)


def test_behind_listen_the_upstreams_session_is_the_guards_and_a_clients_token_is_never_forwarded(server):
    s = server()
    client_token = {"authorization": "Bearer client-token-0123456789"}
    with listening(s.url, "--auth-token-env", "CLIENT_TOKEN", "--upstream-header", "Authorization: env:UPSTREAM_TOKEN",
                   env={"PATH": "/usr/bin:/bin", "CLIENT_TOKEN": "client-token-0123456789",
                        "UPSTREAM_TOKEN": "Bearer upstream-token-0123456789"}) as g:

        def post(message: dict, session: str | None = None) -> tuple[dict, Any]:
            headers, body = g.post(message, session, client_token)
            return headers, json.loads(body) if body else None

        headers, answer = post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT})
        assert "result" in answer
        session = headers.get("mcp-session-id")
        post({"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
        headers2, answer = post({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "headers", "arguments": {}}}, session)
        seen = json.loads(answer["result"]["content"][0]["text"])
        assert seen["authorization"] == "Bearer upstream-token-0123456789"
        upstream_session = seen["mcp-session-id"]
        # The client's session is the guard's; the upstream's never reaches it (headers or bodies).
        assert session and session != upstream_session
        assert upstream_session not in json.dumps([headers, headers2])
        req = urllib.request.Request(f"http://{g.addr}/mcp", method="DELETE",
                                     headers={"mcp-session-id": session, **client_token})
        urllib.request.urlopen(req, timeout=HANG).read()
        deadline = time.monotonic() + AT_ONCE
        while not [r for r in s.requests() if r["method"] == "DELETE"] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [r["headers"]["mcp-session-id"] for r in s.requests() if r["method"] == "DELETE"] == [upstream_session]
        # No request the upstream got carried the client's token.
        assert not [r for r in s.requests() if "client-token" in json.dumps(r["headers"])]
    everything = "".join(g.log)
    assert "client-token-0123456789" not in everything and "upstream-token-0123456789" not in everything


def test_behind_listen_readiness_follows_an_upstream_that_comes_up_later(server):
    # A port nothing listens on yet: the guard starts, is not ready, and becomes ready once the server is up.
    s = server()
    port = s.port
    s.stop()
    with listening(f"http://127.0.0.1:{port}/mcp") as g:

        def ready() -> int:
            try:
                with urllib.request.urlopen(f"http://{g.addr}/readyz", timeout=HANG) as r:
                    return r.status
            except urllib.error.HTTPError as e:
                return e.code

        deadline = time.monotonic() + AT_ONCE
        while ready() != 503 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert ready() == 503
        server("--port", str(port))
        deadline = time.monotonic() + 3 * AT_ONCE
        while ready() != 200 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert ready() == 200


def test_http2_is_negotiated_over_tls(guard, pki):
    # node:http2 with ALPN h2 only: the guard's client speaks HTTP/2 where TLS negotiates it.
    proc = subprocess.Popen(["node", str(HERE / "servers" / "h2_server.mjs"), str(pki["good.crt"]), str(pki["good.key"])],
                            stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line.startswith("port "), line
        g = guard(f"https://127.0.0.1:{line.split()[1]}/mcp", "--upstream-ca", str(pki["ca"]))
        connect(g)
        call(g, 1, "any")
        assert read_answer(g, 1)[0]["result"]["content"][0]["text"] == "over HTTP/2.0"
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.parametrize("sse", [False, True])
def test_a_message_over_max_upstream_bytes_is_discarded_as_it_streams_and_its_request_answered(server, guard, sse):
    s = server()
    g = guard(s.url, "--max-upstream-bytes", str(1024 * 1024))
    connect(g)
    call(g, 1, "big", {"mb": 48, "sse": sse})
    answer, _, _ = read_answer(g, 1, timeout=HANG)
    # Its id is in its first bytes: answered at once, as a child's oversize line is.
    error = assert_error(answer, 1, -32019, "upstream-error")
    assert "exceeds the guard's limit" in error["data"]["details"], error
    rss = vm_rss_kb(g.proc.pid)
    assert rss is not None and rss < 40 * 1024, f"{rss} KiB for a 48 MiB message with a 1 MiB cap"
    call(g, 2, "big", {"mb": 1, "sse": sse})
    assert_error(read_answer(g, 2, timeout=HANG)[0], 2, -32019, "upstream-error")
    call(g, 3, "echo")
    assert "result" in read_answer(g, 3)[0]
