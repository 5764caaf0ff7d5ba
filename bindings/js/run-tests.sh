#!/usr/bin/env bash
# Setup, then every suite of the npm package in one node:test run (non-zero exit on any failure):
#   - the vectors and the API through the package (wasm-bindgen build) in Node, and the npm tarball
#     (npm pack --dry-run contents; installed into an empty project and imported);
#   - the browser: every vector in headless Chromium (the main entry on its own module and on the guard module);
#   - bundlers (Vite 7, webpack 5, esbuild --target=es2020) building pages from the tarball in empty projects,
#     loaded in Chromium: the README's quick start, zero-config `init()` and `init({ wasm })` from another origin;
#   - the component (target/component/jsonrpc-errors.wasm) transpiled by jco, every vector in Node;
#   - jsonrpc-errors/mcp with the official MCP SDK: in process, in Chromium, in the tarball, and the example
#     proxy (examples/mcp-proxy-ts) over real stdio in front of the Python SDK's misbehaving server.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# scripts/test-all.sh has just run the setup; a direct call sets up first.
[ "${JSONRPC_ERRORS_SETUP_DONE:-0}" = 1 ] || "$here/setup.sh"
# The stdio test's upstream runs on the Python SDK (mcp), which the guard's fixtures install.
"$root/bindings/python/.venv/bin/python" -c "import mcp" 2>/dev/null || "$root/tests/guard/setup.sh"
cd "$here"
# The spec reporter lists every test and ends with node:test's summary (tests / pass / fail ...).
# Every test file, by glob (as `npm test`): a listed set let parity.test.mjs and redact-options.test.mjs go unrun.
node --test --test-reporter=spec test/*.test.mjs
