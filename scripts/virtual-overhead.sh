#!/usr/bin/env bash
# What the virtual-thread connector costs on /health next to may's own HTTP
# server (the aim: within 10% of a minimal may_minihttp app in throughput
# and in server CPU per request): /health throughput and server
# CPU per request, side by side, for
#   minimal   the smallest may_minihttp app
#             (crates/blocking-server/examples/minimal_may_health.rs)
#   virtual   blocking-server --threads virtual
#   async     async-server, for scale
# in alternating rounds, then the medians, and the per-round ratios with
# their 95% confidence intervals and verdicts (scripts/lib/side-by-side.sh
# says how). The servers run at once on their own ports with the same
# number of threads (carriers, workers); only the one under load does any
# work; both of ours run with --skip-setup (/health needs neither Postgres
# nor Redis).
#
#   scripts/virtual-overhead.sh
#   ROUNDS=7 DURATION=10 TOOL=loadgen scripts/virtual-overhead.sh
#
# Environment: as scripts/lib/side-by-side.sh says, and BASE_PORT (18094;
# the three servers use it and the next two).
set -euo pipefail

cd "$(dirname "$0")/.."

SCRIPT=virtual-overhead
NAMES=(minimal virtual async)
BASE_PORT=${BASE_PORT:-18094}
declare -A PORT=([minimal]=$BASE_PORT [virtual]=$((BASE_PORT + 1)) [async]=$((BASE_PORT + 2)))
# shellcheck source=lib/side-by-side.sh
. scripts/lib/side-by-side.sh

cargo build --release -q -p blocking-server --bin blocking-server --example minimal_may_health \
    -p async-server --bin async-server -p loadgen --bin loadgen

launch() {
    case "$1" in
        minimal) target/release/examples/minimal_may_health "127.0.0.1:$2" "$WORKERS" >/dev/null 2>&1 & ;;
        virtual) RUST_LOG=warn target/release/blocking-server --bind "127.0.0.1:$2" --skip-setup \
            --threads virtual --carriers "$WORKERS" >/dev/null 2>&1 & ;;
        async) RUST_LOG=warn target/release/async-server --bind "127.0.0.1:$2" --skip-setup \
            --worker-threads "$WORKERS" >/dev/null 2>&1 & ;;
    esac
    PID[$1]=$!
}

measure_rounds
echo "per-round ratios, median:"
aim "virtual / minimal may_minihttp, throughput" throughput virtual minimal ">=" 0.90
aim "virtual / minimal may_minihttp, CPU per request" cpu virtual minimal "<=" 1.10
aim "async / minimal may_minihttp, throughput" throughput async minimal
aim "virtual / async, throughput" throughput virtual async
