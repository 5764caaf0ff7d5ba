"""Transparent stdio relay that records the raw wire, for multi-megabyte lines too (standard library only).

    python wiretap.py --log wire.jsonl -- CMD [ARGS...]

The same relay and the same log as tests/guard/tools/tee_stdio.py ({"t_ms", "dir": "c2s"|"s2c", "line"} per
line, {"t_ms", "dir": "c2s-eof"} when the client closes its side, {"t_ms", "dir": "exit", "code"} at the
end; bytes pass through unchanged), but reading both pipes through
buffered streams: tee_stdio.py reads the server's stdout unbuffered, one byte per system call, which takes many
seconds for the 5 MB lines a server such as server-filesystem writes (read_media_file).
SIGTERM/SIGINT/SIGHUP are passed on to CMD. Exits like CMD.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log", required=True)
    parser.add_argument("cmd", nargs="+")
    args = parser.parse_args()

    start = time.monotonic()
    log = open(args.log, "a", encoding="utf-8")
    lock = threading.Lock()

    def record(direction: str, **fields: object) -> None:
        entry = {"t_ms": round((time.monotonic() - start) * 1000), "dir": direction, **fields}
        with lock:
            log.write(json.dumps(entry, ensure_ascii=False) + "\n")
            log.flush()

    child = subprocess.Popen(args.cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert child.stdin and child.stdout
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda n, _frame: child.send_signal(n))

    def client_to_server() -> None:
        for line in iter(sys.stdin.buffer.readline, b""):
            record("c2s", line=line.decode("utf-8", "replace").rstrip("\n"))
            try:
                child.stdin.write(line)
                child.stdin.flush()
            except (BrokenPipeError, ValueError):
                break
        record("c2s-eof", line="")  # the client closed our stdin
        try:
            child.stdin.close()  # pass the EOF on
        except BrokenPipeError:
            pass

    threading.Thread(target=client_to_server, daemon=True).start()

    out = sys.stdout.buffer
    for line in iter(child.stdout.readline, b""):
        record("s2c", line=line.decode("utf-8", "replace").rstrip("\n"))
        try:
            out.write(line)
            out.flush()
        except BrokenPipeError:
            break
    code = child.wait()
    record("exit", code=code)
    log.close()
    os._exit(code if code >= 0 else 128 - code)


if __name__ == "__main__":
    main()
