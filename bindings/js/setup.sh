#!/usr/bin/env bash
# Installs what the npm package's build and tests need, then builds it:
# Debian's chromium (for the browser test), the npm devDependencies, the wasm-bindgen build (`cargo xtask js`,
# which also compiles the TypeScript into dist/), and the component the jco test transpiles.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

if [ ! -x /usr/bin/chromium ]; then
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y chromium
fi

cd "$here"
# npm ci refuses this lock file on npm 11 here: it lacks the other platforms' optional native bindings
# (rolldown, jco-node-fs, ...) that the registry's metadata lists, so fall back to `npm install`, which
# keeps every version pinned by package-lock.json and only resolves those missing optional entries.
ci_log="$(mktemp)"
if ! npm ci --no-audit --no-fund >"$ci_log" 2>&1; then
  grep -m 3 -E "npm error (code|Missing|\`npm ci\`)" "$ci_log" >&2 || true
  echo "setup.sh: npm ci failed; falling back to npm install (versions stay pinned by package-lock.json)" >&2
  npm install --no-audit --no-fund
fi
rm -f "$ci_log"

cd "$root"
cargo xtask js
if [ ! -f target/component/jsonrpc-errors.wasm ]; then
  cargo xtask component
fi
