#!/bin/sh
# The C compiler the Apple and MSVC checks give cc-rs (CC_<target>): there is no Apple SDK and no MSVC on this
# machine, so the C parts of dependencies cannot be compiled for those targets (wasmtime's helpers.c: a
# weak-symbol probe for libunwind; ring's C and assembly, rustls' crypto provider for `guard --upstream`; MSVC's
# archiver is check-ar.sh). `cargo clippy` never links, so what they compile to does not matter to it: this preprocesses
# with the system's gcc when asked (cc-rs asks which compiler family it has), and otherwise answers every
# compile with an empty object file. Everything Rust, every dependency's included, is still type-checked
# and linted for the target.
for arg in "$@"; do
  [ "$arg" = -E ] && exec gcc "$@"
done
out= compile=
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out=$2; shift ;;
    -c) compile=1 ;;
  esac
  shift
done
# Anything but a compile (cc-rs probing for MSVC's `-?`, say) fails, as it would with a real gcc.
[ -n "$compile" ] && [ -n "$out" ] || exit 1
: > "$out"
