"""`jsonrpc-errors guard --listen` in front of the reference servers (server-everything, server-filesystem,
mcp-server-time, -fetch, -git), driven over Streamable HTTP by both official SDK clients (Python `mcp` 2.3.0:
the stateless revision where the server speaks it, else a 2025-11-25 session; TypeScript 1.32.2: 2025-11-25
sessions), compared with the same scripted session over stdio through the stdio guard (default dialect) in
the same test run (peers.run_http_session, peers.run_session).

What must hold: every step whose stdio outcome is a normal result is identical over HTTP (the TS client's
progress race aside); errors and failed tool results are the same (codes, data, texts with the same
redaction markers; correlation ids and server-made elicitation ids aside); the server asked the client the same things (sampling,
elicitation, roots: over the session's GET stream); nothing the stdio guard redacted reaches the HTTP client;
the guard drains on SIGTERM, exits 0, logs JSON lines only, and leaves no process behind.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import peers
from test_real_peers import comparable_step, expect, short

CASES = [(s, c) for s in peers.PEER_SERVERS for c in peers.CLIENTS]


def without_correlation(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: without_correlation(v) for k, v in value.items() if k not in ("correlation_id", "elapsed_ms", "elicitationId")}
    if isinstance(value, list):
        return [without_correlation(v) for v in value]
    return value


@pytest.fixture(params=CASES, ids=[f"{s}-{c}" for s, c in CASES])
def pair(request, campaign):
    server, client = request.param
    stdio = campaign.get(campaign.peer(server, client, "default"))
    http = campaign.get(campaign.http(server, client))
    for run in (stdio, http):
        expect(run.returncode == 0, f"{run.describe()}: the driver failed ({run.returncode}):\n{run.stderr[-3000:]}")
        expect(run.lines and run.lines[-1]["step"] == "_callbacks",
               f"{run.describe()}: the session did not end; steps: {[line['step'] for line in run.lines]}\n{run.stderr[-2000:]}")
    return stdio, http


def test_sdk_gets_over_http_what_it_gets_over_stdio(pair):
    stdio, http = pair
    client = http.client
    differ = []
    for name, s in stdio.steps.items():
        if name == "_callbacks":
            continue
        h = http.steps.get(name)
        want, got = without_correlation(comparable_step(s, client)), without_correlation(comparable_step(h, client) if h else None)
        if name == "initialize" and h is not None:
            # The negotiated revision may differ: over HTTP a server that speaks the stateless revision is
            # served statelessly (no handshake); what the server is and offers must not.
            want = {**want, "result": {k: v for k, v in want.get("result", {}).items() if k != "protocolVersion"}}
            got = {**got, "result": {k: v for k, v in got.get("result", {}).items() if k != "protocolVersion"}}
        if got != want:
            differ.append(f"step {name}:\n  stdio: {short(want, 500)}\n  http:  {short(got, 500)}")
    expect(not differ, f"{http.describe()}: steps differ from the stdio guard's:\n" + "\n".join(differ))
    expect(http.steps["_callbacks"] == stdio.steps["_callbacks"], "the server asked the client other things")


def test_nothing_the_stdio_guard_redacted_reaches_the_http_client(pair):
    stdio, http = pair
    markers = sorted(set(peers.REDACTION_MARK.findall(stdio.stdout)))
    expect(sorted(set(peers.REDACTION_MARK.findall(http.stdout))) == markers, "other redactions over HTTP")


def test_the_guard_drains_exits_0_and_leaves_nothing(pair):
    _, http = pair
    expect(http.bad_log_lines == [], f"guard stderr lines that are not JSON: {http.bad_log_lines[:3]}")
    expect(http.upstream_pids, "no `started` event in the guard's log")
    expect(http.leftover == [], f"processes left behind: {http.leftover}")
    tail = "\n".join(json.dumps(e) for e in http.events[-6:])
    expect(http.guard_status == 0, f"{http.describe()}: the guard exited {http.guard_status}:\n{tail}")
