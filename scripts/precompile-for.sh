#!/usr/bin/env bash
# scripts/precompile-for.sh TARGET TARGET_DIR: precompiles the component scripts/setup.sh built
# (target/component/jsonrpc-errors.wasm) for the Rust target TARGET, into TARGET_DIR/TARGET/component/ beside a
# copy of the component, where the host's build script embeds it in a CLI built for TARGET in TARGET_DIR
# (host/build.rs: cargo's folder for the target, TARGET_DIR/TARGET, is the target directory it finds).
# Without it a cross-built CLI compiles the component each time it starts (seconds). Runs the precompiler
# setup built (target/release/jsonrpc-errors-precompile: the same wasmtime and engine configuration as the
# CLI), without cargo: a cross build running beside other cargo commands does not wait for target/'s lock.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
[ $# = 2 ] || { echo "usage: scripts/precompile-for.sh TARGET TARGET_DIR" >&2; exit 2; }
target=$1
dir="$2/$target/component"
for f in target/component/jsonrpc-errors.wasm target/release/jsonrpc-errors-precompile; do
  [ -f "$root/$f" ] || { echo "precompile-for.sh: $f is missing (scripts/setup.sh builds it)" >&2; exit 1; }
done
mkdir -p "$dir"
cmp -s "$root/target/component/jsonrpc-errors.wasm" "$dir/jsonrpc-errors.wasm" \
  || cp "$root/target/component/jsonrpc-errors.wasm" "$dir/jsonrpc-errors.wasm"
"$root/target/release/jsonrpc-errors-precompile" "$dir/jsonrpc-errors.wasm" "$dir/jsonrpc-errors.$target.cwasm" \
  "$target" >/dev/null
