#!/usr/bin/env bash
# Builds the release artifacts a publish would upload, into one folder (target/dist, or DIST_DIR):
#   jsonrpc-errors-VERSION-TRIPLE.tar.gz    the CLI (`jsonrpc-errors`, the component embedded and precompiled)
#   jsonrpc_errors-VERSION-py3-none-any.whl the Python package (the component inside; wasmtime-py from PyPI)
#   jsonrpc-errors-VERSION.tgz              the npm package (`npm pack`)
#   jsonrpc-errors-VERSION.wasm             the component itself, for any other component runtime
#   SHA256SUMS
# It builds nothing itself: scripts/setup.sh builds the component and the CLI (`cargo xtask build`) and the npm
# package (`cargo xtask js`, `npm run build`); this packs what they built. JSONRPC_ERRORS_SETUP_DONE=1 (set by
# scripts/test-all.sh) skips the setup. tests/install/ installs each artifact into an empty environment.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
out="${DIST_DIR:-$root/target/dist}"
[ "${JSONRPC_ERRORS_SETUP_DONE:-0}" = 1 ] || ./scripts/setup.sh

version="$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)"
triple="$(rustc -vV | sed -n 's/^host: //p')"
for f in target/release/jsonrpc-errors target/component/jsonrpc-errors.wasm bindings/js/dist/node.js; do
  [ -f "$f" ] || { echo "dist.sh: $f is missing (scripts/setup.sh builds it)" >&2; exit 1; }
done
rm -rf "$out"
mkdir -p "$out"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT

echo "==> the CLI"
cli="jsonrpc-errors-$version-$triple"
mkdir "$stage/$cli"
cp target/release/jsonrpc-errors "$stage/$cli/"
tar -C "$stage" -czf "$out/$cli.tar.gz" "$cli"

echo "==> the component"
cp target/component/jsonrpc-errors.wasm "$out/jsonrpc-errors-$version.wasm"

echo "==> the Python wheel"
# Built from a copy of the package's sources, so that no build/ folder of the checkout's leaks into it; the
# component comes from JSONRPC_ERRORS_COMPONENT (bindings/python/setup.py).
py="$root/bindings/python/.venv/bin/python"
[ -x "$py" ] || py=python3
mkdir "$stage/python"
(cd bindings/python && cp -r pyproject.toml setup.py README.md src "$stage/python/")
find "$stage/python" \( -name __pycache__ -o -name '*.egg-info' -o -name '*.wasm' \) -prune -exec rm -rf {} +
JSONRPC_ERRORS_COMPONENT="$root/target/component/jsonrpc-errors.wasm" \
  "$py" -m pip wheel --quiet --no-deps --wheel-dir "$out" "$stage/python"

echo "==> the npm package"
# bindings/js/dist is what `npm run build` (run by `cargo xtask js`) wrote; its prepack would only write it again.
(cd bindings/js && npm pack --silent --ignore-scripts --pack-destination "$out" >/dev/null)

(cd "$out" && sha256sum -- * > SHA256SUMS)
echo "==> $out"
ls -l "$out"
