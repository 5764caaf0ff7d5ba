#!/usr/bin/env bash
# Runs every client × server combination directly (no guard in between), with tee_stdio.py recording
# the raw wire, and prints one summary line per combination.
#   tests/guard/tools/observe.sh OUT_DIR [CLIENT_OPTIONS...]      e.g. --only sleep,echo --sleep-ms 3000
# Writes OUT_DIR/<c>-client_<s>-server.{out,err,wire.jsonl}: the client's step lines, everyone's stderr,
# and the wire log. Run tests/guard/setup.sh first.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
py="${PY:-$root/bindings/python/.venv/bin/python}"
out="${1:?usage: observe.sh OUT_DIR [CLIENT_OPTIONS...]}"
shift
mkdir -p "$out"

server() {
  case "$1" in
    py) echo "$py $root/examples/guard/misbehaving_server.py" ;;
    ts) echo "node $root/tests/guard/servers/ts_server.mjs" ;;
  esac
}
client() {
  case "$1" in
    py) echo "$py $root/tests/guard/clients/py_client.py" ;;
    ts) echo "node $root/tests/guard/clients/ts_client.mjs" ;;
  esac
}

for c in py ts; do
  for s in py ts; do
    name="$c-client_$s-server"
    rm -f "$out/$name.wire.jsonl"
    rc=0
    # shellcheck disable=SC2046 # the commands are word lists on purpose
    $(client "$c") "$@" -- "$py" "$here/tee_stdio.py" --log "$out/$name.wire.jsonl" -- $(server "$s") \
      >"$out/$name.out" 2>"$out/$name.err" || rc=$?
    outcomes="$("$py" -c 'import json,sys; print(*(d["step"] + "=" + d["outcome"] for d in map(json.loads, open(sys.argv[1]))))' "$out/$name.out")"
    echo "$name exit=$rc $outcomes"
  done
done
