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
from a2a_peers import SECRET, Agent, ListeningGuard, Streamed, codes, post, run_client, send, summary
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
        # Streamed (the guard's card offers streaming as the agent's does): the same events, one for one.
        assert through["stream"] == direct["stream"], (kind, through["stream"], direct["stream"])
        assert through["stream"]["ok"][-1] == ["status", "TASK_STATE_COMPLETED"], kind
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


# ─────────────────────────── streaming (SendStreamingMessage, SubscribeToTask) ───────────────────────────


def streaming(text: str, id: object = 1) -> dict:
    return send(text, id=id, method="SendStreamingMessage")


def test_a_streamed_task_is_the_agents_event_for_event_and_a_subscription_too(agent, guarded):
    g = guarded()
    direct = Streamed(agent.rpc, streaming("stream 3", id="d")).all()
    through = Streamed(g.rpc, streaming("stream 3", id="t"))
    assert through.content_type.startswith("text/event-stream")
    events = through.all()
    assert [summary(m) for m in events] == [summary(m) for m in direct], (events, direct)
    assert [summary(m) for m in events][-1] == ["statusUpdate", "TASK_STATE_COMPLETED"]
    assert all(m["id"] == "t" for m in events), events
    # SubscribeToTask: a running task's events, from the task as it stands to its end, on a stream of its own.
    running = Streamed(g.rpc, streaming("stream 30", id=7))
    first = running.next()
    assert first is not None and summary(first)[0] == "task", first
    task_id = first["result"]["task"]["id"]
    sub = Streamed(g.rpc, {"jsonrpc": "2.0", "id": 8, "method": "SubscribeToTask", "params": {"id": task_id}})
    assert sub.content_type.startswith("text/event-stream")
    seen = sub.all()
    assert summary(seen[0])[0] == "task" and summary(seen[-1]) == ["statusUpdate", "TASK_STATE_COMPLETED"], seen
    assert all(m["id"] == 8 for m in seen), seen
    rest = running.all()
    assert summary(rest[-1]) == ["statusUpdate", "TASK_STATE_COMPLETED"], rest
    # Each stream has every chunk once, in order.
    chunks = [summary(m)[1] for m in rest if summary(m)[0] == "artifactUpdate"]
    assert chunks == [f"chunk {i}" for i in range(30)], chunks


def test_a_failed_streamed_tasks_secret_is_gone_from_its_status(agent, guarded):
    g = guarded()
    direct = Streamed(agent.rpc, streaming("fail", id=1)).all()
    assert SECRET in json.dumps(direct)
    through = Streamed(g.rpc, streaming("fail", id=1)).all()
    assert [summary(m) for m in through] == [summary(m) for m in direct], through
    assert summary(through[-1]) == ["statusUpdate", "TASK_STATE_FAILED"]
    assert SECRET not in json.dumps(through), through
    assert "cannot reach the build server" in json.dumps(through[-1])
    assert SECRET not in g.stop()


def test_an_agent_killed_mid_stream_gives_the_client_one_error_and_ends_the_stream(agent, guarded):
    g = guarded()
    s = Streamed(g.rpc, streaming("stream 400", id=5))
    for _ in range(3):
        assert s.next() is not None
    killed = time.monotonic()
    agent.stop()
    rest = s.all()
    assert time.monotonic() - killed < AT_ONCE
    errors = [m for m in rest if "error" in m]
    assert len(errors) == 1 and rest[-1] is errors[0], rest
    assert errors[0] == own(g, {"kind": "internal-error", "id": 5}), errors


def test_a_client_that_leaves_mid_stream_closes_the_agents_stream_and_leaves_nothing_pending(agent, guarded):
    g = guarded("--metrics-addr", "127.0.0.1:0")
    metrics = None
    deadline = time.monotonic() + HANG
    while metrics is None and time.monotonic() < deadline:
        for line in list(g.log):
            if '"metrics"' in line and '"addr"' in line:
                metrics = "http://" + json.loads(line)["addr"] + "/metrics"
        time.sleep(0.05)
    assert metrics, "".join(g.log)

    def pending() -> float:
        with urllib.request.urlopen(metrics, timeout=HANG) as r:
            for line in r.read().decode().splitlines():
                if line.startswith("jsonrpc_errors_guard_pending_requests "):
                    return float(line.split()[1])
        raise AssertionError("no pending gauge")

    s = Streamed(g.rpc, streaming("stream 400", id=6))
    for _ in range(2):
        assert s.next() is not None
    assert pending() == 1
    before = agent.disconnects()
    s.close()
    deadline = time.monotonic() + AT_ONCE
    while (agent.disconnects() == before or pending() != 0) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert agent.disconnects() == before + 1, agent.said
    assert pending() == 0


def test_two_clients_streaming_at_once_never_see_each_others_events(agent, guarded):
    g = guarded()
    got: dict[int, list[dict]] = {}

    def run(i: int) -> None:
        # The same JSON-RPC id on both: the guard tells them apart, not the client.
        got[i] = Streamed(g.rpc, streaming("stream 20", id=1)).all()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=HANG)
    tasks = []
    for i, events in got.items():
        assert all(m["id"] == 1 and "result" in m for m in events), events
        task_id = events[0]["result"]["task"]["id"]
        tasks.append(task_id)
        ids = {(m["result"].get("task") or {}).get("id") or next(iter(m["result"].values())).get("taskId")
               for m in events}
        assert ids == {task_id}, (i, ids)
        chunks = [summary(m)[1] for m in events if summary(m)[0] == "artifactUpdate"]
        assert chunks == [f"chunk {n}" for n in range(20)], chunks
        assert summary(events[-1]) == ["statusUpdate", "TASK_STATE_COMPLETED"]
    assert len(set(tasks)) == 2


def test_each_event_restarts_the_wait_and_a_silent_stream_times_out_once(agent, guarded):
    g = guarded("--timeout", "1")
    # 40 chunks 50 ms apart: 2 s in all, never 1 s without an event.
    events = Streamed(g.rpc, streaming("stream 40", id=2)).all()
    assert summary(events[-1]) == ["statusUpdate", "TASK_STATE_COMPLETED"], events[-3:]
    assert not any("error" in m for m in events)
    # Silent for 3 s after it started working: answered with the timeout, once, and the stream ends.
    started = time.monotonic()
    events = Streamed(g.rpc, streaming("slow 3", id=3)).all()
    assert time.monotonic() - started < 2.5
    errors = [m for m in events if "error" in m]
    assert len(errors) == 1 and events[-1] is errors[0] and errors[0]["id"] == 3, events
    # A2A defines no timeout code: the dialect's internal-error, as for an agent the guard cannot reach.
    assert errors[0] == own(g, {"kind": "internal-error", "id": 3}), errors


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
