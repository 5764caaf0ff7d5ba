"""The guard's policy file (issue 27) between real MCP software: `@modelcontextprotocol/server-filesystem` reading
a `.env` full of secrets and `@modelcontextprotocol/server-everything`'s long-running tool, through
`jsonrpc-errors guard --config FILE`, the Python example proxy (`jsonrpc_errors.mcp.guard_streams`) and the
TypeScript one (`jsonrpc-errors/mcp`'s `guardTransport`), each given the same file with `--config`.

A session here is a scripted client that writes JSON-RPC lines and reads the answers (so that it can send the
guard SIGHUP between two requests, time a request, and compare answers byte for byte); two sessions run the
official SDK clients (tests/guard/real/clients) through the CLI guard to show they take what the policy makes
of a result. Every expectation about the content is what the same server answered without a guard in the same
test run (`direct`), or a value written into the file here; nothing is assumed about a guard's own answers
but what the policy file says (its dialect, the tool it names) and what the other guards answered.

    tests/guard/run-tests.sh real/test_policy_peers.py

What must hold:
- no policy, or one that keeps the default scopes: a successful result is the server's bytes, untouched;
- `scopes = ["errors", "results"]`: the secrets are redacted, every other byte of the file reaches the client,
  and a result no rule touches passes byte for byte;
- `[actions] github-token = "block"`: the client gets the policy's refusal (an `isError` result in the mcp
  dialect, the canonical error otherwise) and the log a `blocked` event with the rule and the tool, never a
  value;
- `allow = [value]`: that value survives, the others are redacted;
- `github-token = "audit"`: an `audited` event, the message untouched;
- `[[tool]] timeout` shorter than the default: the slow tool is answered at the tool's timeout;
- SIGHUP: a new file holds for new requests; a refused one keeps the old policy and logs `policy-reload-refused`;
- `--metrics-addr`: `policy_decisions_total` with `rule` and `tool` labels;
- the three guards give the client the same messages, message by message.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import threading
import time
import urllib.request
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import peers
from harness import GUARD, PY, ROOT, parse_log, wait_gone, wait_group_gone
from peers import EVERYTHING, FILESYSTEM, NODE, same_modulo_redaction, short

PY_PROXY = ROOT / "examples" / "mcp-proxy-python" / "proxy.py"
TS_PROXY = ROOT / "examples" / "mcp-proxy-ts" / "proxy.js"
GUARDS = ("cli", "py", "ts")
WORKERS = int(os.environ.get("POLICY_PEERS_WORKERS", "4"))
ANSWER_WAIT = 20.0  # seconds a request may take here at most (they take milliseconds; the slow tool 1 s)
SESSION_WAIT = 120.0

# ─── the files the server reads: secrets of the shapes the redaction catalogue knows, made up here ───

TOKEN = "ghp_9fKx2LmQ7vTz4RbW8nYc1HdP5sJ3uA6eG0tN"
DB_PASSWORD = "pR7x-Vt29-kLq4"
AWS_KEY_ID = "AKIA4TQZ7MXR2WLV5NKD"
AWS_SECRET = "Jq8vN2xR7tLw4Kz9Pm3Yb6Hc1Df5Gs0Ae8Ui2OoQ"
SECRETS = [TOKEN, DB_PASSWORD, AWS_KEY_ID, AWS_SECRET]
DOTENV = f"""# orders-service, staging
APP_NAME=orders-service
NODE_ENV=staging
PORT=8080
DATABASE_URL=postgresql://orders_svc:{DB_PASSWORD}@orders-db.staging.internal:5432/orders
GITHUB_TOKEN={TOKEN}
AWS_ACCESS_KEY_ID={AWS_KEY_ID}
AWS_SECRET_ACCESS_KEY={AWS_SECRET}
LOG_LEVEL=info
FEATURE_NEW_CHECKOUT=true
"""
# Only the GitHub token: what an audit of github-token leaves untouched whole.
RELEASE = f"# Release 4.2\n\nCI publishes with the bot's token {TOKEN} (rotate after the release).\n"
RUNBOOK = "# Runbook\n\n1. Drain the queue.\n2. Restart orders-service.\n3. Check https://status.example.org/.\n"

RESULTS = '[redaction]\nscopes = ["errors", "results"]\n'
POLICIES = {
    "plain": "# The default scopes: errors only.\n[defaults]\ntimeout = 30\n",
    "results": RESULTS,
    "block": f'[defaults]\ndialect = "mcp"\n\n{RESULTS}\n[actions]\ngithub-token = "block"\n',
    "allow": f'{RESULTS}allow = ["{TOKEN}"]\n',
    "audit": f'{RESULTS}\n[actions]\ngithub-token = "audit"\n',
    "timeout": '[defaults]\ntimeout = 30\n\n[[tool]]\nmatch = "trigger-long-running-*"\ntimeout = 1\n',
    "refused": '[redaction]\nscopes = ["errors", "results"]\n\n[actions]\ngithub-token = "shred"\n',
}
SLOW_TOOL = "trigger-long-running-operation"


def read(step: str, path: Path) -> dict[str, Any]:
    return {"step": step, "method": "tools/call", "params": {"name": "read_text_file", "arguments": {"path": str(path)}}}


# ─── a scripted line client ───


@dataclass
class Answer:
    line: str
    msg: Any
    elapsed: float


@dataclass
class RawRun:
    key: str
    guard: str | None  # None: direct
    dir: Path
    answers: dict[str, Answer]
    log: str
    events: list[dict[str, Any]]
    returncode: int | None
    stdout_rest: list[str]
    metrics: str = ""
    leftover: list[int] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def describe(self) -> str:
        return f"{self.key} ({self.guard or 'direct'})"

    def text(self, step: str) -> str:
        """The first text content of a step's result."""
        return self.answers[step].msg["result"]["content"][0]["text"]


def guard_command(guard: str | None, config: Path | None, args: list[str]) -> list[str]:
    with_config = ["--config", str(config)] if config else []
    if guard is None:
        return []
    if guard == "cli":
        return [str(GUARD), "guard", *with_config, *args, "--"]
    if guard == "py":
        return [PY, str(PY_PROXY), *with_config, *args, "--"]
    return [NODE, str(TS_PROXY), *with_config, *args, "--"]


def run_raw(workdir: Path, key: str, guard: str | None, server: list[str], steps: list[dict[str, Any]], *,
            policy: str | None = None, args: list[str] | None = None) -> RawRun:
    """Runs `steps` through `guard` (None: straight to the server): initialize, then each step in turn. A step is
    a request (`method`, `params`), `{"sighup": POLICY, "expect": EVENT}` (the file rewritten, SIGHUP, the log
    awaited) or `{"metrics": True}` (the CLI's metrics scraped)."""
    d = workdir / key
    d.mkdir(parents=True)
    config = None
    if policy is not None:
        config = d / "policy.toml"
        config.write_text(POLICIES[policy])
    log_path = d / "stderr.log"
    log = open(log_path, "wb")
    proc = subprocess.Popen([*guard_command(guard, config, args or []), *server], cwd=d, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=log, env=peers.session_env(), start_new_session=True)
    lines: list[str] = []
    arrived = threading.Condition()

    def reader() -> None:
        assert proc.stdout is not None
        for raw in proc.stdout:
            with arrived:
                lines.append(raw.decode("utf-8", errors="replace").rstrip("\n"))
                arrived.notify_all()
        with arrived:
            arrived.notify_all()

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    answers: dict[str, Answer] = {}
    problems: list[str] = []
    metrics = ""
    next_id = 0

    def send(obj: dict[str, Any]) -> None:
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(obj, separators=(",", ":")).encode() + b"\n")
        proc.stdin.flush()

    def answer_to(request_id: int, since: int) -> tuple[str, Any] | None:
        deadline = time.monotonic() + ANSWER_WAIT
        seen = since
        with arrived:
            while True:
                for line in lines[seen:]:
                    try:
                        msg = json.loads(line)
                    except ValueError:
                        continue
                    if isinstance(msg, dict) and "method" not in msg and msg.get("id") == request_id:
                        return line, msg
                seen = len(lines)
                left = deadline - time.monotonic()
                if left <= 0 or proc.poll() is not None and not thread.is_alive():
                    return None
                arrived.wait(min(left, 0.5))

    def log_has(needle: str, after: int) -> bool:
        deadline = time.monotonic() + ANSWER_WAIT
        while time.monotonic() < deadline:
            if needle in log_path.read_text(errors="replace")[after:]:
                return True
            time.sleep(0.02)
        return False

    def request(step: str, method: str, params: dict[str, Any] | None) -> None:
        nonlocal next_id
        next_id += 1
        since = len(lines)
        started = time.monotonic()
        send({"jsonrpc": "2.0", "id": next_id, "method": method, **({"params": params} if params is not None else {})})
        got = answer_to(next_id, since)
        if got is None:
            problems.append(f"{step}: no answer to request {next_id} within {ANSWER_WAIT} s")
            return
        answers[step] = Answer(got[0], got[1], time.monotonic() - started)

    try:
        request("initialize", "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                             "clientInfo": {"name": "policy-peers", "version": "1.0.0"}})
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        for step in steps:
            if "sighup" in step:
                assert config is not None
                config.write_text(POLICIES[step["sighup"]])
                mark = len(log_path.read_text(errors="replace"))
                proc.send_signal(signal.SIGHUP)
                if not log_has(step["expect"], mark):
                    problems.append(f"after SIGHUP ({step['sighup']}): no {step['expect']} in the log")
            elif "metrics" in step:
                metrics = scrape_metrics(log_path)
            else:
                request(step["step"], step["method"], step.get("params"))
    except (BrokenPipeError, OSError) as e:
        problems.append(f"the guard went away: {e}")
    finally:
        try:
            assert proc.stdin is not None
            proc.stdin.close()
        except OSError:
            pass
        try:
            returncode: int | None = proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            returncode = None
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        thread.join(timeout=10)
        log.close()
    text = log_path.read_text(encoding="utf-8", errors="replace")
    events, _ = parse_log(text.splitlines())
    started = [int(e["pid"]) for e in events if e.get("event") == "started" and "pid" in e]
    leftover = wait_gone(started, timeout=10)
    for pid in started:
        leftover += wait_group_gone(pid, timeout=10)
    consumed = {a.line for a in answers.values()}
    rest = [line for line in lines if line not in consumed]
    (d / "stdout.jsonl").write_text("\n".join(lines) + "\n")
    (d / "metrics.txt").write_text(metrics)
    return RawRun(key, guard, d, answers, text, events, returncode, rest, metrics, leftover, problems)


def scrape_metrics(log_path: Path) -> str:
    """The CLI's metrics, at the address its log names (`--metrics-addr 127.0.0.1:0`)."""
    deadline = time.monotonic() + ANSWER_WAIT
    while time.monotonic() < deadline:
        events, _ = parse_log(log_path.read_text(errors="replace").splitlines())
        addr = next((e["addr"] for e in events if e.get("event") == "metrics" and "addr" in e), None)
        if addr:
            with urllib.request.urlopen(f"http://{addr}/metrics", timeout=10) as response:  # loopback only
                return response.read().decode()
        time.sleep(0.05)
    return ""


# ─── the sessions ───


@dataclass
class Folder:
    path: Path

    @property
    def env(self) -> Path:
        return self.path / ".env"

    @property
    def release(self) -> Path:
        return self.path / "RELEASE.md"

    @property
    def runbook(self) -> Path:
        return self.path / "RUNBOOK.md"


def make_folder(path: Path) -> Folder:
    path.mkdir(parents=True)
    (path / ".env").write_text(DOTENV)
    (path / "RELEASE.md").write_text(RELEASE)
    (path / "RUNBOOK.md").write_text(RUNBOOK)
    return Folder(path)


def scenarios(folder: Folder) -> dict[str, dict[str, Any]]:
    """Scenario name -> policy, guard arguments, server, steps: run once per guard (and `direct` once)."""
    fs = [NODE, str(FILESYSTEM), str(folder.path)]
    everything = [NODE, str(EVERYTHING), "stdio"]
    # A client lists the tools first, as the SDK clients do: the names the guard's events and metrics label
    # their decisions with (a tool the server did not list is `other`).
    listing = {"step": "list", "method": "tools/list", "params": {}}
    reads = [listing, read("read_env", folder.env), read("read_release", folder.release), read("read_runbook", folder.runbook)]
    # 3 s: over the tool's 1 s timeout, and over by little, so the server can still exit within the guard's grace.
    slow = {"step": "slow", "method": "tools/call", "params": {"name": SLOW_TOOL, "arguments": {"duration": 3, "steps": 1}}}
    echo = {"step": "echo", "method": "tools/call", "params": {"name": "echo", "arguments": {"message": "still there"}}}
    return {
        "none": {"policy": None, "server": fs, "steps": reads},
        "plain": {"policy": "plain", "server": fs, "steps": reads},
        "results": {"policy": "results", "server": fs, "steps": reads},
        "block": {"policy": "block", "server": fs, "steps": reads, "metrics": True},
        "block-canonical": {"policy": "block", "server": fs, "steps": reads, "args": ["--dialect", "canonical"]},
        "allow": {"policy": "allow", "server": fs, "steps": reads},
        "audit": {"policy": "audit", "server": fs, "steps": reads, "metrics": True},
        "timeout": {"policy": "timeout", "server": everything, "steps": [listing, slow, echo], "metrics": True},
        "reload": {"policy": "plain", "server": fs, "steps": [
            read("before", folder.env),
            {"sighup": "results", "expect": "policy-reloaded"},
            read("reloaded", folder.env),
            {"sighup": "refused", "expect": "policy-reload-refused"},
            read("kept", folder.env),
        ]},
    }


class Sessions:
    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.folder = make_folder(workdir / "folder")
        self.scenarios = scenarios(self.folder)
        self.pool = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="policy")
        self.futures: dict[tuple[str, str | None], Future] = {}
        fs = self.scenarios["none"]
        self.futures[("direct", None)] = self.pool.submit(run_raw, workdir / "runs", "direct", None, fs["server"], fs["steps"])
        # The slowest first: the timeout sessions wait a second, the Python proxy starts in about one.
        for name in ["timeout", "reload", *[n for n in self.scenarios if n not in ("timeout", "reload")]]:
            s = self.scenarios[name]
            for guard in GUARDS:
                if name == "none" and guard != "cli":
                    continue  # the adapters without a policy are the existing suites' business
                args = [*s.get("args", []), *(["--metrics-addr", "127.0.0.1:0"] if s.get("metrics") and guard == "cli" else [])]
                steps = [*s["steps"], *([{"metrics": True}] if s.get("metrics") and guard == "cli" else [])]
                self.futures[(name, guard)] = self.pool.submit(
                    run_raw, workdir / "runs", f"{name}-{guard}", guard, s["server"], steps, policy=s["policy"], args=args)
        # The SDK clients through the CLI guard, as test_real_peers.py drives them.
        self.sdk: dict[tuple[str, str], Future] = {}
        fx = peers.Fixtures(workdir, self.folder.path, workdir, None)  # type: ignore[arg-type]  # no repo or site needed
        spec = peers.ServerSpec(fs["server"], [{"step": "list_tools", "op": "list_tools"},
                                               *[peers.call(r["step"], "read_text_file", r["params"]["arguments"])
                                                 for r in fs["steps"] if r["method"] == "tools/call"]])
        for client in peers.CLIENTS:
            for how in ("direct", "results", "block"):
                self.sdk[(client, how)] = self.pool.submit(self._sdk_session, fx, spec, client, how)

    def _sdk_session(self, fx: peers.Fixtures, spec: peers.ServerSpec, client: str, how: str) -> peers.Run:
        if how == "direct":
            return peers.run_session(fx, "filesystem", spec, client, None, tag="-policy")
        config = self.workdir / f"sdk-{how}.toml"
        config.write_text(POLICIES[how])
        return peers.run_session(fx, "filesystem", spec, client, "mcp", tag=f"-policy-{how}", guard_args=["--config", str(config)])

    def get(self, name: str, guard: str | None) -> RawRun:
        run = self.futures[(name, guard)].result(timeout=SESSION_WAIT)
        expect(not run.problems, f"{run.describe()}: {run.problems}\nlog tail:\n{run.log[-3000:]}")
        # 124: the guard had to terminate the server (server-everything runs on while its cancelled tool does,
        # about as long as the guard's 2 s grace).
        expect(run.returncode == 0 or run.returncode == 124 and name == "timeout",
               f"{run.describe()}: exit status {run.returncode}\nlog tail:\n{run.log[-3000:]}")
        expect(run.leftover == [], f"{run.describe()}: processes left behind: {run.leftover}")
        return run

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


@pytest.fixture(scope="module")
def sessions(tmp_path_factory) -> Sessions:
    s = Sessions(tmp_path_factory.mktemp("policy-peers"))
    yield s
    s.close()


def expect(condition: Any, message: Any) -> None:
    """assert, without pytest's rewriting (a diff of whole sessions would drown the message)."""
    if not condition:
        pytest.fail(str(message))


def direct_text(sessions: Sessions, step: str) -> str:
    return sessions.get("direct", None).text(step)


def events_named(run: RawRun, name: str) -> list[dict[str, Any]]:
    return [e for e in run.events if e.get("event") == name]


def no_secret_in(text: str) -> list[str]:
    return [s for s in SECRETS if s in text]


# ─── what the policy does, through each guard ───


def test_the_direct_run_reads_the_files_as_written(sessions):
    direct = sessions.get("direct", None)
    assert direct.text("read_env") == DOTENV and direct.text("read_release") == RELEASE and direct.text("read_runbook") == RUNBOOK


@pytest.mark.parametrize("name", ["none", "plain"])
def test_without_the_results_scope_a_result_is_untouched_byte_for_byte(sessions, name):
    direct = sessions.get("direct", None)
    for guard in ("cli",) if name == "none" else GUARDS:
        run = sessions.get(name, guard)
        for step in ("read_env", "read_release", "read_runbook"):
            if guard == "py":
                # The Python proxy writes what it relays through the SDK's own serialization: equal as JSON.
                expect(run.answers[step].msg == direct.answers[step].msg, f"{run.describe()}: {step} changed")
            else:
                expect(run.answers[step].line == direct.answers[step].line,
                       f"{run.describe()}: {step} changed:\n  direct: {short(direct.answers[step].line)}\n"
                       f"  guard:  {short(run.answers[step].line)}")
        expect(not events_named(run, "redacted") and "redacted" not in run.log, f"{run.describe()}: {run.log[-2000:]}")


@pytest.mark.parametrize("guard", GUARDS)
def test_the_results_scope_redacts_the_secrets_and_keeps_the_rest(sessions, guard):
    run = sessions.get("results", guard)
    direct = sessions.get("direct", None)
    env = run.text("read_env")
    expect(no_secret_in(env) == [], f"{run.describe()}: secrets reached the client: {no_secret_in(env)}\n{env}")
    expect(same_modulo_redaction(DOTENV, env), f"{run.describe()}: more than the secrets changed:\n{env}")
    for rule in ("github-token", "url-credentials", "aws-access-key-id", "aws-secret-access-key"):
        expect(f"[REDACTED:{rule}]" in env, f"{run.describe()}: no {rule} marker:\n{env}")
    # Every line without a secret is the file's own.
    kept = [line for line in DOTENV.splitlines() if not no_secret_in(line)]
    expect([line for line in kept if line not in env.splitlines()] == [], env)
    # The rest of the message is the server's: only the text changed.
    got, want = run.answers["read_env"].msg, direct.answers["read_env"].msg
    expect(same_modulo_redaction(want, got), f"{run.describe()}: {short(got)}")
    # A result no rule touches passes as it came.
    expect(run.answers["read_runbook"].msg == direct.answers["read_runbook"].msg, short(run.answers["read_runbook"].line))
    if guard != "py":
        expect(run.answers["read_runbook"].line == direct.answers["read_runbook"].line, "the runbook's bytes changed")
    if guard == "cli":
        redacted = events_named(run, "redacted")
        expect(redacted and all(e.get("tool") == "read_text_file" for e in redacted), redacted)
        expect("github-token" in redacted[0].get("rule", ""), redacted)
    expect(no_secret_in(run.log) == [], f"{run.describe()}: a secret in the log")


@pytest.mark.parametrize("guard", GUARDS)
def test_a_blocked_rule_answers_the_policy_error_and_logs_rule_and_tool_never_the_value(sessions, guard):
    run = sessions.get("block", guard)
    denied = run.answers["read_env"].msg
    # The file's dialect is mcp: a tools/call gets an isError result that says the policy denied it.
    result = denied.get("result", {})
    expect(result.get("isError") is True, f"{run.describe()}: {short(denied)}")
    text = " ".join(c.get("text", "") for c in result.get("content", []))
    expect("read_text_file" in text and "olicy" in text, f"{run.describe()}: {text}")
    expect(no_secret_in(json.dumps(denied)) == [], short(denied))
    # The release notes carry the token too: blocked; the runbook carries nothing: untouched.
    expect(run.answers["read_release"].msg.get("result", {}).get("isError") is True, short(run.answers["read_release"].msg))
    expect(run.answers["read_runbook"].msg == sessions.get("direct", None).answers["read_runbook"].msg, "the runbook changed")
    expect(no_secret_in(run.log) == [], f"{run.describe()}: a secret in the log: {no_secret_in(run.log)}")
    if guard == "cli":
        blocked = events_named(run, "blocked")
        expect([(e.get("rule"), e.get("tool")) for e in blocked] == [("github-token", "read_text_file")] * 2, blocked)
    else:
        # The adapters' logs carry the same event (the Python proxy's as text, the TypeScript one's as JSON).
        lines = [line for line in run.log.splitlines() if "blocked" in line and "github-token" in line]
        expect(len(lines) == 2 and all("read_text_file" in line for line in lines), run.log[-2000:])


@pytest.mark.parametrize("guard", GUARDS)
def test_a_blocked_rule_in_the_canonical_dialect_is_the_canonical_error(sessions, guard):
    run = sessions.get("block-canonical", guard)  # --dialect canonical overrides the file's mcp
    denied = run.answers["read_env"].msg
    expect("error" in denied and denied["error"].get("data", {}).get("type") == "policy-denied", short(denied))
    expect(no_secret_in(json.dumps(denied)) == [], short(denied))


@pytest.mark.parametrize("guard", GUARDS)
def test_an_allow_listed_value_survives(sessions, guard):
    run = sessions.get("allow", guard)
    env = run.text("read_env")
    expect(TOKEN in env and f"GITHUB_TOKEN={TOKEN}" in env, f"{run.describe()}: the allowed token is gone:\n{env}")
    expect([s for s in SECRETS if s != TOKEN and s in env] == [], f"{run.describe()}: other secrets survived:\n{env}")
    expect(same_modulo_redaction(DOTENV, env), env)
    expect(run.text("read_release") == RELEASE, run.text("read_release"))


@pytest.mark.parametrize("guard", GUARDS)
def test_an_audited_rule_is_logged_and_the_message_untouched(sessions, guard):
    run = sessions.get("audit", guard)
    direct = sessions.get("direct", None)
    release = run.answers["read_release"]
    if guard == "py":
        expect(release.msg == direct.answers["read_release"].msg, f"{run.describe()}: {short(release.line)}")
    else:
        expect(release.line == direct.answers["read_release"].line, f"{run.describe()}: {short(release.line)}")
    # The .env: the audited token passes, the other rules still redact.
    env = run.text("read_env")
    expect(f"GITHUB_TOKEN={TOKEN}" in env and DB_PASSWORD not in env and AWS_SECRET not in env, env)
    expect(TOKEN not in run.log, f"{run.describe()}: the audited value in the log")
    if guard == "cli":
        audited = events_named(run, "audited")
        expect([(e.get("rule"), e.get("tool")) for e in audited] == [("github-token", "read_text_file")] * 2, audited)
    else:
        expect(len([line for line in run.log.splitlines() if "audited" in line and "github-token" in line]) == 2, run.log[-2000:])


@pytest.mark.parametrize("guard", GUARDS)
def test_a_tools_own_timeout_answers_the_slow_tool_before_the_default(sessions, guard):
    run = sessions.get("timeout", guard)
    slow = run.answers["slow"]
    # [[tool]] timeout = 1 under [defaults] timeout = 30; the tool takes 3 s.
    expect(1.0 <= slow.elapsed < 2.8, f"{run.describe()}: answered after {slow.elapsed:.2f} s: {short(slow.msg)}")
    error = slow.msg.get("error", {})
    expect(error.get("code") == -32001 or error.get("data", {}).get("type") == "upstream-timeout", short(slow.msg))
    expect("1s" in json.dumps(slow.msg) or "1 s" in json.dumps(slow.msg), f"the answer does not say the tool's 1 s: {short(slow.msg)}")
    expect("30" not in error.get("message", ""), short(slow.msg))
    expect(run.answers["echo"].msg.get("result", {}).get("content"), short(run.answers["echo"].msg))
    if guard == "cli":
        answered = [e for e in run.events if e.get("event") == "answered" and e.get("kind") == "upstream-timeout"]
        expect(len(answered) == 1 and answered[0].get("tool") == SLOW_TOOL, answered or run.log[-2000:])


@pytest.mark.parametrize("guard", GUARDS)
def test_sighup_reloads_for_new_requests_and_a_refused_file_keeps_the_old(sessions, guard):
    run = sessions.get("reload", guard)
    expect(run.text("before") == DOTENV, f"{run.describe()}: redacted before the reload")
    reloaded = run.text("reloaded")
    expect(no_secret_in(reloaded) == [] and same_modulo_redaction(DOTENV, reloaded), f"{run.describe()}: {reloaded}")
    expect(run.text("kept") == reloaded, f"{run.describe()}: the refused file changed something: {run.text('kept')}")
    expect("policy-reload-refused" in run.log and "policy-reloaded" in run.log, run.log[-2000:])
    refused = [line for line in run.log.splitlines() if "policy-reload-refused" in line]
    expect(any("shred" in line for line in refused), f"{run.describe()}: the refusal does not say why: {refused}")


def test_the_metrics_count_policy_decisions_by_rule_and_tool(sessions):
    def samples(run: RawRun) -> dict[tuple[str, str, str], float]:
        out = {}
        for line in run.metrics.splitlines():
            m = re.match(r"^(?:jsonrpc_errors_)?\w*policy_decisions_total\{([^}]*)\} (\S+)", line)
            if m:
                labels = dict(re.findall(r'(\w+)="([^"]*)"', m.group(1)))
                out[(labels.get("decision", ""), labels.get("rule", ""), labels.get("tool", ""))] = float(m.group(2))
        return out

    block, audit, timeout = (sessions.get(n, "cli") for n in ("block", "audit", "timeout"))
    for run in (block, audit, timeout):
        expect(run.metrics, f"{run.describe()}: no metrics scraped:\n{run.log[-2000:]}")
    expect(samples(block).get(("blocked", "github-token", "read_text_file")) == 2, f"{samples(block)}\n{block.metrics}")
    expect(samples(audit).get(("audited", "github-token", "read_text_file")) == 2, samples(audit))
    expect(any(d == "redacted" and t == "read_text_file" and "url-credentials" in r for d, r, t in samples(audit)), samples(audit))
    expect(any(d == "timed-out" and t == SLOW_TOOL for d, r, t in samples(timeout)), f"{samples(timeout)}\n{timeout.metrics}")
    expect(no_secret_in(block.metrics + audit.metrics) == [], "a secret in the metrics")


# ─── the same messages through every guard ───


def normalised(msg: Any) -> Any:
    """A message with what differs from run to run taken out: correlation ids (random per answer)."""
    if isinstance(msg, dict):
        return {k: normalised(v) for k, v in msg.items() if k not in ("correlation_id", "correlationId")}
    if isinstance(msg, list):
        return [normalised(v) for v in msg]
    if isinstance(msg, str):
        return re.sub(r"\b(?:ref|correlation)[ :=-]+[0-9a-f-]{8,}\b", "<correlation>", msg)
    return msg


@pytest.mark.parametrize("name", ["plain", "results", "block", "block-canonical", "allow", "audit", "timeout", "reload"])
def test_the_python_and_typescript_adapters_give_the_client_what_the_cli_gives(sessions, name):
    cli = sessions.get(name, "cli")
    for guard in ("py", "ts"):
        run = sessions.get(name, guard)
        expect(list(run.answers) == list(cli.answers), f"{run.describe()}: steps {list(run.answers)}")
        for step, answer in cli.answers.items():
            if step == "initialize":
                continue  # the server's own answer; relayed alike, compared above for the reads
            got, want = normalised(run.answers[step].msg), normalised(answer.msg)
            expect(got == want, f"{name}, step {step}: {guard} differs from the CLI guard:\n  cli: {short(want, 900)}\n"
                                f"  {guard}:  {short(got, 900)}")
        expect(run.stdout_rest == [] or all("method" in json.loads(line) for line in run.stdout_rest if line.strip()),
               f"{run.describe()}: unexpected lines: {run.stdout_rest[:3]}")


# ─── the SDK clients take what the policy makes of a result ───


@pytest.mark.parametrize("client", list(peers.CLIENTS))
def test_the_sdk_clients_take_the_redacted_result_and_the_policy_error(sessions, client):
    direct, results, block = (sessions.sdk[(client, how)].result(timeout=SESSION_WAIT) for how in ("direct", "results", "block"))
    for run in (direct, results, block):
        expect(run.returncode == 0 and run.lines and run.lines[-1]["step"] == "_callbacks",
               f"{run.describe()} ({run.key}): {run.stderr[-2000:]}")
        expect(all(line.get("outcome") == "result" for line in run.lines if line["step"] != "_callbacks"),
               f"{run.key}: {[(line['step'], line.get('outcome'), line.get('exception')) for line in run.lines]}")
        expect(run.leftover == [] and run.guard_status in (None, 0), f"{run.key}: {run.leftover} {run.guard_status}")
    d, r, b = direct.steps, results.steps, block.steps
    env = r["read_env"]["result"]["content"][0]["text"]
    expect(d["read_env"]["result"]["content"][0]["text"] == DOTENV, short(d["read_env"]))
    expect(no_secret_in(env) == [] and same_modulo_redaction(DOTENV, env), env)
    expect(r["read_runbook"] | {"elapsed_ms": 0} == d["read_runbook"] | {"elapsed_ms": 0}, short(r["read_runbook"]))
    denied = b["read_env"]["result"]
    expect(denied.get("isError") is True and "read_text_file" in json.dumps(denied), short(denied))
    expect(b["read_runbook"] | {"elapsed_ms": 0} == d["read_runbook"] | {"elapsed_ms": 0}, short(b["read_runbook"]))
    blocked = [e for e in block.events if e.get("event") == "blocked"]
    expect([(e.get("rule"), e.get("tool")) for e in blocked] == [("github-token", "read_text_file")] * 2, blocked)
