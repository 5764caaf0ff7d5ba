#!/usr/bin/env bash
# Builds and checks the CLI for the other platforms, in a target directory of its own (target/cross: a build
# for another target shares little with the native one, and its own directory lets scripts/test-all.sh run
# it while other suites use target/):
#
#   x86_64-pc-windows-gnu   built and linked with MinGW-w64: the CLI, its unit tests and the test server
#                           (server/), and the ProcessPrng shim Wine 8 lacks (wine/), beside them; run by
#                           run-tests.sh under Wine
#   x86_64-pc-windows-msvc  clippy over the CLI (-D warnings): no MSVC toolchain here, so its Rust code is
#                           what can be checked (check-cc.sh and check-ar.sh stand in for cl.exe and lib.exe)
#   x86_64-apple-darwin     clippy over the CLI (-D warnings): no Apple SDK here, so the C parts of
#   aarch64-apple-darwin    dependencies are not compiled (check-cc.sh); all the Rust code is
#
# The component is the one scripts/setup.sh built (target/component), embedded as it is, with its form
# precompiled for Windows (scripts/precompile-for.sh). Exit status: non-zero if any build or check failed
# (each is tried).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"
export CARGO_TARGET_DIR="$root/target/cross"
export JSONRPC_ERRORS_COMPONENT="$root/target/component/jsonrpc-errors.wasm"
[ -f "$JSONRPC_ERRORS_COMPONENT" ] || { echo "build.sh: $JSONRPC_ERRORS_COMPONENT is missing (scripts/setup.sh)" >&2; exit 1; }

failed=()
step() {
  local name=$1; shift
  echo "==> $name"
  local started=$SECONDS
  if ! "$@"; then failed+=("$name"); fi
  echo "    ($((SECONDS - started)) s)"
}

windows_gnu() {
  "$root/scripts/precompile-for.sh" x86_64-pc-windows-gnu "$CARGO_TARGET_DIR" || return 1
  cargo build --quiet --release --target x86_64-pc-windows-gnu -p jsonrpc-errors-host -p misbehaving-server \
    --bins || return 1
  # The unit tests' executable; run-tests.sh finds it by name.
  local tests
  tests="$(cargo test --quiet --no-run --release --target x86_64-pc-windows-gnu -p jsonrpc-errors-host \
    --bin jsonrpc-errors --message-format=json | sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -1)"
  [ -n "$tests" ] || return 1
  local out="$CARGO_TARGET_DIR/x86_64-pc-windows-gnu/release"
  cp "$tests" "$out/platform-unit-tests.exe"
  x86_64-w64-mingw32-gcc -O2 -shared -s -o "$out/bcryptprimitives.dll" \
    "$here/wine/bcryptprimitives.c" "$here/wine/bcryptprimitives.def" -ladvapi32
}

# One cargo run for the three: the big crates of each target (cranelift, wasmtime) are checked side by side
# rather than one target after another. No target's C is compiled: check-cc.sh stands in for the Apple
# compilers and the MSVC one (ring, rustls' crypto provider, compiles C for every target; there is no cl.exe
# here), check-ar.sh for MSVC's lib.exe.
clippy_elsewhere() {
  CC_x86_64_apple_darwin="$here/check-cc.sh" CC_aarch64_apple_darwin="$here/check-cc.sh" \
    CC_x86_64_pc_windows_msvc="$here/check-cc.sh" AR_x86_64_pc_windows_msvc="$here/check-ar.sh" \
    cargo clippy --quiet --release --target x86_64-pc-windows-msvc --target x86_64-apple-darwin \
    --target aarch64-apple-darwin -p jsonrpc-errors-host --bin jsonrpc-errors -- -D warnings
}

step "Windows, GNU (x86_64-pc-windows-gnu): the CLI, its unit tests, the test server, the Wine shim" windows_gnu
step "Windows, MSVC (x86_64-pc-windows-msvc), macOS (x86_64- and aarch64-apple-darwin): clippy over the CLI, no C for macOS or MSVC" \
  clippy_elsewhere

if [ ${#failed[@]} -gt 0 ]; then
  printf 'FAILED: %s\n' "${failed[@]}" >&2
  exit 1
fi
