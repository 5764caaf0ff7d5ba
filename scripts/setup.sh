#!/usr/bin/env bash
# Sets up everything the project needs on a fresh machine (idempotent):
#   the wasm32 Rust target, the component and the release CLI, the Python package's virtualenv, the npm
#   package with its headless Chromium, the official MCP SDKs the guard's demo and tests run against, and the
#   toolchains and Wine the platform tests build and run the Windows CLI with.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "==> rustup target wasm32-unknown-unknown"
rustup target add wasm32-unknown-unknown >/dev/null

echo "==> component, precompiled artifact and release CLI (cargo xtask build)"
cargo xtask build

if [ "${SKIP_BINDINGS:-0}" != "1" ]; then
  if [ -x bindings/python/setup.sh ]; then
    echo "==> Python package"
    bindings/python/setup.sh
  fi
  if [ -x bindings/js/setup.sh ]; then
    echo "==> npm package"
    bindings/js/setup.sh
  fi
  echo "==> the guard's real-SDK fixtures (mcp for Python, @modelcontextprotocol/sdk for Node)"
  tests/guard/setup.sh
  echo "==> the other platforms' Rust targets, MinGW-w64 and Wine (tests/platforms)"
  tests/platforms/setup.sh
fi
echo "==> setup done: target/release/jsonrpc-errors, target/component/jsonrpc-errors.wasm"
