"""16 concurrent official SDK clients through one `guard --listen`, each checking that every answer and every
progress notification it gets is its own (issue 34).

Eight Python SDK clients (`mcp` 2.3.0, `clients/isolation_py_clients.py`: the SDK's default connect,
`server/discover` at 2026-07-28 falling back to `initialize`) and eight TypeScript SDK clients (1.32.2,
`clients/isolation_ts_clients.mjs`: 2025-11-25 sessions) at once, each SDK numbering its requests as it does
(so ids repeat across clients), each calling tools with inputs unique to it, in two rounds of concurrent calls:

- in front of `@modelcontextprotocol/server-everything` (stdio): `echo`, `get-sum`,
  `trigger-long-running-operation` with progress (a step count unique to the client and round, so every
  progress notification's `total` says whose it is) and `trigger-sampling-request` (the server asks the client
  to sample: the prompt must be the client's own, and the tool's answer must carry the client's own reply).
  server-everything is a 2025-era server: the front connects to its shared child with `initialize`, the Python
  SDK's `server/discover` is answered by that child (method not found), and the SDK falls back to a session;
- in front of `servers/stateless_server.py` (the Python SDK's `MCPServer`, which speaks 2026-07-28): the
  Python clients stay stateless and share one child; the TypeScript clients get sessions. `echo`, `add`, and
  `count` with progress.

The clients judge nothing; the test does, from what each SDK returned: every call answered, with the answer to
its own inputs; every progress notification with its own total (and label), in order, the Python SDK's all of
them (the TypeScript SDK can lose the last one to a race of its own: tests/guard/README.md); no record holds
another client's tag; the guard drains on SIGTERM (exit 0) and leaves no process behind.
"""

from __future__ import annotations

import concurrent.futures
import http.client
import json
import random
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from harness import HANG, HERE, PY, Guard, wait_gone

EVERYTHING = HERE / "real" / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
STATELESS_SERVER = HERE / "servers" / "stateless_server.py"
PY_CLIENTS = HERE / "clients" / "isolation_py_clients.py"
TS_CLIENTS = HERE / "clients" / "isolation_ts_clients.mjs"
SEED = 34
ROUNDS = 2


def spec_for(k: int, server: str, rng: random.Random) -> dict[str, Any]:
    """Client `k`'s calls: inputs that only it uses, and a step count no other client's progress has."""
    tag = f"c{k:02d}x{rng.getrandbits(32):08x}"
    calls: list[dict[str, Any]] = []
    for r in range(ROUNDS):
        t = f"{tag}r{r}"
        a, b = 100_000 * k + 1000 * r + rng.randrange(1000), 7_000 * k + rng.randrange(1000)
        steps = 2 + k + 17 * r
        calls.append({"round": r, "name": "echo", "arguments": {"message": f"echo {t}"}})
        if server == "everything":
            calls.append({"round": r, "name": "get-sum", "arguments": {"a": a, "b": b}})
            calls.append(
                {
                    "round": r,
                    "name": "trigger-long-running-operation",
                    "arguments": {"duration": 0.6, "steps": steps},
                    "progress": True,
                }
            )
            calls.append(
                {
                    "round": r,
                    "name": "trigger-sampling-request",
                    "arguments": {"prompt": f"prompt {t}", "maxTokens": 20},
                }
            )
        else:
            calls.append({"round": r, "name": "add", "arguments": {"a": a, "b": b}})
            calls.append(
                {
                    "round": r,
                    "name": "count",
                    "arguments": {"steps": steps, "delay_ms": 15, "label": t},
                    "progress": True,
                }
            )
    return {"client": k, "tag": tag, "calls": calls, "sampling_reply": f"sampled for {tag}"}


def stateless(record: dict[str, Any]) -> bool:
    return record.get("protocol") == "2026-07-28"


def judge_call(call: dict[str, Any], got: dict[str, Any], spec: dict[str, Any], record: dict[str, Any]) -> list[str]:
    """What is wrong with one call's outcome, given the inputs only this client used."""
    sdk = record["sdk"]
    name, args = call["name"], call["arguments"]
    if (
        name == "trigger-sampling-request"
        and stateless(record)
        and (got.get("outcome") == "error" or got.get("is_error"))
    ):
        # A stateless client cannot be asked anything by a 2025-era server (it has no stream for the question):
        # the server is refused at once, and its tool fails. Failing is right; someone else's answer (another
        # client's tag, which `judge` looks for in the whole record) never is.
        return []
    if got.get("outcome") != "result" or got.get("is_error"):
        return [
            f"{name} {json.dumps(args)}: {got.get('outcome')} {json.dumps(got.get('error') or got.get('text'))[:300]}"
        ]
    text = got.get("text") or ""
    problems = []
    if name == "echo" and text != f"Echo: {args['message']}":
        problems.append(f"echo {args['message']!r} answered {text[:200]!r}")
    if name in ("get-sum", "add") and f"The sum of {args['a']} and {args['b']} is {args['a'] + args['b']}." not in text:
        problems.append(f"{name} {args['a']}+{args['b']} answered {text[:200]!r}")
    if name == "trigger-sampling-request" and spec["sampling_reply"] not in text:
        problems.append(f"sampling for {args['prompt']!r} answered {text[:300]!r}")
    if name == "trigger-long-running-operation" and f"Steps: {args['steps']}." not in text:
        problems.append(f"long-running {args['steps']} steps answered {text[:200]!r}")
    if name == "count" and text != f"{args['label']} counted {args['steps']}":
        problems.append(f"count {args['label']} answered {text[:200]!r}")
    if call.get("progress"):
        steps = args["steps"]
        progress = got.get("progress") or []
        values = [p[0] for p in progress]
        foreign = [
            p
            for p in progress
            if p[1] != steps or not (1 <= p[0] <= steps) or (name == "count" and args["label"] not in (p[2] or ""))
        ]
        if foreign:
            problems.append(f"{name} ({steps} steps) got progress that is not its own: {foreign[:5]}")
        expected = list(range(1, steps + 1))
        if sdk == "python" and values != expected:
            problems.append(f"{name} ({steps} steps) got progress {values}, not {expected}")
        if sdk == "typescript" and (not values or values != expected[: len(values)]):
            problems.append(f"{name} ({steps} steps) got progress {values}, not a prefix of {expected}")
    return problems


def judge(records: list[dict[str, Any]], specs: dict[int, dict[str, Any]]) -> list[str]:
    problems = []
    tags = {k: s["tag"] for k, s in specs.items()}
    for record in records:
        k = record["client"]
        spec = specs[k]
        who = f"client {k} ({record['sdk']}, {record.get('protocol')})"
        if record["connect"] != "ok":
            problems.append(f"{who} could not connect: {record['connect']}")
            continue
        text = json.dumps(record)
        strangers = sorted(other for j, other in tags.items() if j != k and other in text)
        if strangers:
            problems.append(f"{who} holds other clients' tags {strangers}")
        pending = list(record["calls"])
        for call in spec["calls"]:
            got = next((g for g in pending if g["name"] == call["name"] and g["round"] == call["round"]), None)
            if got is None:
                problems.append(f"{who}: {call['name']} round {call['round']} never ran")
                continue
            pending.remove(got)
            problems += [f"{who}: {p}" for p in judge_call(call, got, spec, record)]
        sampling_calls = [c for c in spec["calls"] if c["name"] == "trigger-sampling-request"]
        own_prompts = [c["arguments"]["prompt"] for c in sampling_calls]
        asked = record.get("sampling", [])
        if len(asked) != len(sampling_calls) and not stateless(record):
            problems.append(f"{who} was asked to sample {len(asked)} times for {len(sampling_calls)} sampling calls")
        for request in asked:
            if not any(p in request for p in own_prompts):
                problems.append(f"{who} was asked to sample what another client asked for: {request[:300]}")
        if record.get("elicitation"):
            problems.append(f"{who} was asked elicitations it never caused: {record['elicitation'][:2]}")
    return problems


def run_clients(url: str, specs: list[dict[str, Any]], folder: Path, python: int) -> list[dict[str, Any]]:
    """Both SDKs' clients at once (the first `python` specs on the Python SDK); their records, one per client."""
    py_specs, ts_specs = specs[:python], specs[python:]
    procs = []
    for name, command, chunk in (("py", [PY, str(PY_CLIENTS)], py_specs), ("ts", ["node", str(TS_CLIENTS)], ts_specs)):
        spec_file = folder / f"{name}-spec.json"
        spec_file.write_text(json.dumps(chunk))
        procs.append(
            subprocess.Popen(
                [*command, "--url", url, "--spec", str(spec_file), "--per-call-timeout-ms", "30000"],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    records = []
    for name, proc in zip(("python", "typescript"), procs, strict=True):
        out, err = proc.communicate(timeout=180)
        assert proc.returncode == 0, f"{name} clients exited {proc.returncode}: {err[-3000:]}"
        records += [json.loads(line) for line in out.splitlines() if line.strip()]
    return records


@pytest.mark.parametrize("server", ["everything", "stateless"])
def test_sixteen_sdk_clients_each_get_only_their_own_answers_and_progress(server, tmp_path):
    if server == "everything" and not EVERYTHING.exists():
        pytest.fail(f"{EVERYTHING} is missing: run tests/guard/setup.sh")
    upstream = ["node", str(EVERYTHING), "stdio"] if server == "everything" else [PY, str(STATELESS_SERVER)]
    rng = random.Random(SEED)
    specs = [spec_for(k, server, rng) for k in range(1, 17)]
    g = Guard(["--listen", "127.0.0.1:0", "--timeout", "60"], upstream)
    try:
        addr = g.wait_event("listening")["addr"]
        started = time.monotonic()
        # Against the stateless server, most clients are Python ones (stateless, on the shared child); every
        # TypeScript client, and against server-everything every client, has a session and a child of its own.
        records = run_clients(f"http://{addr}/mcp", specs, tmp_path, python=8 if server == "everything" else 12)
        took = time.monotonic() - started
        pids = [int(e["pid"]) for e in g.events("started")]
        eras = sorted({(r["sdk"], r.get("protocol")) for r in records})
        problems = judge(records, {s["client"]: s for s in specs})
        assert len(records) == 16, records
        assert not problems, f"{len(problems)} problems ({server}; eras {eras}; {took:.1f} s):\n" + "\n".join(
            problems[:60]
        )
        g.proc.send_signal(15)
        assert g.wait(HANG) == 0
        assert wait_gone(pids) == [], "a child outlived the guard"
        g.assert_log_is_json()
    finally:
        g.kill()


def test_a_repeated_progress_token_steers_no_real_servers_progress_into_an_sdk_clients_call(tmp_path):
    """The official Python server (`MCPServer`) reads the last of a repeated `_meta.progressToken`, as JSON
    parsers do; a guard that reads the first renames that one and forwards the second as the client wrote it.
    An attacker sharing the stateless child with a Python SDK client whose `count` streams progress repeats the
    token with small numbers (the guard's upstream tokens are a counter): the server then reports the attacker's
    progress under the victim's token, and the guard routes it to the victim. The attacker must be refused
    (-32600: a repeated member), and the victim must get only its own progress."""
    g = Guard(["--listen", "127.0.0.1:0", "--timeout", "60"], [PY, str(STATELESS_SERVER)])
    try:
        addr = g.wait_event("listening")["addr"]
        host, port = addr.rsplit(":", 1)
        spec = {
            "client": 1,
            "tag": "victim0001",
            "sampling_reply": "-",
            "calls": [
                {
                    "round": 0,
                    "name": "count",
                    "arguments": {"steps": 40, "delay_ms": 50, "label": "victim0001"},
                    "progress": True,
                }
            ],
        }
        spec_file = tmp_path / "victim.json"
        spec_file.write_text(json.dumps([spec]))
        victim = subprocess.Popen(
            [PY, str(PY_CLIENTS), "--url", f"http://{addr}/mcp", "--spec", str(spec_file)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + HANG
        for line in victim.stderr:
            if "calls count" in line or time.monotonic() > deadline:
                break
        time.sleep(0.3)

        def attack(guess: int) -> tuple[int, Any]:
            meta = (
                '{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},'
                f'"progressToken":"mine","progressToken":{guess}}}'
            )
            body = (
                '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","arguments":'
                f'{{"steps":5,"delay_ms":30,"label":"attacker{guess}"}},"_meta":{meta}}}}}'
            )
            c = http.client.HTTPConnection(host, int(port), timeout=HANG)
            try:
                c.request(
                    "POST",
                    "/mcp",
                    body=body.encode(),
                    headers={
                        "Content-Type": "application/json",
                        "Accept": "application/json, text/event-stream",
                        "MCP-Protocol-Version": "2026-07-28",
                        "Mcp-Method": "tools/call",
                        "Mcp-Name": "count",
                    },
                )
                r = c.getresponse()
                data = r.read().decode()
                last = [ln for ln in data.splitlines() if ln.startswith("data:")]
                return r.status, json.loads(last[-1][5:] if last else data)
            finally:
                c.close()

        with concurrent.futures.ThreadPoolExecutor(16) as pool:
            answers = list(pool.map(attack, range(1, 61)))
        out, err = victim.communicate(timeout=120)
        assert victim.returncode == 0, err[-3000:]
        record = json.loads(out.splitlines()[0])
        problems = judge([record], {1: spec})
        accepted = [a for a in answers if (a[1].get("error") or {}).get("code") != -32600]
        assert not problems and not accepted, (
            "\n".join(problems)
            + f"\n{len(accepted)} of 60 requests repeating progressToken were not refused -32600, e.g. "
            + json.dumps(accepted[:1])[:400]
        )
    finally:
        g.kill()
