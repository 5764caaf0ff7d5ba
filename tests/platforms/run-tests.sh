#!/usr/bin/env bash
# The platform suite: builds and checks the CLI for Windows and macOS (build.sh), then runs the Windows build
# under Wine: its unit tests (the platform seam's: `proxy::platform`), then the stdio guard's end-to-end
# subset against the Windows test server (test_windows.py, pytest with the project's virtualenv).
#
# PLATFORMS_BUILD_LOG=FILE: build.sh has been started already, its output going to FILE and its exit status
# to FILE.status when it ends (scripts/test-all.sh starts it in the background early); this waits for it
# and shows its output. Extra arguments go to pytest (e.g. -k crash, -x).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
py="$root/bindings/python/.venv/bin/python"
out="$root/target/cross/x86_64-pc-windows-gnu/release"

"$here/setup.sh" || { echo "run-tests.sh: tests/platforms/setup.sh failed" >&2; exit 1; }

if [ -n "${PLATFORMS_BUILD_LOG:-}" ]; then
  while [ ! -f "$PLATFORMS_BUILD_LOG.status" ]; do sleep 2; done
  cat "$PLATFORMS_BUILD_LOG"
  built="$(cat "$PLATFORMS_BUILD_LOG.status")"
else
  "$here/build.sh"
  built=$?
fi
failed=()
[ "$built" = 0 ] || failed+=("the builds and checks (build.sh)")

# shellcheck source=wine-env.sh
. "$here/wine-env.sh"
if [ -f "$out/platform-unit-tests.exe" ]; then
  echo "==> Windows unit tests under Wine: the platform seam (proxy::platform)"
  "$WINE" "$out/platform-unit-tests.exe" proxy::platform || failed+=("Windows unit tests")
  echo "==> the Windows guard end to end under Wine (pytest)"
  (cd "$here" && PYTHONDONTWRITEBYTECODE=1 "$py" -m pytest -q -rfE "$@") || failed+=("Windows end to end")
else
  failed+=("Windows tests: $out/platform-unit-tests.exe was not built")
fi
wine_stop

if [ ${#failed[@]} -gt 0 ]; then
  printf 'FAILED platform suite: %s\n' "${failed[@]}" >&2
  exit 1
fi
