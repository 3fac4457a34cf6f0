#!/usr/bin/env bash
# Measures /users/1 on every Postgres driver of every model, side by side,
# with Postgres behind the fault proxy a round trip away (ROUND_TRIP_US,
# 2000 by default) or directly (ROUND_TRIP_US=0): the blocking server (sync
# driver), virtual threads with the yielding driver, and the async server
# with sqlx, deadpool and pipelined. Each round runs every server once, in
# an order rotated from round to round, under wrk with the same connections.
#
# For each run it prints the throughput and, behind the proxy, what the
# proxy measured over that run: round trips per request (its exchanges over
# the requests answered) and the delivered round trip (the mean over those
# exchanges), and for the pooled drivers Little's law's bound, pool size /
# (round trips per request x delivered round trip). At the end, each
# server's median and the per-round ratios of the pipelined driver to the
# blocking server (median and range).
#
#   scripts/db-drivers.sh                         # 2-ms round trip
#   ROUND_TRIP_US=0 scripts/db-drivers.sh         # Postgres on loopback
#   SERVERS="blocking pipelined" ROUNDS=5 scripts/db-drivers.sh
#
# Environment: ROUND_TRIP_US (2000), CONNECTIONS (64), THREADS for wrk (1),
# DURATION seconds per run (10), ROUNDS (3), POOL (10, every pool), CLIENTS
# (the pipelined driver's shared connections; its default: one per worker),
# SERVERS ("blocking yielding sqlx deadpool pipelined"), PORT (18301, then
# one port per server), PG (postgres://postgres@127.0.0.1:5432).
set -euo pipefail
cd "$(dirname "$0")/.."

ROUND_TRIP_US=${ROUND_TRIP_US:-2000}
CONNECTIONS=${CONNECTIONS:-64}
THREADS=${THREADS:-1}
DURATION=${DURATION:-10}
ROUNDS=${ROUNDS:-3}
POOL=${POOL:-10}
SERVERS=${SERVERS:-"blocking yielding sqlx deadpool pipelined"}
PORT=${PORT:-18301}
PG=${PG:-postgres://postgres@127.0.0.1:5432}
TARGET_DIR=${CARGO_TARGET_DIR:-target}
SCRIPT=db-drivers
export PGOPTIONS='--client-min-messages=warning'

if ! command -v wrk >/dev/null; then
    echo "$SCRIPT: wrk is not installed; installing it (apt-get install wrk)" >&2
    if [ "$(id -u)" = 0 ]; then apt-get install -y -q wrk >/dev/null; else sudo apt-get install -y -q wrk >/dev/null; fi
fi
for tool in wrk psql curl bc; do
    command -v "$tool" >/dev/null || { echo "$SCRIPT: $tool is not installed" >&2; exit 1; }
done

cargo build --release -q -p async-server -p blocking-server -p net-tools --bins --example latency_proxy
BIN="$TARGET_DIR/release"
psql "$PG/postgres" -qc 'DROP DATABASE IF EXISTS drivers_probe' -c 'CREATE DATABASE drivers_probe' >/dev/null

declare -A PID RPS
cleanup() {
    for name in "${!PID[@]}"; do kill "${PID[$name]}" 2>/dev/null || true; wait "${PID[$name]}" 2>/dev/null || true; done
    psql "$PG/postgres" -qc 'DROP DATABASE IF EXISTS drivers_probe' >/dev/null 2>&1 || true
    redis-cli --scan --pattern 'drivers_probe:*' 2>/dev/null | xargs -r redis-cli del >/dev/null 2>&1 || true
}
trap cleanup EXIT

# The proxy in front of Postgres, unless Postgres is to be reached directly.
DB_HOST=${PG#*://}; DB_HOST=${DB_HOST#*@}
STATS=""
if [ "$ROUND_TRIP_US" -gt 0 ]; then
    out=$(mktemp)
    "$BIN/examples/latency_proxy" "$DB_HOST" "$ROUND_TRIP_US" >"$out" 2>&1 &
    PID[proxy]=$!
    for _ in $(seq 50); do grep -q '^stats on' "$out" && break; sleep 0.1; done
    DB_HOST=$(awk '/^listening on/ {print $3}' "$out")
    STATS=$(awk '/^stats on/ {print $3}' "$out")
    rm -f "$out"
fi
DB_URL="postgres://postgres@$DB_HOST/drivers_probe"

declare -A PORT_OF
i=0
for name in $SERVERS; do PORT_OF[$name]=$((PORT + i)); i=$((i + 1)); done

launch() {
    local common=(--bind "127.0.0.1:${PORT_OF[$1]}" --database-url "$DB_URL" --redis-key-prefix drivers_probe:
        --db-pool-size "$POOL")
    local cmd
    case $1 in
        blocking) cmd=("$BIN/blocking-server" "${common[@]}") ;;
        yielding) cmd=("$BIN/blocking-server" "${common[@]}" --threads virtual --driver yielding) ;;
        sqlx | deadpool) cmd=("$BIN/async-server" "${common[@]}" --postgres-driver "$1") ;;
        pipelined) cmd=("$BIN/async-server" "${common[@]}" --postgres-driver pipelined
            ${CLIENTS:+--postgres-clients "$CLIENTS"}) ;;
        *) echo "$SCRIPT: unknown server $1" >&2; exit 2 ;;
    esac
    "${cmd[@]}" >/dev/null 2>&1 &
    PID[$1]=$!
    for _ in $(seq 600); do curl -sf "127.0.0.1:${PORT_OF[$1]}/health" >/dev/null && return; sleep 0.1; done
    echo "$SCRIPT: the $1 server did not answer /health" >&2
    exit 1
}
# One at a time: the first one migrates the database.
for name in $SERVERS; do launch "$name"; done

# The proxy's exchanges and the sum of their delivered round trips so far.
proxy_reading() {
    curl -s "$STATS" | awk '/^proxy_exchanges_total / {e = $2} /^proxy_delivered_round_trip_seconds_sum / {s = $2} END {print e + 0, s + 0}'
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(uname -sr), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "load:    wrk -t$THREADS -c$CONNECTIONS, ${DURATION}s per run, $ROUNDS rounds; pools $POOL; round trip added ${ROUND_TRIP_US} us; pipelined clients ${CLIENTS:-one per worker}"

for name in $SERVERS; do wrk -t"$THREADS" -c"$CONNECTIONS" -d2s "http://127.0.0.1:${PORT_OF[$name]}/users/1" >/dev/null; done

read -r -a names <<<"$SERVERS"
for round in $(seq "$ROUNDS"); do
    shift_by=$(((round - 1) % ${#names[@]}))
    order=("${names[@]:$shift_by}" "${names[@]:0:$shift_by}")
    for name in "${order[@]}"; do
        [ -n "$STATS" ] && read -r e0 s0 < <(proxy_reading)
        out=$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" "http://127.0.0.1:${PORT_OF[$name]}/users/1")
        rps=$(echo "$out" | awk '/^Requests\/sec:/ {print $2}')
        n=$(echo "$out" | awk '/requests in/ {print $1}')
        RPS[$name]="${RPS[$name]:-} $rps"
        line=$(printf 'round %s %-9s %8.0f req/s' "$round" "$name" "$rps")
        if [ -n "$STATS" ]; then
            read -r e1 s1 < <(proxy_reading)
            per=$(echo "($e1 - $e0) / $n" | bc -l)
            rtt=$(echo "($s1 - $s0) * 1000 / ($e1 - $e0)" | bc -l)
            line+=$(printf '   round trips/request %.3f   delivered round trip %.3f ms' "$per" "$rtt")
            if [ "$name" != pipelined ]; then
                line+=$(printf '   pool / (round trips x delivered) %.0f req/s' "$(echo "$POOL * 1000 / ($per * $rtt)" | bc -l)")
            fi
        fi
        echo "$line"
    done
done

summary() { sort -g | awk '{x[NR] = $1} END {m = (NR % 2) ? x[(NR + 1) / 2] : (x[NR / 2] + x[NR / 2 + 1]) / 2; print m, x[1], x[NR]}'; }
for name in $SERVERS; do
    read -r med low high < <(printf '%s\n' ${RPS[$name]} | summary)
    printf 'median %-9s %8.0f req/s (range %.0f to %.0f)\n' "$name" "$med" "$low" "$high"
done
if [[ " $SERVERS " == *" pipelined "* && " $SERVERS " == *" blocking "* ]]; then
    read -r med low high < <(paste <(printf '%s\n' ${RPS[pipelined]}) <(printf '%s\n' ${RPS[blocking]}) |
        awk '{print $1 / $2}' | summary)
    printf 'ratio pipelined / blocking: %.2fx (range %.2fx to %.2fx over %s rounds)\n' "$med" "$low" "$high" "$ROUNDS"
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
