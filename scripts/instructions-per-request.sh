#!/usr/bin/env bash
# Instructions per /health request, counted by valgrind's callgrind, for
#   minimal   the smallest axum app (crates/async-server/examples/minimal_health.rs)
#   off       async-server --stall-detector off
#   on        async-server --stall-detector on (the default)
#   blocking  blocking-server (nio connector, 2 handler threads; BLOCKING=0 skips it)
# and, with BASELINE=<commit>, the same servers built from that commit
# (scripts/build-baseline.sh), each change printed beside them: how a
# per-request change (the request histogram, say) is decided.
# The companion of scripts/detector-overhead.sh. That one measures
# what matters to a user, throughput and CPU time per request, but on a
# shared machine its rounds can move by 20% and more, which hides a change of
# a few percent. An instruction count does not move: the same build and the
# same requests give the same count to within a few instructions, so a change
# to the per-request path shows up exactly. What it does not show: time in
# the kernel (the socket calls, the same for all three), and what an
# instruction costs (cache misses, a contended cache line).
#
# Each server runs under callgrind with one worker; the count covers N
# requests after a warm-up (loadgen, 10 connections), from the start of the
# first to the end of the last, every thread of the server included.
#
#   scripts/instructions-per-request.sh
#   REQUESTS=50000 scripts/instructions-per-request.sh
#   BASELINE=24926f0 scripts/instructions-per-request.sh
#
# Needs valgrind (apt-get install valgrind).
set -euo pipefail

cd "$(dirname "$0")/.."

REQUESTS=${REQUESTS:-20000}
PORT=${PORT:-18191}
BLOCKING=${BLOCKING:-1}
BASELINE=${BASELINE:-}
for tool in valgrind callgrind_control callgrind_annotate; do
    command -v "$tool" >/dev/null || {
        echo "instructions-per-request: $tool is not installed (apt-get install valgrind)" >&2
        exit 1
    }
done
case "$REQUESTS" in
    '' | *[!0-9]* | 0) echo "instructions-per-request: REQUESTS must be a positive number, not $REQUESTS" >&2; exit 2 ;;
esac

cargo build --release -q -p async-server --bin async-server --example minimal_health -p blocking-server --bin blocking-server -p loadgen --bin loadgen

OUT=$(mktemp -d)
VALGRIND_PID=
cleanup() {
    if [ -n "$VALGRIND_PID" ]; then kill "$VALGRIND_PID" 2>/dev/null || true; fi
    rm -rf "$OUT"
}
trap cleanup EXIT

# Prints the instructions per request of one server: "$@" is its command.
count() {
    valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$OUT/cg.%p" "$@" \
        >/dev/null 2>&1 &
    VALGRIND_PID=$!
    for _ in $(seq 300); do
        if curl -fs "http://127.0.0.1:$PORT/health" >/dev/null 2>&1; then break; fi
        sleep 0.2
    done
    curl -fs "http://127.0.0.1:$PORT/health" >/dev/null || {
        echo "instructions-per-request: the server did not answer /health under valgrind" >&2
        exit 1
    }
    target/release/loadgen -c 10 -n 2000 "http://127.0.0.1:$PORT/health" >/dev/null
    callgrind_control -i on "$VALGRIND_PID" >/dev/null 2>&1
    target/release/loadgen -c 10 -n "$REQUESTS" "http://127.0.0.1:$PORT/health" >/dev/null
    callgrind_control -i off "$VALGRIND_PID" >/dev/null 2>&1
    callgrind_control -d "$VALGRIND_PID" >/dev/null 2>&1
    kill "$VALGRIND_PID"
    wait "$VALGRIND_PID" 2>/dev/null || true
    VALGRIND_PID=
    # The dump with the measured requests is the largest profile file.
    local profile total
    profile=$(ls -S "$OUT"/cg.* | head -1)
    total=$(callgrind_annotate "$profile" | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1; exit}')
    rm -f "$OUT"/cg.*
    echo $((total / REQUESTS))
}

BASE_DIR=
if [ -n "$BASELINE" ]; then BASE_DIR=$(scripts/build-baseline.sh "$BASELINE"); fi

# The servers of one build ($1: its directory; $2: the prefix of the names).
count_build() {
    for mode in off on; do
        IR[$2$mode]=$(RUST_LOG=warn count "$1/async-server" --bind "127.0.0.1:$PORT" \
            --skip-setup --worker-threads 1 --stall-detector "$mode")
    done
    if [ "$BLOCKING" = 1 ]; then
        IR[${2}blocking]=$(RUST_LOG=warn count "$1/blocking-server" --bind "127.0.0.1:$PORT" \
            --skip-setup --handler-threads 2)
    fi
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'); $REQUESTS requests per server, 1 worker, loadgen -c 10"
echo "build:   $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- crates || echo ' (with uncommitted changes)')${BASELINE:+, baseline $(git rev-parse --short "$BASELINE")}"
declare -A IR
IR[minimal]=$(count target/release/examples/minimal_health "127.0.0.1:$PORT" 1)
count_build target/release ""
if [ -n "$BASE_DIR" ]; then count_build "$BASE_DIR" base-; fi
names=(minimal off on)
if [ "$BLOCKING" = 1 ]; then names+=(blocking); fi
for name in "${names[@]}"; do
    printf '%-8s %7d instructions per request  (%+.1f%% against minimal)' "$name" "${IR[$name]}" \
        "$(echo "(${IR[$name]} / ${IR[minimal]} - 1) * 100" | bc -l)"
    if [ -n "$BASE_DIR" ] && [ "$name" != minimal ]; then
        printf ';  baseline %7d, change %+.2f%%' "${IR[base-$name]}" \
            "$(echo "(${IR[$name]} / ${IR[base-$name]} - 1) * 100" | bc -l)"
    fi
    printf '\n'
done
printf 'detector on / off: %+.1f%% instructions per request\n' "$(echo "(${IR[on]} / ${IR[off]} - 1) * 100" | bc -l)"
