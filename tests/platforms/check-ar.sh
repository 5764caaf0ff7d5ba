#!/bin/sh
# The archiver the MSVC check gives cc-rs (AR_x86_64_pc_windows_msvc): there is no MSVC toolchain on this
# machine, and cc-rs archives an MSVC target's objects with `lib.exe` (its arguments: `-out:LIB`, `-nologo`,
# the objects). ring (rustls' crypto provider, for `guard --upstream`) is the dependency that archives C for
# Windows; its objects come from check-cc.sh and are empty. `cargo clippy` never links, so this writes the
# library it is asked for, empty, and the Rust code is still type-checked and linted for the target.
out=
for arg in "$@"; do
  case "$arg" in
    -out:*|-OUT:*|/out:*|/OUT:*) out=${arg#*:} ;;
  esac
done
# Anything but an archive (no `-out:`) fails, as lib.exe would with nothing to write.
[ -n "$out" ] || exit 1
: > "$out"
