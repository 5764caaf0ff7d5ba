#!/usr/bin/env bash
# Sets up bindings/python/.venv and runs the Python test suite twice: on the C-API fast path (_abi, which
# relies on wasmtime-py internals) and on wasmtime-py's public API (_public, the fallback), so a wasmtime-py
# upgrade that breaks the fast path's feature check still leaves a tested package. Exit status: non-zero if
# either run fails.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# scripts/test-all.sh has just run the setup; a direct call sets up first.
[ "${JSONRPC_ERRORS_SETUP_DONE:-0}" = 1 ] || "$HERE/setup.sh"
cd "$HERE"
echo "--- fast path (wasmtime-py C API)"
"$HERE/.venv/bin/python" -m pytest -q "$@"
echo "--- public API path (JSONRPC_ERRORS_PUBLIC_API=1)"
JSONRPC_ERRORS_PUBLIC_API=1 "$HERE/.venv/bin/python" -m pytest -q "$@"
