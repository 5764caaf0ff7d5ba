"""A stdio MCP proxy on the official Python SDK with the guard in between: `jsonrpc-errors guard` in Python.

    python examples/mcp-proxy-python/proxy.py [--config FILE] [--dialect D] [--timeout SECS] [--max-bytes N]
                                              [--failed-result-bytes N] [--grace SECS] -- CMD [ARGS...]

The client talks to this process over stdin/stdout; the upstream server CMD is spawned with this process's
whole environment; `guard_streams` puts a guard session between the two, so the client sees what it would see
through `jsonrpc-errors guard` (same defaults: dialect "canonical", timeout 50 s (0 = none), max-bytes 10 MiB,
grace 2 s). stdout carries only messages (written by the SDK's `stdio_server()`); stderr is the log, one line
per guard event, the upstream's stderr relayed with its secrets redacted. Needs `pip install 'jsonrpc-errors[mcp]'`.

`--config FILE` is a policy file, as `jsonrpc-errors guard --config` takes it: its text goes to the guard
session as it is (the component reads it); the options given here override its [defaults]. A file the
component refuses stops the proxy at start (`FILE:LINE:COLUMN: what is wrong` on stderr, exit 2); SIGHUP
reads it again for the requests from then on (a refused reload keeps the old policy and logs
`policy-reload-refused`). Without --config, SIGHUP stops the proxy as SIGTERM does.

Both pipes are read here, with the SDK's own parser, rather than by the SDK's stdio transports, which cannot
do what the guard owes its client:
* a client line over max-bytes is discarded as it streams and answered (-32600 oversize), never held;
* the upstream is watched as a process, not only as a stdout: when it exits while a child it started keeps
  its stdout open, what is pending is answered at once (the exit status in the log);
* on the client's EOF and on SIGTERM, SIGINT or SIGHUP the upstream's stdin is closed while its answers are
  still read; after the grace period it is terminated, then killed (MCP's shutdown): what it answers
  meanwhile is relayed, what remains is answered by the guard;
* its whole process tree goes with it, what left its process group too (see `ProcessTree`).
Exit status as the CLI's: the upstream's own (128+N if signal N ended it), 124 when it had to be terminated,
126 or 127 when CMD cannot be run or is not found.
"""

from __future__ import annotations

import argparse
import ctypes
import logging
import os
import signal
import sys
import threading
from contextlib import suppress
from pathlib import Path
from typing import Optional, Union

import anyio
import anyio.abc
import anyio.from_thread
import anyio.lowlevel
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

from jsonrpc_errors import InvalidInput, check_policy
from jsonrpc_errors.mcp import (
    OVERSIZE_EDGE_BYTES,
    GuardedWriteStream,
    OversizeLine,
    RawLine,
    guard_streams,
    upstream_stderr_log,
)

# As the CLI: how long an upstream's exit waits for the end of its output (so that what it wrote before dying
# is relayed first), and its output's end for its exit (so that the log says how it ended).
SETTLE = 0.5
# How often the upstream's exit is looked for: asyncio's wait() would also wait for its pipes to close.
EXIT_POLL = 0.02
log = logging.getLogger("proxy")

Line = Union[bytes, OversizeLine]  # a line without its newline, or the ends of one too long to keep


class LineSplitter:
    """Cuts a byte stream into lines; a line over `limit` bytes is discarded as it streams (never held, as
    the CLI reads) and given as an `OversizeLine` instead: its length and its ends, where the guard reads the
    id to answer it with."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._parts: list[bytes] = []
        self._size = 0
        self._head = self._tail = b""

    def feed(self, chunk: bytes) -> list[Line]:
        lines: list[Line] = []
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            self._take(chunk[start:end])
            lines.append(self._line())
            start = end + 1
        self._take(chunk[start:])
        return lines

    def end(self) -> list[Line]:
        """The last line, when the stream ended without its newline."""
        return [self._line()] if self._size else []

    def _take(self, piece: bytes) -> None:
        if self._size + len(piece) <= self._limit:
            self._size += len(piece)
            if piece:
                self._parts.append(piece)
            return
        if self._size <= self._limit:  # over the limit from here: what is held gives the ends so far
            held = b"".join(self._parts)
            self._parts = []
            self._head, self._tail = held[:OVERSIZE_EDGE_BYTES], held[-OVERSIZE_EDGE_BYTES:]
        self._head += piece[: OVERSIZE_EDGE_BYTES - len(self._head)]
        self._tail = (self._tail + piece[-OVERSIZE_EDGE_BYTES:])[-OVERSIZE_EDGE_BYTES:]
        self._size += len(piece)

    def _line(self) -> Line:
        line: Line = b"".join(self._parts) if self._size <= self._limit else OversizeLine(self._size, self._head, self._tail)
        self._parts, self._size, self._head, self._tail = [], 0, b"", b""
        return line


def parsed(line: Line) -> Union[SessionMessage, Exception]:
    """A line for the guard as it was read (`RawLine`: the guard judges its bytes, not what the SDK's parser
    would make of them); an oversize line stays what it is."""
    if isinstance(line, OversizeLine):
        return line
    return RawLine(line)


def read_client_stdin(lines: MemoryObjectSendStream[Line], max_bytes: int, token: anyio.lowlevel.EventLoopToken) -> None:
    """stdin's lines into `lines`, on a daemon thread: a thread blocked in read(2) cannot be stopped, and the
    proxy must also exit while a client keeps stdin open. Plain os.read: a daemon thread blocked inside
    sys.stdin's buffer would abort the interpreter's shutdown."""
    splitter = LineSplitter(max_bytes)
    try:
        while chunk := os.read(0, 65536):
            for line in splitter.feed(chunk):
                anyio.from_thread.run(lines.send, line, token=token)
        for line in splitter.end():
            anyio.from_thread.run(lines.send, line, token=token)
        anyio.from_thread.run_sync(lines.close, token=token)
    except (OSError, RuntimeError, anyio.ClosedResourceError, anyio.BrokenResourceError):
        pass  # the proxy is finishing


class ProcessTree:
    """The upstream and every process it starts, however they detach.

    The upstream runs in a process group of its own, which is signalled whole (any POSIX system). On Linux
    the proxy also makes itself the subreaper of its descendants (prctl PR_SET_CHILD_SUBREAPER): a process
    whose parent dies is re-parented to the proxy instead of init, so whatever the upstream starts stays below
    the proxy, whatever it does to get away (a session of its own, a double fork, a cleared environment, a
    rewritten command line), and is found by walking /proc down from the proxy. (Marking the upstream's
    environment with a token and looking for it in /proc/*/environ would miss every process started with a
    fresh environment or that rewrites its environ block, as setproctitle does.) A subreaper must reap the
    orphans it inherits: `reap` waits for those (never for the upstream, which asyncio waits for).
    """

    def __init__(self) -> None:
        self.subreaper = self._become_subreaper()
        self.pgid: Optional[int] = None
        self.upstream_pid: Optional[int] = None

    @staticmethod
    def _become_subreaper() -> bool:
        if not sys.platform.startswith("linux"):
            return False
        try:
            pr_set_child_subreaper = 36  # <linux/prctl.h>
            return ctypes.CDLL(None, use_errno=True).prctl(pr_set_child_subreaper, 1, 0, 0, 0) == 0
        except (OSError, AttributeError):
            return False

    def _table(self) -> dict[int, list[tuple[int, bool]]]:
        """Every process in /proc by its parent: (pid, whether it is a zombie)."""
        children: dict[int, list[tuple[int, bool]]] = {}
        with suppress(OSError):
            for entry in os.scandir("/proc"):
                if entry.name.isdigit():
                    try:
                        with open(f"/proc/{entry.name}/stat", "rb") as f:
                            stat = f.read()
                    except OSError:
                        continue  # gone meanwhile
                    # The fields after the command name (which may itself hold spaces and parentheses).
                    state, ppid = stat[stat.rindex(b")") + 2 :].split()[:2]
                    children.setdefault(int(ppid), []).append((int(entry.name), state in (b"Z", b"X")))
        return children

    def reap(self) -> None:
        """Waits for the orphans this proxy inherited that have ended."""
        if not self.subreaper:
            return
        for pid, zombie in self._table().get(os.getpid(), []):
            if zombie and pid != self.upstream_pid:
                with suppress(ChildProcessError):
                    os.waitpid(pid, os.WNOHANG)

    def _descendants(self) -> list[int]:
        """The live processes below this one (with the proxy their subreaper: the upstream's whole tree)."""
        table = self._table()
        found, below = [], [os.getpid()]
        while below:
            for pid, zombie in table.get(below.pop(), []):
                below.append(pid)
                if not zombie:
                    found.append(pid)
        return found

    def signal(self, signum: int) -> bool:
        """Sends `signum` to the whole tree; whether anything of it was left to signal."""
        self.reap()
        alive = False
        if self.pgid is not None:
            try:
                os.killpg(self.pgid, signum)
                alive = True
            except ProcessLookupError:
                pass
            except PermissionError:
                alive = True  # a member it may not signal (or a zombie on some systems): still there
        if self.subreaper:
            for pid in self._descendants():
                with suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signum)
                    alive = True
        return alive

    async def end(self, grace: float) -> None:
        """Ends what is left: SIGTERM, up to `grace` to go, then SIGKILL (and a bounded wait for it)."""
        if not self.signal(signal.SIGTERM):
            return
        log.info("leftovers: terminating what is left of the upstream's process tree")
        for signum, wait in ((0, grace), (signal.SIGKILL, 2.0)):
            with anyio.move_on_after(wait):
                while self.signal(signum):
                    await anyio.sleep(0.02)
                return
            if signum == 0:
                log.warning("leftovers: still there after %s s: SIGKILL", grace)


class Upstream:
    """The upstream process: its exit, how it ended, and MCP's way of stopping it."""

    def __init__(self, process: anyio.abc.Process, tree: ProcessTree, grace: float) -> None:
        self.process = process
        self.tree = tree
        self.grace = grace
        self.exited = anyio.Event()
        self.output_ended = anyio.Event()
        # It had to be terminated (SIGTERM): the CLI's exit status 124.
        self.terminated = False
        self._stopping = False
        self._stopped = anyio.Event()

    def failure(self) -> tuple[str, int]:
        code = self.process.returncode
        assert code is not None
        return ("exited", code) if code >= 0 else ("killed", -code)

    def exit_status(self) -> int:
        if self.terminated or self.process.returncode is None:  # (None: not even SIGKILL ended it in time)
            return 124
        how, value = self.failure()
        return value & 0xFF if how == "exited" else 128 + value

    async def watch_exit(self, guard: GuardedWriteStream) -> None:
        """Tells the guard when the process has exited, even while something it started holds its stdout."""
        while self.process.returncode is None:
            await anyio.sleep(EXIT_POLL)
        self.exited.set()
        with anyio.move_on_after(SETTLE):
            await self.output_ended.wait()  # what it wrote before it died is relayed first
        await guard.upstream_failed(self.failure())  # type: ignore[arg-type]

    async def exits_within(self, seconds: float) -> bool:
        with anyio.move_on_after(seconds):
            await self.exited.wait()
        return self.exited.is_set()

    async def stop(self, guard: GuardedWriteStream, why: str) -> None:
        """Closes its stdin (the guard does, once what is queued for it is written), gives it the grace period,
        then SIGTERM, the grace period again, then SIGKILL. Waits until it has ended, however often called."""
        if self._stopping:
            await self._stopped.wait()
            return
        self._stopping = True
        if not self.exited.is_set():
            log.info("stopping: %s; closing the upstream's input", why)
        await guard.aclose()
        for signum in (signal.SIGTERM, signal.SIGKILL):
            if await self.exits_within(self.grace):
                break
            log.warning("terminating: the upstream did not exit within %s s: %s", self.grace, signal.Signals(signum).name)
            self.terminated = True
            self.tree.signal(signum)
        await self.exits_within(self.grace)
        self._stopped.set()


async def from_upstream(upstream: Upstream, guard: GuardedWriteStream, sink: MemoryObjectSendStream[Union[SessionMessage, Exception]]) -> None:
    """The upstream's stdout, line by line, to the guard; at its end, how the upstream ended."""
    stdout = upstream.process.stdout
    assert stdout is not None
    # The longest line the session resolved (given, else the policy file's, else the default).
    splitter = LineSplitter(guard.settings["max_upstream_bytes"])
    async with sink:
        with suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
            async for chunk in stdout:
                for line in splitter.feed(chunk):
                    await sink.send(parsed(line))
            for line in splitter.end():
                await sink.send(parsed(line))
        upstream.output_ended.set()
        # Its output has ended; its exit, if it follows, says how it ended (else: it closed its output).
        if await upstream.exits_within(SETTLE):
            await guard.upstream_failed(upstream.failure())  # type: ignore[arg-type]


async def to_upstream(upstream: Upstream, source: MemoryObjectReceiveStream[SessionMessage]) -> None:
    """What the guard sends upstream, to its stdin; closed when the guard closes its side."""
    stdin = upstream.process.stdin
    assert stdin is not None
    async with source:
        with suppress(anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            async for message in source:
                text = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                await stdin.send(text.encode("utf-8") + b"\n")
    with suppress(anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
        await stdin.aclose()


class PolicyRefused(Exception):
    """A policy file that cannot be read or that the component refuses: `FILE:LINE:COLUMN: details`."""


def read_policy(path: str) -> str:
    """The policy file's text, checked by the component; or PolicyRefused, in the CLI's words."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise PolicyRefused(f"{path}: cannot read the policy file: {error}") from None
    try:
        check_policy(text, os.environ)
        return text
    except InvalidInput as refused:
        data = refused.data if isinstance(refused.data, dict) else {}
        if "details" not in data:
            raise PolicyRefused(f"{path}: {refused.message}") from None
        where = f":{data['line']}:{data['column']}" if "line" in data else ""
        raise PolicyRefused(f"{path}{where}: {data['details']}") from None


async def reload_policy(path: str, guard: GuardedWriteStream) -> None:
    """SIGHUP with --config: the file read again, for the requests from now on; a refused one changes nothing."""
    try:
        text = read_policy(path)
        await guard.set_policy(text, os.environ)
    except (PolicyRefused, InvalidInput) as refused:
        log.warning("policy-reload-refused: received SIGHUP; the new policy file is refused, the old one still holds: %s", refused)
        return
    log.info("policy-reloaded: received SIGHUP; reloaded %s for the requests from now on", path)


async def run(args: argparse.Namespace) -> int:
    command = args.command
    # Options left unset are the session's to resolve (the policy file's [defaults], else the built-in ones);
    # the line limits this proxy reads with are what it resolved (the guard's `settings`).
    options: dict[str, object] = {k: v for k, v in (("dialect", args.dialect), ("timeout", args.timeout), ("max_bytes", args.max_bytes),
                                                     ("failed_result_bytes", args.failed_result_bytes)) if v is not None}
    if args.config is not None:
        options["policy"] = args.policy
        options["policy_env"] = os.environ
    tree = ProcessTree()
    # The name `jsonrpc-errors guard` gives the upstream; it shows in the errors the client gets.
    upstream_name = f"stdio:{Path(command[0]).name}"
    client_lines_in, client_lines = anyio.create_memory_object_stream[Line](16)
    to_guard, upstream_read = anyio.create_memory_object_stream[Union[SessionMessage, Exception]](0)
    upstream_write, from_guard = anyio.create_memory_object_stream[SessionMessage](0)
    # stdio_server() only writes here: the client's lines are read above, so its reader gets no input.
    no_input_in, no_input = anyio.create_memory_object_stream[str](0)
    no_input_in.close()
    # SIGTERM and SIGINT must find the proxy ready to answer before the upstream is even started.
    with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT, signal.SIGHUP) as signals:
        async with upstream_stderr_log() as errlog:
            try:
                process = await anyio.open_process(command, env=dict(os.environ), stderr=errlog, start_new_session=True)
            except OSError as error:
                # jsonrpc-errors guard's statuses: 127 not found, 126 not runnable.
                log.error("upstream-failed: cannot start the upstream %r: %s", command[0], error.strerror or type(error).__name__)
                return 127 if isinstance(error, FileNotFoundError) else 126
            tree.pgid = tree.upstream_pid = process.pid
            upstream = Upstream(process, tree, args.grace)
            log.info("started: upstream %r, pid %d", command[0], process.pid)
            try:
                async with (
                    stdio_server(stdin=no_input) as (_, client_write),  # type: ignore[arg-type]  # it only iterates
                    # The guard's own answer to what is still pending after the client left is a backstop: the
                    # upstream's end answers first, at most two grace periods after its stdin closed.
                    guard_streams(upstream_read, upstream_write, **options,  # type: ignore[arg-type]
                                  upstream=upstream_name, grace=2 * args.grace + 2 * SETTLE + 1) as (read, guard),
                    anyio.create_task_group() as task_group,
                ):
                    threading.Thread(target=read_client_stdin,
                                     args=(client_lines_in, guard.settings["max_bytes"], anyio.lowlevel.current_token()),
                                     daemon=True).start()

                    async def from_client() -> None:
                        async with client_lines:
                            with suppress(anyio.ClosedResourceError):  # the guard's client side closed: stopping
                                async for line in client_lines:
                                    await guard.send(parsed(line))
                        await upstream.stop(guard, "the client closed its input")

                    async def on_signals() -> None:
                        async for signum in signals:
                            if signum == signal.SIGHUP and args.config is not None:
                                task_group.start_soon(reload_policy, args.config, guard)
                            else:
                                task_group.start_soon(upstream.stop, guard, f"received {signal.Signals(signum).name}")

                    async def reap_orphans() -> None:
                        with anyio.open_signal_receiver(signal.SIGCHLD) as children:
                            async for _ in children:
                                tree.reap()

                    task_group.start_soon(from_upstream, upstream, guard, to_guard)
                    task_group.start_soon(to_upstream, upstream, from_guard)
                    task_group.start_soon(upstream.watch_exit, guard)
                    task_group.start_soon(from_client)
                    task_group.start_soon(on_signals)
                    if tree.subreaper:
                        task_group.start_soon(reap_orphans)
                    # Ends once the upstream has ended (every request answered), or the client has left with
                    # nothing pending.
                    async for message in read:
                        await client_write.send(message)
                    await upstream.stop(guard, "the upstream ended")
                    client_lines.close()
                    task_group.cancel_scope.cancel()
                    await client_write.aclose()
            finally:
                with anyio.CancelScope(shield=True):
                    if process.returncode is None:  # only on the proxy's own failure
                        tree.signal(signal.SIGKILL)
                    await tree.end(args.grace)
    status = upstream.exit_status()
    log.info("exit: the upstream ended (status %s); the proxy exits with %d", process.returncode, status)
    return status


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", metavar="FILE", help="the policy file (TOML, as `jsonrpc-errors guard --config`); SIGHUP reloads it")
    parser.add_argument("--dialect", default=None, help="error dialect (default: canonical)")
    parser.add_argument("--timeout", type=float, default=None, help="seconds a request may wait (default 50; 0 = none)")
    parser.add_argument("--max-bytes", type=int, default=None, help="longest client line read (default 10 MiB)")
    parser.add_argument("--failed-result-bytes", type=int, default=None,
                        help="longest text of a failed tool result passed on (default 8 KiB; longer ones keep start and end)")
    parser.add_argument("--grace", type=float, default=2.0, help="seconds the upstream gets to exit, then after SIGTERM (default 2)")
    parser.add_argument("command", nargs="+", help="-- CMD [ARGS...]: the upstream server")
    args = parser.parse_args()
    if args.config is not None:
        # Read and checked before anything starts: a refused file is the CLI's usage error.
        try:
            args.policy = read_policy(args.config)
        except PolicyRefused as refused:
            print(f"proxy.py: {refused}", file=sys.stderr)
            sys.exit(2)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("mcp").setLevel(logging.WARNING)
    sys.exit(anyio.run(run, args))


if __name__ == "__main__":
    main()
