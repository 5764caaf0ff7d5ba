"""examples/mcp-proxy-python/proxy.py over real stdio: the official SDK's client, through the proxy, to
examples/guard/misbehaving_server.py (the official SDK's server), compared with the same session direct."""

from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

import anyio
from mcp import Client, MCPError
from mcp.client.stdio import StdioServerParameters, stdio_client

ROOT = Path(__file__).resolve().parents[3]
PROXY = ROOT / "examples" / "mcp-proxy-python" / "proxy.py"
SERVER = [sys.executable, str(ROOT / "examples" / "guard" / "misbehaving_server.py")]
SECRETS = ["ghp_", "hunter2", "sk_live_", "sk-proj-", "/home/alice", "Traceback (most recent call last)", "admin:"]
# Not even the operator's log may hold these (it keeps paths and tracebacks on purpose).
CREDENTIALS = ["ghp_A1b2", "hunter2", "sk_live_51", "sk-proj-Zq8x"]
NORMAL = ["list_tools", "echo", "count", "read_info", "echo_again"]
CALL_TIMEOUT = 10.0

# Runs a command with its stderr in DIR/stderr.log and writes DIR/exited (its status) when it ends: the
# SDK's client hides both from the test.
RECORDER = """
import subprocess, sys
from pathlib import Path
out = Path(sys.argv[1])
with open(out / "stderr.log", "wb") as log:
    code = subprocess.Popen(sys.argv[3:], stderr=log).wait()
(out / "exited").write_text(str(code))
sys.exit(code)
"""

# The guard's cut of a failed result's text (taxonomy.toml is its single home).
FAILED_RESULT_BYTES = int(
    re.search(
        r"^failed_result_text_bytes = (\d+)",
        (Path(__file__).resolve().parents[3] / "taxonomy" / "taxonomy.toml").read_text(),
        re.M,
    ).group(1)
)


def _assert_cut_keeping_both_ends(text: str) -> None:
    """export_report's ~13 KB text comes back cut to the limit, its first and last lines kept."""
    size = len(text.encode())
    assert FAILED_RESULT_BYTES // 2 < size <= FAILED_RESULT_BYTES, size
    assert "export failed after a long run" in text and "processed batch 199 of 200 (ok)" in text, text[-200:]


def wire(model: Any) -> Any:
    return model.model_dump(by_alias=True, mode="json", exclude_unset=True)


def run(command: list[str], record: Path) -> dict[str, Any]:
    """The scripted session; each step's outcome, what the SDK reported as transport faults, and timings."""
    record.mkdir(parents=True, exist_ok=True)
    params = StdioServerParameters(
        command=sys.executable, args=["-c", RECORDER, str(record), "--", *command], env=dict(os.environ)
    )

    async def main() -> dict[str, Any]:
        faults: list[str] = []
        progress: list[float] = []
        steps: dict[str, Any] = {}

        async def on_message(message: Any) -> None:
            if isinstance(message, Exception):
                faults.append(type(message).__name__)

        async def on_progress(value: float, total: float | None, message: str | None) -> None:
            progress.append(value)

        async with Client(
            stdio_client(params), mode="legacy", message_handler=on_message, read_timeout_seconds=CALL_TIMEOUT
        ) as client:
            script = {
                "list_tools": client.list_tools,
                "echo": lambda: client.call_tool("echo", {"text": "hello"}),
                "count": lambda: client.call_tool("count", {"steps": 3, "delay_ms": 10}, progress_callback=on_progress),
                "read_info": lambda: client.read_resource("info://server"),
                "query_orders": lambda: client.call_tool("query_orders", {"customer": "acme"}),
                "charge_card": lambda: client.call_tool("charge_card", {"amount": 12.5}),
                "export_report": lambda: client.call_tool("export_report", {}),
                "flaky_print": lambda: client.call_tool("flaky_print", {}),
                "echo_again": lambda: client.call_tool("echo", {"text": "still there?"}),
                "crash": lambda: client.call_tool("crash", {}),
            }
            for name, step in script.items():
                started = time.monotonic()
                try:
                    steps[name] = {"result": wire(await step())}
                except MCPError as error:
                    steps[name] = {"error": {"code": error.code, "message": error.message, "data": error.data}}
                steps[name]["elapsed"] = time.monotonic() - started
                if faults:
                    steps[name]["faults"] = list(faults)
                    faults.clear()
            # The upstream has ended: the proxy should end too, on its own, while this client still waits.
            with anyio.move_on_after(5):
                while not (record / "exited").exists():  # noqa: ASYNC110 - a file the proxy process writes
                    await anyio.sleep(0.05)
            steps["exited_before_the_client_left"] = (record / "exited").exists()
        steps["progress"] = progress
        steps["stderr"] = (record / "stderr.log").read_text(errors="replace")
        return steps

    return anyio.run(main)


@pytest.fixture(scope="module")
def sessions(tmp_path_factory) -> tuple[dict[str, Any], dict[str, Any]]:
    direct = run(SERVER, tmp_path_factory.mktemp("direct"))
    proxied = run([sys.executable, str(PROXY), "--", *SERVER], tmp_path_factory.mktemp("proxied"))
    return direct, proxied


def without_timing(step: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in step.items() if k != "elapsed"}


def test_normal_calls_resources_and_progress_are_unchanged(sessions):
    direct, proxied = sessions
    for name in NORMAL:
        assert "result" in proxied[name], proxied[name]
        assert without_timing(proxied[name]) == without_timing(direct[name]), name
    assert proxied["progress"] == direct["progress"] == [1, 2, 3]


def test_failures_are_canonical_and_nothing_leaks_to_the_client(sessions):
    direct, proxied = sessions
    client_side = lambda s: json.dumps({k: v for k, v in s.items() if k != "stderr"})  # noqa: E731
    assert [s for s in SECRETS if s in client_side(direct) + direct["stderr"]], (
        "the direct run leaked nothing: fixture changed?"
    )
    assert [s for s in SECRETS if s in client_side(proxied)] == [], client_side(proxied)
    for name in ["query_orders", "export_report"]:
        result = proxied[name]["result"]
        assert result["isError"] is True and len(result["content"][0]["text"].encode()) <= FAILED_RESULT_BYTES, result
    _assert_cut_keeping_both_ends(proxied["export_report"]["result"]["content"][0]["text"])
    assert "[REDACTED:github-token]" in proxied["query_orders"]["result"]["content"][0]["text"]
    charge = proxied["charge_card"]["error"]
    assert (charge["message"], charge["data"]["type"]) == ("Upstream error", "upstream-error")


def test_the_garbage_line_is_dropped_and_logged_not_relayed(sessions):
    direct, proxied = sessions
    assert direct["flaky_print"].get("faults") == ["ValidationError"], "the direct run saw no garbage: fixture changed?"
    assert without_timing(proxied["flaky_print"]) == {"result": without_timing(direct["flaky_print"])["result"]}
    assert [
        line for line in proxied["stderr"].splitlines() if " dropped " in line and "DEBUG: entering flaky_print" in line
    ]
    # stdout carried only messages: the client's SDK reported no transport fault on any step.
    assert [name for name, step in proxied.items() if isinstance(step, dict) and "faults" in step] == []


def test_the_crash_is_answered_at_once_and_the_proxy_exits(sessions):
    direct, proxied = sessions
    assert direct["crash"]["error"] == {"code": -32000, "message": "Connection closed", "data": None}  # the SDK's own
    crash = proxied["crash"]
    assert crash["error"]["code"] == -32000 and crash["error"]["message"] == "Upstream connection failed", crash
    assert crash["error"]["data"]["type"] == "upstream-connection-failed"
    assert crash["error"]["data"]["details"] == f"stdio:{Path(sys.executable).name}"  # as jsonrpc-errors guard names it
    assert crash["elapsed"] < CALL_TIMEOUT / 4, crash
    assert proxied["exited_before_the_client_left"]


def test_the_log_is_the_operators_with_no_credential(sessions):
    _, proxied = sessions
    log = proxied["stderr"]
    assert [s for s in CREDENTIALS if s in log] == [], log
    assert [
        line for line in log.splitlines() if "upstream-stderr" in line and "connecting with API_KEY=[REDACTED:" in line
    ]
    assert [line for line in log.splitlines() if " answered " in line and '"upstream-connection-failed"' in line]


def test_the_proxy_exits_when_the_client_closes_stdin():
    import subprocess

    proc = subprocess.Popen(
        [sys.executable, str(PROXY), "--", *SERVER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps(initialize).encode() + b"\n")
        proc.stdin.flush()
        answer = json.loads(proc.stdout.readline())
        assert answer["id"] == 1 and answer["result"]["serverInfo"]["name"] == "misbehaving-server", answer
        proc.stdin.close()
        assert proc.wait(timeout=10) == 0
        assert proc.stdout.read() == b""  # nothing but messages on stdout
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_the_proxy_takes_a_policy_file_and_refuses_a_bad_one_at_start(tmp_path):
    import subprocess

    bad = tmp_path / "bad.toml"
    bad.write_text('[redaction]\nscopes = ["errors", "resluts"]\n')
    refused = subprocess.run(
        [sys.executable, str(PROXY), "--config", str(bad), "--", *SERVER],
        capture_output=True,
        text=True,
        timeout=30,
        stdin=subprocess.DEVNULL,
    )
    assert refused.returncode == 2 and refused.stdout == "", refused
    assert f"{bad}:2:21: [redaction].scopes: unknown `resluts`" in refused.stderr, refused.stderr

    good = tmp_path / "policy.toml"
    good.write_text(
        '[redaction]\nscopes = ["errors", "results"]\n\n'
        '[[tool]]\nmatch = "echo"\nactions = { aws-access-key-id = "block" }\n'
    )
    token = "ghp_" + "Lq3ZtV8mWc1XkP5rB9nY2dH7sF4gJ6aE0uRi"
    params = StdioServerParameters(
        command=sys.executable,
        args=[str(PROXY), "--config", str(good), "--dialect", "mcp", "--", *SERVER],
        env=dict(os.environ),
    )

    async def main() -> tuple[Any, Any]:
        async with Client(stdio_client(params), mode="legacy", read_timeout_seconds=CALL_TIMEOUT) as client:
            redacted = wire(await client.call_tool("echo", {"text": f"deploy with {token}"}))
            blocked = wire(await client.call_tool("echo", {"text": "key AKIAZ7QW3ERT5YUI2OPA"}))
            return redacted, blocked

    redacted, blocked = anyio.run(main)
    assert redacted["content"][0]["text"] == "deploy with [REDACTED:github-token]", redacted
    assert token not in json.dumps(redacted)
    assert blocked["isError"] is True and blocked["content"] == [
        {"type": "text", "text": "Policy denied access to tool 'echo'"}
    ], blocked
