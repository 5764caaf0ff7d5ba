#!/usr/bin/env bash
# Installs each release artifact scripts/dist.sh built (target/dist, or DIST_DIR) into an empty environment
# and makes a call through it, as a user who downloaded it would:
#   - the CLI: unpacked into an empty folder that is all of PATH's but /usr/bin:/bin, with an empty HOME and
#     environment, away from this checkout: `jsonrpc-errors --help`, `map`, `redact`;
#   - the CLI for Windows (on Linux): unzipped, a Windows executable, and `redact` through it under Wine
#     (tests/platforms/ runs the rest of it there);
#   - the wheel: a new virtualenv, `pip install` of the wheel (wasmtime-py comes from PyPI), a call from an
#     empty folder (so nothing is imported from this checkout);
#   - the npm tarball: bindings/js/test/pack.test.mjs already installs `npm pack`'s tarball into an empty
#     project and calls it (run by bindings/js/run-tests.sh); here only its presence and name are checked.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dist="${DIST_DIR:-$root/target/dist}"
work="$(mktemp -d "${TMPDIR:-/tmp}/jsonrpc-errors-artifacts.XXXXXX")"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
one() { # the single file in $dist matching a glob
  local matches=("$dist"/$1)
  [ ${#matches[@]} = 1 ] && [ -f "${matches[0]}" ] || fail "expected one $1 in $dist (scripts/dist.sh builds them), found: ${matches[*]}"
  echo "${matches[0]}"
}

echo "--- the CLI"
start=$SECONDS
tarball="$(one 'jsonrpc-errors-*.tar.gz')"
mkdir "$work/cli" "$work/home" "$work/empty"
tar -C "$work/cli" -xzf "$tarball"
bindir="$(dirname "$(find "$work/cli" -name jsonrpc-errors -type f)")"
run() { (cd "$work/empty" && env -i PATH="$bindir:/usr/bin:/bin" HOME="$work/home" "$@"); }
[ "$(run sh -c 'command -v jsonrpc-errors')" = "$bindir/jsonrpc-errors" ] || fail "jsonrpc-errors is not found on PATH"
help="$(run jsonrpc-errors --help)"
for word in map validate redact sanitize explain lookup guard codes canonical thoughtgate mcp a2a Examples; do
  grep -q "$word" <<<"$help" || fail "jsonrpc-errors --help does not mention $word"
done
got="$(run sh -c "echo '{\"kind\":\"tool-not-exposed\",\"tool\":\"admin_delete\",\"id\":1,\"correlation_id\":\"c-1\"}' | jsonrpc-errors map --dialect thoughtgate")"
want='{"jsonrpc":"2.0","error":{"code":-32015,"message":"Tool '"'"'admin_delete'"'"' is not available","data":{"correlation_id":"c-1","gate":"visibility","tool":"admin_delete"}},"id":1}'
[ "$got" = "$want" ] || fail "jsonrpc-errors map: got $got"
got="$(run sh -c "echo 'password=hunter2' | jsonrpc-errors redact")"
[ "$got" = "password=[REDACTED:secret-assignment]" ] || fail "jsonrpc-errors redact: got $got"
echo "ok: $(basename "$tarball") unpacked into an empty PATH folder answers --help, map and redact ($((SECONDS - start)) s)"

if [ "$(uname -s)" = Linux ]; then
  echo "--- the CLI for Windows"
  start=$SECONDS
  zip="$(one 'jsonrpc-errors-*-x86_64-pc-windows-gnu.zip')"
  mkdir "$work/windows"
  python3 -m zipfile -e "$zip" "$work/windows"
  exe="$(find "$work/windows" -name jsonrpc-errors.exe -type f)"
  [ -n "$exe" ] || fail "$(basename "$zip") has no jsonrpc-errors.exe"
  [ "$(head -c 2 "$exe")" = MZ ] || fail "$(basename "$zip"): jsonrpc-errors.exe is no Windows executable"
  # Run under Wine (tests/platforms/wine-env.sh: Wine 8 needs a ProcessPrng shim beside the executable,
  # which Windows 10 has), when tests/platforms/setup.sh installed it.
  if command -v x86_64-w64-mingw32-gcc >/dev/null && { [ -x /usr/lib/wine/wine64 ] || command -v wine64 >/dev/null; }; then
    # shellcheck source=../platforms/wine-env.sh
    . "$root/tests/platforms/wine-env.sh"
    wine_shim "$(dirname "$exe")"
    got="$(echo 'password=hunter2' | "$WINE" "$exe" redact | tr -d '\r')"
    wine_stop
    [ "$got" = "password=[REDACTED:secret-assignment]" ] || fail "jsonrpc-errors.exe redact under Wine: got $got"
    echo "ok: $(basename "$zip") holds jsonrpc-errors.exe, which answers redact under Wine ($((SECONDS - start)) s)"
  else
    echo "ok: $(basename "$zip") holds jsonrpc-errors.exe (not run: no Wine; tests/platforms/setup.sh installs it)"
  fi
fi

echo "--- the Python wheel"
start=$SECONDS
wheel="$(one 'jsonrpc_errors-*-py3-none-any.whl')"
python3 -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet --disable-pip-version-check "$wheel"
got="$(cd "$work/empty" && "$work/venv/bin/python" -c '
import json, jsonrpc_errors as jre
r = jre.map_error({"kind": "policy-denied", "tool": "transfer_funds", "id": 3, "correlation_id": "c-1"}, dialect="thoughtgate")
print(json.dumps([r["error"]["code"], r["id"], jre.redact("password=hunter2"), jre.__file__.startswith("'"$work/venv"'")]))
')"
[ "$got" = '[-32003, 3, "password=[REDACTED:secret-assignment]", true]' ] || fail "the wheel's call: got $got"
echo "ok: $(basename "$wheel") installed into a new virtualenv maps and redacts ($((SECONDS - start)) s)"

echo "--- the npm tarball"
npm_tgz="$(one 'jsonrpc-errors-*.tgz')"
listing="$(tar -tzf "$npm_tgz")"
grep -qx 'package/dist/node.js' <<<"$listing" || fail "$(basename "$npm_tgz") has no package/dist/node.js"
echo "ok: $(basename "$npm_tgz") (installed into an empty project and called by bindings/js/test/pack.test.mjs)"

echo "--- checksums"
(cd "$dist" && sha256sum --quiet -c SHA256SUMS) || fail "SHA256SUMS does not match"
echo "ok: SHA256SUMS"
