#!/usr/bin/env bash
# What a /users/1/cache request (two Redis GETs) costs each server, in
# counts rather than time: Redis commands per request (Redis' own
# INFO commandstats, every command, GET and the rest), and the server's
# context switches per request (every thread's /proc/PID/task/*/status), for the blocking
# server with its shared multiplexed connection (the default, Lettuce's
# shape) and with its r2d2 pool (Jedis' shape), and the async server with
# its shared connection. Counts, not timings: a busy machine changes them
# little. One closed loop of loadgen per server on a fresh release server.
#
#   scripts/redis-cost-by-server.sh [REQUESTS] [CONNECTIONS]
#
# Needs release builds of loadgen, blocking-server and async-server, Postgres
# and Redis at their defaults, and redis-cli.
set -euo pipefail
cd "$(dirname "$0")/.."
REQUESTS=${1:-20000}
CONNECTIONS=${2:-64}
BIN=target/release
PORT=18480
OUT=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$OUT"' EXIT

# This script's own INFO calls left out.
commands() { redis-cli -h 127.0.0.1 info commandstats | tr -d '\r' | awk -F'[=:,]' '/^cmdstat_/ && !/^cmdstat_info/ {print $1, $3}'; }
# Every thread's, voluntary and not (a thread that ended takes its count along:
# the servers' threads live as long as the server).
switches() { cat /proc/"$1"/task/*/status | awk '/ctxt_switches/ {s += $2} END {print s}'; }

measure() {
    local name=$1; shift
    "$@" --bind "127.0.0.1:$PORT" >"$OUT/server.log" 2>&1 &
    local server=$!
    for _ in $(seq 1 600); do
        curl -fs "http://127.0.0.1:$PORT/users/1/cache" >/dev/null 2>&1 && break
        sleep 0.1
    done
    "$BIN/loadgen" -c "$CONNECTIONS" -n 2000 "http://127.0.0.1:$PORT/users/1/cache" >/dev/null 2>&1
    commands >"$OUT/before"
    local before; before=$(switches "$server")
    "$BIN/loadgen" -c "$CONNECTIONS" -n "$REQUESTS" --json --out "$OUT/report.json" \
        "http://127.0.0.1:$PORT/users/1/cache" >/dev/null 2>&1
    local after; after=$(switches "$server")
    commands >"$OUT/after"
    kill "$server"; wait "$server" 2>/dev/null || true
    python3 - "$name" "$OUT" "$before" "$after" <<'PY'
import json, sys
name, out, before, after = sys.argv[1:]
ok = json.load(open(f"{out}/report.json"))["requests"]["ok"] or 1
def read(f):
    return {l.split()[0]: int(l.split()[1]) for l in open(f) if l.strip()}
b, a = read(f"{out}/before"), read(f"{out}/after")
delta = {k: a[k] - b.get(k, 0) for k in a if a[k] - b.get(k, 0) > 0}
per = ", ".join(f"{k.removeprefix('cmdstat_')} {v / ok:.2f}" for k, v in sorted(delta.items()))
print(f"{name:26} {ok} ok; Redis commands per request: {per}; "
      f"server context switches per request {(int(after) - int(before)) / ok:.2f}")
PY
}

measure "blocking (shared, default)" "$BIN/blocking-server"
measure "blocking (r2d2 pool)" "$BIN/blocking-server" --redis-client pool
measure "async (shared, default)" "$BIN/async-server"
