#!/usr/bin/env bash
# Measures the async server's /users/1/cache (two Redis GETs per request)
# against what Redis itself does for GETs on this machine, side by side:
# `redis-benchmark -q -t get -c C` and `loadgen -c C` on the route,
# alternated for ROUNDS rounds, for each --redis-client. Prints each round,
# the medians, and the route's rate over redis-benchmark's GET rate halved
# (two GETs per request): 1.0 means the route costs Redis exactly its two
# GETs' worth of the machine; above 1.0, the route pipelines better than
# redis-benchmark's one-command-at-a-time clients.
#
#   scripts/redis-client-vs-redis-benchmark.sh
#   CLIENTS="shared pool" ROUNDS=5 scripts/redis-client-vs-redis-benchmark.sh
#
# Environment: CONNECTIONS (50), DURATION seconds per loadgen run (5),
# REQUESTS per redis-benchmark run (300000), ROUNDS (3), CLIENTS
# ("shared deadpool-redis pool"), PORT (18181), DATABASE_URL's server
# (postgres://postgres@127.0.0.1:5432) gets a database redis_probe.
set -euo pipefail
cd "$(dirname "$0")/.."

CONNECTIONS=${CONNECTIONS:-50}
DURATION=${DURATION:-5}
REQUESTS=${REQUESTS:-300000}
ROUNDS=${ROUNDS:-3}
CLIENTS=${CLIENTS:-"shared deadpool-redis pool"}
PORT=${PORT:-18181}
PG=${PG:-postgres://postgres@127.0.0.1:5432}

for tool in redis-benchmark psql; do
    command -v "$tool" >/dev/null || { echo "redis-client-vs-redis-benchmark: $tool is not installed" >&2; exit 1; }
done
cargo build --release -q -p async-server -p loadgen
psql "$PG/postgres" -qc 'DROP DATABASE IF EXISTS redis_probe' -c 'CREATE DATABASE redis_probe' >/dev/null

SERVER_PID=""
cleanup() {
    if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
    psql "$PG/postgres" -qc 'DROP DATABASE IF EXISTS redis_probe' >/dev/null 2>&1 || true
    redis-cli --scan --pattern 'redis_probe:*' | xargs -r redis-cli del >/dev/null 2>&1 || true
}
trap cleanup EXIT

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
echo "load: $CONNECTIONS connections; loadgen ${DURATION}s per run; redis-benchmark $REQUESTS GETs per run; $ROUNDS rounds"
for client in $CLIENTS; do
    target/release/async-server --bind "127.0.0.1:$PORT" --database-url "$PG/redis_probe" \
        --redis-key-prefix "redis_probe:" --redis-client "$client" >/dev/null 2>&1 &
    SERVER_PID=$!
    for _ in $(seq 300); do curl -sf "127.0.0.1:$PORT/health" >/dev/null && break; sleep 0.1; done
    target/release/loadgen -c "$CONNECTIONS" -d 2s "http://127.0.0.1:$PORT/users/1/cache" >/dev/null # warm-up
    route=(); bench=()
    for round in $(seq "$ROUNDS"); do
        # Without a terminal, -q still prints \r-separated progress lines
        # ("GET: rps=0.0 ..."); the result is the "requests per second" line.
        b=$(redis-benchmark -q -t get -c "$CONNECTIONS" -n "$REQUESTS" | tr '\r' '\n' |
            awk '/requests per second/ {print $2}')
        r=$(target/release/loadgen -c "$CONNECTIONS" -d "${DURATION}s" --json "http://127.0.0.1:$PORT/users/1/cache" |
            python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["successful_throughput_rps"])')
        echo "  $client round $round: redis-benchmark GET $b req/s, /users/1/cache $r req/s"
        bench+=("$b"); route+=("$r")
    done
    mb=$(printf '%s\n' "${bench[@]}" | median); mr=$(printf '%s\n' "${route[@]}" | median)
    echo "$client: median /users/1/cache $mr req/s; redis-benchmark GET $mb req/s, halved $(awk "BEGIN {print $mb/2}"); ratio $(awk "BEGIN {printf \"%.2f\", $mr/($mb/2)}")"
    kill "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true; SERVER_PID=""
done
