#!/usr/bin/env bash
# Measures loadgen's closed-loop throughput against wrk's on the same target
# with the same threads and connections, alternating the two tools so that
# machine noise hits both alike, and prints the ratio (the loadgen README
# quotes its output).
#
# By default it starts the crate's own minimal server (examples/hello_server.rs,
# a small JSON body on keep-alive connections). Set TARGET to measure against
# something else already running, e.g. TARGET=http://127.0.0.1:8080/health.
#
#   scripts/compare-wrk.sh                      # defaults below
#   CONNECTIONS=100 DURATION=10 ROUNDS=5 scripts/compare-wrk.sh
#
# Environment: CONNECTIONS (50), THREADS (number of cores), DURATION seconds
# per run (10), ROUNDS (3), SERVER_THREADS for hello_server (1), PORT (18089).
set -euo pipefail

cd "$(dirname "$0")/.."

CONNECTIONS=${CONNECTIONS:-50}
THREADS=${THREADS:-$(nproc)}
DURATION=${DURATION:-10}
ROUNDS=${ROUNDS:-3}
SERVER_THREADS=${SERVER_THREADS:-1}
PORT=${PORT:-18089}

command -v wrk >/dev/null || { echo "compare-wrk: wrk is not installed (apt-get install wrk)" >&2; exit 1; }

cargo build --release -q -p loadgen --bin loadgen --example hello_server
LOADGEN=target/release/loadgen

SERVER_PID=""
cleanup() { if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; fi; }
trap cleanup EXIT

if [ -z "${TARGET:-}" ]; then
    TARGET="http://127.0.0.1:${PORT}/health"
    target/release/examples/hello_server "127.0.0.1:${PORT}" "$SERVER_THREADS" 2>/dev/null &
    SERVER_PID=$!
    for _ in $(seq 50); do
        if (exec 3<>"/dev/tcp/127.0.0.1/${PORT}") 2>/dev/null; then break; fi
        sleep 0.1
    done
    SERVER_DESC="examples/hello_server, ${SERVER_THREADS} thread(s)"
else
    SERVER_DESC="$TARGET (external)"
fi

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(uname -sr)"
echo "target:  $TARGET ($SERVER_DESC)"
echo "load:    $THREADS threads, $CONNECTIONS connections, ${DURATION}s per run, $ROUNDS rounds"
echo "wrk:     $(wrk -v 2>&1 | head -1)"

# Warm up the server and the page cache.
wrk -t"$THREADS" -c"$CONNECTIONS" -d2s "$TARGET" >/dev/null

# CPU seconds (user + system) a command used, from GNU time's output in $1.
cpu_of() { awk '/^cpu / {print $2 + $3}' "$1"; }
TIMES=$(mktemp)
trap 'cleanup; rm -f "$TIMES"' EXIT

wrk_rps=()
loadgen_rps=()
wrk_cpu_us=()
loadgen_cpu_us=()
for round in $(seq "$ROUNDS"); do
    out=$(/usr/bin/time -f 'cpu %U %S' -o "$TIMES" wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" "$TARGET")
    w=$(echo "$out" | awk '/^Requests\/sec:/ {print $2}')
    w_n=$(echo "$out" | awk '/requests in/ {print $1}')
    w_us=$(echo "$(cpu_of "$TIMES") * 1000000 / $w_n" | bc -l)
    out=$(/usr/bin/time -f 'cpu %U %S' -o "$TIMES" "$LOADGEN" -t "$THREADS" -c "$CONNECTIONS" -d "${DURATION}s" --json "$TARGET")
    l=$(echo "$out" | sed -n 's/^ *"throughput_rps": *\([0-9.]*\).*/\1/p')
    l_n=$(echo "$out" | sed -n '/"requests": {/,/}/ s/^ *"total": *\([0-9]*\).*/\1/p')
    l_us=$(echo "$(cpu_of "$TIMES") * 1000000 / $l_n" | bc -l)
    printf 'round %s: wrk %8.0f req/s (%.1f us CPU/req)   loadgen %8.0f req/s (%.1f us CPU/req)   ratio %.3f\n' \
        "$round" "$w" "$w_us" "$l" "$l_us" "$(echo "$l / $w" | bc -l)"
    wrk_rps+=("$w")
    loadgen_rps+=("$l")
    wrk_cpu_us+=("$w_us")
    loadgen_cpu_us+=("$l_us")
done

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
w_med=$(median "${wrk_rps[@]}")
l_med=$(median "${loadgen_rps[@]}")
printf 'median:  wrk %8.0f req/s (%.1f us CPU/req)   loadgen %8.0f req/s (%.1f us CPU/req)\n' \
    "$w_med" "$(median "${wrk_cpu_us[@]}")" "$l_med" "$(median "${loadgen_cpu_us[@]}")"
printf 'loadgen/wrk throughput = %.2f\n' "$(echo "$l_med / $w_med" | bc -l)"
