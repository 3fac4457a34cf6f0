#!/usr/bin/env bash
# What the stall detector costs: /health throughput and server CPU
# per request, side by side, for
#   minimal   the smallest axum app (crates/async-server/examples/minimal_health.rs)
#   off       async-server --stall-detector off
#   on        async-server --stall-detector on (the default)
# in alternating rounds, then the medians, and for the ratios the issue asks
# for (on/off throughput >= 0.97x, on/minimal throughput >= 0.95x and CPU
# per request <= +10%) the median of the per-round ratios with its 95%
# confidence interval and a verdict (scripts/lib/side-by-side.sh says how).
#
# The three servers run at once on their own ports, with the same number of
# worker threads; only the one under load does any work. The async server
# runs with --skip-setup: /health needs neither Postgres nor Redis.
#
#   scripts/detector-overhead.sh
#   ROUNDS=7 DURATION=20 CONNECTIONS=50 TOOL=loadgen scripts/detector-overhead.sh
#
# Environment: as scripts/lib/side-by-side.sh says, and BASE_PORT (18091;
# the three servers use it and the next two).
set -euo pipefail

cd "$(dirname "$0")/.."

SCRIPT=detector-overhead
NAMES=(minimal off on)
BASE_PORT=${BASE_PORT:-18091}
declare -A PORT=([minimal]=$BASE_PORT [off]=$((BASE_PORT + 1)) [on]=$((BASE_PORT + 2)))
# shellcheck source=lib/side-by-side.sh
. scripts/lib/side-by-side.sh

cargo build --release -q -p async-server --bin async-server --example minimal_health -p loadgen --bin loadgen

launch() {
    if [ "$1" = minimal ]; then
        target/release/examples/minimal_health "127.0.0.1:$2" "$WORKERS" >/dev/null 2>&1 &
    else
        RUST_LOG=warn target/release/async-server --bind "127.0.0.1:$2" --skip-setup \
            --worker-threads "$WORKERS" --stall-detector "$1" >/dev/null 2>&1 &
    fi
    PID[$1]=$!
}

measure_rounds
echo "per-round ratios, median:"
aim "detector on / off, throughput" throughput on off ">=" 0.97
aim "detector on / minimal, throughput" throughput on minimal ">=" 0.95
aim "detector on / minimal, CPU per request" cpu on minimal "<=" 1.10
aim "detector off / minimal, throughput" throughput off minimal
aim "detector off / minimal, CPU per request" cpu off minimal
