#!/usr/bin/env bash
# Sets everything up, then runs every test in every runtime: native Rust, the wasmtime host and CLI, Python
# (wasmtime-py), Node (wasm-bindgen and jco), headless Chromium, and the CLI built for Windows (under Wine) and
# checked for macOS. Exits non-zero if any suite fails.
set -uo pipefail
cd "$(dirname "$0")/.."

# A cold run writes ~8 GiB here (target/: the release builds, the component, the npm modules, the other
# platforms' CLI) and ~2 GiB of toolchains and packages elsewhere. A disk that fills midway fails suites
# with ENOSPC far from the cause (it did once in CI: a fixture's write, a cache never written), so say so
# first. A warning, not a refusal: a warm target/ needs far less.
free_kib=$(df -Pk . | awk 'NR == 2 { print $4 }')
if [ -n "$free_kib" ] && [ "$free_kib" -lt $((12 * 1024 * 1024)) ]; then
  echo "test-all.sh: warning: $((free_kib / 1024 / 1024)) GiB free on this disk; a cold run needs ~10 GiB" \
    "(suites may fail with 'No space left on device')" >&2
fi

./scripts/setup.sh || { echo "setup failed" >&2; exit 1; }
export JSONRPC_ERRORS_SETUP_DONE=1

# The CLI for the other platforms (tests/platforms/build.sh: Windows built with MinGW-w64, Windows MSVC and
# both macOS targets checked) compiles in a target directory of its own, in the background from now on: it
# overlaps the suites below, several of which mostly wait (Python, npm, the guard end to end). The platform
# suite, last, waits for it, shows its output and fails if it failed.
mkdir -p target/cross
export PLATFORMS_BUILD_LOG="$PWD/target/cross/build.log"
rm -f "$PLATFORMS_BUILD_LOG.status"
(
  tests/platforms/build.sh >"$PLATFORMS_BUILD_LOG" 2>&1
  echo $? >"$PLATFORMS_BUILD_LOG.status.part" && mv "$PLATFORMS_BUILD_LOG.status.part" "$PLATFORMS_BUILD_LOG.status"
) &

failed=()
suite() {
  local name=$1; shift
  echo
  echo "==> $name"
  if ! "$@"; then failed+=("$name"); fi
}

# rustfmt over every crate; the fuzz crate has a workspace of its own, which `--all` does not reach.
fmt_check() {
  local rc=0
  cargo fmt --all --check || rc=1
  cargo fmt --manifest-path fuzz/Cargo.toml --check || rc=1
  return $rc
}

# Clippy, warnings denied, over every build the suites below make: the workspace natively with every feature
# (tests, examples and the benchmarks too: the crate bench/rust is a member, so its programs are compiled here,
# never run; the npm guard and redact modules' features are among them), the host
# library without the CLI and the native crate without axum (as tests/install's cargo projects have them),
# the guest as the component (wasm32, `component`), the npm base module (wasm32, the guest without its default
# features), and the fuzz targets.
# The fuzz crate has a workspace of its own and runs only under scripts/fuzz.sh (nightly): linted, hence
# built, here so that it cannot rot unseen when the guest's API changes.
# `--release`: what clippy compiles rather than checks (build scripts, proc macros and their dependencies:
# syn, wit-component for the host's build script, wasmtime's macros...) is then what setup's release builds
# and `cargo test --release` compile too, once for all. No code here depends on debug_assertions.
clippy_check() {
  local rc=0
  cargo clippy --quiet --release --workspace --all-targets --all-features -- -D warnings || rc=1
  cargo clippy --quiet --release -p jsonrpc-errors-host --lib --no-default-features -- -D warnings || rc=1
  cargo clippy --quiet --release -p jsonrpc-errors --lib -- -D warnings || rc=1
  cargo clippy --quiet --release -p jsonrpc-errors-guest --lib --target wasm32-unknown-unknown \
    --features component -- -D warnings || rc=1
  cargo clippy --quiet --release -p jsonrpc-errors-js --lib --target wasm32-unknown-unknown -- -D warnings || rc=1
  cargo clippy --quiet --manifest-path fuzz/Cargo.toml --bins -- -D warnings || rc=1
  return $rc
}

# The cheap gates first: seconds on a warm target, and their failures are the quickest to fix.
suite "formatting (cargo fmt --check, every crate and fuzz/)" fmt_check
suite "lints (cargo clippy -D warnings: workspace, libraries, component, npm base module, fuzz)" clippy_check
# The bindings' gates, seconds each: ruff (lints, then formatting) over the Python package, its tests, its
# setup.py and the Python benchmarks (bench/python), mypy --strict over the package (tools pinned in
# bindings/python/requirements-dev.txt, settings in its pyproject.toml), and the TypeScript compiler, strict,
# over the npm package's sources (`npm run typecheck`).
python_lint() {
  local rc=0
  (cd bindings/python && .venv/bin/ruff check --quiet src tests setup.py ../../bench/python) || rc=1
  (cd bindings/python && .venv/bin/ruff format --check --quiet src tests setup.py ../../bench/python) || rc=1
  return $rc
}
python_types() { (cd bindings/python && .venv/bin/mypy); }
ts_types() { (cd bindings/js && npm run --silent typecheck); }
suite "Python lints and formatting (ruff check, ruff format --check)" python_lint
suite "Python types (mypy --strict)" python_types
suite "TypeScript types (tsc --noEmit, strict)" ts_types
suite "generated files are fresh (cargo xtask gen --check)" cargo xtask gen --check
suite "Rust: guest library, vectors natively and through the component, host and CLI" \
  cargo test --release -p jsonrpc-errors-guest -p jsonrpc-errors-host -p jsonrpc-errors -p rust-axum-server-example
[ -x bindings/python/run-tests.sh ] && suite "Python package (wasmtime-py)" bindings/python/run-tests.sh
[ -x bindings/js/run-tests.sh ] && suite "npm package (Node, jco, headless Chromium)" bindings/js/run-tests.sh
suite "install steps: a cargo project on the host library, cargo install, scripts/dist.sh's artifacts in empty environments" \
  tests/install/run-tests.sh
suite "guard end to end: official MCP SDKs (Python, TypeScript) through jsonrpc-errors guard, and fault injection" \
  tests/guard/run-tests.sh
suite "platforms: the CLI built for Windows and checked for macOS; the Windows guard end to end under Wine" \
  tests/platforms/run-tests.sh

echo
if [ ${#failed[@]} -eq 0 ]; then
  echo "all suites passed"
else
  printf 'FAILED suite: %s\n' "${failed[@]}"
  exit 1
fi
