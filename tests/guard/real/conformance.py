"""The MCP conformance suite (`@modelcontextprotocol/conformance` 0.1.16, `conformance server --suite all`)
through a real stdio -> Streamable HTTP bridge, with and without `jsonrpc-errors guard` in the chain, and
against the guard's own HTTP front:

    direct:  conformance (Node 22) -> supergateway 4.0.0 (--stateful, loopback) -> conformance_server.mjs
    guarded: conformance (Node 22) -> supergateway 4.0.0 -> jsonrpc-errors guard -> conformance_server.mjs
    listen:  conformance (Node 22) -> jsonrpc-errors guard --listen -> conformance_server.mjs

and against the same server over HTTP natively (`conformance_server.mjs --http`), directly and through the guard
as an HTTP upstream:

    http:      conformance (Node 22) -> conformance_server.mjs --http
    upstream:  conformance (Node 22) -> jsonrpc-errors guard --listen --upstream URL -> conformance_server.mjs --http

One column per chain: for each scenario, the checks the suite recorded (id and status, in order).
Runnable by hand too: `python conformance.py [direct|guarded|listen|http|upstream]...` prints the columns.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from peers import GUARD, HERE, NODE, NODE22, session_env
from harness import wait_gone

SUPERGATEWAY = HERE / "node_modules" / "supergateway" / "dist" / "index.js"
CONFORMANCE = HERE / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
SERVER = HERE / "conformance_server.mjs"
LOOPBACK_ONLY = HERE / "tools" / "loopback_listen.cjs"
SUITE_TIMEOUT = 150  # seconds; the whole suite takes 15-25 s here
SUMMARY: list[str] = []  # the tables of this run, for the terminal summary (conftest.py)
RESULT_DIR = re.compile(r"^server-(?P<scenario>.+?)-\d{4}-\d{2}-\d{2}T[0-9-]+Z$")


@dataclass
class Column:
    name: str
    returncode: int
    scenarios: dict[str, list[tuple[str, str]]]  # scenario -> [(check id, status)] in the suite's order
    output: str
    log_dir: Path
    elapsed: float
    leftover: list[int] = field(default_factory=list)

    def counts(self, scenario: str | None = None) -> Counter:
        checks = self.scenarios.get(scenario, []) if scenario else [c for cs in self.scenarios.values() for c in cs]
        return Counter(status for _, status in checks)

    def cell(self, scenario: str) -> str:
        if scenario not in self.scenarios:
            return "(not run)"
        c = self.counts(scenario)
        extra = "".join(f" {c[s]}{s[0].lower()}" for s in ("WARNING", "INFO", "SKIPPED") if c[s])
        return f"{c['SUCCESS']} passed, {c['FAILURE']} failed{extra}"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(port: int, proc: subprocess.Popen, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"supergateway exited with {proc.returncode} before listening")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"supergateway did not listen on 127.0.0.1:{port} within {timeout} s")


def descendants(pid: int) -> list[int]:
    """Every live process below `pid` (by parent links in /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                ppid = int(stat[stat.rindex(")") + 2:].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def run_column(name: str, guarded: bool, workdir: Path) -> Column:
    """Runs the whole suite once against the chain; returns its per-scenario checks."""
    out_dir = workdir / f"conformance-{name}"
    out_dir.mkdir(parents=True)
    log = out_dir / "stdio-child.stderr.log"
    server = f"{shlex.quote(NODE)} {shlex.quote(str(SERVER))}"
    child = f"{shlex.quote(str(GUARD))} guard -- {server}" if guarded else server
    child += f" 2>> {shlex.quote(str(log))}"  # one child (and guard) per session; their stderr is kept
    port = free_port()
    gateway = subprocess.Popen(
        [NODE, "--require", str(LOOPBACK_ONLY), str(SUPERGATEWAY), "--stdio", child,
         "--outputTransport", "streamableHttp", "--stateful", "--port", str(port), "--logLevel", "info"],
        stdout=open(out_dir / "supergateway.log", "wb"), stderr=subprocess.STDOUT,
        env=session_env(), start_new_session=True,
    )
    started = time.monotonic()
    try:
        wait_listening(port, gateway)
        proc = subprocess.run(
            [str(NODE22), str(CONFORMANCE), "server", "--url", f"http://127.0.0.1:{port}/mcp", "--suite", "all",
             "-o", str(out_dir / "results")],
            capture_output=True, text=True, timeout=SUITE_TIMEOUT, env=session_env(), cwd=out_dir,
        )
        returncode, output = proc.returncode, proc.stdout + proc.stderr
    finally:
        elapsed = time.monotonic() - started
        below = descendants(gateway.pid)
        if gateway.poll() is None:
            gateway.send_signal(signal.SIGTERM)  # supergateway then ends each child's process group
        try:
            gateway.wait(timeout=15)
        except subprocess.TimeoutExpired:
            gateway.kill()
            gateway.wait()
        leftover = wait_gone(below, timeout=10)
        for pid in leftover:  # processes this function started (through supergateway): ours to end
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    (out_dir / "conformance.log").write_text(output)
    scenarios = read_results(out_dir / "results")
    return Column(name, returncode, scenarios, output, out_dir, elapsed, leftover)


def run_listen_column(workdir: Path, name: str = "listen") -> Column:
    """The suite against `jsonrpc-errors guard --listen` in front of the same stdio server: no bridge."""
    out_dir = workdir / f"conformance-{name}"
    out_dir.mkdir(parents=True)
    log_path = out_dir / "guard.stderr.log"
    guard = subprocess.Popen([str(GUARD), "guard", "--listen", "127.0.0.1:0", "--", NODE, str(SERVER)],
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=open(log_path, "wb"),
                             env=session_env(), cwd=out_dir)
    started = time.monotonic()
    returncode, output, url = -1, "", None
    try:
        deadline = time.monotonic() + 20
        while url is None and time.monotonic() < deadline and guard.poll() is None:
            for line in log_path.read_text(errors="replace").splitlines():
                if '"event":"listening"' in line:
                    url = f"http://{json.loads(line)['addr']}/mcp"
            time.sleep(0.05)
        if url is None:
            raise RuntimeError("guard --listen did not listen")
        proc = subprocess.run(
            [str(NODE22), str(CONFORMANCE), "server", "--url", url, "--suite", "all", "-o", str(out_dir / "results")],
            capture_output=True, text=True, timeout=SUITE_TIMEOUT, env=session_env(), cwd=out_dir,
        )
        returncode, output = proc.returncode, proc.stdout + proc.stderr
    finally:
        elapsed = time.monotonic() - started
        below = descendants(guard.pid)
        if guard.poll() is None:
            guard.send_signal(signal.SIGTERM)  # it drains, stops its children and exits
        try:
            guard.wait(timeout=30)
        except subprocess.TimeoutExpired:
            guard.kill()
            guard.wait()
        leftover = wait_gone(below, timeout=10)
    (out_dir / "conformance.log").write_text(output)
    return Column(name, returncode, read_results(out_dir / "results"), output, out_dir, elapsed, leftover)


def run_http_column(workdir: Path, name: str, through_guard: bool) -> Column:
    """The suite against conformance_server.mjs serving Streamable HTTP itself: directly (`http`), or through
    `jsonrpc-errors guard --listen --upstream` in front of it (`upstream`)."""
    out_dir = workdir / f"conformance-{name}"
    out_dir.mkdir(parents=True)
    port = free_port()
    server = subprocess.Popen([NODE, str(SERVER), "--http", str(port)], stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=(out_dir / "server.stderr.log").open("wb"),  # noqa: SIM115
                              env=session_env(), cwd=out_dir, start_new_session=True)
    guard = None
    started = time.monotonic()
    returncode, output = -1, ""
    try:
        wait_listening(port, server)
        url = f"http://127.0.0.1:{port}/mcp"
        if through_guard:
            log_path = out_dir / "guard.stderr.log"
            guard = subprocess.Popen([str(GUARD), "guard", "--listen", "127.0.0.1:0", "--upstream", url],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=log_path.open("wb"), env=session_env(), cwd=out_dir)  # noqa: SIM115
            url = None
            deadline = time.monotonic() + 20
            while url is None and time.monotonic() < deadline and guard.poll() is None:
                for line in log_path.read_text(errors="replace").splitlines():
                    if '"event":"listening"' in line:
                        url = f"http://{json.loads(line)['addr']}/mcp"
                time.sleep(0.05)
            if url is None:
                raise RuntimeError("guard --listen --upstream did not listen")
        proc = subprocess.run(
            [str(NODE22), str(CONFORMANCE), "server", "--url", url, "--suite", "all", "-o", str(out_dir / "results")],
            capture_output=True, text=True, timeout=SUITE_TIMEOUT, env=session_env(), cwd=out_dir, check=False,
        )
        returncode, output = proc.returncode, proc.stdout + proc.stderr
    finally:
        elapsed = time.monotonic() - started
        pids = [server.pid]
        if guard is not None:
            pids.append(guard.pid)
            if guard.poll() is None:
                guard.send_signal(signal.SIGTERM)
            try:
                guard.wait(timeout=30)
            except subprocess.TimeoutExpired:
                guard.kill()
                guard.wait()
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        leftover = wait_gone(pids, timeout=10)
    (out_dir / "conformance.log").write_text(output)
    return Column(name, returncode, read_results(out_dir / "results"), output, out_dir, elapsed, leftover)


def read_results(results: Path) -> dict[str, list[tuple[str, str]]]:
    scenarios: dict[str, list[tuple[str, str]]] = {}
    found = []
    for entry in results.iterdir() if results.exists() else []:
        m = RESULT_DIR.match(entry.name)
        if m and (entry / "checks.json").exists():
            found.append((entry.name[len("server-") + len(m["scenario"]):], m["scenario"], entry / "checks.json"))
    for _stamp, scenario, checks_file in sorted(found):  # the suite's order: by the time each was saved
        scenarios[scenario] = [(c.get("id", "?"), c.get("status", "?")) for c in json.loads(checks_file.read_text())]
    return scenarios


def table(*columns: Column) -> str:
    direct = columns[0]
    names = list(dict.fromkeys(n for col in columns for n in col.scenarios))
    width = max([len(n) for n in names] + [8])
    rows = [f"{'scenario':<{width}}  " + "  ".join(f"{col.name:<26}" for col in columns) + "  same"]
    for n in names:
        same = all(col.scenarios.get(n) == direct.scenarios.get(n) for col in columns[1:])
        rows.append(f"{n:<{width}}  " + "  ".join(f"{col.cell(n):<26}" for col in columns) + f"  {'yes' if same else 'NO'}")
    for col in columns:
        c = col.counts()
        rows.append(f"{col.name}: {c['SUCCESS']} of {c['SUCCESS'] + c['FAILURE']} checks passed "
                    f"({c['WARNING']} warnings, {c['INFO']} info) in {len(col.scenarios)} scenarios, {col.elapsed:.1f} s")
    return "\n".join(rows)


if __name__ == "__main__":
    import tempfile

    work = Path(tempfile.mkdtemp(prefix="conformance-"))
    def column(n: str) -> Column:
        if n == "listen":
            return run_listen_column(work)
        if n in ("http", "upstream"):
            return run_http_column(work, n, n == "upstream")
        return run_column(n, n == "guarded", work)

    cols = [column(n) for n in (sys.argv[1:] or ["direct", "guarded", "listen"])]
    if len(cols) >= 2:
        print(table(*cols))
    else:
        for col in cols:
            print(col.name, dict(col.counts()), {s: col.cell(s) for s in col.scenarios})
    print(f"(results in {work})")
