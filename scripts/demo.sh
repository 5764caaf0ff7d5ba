#!/usr/bin/env bash
# The main job on the bundled default: `jsonrpc-errors guard` between a real MCP client and a real MCP server
# that misbehaves on purpose (both on the official Python SDK). The same scripted session runs straight and
# through the guard; for each call it shows what the client saw both ways. Then the library's own functions
# on the bundled samples. Run ./scripts/setup.sh first.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=target/release/jsonrpc-errors
python=bindings/python/.venv/bin/python
[ -x "$bin" ] && [ -x "$python" ] || { echo "run ./scripts/setup.sh first" >&2; exit 1; }

"$python" examples/guard/demo.py --guard "$bin"

step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }
printf '\n\033[1mThe same functions, one at a time, on the bundled samples\033[0m\n'
step "$bin validate --content-type 'application/json; charset=utf-8' < examples/request.json"
$bin validate --content-type 'application/json; charset=utf-8' < examples/request.json
step "$bin sanitize --dialect thoughtgate < examples/upstream-error.json"
$bin sanitize --dialect thoughtgate < examples/upstream-error.json
step "$bin map --dialect thoughtgate < examples/gate-denials.json   # several gates failed: the first gate wins"
$bin map --dialect thoughtgate < examples/gate-denials.json
step "$bin redact < examples/server.log"
$bin redact < examples/server.log
