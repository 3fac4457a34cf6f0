#!/usr/bin/env bash
# What the stall detector costs (issue 9): /health throughput and server CPU
# per request, side by side, for
#   minimal   the smallest axum app (crates/async-server/examples/minimal_health.rs)
#   off       async-server --stall-detector off
#   on        async-server --stall-detector on (the default)
# in alternating rounds (the order rotates every round, so drift on a shared
# machine hits all three alike), then the medians, and for the ratios the
# issue asks for (on/off throughput >= 0.97x, on/minimal throughput >= 0.95x
# and CPU per request <= +10%) the median of the per-round ratios with its
# 95% confidence interval and a verdict: HELD when the whole interval is on
# the right side of the line, NOT HELD when it is all on the wrong side,
# INCONCLUSIVE when it straddles the line.
#
# The three servers run at once on their own ports, with the same number of
# worker threads; only the one under load does any work. The async server
# runs with --skip-setup: /health needs neither Postgres nor Redis. By
# default every round starts the three afresh (FRESH=1): a process's memory
# layout and the threads' placement can favour one server for as long as it
# lives, so rounds from one set of processes are not independent samples;
# FRESH=0 starts them once for all rounds.
# Server CPU is the server process's utime + stime from /proc over the
# measured run, divided by the requests answered.
#
#   scripts/detector-overhead.sh
#   ROUNDS=7 DURATION=20 CONNECTIONS=50 TOOL=loadgen scripts/detector-overhead.sh
#
# Environment: TOOL (wrk if installed, else loadgen), CONNECTIONS (50),
# THREADS for the load tool (1, as the issue's wrk -t1 -c50), DURATION
# seconds per run (10), ROUNDS (9; at least 6 for an interval), FRESH (1),
# WORKERS for the servers (number of cores), BASE_PORT (18091; the three
# servers use it and the next two).
set -euo pipefail

cd "$(dirname "$0")/.."

CONNECTIONS=${CONNECTIONS:-50}
THREADS=${THREADS:-1}
DURATION=${DURATION:-10}
ROUNDS=${ROUNDS:-9}
FRESH=${FRESH:-1}
case "$FRESH" in 0 | 1) ;; *) echo "detector-overhead: FRESH must be 0 or 1, not $FRESH" >&2; exit 2 ;; esac
case "$ROUNDS" in '' | *[!0-9]* | 0) echo "detector-overhead: ROUNDS must be a whole number of at least 1, not $ROUNDS" >&2; exit 2 ;; esac
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

# Starts the three servers and waits until each answers /health.
start_servers() {
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
}

# Stops them and waits until they are gone, so the next round's can bind.
stop_servers() {
    cleanup
    for name in "${NAMES[@]}"; do
        if [ -n "${PID[$name]:-}" ]; then wait "${PID[$name]}" 2>/dev/null || true; fi
        PID[$name]=""
    done
}

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

# Each server is warmed up (2 s, not recorded) after it starts.
warm_up() { for name in "${NAMES[@]}"; do run_load "$name" 2 >/dev/null; done; }

if [ "$FRESH" = 0 ]; then start_servers; warm_up; fi
declare -A RPS US
for round in $(seq "$ROUNDS"); do
    if [ "$FRESH" = 1 ]; then start_servers; warm_up; fi
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
    if [ "$FRESH" = 1 ]; then stop_servers; fi
done

# Numbers on standard input, one per line: "median low high", where
# low..high is the 95% confidence interval of the median by order
# statistics (the k-th smallest and k-th largest number, k the largest rank
# with P(Binomial(n, 1/2) < k) <= 0.025; no assumption about the numbers'
# distribution). With fewer than 6 numbers there is no such interval and
# low and high are "-".
median_and_interval() {
    sort -g | awk '
        {x[NR] = $1}
        END {
            n = NR
            median = (n % 2) ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
            # P(B < k) for B ~ Binomial(n, 1/2), accumulated term by term.
            k = 0; below = 0; term = 0.5 ^ n
            for (j = 0; j <= n; j++) {
                if (below + term > 0.025) break
                below += term; k = j + 1
                term = term * (n - j) / (j + 1)
            }
            if (k < 1) print median, "-", "-"
            else print median, x[k], x[n + 1 - k]
        }'
}

median() { printf '%s\n' "$@" | median_and_interval | cut -d' ' -f1; }
declare -A MED_RPS MED_US
for name in "${NAMES[@]}"; do
    MED_RPS[$name]=$(median ${RPS[$name]})
    MED_US[$name]=$(median ${US[$name]})
    printf 'median %-7s %8.0f req/s %5.2f us CPU/req   (rounds: %s req/s)\n' \
        "$name" "${MED_RPS[$name]}" "${MED_US[$name]}" "$(printf '%.0f ' ${RPS[$name]})"
done

# The per-round ratios of $1 to $2 (two lists of numbers in round order, as
# quoted strings): their median_and_interval.
ratios() {
    paste <(printf '%s\n' $1) <(printf '%s\n' $2) | awk '{print $1 / $2}' | median_and_interval
}

# "HELD", "NOT HELD" or "INCONCLUSIVE" for a claim that the value is at
# least ($3 = ">=") or at most ("<=") $4, given the interval $1..$2.
verdict() {
    if [ "$1" = - ]; then echo "INCONCLUSIVE (too few rounds for an interval)"; return; fi
    if [ "$3" = ">=" ]; then
        if (($(echo "$1 >= $4" | bc -l))); then echo HELD
        elif (($(echo "$2 < $4" | bc -l))); then echo "NOT HELD"
        else echo INCONCLUSIVE; fi
    else
        if (($(echo "$2 <= $4" | bc -l))); then echo HELD
        elif (($(echo "$1 > $4" | bc -l))); then echo "NOT HELD"
        else echo INCONCLUSIVE; fi
    fi
}

# One aim: $1 label, $2 "throughput" or "cpu", $3 and $4 the two servers,
# $5 the comparison and $6 the line (a ratio; CPU aims print as percent);
# without $5 and $6 the figure is printed with no verdict.
aim() {
    local med low high shown
    if [ "$2" = throughput ]; then
        read -r med low high < <(ratios "${RPS[$3]}" "${RPS[$4]}")
        shown=$(printf '%.3fx' "$med")
        [ "$low" = - ] || shown+=$(printf ' (95%% interval %.3fx to %.3fx)' "$low" "$high")
        if [ -z "${5:-}" ]; then printf '%-44s %s\n' "$1" "$shown"; return; fi
        printf '%-44s %s   must be %s %sx: %s\n' "$1" "$shown" "$5" "$6" "$(verdict "$low" "$high" "$5" "$6")"
    else
        read -r med low high < <(ratios "${US[$3]}" "${US[$4]}")
        shown=$(printf '%+.1f%%' "$(echo "($med - 1) * 100" | bc -l)")
        [ "$low" = - ] || shown+=$(printf ' (95%% interval %+.1f%% to %+.1f%%)' \
            "$(echo "($low - 1) * 100" | bc -l)" "$(echo "($high - 1) * 100" | bc -l)")
        if [ -z "${5:-}" ]; then printf '%-44s %s\n' "$1" "$shown"; return; fi
        printf '%-44s %s   must be %s %+.0f%%: %s\n' "$1" "$shown" "$5" "$(echo "($6 - 1) * 100" | bc -l)" \
            "$(verdict "$low" "$high" "$5" "$6")"
    fi
}

echo "per-round ratios, median:"
aim "detector on / off, throughput" throughput on off ">=" 0.97
aim "detector on / minimal, throughput" throughput on minimal ">=" 0.95
aim "detector on / minimal, CPU per request" cpu on minimal "<=" 1.10
aim "detector off / minimal, throughput" throughput off minimal
aim "detector off / minimal, CPU per request" cpu off minimal
