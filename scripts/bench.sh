#!/usr/bin/env bash
# Every benchmark figure, in one run (after ./scripts/setup.sh): the Rust host (per-call map, CLI start,
# component size, redaction native vs wasmtime, recall/precision), then Python and Node on the same logs.
# Benchmarks measure; they are not tests. Machines are shared and noisy: read the ratios.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "### Rust: native guest vs the component in wasmtime"
cargo run --release -q -p jsonrpc-errors-host --example bench
if [ -x bindings/python/.venv/bin/python ]; then
  echo; echo "### Python (wasmtime-py)"
  (cd bindings/python && .venv/bin/python bench.py)
fi
if [ -d bindings/js/dist ]; then
  echo; echo "### Node (wasm-bindgen)"
  (cd bindings/js && node bench/bench.mjs)
fi
