# Side by side on /health, sourced by scripts/detector-overhead.sh,
# scripts/virtual-overhead.sh and scripts/histogram-overhead.sh: the caller
# sets SCRIPT (its name, for errors), NAMES (the servers, in their first
# round's order), PORT[name] and a `launch NAME PORT` function, then calls
# `measure_rounds` and `aim`.
#
# Rounds alternate (the order rotates every round, so drift on a shared
# machine hits every server alike). By default every round starts the
# servers afresh (FRESH=1): a process's memory layout and the threads'
# placement can favour one server for as long as it lives, so rounds from
# one set of processes are not independent samples; FRESH=0 starts them
# once for all rounds. Server CPU is the server process's utime + stime
# from /proc over the measured run, divided by the requests answered. A
# ratio is the median of the per-round ratios with its 95% confidence
# interval, and a verdict: HELD when the whole interval is on the right
# side of the line, NOT HELD when it is all on the wrong side, INCONCLUSIVE
# when it straddles the line.
#
# Environment: TOOL (wrk if installed, else loadgen), CONNECTIONS (50),
# THREADS for the load tool (1, as wrk -t1 -c50), DURATION seconds per run
# (10), ROUNDS (9; at least 6 for an interval), FRESH (1), WORKERS for the
# servers (number of cores).

CONNECTIONS=${CONNECTIONS:-50}
THREADS=${THREADS:-1}
DURATION=${DURATION:-10}
ROUNDS=${ROUNDS:-9}
FRESH=${FRESH:-1}
case "$FRESH" in 0 | 1) ;; *) echo "$SCRIPT: FRESH must be 0 or 1, not $FRESH" >&2; exit 2 ;; esac
case "$ROUNDS" in '' | *[!0-9]* | 0) echo "$SCRIPT: ROUNDS must be a whole number of at least 1, not $ROUNDS" >&2; exit 2 ;; esac
WORKERS=${WORKERS:-$(nproc)}
if [ -z "${TOOL:-}" ]; then
    if command -v wrk >/dev/null; then TOOL=wrk; else TOOL=loadgen; fi
fi
case "$TOOL" in
    wrk) command -v wrk >/dev/null || { echo "$SCRIPT: wrk is not installed" >&2; exit 1; } ;;
    loadgen) ;;
    *) echo "$SCRIPT: TOOL must be wrk or loadgen, not $TOOL" >&2; exit 2 ;;
esac

declare -A PID RPS US MED_RPS MED_US

cleanup() {
    for name in "${NAMES[@]}"; do
        if [ -n "${PID[$name]:-}" ]; then kill "${PID[$name]}" 2>/dev/null || true; fi
    done
}
trap cleanup EXIT

# Starts every server (the caller's `launch NAME PORT`, which starts one in
# the background and sets PID[NAME]) and waits until each answers /health.
start_servers() {
    for name in "${NAMES[@]}"; do launch "$name" "${PORT[$name]}"; done
    for name in "${NAMES[@]}"; do
        for _ in $(seq 100); do
            if curl -fs "http://127.0.0.1:${PORT[$name]}/health" >/dev/null 2>&1; then continue 2; fi
            sleep 0.1
        done
        echo "$SCRIPT: the $name server did not answer /health" >&2
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

# The measured rounds, then each server's medians.
measure_rounds() {
    echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(uname -sr), load average $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "load:    $TOOL, $THREADS thread(s), $CONNECTIONS connections, ${DURATION}s per run, $ROUNDS rounds; servers: $WORKERS threads each"

    # Each server is warmed up (2 s, not recorded) after it starts.
    warm_up() { for name in "${NAMES[@]}"; do run_load "$name" 2 >/dev/null; done; }

    if [ "$FRESH" = 0 ]; then start_servers; warm_up; fi
    for round in $(seq "$ROUNDS"); do
        if [ "$FRESH" = 1 ]; then start_servers; warm_up; fi
        # Rotate the order: round 1 a b c, round 2 b c a, ...
        order=("${NAMES[@]:$(((round - 1) % ${#NAMES[@]}))}" "${NAMES[@]:0:$(((round - 1) % ${#NAMES[@]}))}")
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
    for name in "${NAMES[@]}"; do
        MED_RPS[$name]=$(median ${RPS[$name]})
        MED_US[$name]=$(median ${US[$name]})
        printf 'median %-7s %8.0f req/s %5.2f us CPU/req   (rounds: %s req/s)\n' \
            "$name" "${MED_RPS[$name]}" "${MED_US[$name]}" "$(printf '%.0f ' ${RPS[$name]})"
    done
}

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

