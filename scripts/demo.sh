#!/usr/bin/env bash
# The main job on the bundled samples: an upstream MCP server answers with an error full of secrets, paths and a
# stack trace; jsonrpc-errors validates the client's request, sanitizes the upstream error for the client, maps a
# gate denial in two dialects and redacts a log line.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=target/release/jsonrpc-errors
[ -x "$bin" ] || { echo "run ./scripts/setup.sh first" >&2; exit 1; }

step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }

step "$bin validate --content-type 'application/json; charset=utf-8' < examples/request.json"
$bin validate --content-type 'application/json; charset=utf-8' < examples/request.json
step "$bin sanitize --dialect thoughtgate < examples/upstream-error.json"
$bin sanitize --dialect thoughtgate < examples/upstream-error.json
step "$bin map --dialect thoughtgate < examples/gate-denials.json   # several gates failed: the first gate wins"
$bin map --dialect thoughtgate < examples/gate-denials.json
step "$bin map --dialect mcp < examples/gate-denials.json"
$bin map --dialect mcp < examples/gate-denials.json
step "$bin redact < examples/server.log"
$bin redact < examples/server.log
step "$bin explain -32001 --dialect watchgate"
$bin explain -32001 --dialect watchgate
