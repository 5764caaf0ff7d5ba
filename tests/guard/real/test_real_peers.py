"""`jsonrpc-errors guard` between real MCP software nobody here wrote, compared with no guard at all.

Reference servers: @modelcontextprotocol/server-everything and server-filesystem (npm), mcp-server-time,
mcp-server-fetch and mcp-server-git (PyPI). Clients: the official Python SDK (`mcp` 2.3.0, which opens with
`server/discover` at 2026-07-28 and falls back to `initialize`) and the official TypeScript SDK (1.32.2,
2025-11-25). Each client runs the same scripted session against each server three times: directly, through
the guard in its default dialect, and through `guard --dialect mcp`, with the raw wire recorded between the
client and the guard and between the guard and the server (peers.py). Nothing is hard-coded about what the
servers answer: every expectation is what the same server answered in the direct run, or what the server
wrote on the guard's other side in the same run.

What must hold through the guard:
- every message the client writes reaches the server byte for byte, and every normal message the server
  writes (results, notifications, the server's own requests: progress, sampling, elicitation, roots, logging)
  reaches the client byte for byte, in order;
- every request is answered exactly once;
- the client SDK gets the same results as without the guard, and sends the same requests;
- an error or a failed tool result still carries what the client needs to recover: an error code the SDK acts
  on (the codes the SDK names: -32602, -32042 URL elicitation required, -32022 unsupported protocol version, ...)
  stays that code with its `data`, and texts differ only where the guard put a `[REDACTED:...]` marker;
- the SDK accepts every answer the guard writes (the Python client on 2026-07-28 requires `resultType`);
- the guard exits 0 (124 only when it had to terminate a server slow to exit), logs JSON lines, and leaves
  no process behind;
- a request the guard times out gets an answer the SDK takes and can tell is a timeout.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

import peers
from peers import (GUARD_TIMEOUT_SECS, PEER_SERVERS, Run, id_key, is_error_or_is_error_result, is_request, is_response,
                   same_modulo_redaction, short)

# Plus the Python client one protocol revision ahead against mcp-server-time (its opening -32022 included).
CASES = [(s, c, d) for s in PEER_SERVERS for c in peers.CLIENTS for d in peers.DIALECTS] + [
    ("time-ahead", "py", d) for d in peers.DIALECTS]
CASE_IDS = [f"{s}-{c}-{d}" for s, c, d in CASES]
KNOWN_CODES = peers.sdk_known_error_codes()


@pytest.fixture(params=CASES, ids=CASE_IDS)
def pair(request, campaign) -> tuple[Run, Run]:
    server, client, dialect = request.param
    if server == "time-ahead":
        direct, guarded = campaign.get(campaign.negotiation(None)), campaign.get(campaign.negotiation(dialect))
    else:
        direct = campaign.get(campaign.peer(server, client, None))
        guarded = campaign.get(campaign.peer(server, client, dialect))
    for run in (direct, guarded):
        expect(run.returncode == 0, f"{run.describe()}: the driver failed ({run.returncode}):\n{run.stderr[-3000:]}")
        expect(run.lines and run.lines[-1]["step"] == "_callbacks",
               f"{run.describe()}: the session did not end; steps: {[line['step'] for line in run.lines]}\n"
               f"{run.stderr[-2000:]}")
    return direct, guarded


# ─── helpers ───


def expect(condition: Any, message: Any) -> None:
    """assert, without pytest's rewriting: its diff of two multi-megabyte wire logs would drown the message."""
    if not condition:
        pytest.fail(str(message))


def responses_by_id(wire: list[peers.Wire], direction: str) -> dict[str, list[peers.Wire]]:
    out: dict[str, list[peers.Wire]] = {}
    for w in wire:
        if w.dir == direction and is_response(w.msg):
            out.setdefault(id_key(w.msg["id"]), []).append(w)
    return out


def rewritten_ids(run: Run) -> set[str]:
    """Ids of the server's answers the guard may rewrite (errors and isError results), from the server side."""
    return {id_key(w.msg["id"]) for w in run.server_wire if w.dir == "s2c" and is_error_or_is_error_result(w.msg)}


def comparable_step(step: dict[str, Any], client: str) -> dict[str, Any]:
    step = {k: v for k, v in step.items() if k != "elapsed_ms"}
    if client == "ts" and "progress" in step:
        # The TS SDK loses the last progress notification when it arrives in the same read as the response and
        # reports it as a transport error (tests/guard/README.md, "Progress"), direct or guarded alike: the wire
        # comparison checks every notification byte for byte instead.
        step.pop("progress")
        step.pop("transport_errors", None)
    return step


def is_normal_outcome(step: dict[str, Any]) -> bool:
    result = step.get("result")
    return step.get("outcome") == "result" and not (isinstance(result, dict) and result.get("isError") is True)


# ─── the relay itself, from both sides of the guard in one run ───


def test_client_messages_reach_the_server_byte_for_byte(pair):
    _, guarded = pair
    sent = [w.line for w in guarded.client_wire if w.dir == "c2s"]
    received = [w.line for w in guarded.server_wire if w.dir == "c2s"]
    expect(sent, "the client sent nothing")
    first = next((i for i, (a, b) in enumerate(zip(sent, received)) if a != b), min(len(sent), len(received)))
    expect(received == sent, f"{guarded.describe()}: the server did not get what the client wrote; first difference "
                             f"at message {first}: {short(sent[first] if first < len(sent) else None)} -> "
                             f"{short(received[first] if first < len(received) else None)}")


def test_normal_server_messages_reach_the_client_byte_for_byte(pair):
    """Results, notifications (progress, logging, list_changed) and the server's own requests (sampling,
    elicitation, roots) pass untouched and in order, large and binary results included."""
    _, guarded = pair
    rewritable = rewritten_ids(guarded)

    def normal(wire: list[peers.Wire]) -> list[str]:
        return [w.line for w in wire if w.dir == "s2c"
                and not (is_response(w.msg) and id_key(w.msg["id"]) in rewritable)]

    written, delivered = normal(guarded.server_wire), normal(guarded.client_wire)
    expect(written, f"{guarded.describe()}: the server wrote no normal message at all; steps: "
                    f"{[(line['step'], line.get('outcome')) for line in guarded.lines]}")
    delivered_set, written_set = set(delivered), set(written)
    missing = [short(x, 300) for x in written if x not in delivered_set]
    extra = [short(x, 300) for x in delivered if x not in written_set]
    expect(not missing and not extra, f"{guarded.describe()}: normal server messages changed on the way.\n"
                                      f"written by the server, not delivered as is: {missing}\n"
                                      f"delivered, not written by the server: {extra}")
    expect(delivered == written, f"{guarded.describe()}: the same messages, in another order")


def test_every_request_is_answered_exactly_once(pair):
    _, guarded = pair
    for wire, requests_dir, answers_dir, who in (
        (guarded.client_wire, "c2s", "s2c", "client"),  # the client's requests, answered on the client side
        (guarded.server_wire, "s2c", "c2s", "server"),  # the server's requests (roots, sampling, ...), on the server side
    ):
        asked = [id_key(w.msg["id"]) for w in wire if w.dir == requests_dir and is_request(w.msg)]
        answers = Counter(id_key(w.msg["id"]) for w in wire if w.dir == answers_dir and is_response(w.msg))
        wrong = {i: answers[i] for i in asked if answers[i] != 1}
        stray = [i for i in answers if i not in asked]
        expect(not wrong and not stray, f"{guarded.describe()}: {who} requests answered other than once: {wrong}; "
                                        f"answers to no request: {stray}")


# ─── what the client SDK saw, compared with the direct run ───


def test_client_sdk_gets_the_same_results_as_direct(pair):
    direct, guarded = pair
    client = guarded.client
    differ = []
    for name, d in direct.steps.items():
        if name == "_callbacks" or not is_normal_outcome(d):
            continue
        g = guarded.steps.get(name)
        if g is None or comparable_step(g, client) != comparable_step(d, client):
            differ.append(f"step {name}:\n  direct:  {short(comparable_step(d, client), 500)}\n"
                          f"  guarded: {short(comparable_step(g, client) if g else None, 500)}")
    expect(not differ, f"{guarded.describe()}: normal steps differ from the direct run:\n" + "\n".join(differ))
    expect(guarded.steps["_callbacks"] == direct.steps["_callbacks"], "the server asked the client other things")
    if client == "ts" and "progress" in direct.steps:
        got, want = guarded.steps["progress"]["progress"], direct.steps["progress"]["progress"]
        expect(got and (got == want[: len(got)] or want == got[: len(want)]), (got, want))


def test_client_sends_the_same_requests_as_direct(pair):
    """Same answers, same client: what the client wrote (requests in order, answers to the server's requests
    as a set) is byte for byte what it wrote without the guard."""
    direct, guarded = pair

    def client_side(run: Run) -> tuple[list[str], Counter]:
        own = [w.line for w in run.client_wire if w.dir == "c2s" and not is_response(w.msg)]
        answers = Counter(w.line for w in run.client_wire if w.dir == "c2s" and is_response(w.msg))
        return own, answers

    d_own, d_answers = client_side(direct)
    g_own, g_answers = client_side(guarded)
    expect(g_own == d_own, f"{guarded.describe()}: the client's requests differ:\n" + "\n".join(
        f"  direct {short(a, 300)}\n  guard  {short(b, 300)}" for a, b in zip(d_own, g_own) if a != b))
    expect(g_answers == d_answers, f"{guarded.describe()}: the client's answers to the server differ")


def test_server_sends_the_same_normal_messages_as_direct(pair):
    direct, guarded = pair

    def normal(run: Run) -> Counter:
        return Counter(w.line for w in run.client_wire if w.dir == "s2c" and not is_error_or_is_error_result(w.msg))

    d, g = normal(direct), normal(guarded)
    expect(g == d, f"{guarded.describe()}: normal messages the client received differ from the direct run:\n"
                    f"  only direct:  {[short(x, 300) for x in (d - g)]}\n  only guarded: {[short(x, 300) for x in (g - d)]}")


# ─── errors ───


def check_error_kept(sent: dict[str, Any], got: dict[str, Any]) -> list[str]:
    """What a rewritten answer must still carry (see the module doc). `sent` and `got` are whole messages."""
    problems = []
    if "result" in sent:  # an isError result
        result = got.get("result")
        if not (isinstance(result, dict) and result.get("isError") is True):
            return [f"an isError result became {short(got)}"]
        if not same_modulo_redaction(sent["result"], result):
            problems.append("the isError result differs beyond [REDACTED:...] markers")
        return problems
    error = sent["error"]
    code = error.get("code")
    if code in KNOWN_CODES:
        if "error" not in got:
            return [f"error {code} (a code the SDK acts on) became a result: {short(got)}"]
        if got["error"].get("code") != code:
            problems.append(f"error code {code} (a code the SDK acts on) became {got['error'].get('code')}")
        if not same_modulo_redaction(error.get("data"), got["error"].get("data")):
            problems.append(f"error {code}'s data changed: {short(error.get('data'))} -> {short(got['error'].get('data'))}")
        if not same_modulo_redaction(error.get("message"), got["error"].get("message")):
            problems.append(f"error {code}'s message changed beyond redaction")
    else:
        # A server-specific code may become the dialect's upstream error (or, in the mcp dialect, an isError
        # result for tools/call); the server's message must still reach the client, redacted at most.
        text = json.dumps(got, ensure_ascii=False)
        message = str(error.get("message", ""))
        if message and json.dumps(message, ensure_ascii=False)[1:-1] not in text and "[REDACTED:" not in text:
            problems.append(f"the server's message {short(message)} did not reach the client")
    return problems


def test_errors_keep_what_the_client_needs(pair):
    _, guarded = pair
    delivered = responses_by_id(guarded.client_wire, "s2c")
    problems = []
    for w in guarded.server_wire:
        if w.dir != "s2c" or not is_error_or_is_error_result(w.msg):
            continue
        got = delivered.get(id_key(w.msg["id"]), [])
        if len(got) != 1:
            problems.append(f"id {w.msg['id']}: answered {len(got)} times")
            continue
        found = check_error_kept(w.msg, got[0].msg)
        if found:
            problems.append(f"id {w.msg['id']}: " + "; ".join(found) +
                            f"\n    server wrote: {short(w.line)}\n    client got:   {short(got[0].line)}")
    expect(not problems, f"{guarded.describe()}:\n" + "\n".join(problems))


def test_client_sdk_accepts_every_answer(pair):
    """No step ends in an SDK exception, a timeout or a closed connection unless it did without the guard
    (the Python SDK validates every result against the negotiated revision's schema)."""
    direct, guarded = pair
    bad = []
    for name, g in guarded.steps.items():
        d = direct.steps.get(name, {})
        if ("exception" in g or g.get("outcome") in ("timeout", "closed")) and g.get("exception") != d.get("exception"):
            bad.append(f"{name}: {g.get('outcome')} {g.get('exception')} (direct: {d.get('outcome')} {d.get('exception')})")
        if g.get("transport_errors") and name != "progress" and g["transport_errors"] != d.get("transport_errors"):
            bad.append(f"{name}: transport errors {g['transport_errors']}")
    expect(not bad, f"{guarded.describe()}: the client SDK rejected what it got:\n" + "\n".join(bad))


def test_guard_exits_cleanly_and_leaves_nothing(pair):
    """Exit status 0 when the server ends by itself after the client closed; 124 only when the guard really had
    to terminate it: it closed the server's input (the server-side wiretap saw the EOF) and the server had not
    exited within the grace period. The Python reference servers take 0.2-0.7 s to exit after their input
    closes, several seconds on a loaded machine, which is over the guard's (and the TS SDK's) 2 s."""
    _, guarded = pair
    expect(guarded.bad_log_lines == [], f"guard stderr lines that are not JSON: {guarded.bad_log_lines[:3]}")
    expect(guarded.upstream_pid, "no `started` event in the guard's log")
    expect(guarded.leftover == [], f"processes left behind: {guarded.leftover}")
    exits = [e.get("status") for e in guarded.events if e.get("event") == "exit"]
    expect(exits == [guarded.guard_status], f"exit events {exits}, exit status {guarded.guard_status}")
    tail = "\n".join(json.dumps(e) for e in guarded.events[-6:])
    input_closed = any(w.dir == "c2s-eof" for w in guarded.server_wire)
    expect(input_closed, f"{guarded.describe()}: the guard never closed the server's input; log tail:\n{tail}")
    if guarded.guard_status == 124:
        expect(any(e.get("event") == "terminating" for e in guarded.events),
               f"{guarded.describe()}: exit 124 without a `terminating` event:\n{tail}")
    else:
        expect(guarded.guard_status == 0, f"{guarded.describe()}: the guard exited {guarded.guard_status}:\n{tail}")


# ─── the brief's named cases, each on its own ───


@pytest.mark.parametrize("client", list(peers.CLIENTS))
@pytest.mark.parametrize("dialect", list(peers.DIALECTS))
def test_url_elicitation_required_error_reaches_the_client(campaign, client, dialect):
    """server-everything's trigger-url-elicitation with errorPath: the SDK must see -32042 and data.elicitations
    (the URL the user has to open) to recover, exactly as the server sent them."""
    direct = campaign.get(campaign.peer("everything", client, None))
    guarded = campaign.get(campaign.peer("everything", client, dialect))
    d, g = direct.steps["url_elicitation_error"], guarded.steps["url_elicitation_error"]
    expect(d["outcome"] == "error" and d["error"]["code"] == -32042 and d["error"]["data"]["elicitations"], short(d))
    sent = next(w.msg for w in guarded.server_wire if w.dir == "s2c" and is_response(w.msg)
                and "error" in w.msg and w.msg["error"].get("code") == -32042)
    expect(g["outcome"] == "error", f"{guarded.describe()}: the client got a result instead of -32042: {short(g)}")
    expect(g["error"]["code"] == -32042, f"{guarded.describe()}: code {g['error']['code']}, not -32042: {short(g)}")
    expect(g["error"].get("data", {}).get("elicitations") == sent["error"]["data"]["elicitations"], short(g))


@pytest.mark.parametrize("dialect", [None, *peers.DIALECTS])
def test_version_negotiation_one_revision_ahead(campaign, dialect):
    """The Python client offers a revision no one knows first; mcp-server-time answers -32022 with
    data.supported, and the SDK retries at 2026-07-28. Through the guard the client must end up where it did
    directly, having seen the same -32022."""
    direct = campaign.get(campaign.negotiation(None))
    run = campaign.get(campaign.negotiation(dialect))
    expect(direct.steps["initialize"]["outcome"] == "result", short(direct.stdout, 2000))
    expect(direct.steps["initialize"]["result"]["protocolVersion"] == "2026-07-28", direct.steps["initialize"])
    first = [w.msg for w in direct.client_wire if w.dir == "s2c" and is_response(w.msg)][0]
    expect(first["error"]["code"] == -32022 and "2026-07-28" in first["error"]["data"]["supported"], first)
    if dialect is None:
        return
    seen = [w.msg for w in run.client_wire if w.dir == "s2c" and is_response(w.msg)]
    expect(seen and "error" in seen[0] and seen[0]["error"]["code"] == -32022,
           f"{run.describe()}: the client's first answer is not -32022: {short(seen[0] if seen else None)}")
    expect(seen[0]["error"].get("data") == first["error"]["data"], short(seen[0]))
    for name in ("initialize", "convert"):
        expect(comparable_step(run.steps.get(name, {}), "py") == comparable_step(direct.steps[name], "py"),
               f"{run.describe()}: step {name}:\n  direct:  {short(direct.steps[name])}\n"
               f"  guarded: {short(run.steps.get(name))}")


@pytest.mark.parametrize("server,step", [("everything", "large_binary"), ("filesystem", "read_media_large"),
                                         ("filesystem", "read_media_binary"), ("everything", "image")])
@pytest.mark.parametrize("client", list(peers.CLIENTS))
@pytest.mark.parametrize("dialect", list(peers.DIALECTS))
def test_large_and_binary_results_are_relayed_untouched(campaign, server, step, client, dialect):
    direct = campaign.get(campaign.peer(server, client, None))
    guarded = campaign.get(campaign.peer(server, client, dialect))
    expect(is_normal_outcome(direct.steps[step]), short(direct.steps[step]))
    expect(comparable_step(guarded.steps[step], client) == comparable_step(direct.steps[step], client),
           f"{guarded.describe()}: {step} differs: {short(guarded.steps[step])}")
    spec = next(s for s in campaign.specs[server].steps if s["step"] == step)
    step_id = [w.msg["id"] for w in guarded.client_wire if w.dir == "c2s" and is_request(w.msg)
               and w.msg["method"] == "tools/call" and w.msg["params"].get("name") == spec["name"]
               and w.msg["params"].get("arguments") == spec["arguments"]][-1]
    written = [w.line for w in guarded.server_wire if w.dir == "s2c" and is_response(w.msg) and w.msg["id"] == step_id]
    delivered = [w.line for w in guarded.client_wire if w.dir == "s2c" and is_response(w.msg) and w.msg["id"] == step_id]
    expect(written and delivered == written, f"{guarded.describe()}: the {len(written[0]) if written else 0}-byte answer changed")


@pytest.mark.parametrize("client", list(peers.CLIENTS))
def test_progress_notifications_are_relayed(campaign, client):
    for dialect in peers.DIALECTS:
        direct = campaign.get(campaign.peer("everything", client, None))
        guarded = campaign.get(campaign.peer("everything", client, dialect))

        def progress(run: Run) -> list[str]:
            return [w.line for w in run.client_wire if w.dir == "s2c" and isinstance(w.msg, dict)
                    and w.msg.get("method") == "notifications/progress"]

        expect(len(progress(direct)) == 3, short(progress(direct)))
        expect(progress(guarded) == progress(direct), f"{guarded.describe()}: {progress(guarded)}")
        if client == "py":
            expect(guarded.steps["progress"]["progress"] == direct.steps["progress"]["progress"] == [1, 2, 3], 'assertion failed')


@pytest.mark.parametrize("client", list(peers.CLIENTS))
@pytest.mark.parametrize("dialect", list(peers.DIALECTS))
def test_guard_timeout_answer_is_accepted_and_the_session_goes_on(campaign, client, dialect):
    """mcp-server-fetch fetching a page that does not answer: the guard's --timeout answers the call itself,
    a tools/call (an error, or in the mcp dialect an isError result) and a prompts/get (an error). The client
    SDK must accept each answer (on 2026-07-28 a result needs `resultType`), must be able to tell it is a
    timeout (the code both SDKs name REQUEST_TIMEOUT / RequestTimeout, -32001, or a text saying so) and so
    worth retrying, and the next call must work."""
    run = campaign.get(campaign.timeout(client, dialect))
    expect(run.returncode == 0, run.stderr[-2000:])
    steps = run.steps
    expect(all(name in steps for name in ("fetch_hangs", "fetch_after", "prompt_hangs", "fetch_last")),
           f"{run.describe()}: the session stopped early: {short(run.stdout, 2000)}")
    for name in ("fetch_hangs", "prompt_hangs"):
        hang = steps[name]
        expect(hang["outcome"] in ("error", "result") and "exception" not in hang,
               f"{run.describe()}: {name}: the client SDK did not take the guard's timeout answer: {short(hang)}")
        expect(hang["elapsed_ms"] < (GUARD_TIMEOUT_SECS + 5) * 1000, f"{name}: answered late: {short(hang)}")
        if hang["outcome"] == "result":
            expect(name == "fetch_hangs" and hang["result"].get("isError") is True, f"{name}: {short(hang)}")
            text = " ".join(c.get("text", "") for c in hang["result"].get("content", []))
            expect("timeout" in text.lower(), f"{run.describe()}: {name}: the isError text does not say timeout: {short(hang)}")
        else:
            said = json.dumps([hang["error"].get("message"), hang["error"].get("data")]).lower()
            expect(hang["error"]["code"] == -32001 or "timeout" in said or "timed out" in said,
                   f"{run.describe()}: {name}: the guard's timeout answer does not tell the client it is a timeout "
                   f"(neither -32001, the code both SDKs name for a request timeout, nor a message or data saying "
                   f"so): {short(hang)}")
    for name in ("fetch_after", "fetch_last"):
        expect(is_normal_outcome(steps[name]) and steps[name]["result"] == steps["fetch_text"]["result"],
               f"{run.describe()}: {name} after the timeout: {short(steps[name])}")
    answered = [e for e in run.events if e.get("event") == "answered" and e.get("kind") == "upstream-timeout"]
    expect(len(answered) == 2, short(run.events, 2000))
