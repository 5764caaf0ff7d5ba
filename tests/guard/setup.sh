#!/usr/bin/env bash
# Installs what the guard's end-to-end fixtures need (idempotent):
#   mcp==2.3.0 into the project's virtualenv (bindings/python/.venv, created if missing), and
#   the pinned TypeScript SDK into tests/guard/node_modules.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="$root/bindings/python/.venv"

if [ ! -x "$venv/bin/python" ]; then
  "${PYTHON:-python3}" -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet -r "$here/requirements.txt"

cd "$here"
"$root/scripts/npm-install.sh"
