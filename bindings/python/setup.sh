#!/usr/bin/env bash
# Creates bindings/python/.venv (if missing) and installs the package with its test, prometheus and mcp extras,
# built from the component `cargo xtask component` produced (target/component/jsonrpc-errors.wasm),
# and the lint gates' tools (requirements-dev.txt).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PYTHON="${PYTHON:-python3}"
if [ ! -f "$HERE/../../target/component/jsonrpc-errors.wasm" ] && [ -z "${JSONRPC_ERRORS_COMPONENT:-}" ]; then
  echo "setup.sh: target/component/jsonrpc-errors.wasm is missing; run \`cargo xtask component\` first" >&2
  exit 1
fi
if [ ! -x "$HERE/.venv/bin/python" ]; then
  "$PYTHON" -m venv "$HERE/.venv"
fi
"$HERE/.venv/bin/python" -m pip install --quiet --upgrade pip
# --force-reinstall of our package only (not its dependencies): always ships the freshly built component.
"$HERE/.venv/bin/python" -m pip install --quiet "$HERE[test,prometheus,mcp]"
# The lint and type-check gates' tools, at the versions the code is checked with.
"$HERE/.venv/bin/python" -m pip install --quiet -r "$HERE/requirements-dev.txt"
"$HERE/.venv/bin/python" -m pip install --quiet --force-reinstall --no-deps "$HERE"
