#!/usr/bin/env bash
# Installs what the npm package's build and tests need, then builds it:
# Debian's chromium (for the browser tests), the npm devDependencies (the MCP SDK among them), the bundlers of
# test/bundlers (esbuild, webpack), the wasm-bindgen build (`cargo xtask js`, which also compiles the
# TypeScript into dist/), the component the jco test transpiles, and the example MCP proxy on the package
# (examples/mcp-proxy-ts: npm ci + tsc).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

if [ ! -x /usr/bin/chromium ]; then
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y chromium
fi

cd "$here"
"$root/scripts/npm-install.sh"
# The bundlers test/bundlers.test.mjs builds pages with (esbuild, webpack; pinned in their own lock file).
(cd "$here/test/bundlers" && "$root/scripts/npm-install.sh")

cd "$root"
cargo xtask js
if [ ! -f target/component/jsonrpc-errors.wasm ]; then
  cargo xtask component
fi

"$root/examples/mcp-proxy-ts/setup.sh"
