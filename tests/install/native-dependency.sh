#!/usr/bin/env bash
# A new Rust server project depends on the native crate (`jsonrpc-errors`, native/: no WebAssembly) as the
# README says, with a path dependency, and answers a domain error as a canonical JSON-RPC error, then reads it
# back as a client. The response must be byte for byte what the CLI (the component) writes for the same kind.
#
# Built with this checkout's Cargo.lock in a target directory of its own, target/install-native: cold the first
# time, as a user's first build (~50 s on 2 cores). Not in target/ itself: a second workspace's units there
# share file names with the checkout's (serde_json with the guest's features, built for two roots) and rustc
# was handed two crates named serde_json. FRESH_TARGET_DIR=DIR builds it in DIR instead.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
target="${FRESH_TARGET_DIR:-$root/target/install-native}"
project="$(mktemp -d "${TMPDIR:-/tmp}/jsonrpc-errors-native-dep.XXXXXX")"
trap '[ -n "${KEEP:-}" ] || rm -rf "$project"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir -p "$project/src"
cat > "$project/Cargo.toml" <<TOML
[package]
name = "jsonrpc-errors-native-test"
version = "0.1.0"
edition = "2021"
publish = false

[dependencies]
jsonrpc-errors = { path = "$root/native" }
serde_json = "1"

[workspace]

$(sed -n '/^\[profile.release\]/,/^$/p' "$root/Cargo.toml")
TOML
cat > "$project/src/main.rs" <<'RUST'
use jsonrpc_errors::{Dialect, ErrorKind, JsonRpcError, Kind, Response};

fn main() {
    // Server: a domain failure answered as the canonical error for request 4.
    let body = JsonRpcError::new(ErrorKind::RateLimited { retry_after_secs: Some(30) })
        .with_id(4)
        .with_correlation_id("c-1")
        .in_dialect(Dialect::Canonical)
        .render()
        .into_string();
    println!("{body}");
    // Client: the same body read back into its kind.
    let response: Response = serde_json::from_str(&body).expect("a JSON-RPC response");
    let remote = response.into_result(Dialect::Canonical).unwrap_err();
    assert_eq!(remote.kind(), Some(Kind::RateLimited));
    println!("read back: {:?}", remote.kind());
}
RUST
cp "$root/Cargo.lock" "$project/Cargo.lock"

start=$SECONDS
status=0
CARGO_TARGET_DIR="$target" cargo build --release --manifest-path "$project/Cargo.toml" >"$project/build.log" 2>&1 || status=$?
[ "$status" = 0 ] || { cat "$project/build.log" >&2; fail "the project did not build"; }
echo "built in $((SECONDS - start)) s (target dir $target)"
tree="$(cargo tree --manifest-path "$project/Cargo.toml" -e normal --prefix none 2>/dev/null | sed 's/ .*//' | sort -u)"
for heavy in wasmtime wit-bindgen axum tokio hyper; do
  if grep -qx "$heavy" <<<"$tree"; then fail "$heavy is in the native crate's dependency tree"; fi
done
out="$("$target/release/jsonrpc-errors-native-test")"
echo "$out"
# The component's answer for the same input, through the CLI the setup built.
cli="$root/target/release/jsonrpc-errors"
want="$(echo '{"kind":"rate-limited","retry_after_secs":30,"id":4,"correlation_id":"c-1"}' | "$cli" map --dialect canonical)"
[ "$(sed -n 1p <<<"$out")" = "$want" ] || fail "the native crate's response differs from the component's: $want"
grep -qx 'read back: Some(RateLimited)' <<<"$out" || fail "the client did not read the kind back"
echo "ok: a fresh cargo project with a path dependency on native/ answers and reads back an error, as the component does"
