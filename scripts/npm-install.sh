#!/usr/bin/env bash
# Installs the npm packages pinned by package-lock.json in the current folder.
# npm ci refuses some lock files on npm 11 here (entries for other platforms' optional native packages that
# the registry's metadata lists): then `npm install`, which keeps every version pinned by package-lock.json
# and only resolves those missing optional entries.
set -euo pipefail
ci_log="$(mktemp)"
if ! npm ci --no-audit --no-fund >"$ci_log" 2>&1; then
  grep -m 3 -E "npm error (code|Missing|\`npm ci\`)" "$ci_log" >&2 || true
  echo "npm-install.sh: npm ci failed in $(pwd); falling back to npm install (versions stay pinned by package-lock.json)" >&2
  npm install --no-audit --no-fund
fi
rm -f "$ci_log"
