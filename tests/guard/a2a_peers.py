"""What the A2A tests share: the test agent (servers/a2a_agent.py, on PyPI `a2a-sdk` 1.3) on a free loopback
port, and the two official SDK clients (clients/a2a_py_client.py, clients/a2a_js_client.mjs on npm
`@a2a-js/sdk` 1.3) run through one fixed scenario against a base URL, each printing what it saw as JSON.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from harness import HANG, HERE, PY

AGENT = HERE / "servers" / "a2a_agent.py"
CLIENTS = {
    "py": [PY, str(HERE / "clients" / "a2a_py_client.py")],
    "js": ["node", str(HERE / "clients" / "a2a_js_client.mjs")],
}
# What servers/a2a_agent.py puts in a failed task's status message.
SECRET = "ghp_A2aSecretTokenValue0123456789abcdefAB"


class Agent:
    """servers/a2a_agent.py on a free loopback port."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen([PY, str(AGENT)], stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line.startswith("port "), line
        self.port = int(line.split()[1])
        self.base = f"http://127.0.0.1:{self.port}"
        self.rpc = self.base + "/rpc"

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait()


def run_client(kind: str, base: str, cwd: Path = HERE) -> dict[str, Any]:
    """One SDK client's run of the scenario against `base` (an agent's, or a guard's, base URL)."""
    done = subprocess.run([*CLIENTS[kind], base], capture_output=True, text=True, timeout=HANG, cwd=cwd, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def codes(seen: dict[str, Any]) -> dict[str, Any]:
    """A run with each error reduced to its code (a2a-sdk's client keeps no `data`; @a2a-js/sdk's does)."""
    out = {}
    for step, value in seen.items():
        if isinstance(value, dict) and "error" in value:
            out[step] = {"error": value["error"]["code"]}
        else:
            out[step] = value
    return out
