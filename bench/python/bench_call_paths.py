"""What the public-API fallback costs: per-call time of the C-API fast path (_abi) and of wasmtime-py's
public component API (_public), measured in one run (each path in its own interpreter, since the choice is
made at import), best of 3 rounds of N calls.

    scripts/bench.sh python-calls [-- N]
    bindings/python/.venv/bin/python bench/python/bench_call_paths.py [N]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

MEASURE = r"""
import json, sys, timeit
import jsonrpc_errors as j
from jsonrpc_errors import _callers
n = int(sys.argv[1])
mapped = json.dumps({"kind": "upstream-timeout", "id": 7, "timeout_secs": 30})
text = "deploy failed: token ghp_a1B2c3D4e5a1B2c3D4e5a1B2c3D4e5a1B2c3 for bob@example.com"
calls = {"map_error_json": lambda: j.map_error_json(mapped, "canonical"), "redact": lambda: j.redact(text)}
out = {"path": "fast" if _callers.FAST else "public"}
for name, call in calls.items():
    call()
    out[name] = min(timeit.repeat(call, number=n, repeat=3)) / n * 1e6
print(json.dumps(out))
"""


def measure(public: bool, n: int) -> dict[str, float | str]:
    env = {k: v for k, v in os.environ.items() if k != "JSONRPC_ERRORS_PUBLIC_API"}
    if public:
        env["JSONRPC_ERRORS_PUBLIC_API"] = "1"
    done = subprocess.run([sys.executable, "-c", MEASURE, str(n)], env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    fast, public = measure(False, n), measure(True, n)
    print(f"{'call':16} {fast['path']:>10} {public['path']:>10}  ratio   (us per call, best of 3 x {n})")
    for name in ("map_error_json", "redact"):
        print(f"{name:16} {fast[name]:10.1f} {public[name]:10.1f}  {public[name] / fast[name]:5.1f}x")


if __name__ == "__main__":
    main()
