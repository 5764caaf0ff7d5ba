"""An A2A agent on the official SDK (servers/a2a_agent.py, PyPI `a2a-sdk` 1.3) driven by both official SDK
clients (PyPI `a2a-sdk` 1.3, npm `@a2a-js/sdk` 1.3) over A2A 1.0's JSON-RPC binding, directly and through
`guard --listen --upstream URL --upstream-protocol a2a` (issue 35's A2A half; docs/http.md, "An A2A agent").

Directly, both clients see the same tasks, artifacts, streamed events and codes; the agent's failed task
carries a credential in its status message, and its errors are the SDK's own (-32001 TaskNotFound, -32002
TaskNotCancelable, -32009 VersionNotSupported). Through the guard: the same tasks, artifacts and codes, the
credential gone, the guard's card pointing at the guard, `A2A-Version` and the guard's own credential sent,
the guard's own answers rendered by the component, and a killed agent's pending requests answered once each.
"""

from __future__ import annotations

import json
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request

import pytest
from a2a_peers import SECRET, Agent, ListeningGuard, codes, post, run_client, send
from harness import GUARD, HANG

# Answered "at once": well under the guard's default 50 s timeout.
AT_ONCE = 5.0


@pytest.fixture
def agent():
    a = Agent()
    yield a
    a.stop()


def test_both_sdk_clients_see_the_same_tasks_artifacts_and_codes_directly(agent):
    py, js = run_client("py", agent.base), run_client("js", agent.base)
    assert codes(py) == codes(js)
    assert js["card"]["interfaces"] == [agent.rpc]
    assert js["echo"] == {"ok": {"state": "TASK_STATE_COMPLETED", "status": [], "artifacts": ["echo: hi"]}}
    assert js["stream"]["ok"] == [["task", "TASK_STATE_SUBMITTED"], ["status", "TASK_STATE_WORKING"],
                                  ["artifact", "chunk 0"], ["artifact", "chunk 1"], ["artifact", "chunk 2"],
                                  ["status", "TASK_STATE_COMPLETED"]]
    assert js["fail"]["ok"]["state"] == "TASK_STATE_FAILED"
    # The agent itself leaks its credential: the guard is what keeps it from a client.
    assert SECRET in js["fail"]["ok"]["status"][0]
    assert js["unknown"]["error"]["code"] == -32001
    assert js["unknown"]["error"]["data"][0]["reason"] == "TASK_NOT_FOUND"
    assert js["cancel"]["error"]["code"] == -32002


def test_a_request_without_a2a_version_is_the_sdks_version_not_supported(agent):
    # What a relay that dropped the client's `A2A-Version` header would get back from an A2A 1.0 agent.
    req = urllib.request.Request(agent.rpc, json.dumps({"jsonrpc": "2.0", "id": 1, "method": "GetTask",
                                                        "params": {"id": "x"}}).encode(),
                                 {"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=HANG) as r:
        answer = json.loads(r.read())
    assert answer["error"]["code"] == -32009, answer


# ─────────────────────────────── through the guard (--upstream-protocol a2a) ───────────────────────────────


@pytest.fixture
def guarded(agent):
    started: list[ListeningGuard] = []

    def start(*args: str, env: dict[str, str] | None = None) -> ListeningGuard:
        g = ListeningGuard(agent.rpc, *args, env=env)
        started.append(g)
        return g

    yield start
    for g in started:
        if g.proc.poll() is None:
            g.stop()


def test_through_the_guard_both_clients_see_the_same_tasks_artifacts_and_codes_and_no_secret(agent, guarded):
    g = guarded()
    for kind in ("py", "js"):
        direct, through = run_client(kind, agent.base), run_client(kind, g.base)
        # The card a client of the guard gets sends it to the guard, and nowhere else.
        assert through["card"] == {"name": direct["card"]["name"], "interfaces": [g.rpc]}, kind
        # The same tasks, artifacts and codes (with their data, where the SDK keeps it).
        for step in ("echo", "get", "unknown", "cancel"):
            assert through[step] == direct[step], (kind, step, through[step], direct[step])
        assert through["unknown"]["error"]["code"] == -32001 and through["cancel"]["error"]["code"] == -32002
        # The failed task is still the failed task; its credential is gone.
        assert through["fail"]["ok"]["state"] == direct["fail"]["ok"]["state"] == "TASK_STATE_FAILED"
        assert SECRET in json.dumps(direct["fail"]) and SECRET not in json.dumps(through), kind
        assert "cannot reach the build server" in through["fail"]["ok"]["status"][0]
        # Streaming is not relayed yet: the guard's card says so, and the SDK sends SendMessage instead; the
        # task ends the same.
        assert through["stream"]["ok"][-1][1] == direct["stream"]["ok"][-1][1] == "TASK_STATE_COMPLETED"
    log = g.stop()
    assert SECRET not in log


def test_the_agent_gets_a2a_version_and_the_guards_credential_never_a_clients_token(agent, guarded):
    g = guarded("--auth-token-env", "CLIENT_TOKEN", "--upstream-header", "Authorization: env:AGENT_TOKEN",
                env={"CLIENT_TOKEN": "client-token-0123456789", "AGENT_TOKEN": "Bearer agent-token-0123456789"})
    status, answer = post(g.rpc, send("headers"), {"authorization": "Bearer client-token-0123456789"})
    assert status == 200, answer
    seen = json.loads(answer["result"]["task"]["artifacts"][0]["parts"][0]["text"])
    assert seen["a2a-version"] == "1.0"
    assert seen["authorization"] == "Bearer agent-token-0123456789"
    assert "client-token" not in json.dumps(seen)
    # Without the guard's token, no request reaches the agent.
    status, _ = post(g.rpc, send("echo x"), {"authorization": None})
    assert status == 401
    log = g.stop()
    assert "client-token-0123456789" not in log and "agent-token-0123456789" not in log


def test_the_guard_answers_a_request_it_does_not_relay_in_a2as_codes(agent, guarded):
    g = guarded()
    # No A2A-Version: A2A 0.3, which the guard does not relay (A2A's VersionNotSupported, with the version).
    status, answer = post(g.rpc, {"jsonrpc": "2.0", "id": 3, "method": "GetTask", "params": {"id": "x"}},
                          {"a2a-version": None})
    assert (status, answer["id"], answer["error"]["code"]) == (200, 3, -32009), answer
    assert answer == own(g, {"kind": "version-not-supported", "version": "0.3", "id": 3})
    # A streaming method: not relayed yet (A2A's UnsupportedOperation), where the session would answer it once.
    status, answer = post(g.rpc, send("stream 2", id=4, method="SendStreamingMessage"))
    assert (status, answer["id"], answer["error"]["code"]) == (200, 4, -32004), answer
    assert answer == own(g, {"kind": "unsupported-operation", "operation": "SendStreamingMessage", "id": 4})
    # An unknown method is the agent's own answer, passed on in A2A's code.
    status, answer = post(g.rpc, {"jsonrpc": "2.0", "id": 5, "method": "NoSuchMethod", "params": {}})
    assert (answer["id"], answer["error"]["code"]) == (5, -32601), answer


def test_a_killed_agent_answers_every_pending_request_once_at_once(agent, guarded):
    g = guarded()
    answers: dict[int, list[tuple[int, dict]]] = {i: [] for i in range(3)}

    def ask(i: int) -> None:
        answers[i].append(post(g.rpc, send("slow 60", id=100 + i)))

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    time.sleep(1.0)
    killed = time.monotonic()
    agent.stop()
    for t in threads:
        t.join(timeout=AT_ONCE + 5)
    took = time.monotonic() - killed
    assert took < AT_ONCE, took
    for i, got in answers.items():
        assert len(got) == 1, got
        status, answer = got[0]
        assert status == 200 and answer["id"] == 100 + i, answer
        # The guard's own failure in the a2a dialect: A2A defines no code for an agent the guard cannot
        # reach, so the session answers with the dialect's internal-error (its -32603).
        assert answer == own(g, {"kind": "internal-error", "id": 100 + i}), answer
    # The next request is answered at once too (nothing listens where the agent was).
    status, answer = post(g.rpc, send("echo again", id=9), timeout=AT_ONCE)
    assert answer == own(g, {"kind": "internal-error", "id": 9}), answer


def test_readiness_follows_an_agent_that_comes_up_later():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    g = ListeningGuard(f"http://127.0.0.1:{port}/rpc")
    agent = None
    try:
        def ready() -> int:
            try:
                with urllib.request.urlopen(g.base + "/readyz", timeout=HANG) as r:
                    return r.status
            except urllib.error.HTTPError as e:
                return e.code

        assert ready() == 503
        # A request meanwhile is answered at once, as the agent cannot be reached.
        _, answer = post(g.rpc, send("echo early", id=1), timeout=AT_ONCE)
        assert answer["id"] == 1 and "error" in answer, answer
        agent = Agent(port)
        deadline = time.monotonic() + 10
        while ready() != 200 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert ready() == 200
        _, answer = post(g.rpc, send("echo late", id=2))
        assert answer["result"]["task"]["artifacts"][0]["parts"][0]["text"] == "echo: late", answer
    finally:
        g.stop()
        if agent:
            agent.stop()


def own(g: ListeningGuard, kind: dict) -> dict:
    """What the component renders for one of the guard's own answers in the `a2a` dialect (`jsonrpc-errors
    map`), to compare an answer with: the code and message are the taxonomy's, not this test's."""
    done = subprocess.run([str(GUARD), "map", "--dialect", "a2a"], input=json.dumps(kind), capture_output=True,
                          text=True, timeout=HANG, check=True)
    return json.loads(done.stdout)


def test_a2a_needs_listen():
    done = subprocess.run([str(GUARD), "guard", "--upstream", "http://127.0.0.1:9/rpc", "--upstream-protocol", "a2a"],
                          capture_output=True, text=True, timeout=HANG, check=False)
    assert done.returncode == 2 and "--listen" in done.stderr, done.stderr
