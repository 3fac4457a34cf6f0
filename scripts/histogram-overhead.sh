#!/usr/bin/env bash
# What the request histogram (http_server_requests_seconds) costs in time:
# /health throughput and server CPU per request of this build's server
# beside the same server built from BASELINE (scripts/build-baseline.sh),
# side by side in alternating rounds as scripts/lib/side-by-side.sh does
# them (fresh servers each round, warmed up 2 s; the medians, and the
# per-round ratios current / baseline with their 95% intervals).
#
# Timing on a shared machine moves by 20% and more between rounds, which
# hides a cost of a few percent: the figure that decides is the
# instruction count (scripts/instructions-per-request.sh with BASELINE=),
# and this one is for a quiet machine, reported beside it.
#
#   BASELINE=<commit> scripts/histogram-overhead.sh
#   ROUNDS=15 DURATION=10 SERVER=blocking BASELINE=<commit> scripts/histogram-overhead.sh
#
# Environment: SERVER (async or blocking, default async), BASELINE (a
# commit, default the merge base of HEAD and main), BASE_PORT (18291; the
# two servers use it and the next), and what scripts/lib/side-by-side.sh
# reads (ROUNDS, DURATION, CONNECTIONS, THREADS, TOOL, FRESH, WORKERS).
set -euo pipefail
cd "$(dirname "$0")/.."

SCRIPT=histogram-overhead
SERVER=${SERVER:-async}
case "$SERVER" in async | blocking) ;; *) echo "$SCRIPT: SERVER must be async or blocking, not $SERVER" >&2; exit 2 ;; esac
BASELINE=${BASELINE:-$(git merge-base HEAD main 2>/dev/null || true)}
[ -n "$BASELINE" ] || { echo "$SCRIPT: no BASELINE given and no main branch to take the merge base with" >&2; exit 2; }
NAMES=(current baseline)
BASE_PORT=${BASE_PORT:-18291}
declare -A PORT=([current]=$BASE_PORT [baseline]=$((BASE_PORT + 1)))
# shellcheck source=lib/side-by-side.sh
. scripts/lib/side-by-side.sh

cargo build --release -q -p async-server --bin async-server -p blocking-server --bin blocking-server -p loadgen --bin loadgen
declare -A DIR
DIR[current]=$PWD/target/release
DIR[baseline]=$(scripts/build-baseline.sh "$BASELINE")
echo "builds:  current $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- crates || echo ' (with uncommitted changes)'), baseline $(git rev-parse --short "$BASELINE"); $SERVER server"

launch() {
    local bind="127.0.0.1:$2"
    if [ "$SERVER" = async ]; then
        RUST_LOG=warn "${DIR[$1]}/async-server" --bind "$bind" --skip-setup --worker-threads "$WORKERS" >/dev/null 2>&1 &
    else
        RUST_LOG=warn "${DIR[$1]}/blocking-server" --bind "$bind" --skip-setup >/dev/null 2>&1 &
    fi
    PID[$1]=$!
}

measure_rounds
echo "per-round ratios, median:"
aim "current / baseline, throughput" throughput current baseline
aim "current / baseline, CPU per request" cpu current baseline
