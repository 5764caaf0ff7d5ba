#!/usr/bin/env bash
# Installs the example's npm packages (pinned by package-lock.json; `jsonrpc-errors` is bindings/js, linked)
# and compiles proxy.ts to proxy.js. Idempotent: installs only when the lock file is newer than the install,
# builds bindings/js only when its dist/ lacks the mcp entry.
#
#   examples/mcp-proxy-ts/setup.sh
#   node examples/mcp-proxy-ts/proxy.js [--dialect D] [--timeout SECS] -- CMD [ARGS...]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

if [ ! -f "$root/bindings/js/dist/mcp-node.js" ]; then
  if [ ! -d "$root/bindings/js/node_modules" ] || [ ! -f "$root/bindings/js/wasm/jsonrpc_errors_guard_bg.wasm" ]; then
    echo "setup.sh: bindings/js is not built; run bindings/js/setup.sh first" >&2
    exit 1
  fi
  (cd "$root/bindings/js" && npm run --silent build)
fi

cd "$here"
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ] || [ package.json -nt node_modules/.package-lock.json ]; then
  "$root/scripts/npm-install.sh"
fi
node node_modules/typescript/bin/tsc -p "$here"
