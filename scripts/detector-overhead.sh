#!/usr/bin/env bash
# What the stall detector costs (issue 9): /health throughput and server CPU
# per request, side by side, for
#   minimal   the smallest axum app (crates/async-server/examples/minimal_health.rs)
#   off       async-server --stall-detector off
#   on        async-server --stall-detector on (the default)
# in alternating rounds (the order rotates every round, so drift on a shared
# machine hits all three alike), then the medians and the ratios the issue
# asks for: on/off throughput (must be >= 0.97), on/minimal throughput
# (>= 0.95) and CPU per request (<= +10%).
#
# The three servers run at once on their own ports, with the same number of
# worker threads; only the one under load does any work. The async server
# runs with --skip-setup: /health needs neither Postgres nor Redis.
# Server CPU is the server process's utime + stime from /proc over the
# measured run, divided by the requests answered.
#
#   scripts/detector-overhead.sh
#   ROUNDS=7 DURATION=20 CONNECTIONS=50 TOOL=loadgen scripts/detector-overhead.sh
#
# Environment: TOOL (wrk if installed, else loadgen), CONNECTIONS (50),
# THREADS for the load tool (1, as the issue's wrk -t1 -c50), DURATION
# seconds per run (10), ROUNDS (5), WORKERS for the servers (number of
# cores), BASE_PORT (18091; the three servers use it and the next two).
set -euo pipefail

cd "$(dirname "$0")/.."

CONNECTIONS=${CONNECTIONS:-50}
THREADS=${THREADS:-1}
DURATION=${DURATION:-10}
ROUNDS=${ROUNDS:-5}
WORKERS=${WORKERS:-$(nproc)}
BASE_PORT=${BASE_PORT:-18091}
if [ -z "${TOOL:-}" ]; then
    if command -v wrk >/dev/null; then TOOL=wrk; else TOOL=loadgen; fi
fi
case "$TOOL" in
    wrk) command -v wrk >/dev/null || { echo "detector-overhead: wrk is not installed" >&2; exit 1; } ;;
    loadgen) ;;
    *) echo "detector-overhead: TOOL must be wrk or loadgen, not $TOOL" >&2; exit 2 ;;
esac

cargo build --release -q -p async-server --bin async-server --example minimal_health -p loadgen --bin loadgen

NAMES=(minimal off on)
declare -A PORT PID
PORT[minimal]=$BASE_PORT
PORT[off]=$((BASE_PORT + 1))
PORT[on]=$((BASE_PORT + 2))

cleanup() {
    for name in "${NAMES[@]}"; do
        if [ -n "${PID[$name]:-}" ]; then kill "${PID[$name]}" 2>/dev/null || true; fi
    done
}
trap cleanup EXIT

target/release/examples/minimal_health "127.0.0.1:${PORT[minimal]}" "$WORKERS" >/dev/null 2>&1 &
PID[minimal]=$!
for mode in off on; do
    RUST_LOG=warn target/release/async-server --bind "127.0.0.1:${PORT[$mode]}" --skip-setup \
        --worker-threads "$WORKERS" --stall-detector "$mode" >/dev/null 2>&1 &
    PID[$mode]=$!
done
for name in "${NAMES[@]}"; do
    for _ in $(seq 100); do
        if curl -fs "http://127.0.0.1:${PORT[$name]}/health" >/dev/null 2>&1; then continue 2; fi
        sleep 0.1
    done
    echo "detector-overhead: the $name server did not answer /health" >&2
    exit 1
done

TICKS=$(getconf CLK_TCK)
# utime + stime of a process, in clock ticks.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# One measured run against $1: prints "req/s requests".
run_load() {
    local url="http://127.0.0.1:${PORT[$1]}/health" out
    if [ "$TOOL" = wrk ]; then
        out=$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"${2}s" "$url")
        echo "$(echo "$out" | awk '/^Requests\/sec:/ {print $2}') $(echo "$out" | awk '/requests in/ {print $1}')"
    else
        out=$(target/release/loadgen -t "$THREADS" -c "$CONNECTIONS" -d "${2}s" --json "$url")
        echo "$(echo "$out" | sed -n 's/^ *"throughput_rps": *\([0-9.]*\).*/\1/p') $(echo "$out" | sed -n '/"requests": {/,/}/ s/^ *"total": *\([0-9]*\).*/\1/p')"
    fi
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(uname -sr), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "load:    $TOOL, $THREADS thread(s), $CONNECTIONS connections, ${DURATION}s per run, $ROUNDS rounds; servers: $WORKERS workers each"

# Warm-up, not recorded.
for name in "${NAMES[@]}"; do run_load "$name" 2 >/dev/null; done

declare -A RPS US
for round in $(seq "$ROUNDS"); do
    # Rotate the order: round 1 minimal off on, round 2 off on minimal, ...
    order=("${NAMES[@]:$(((round - 1) % 3))}" "${NAMES[@]:0:$(((round - 1) % 3))}")
    line="round $round:"
    for name in "${order[@]}"; do
        before=$(cpu_ticks "${PID[$name]}")
        read -r rps requests < <(run_load "$name" "$DURATION")
        after=$(cpu_ticks "${PID[$name]}")
        us=$(echo "($after - $before) * 1000000 / $TICKS / $requests" | bc -l)
        RPS[$name]="${RPS[$name]:-} $rps"
        US[$name]="${US[$name]:-} $us"
        line+=$(printf '  %-7s %8.0f req/s %5.2f us CPU/req' "$name" "$rps" "$us")
    done
    echo "$line"
done

median() { printf '%s\n' $@ | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
declare -A MED_RPS MED_US
for name in "${NAMES[@]}"; do
    MED_RPS[$name]=$(median ${RPS[$name]})
    MED_US[$name]=$(median ${US[$name]})
    printf 'median %-7s %8.0f req/s %5.2f us CPU/req   (rounds: %s req/s)\n' \
        "$name" "${MED_RPS[$name]}" "${MED_US[$name]}" "$(printf '%.0f ' ${RPS[$name]})"
done
ratio() { echo "$1 / $2" | bc -l; }
printf 'detector on / off:      throughput %.3fx, CPU per request %+.1f%%   (must reach >= 0.97x throughput)\n' \
    "$(ratio "${MED_RPS[on]}" "${MED_RPS[off]}")" "$(echo "(${MED_US[on]} / ${MED_US[off]} - 1) * 100" | bc -l)"
printf 'detector on / minimal:  throughput %.3fx, CPU per request %+.1f%%   (must reach >= 0.95x, <= +10%%)\n' \
    "$(ratio "${MED_RPS[on]}" "${MED_RPS[minimal]}")" "$(echo "(${MED_US[on]} / ${MED_US[minimal]} - 1) * 100" | bc -l)"
printf 'detector off / minimal: throughput %.3fx, CPU per request %+.1f%%\n' \
    "$(ratio "${MED_RPS[off]}" "${MED_RPS[minimal]}")" "$(echo "(${MED_US[off]} / ${MED_US[minimal]} - 1) * 100" | bc -l)"
