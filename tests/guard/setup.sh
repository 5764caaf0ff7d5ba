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
# npm ci can refuse a lock file on npm 11 here (entries for other platforms' optional packages that the
# registry's metadata lists); fall back to `npm install`, which keeps every version pinned by package-lock.json.
ci_log="$(mktemp)"
if ! npm ci --no-audit --no-fund >"$ci_log" 2>&1; then
  grep -m 3 -E "npm error (code|Missing|\`npm ci\`)" "$ci_log" >&2 || true
  echo "setup.sh: npm ci failed; falling back to npm install (versions stay pinned by package-lock.json)" >&2
  npm install --no-audit --no-fund
fi
rm -f "$ci_log"
