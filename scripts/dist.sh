#!/usr/bin/env bash
# Builds the release artifacts a publish would upload, into one folder (target/dist, or DIST_DIR):
#   jsonrpc-errors-VERSION-TRIPLE.tar.gz    the CLI for this machine (`jsonrpc-errors`, the component embedded
#                                           and precompiled)
#   jsonrpc-errors-VERSION-x86_64-pc-windows-gnu.zip
#                                           the CLI for Windows 10 and later (`jsonrpc-errors.exe`), cross-built
#                                           with MinGW-w64 (on Linux), the component precompiled for it
#   jsonrpc_errors-VERSION-py3-none-any.whl the Python package (the component inside; wasmtime-py from PyPI)
#   jsonrpc-errors-VERSION.tgz              the npm package (`npm pack`)
#   jsonrpc-errors-VERSION.wasm             the component itself, for any other component runtime
#   SHA256SUMS
# The macOS CLI is this script's first artifact when it runs on a Mac (TRIPLE is then aarch64-apple-darwin or
# x86_64-apple-darwin): a build for Apple targets needs Apple's SDK (wasmtime has a little C), which Linux has
# not; tests/platforms/ checks the Rust code for both from Linux.
# It builds only the Windows CLI itself (in target/cross, where tests/platforms/build.sh builds it too):
# scripts/setup.sh builds the component and the CLI (`cargo xtask build`) and the npm package (`cargo xtask js`,
# `npm run build`); this packs what they built. JSONRPC_ERRORS_SETUP_DONE=1 (set by scripts/test-all.sh) skips
# the setup. tests/install/ installs each artifact into an empty environment.
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

windows=x86_64-pc-windows-gnu
case "$triple" in
  *-linux-*)
    echo "==> the CLI for Windows ($windows, MinGW-w64)"
    command -v x86_64-w64-mingw32-gcc >/dev/null || { echo "dist.sh: no MinGW-w64 (scripts/setup.sh installs it)" >&2; exit 1; }
    scripts/precompile-for.sh "$windows" "$root/target/cross"
    CARGO_TARGET_DIR="$root/target/cross" JSONRPC_ERRORS_COMPONENT="$root/target/component/jsonrpc-errors.wasm" \
      cargo build --quiet --release --target "$windows" -p jsonrpc-errors-host --bin jsonrpc-errors
    wcli="jsonrpc-errors-$version-$windows"
    mkdir "$stage/$wcli"
    cp "target/cross/$windows/release/jsonrpc-errors.exe" "$stage/$wcli/"
    (cd "$stage" && python3 -m zipfile -c "$out/$wcli.zip" "$wcli")
    ;;
  *) echo "==> no CLI for Windows: it is cross-built on Linux" ;;
esac

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
