#!/usr/bin/env bash
# Every benchmark, from one place (bench/; bench/README.md says what each measures and what "good" looks like):
#
#   ./scripts/bench.sh                    # the usual report: host guard python js policy
#   ./scripts/bench.sh NAME ...           # the named ones, in the order given
#   ./scripts/bench.sh NAME -- ARGS ...   # one benchmark, ARGS passed to it (e.g. guard -- --requests 20000)
#   ./scripts/bench.sh all                # every one
#   ./scripts/bench.sh --list             # the names
#
# Run after ./scripts/setup.sh (the CLI, the Python venv, the npm package's dist). Benchmarks measure; they are
# not tests, and the test command never runs them (it compiles the Rust ones: clippy --all-targets). Machines
# are shared and noisy: each benchmark prints ratios measured within its own run; read those.
set -euo pipefail
cd "$(dirname "$0")/.."

benchmarks=(
  "host|Rust: per-call map native vs the component, CLI start, component size, redaction MB/s, recall"
  "guard|the guard's load: 100k requests, 64 in flight, direct vs jsonrpc-errors guard (vs gatekit)"
  "http|the HTTP front's load: guard --listen vs supergateway vs mcp-proxy (installs both, pinned)"
  "upstream|guard --upstream (stdio and --listen) vs mcp-remote vs supergateway, the same server at a URL"
  "guard-calls|where the stdio guard's CPU per message goes: the session natively, its JSON, through the component"
  "rules|where redaction spends its time on secret-dense text, rule by rule (native)"
  "redaction-peers|redaction vs the gateways' redactors (cpex-*, detect-secrets, Presidio, secretlint; installs them, pinned)"
  "policy|the policy file's results scope vs the default scope through the CLI guard"
  "python|Python (wasmtime-py): cold start, per call, redaction on the shared logs"
  "python-calls|Python: each call path's cost (fast C-API path vs wasmtime-py's public API)"
  "python-mcp|Python MCP adapter: per-message overhead vs the bare SDK, and the event-loop stall"
  "python-stall|Python MCP adapter: the event-loop stall alone while a 10 MB message passes each way"
  "js|Node (wasm-bindgen): .wasm size, mapError vs plain JS, redaction vs JS RegExps and peers"
  "js-mcp|Node MCP adapter: what GuardedTransport adds per message, transport and SDK level"
  "js-lines|Node MCP adapter: the lone-surrogate check per line (typical lines and a 10 MB one)"
)
default=(host guard python js policy)

list() {
  local entry
  for entry in "${benchmarks[@]}"; do printf '  %-13s %s\n' "${entry%%|*}" "${entry#*|}"; done
}

py=bindings/python/.venv/bin/python
need_cli() {
  if [ ! -x target/release/jsonrpc-errors ]; then
    echo "bench.sh: target/release/jsonrpc-errors is missing; building it (cargo xtask build)" >&2
    cargo xtask build
  fi
}
need_python() {
  [ -x "$py" ] || { echo "bench.sh: $py is missing: run ./scripts/setup.sh" >&2; return 1; }
}
# The npm package as a user installs it (bench/js links bindings/js), built.
need_js() {
  [ -d bindings/js/dist ] || { echo "bench.sh: bindings/js/dist is missing: run ./scripts/setup.sh" >&2; return 1; }
  [ -d bench/js/node_modules ] || (cd bench/js && ../../scripts/npm-install.sh > /dev/null)
}
# The redactors and the bridge the benchmarks compare with, pinned by bench/peers/package-lock.json.
need_peers() { (cd bench/peers && ../../scripts/npm-install.sh > /dev/null); }
rust_bench() { cargo run --release -q -p jsonrpc-errors-bench --bin "$@"; }

run() {
  local name=$1; shift
  case "$name" in
    host) rust_bench bench -- "$@" ;;
    guard)
      # direct vs `jsonrpc-errors guard` (target/release/jsonrpc-errors) on the same stdio server, rounds
      # alternating. A third column, the gatekit gateway, runs when GUARD_BENCH_GATEKIT names its command, e.g.
      #   python3 -m venv /tmp/gatekit-venv && /tmp/gatekit-venv/bin/pip install gatekit==0.3.0
      #   GUARD_BENCH_GATEKIT=/tmp/gatekit-venv/bin/gatekit-gateway ./scripts/bench.sh guard
      need_cli
      if [ $# -eq 0 ]; then set -- --requests 100000 --window 64; fi
      rust_bench guard_bench -- "$@" ;;
    http)
      # supergateway by bench/peers/package-lock.json, mcp-proxy and its SDK by bench/http/requirements.txt
      # into target/bench/mcp-proxy-venv. E.g. `http -- --requests 5000 --clients 16` for a quick run.
      need_cli
      need_peers
      local venv=target/bench/mcp-proxy-venv
      if [ ! -x "$venv/bin/mcp-proxy" ]; then
        python3 -m venv "$venv"
        "$venv/bin/python" -m pip install -q --disable-pip-version-check -r bench/http/requirements.txt
      fi
      rust_bench http_bench -- "$@" ;;
    upstream)
      # A server at a URL (http_bench's echo server) reached directly, through `guard --upstream` (stdio front,
      # and --listen), mcp-remote 0.15.1 and supergateway's Streamable HTTP client mode (bench/peers), one load
      # generator, one run. E.g. `upstream -- --requests 5000 --clients 1` for the added latency alone.
      need_cli
      need_peers
      rust_bench http_bench -- --targets echo,up-guard-stdio,up-guard-listen,up-mcp-remote,up-supergateway "$@" ;;
    guard-calls) rust_bench guard_calls -- "$@" ;;
    rules) rust_bench rule_costs -- "$@" ;;
    redaction-peers)
      # The Python redactors by bench/peers/requirements-redaction.txt into target/bench/redaction-peers-venv,
      # secretlint by bench/peers/package-lock.json. `redaction-peers -- --skip-slow` leaves detect-secrets and
      # Presidio out of the corpora (minutes each); `-- --peers cpex,secretlint --rounds 5` picks and repeats.
      need_peers
      local venv=target/bench/redaction-peers-venv
      if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -m pip freeze 2>/dev/null | grep -q '^cpex-secrets-detection==0.3.14$'; then
        python3 -m venv "$venv"
        "$venv/bin/python" -m pip install -q --disable-pip-version-check -r bench/peers/requirements-redaction.txt
      fi
      rust_bench redaction_peers -- "$@" ;;
    policy)
      # JSONRPC_ERRORS_BIN names another CLI binary; `policy -- --quick` for a short run.
      local bin="${JSONRPC_ERRORS_BIN:-$PWD/target/release/jsonrpc-errors}"
      [ -n "${JSONRPC_ERRORS_BIN:-}" ] || need_cli
      local python="$py"
      [ -x "$python" ] || python="$(command -v python3)"
      "$python" bench/python/bench_policy.py --guard "$bin" "$@" ;;
    python) need_python && "$py" bench/python/bench.py "$@" ;;
    python-calls) need_python && "$py" bench/python/bench_call_paths.py "$@" ;;
    python-mcp) need_python && "$py" bench/python/bench_mcp.py "$@" ;;
    python-stall) need_python && "$py" bench/python/bench_mcp.py --stall-only "$@" ;;
    js)
      need_js
      # The redactors a Node user might pick instead (redact-pii, @arcjet/redact): bench-only, never a dependency.
      need_peers || echo "(bench/peers not installed: the Node peers are skipped)"
      node bench/js/bench.mjs "$@" ;;
    js-mcp) need_js && node bench/js/bench-mcp.mjs "$@" ;;
    js-lines) need_js && node bench/js/bench-lines.mjs "$@" ;;
  esac
}

names=()
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --list|-l) list; exit 0 ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; echo; list; exit 0 ;;
    --) shift; args=("$@"); break ;;
    all) for entry in "${benchmarks[@]}"; do names+=("${entry%%|*}"); done; shift ;;
    *) names+=("$1"); shift ;;
  esac
done
[ ${#names[@]} -gt 0 ] || names=("${default[@]}")
if [ ${#args[@]} -gt 0 ] && [ ${#names[@]} -ne 1 ]; then
  echo "bench.sh: arguments after -- go to one benchmark; name exactly one" >&2
  exit 2
fi

# Every name checked before anything runs: a typo fails at once, not after the benchmarks before it.
describe() {
  local entry
  for entry in "${benchmarks[@]}"; do
    if [ "${entry%%|*}" = "$1" ]; then echo "${entry#*|}"; return 0; fi
  done
  return 1
}
for name in "${names[@]}"; do
  describe "$name" > /dev/null || { echo "bench.sh: no benchmark named $name; the names:" >&2; list >&2; exit 2; }
done

for name in "${names[@]}"; do
  echo; echo "### $name: $(describe "$name")"
  run "$name" ${args[@]+"${args[@]}"}
done
