#!/usr/bin/env bash
# Setup, then every suite of the npm package in one node:test run (non-zero exit on any failure):
#   - the vectors and the API through the package (wasm-bindgen build) in Node, and the npm tarball
#     (npm pack --dry-run contents; installed into an empty project and imported);
#   - the browser: every vector in headless Chromium, and a Vite 7 build of a page importing the tarball;
#   - the component (target/component/jsonrpc-errors.wasm) transpiled by jco, every vector in Node.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# scripts/test-all.sh has just run the setup; a direct call sets up first.
[ "${JSONRPC_ERRORS_SETUP_DONE:-0}" = 1 ] || "$here/setup.sh"
cd "$here"
# The spec reporter lists every test and ends with node:test's summary (tests / pass / fail ...).
node --test --test-reporter=spec \
  test/vectors.test.mjs test/api.test.mjs test/guard.test.mjs test/pack.test.mjs \
  test/browser.test.mjs \
  test/jco.test.mjs
