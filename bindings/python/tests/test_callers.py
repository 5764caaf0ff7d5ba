"""The fast path is taken only when its feature check passes; otherwise (or when forced) the public API path
answers identically. run-tests.sh runs the whole suite on both paths; these check the choice itself."""

import os
import subprocess
import sys

from jsonrpc_errors import _callers

PROBE = """
import json, jsonrpc_errors as jre
from jsonrpc_errors import _callers
out = jre.map_error_json('{"kind":"timeout","id":1,"correlation_id":"c"}', "canonical", context=(0, 0))
print(json.dumps([_callers.FAST, _callers.fallback_reason, out, jre.redact("mail bob@example.com")]))
"""


def _probe(prelude: str = "", **env: str) -> list:
    import json

    full_env = {k: v for k, v in os.environ.items() if k != _callers.FORCE_PUBLIC_VAR}
    full_env.update(env)
    out = subprocess.run(
        [sys.executable, "-c", prelude + PROBE], env=full_env, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


def test_the_pinned_wasmtime_py_gets_the_fast_path():
    fast, reason, _, _ = _probe()
    assert fast is True and reason is None


def test_forcing_the_public_api_answers_identically():
    fast, reason, out, redacted = _probe(JSONRPC_ERRORS_PUBLIC_API="1")
    assert fast is False and "JSONRPC_ERRORS_PUBLIC_API" in reason
    assert (out, redacted) == tuple(_probe()[2:])


def test_internals_that_differ_fall_back_to_the_public_api():
    # A wasmtime-py whose C-API bindings lack a function the fast path calls.
    prelude = "import wasmtime._ffi as f\ndel f.wasmtime_component_resource_any_clone\n"
    fast, reason, out, redacted = _probe(prelude)
    assert fast is False and "wasmtime_component_resource_any_clone" in reason
    assert (out, redacted) == tuple(_probe()[2:])
