#!/usr/bin/env bash
# Why the load generator's own CPU per request depends on the server it
# drives: the same closed loop (loadgen, 200 connections, /health, as the
# seed profile's baseline group) against the blocking server and the async
# server, in alternating rounds, each on a fresh release server. Per round
# and server it prints loadgen's CPU per request (its own rusage), the
# server's CPU per request (/proc), and what the kernel counted for loadgen
# per request (perf's syscall tracepoints: every syscall, epoll_wait,
# recvfrom and sendto; context switches), and the response segments per
# request seen on the wire (tcpdump, a sample window).
#
#   scripts/client-cost-by-server.sh [ROUNDS] [SECONDS] [CONNECTIONS]
#
# Needs release builds of loadgen, blocking-server and async-server
# (cargo build --release -p loadgen -p blocking-server -p async-server),
# perf (linux-perf) and tcpdump; run as root (tcpdump, perf tracepoints).
# Run it on a quiet machine: it measures CPU.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
SECONDS_EACH=${2:-5}
CONNECTIONS=${3:-200}
BIN=target/release
for b in loadgen blocking-server async-server; do
    [ -x "$BIN/$b" ] || { echo "client-cost-by-server.sh: build $BIN/$b first" >&2; exit 2; }
done
command -v perf >/dev/null || { echo "client-cost-by-server.sh: needs perf" >&2; exit 2; }
command -v tcpdump >/dev/null || { echo "client-cost-by-server.sh: needs tcpdump" >&2; exit 2; }
OUT=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$OUT"' EXIT
PORT=18470

ticks() { awk '{print $14+$15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)

start_server() {
    case "$1" in
        blocking) "$BIN/blocking-server" --bind "127.0.0.1:$PORT" --skip-setup >"$OUT/server.log" 2>&1 & ;;
        async) "$BIN/async-server" --bind "127.0.0.1:$PORT" --skip-setup >"$OUT/server.log" 2>&1 & ;;
    esac
    SERVER=$!
    for _ in $(seq 1 100); do
        curl -fs "http://127.0.0.1:$PORT/health" >/dev/null 2>&1 && return 0
        sleep 0.05
    done
    echo "client-cost-by-server.sh: the $1 server did not answer" >&2
    cat "$OUT/server.log" >&2
    exit 1
}

measure() {
    local server=$1 round=$2
    start_server "$server"
    # Warm up, then the measured window, then one under perf (loadgen's
    # syscalls) with a 1-s tcpdump sample in the middle of it.
    "$BIN/loadgen" -c "$CONNECTIONS" -d 1s --json --out /dev/null "http://127.0.0.1:$PORT/health" >/dev/null 2>&1 || true
    # The CPU window, plain: perf's tracepoints below add to loadgen's own
    # CPU, so its counts come from a second window of the same length.
    local before
    before=$(ticks "$SERVER")
    "$BIN/loadgen" -c "$CONNECTIONS" -d "${SECONDS_EACH}s" --json --out "$OUT/report.json" \
        "http://127.0.0.1:$PORT/health" >/dev/null 2>&1
    local after
    after=$(ticks "$SERVER")
    ( sleep $((SECONDS_EACH / 2)); timeout 1 tcpdump -i lo -nn -q -w "$OUT/sample.pcap" "tcp port $PORT" >/dev/null 2>&1 || true ) &
    local dumper=$!
    perf stat -x, -o "$OUT/perf.csv" \
        -e raw_syscalls:sys_enter,syscalls:sys_enter_epoll_wait,syscalls:sys_enter_recvfrom,syscalls:sys_enter_sendto,context-switches \
        -- "$BIN/loadgen" -c "$CONNECTIONS" -d "${SECONDS_EACH}s" --json --out "$OUT/traced.json" \
        "http://127.0.0.1:$PORT/health" >/dev/null 2>&1
    wait "$dumper" || true
    kill "$SERVER"; wait "$SERVER" 2>/dev/null || true
    python3 - "$server" "$round" "$OUT" "$before" "$after" "$hz" "$PORT" <<'PY'
import json, subprocess, sys
server, rnd, out, before, after, hz, port = sys.argv[1:]
r = json.load(open(f"{out}/report.json"))
n = r["requests"]["ok"] or 1
client_us = r["client_cpu"]["cpu_ms"] * 1000 / n
server_us = (int(after) - int(before)) / int(hz) * 1e6 / n
counts = {}
for line in open(f"{out}/perf.csv"):
    parts = line.strip().split(",")
    if len(parts) > 2 and parts[0].replace(".", "").isdigit():
        counts[parts[2]] = float(parts[0])
traced = json.load(open(f"{out}/traced.json"))["requests"]["ok"] or 1
per = lambda k: counts.get(k, 0) / traced
# Segments with a payload, by direction, in the sample.
dump = subprocess.run(["tcpdump", "-nn", "-r", f"{out}/sample.pcap"], capture_output=True, text=True).stdout
to_server = sum(1 for l in dump.splitlines() if f".{port}:" in l.split(">")[1] and "length 0" not in l)
from_server = sum(1 for l in dump.splitlines() if f".{port} >" in l and "length 0" not in l)
acks = sum(1 for l in dump.splitlines() if "length 0" in l)
print(f"{server:8} round {rnd}: {r['successful_throughput_rps']:9.0f} req/s  "
      f"loadgen {client_us:5.2f} us/req  server {server_us:5.2f} us/req  "
      f"loadgen syscalls/req {per('raw_syscalls:sys_enter'):5.2f} (epoll_wait {per('syscalls:sys_enter_epoll_wait'):4.2f}, "
      f"recvfrom {per('syscalls:sys_enter_recvfrom'):4.2f}, sendto {per('syscalls:sys_enter_sendto'):4.2f}), "
      f"switches/req {per('context-switches'):4.2f}; sample: data segments in {to_server}, out {from_server}, bare ACKs {acks}")
PY
}

for round in $(seq 1 "$ROUNDS"); do
    if [ $((round % 2)) -eq 1 ]; then order="blocking async"; else order="async blocking"; fi
    for server in $order; do measure "$server" "$round"; done
done
