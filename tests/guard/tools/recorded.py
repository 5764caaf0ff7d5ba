"""Runs a command with its stderr in a file and records its pid and exit status (standard library only).

    python recorded.py DIR -- CMD [ARGS...]

stdin and stdout are the command's own (inherited, nothing copied), so an SDK client that spawns
`recorded.py DIR -- jsonrpc-errors guard -- server` talks to the guard directly, while the test gets what
the client hides from it: the guard's stderr (DIR/stderr.log), its pid (DIR/pid) and its real exit status
(DIR/status; 128+N for signal N). SIGTERM/SIGINT/SIGHUP are passed on to the command, since the TS SDK
client signals only the process it spawned. Exits with the command's status.
"""

import os
import signal
import subprocess
import sys
from pathlib import Path


def main() -> int:
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        sys.exit(__doc__)
    out = Path(sys.argv[1])
    with open(out / "stderr.log", "wb") as log:
        child = subprocess.Popen(sys.argv[3:], stderr=log)
    (out / "pid").write_text(str(child.pid))
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda n, _frame: child.send_signal(n))
    code = child.wait()
    status = 128 - code if code < 0 else code
    (out / "status").write_text(str(status))
    return status


if __name__ == "__main__":
    sys.exit(main())
