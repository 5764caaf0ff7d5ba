#!/usr/bin/env bash
# Runs the end-to-end tests of `jsonrpc-errors guard` (real processes, real MCP SDKs, nothing mocked):
# pytest with the project's virtualenv (this folder and real/, the tests against reference MCP software:
# real/README.md), then node --test for any TS-driven test files (*.test.mjs) here.
# Exit status: non-zero if any suite failed. Extra arguments go to pytest (e.g. -k crash, -x).
#
# Needs target/release/jsonrpc-errors (scripts/setup.sh or `cargo xtask build`) and the SDK fixtures
# (installed here by setup.sh when missing). JSONRPC_ERRORS_BIN overrides the binary under test.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
py="$root/bindings/python/.venv/bin/python"
bin="${JSONRPC_ERRORS_BIN:-$root/target/release/jsonrpc-errors}"

if [ ! -x "$bin" ]; then
  echo "run-tests.sh: $bin is missing; build it first (scripts/setup.sh or cargo xtask build)" >&2
  exit 1
fi
if [ ! -d "$here/node_modules/@modelcontextprotocol/sdk" ] || [ ! -d "$here/node_modules/@a2a-js/sdk" ] \
   || ! "$py" -c 'import mcp, pytest, cryptography, a2a, uvicorn' 2>/dev/null \
   || [ ! -x "$here/real/node_modules/node/bin/node" ] || [ ! -d "$here/real/node_modules/supergateway" ] \
   || ! "$py" -c 'import mcp_server_time, mcp_server_fetch, mcp_server_git' 2>/dev/null \
   || { [ ! -x /usr/sbin/haproxy ] && ! command -v haproxy >/dev/null 2>&1; }; then
  "$here/setup.sh" || { echo "run-tests.sh: tests/guard/setup.sh failed" >&2; exit 1; }
  "$py" -c 'import pytest' 2>/dev/null || "$py" -m pip install --quiet 'pytest>=7' || exit 1
fi

failed=()
cd "$here"
echo "==> guard end-to-end tests (pytest)"
PYTHONDONTWRITEBYTECODE=1 "$py" -m pytest -q -rfE "$@" || failed+=(pytest)

shopt -s nullglob
node_tests=("$here"/*.test.mjs)
if [ ${#node_tests[@]} -gt 0 ]; then
  echo "==> guard end-to-end tests (node --test)"
  node --test "${node_tests[@]}" || failed+=("node --test")
fi

if [ ${#failed[@]} -gt 0 ]; then
  printf 'FAILED guard suite: %s\n' "${failed[@]}" >&2
  exit 1
fi
