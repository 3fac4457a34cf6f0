#!/usr/bin/env bash
# Builds the fuzz targets of fuzz/ (cargo-fuzz, libFuzzer) and runs each
# for a bounded time; prints each target's executions per second and in
# all, and exits non-zero if any target crashed (its input is then in
# fuzz/artifacts/<target>/: copy it to fuzz/regressions/<target>/ once the
# parser is fixed, and `cargo test -p fuzz-checks` replays it for good).
#
#   scripts/fuzz.sh                        # every target, 60 s each
#   scripts/fuzz.sh --seconds 600          # the long run
#   scripts/fuzz.sh --seconds 120 resp_reply http_read_request
#   scripts/fuzz.sh --jobs 1               # one target at a time
#
# libFuzzer runs a target on one core: the targets run side by side, as
# many at once as there are cores (--jobs, default nproc), so CI's minute
# per target takes a minute per core's share of them.
#
# Installs cargo-fuzz from crates.io if it is missing. It builds on the
# stable toolchain: with `--sanitizer none`, every flag it hands rustc is
# stable (fuzz/README.md). Each target's corpus grows in
# fuzz/corpus/<target> (not committed) from the committed seeds and
# regression inputs.
set -euo pipefail
cd "$(dirname "$0")/.."

CARGO_FUZZ_VERSION=0.13.2
SECONDS_EACH=60
JOBS=$(nproc)
TARGETS=()
while [ $# -gt 0 ]; do
    case "$1" in
        --seconds)
            SECONDS_EACH=${2:-}
            shift 2 || true
            ;;
        --seconds=*)
            SECONDS_EACH=${1#--seconds=}
            shift
            ;;
        --jobs)
            JOBS=${2:-}
            shift 2 || true
            ;;
        --jobs=*)
            JOBS=${1#--jobs=}
            shift
            ;;
        -h | --help)
            # The comment block at the top, whatever its length.
            awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
            exit 0
            ;;
        -*)
            echo "fuzz.sh: unknown option $1 (see --help)" >&2
            exit 2
            ;;
        *)
            TARGETS+=("$1")
            shift
            ;;
    esac
done
if ! [[ "$SECONDS_EACH" =~ ^[1-9][0-9]*$ ]]; then
    echo "fuzz.sh: --seconds takes a whole number of seconds above 0, got '$SECONDS_EACH'" >&2
    exit 2
fi
if ! [[ "$JOBS" =~ ^[1-9][0-9]*$ ]]; then
    echo "fuzz.sh: --jobs takes a whole number above 0, got '$JOBS'" >&2
    exit 2
fi

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "fuzz.sh: installing cargo-fuzz $CARGO_FUZZ_VERSION" >&2
    cargo install cargo-fuzz --locked --version "$CARGO_FUZZ_VERSION"
fi

ALL=$(cd fuzz && cargo fuzz list)
if [ ${#TARGETS[@]} -eq 0 ]; then
    mapfile -t TARGETS <<<"$ALL"
fi
for target in "${TARGETS[@]}"; do
    if ! grep -qx "$target" <<<"$ALL"; then
        echo "fuzz.sh: no fuzz target '$target'; there are: $(echo $ALL)" >&2
        exit 2
    fi
done

# Release with debug assertions (cargo-fuzz's default): overflow checks on.
# No sanitizer: the parsers are safe Rust, and AddressSanitizer would halve
# the executions for nothing it can see there.
FUZZ_BUILD=(--sanitizer none)
echo "fuzz.sh: building the targets" >&2
(cd fuzz && cargo fuzz build "${FUZZ_BUILD[@]}") >&2

# The HTTP targets need room past the contract's 16 KiB head limit.
max_len() {
    case "$1" in
        http_*) echo 20000 ;;
        *) echo 4096 ;;
    esac
}

# The protocol's tokens, for the targets that read one (fuzz/dicts).
dict() {
    case "$1" in
        http_* | loadgen_*) echo "-dict=dicts/http.dict" ;;
        resp_*) echo "-dict=dicts/resp.dict" ;;
    esac
}

# One target's run: its summary line in fuzz/artifacts/<target>/last-run.line,
# and a non-zero exit if it crashed.
run_target() {
    local target=$1
    local corpus=fuzz/corpus/$target
    mkdir -p "$corpus" "fuzz/artifacts/$target"
    local inputs=("fuzz/seeds/$target")
    [ -d "fuzz/regressions/$target" ] && inputs+=("fuzz/regressions/$target")
    local log=fuzz/artifacts/$target/last-run.log
    echo "fuzz.sh: $target for ${SECONDS_EACH}s" >&2
    local status=0
    (cd fuzz && cargo fuzz run "${FUZZ_BUILD[@]}" "$target" \
        "../$corpus" "${inputs[@]/#/../}" -- \
        -max_total_time="$SECONDS_EACH" -max_len="$(max_len "$target")" \
        -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 $(dict "$target")) >"$log" 2>&1 || status=$?
    local runs rate units line
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
    units=$(find "$corpus" -type f | wc -l)
    line=$(printf '%-24s %10s exec/s %12s runs %6s corpus' "$target" "${rate:-?}" "${runs:-?}" "$units")
    if [ "$status" -ne 0 ]; then
        line="$line  CRASHED (exit $status; see $log)"
        grep -E '^(thread .* panicked|==[0-9]+== ERROR|SUMMARY|artifact_prefix|Test unit written)' "$log" >&2 || tail -n 20 "$log" >&2
    fi
    echo "$line" >"fuzz/artifacts/$target/last-run.line"
    echo "$line"
    return "$status"
}

# Up to $JOBS targets at once; each ends by its own -max_total_time.
running=0
for target in "${TARGETS[@]}"; do
    if [ "$running" -ge "$JOBS" ]; then
        wait -n || true
        running=$((running - 1))
    fi
    rm -f "fuzz/artifacts/$target/last-run.line"
    run_target "$target" &
    running=$((running + 1))
done
wait || true

crashed=()
summary=()
for target in "${TARGETS[@]}"; do
    line=$(cat "fuzz/artifacts/$target/last-run.line" 2>/dev/null || echo "$target: no summary (the run did not end)")
    case "$line" in
        *CRASHED* | *"no summary"*) crashed+=("$target") ;;
    esac
    summary+=("$line")
done

echo
echo "fuzz.sh: ${SECONDS_EACH}s per target"
printf '%s\n' "${summary[@]}"
if [ ${#crashed[@]} -gt 0 ]; then
    echo "fuzz.sh: crashed: ${crashed[*]}" >&2
    exit 1
fi
