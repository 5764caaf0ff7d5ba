"""Small helpers shared by the guard's end-to-end tests: real processes, real pipes, nothing mocked."""

from __future__ import annotations

import json
import os
import queue
import resource
import signal
import subprocess
import sys
import threading
import time
import tomllib
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
GUARD = Path(os.environ.get("JSONRPC_ERRORS_BIN", ROOT / "target" / "release" / "jsonrpc-errors"))
PY = sys.executable  # the project venv's python (run-tests.sh runs pytest with it)
FAULT_SERVER = HERE / "servers" / "fault_server.py"
# The longest text of a failed tool result the guard passes on (longer ones keep their start and end):
# the taxonomy's, where the component reads it too.
FAILED_RESULT_BYTES = tomllib.loads((ROOT / "taxonomy" / "taxonomy.toml").read_text())["meta"]["failed_result_text_bytes"]

# Generous: CI machines are shared and noisy. These bound "must not hang", they do not measure speed.
HANG = 20.0


def alive(pid: int) -> bool:
    """Whether `pid` is a live process (a zombie waiting to be reaped counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    # The state follows the parenthesised command name, which may itself contain spaces or parentheses.
    return stat[stat.rindex(")") + 2] not in "ZX"


def wait_gone(pids: list[int], timeout: float = 10.0) -> list[int]:
    """Polls until none of `pids` is alive; returns the ones still alive at the deadline."""
    deadline = time.monotonic() + timeout
    while True:
        left = [p for p in pids if alive(p)]
        if not left or time.monotonic() >= deadline:
            return left
        time.sleep(0.05)


def pgid_of(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat[stat.rindex(")") + 2 :].split()[2])


def group_members(pgid: int) -> list[int]:
    """Live processes in process group `pgid` (the upstream's group holds its children too)."""
    members = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if pgid_of(int(entry.name)) == pgid and alive(int(entry.name)):
                    members.append(int(entry.name))
            except (FileNotFoundError, ProcessLookupError, ValueError):
                pass
    return members


def wait_group_gone(pgid: int, timeout: float = 10.0) -> list[int]:
    """Polls until process group `pgid` is empty; returns its members still alive at the deadline."""
    deadline = time.monotonic() + timeout
    while (left := group_members(pgid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def vm_rss_kb(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError):
        pass
    return None


def parse_log(lines: list[str]) -> tuple[list[dict], list[str]]:
    """The guard's stderr: its JSON events, and every line that was not a JSON object (should be none)."""
    events, bad = [], []
    for line in lines:
        try:
            value = json.loads(line)
        except ValueError:
            bad.append(line)
            continue
        if isinstance(value, dict):
            events.append(value)
        else:
            bad.append(line)
    return events, bad


class Guard:
    """`jsonrpc-errors guard ARGS -- UPSTREAM...` (or, with no UPSTREAM, `jsonrpc-errors guard ARGS`) on real
    pipes, driven line by line.

    Threads drain stdout and stderr all the time (a test that stops reading must not stall the guard
    through pipe back-pressure, unless it means to), so reads here are waits on queues with timeouts.
    """

    def __init__(self, args: list[str], upstream: list[str], env: dict[str, str] | None = None,
                 max_open_files: int | None = None, read_stderr: bool = True, guard: list[str] | None = None):
        """`guard`: how to run the CLI (default: GUARD itself; tests/platforms/ runs a Windows build under Wine)."""
        def limit_files() -> None:
            if max_open_files is not None:
                resource.setrlimit(resource.RLIMIT_NOFILE, (max_open_files, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))

        # No upstream command: the guard reaches its upstream some other way (`--upstream URL`).
        command = ["--", *upstream] if upstream else []
        self.proc = subprocess.Popen(
            [*(guard or [str(GUARD)]), "guard", *args, *command],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, **(env or {})},
            preexec_fn=limit_files if max_open_files is not None else None,
        )
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.stderr_lines: list[str] = []
        self._reading = threading.Event()
        self._reading.set()
        self._stderr_seen = threading.Condition()
        self._stdout_pump = threading.Thread(target=self._pump_stdout, daemon=True)
        self._stderr_pump = threading.Thread(target=self._pump_stderr, daemon=True)
        self._stdout_pump.start()
        # Not reading stderr leaves it a pipe nobody reads: it fills and stays full, as with a careless client.
        if read_stderr:
            self._stderr_pump.start()

    # ── the pipes ──

    def _pump_stdout(self) -> None:
        for line in self.proc.stdout:
            self._reading.wait()
            self.lines.put(line)
        self.lines.put(None)  # EOF

    def _pump_stderr(self) -> None:
        for line in self.proc.stderr:
            with self._stderr_seen:
                self.stderr_lines.append(line.decode("utf-8", "replace").rstrip("\n"))
                self._stderr_seen.notify_all()

    def pause_reading(self) -> None:
        """Stops reading the guard's stdout (a client that does not keep up): its pipe fills and stays full."""
        self._reading.clear()

    def resume_reading(self) -> None:
        self._reading.set()

    def send(self, message: Any) -> None:
        """Writes one line: bytes or str as they are, anything else as compact JSON."""
        if isinstance(message, str):
            message = message.encode()
        elif not isinstance(message, bytes):
            message = json.dumps(message, separators=(",", ":")).encode()
        self.proc.stdin.write(message + b"\n")
        self.proc.stdin.flush()

    def request(self, id: Any, method: str, params: Any = None) -> None:
        message = {"jsonrpc": "2.0", "id": id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    def close_stdin(self) -> None:
        self.proc.stdin.close()

    def read_raw(self, timeout: float = HANG) -> bytes | None:
        """The next stdout line (with its newline), or None at EOF; fails after `timeout`."""
        try:
            return self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no line from the guard within {timeout} s; log:\n" + "\n".join(self.stderr_lines[-20:]))

    def read(self, timeout: float = HANG) -> Any:
        """The next stdout message, parsed (every stdout line must be JSON)."""
        line = self.read_raw(timeout)
        assert line is not None, "the guard closed its stdout"
        return json.loads(line)

    def read_until_eof(self, timeout: float = HANG) -> list[Any]:
        """Every remaining stdout message, up to EOF."""
        out = []
        deadline = time.monotonic() + timeout
        while (line := self.read_raw(max(0.1, deadline - time.monotonic()))) is not None:
            out.append(json.loads(line))
        return out

    def wait(self, timeout: float = HANG) -> int:
        """The guard's exit status (fails if it has not exited within `timeout`). Its whole log has been read
        when this returns (unless something it left behind still holds its stderr open)."""
        try:
            status = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"the guard did not exit within {timeout} s; log:\n" + "\n".join(self.stderr_lines[-20:]))
        if self._stderr_pump.is_alive():
            self._stderr_pump.join(timeout=5)
        return status

    # ── the log ──

    def events(self, name: str | None = None) -> list[dict]:
        with self._stderr_seen:
            events, _ = parse_log(self.stderr_lines)
        return [e for e in events if name is None or e.get("event") == name]

    def wait_event(self, name: str, timeout: float = HANG, **fields: Any) -> dict:
        """The first `name` event whose fields include `fields` (a str field matches as a substring)."""
        def match(e: dict) -> bool:
            return all(
                (v in str(e.get(k, ""))) if isinstance(v, str) else e.get(k) == v for k, v in fields.items()
            )
        deadline = time.monotonic() + timeout
        with self._stderr_seen:
            while True:
                events, _ = parse_log(self.stderr_lines)
                found = [e for e in events if e.get("event") == name and match(e)]
                if found:
                    return found[0]
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no {name} event {fields} within {timeout} s; log:\n" + "\n".join(self.stderr_lines[-20:]))
                self._stderr_seen.wait(left)

    @property
    def upstream_pid(self) -> int:
        return int(self.wait_event("started")["pid"])

    def assert_log_is_json(self) -> None:
        _, bad = parse_log(self.stderr_lines)
        assert not bad, f"stderr lines that are not JSON: {bad[:5]}"

    # ── teardown ──

    def kill(self) -> None:
        """Leaves nothing behind, whatever the test did (SIGKILL reaches the upstream through PDEATHSIG)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()
        try:
            self.proc.stdin.close()
        except (BrokenPipeError, OSError):
            pass
        # stdout and stderr are left to their reader threads, which end at EOF.
