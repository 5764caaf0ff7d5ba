#!/usr/bin/env bash
# Installs what the guard's end-to-end fixtures need (idempotent):
#   mcp==2.3.0 into the project's virtualenv (bindings/python/.venv, created if missing), and
#   the pinned TypeScript SDK and the A2A JS SDK into tests/guard/node_modules (a2a-sdk, the A2A Python SDK,
#   comes with requirements.txt);
#   for the real-peer tests (real/README.md): mcp-server-time, -fetch and -git into the same virtualenv
#   (real/requirements.txt), and into tests/guard/real/node_modules the reference servers, supergateway,
#   the conformance suite and Node 22 (npm `node`), pinned by real/package-lock.json;
#   Debian's haproxy, for the replicas-behind-a-load-balancer test (test_haproxy.py).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="$root/bindings/python/.venv"

if [ ! -x "$venv/bin/python" ]; then
  "${PYTHON:-python3}" -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet -r "$here/requirements.txt" -r "$here/real/requirements.txt"

cd "$here"
"$root/scripts/npm-install.sh"

# real/: reinstalled only when its lock file changed since the last install (npm ci starts from scratch).
cd "$here/real"
stamp=node_modules/.installed-from-lock
if [ ! -f "$stamp" ] || ! cmp -s package-lock.json "$stamp" || [ ! -x node_modules/node/bin/node ]; then
  "$root/scripts/npm-install.sh"
  # npm `node` puts the Node 22 binary in place from its install script (allowed in package.json's
  # allowScripts); run it again if this npm skipped it.
  if ! node_modules/node/bin/node --version >/dev/null 2>&1; then
    npm rebuild node --foreground-scripts
  fi
  cp package-lock.json "$stamp"
fi
node22="$(node_modules/node/bin/node --version)"
[ "$node22" = "v22.23.3" ] || { echo "setup.sh: tests/guard/real has Node $node22, not v22.23.3" >&2; exit 1; }

# HAProxy from Debian's packages (examples/guard-http/haproxy.cfg, test_haproxy.py).
if [ ! -x /usr/sbin/haproxy ] && ! command -v haproxy >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq haproxy
  else
    echo "setup.sh: no apt-get: install haproxy yourself for test_haproxy.py (it is skipped without it)" >&2
  fi
fi
