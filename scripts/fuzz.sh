#!/usr/bin/env bash
# Fuzzes the guest's api boundary with cargo-fuzz (libFuzzer), outside the normal test run: see fuzz/README.md.
#
#   scripts/fuzz.sh [TARGET ...] [-- LIBFUZZER_ARGS]
#   scripts/fuzz.sh isolation
#
# Installs what it needs (the nightly toolchain, cargo-fuzz) when missing, seeds every corpus from
# tests/vectors, then runs each TARGET (default: all) in turn, one process at a time, for -runs=10000000,
# with -rss_limit_mb=2048 and -timeout=10 (programs: also -max_len=1024). LIBFUZZER_ARGS come last, so they
# override (e.g. -- -runs=100000).
# Per target it prints the executions, exec/s, new coverage and what was found; the exit status is 1 when
# anything was.
#
# `isolation` is no libFuzzer target: it runs tests/guard/isolation_model.py (the HTTP front attacked by hostile
# clients and a hostile server, issue 34) seed after seed for FUZZ_MAX_TIME seconds (default 600), or for
# ISOLATION_ITERATIONS runs; ISOLATION_FAMILY (default mixed) and ISOLATION_SEED (default: from the clock) choose
# what runs. It needs target/release/jsonrpc-errors and tests/guard/setup.sh's fixtures, not the nightly
# toolchain; every seed that found something is printed with its violations (rerun one with
# `python tests/guard/isolation_model.py --family F --seed N -v`).
#
# Environment:
#   FUZZ_MAX_TIME=SECS   cap each target's run (-max_total_time=SECS)
#   FUZZ_SANITIZER=NAME  cargo-fuzz sanitizer (default: none, see fuzz/README.md; address for ASan)
#   FUZZ_TRACE_COMPARES=0  build without comparison tracing (cargo fuzz --no-trace-compares): about 3x the
#                        executions per second, without libFuzzer's comparison-guided mutations (fuzz/README.md)
#   FUZZ_KNOWN=a,b       checks for findings already reported that the targets skip (see fuzz/README.md)
#   ISOLATION_ITERATIONS=N, ISOLATION_FAMILY=F, ISOLATION_SEED=N   the isolation model's runs (see above)
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
ALL=(validate map sanitize redact redact_json lookup guard programs)
# Never the main target directory: a fuzz build must not wait for (or invalidate) the normal build's lock.
export CARGO_TARGET_DIR="$ROOT/target/fuzz"
SANITIZER=${FUZZ_SANITIZER:-none}
build_flags=()
if [ "${FUZZ_TRACE_COMPARES:-1}" = 0 ]; then
    # A build of its own, so switching between the two never rebuilds the other.
    export CARGO_TARGET_DIR="$ROOT/target/fuzz-no-trace-compares"
    build_flags=(--no-trace-compares)
fi

targets=()
extra=()
isolation=0
while [ $# -gt 0 ]; do
    case "$1" in
        --) shift; extra=("$@"); break ;;
        -h | --help) sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        isolation) isolation=1 ;;
        *)
            if [[ " ${ALL[*]} " != *" $1 "* ]]; then
                echo "unknown target '$1' (targets: ${ALL[*]})" >&2
                exit 2
            fi
            targets+=("$1")
            ;;
    esac
    shift
done

# The isolation model: real processes on loopback, no libFuzzer (so nothing of the nightly toolchain is needed).
if [ "$isolation" = 1 ]; then
    if [ ${#targets[@]} -gt 0 ]; then
        echo "isolation runs alone (not with libFuzzer targets: ${targets[*]})" >&2
        exit 2
    fi
    py=bindings/python/.venv/bin/python
    [ -x target/release/jsonrpc-errors ] || { echo "target/release/jsonrpc-errors is missing: cargo xtask build" >&2; exit 2; }
    "$py" -c 'import mcp' 2>/dev/null || tests/guard/setup.sh
    mkdir -p fuzz/logs
    log="fuzz/logs/isolation-$(date +%Y%m%dT%H%M%S).log"
    run=(--family "${ISOLATION_FAMILY:-mixed}")
    [ -z "${ISOLATION_SEED:-}" ] || run+=(--seed "$ISOLATION_SEED")
    if [ -n "${ISOLATION_ITERATIONS:-}" ]; then
        run+=(--iterations "$ISOLATION_ITERATIONS")
    else
        run+=(--seconds "${FUZZ_MAX_TIME:-600}")
    fi
    echo "== the isolation model: ${run[*]} (log: $log)"
    set +e
    "$py" tests/guard/isolation_model.py "${run[@]}" 2>&1 | tee "$log"
    status=${PIPESTATUS[0]}
    set -e
    echo
    echo "== summary"
    grep -E '^isolation model: [0-9]+ runs' "$log" || echo "isolation model: did not finish (exit $status; see $log)"
    exit "$status"
fi
[ ${#targets[@]} -gt 0 ] || targets=("${ALL[@]}")

if ! rustup toolchain list | grep -q '^nightly'; then
    rustup toolchain install nightly --profile minimal
fi
if ! cargo fuzz --version > /dev/null 2>&1; then
    cargo install cargo-fuzz --locked
fi

fuzz=(cargo +nightly fuzz)
build=(-s "$SANITIZER" "${build_flags[@]}" --target-dir "$CARGO_TARGET_DIR")
echo "== building the fuzz targets (nightly, sanitizer: $SANITIZER${build_flags:+, ${build_flags[*]}})"
"${fuzz[@]}" build "${build[@]}"
echo "== seeding the corpora from tests/vectors"
cargo +nightly run --quiet --release --manifest-path fuzz/Cargo.toml --example seed

# One process per target (no -jobs/-workers: libFuzzer's default; -jobs=1 would only redirect the output).
args=(-runs=10000000 -rss_limit_mb=2048 -timeout=10 -print_final_stats=1)
if [ -n "${FUZZ_MAX_TIME:-}" ]; then
    args+=("-max_total_time=$FUZZ_MAX_TIME")
fi
args+=("${extra[@]}")

mkdir -p fuzz/logs
summary=()
found_any=0
for t in "${targets[@]}"; do
    mkdir -p "fuzz/artifacts/$t"
    log="fuzz/logs/$t-$(date +%Y%m%dT%H%M%S).log"
    before=$(ls "fuzz/artifacts/$t")
    # programs compares with regex-lite's captures, whose cost grows with the text: shorter inputs there.
    target_args=()
    [ "$t" != programs ] || target_args=(-max_len=1024)
    echo "== fuzzing $t: ${target_args[*]} ${args[*]} (log: $log)"
    start=$(date +%s)
    set +e
    # The full output goes to the log; the console gets libFuzzer's periodic status and the end.
    : > "$log"
    "${fuzz[@]}" run "$t" "${build[@]}" -- "${target_args[@]}" "${args[@]}" > "$log" 2>&1 &
    pid=$!
    tail -n +1 -f --pid="$pid" "$log" | grep --line-buffered -E 'pulse|DONE|panicked|ERROR|SUMMARY|Test unit written' &
    wait "$pid"
    status=$?
    wait
    set -e
    elapsed=$(($(date +%s) - start))

    final_stat() { grep -E "^stat::$1:" "$log" | tail -1 | awk '{print $2}'; }
    execs=$(final_stat number_of_executed_units)
    rate=$(final_stat average_exec_per_sec)
    new=$(final_stat new_units_added)
    rss=$(final_stat peak_rss_mb)
    cov=$(grep -E '^#[0-9]+' "$log" | tail -1 | grep -oE 'cov: [0-9]+ ft: [0-9]+' || true)
    artifacts=$(comm -13 <(echo "$before") <(ls "fuzz/artifacts/$t") | sed "s|^|fuzz/artifacts/$t/|" | tr '\n' ' ')
    if [ -n "$artifacts" ] || [ "$status" -ne 0 ]; then
        found="FOUND (exit $status): ${artifacts:-see $log}"
        found_any=1
    else
        found="nothing"
    fi
    line=$(printf '%-12s %10s execs %7s exec/s %6ss  new units %-5s %-20s peak %sMB  %s' \
        "$t" "${execs:-?}" "${rate:-?}" "$elapsed" "${new:-?}" "${cov:-}" "${rss:-?}" "$found")
    echo "$line"
    summary+=("$line")
done

echo
echo "== summary"
printf '%s\n' "${summary[@]}"
exit "$found_any"
