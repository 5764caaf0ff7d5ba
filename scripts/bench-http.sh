#!/usr/bin/env bash
# The HTTP front's load benchmark (issue 26): the same stdio MCP server behind `jsonrpc-errors guard --listen`,
# behind supergateway (npm) and behind mcp-proxy (PyPI), driven by one load generator on loopback, measured in
# one run (host/examples/http_bench.rs says what is measured and how). A benchmark, not a test: never part of
# the test command; the machines are shared and noisy, so read the ratios measured in the same run.
#
# Installs the peers it compares with, pinned: supergateway by bench/peers/package-lock.json, mcp-proxy and its
# SDK by bench/http/requirements.txt into target/bench/mcp-proxy-venv. Extra arguments go to the benchmark,
# for example `--requests 5000 --clients 16` for a quick run or `--targets guard,guard-stateless`.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

if [ ! -x target/release/jsonrpc-errors ]; then
  echo "bench-http.sh: target/release/jsonrpc-errors is missing; building it (cargo xtask build)" >&2
  cargo xtask build
fi
(cd bench/peers && ../../scripts/npm-install.sh > /dev/null)
venv=target/bench/mcp-proxy-venv
if [ ! -x "$venv/bin/mcp-proxy" ]; then
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r bench/http/requirements.txt
fi
cargo build --quiet --release -p jsonrpc-errors-host --example http_bench
exec target/release/examples/http_bench "$@"
