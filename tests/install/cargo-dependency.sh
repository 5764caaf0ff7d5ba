#!/usr/bin/env bash
# A new Rust project depends on the host library as the README says (a path dependency, default-features =
# false: no CLI dependencies), builds, and maps an error through the component: the host's build script builds
# the component from the guest's sources, as it does for any project outside this checkout.
#
# The project lives in a temp dir and is built in this checkout's target/ (CARGO_TARGET_DIR) with this
# checkout's Cargo.lock as its starting point and its release profile: wasmtime (the one
# jsonrpc-errors-precompile was built with, whose dependencies mirror the library's for this) and the guest's
# wasm build are units `cargo xtask build` already built, so the test costs the host library's compile (~1 min,
# once) and a link, not a wasmtime build (~7-10 min on 2 cores). FRESH_TARGET_DIR=DIR builds it in DIR instead
# (cold, as a user's first build).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
target="${FRESH_TARGET_DIR:-$root/target}"
project="$(mktemp -d "${TMPDIR:-/tmp}/jsonrpc-errors-cargo-dep.XXXXXX")"
trap 'rm -rf "$project"' EXIT

mkdir -p "$project/src"
cat > "$project/Cargo.toml" <<TOML
[package]
name = "jsonrpc-errors-dependency-test"
version = "0.1.0"
edition = "2021"
publish = false

[dependencies]
jsonrpc-errors-host = { path = "$root/host", default-features = false }

[workspace]

# The workspace's release profile (a profile setting is part of every unit's identity: with cargo's defaults
# instead, wasmtime would be built again).
$(sed -n '/^\[profile.release\]/,/^$/p' "$root/Cargo.toml")
TOML
cat > "$project/src/main.rs" <<'RUST'
use jsonrpc_errors_host::{Context, Runtime};

fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let rt = Runtime::new(std::env::vars().collect())?;
    let response = rt.map_error(r#"{"kind":"rate-limited","retry_after_secs":30,"id":4,"correlation_id":"c-1"}"#, "canonical", Context::now())?;
    println!("{response}");
    // Bad input is a value: the JSON-RPC error object.
    let refused = rt.map_error(r#"{"kind":"no-such-kind"}"#, "canonical", Context::now()).unwrap_err();
    println!("{}", refused.to_json());
    Ok(())
}
RUST
cp "$root/Cargo.lock" "$project/Cargo.lock"

start=$SECONDS
status=0
CARGO_TARGET_DIR="$target" cargo build --release --manifest-path "$project/Cargo.toml" >"$project/build.log" 2>&1 || status=$?
grep -E '^ *(Compiling|Finished)' "$project/build.log" || true
[ "$status" = 0 ] || { cat "$project/build.log" >&2; echo "FAIL: the project did not build" >&2; exit 1; }
echo "built in $((SECONDS - start)) s (target dir $target)"
if [ -z "${FRESH_TARGET_DIR:-}" ] && grep -q 'Compiling wasmtime ' "$project/build.log"; then
  echo "warning: wasmtime was compiled for this project: the library's dependency features no longer match" \
       "host/precompile's (cargo tree -e features), and this test costs a wasmtime build" >&2
fi
tree="$(cargo tree --manifest-path "$project/Cargo.toml" -e normal --prefix none 2>/dev/null | sed 's/ .*//' | sort -u)"
out="$(cd "$project" && "$target/release/jsonrpc-errors-dependency-test")"
echo "$out"

fail() { echo "FAIL: $*" >&2; exit 1; }
expected='{"jsonrpc":"2.0","error":{"code":-32009,"message":"Rate limited","data":{"type":"rate-limited","category":"transient","retryable":true,"correlation_id":"c-1","retry_after_secs":30,"details":"Retry after 30s"}},"id":4}'
[ "$(sed -n 1p <<<"$out")" = "$expected" ] || fail "unexpected response"
grep -q '"code":-32602' <<<"$(sed -n 2p <<<"$out")" && grep -q '"unknown-kind"' <<<"$out" || fail "an unknown kind was not refused with -32602 unknown-kind"
for cli_dep in clap tokio hyper axum tracing-subscriber prometheus-client; do
  if grep -qx "$cli_dep" <<<"$tree"; then fail "$cli_dep is in the dependency tree with default-features = false"; fi
done
echo "ok: a fresh cargo project with a path dependency on host (default-features = false) maps an error"

# Without the wasm32 target the build stops with the command that installs it: the host's build script, run
# as cargo runs it, with a compiler whose sysroot (a rustup toolchain's) lacks the target.
script="$(CARGO_TARGET_DIR="$target" cargo build --release --quiet --message-format=json --manifest-path "$project/Cargo.toml" \
  | python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["kind"] == ["custom-build"] and "jsonrpc-errors-host" in m["package_id"]:
        print(m["filenames"][0])')"
[ -x "$script" ] || fail "the host's build script was not found in cargo's messages"
mkdir -p "$project/toolchains/nightly-test/lib/rustlib" "$project/out"
printf '#!/bin/sh\necho %s\n' "$project/toolchains/nightly-test" > "$project/rustc" && chmod +x "$project/rustc"
status=0
message="$(env OUT_DIR="$project/out" CARGO_MANIFEST_DIR="$root/host" RUSTC="$project/rustc" CARGO=cargo "$script" 2>&1 >/dev/null)" || status=$?
[ "$status" = 1 ] || fail "the build script exited $status without the wasm32 target"
grep -qF 'rustup target add wasm32-unknown-unknown --toolchain nightly-test' <<<"$message" \
  || fail "the build script did not say how to install the target: $message"
echo "ok: without the wasm32 target the build says: rustup target add wasm32-unknown-unknown --toolchain nightly-test"
