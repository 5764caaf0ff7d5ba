"""Runs every session the selected real-peer tests need, in parallel, as soon as pytest starts them.

The sessions are independent processes (a client, maybe the guard, a reference server); the tests only read
their recordings. So the first test of this folder starts all of them at once on a small thread pool (the two
conformance columns first, being the longest), and each test waits for the ones it reads.
"""

from __future__ import annotations

import os
import sys
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import peers  # noqa: E402

# Client sessions at once. Two cores: each session is 2-4 processes that mostly wait on each other.
WORKERS = int(os.environ.get("REAL_PEERS_WORKERS", "4"))
WAIT = 240  # seconds a test waits for a session it reads (they take 1 to 25 s)


class Campaign:
    def __init__(self, workdir: Path):
        self.workdir = workdir
        self.fx = peers.make_fixtures(workdir)
        self.specs = peers.server_specs(self.fx)
        self.pool = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="session")
        # The conformance columns and the sessions that wait on the guard's --timeout mostly wait: pools of
        # their own, so they do not hold the client sessions up.
        self.long_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="conformance")
        self.waiting_pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="timeout")
        self.futures: dict[str, Future] = {}
        self.lock = threading.Lock()

    def _submit(self, key: str, fn: Callable[[], Any], pool: ThreadPoolExecutor | None = None) -> Future:
        with self.lock:
            if key not in self.futures:
                self.futures[key] = (pool or self.pool).submit(fn)
            return self.futures[key]

    # ── the sessions ──

    def peer(self, server: str, client: str, dialect: str | None) -> Future:
        spec = self.specs[server]
        return self._submit(f"peer:{server}:{client}:{dialect}",
                            lambda: peers.run_session(self.fx, server, spec, client, dialect))

    def http(self, server: str, client: str) -> Future:
        """The same session over Streamable HTTP, through `guard --listen`."""
        spec = self.specs[server]
        return self._submit(f"http:{server}:{client}", lambda: peers.run_http_session(self.fx, server, spec, client))

    def upstream(self, server: str, client: str, how: str) -> Future:
        """A server at a URL, reached directly or through `guard --upstream` (upstream_peers.py)."""
        import upstream_peers

        return self._submit(f"upstream:{server}:{client}:{how}",
                            lambda: upstream_peers.run_upstream_session(self.fx, server, client, how))

    def negotiation(self, dialect: str | None) -> Future:
        """mcp-server-time, the Python client one protocol revision ahead (py_driver.py --ahead)."""
        spec = self.specs["time"]
        steps = [s for s in spec.steps if s["step"] in ("list_tools", "convert", "unknown_tool")]
        return self._submit(f"negotiation:{dialect}", lambda: peers.run_session(
            self.fx, "time", spec, "py", dialect, tag="-ahead", steps=steps,
            driver_args=["--ahead", peers.AHEAD_VERSION]))

    def timeout(self, client: str, dialect: str) -> Future:
        """mcp-server-fetch with a page that does not answer: the guard's --timeout answers the call."""
        spec = self.specs["fetch"]
        site = self.fx.site.base
        steps = [peers.call("fetch_text", "fetch", {"url": f"{site}/page.txt"}),
                 peers.call("fetch_hangs", "fetch", {"url": f"{site}/slow.txt"}),
                 peers.call("fetch_after", "fetch", {"url": f"{site}/page.txt"}),
                 {"step": "prompt_hangs", "op": "get_prompt", "name": "fetch", "arguments": {"url": f"{site}/slow.txt"}},
                 peers.call("fetch_last", "fetch", {"url": f"{site}/page.txt"})]

        def run() -> peers.Run:
            # The guard's timeout also runs while the Python server starts, which takes many seconds while the
            # other sessions load the machine: these start once the client sessions submitted so far are done.
            with self.lock:
                before = [f for k, f in self.futures.items() if k.startswith(("peer:", "negotiation:"))]
            for f in before:
                f.exception()
            return peers.run_session(self.fx, "fetch", spec, client, dialect, tag="-timeout", steps=steps,
                                     guard_args=["--timeout", str(peers.GUARD_TIMEOUT_SECS)])

        return self._submit(f"timeout:{client}:{dialect}", run, self.waiting_pool)

    def conformance(self, column: str) -> Future:
        import conformance

        if column == "listen":
            return self._submit("conformance:listen", lambda: conformance.run_listen_column(self.workdir), self.long_pool)
        if column in ("http", "upstream"):
            return self._submit(f"conformance:{column}", lambda: conformance.run_http_column(
                self.workdir, column, column == "upstream"), self.long_pool)
        return self._submit(f"conformance:{column}",
                            lambda: conformance.run_column(column, column == "guarded", self.workdir), self.long_pool)

    # ── what a test reads ──

    @staticmethod
    def get(future: Future) -> Any:
        return future.result(timeout=WAIT)

    def close(self) -> None:
        for pool in (self.pool, self.long_pool, self.waiting_pool):
            pool.shutdown(wait=True, cancel_futures=True)
        self.fx.site.close()


@pytest.fixture(scope="session")
def campaign(tmp_path_factory) -> Campaign:
    c = Campaign(tmp_path_factory.mktemp("real-peers"))
    yield c
    c.close()


@pytest.fixture(scope="session", autouse=True)
def _start_everything_selected(request, campaign: Campaign) -> None:
    """Submits the sessions of every selected test in this folder: the conformance columns first (the longest)."""
    files = {Path(str(item.fspath)).name for item in request.session.items}
    if "test_conformance.py" in files:
        campaign.conformance("direct")
        campaign.conformance("guarded")
        campaign.conformance("listen")
        campaign.conformance("http")
        campaign.conformance("upstream")
    if "test_http_peers.py" in files:
        for server in peers.PEER_SERVERS:
            for client in peers.CLIENTS:
                campaign.peer(server, client, "default")
                campaign.http(server, client)
    if "test_upstream_peers.py" in files:
        import upstream_peers

        for server in upstream_peers.UPSTREAM_SERVERS:
            for client in peers.CLIENTS:
                for how in ("direct", *upstream_peers.HOWS):
                    campaign.upstream(server, client, how)
    if "test_real_peers.py" in files:
        for server in peers.PEER_SERVERS:
            for client in peers.CLIENTS:
                for dialect in (None, *peers.DIALECTS):
                    campaign.peer(server, client, dialect)
        for dialect in (None, *peers.DIALECTS):
            campaign.negotiation(dialect)
        for client in peers.CLIENTS:
            for dialect in peers.DIALECTS:
                campaign.timeout(client, dialect)  # after the sessions above (see Campaign.timeout)


def pytest_terminal_summary(terminalreporter) -> None:
    """Prints the conformance table (conformance.SUMMARY, filled in by test_conformance.py) at the end of the run."""
    summary = getattr(sys.modules.get("conformance"), "SUMMARY", None)
    if summary:
        terminalreporter.section("MCP conformance suite, without and with jsonrpc-errors guard")
        for text in summary:
            terminalreporter.write_line(text)
