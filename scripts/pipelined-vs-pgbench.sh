#!/usr/bin/env bash
# Measures the async server's /users/1 with the pipelined Postgres driver
# (--postgres-driver pipelined) against what Postgres itself serves its
# simplest client on this machine, side by side: `wrk` on the route and
# `pgbench -S -M prepared` (one prepared primary-key SELECT per
# transaction) on the same Postgres, with the same connections and load
# threads, alternated for ROUNDS rounds. The blocking server's /users/1 is
# measured in the same rounds, for reference. Prints each round, the
# medians, and the per-round ratios' median and range: route / pgbench
# (1.0: the route serves a lookup as fast as pgbench's own client does)
# and route / blocking.
#
#   scripts/pipelined-vs-pgbench.sh
#   ROUNDS=5 CONNECTIONS=64 CLIENTS=2 scripts/pipelined-vs-pgbench.sh
#
# It builds both servers (release), starts them on databases of their own
# (pipelined_probe; pgbench's tables in pgbench_probe), and stops and drops
# everything at the end. wrk is installed with apt-get if missing.
#
# Environment: CONNECTIONS (64), THREADS for wrk and pgbench (1), DURATION
# seconds per run (10), ROUNDS (5), CLIENTS, the driver's shared
# connections (its default: one per worker), WORKERS (cores), PORT (18191;
# the blocking server PORT+1), PG (postgres://postgres@127.0.0.1:5432).
set -euo pipefail
cd "$(dirname "$0")/.."

CONNECTIONS=${CONNECTIONS:-64}
THREADS=${THREADS:-1}
DURATION=${DURATION:-10}
ROUNDS=${ROUNDS:-5}
WORKERS=${WORKERS:-$(nproc)}
PORT=${PORT:-18191}
PG=${PG:-postgres://postgres@127.0.0.1:5432}
TARGET_DIR=${CARGO_TARGET_DIR:-target}
SCRIPT=pipelined-vs-pgbench
# psql's "database does not exist, skipping" notices are not news.
export PGOPTIONS='--client-min-messages=warning'

if ! command -v wrk >/dev/null; then
    echo "$SCRIPT: wrk is not installed; installing it (apt-get install wrk)" >&2
    if [ "$(id -u)" = 0 ]; then apt-get install -y -q wrk >/dev/null; else sudo apt-get install -y -q wrk >/dev/null; fi
fi
for tool in wrk pgbench psql curl; do
    command -v "$tool" >/dev/null || { echo "$SCRIPT: $tool is not installed" >&2; exit 1; }
done

cargo build --release -q -p async-server -p blocking-server
ASYNC="$TARGET_DIR/release/async-server"
BLOCKING="$TARGET_DIR/release/blocking-server"

psql "$PG/postgres" -qc 'DROP DATABASE IF EXISTS pipelined_probe' -c 'CREATE DATABASE pipelined_probe' \
    -c 'DROP DATABASE IF EXISTS pgbench_probe' -c 'CREATE DATABASE pgbench_probe' >/dev/null
pgbench -i -q -s 1 "$PG/pgbench_probe" >/dev/null 2>&1

declare -A PID
cleanup() {
    for name in "${!PID[@]}"; do kill "${PID[$name]}" 2>/dev/null || true; wait "${PID[$name]}" 2>/dev/null || true; done
    psql "$PG/postgres" -qc 'DROP DATABASE IF EXISTS pipelined_probe' -c 'DROP DATABASE IF EXISTS pgbench_probe' >/dev/null 2>&1 || true
    redis-cli --scan --pattern 'pipelined_probe:*' 2>/dev/null | xargs -r redis-cli del >/dev/null 2>&1 || true
}
trap cleanup EXIT

clients=()
[ -n "${CLIENTS:-}" ] && clients=(--postgres-clients "$CLIENTS")
common=(--database-url "$PG/pipelined_probe" --redis-key-prefix pipelined_probe:)
"$ASYNC" --bind "127.0.0.1:$PORT" "${common[@]}" --worker-threads "$WORKERS" \
    --postgres-driver pipelined "${clients[@]}" >/dev/null 2>&1 &
PID[async]=$!
# The async server migrates the database first; the blocking server then
# finds it ready.
for _ in $(seq 300); do curl -sf "127.0.0.1:$PORT/health" >/dev/null && break; sleep 0.1; done
"$BLOCKING" --bind "127.0.0.1:$((PORT + 1))" "${common[@]}" >/dev/null 2>&1 &
PID[blocking]=$!
for port in "$PORT" "$((PORT + 1))"; do
    for _ in $(seq 300); do curl -sf "127.0.0.1:$port/health" >/dev/null && continue 2; sleep 0.1; done
    echo "$SCRIPT: the server on port $port did not answer /health" >&2
    exit 1
done

# One run: prints its requests (or transactions) per second.
route() { wrk -t"$THREADS" -c"$CONNECTIONS" -d"${1}s" "http://127.0.0.1:$2/users/1" | awk '/^Requests\/sec:/ {print $2}'; }
pgbench_tps() {
    pgbench -n -S -M prepared -c "$CONNECTIONS" -j "$THREADS" -T "$1" "$PG/pgbench_probe" 2>/dev/null |
        awk '/^tps =/ {print $3}'
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(uname -sr), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "load:    $CONNECTIONS connections, $THREADS load thread(s) for wrk and pgbench, ${DURATION}s per run, $ROUNDS rounds; servers: $WORKERS workers, pipelined clients ${CLIENTS:-one per worker}"
echo "postgres: $(psql "$PG/postgres" -Atc 'SHOW server_version')"

# Warm-up, not recorded.
route 2 "$PORT" >/dev/null; route 2 "$((PORT + 1))" >/dev/null; pgbench_tps 2 >/dev/null

ROUTE=(); BASE=(); BLOCK=()
for round in $(seq "$ROUNDS"); do
    # Rotate the order so drift on a shared machine hits each alike.
    case $((round % 3)) in
        1) order=(route pgbench blocking) ;;
        2) order=(pgbench blocking route) ;;
        0) order=(blocking route pgbench) ;;
    esac
    for what in "${order[@]}"; do
        case $what in
            route) r=$(route "$DURATION" "$PORT") ;;
            pgbench) p=$(pgbench_tps "$DURATION") ;;
            blocking) b=$(route "$DURATION" "$((PORT + 1))") ;;
        esac
    done
    ROUTE+=("$r"); BASE+=("$p"); BLOCK+=("$b")
    printf 'round %s: /users/1 pipelined %8.0f req/s   pgbench -S %8.0f tps   blocking /users/1 %8.0f req/s   ratios %.2f, %.2f\n' \
        "$round" "$r" "$p" "$b" "$(echo "$r / $p" | bc -l)" "$(echo "$r / $b" | bc -l)"
done

# "median min max" of the numbers on standard input.
summary() { sort -g | awk '{x[NR] = $1} END {m = (NR % 2) ? x[(NR + 1) / 2] : (x[NR / 2] + x[NR / 2 + 1]) / 2; print m, x[1], x[NR]}'; }
ratios() { paste <(printf '%s\n' $1) <(printf '%s\n' $2) | awk '{print $1 / $2}' | summary; }
for series in "pipelined /users/1:${ROUTE[*]}" "pgbench -S -M prepared:${BASE[*]}" "blocking /users/1:${BLOCK[*]}"; do
    read -r med low high < <(printf '%s\n' ${series#*:} | summary)
    printf 'median %-24s %8.0f per second (range %.0f to %.0f)\n' "${series%%:*}" "$med" "$low" "$high"
done
read -r med low high < <(ratios "${ROUTE[*]}" "${BASE[*]}")
printf 'ratio pipelined /users/1 / pgbench -S:   %.2fx (range %.2fx to %.2fx over %s rounds)\n' "$med" "$low" "$high" "$ROUNDS"
read -r med low high < <(ratios "${ROUTE[*]}" "${BLOCK[*]}")
printf 'ratio pipelined /users/1 / blocking:     %.2fx (range %.2fx to %.2fx over %s rounds)\n' "$med" "$low" "$high" "$ROUNDS"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
