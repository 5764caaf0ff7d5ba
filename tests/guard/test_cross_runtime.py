"""One scripted session, three proxies, one answer.

The same raw client lines go through `jsonrpc-errors guard` (the Rust shell), the Python example proxy
(`examples/mcp-proxy-python/proxy.py`: the official Python SDK's stdio transports plus
`jsonrpc_errors.mcp.guard_streams`) and the TypeScript example proxy (`examples/mcp-proxy-ts/proxy.js`:
`jsonrpc-errors/mcp`'s GuardedTransport with stdio of its own, lines as bytes), each in front of the bundled
misbehaving server. Every message the client sees must be the same in all three.

What is compared: each line the client receives, parsed and written back as canonical JSON (members sorted,
no spaces), with the generated correlation ids and timestamps removed. Not the raw bytes: the Python SDK
re-serializes every message in its schema's member order (`jsonrpc`, `id`, `error`), where the Rust guard
and the TypeScript proxy (which reads and writes lines as bytes) forward the upstream's bytes untouched and
write their own answers as `jsonrpc`, `error`, `id`. Ids, numbers and strings in this session are written
the same way by all three (integers, no escapes that differ); test_ts_proxy.py compares the TypeScript
proxy's bytes with the Rust guard's where they do differ.

What is not compared: the non-JSON line `flaky_print` writes to the wire. The Rust guard and the TypeScript
proxy read it, drop it and log it; the Python SDK's stdio transport never hands it to the adapter (it
reports a parse error). The client sees nothing of it in all three, which the comparison covers.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import queue
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
GUARD = Path(os.environ.get("JSONRPC_ERRORS_BIN", ROOT / "target" / "release" / "jsonrpc-errors"))
PYTHON = sys.executable
SERVER = [PYTHON, str(ROOT / "examples" / "guard" / "misbehaving_server.py")]
PY_PROXY = ROOT / "examples" / "mcp-proxy-python" / "proxy.py"
TS_PROXY = ROOT / "examples" / "mcp-proxy-ts" / "proxy.js"
WAIT = 30.0

# Members generated per call (clock and entropy): different in every run of every runtime.
GENERATED = {"correlation_id", "correlationId", "timestamp"}

PROTOCOL = "2025-06-18"
# (line to send, id of the answer to wait for or None). Requests are sent one at a time, each after the
# previous one's answer, so the order of what comes back is the session's, not a race.
SCRIPT: list[tuple[dict[str, Any], int | None]] = [
    ({"jsonrpc": "2.0", "id": 1, "method": "initialize",
      "params": {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "cross-runtime", "version": "1"}}}, 1),
    ({"jsonrpc": "2.0", "method": "notifications/initialized"}, None),
    ({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, 2),
    ({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "hello"}}}, 3),
    ({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
      "params": {"name": "count", "arguments": {"steps": 3, "delay_ms": 10}, "_meta": {"progressToken": "p-4"}}}, 4),
    ({"jsonrpc": "2.0", "id": 5, "method": "resources/read", "params": {"uri": "info://server"}}, 5),
    ({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "query_orders", "arguments": {"customer": "acme"}}}, 6),
    ({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "charge_card", "arguments": {"amount": 12.5}}}, 7),
    ({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "export_report", "arguments": {}}}, 8),
    ({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "flaky_print", "arguments": {}}}, 9),
    ({"jsonrpc": "2.0", "id": 10, "method": "prompts/get", "params": {"name": "nothing-here"}}, 10),
    # The server exits while this is in flight: the proxy owes the answer.
    ({"jsonrpc": "2.0", "id": 11, "method": "tools/call", "params": {"name": "crash", "arguments": {}}}, 11),
]

# Secrets the misbehaving server puts in its failures and logs (see misbehaving_server.py).
SECRETS = ["ghp_A1b2C3d4", "hunter2", "sk_live_51HxQ2", "sk-proj-Zq8x", "/home/alice", "Traceback"]


def without_generated(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: without_generated(v) for k, v in value.items() if k not in GENERATED}
    if isinstance(value, list):
        return [without_generated(v) for v in value]
    return value


def canonical(line: bytes) -> str:
    message = without_generated(json.loads(line))
    # Ids compared by value, as JSON-RPC compares them: `1E2` comes back as the upstream spells it (`100.0` from
    # the fault server) through the proxies that relay bytes, `100` through the Python SDK's message type.
    if isinstance(message, dict) and isinstance(message.get("id"), float) and message["id"].is_integer():
        message["id"] = int(message["id"])
    return json.dumps(message, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def run_session(command: list[str]) -> tuple[list[str], str]:
    """Drives one proxy through SCRIPT; the client-visible lines in canonical form, and its stderr."""
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    lines: queue.Queue[bytes | None] = queue.Queue()
    stderr: list[bytes] = []

    def pump_stdout() -> None:
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    def pump_stderr() -> None:
        stderr.extend(proc.stderr)

    threading.Thread(target=pump_stdout, daemon=True).start()
    err_pump = threading.Thread(target=pump_stderr, daemon=True)
    err_pump.start()
    seen: list[str] = []
    try:
        for message, answer_id in SCRIPT:
            proc.stdin.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
            proc.stdin.flush()
            if answer_id is None:
                continue
            while True:
                try:
                    line = lines.get(timeout=WAIT)
                except queue.Empty:
                    raise AssertionError(f"{command[:3]}: no answer to id {answer_id}; stderr:\n" + b"".join(stderr).decode(errors="replace")[-3000:])
                assert line is not None, f"{command[:3]}: stdout closed before id {answer_id}; stderr:\n" + b"".join(stderr).decode(errors="replace")[-3000:]
                seen.append(canonical(line))
                if json.loads(line).get("id") == answer_id:
                    break
        proc.stdin.close()
        # Whatever else comes before the proxy exits (nothing is expected after the crash's answer).
        while (line := lines.get(timeout=WAIT)) is not None:
            seen.append(canonical(line))
        proc.wait(timeout=WAIT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err_pump.join(timeout=5)
    return seen, b"".join(stderr).decode(errors="replace")


def proxies(dialect: str) -> dict[str, list[str]]:
    return {
        "rust guard": [str(GUARD), "guard", "--dialect", dialect, "--", *SERVER],
        "python proxy": [PYTHON, str(PY_PROXY), "--dialect", dialect, "--", *SERVER],
        "typescript proxy": ["node", str(TS_PROXY), "--dialect", dialect, "--", *SERVER],
    }


@pytest.mark.parametrize("dialect", ["canonical", "mcp"])
def test_the_rust_guard_and_both_sdk_proxies_show_the_client_the_same_messages(dialect: str) -> None:
    for path in (GUARD, PY_PROXY, TS_PROXY):
        assert path.exists(), f"{path} is missing (run ./scripts/setup.sh)"
    sessions = {name: run_session(command) for name, command in proxies(dialect).items()}
    reference, _ = sessions["rust guard"]
    # The session is what it should be before it is compared: every request answered once, nothing leaked.
    answered = [json.loads(s).get("id") for s in reference if "id" in json.loads(s)]
    assert answered == [m["id"] for m, a in SCRIPT if a is not None], reference
    for line in reference:
        for secret in SECRETS:
            assert secret not in line, f"{secret} reached the client: {line}"
    # The crash's answer is the proxy's own: an error, or in `mcp` a failed tool result.
    crash = json.loads(reference[-1])
    assert crash["id"] == 11 and ("error" in crash or crash["result"].get("isError") is True), crash
    for name, (seen, stderr) in sessions.items():
        assert seen == reference, (
            f"{name} differs from the Rust guard in dialect {dialect}:\n"
            + "\n".join(f"  rust: {r}\n  {name.split()[0]}: {s}" for r, s in zip(reference, seen) if r != s)
            + f"\n({len(reference)} vs {len(seen)} lines)\nstderr tail:\n{stderr[-2000:]}"
        )


# An upstream that writes to its stderr: one 250 KB burst of token lines and private-key blocks, then a key
# block a line at a time (each read may get one line), then a line in two writes, then serves nothing until
# its stdin closes.
NOISY_UPSTREAM = r"""
import base64, hashlib, sys, time
def body(b):
    return ["MIIE" + base64.b64encode(hashlib.sha512(f"{b}/{i}".encode()).digest()).decode()[:60] for i in range(30)]
burst = []
for b in range(110):
    burst.append("connecting with token ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8\nloading key %d\n-----BEGIN RSA PRIVATE KEY-----\n" % b
                 + "\n".join(body(b)) + "\n-----END RSA PRIVATE KEY-----\n")
sys.stderr.write("".join(burst)); sys.stderr.flush()
for line in ["loading key 110", "-----BEGIN RSA PRIVATE KEY-----", *body(110), "-----END RSA PRIVATE KEY-----"]:
    sys.stderr.write(line + "\n"); sys.stderr.flush(); time.sleep(0.002)
# A line written in two parts, some time apart (a logger writing a message, then its end).
sys.stderr.write("retrying with token ghp_A1b2C3d4E5f6"); sys.stderr.flush(); time.sleep(1)
sys.stderr.write("G7h8I9j0K1l2M3n4O5p6Q7r8\nstderr done\n"); sys.stderr.flush()
sys.stdin.read()
"""


def key_body_lines() -> list[str]:
    import base64
    import hashlib
    return ["MIIE" + base64.b64encode(hashlib.sha512(f"{b}/{i}".encode()).digest()).decode()[:60] for b in range(111) for i in range(30)]


def log_of_proxy_before(proxy: str, upstream: Path) -> str:
    """What `proxy` logs (its stderr) with the Python script `upstream` behind it, until that script's stderr
    says "stderr done"; then the client closes."""
    command = proxies("canonical")[proxy]
    command = command[: command.index("--") + 1] + [PYTHON, str(upstream)]
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    log: list[bytes] = []
    pump = threading.Thread(target=lambda: log.extend(proc.stderr), daemon=True)
    pump.start()
    deadline = time.monotonic() + WAIT
    while b"stderr done" not in b"".join(log[-5:]) and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    proc.stdin.close()
    proc.wait(timeout=WAIT)
    pump.join(timeout=5)
    return b"".join(log).decode(errors="replace")


@pytest.mark.parametrize("proxy", ["rust guard", "python proxy", "typescript proxy"])
def test_no_proxy_logs_a_secret_of_its_upstreams_stderr_in_part(proxy: str, tmp_path: Path) -> None:
    # Before, the Rust guard cut a burst wherever 64 KB fell (a token across the cut was logged in halves, a
    # key block's rest in clear), the Python relay redacted each read on its own (a block written a line at a
    # time was logged in clear) and the TypeScript one redacted a line's first part on its own when its end
    # came later. Each now hands whole lines to one redaction stream per session.
    upstream = tmp_path / "noisy_upstream.py"
    upstream.write_text(NOISY_UPSTREAM)
    text = log_of_proxy_before(proxy, upstream)
    assert "stderr done" in text and text.count("loading key") == 111, text[-3000:]
    leaked = [line for line in key_body_lines() if line[:24] in text]
    assert not leaked, f"{proxy}: {len(leaked)} key body lines reached its log, e.g. {leaked[0]}"
    for part in ("ghp_A1b2C3d4", "E5f6", "K1l2M3n4O5p6"):  # the token, and each half of the one written in two
        assert part not in text, f"{proxy} logged {part}"


# A key block left open on stderr (its END line not written yet), then a stray line on stdout holding a token.
STRAY_DURING_A_KEY_BLOCK = r"""
import sys, time
sys.stderr.write("dumping key\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n")
sys.stderr.flush(); time.sleep(0.5)
sys.stdout.write("Starting worker with token ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8\n"); sys.stdout.flush(); time.sleep(0.5)
sys.stderr.write("-----END RSA PRIVATE KEY-----\nstderr done\n"); sys.stderr.flush()
sys.stdin.read()
"""


def test_the_typescript_proxy_logs_a_stray_line_on_its_own_not_as_part_of_a_key_block(tmp_path: Path) -> None:
    # The stray stdout line goes to the guard session, as the Rust guard's does: a `dropped` event whose
    # detail quotes it redacted. (When the SDK's stdio transport read the upstream, it reported the line as a
    # transport error, whose text went through the stderr stream's session, which took it for the
    # continuation of the key block left open there and swallowed its first word into the block's marker.)
    upstream = tmp_path / "stray_upstream.py"
    upstream.write_text(STRAY_DURING_A_KEY_BLOCK)
    text = log_of_proxy_before("typescript proxy", upstream)
    records = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
    dropped = [r["detail"] for r in records if r.get("event") == "dropped"]
    assert dropped == ["a line from the upstream that is not JSON (expected value at line 1 column 1): "
                       "Starting worker with token [REDACTED:github-token]"], dropped
    stderr_lines = [r["message"] for r in records if r.get("event") == "upstream-stderr"]
    assert stderr_lines == ["dumping key", "[REDACTED:pem-private-key]", "stderr done"], stderr_lines


# ───────────────────────────── protocol fidelity, in every runtime ─────────────────────────────

# Raw client lines, each followed by what the fault server is told to write back (`say`), one at a time: the
# classes issue 24 found broken, pinned in all three proxies at once. (line, id whose answer ends the step)
MODERN = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
ELICITATIONS = {"elicitations": [{"mode": "url", "elicitationId": "e-1", "url": "https://auth.example.com/connect?e=1",
                                  "message": "Authorize (token ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8)"}]}


def say(id: int, *lines: str, tool: bool = False, meta: dict | None = None) -> bytes:
    params: dict[str, Any] = {"lines": list(lines)}
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": id, "method": "say", "params": params}
    if tool:
        message["method"], message["params"] = "tools/call", {"name": "say", "arguments": params}
    if meta:
        message["params"]["_meta"] = meta
    return json.dumps(message, separators=(",", ":")).encode()


FIDELITY: list[tuple[bytes, int | None]] = [
    # A null id: answered at once (-32600 null-id), never forwarded.
    (b'{"jsonrpc":"2.0","id":null,"method":"echo"}', None),
    # A byte order mark before a request: read past, the request forwarded without it and answered.
    ("\ufeff".encode() + b'{"jsonrpc":"2.0","id":2,"method":"echo","params":{"bom":true}}', 2),
    # An answer with both result and error: answered at once, as the upstream's error.
    (say(3, '{"jsonrpc":"2.0","id":$ID,"result":{},"error":{"code":-32603,"message":"both"}}'), 3),
    # A server request with an object id: not relayed (refused to the server); then the real answer.
    (say(4, '{"jsonrpc":"2.0","id":{"a":1},"method":"sampling/createMessage","params":{}}',
         '{"jsonrpc":"2.0","id":$ID,"result":{"after":"the bad request"}}'), 4),
    # Codes the MCP spec owns keep their code and data (values scrubbed).
    (say(5, json.dumps({"jsonrpc": "2.0", "id": 5, "error": {"code": -32042, "message": "URL elicitation required", "data": ELICITATIONS}})), 5),
    (say(6, json.dumps({"jsonrpc": "2.0", "id": 6, "error": {"code": -32022, "message": "Unsupported protocol version",
                                                             "data": {"supported": ["2025-11-25"], "requested": "2026-07-28"}}})), 6),
    # A tool call made under 2026-07-28 that fails upstream: the result the guard writes carries resultType.
    (say(7, '{"jsonrpc":"2.0","id":$ID,"error":{"code":-32010,"message":"db down"}}', tool=True, meta=MODERN), 7),
    # A fractional id: MCP ids are strings or integers, and the Python SDK cannot carry one (its proxy left it
    # unanswered): answered at once (-32600 fractional-id, id null), never forwarded, by every runtime.
    (b'{"jsonrpc":"2.0","id":1.5,"method":"echo"}', None),
    # An integer id spelled with an exponent (or `1.0`): an id like any other (the Python SDK reads it as a
    # notification unless the proxy gives it the integer: the request went unanswered).
    (b'{"jsonrpc":"2.0","id":1E2,"method":"echo","params":{"spelled":"1E2"}}', 100),
]


def fidelity_session(command: list[str]) -> list[str]:
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    lines: queue.Queue[bytes | None] = queue.Queue()
    threading.Thread(target=lambda: ([lines.put(l) for l in proc.stdout], lines.put(None)), daemon=True).start()
    threading.Thread(target=lambda: proc.stderr.read(), daemon=True).start()
    seen: list[str] = []
    try:
        for line, answer_id in FIDELITY:
            proc.stdin.write(line + b"\n")
            proc.stdin.flush()
            while True:
                got = lines.get(timeout=WAIT)
                assert got is not None, f"{command[:3]}: stdout closed"
                seen.append(canonical(got))
                if json.loads(got).get("id") == answer_id:
                    break
        proc.stdin.close()
        proc.wait(timeout=WAIT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return seen


@pytest.mark.parametrize("dialect", ["canonical", "mcp"])
def test_protocol_fidelity_is_the_same_in_every_runtime(dialect: str) -> None:
    fault_server = [PYTHON, str(HERE / "servers" / "fault_server.py")]
    sessions = {}
    for name, command in proxies(dialect).items():
        command = command[: command.index("--") + 1] + fault_server
        sessions[name] = fidelity_session(command)
    reference = [json.loads(s) for s in sessions["rust guard"]]
    by_id = {m.get("id"): m for m in reference}
    assert [m.get("id") for m in reference] == [None, 2, 3, 4, 5, 6, 7, None, 100], reference
    assert reference[0]["error"]["code"] == reference[7]["error"]["code"] == -32600, reference
    if dialect == "canonical":  # (the mcp dialect's -32600 carries no data)
        assert reference[0]["error"]["data"]["reason"] == "null-id"
        assert reference[7]["error"]["data"]["reason"] == "fractional-id"
    assert by_id[100]["result"]["echo"] == {"spelled": "1E2"}
    assert by_id[2]["result"]["echo"] == {"bom": True}
    assert "error" in by_id[3] or by_id[3]["result"].get("isError") is True
    assert by_id[4]["result"] == {"after": "the bad request"}
    assert (by_id[5]["error"]["code"], by_id[5]["error"]["data"]["elicitations"][0]["url"]) == (-32042, ELICITATIONS["elicitations"][0]["url"])
    assert "ghp_" not in json.dumps(by_id[5])
    assert by_id[6]["error"] == {"code": -32022, "message": "Unsupported protocol version", "data": {"supported": ["2025-11-25"], "requested": "2026-07-28"}}
    if dialect == "mcp":
        assert by_id[7]["result"]["isError"] is True and by_id[7]["result"]["resultType"] == "complete", by_id[7]
    for name, seen in sessions.items():
        assert seen == sessions["rust guard"], f"{name} differs from the Rust guard in dialect {dialect}:\n" + "\n".join(
            f"  rust: {r}\n  {name.split()[0]}: {s}" for r, s in zip(sessions["rust guard"], seen) if r != s)
