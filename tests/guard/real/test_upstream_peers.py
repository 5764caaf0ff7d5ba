"""`jsonrpc-errors guard --upstream URL` in front of servers at a URL nobody here wrote (upstream_peers.py):
server-everything's Streamable HTTP mode and a Python SDK 2.x server in the SDK's own streamable-http mode,
behind each front (stdio, and `--listen`), driven by both official SDK clients, compared with the same clients
talking to the same server directly.

What must hold: every step whose direct outcome is a normal result is identical guarded (and a step the
Python SDK's own HTTP transport failed directly, an SSE event over its 1 MiB limit, gets its result guarded) (the negotiated
revision aside behind `--listen`, which serves a modern client statelessly); the server asked the client the
same things (sampling, elicitation, roots); an error keeps a code the SDK acts on with its data, and a server's
own code becomes the dialect's upstream error with its message redacted at most; nothing the server leaks
reaches the client; the guard exits 0, logs JSON lines only, and leaves nothing behind.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import upstream_peers as up
from peers import short
from test_real_peers import KNOWN_CODES, comparable_step, expect, is_normal_outcome

CASES = [(s, c, h) for s in up.UPSTREAM_SERVERS for c in ("py", "ts") for h in up.HOWS]


@pytest.fixture(params=CASES, ids=[f"{s}-{c}-{h}" for s, c, h in CASES])
def pair(request, campaign):
    server, client, how = request.param
    direct = campaign.get(campaign.upstream(server, client, "direct"))
    guarded = campaign.get(campaign.upstream(server, client, how))
    for run in (direct, guarded):
        expect(run.returncode == 0, f"{run.describe()}: the driver failed ({run.returncode}):\n{run.stderr[-3000:]}\n"
                                    f"guard log tail:\n{run.guard_log[-2000:]}")
        expect(run.lines and run.lines[-1]["step"] == "_callbacks",
               f"{run.describe()}: the session did not end; steps: {[line['step'] for line in run.lines]}\n"
               f"{run.stderr[-2000:]}\nguard log tail:\n{run.guard_log[-2000:]}")
    return direct, guarded


def without_volatile(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: without_volatile(v) for k, v in value.items() if k not in ("correlation_id", "elapsed_ms", "elicitationId")}
    if isinstance(value, list):
        return [without_volatile(v) for v in value]
    return value


def test_normal_steps_are_what_the_client_gets_directly(pair):
    direct, guarded = pair
    differ = []
    for name, d in direct.steps.items():
        if name == "_callbacks" or not is_normal_outcome(d):
            continue
        g = guarded.steps.get(name)
        want = without_volatile(comparable_step(d, guarded.client))
        got = without_volatile(comparable_step(g, guarded.client)) if g else None
        if name == "initialize" and got is not None:
            # Behind --listen a server that speaks the stateless revision is served statelessly either way; the
            # revision a session settles on may differ, what the server is and offers may not.
            want = {**want, "result": {k: v for k, v in want.get("result", {}).items() if k != "protocolVersion"}}
            got = {**got, "result": {k: v for k, v in got.get("result", {}).items() if k != "protocolVersion"}}
        if got != want:
            differ.append(f"step {name}:\n  direct:  {short(want, 500)}\n  guarded: {short(got, 500)}")
    expect(not differ, f"{guarded.describe()}: normal steps differ from the direct run:\n" + "\n".join(differ))
    expect(guarded.steps["_callbacks"] == direct.steps["_callbacks"],
           f"{guarded.describe()}: the server asked the client other things: {guarded.steps['_callbacks']} "
           f"(directly: {direct.steps['_callbacks']})")


def test_errors_are_in_the_dialect_and_keep_what_the_client_needs(pair):
    direct, guarded = pair
    problems = []
    for name, d in direct.steps.items():
        if name == "_callbacks" or is_normal_outcome(d):
            continue
        g = guarded.steps.get(name)
        if g is None:
            problems.append(f"{name}: no outcome guarded")
            continue
        if d.get("outcome") == "result":  # an isError result: still one, its text redacted at most
            if not (g.get("outcome") == "result" and g["result"].get("isError") is True):
                problems.append(f"{name}: an isError result became {short(g)}")
            continue
        if d.get("outcome") != "error" or "error" not in d:
            continue
        if str(d["error"].get("message", "")).startswith("SSE stream failed"):
            # The Python SDK's own HTTP transport refusing an SSE event over its 1 MiB limit (server-everything's
            # large_binary), no error of the server's: guarded, the answer reaches it whole (the stdio front
            # writes a line; `--listen` sends a lone answer as JSON).
            if not is_normal_outcome(g):
                problems.append(f"{name}: directly the SDK's transport failed; guarded: {short(g)}")
            continue
        code = d["error"]["code"]
        if code in KNOWN_CODES:
            if g.get("error", {}).get("code") != code:
                problems.append(f"{name}: code {code} (one the SDK acts on) became {short(g)}")
            elif without_volatile(g["error"].get("data")) != without_volatile(d["error"].get("data")) and \
                    "[REDACTED:" not in json.dumps(g["error"].get("data")):
                problems.append(f"{name}: code {code}'s data changed: {short(d['error'].get('data'))} -> "
                                f"{short(g['error'].get('data'))}")
        elif g.get("outcome") != "error" or g["error"].get("code") != -32019:
            problems.append(f"{name}: the server's own code {code} is not the dialect's upstream error: {short(g)}")
    expect(not problems, f"{guarded.describe()}:\n" + "\n".join(problems))


def test_nothing_the_server_leaks_reaches_the_client(pair):
    direct, guarded = pair
    leaked_directly = [s for s in up.SECRETS if s in direct.stdout]
    if guarded.server == "python-http":
        expect(leaked_directly, "the Python server's leaks did not reach the direct client: the test proves nothing")
    leaked = [s for s in up.SECRETS if s in guarded.stdout]
    expect(not leaked, f"{guarded.describe()}: reached the client: {leaked}")
    expect(not [s for s in up.SECRETS if s in guarded.guard_log if s != "/home/alice"],
           f"{guarded.describe()}: a secret in the guard's log")


def test_the_guard_exits_cleanly_and_leaves_nothing(pair):
    _, guarded = pair
    expect(guarded.bad_log_lines == [], f"guard stderr lines that are not JSON: {guarded.bad_log_lines[:3]}")
    expect(guarded.leftover == [], f"processes left behind: {guarded.leftover}")
    expect(guarded.guard_status == 0, f"{guarded.describe()}: the guard exited {guarded.guard_status}:\n"
                                      f"{guarded.guard_log[-2000:]}")
    # The upstream's session was ended (DELETE, or the stateless revision: none to end); nothing failed.
    failures = [e for e in guarded.events if e.get("event") in ("guard-failed", "upstream-transport")]
    expect(not failures, f"{guarded.describe()}: {short(failures, 2000)}")
