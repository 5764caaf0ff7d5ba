"""A raw newline-delimited JSON-RPC server that fails on demand, for `jsonrpc-errors guard`'s fault tests.

    python fault_server.py [--log FILE] [--shuffle] [--never M1,M2] [--ignore-stdin-eof]
                           [--ignore-sigterm] [--eof-exit-delay SECS] [--eof-exit-status N]

Standard library only, no MCP: the tests drive it with hand-written JSON lines through the guard, so every
fault is exactly the one asked for. What a request does is chosen by its method (any other method, and
`echo`, answers `{"result": {"echo": params}}`; a `tools/call` does what the method named `params.name` does, with
`params.arguments` for its params):

| method | what the server does |
|---|---|
| `never` | never answers (nor does any method named in `--never`, e.g. `initialize`) |
| `late` | answers after `params.ms`, whatever happened meanwhile (a cancellation is ignored); then writes `late answer sent for <id>` on stderr |
| `exit` | exits at once with `params.status` (default 5), without answering (if given: leaving a child that holds stderr open for `params.linger` s, and writing `params.stderr` on stderr just before) |
| `kill` | kills itself with signal `params.signal` (default 9) |
| `say` | writes each string of `params.lines` as a line of its own (`$ID` is replaced by the request's id as JSON), then answers if `params.answer` |
| `flood` | writes `params.count` notification lines (each about `params.size` bytes, if given), then answers |
| `huge` | writes `params.bytes` bytes of `x` with no newline, then (if `params.newline`) a newline, then (if `params.answer`) the answer; otherwise stays silent |
| `close-stdout` | closes its stdout (fd 1) and keeps running |
| `stderr` | writes `params.text` on stderr, then answers |
| `spawn` | starts a grandchild that sleeps and holds the server's stdout and stderr open (in a session of its own if `params.setsid`), then answers `{"pid": N}` |

Every line received is appended (raw, one per line, flushed) to `--log` or `$FAULT_SERVER_LOG`, so a test can
see exactly what the guard forwarded (e.g. its `notifications/cancelled`, or that a bad line never came).

On stdin EOF it exits 0, unless `--ignore-stdin-eof` (keeps running until signalled) or `--eof-exit-delay`
(exits with `--eof-exit-status` that many seconds later). `--shuffle` delays each `echo` answer by a random
0-30 ms, so a burst is answered out of order.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time

# Answers can come from timer threads (late, shuffle) while the main thread writes: one line at a time.
_write_lock = threading.Lock()
_stdout_open = True


def write_raw(data: bytes) -> None:
    with _write_lock:
        if not _stdout_open:
            return
        view = memoryview(data)
        while view:
            n = os.write(1, view)
            view = view[n:]


def send(message: dict) -> None:
    write_raw(json.dumps(message, separators=(",", ":")).encode() + b"\n")


def answer(req: dict) -> None:
    send({"jsonrpc": "2.0", "id": req["id"], "result": {"echo": req.get("params")}})


def handle(req: dict, opts: argparse.Namespace) -> None:
    method = req.get("method")
    params = req.get("params") or {}
    if method == "tools/call":
        method, params = params.get("name"), params.get("arguments") or {}
    if "id" not in req:
        return  # a notification (e.g. notifications/cancelled): nothing to answer
    if method == "never" or method in opts.never:
        return
    if method == "late":
        def later() -> None:
            answer(req)
            sys.stderr.write(f"late answer sent for {json.dumps(req['id'])}\n")
            sys.stderr.flush()
        threading.Timer(params.get("ms", 1000) / 1000, later).start()
    elif method == "exit":
        if params.get("linger"):
            # A child (in our process group) that outlives us holding our stderr, as a wrapper script's
            # children do: our stderr reaches EOF only when it ends.
            subprocess.Popen([sys.executable, "-c", f"import time; time.sleep({params['linger']})"],
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        if "stderr" in params:
            sys.stderr.write(params["stderr"] + "\n")
            sys.stderr.flush()
        os._exit(params.get("status", 5))
    elif method == "kill":
        os.kill(os.getpid(), params.get("signal", signal.SIGKILL))
        time.sleep(10)
    elif method == "say":
        for line in params.get("lines", []):
            write_raw(line.replace("$ID", json.dumps(req["id"])).encode() + b"\n")
        if params.get("answer"):
            answer(req)
    elif method == "flood":
        # Many writes of ~64 KB rather than one huge one: the guard sees a stream of ordinary lines.
        data = "flood" + "." * max(0, params.get("size", 0) - 90)
        line = b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"%s"}}\n' % data.encode()
        per_chunk = max(1, 64 * 1024 // len(line))
        left = params.get("count", 100_000)
        while left > 0:
            n = min(left, per_chunk)
            write_raw(line * n)
            left -= n
        answer(req)
    elif method == "huge":
        chunk = b"x" * (1 << 20)
        left = params.get("bytes", 100 << 20)
        while left > 0:
            write_raw(chunk[: min(left, len(chunk))])
            left -= len(chunk)
        if params.get("newline"):
            write_raw(b"\n")
        if params.get("answer"):
            answer(req)
    elif method == "close-stdout":
        global _stdout_open
        with _write_lock:
            _stdout_open = False
            os.close(1)
    elif method == "spawn":
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], stdin=subprocess.DEVNULL,
                                 start_new_session=bool(params.get("setsid")))
        send({"jsonrpc": "2.0", "id": req["id"], "result": {"pid": child.pid}})
    elif method == "stderr":
        sys.stderr.write(params.get("text", "") + "\n")
        sys.stderr.flush()
        answer(req)
    elif opts.shuffle:
        threading.Timer(random.uniform(0, 0.03), answer, args=(req,)).start()
    else:
        answer(req)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log", default=os.environ.get("FAULT_SERVER_LOG"))
    parser.add_argument("--shuffle", action="store_true")
    parser.add_argument("--never", type=lambda s: set(filter(None, s.split(","))), default=set())
    parser.add_argument("--ignore-stdin-eof", action="store_true")
    parser.add_argument("--ignore-sigterm", action="store_true")
    parser.add_argument("--eof-exit-delay", type=float, default=0.0)
    parser.add_argument("--eof-exit-status", type=int, default=0)
    opts = parser.parse_args()
    if opts.ignore_sigterm:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    log = open(opts.log, "ab", buffering=0) if opts.log else None

    for raw in sys.stdin.buffer:
        if log:
            log.write(raw if raw.endswith(b"\n") else raw + b"\n")
        try:
            message = json.loads(raw)
        except ValueError:
            continue  # like the SDK servers: a line that is not JSON gets no answer
        for req in message if isinstance(message, list) else [message]:
            if isinstance(req, dict):
                handle(req, opts)

    # stdin EOF: the client (the guard) is shutting us down.
    if opts.ignore_stdin_eof:
        while True:
            time.sleep(3600)
    time.sleep(opts.eof_exit_delay)
    os._exit(opts.eof_exit_status)


if __name__ == "__main__":
    main()
