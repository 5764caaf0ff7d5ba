"""Transparent stdio relay that records the raw wire: what a client and a server really exchanged.

    python tee_stdio.py --log wire.jsonl -- SERVER_CMD [ARGS...]

Put it between any client and any stdio server (it is the "server" the client spawns).
Bytes pass through unchanged, line by line, in both directions; each line is also
appended to the log as {"t_ms", "dir": "c2s"|"s2c", "line"}, and the server's exit as
{"t_ms", "dir": "exit", "code"}. Stderr is inherited. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log", required=True)
    parser.add_argument("server", nargs="+")
    args = parser.parse_args()

    start = time.monotonic()
    log = open(args.log, "a", encoding="utf-8")
    lock = threading.Lock()

    def record(direction: str, **fields: object) -> None:
        entry = {"t_ms": round((time.monotonic() - start) * 1000), "dir": direction, **fields}
        with lock:
            log.write(json.dumps(entry, ensure_ascii=False) + "\n")
            log.flush()

    child = subprocess.Popen(args.server, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    assert child.stdin and child.stdout

    def client_to_server() -> None:
        for line in iter(sys.stdin.buffer.readline, b""):
            record("c2s", line=line.decode("utf-8", "replace").rstrip("\n"))
            try:
                child.stdin.write(line)
                child.stdin.flush()
            except BrokenPipeError:
                break
        # The client closed our stdin: pass the EOF on, as the SDKs' shutdown expects.
        try:
            child.stdin.close()
        except BrokenPipeError:
            pass

    # Daemon: a client that never closes stdin must not keep us alive after the server died.
    threading.Thread(target=client_to_server, daemon=True).start()

    out = sys.stdout.buffer
    for line in iter(child.stdout.readline, b""):
        record("s2c", line=line.decode("utf-8", "replace").rstrip("\n"))
        out.write(line)
        out.flush()
    code = child.wait()
    record("exit", code=code)
    log.close()
    # Exit like the server did, so the client sees the same death (EOF, then exit status).
    os._exit(code if code >= 0 else 128 - code)


if __name__ == "__main__":
    main()
