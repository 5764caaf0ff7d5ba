# Sourced (bash): the environment the Windows executables run in under Wine, and its prefix, made once.
#   WINE          Wine's 64-bit loader
#   WINEPREFIX    target/cross/wine-prefix: the C: drive and registry of this checkout's Windows runs
#   WINEDEBUG     quiet; WINEDLLOVERRIDES: no Mono or Gecko (nothing here needs them, their installers would ask)
# Each Windows executable also needs the ProcessPrng shim beside it (wine/bcryptprimitives.c: Wine 8 lacks
# bcryptprimitives.dll, which Rust programs for Windows import); wine_shim DIR builds it there. wine_stop ends
# the prefix's processes.
_platforms="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WINE=/usr/lib/wine/wine64
[ -x "$WINE" ] || WINE="$(command -v wine64 || command -v wine || echo wine64)"
export WINE
export WINEPREFIX="$(cd "$_platforms/../.." && pwd)/target/cross/wine-prefix"
export WINEDEBUG=-all
export WINEDLLOVERRIDES="mscoree,mshtml="
_wineserver="$(dirname "$WINE")/wineserver"
[ -x "$_wineserver" ] || _wineserver=wineserver
if [ ! -f "$WINEPREFIX/system.reg" ]; then
  mkdir -p "$WINEPREFIX"
  echo "==> a Wine prefix (once): $WINEPREFIX"
  "$WINE" wineboot --init >/dev/null 2>&1 || true
  # Until the services wineboot started have finished setting the prefix up and left.
  "$_wineserver" -w >/dev/null 2>&1 || true
fi
# One wineserver for the prefix, started here with its output discarded (else the first Windows process starts
# it, with that process's stdout and stderr, where it reports on its exit), gone 5 s after its last process.
"$_wineserver" -p5 </dev/null >/dev/null 2>&1 || true
wine_shim() {
  x86_64-w64-mingw32-gcc -O2 -shared -s -o "$1/bcryptprimitives.dll" \
    "$_platforms/wine/bcryptprimitives.c" "$_platforms/wine/bcryptprimitives.def" -ladvapi32
}
wine_stop() {
  "$_wineserver" -k >/dev/null 2>&1 || true
}
