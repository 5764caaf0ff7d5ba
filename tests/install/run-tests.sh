#!/usr/bin/env bash
# The README's install steps, tested (issue 28):
#   - cargo-dependency.sh: a new cargo project with a path dependency on the host library builds and calls it;
#   - native-dependency.sh: a new cargo project with a path dependency on the native crate answers an error
#     and reads it back, byte for byte as the component;
#   - `cargo install --locked --path host` installs a CLI that runs;
#   - scripts/dist.sh builds the release artifacts (CLI, wheel, npm tarball, component) into target/dist;
#   - artifacts.sh installs each into an empty environment and calls it.
# Exit status: non-zero if any step failed.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# scripts/test-all.sh has just run the setup; a direct call sets up first.
if [ "${JSONRPC_ERRORS_SETUP_DONE:-0}" != 1 ]; then
  "$root/scripts/setup.sh" || exit 1
  export JSONRPC_ERRORS_SETUP_DONE=1
fi

failed=()
step() {
  local name=$1; shift
  local start=$SECONDS
  echo "==> $name"
  if "$@"; then echo "($name: $((SECONDS - start)) s)"; else failed+=("$name"); fi
}
# The README's install line for the CLI, into a folder of its own (cargo builds it in target/, where
# `cargo xtask build` already did: a copy, unless the sources changed since).
cargo_install() {
  local dest
  dest="$(mktemp -d "${TMPDIR:-/tmp}/jsonrpc-errors-install.XXXXXX")"
  cargo install --quiet --locked --path "$root/host" --root "$dest" \
    && "$dest/bin/jsonrpc-errors" --help | grep -q '^Dialects' \
    && [ "$(echo 'password=hunter2' | "$dest/bin/jsonrpc-errors" redact)" = 'password=[REDACTED:secret-assignment]' ]
  local status=$?
  rm -rf "$dest"
  return $status
}
step "a fresh cargo project depends on the host library" "$here/cargo-dependency.sh"
step "a fresh cargo project depends on the native crate" "$here/native-dependency.sh"
step "cargo install --locked --path host: the CLI" cargo_install
step "scripts/dist.sh: the release artifacts" "$root/scripts/dist.sh"
step "each artifact installs into an empty environment and runs" "$here/artifacts.sh"

if [ ${#failed[@]} -gt 0 ]; then
  printf 'FAILED install step: %s\n' "${failed[@]}" >&2
  exit 1
fi
