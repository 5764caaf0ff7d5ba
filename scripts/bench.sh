#!/usr/bin/env bash
# Every benchmark figure, in one run (after ./scripts/setup.sh): the Rust host (per-call map, CLI start,
# component size, redaction native vs wasmtime, recall and benign rate on tests/corpora), then Python and Node
# on the same logs.
# Benchmarks measure; they are not tests. Machines are shared and noisy: read the ratios.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "### Rust: native guest vs the component in wasmtime"
cargo run --release -q -p jsonrpc-errors-host --example bench
echo; echo "### Guard: 100k requests, 64 in flight"
# direct vs `jsonrpc-errors guard` (target/release/jsonrpc-errors) on the same stdio server, rounds alternating.
# A third column, the gatekit gateway, runs when GUARD_BENCH_GATEKIT names its command, e.g. after
#   python3 -m venv /tmp/gatekit-venv && /tmp/gatekit-venv/bin/pip install gatekit==0.3.0
#   GUARD_BENCH_GATEKIT=/tmp/gatekit-venv/bin/gatekit-gateway ./scripts/bench.sh
cargo run --release -q -p jsonrpc-errors-host --example guard_bench -- --requests 100000 --window 64
if [ -x bindings/python/.venv/bin/python ]; then
  echo; echo "### Python (wasmtime-py)"
  (cd bindings/python && .venv/bin/python bench.py)
fi
if [ -d bindings/js/dist ]; then
  # The redactors a Node user might pick instead (redact-pii, @arcjet/redact): bench-only, never a dependency.
  (cd bench/peers && ../../scripts/npm-install.sh > /dev/null) || echo "(bench/peers not installed: the Node peers are skipped)"
  echo; echo "### Node (wasm-bindgen)"
  (cd bindings/js && node bench/bench.mjs)
fi
echo; echo "### Policy file: the results scope vs the default scope through the CLI guard"
./scripts/bench-policy.sh
