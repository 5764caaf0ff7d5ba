#!/usr/bin/env bash
# The policy file's cost through `jsonrpc-errors guard` (issue 27), in one run: the results scope against the
# default scope for successful tool results of 1 KB, 100 KB and 10 MB of text and a 5 MB base64 image, from a
# scripted stdio upstream; then, with the Python package, where a 10 MB result's time goes inside the
# component. A benchmark, not a test (never part of the test command); machines are shared and noisy: read
# the ratios, which are measured in the same run. Extra arguments go to scripts/bench_policy.py (--quick).
#
# Needs target/release/jsonrpc-errors (scripts/setup.sh or `cargo xtask build`); JSONRPC_ERRORS_BIN overrides it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${JSONRPC_ERRORS_BIN:-$root/target/release/jsonrpc-errors}"
if [ ! -x "$bin" ]; then
  echo "bench-policy.sh: $bin is missing; build it first (scripts/setup.sh or cargo xtask build)" >&2
  exit 1
fi
py="$root/bindings/python/.venv/bin/python"
[ -x "$py" ] || py="$(command -v python3)"
exec "$py" "$root/scripts/bench_policy.py" --guard "$bin" "$@"
