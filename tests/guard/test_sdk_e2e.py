"""Real MCP SDK clients through `jsonrpc-errors guard` to real MCP SDK servers.

Each client (tests/guard/clients: Python SDK, TypeScript SDK) runs its scripted session against each server
(examples/guard/misbehaving_server.py on the Python SDK, tests/guard/servers/ts_server.mjs on the TS SDK),
once directly and once with the guard in between; the cross-language pairs are the point, the same-language
ones are cheap. The guard is started through tools/recorded.py so the test sees its stderr, pid and real
exit status, which the SDK clients keep to themselves.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from harness import FAILED_RESULT_BYTES, GUARD, HERE, PY, ROOT, parse_log, wait_gone, wait_group_gone

CLIENTS = {
    "py": [PY, str(HERE / "clients" / "py_client.py")],
    "ts": ["node", str(HERE / "clients" / "ts_client.mjs")],
}
SERVERS = {
    "py": [PY, str(ROOT / "examples" / "guard" / "misbehaving_server.py")],
    "ts": ["node", str(HERE / "servers" / "ts_server.mjs")],
}
# (client, server): the cross-language pairs first.
PAIRS = [("py", "ts"), ("ts", "py"), ("py", "py"), ("ts", "ts")]
PAIR_IDS = [f"{c}-client_{s}-server" for c, s in PAIRS]

# Steps whose outcome the guard must not change at all.
NORMAL_STEPS = ["initialize", "list_tools", "echo", "count", "read_info", "echo_again"]
# Every one of these is in some server's failure text, stderr or error data.
SECRETS = ["ghp_", "hunter2", "sk_live_", "sk-proj-", "/home/alice", "Traceback (most recent call last)", "admin:"]
# The ones that must not show even in the operator's log (which keeps paths and stack traces on purpose).
CREDENTIALS = ["ghp_A1b2", "hunter2", "sk_live_51", "sk-proj-Zq8x"]
PER_CALL_TIMEOUT_MS = 5000  # the clients' default: the SDK's own timeout for each request


class Run:
    """One scripted client session: its step lines, and (through the guard) what the guard did."""

    def __init__(self, client: str, server: str, guard_dir: Path | None, client_args: list[str], guard_args: list[str]):
        upstream = SERVERS[server]
        if guard_dir is not None:
            upstream = [PY, str(HERE / "tools" / "recorded.py"), str(guard_dir), "--",
                        str(GUARD), "guard", *guard_args, "--", *upstream]
        proc = subprocess.run([*CLIENTS[client], *client_args, "--", *upstream],
                              cwd=ROOT, capture_output=True, text=True, timeout=90)
        assert proc.returncode == 0, f"client failed ({proc.returncode}):\n{proc.stderr}"
        self.stdout, self.stderr = proc.stdout, proc.stderr
        self.lines = [json.loads(line) for line in proc.stdout.splitlines()]
        self.steps = {line["step"]: line for line in self.lines}
        if guard_dir is not None:
            self.log_lines = (guard_dir / "stderr.log").read_text().splitlines()
            self.events, self.bad_log_lines = parse_log(self.log_lines)
            self.guard_pid = int((guard_dir / "pid").read_text())
            status = guard_dir / "status"
            self.guard_status = int(status.read_text()) if status.exists() else None
            started = [e for e in self.events if e.get("event") == "started"]
            self.upstream_pid = int(started[0]["pid"]) if started else None


_runs: dict[tuple, Run] = {}


def run(client: str, server: str, guarded: bool, tmp_path_factory, client_args=(), guard_args=()) -> Run:
    """A session, run once per test module and shared by the tests that look at it."""
    key = (client, server, guarded, tuple(client_args), tuple(guard_args))
    if key not in _runs:
        guard_dir = tmp_path_factory.mktemp(f"{client}-{server}") if guarded else None
        _runs[key] = Run(client, server, guard_dir, list(client_args), list(guard_args))
    return _runs[key]


@pytest.fixture(params=PAIRS, ids=PAIR_IDS)
def pair(request, tmp_path_factory):
    client, server = request.param
    return run(client, server, False, tmp_path_factory), run(client, server, True, tmp_path_factory), client, server


def comparable(step: dict[str, Any], client: str) -> dict[str, Any]:
    step = {k: v for k, v in step.items() if k != "elapsed_ms"}
    if step["step"] == "count":
        # The TS client may lose the last progress value, and then reports the straggler as a transport
        # error (tests/guard/README.md, "Progress"): direct or guarded alike.
        step.pop("transport_errors", None)
        if client == "ts":
            step.pop("progress", None)
    return step


def is_error_texts(run_: Run) -> list[str]:
    """The text of every content item of every isError result the client got."""
    texts = []
    for line in run_.lines:
        result = line.get("result")
        if isinstance(result, dict) and result.get("isError"):
            texts += [c["text"] for c in result.get("content", []) if c.get("type") == "text"]
    return texts


def test_normal_steps_are_untouched(pair):
    direct, guarded, client, _ = pair
    for name in NORMAL_STEPS:
        assert name in guarded.steps, f"step {name} missing: {guarded.stdout}"
        assert guarded.steps[name]["outcome"] == "result", guarded.steps[name]
        assert comparable(guarded.steps[name], client) == comparable(direct.steps[name], client), name
    assert guarded.steps["initialize"]["result"]["serverInfo"]["name"] == "misbehaving-server"
    progress = guarded.steps["count"]["progress"]
    if client == "ts":
        assert progress and progress == [1, 2, 3][: len(progress)], progress
    else:
        assert progress == [1, 2, 3]


def test_no_secret_reaches_the_client(pair):
    direct, guarded, _, _ = pair
    # The servers really leak all of these without the guard (else this test would prove nothing) ...
    leaked = direct.stdout + direct.stderr
    assert [s for s in SECRETS if s in leaked], "the direct run leaked nothing: the fixture changed?"
    # ... and none of them reaches the client through it, on any step, in any field.
    seen = guarded.stdout + guarded.stderr
    assert [s for s in SECRETS if s in seen] == [], seen
    for name in ["query_orders", "export_report"]:
        step = guarded.steps[name]
        assert step["outcome"] == "result" and step["result"]["isError"] is True, step
    texts = is_error_texts(guarded)
    assert len(texts) >= 2
    assert [len(t.encode()) for t in texts if len(t.encode()) > FAILED_RESULT_BYTES] == []
    # The failure is still there for the model to read, only scrubbed.
    assert "[REDACTED:" in guarded.steps["query_orders"]["result"]["content"][0]["text"]


def test_charge_card_error_is_sanitized(pair):
    _, guarded, _, server = pair
    step = guarded.steps["charge_card"]
    if server == "py":
        # The Python SDK sends MCPError(-32010, ...) as a JSON-RPC error: a non-standard code.
        assert step["outcome"] == "error", step
        assert step["error"]["code"] == -32019, step
        assert step["error"]["message"] == "Upstream error"
        assert step["error"]["data"]["type"] == "upstream-error"
    else:
        # The TS SDK turns the same McpError into an isError result (README, "How each server ...").
        assert step["outcome"] == "result" and step["result"]["isError"] is True, step
    assert [s for s in SECRETS if s in json.dumps(step)] == []


def test_garbage_stdout_line_is_dropped(pair):
    direct, guarded, _, _ = pair
    assert "transport_errors" in direct.steps["flaky_print"], "the direct run saw no garbage: fixture changed?"
    step = guarded.steps["flaky_print"]
    assert step["outcome"] == "result" and step["result"]["content"][0]["text"] == "printed", step
    # The client never saw the line: its SDK reported no transport error on any step but count's progress race.
    assert [line["step"] for line in guarded.lines if "transport_errors" in line and line["step"] != "count"] == []
    dropped = [e for e in guarded.events if e.get("event") == "dropped" and "DEBUG: entering flaky_print" in e.get("detail", "")]
    assert len(dropped) == 1, guarded.log_lines


def test_crash_is_answered_and_the_guard_exits_with_its_status(pair):
    direct, guarded, _, _ = pair
    assert direct.steps["crash"]["outcome"] == "closed"  # what the SDK does without the guard
    step = guarded.steps["crash"]
    assert step["outcome"] == "error", step
    assert step["error"]["code"] == -32000, step
    assert step["error"]["message"] == "Upstream connection failed"
    assert step["error"]["data"]["type"] == "upstream-connection-failed"
    # Answered by the guard, not by the client's own timeout: well before it.
    assert step["elapsed_ms"] < PER_CALL_TIMEOUT_MS / 2, step
    assert guarded.guard_status == 3, guarded.log_lines
    assert [e.get("status") for e in guarded.events if e.get("event") == "exit"] == [3]


def test_guard_log(pair):
    _, guarded, _, server = pair
    assert guarded.bad_log_lines == [], "guard stderr lines that are not JSON"
    assert all("event" in e and "level" in e for e in guarded.events), guarded.log_lines
    startup = [e for e in guarded.events if e.get("event") == "upstream-stderr" and "connecting with API_KEY=" in e.get("message", "")]
    assert len(startup) == 1, guarded.log_lines
    assert "API_KEY=[REDACTED:" in startup[0]["message"], startup
    # The operator's log keeps paths and traces, but never a credential.
    assert [s for s in CREDENTIALS if s in "\n".join(guarded.log_lines)] == []


def test_no_process_is_left(pair):
    _, guarded, _, _ = pair
    assert guarded.upstream_pid, guarded.log_lines
    assert wait_gone([guarded.guard_pid, guarded.upstream_pid]) == []
    assert wait_group_gone(guarded.upstream_pid) == []  # the upstream's own group: its children too


@pytest.mark.parametrize(("client", "server"), [("py", "ts"), ("ts", "py")], ids=["py-client_ts-server", "ts-client_py-server"])
def test_hung_tool_is_answered_by_the_guard_timeout(client, server, tmp_path_factory):
    # The tool sleeps 5 s; the guard gives up after 3 s, before the client's own 8 s timeout, cancels the
    # request upstream, and the session goes on. The server's answer, if it still comes, never reaches
    # the client (the TS client would report it as a response for an unknown id). (The guard's timeout
    # covers `initialize` too, and the Python server takes about 1 s to start: hence 3 s, not 1.)
    guarded = run(client, server, True, tmp_path_factory,
                  client_args=["--only", "sleep,echo", "--sleep-ms", "5000", "--per-call-timeout-ms", "8000"],
                  guard_args=["--timeout", "3"])
    assert "sleep" in guarded.steps, f"{guarded.stdout}\n{guarded.stderr}\n" + "\n".join(guarded.log_lines)
    step = guarded.steps["sleep"]
    assert step["outcome"] == "error", step
    assert step["error"]["code"] == -32001, step
    assert step["error"]["message"] == "Upstream timeout after 3s", step
    assert step["elapsed_ms"] < 8000, step
    assert guarded.steps["echo"]["outcome"] == "result", guarded.steps["echo"]
    assert guarded.steps["echo"]["result"]["content"][0]["text"] == "hello"
    assert [line for line in guarded.lines if "transport_errors" in line] == []
    answered = [e for e in guarded.events if e.get("event") == "answered" and e.get("kind") == "upstream-timeout"]
    assert len(answered) == 1 and "cancelled upstream" in answered[0]["detail"], guarded.log_lines
    assert guarded.bad_log_lines == []
    assert wait_gone([guarded.guard_pid, guarded.upstream_pid]) == []
