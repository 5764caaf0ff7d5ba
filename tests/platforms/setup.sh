#!/usr/bin/env bash
# Installs what the platform tests need (idempotent): the Rust standard libraries of the other targets
# (rustup), and from Debian's packages the MinGW-w64 cross toolchain (the Windows GNU target's linker) and
# Wine (a Windows runtime: the Windows build's end-to-end tests run under it).
set -euo pipefail

rustup target add x86_64-pc-windows-gnu x86_64-pc-windows-msvc x86_64-apple-darwin aarch64-apple-darwin >/dev/null

missing=()
command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 || missing+=(gcc-mingw-w64-x86-64)
[ -x /usr/lib/wine/wine64 ] || command -v wine64 >/dev/null 2>&1 || missing+=(wine64)
if [ ${#missing[@]} -gt 0 ]; then
  if command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "tests/platforms/setup.sh: no apt-get: install ${missing[*]} yourself" >&2
    exit 1
  fi
fi
