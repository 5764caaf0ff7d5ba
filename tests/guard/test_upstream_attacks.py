"""`guard --upstream URL` attacked by a hostile or broken server at that URL (servers/hostile_http_upstream.py, raw
sockets) and by a careless operator: the guard's promises must hold whatever the upstream sends. Every request is
answered exactly once (no hang, no second answer); nothing leaks (the guard's `--upstream-header` credential, the
URL's userinfo and query, a client's Authorization); memory stays bounded; stdout carries messages only.

A passing test here documents a promise that held; an `xfail(strict=True)` one is a finding, described in its
reason.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from harness import GUARD, HANG, HERE, PY, Guard, vm_rss_kb
from test_upstream import AT_ONCE, INIT, assert_error, assert_nothing_more, call, connect, read_answer

HOSTILE = HERE / "servers" / "hostile_http_upstream.py"
CREDENTIAL = "UPHDR-0123456789-credential"
BASIC_PASSWORD = "pw-USERINFO-4242"
QUERY_KEY = "QUERYKEY-777777"


class Hostile:
    """hostile_http_upstream.py on a free loopback port; its request record."""

    def __init__(self, tmp: Path, *args: str):
        self.record = tmp / f"hostile-{time.monotonic_ns()}.jsonl"
        self.proc = subprocess.Popen([PY, str(HOSTILE), "--record", str(self.record), *args],
                                     stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        assert line.startswith("port "), line
        self.port = int(line.split()[1])
        self.url = f"http://127.0.0.1:{self.port}/mcp"

    def requests(self) -> list[dict]:
        if not self.record.exists():
            return []
        return [json.loads(line) for line in self.record.read_text().splitlines()]

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait()


@pytest.fixture
def hostile(tmp_path):
    started: list[Hostile] = []

    def start(*args: str) -> Hostile:
        h = Hostile(tmp_path, *args)
        started.append(h)
        return h

    yield start
    for h in started:
        h.stop()


@pytest.fixture
def guard():
    started: list[Guard] = []

    def start(url: str, *args: str, env: dict[str, str] | None = None) -> Guard:
        g = Guard(["--upstream", url, *args], [], env=env)
        started.append(g)
        return g

    yield start
    for g in started:
        g.kill()


def with_credentials(h: Hostile) -> tuple[str, list[str], dict[str, str]]:
    """The upstream's URL with userinfo and a query key, and the guard's own credential header."""
    url = h.url.replace("http://", f"http://alice:{BASIC_PASSWORD}@") + f"?api_key={QUERY_KEY}"
    return url, ["--upstream-header", "X-Upstream-Key: env:UPSTREAM_KEY"], {"UPSTREAM_KEY": CREDENTIAL}


def open_connections(pid: int, port: int) -> int:
    """The guard's TCP connections to `port` (from /proc/net/tcp, matched to its socket inodes)."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    count = 0
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        remote_port = int(fields[2].split(":")[1], 16)
        if remote_port == port and fields[3] == "01" and fields[9] in inodes:  # ESTABLISHED
            count += 1
    return count


# ── stdout: messages only, one per line ──


def test_a_pretty_printed_json_answer_reaches_the_client_as_one_line(hostile, guard):
    h = hostile()
    g = guard(h.url)
    connect(g)
    call(g, 1, "pretty")
    answer, before, _ = read_answer(g, 1)
    assert before == [] and answer["result"]["content"][0]["text"] == "pretty", answer
    assert_nothing_more(g)


def test_an_sse_event_over_several_data_lines_cannot_forge_a_second_line_on_stdout(hostile, guard):
    h = hostile()
    g = guard(h.url)
    connect(g)
    # Request 7 is in flight (the server never answers it) while request 1's event smuggles an answer to 7.
    call(g, 7, "silent")
    call(g, 1, "multiline-sse", {"forge": 7})
    answer, before, _ = read_answer(g, 1)
    assert before == [], f"a line the session never wrote: {before}"
    assert "result" in answer
    assert_nothing_more(g)
