#!/usr/bin/env bash
# Sets up bindings/python/.venv and runs the Python test suite (exit status: pytest's).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# scripts/test-all.sh has just run the setup; a direct call sets up first.
[ "${JSONRPC_ERRORS_SETUP_DONE:-0}" = 1 ] || "$HERE/setup.sh"
cd "$HERE"
exec "$HERE/.venv/bin/python" -m pytest -q "$@"
