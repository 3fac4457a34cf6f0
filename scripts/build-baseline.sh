#!/usr/bin/env bash
# Builds both servers (release) of another commit, for the scripts that put
# a change beside the build it changed (instructions-per-request.sh with
# BASELINE=, histogram-overhead.sh), and prints the directory holding the
# binaries. The commit's tree is exported with `git archive` (no worktree
# to clean up) under target/baseline-src/<sha>, built into target/baseline
# (its own target directory, kept between runs, so a second run of the
# same commit builds nothing).
#
#   scripts/build-baseline.sh 24926f0      # prints .../target/baseline/release
set -euo pipefail
cd "$(dirname "$0")/.."

REF=${1:-}
if [ -z "$REF" ]; then
    echo "build-baseline: give the commit to build, e.g. scripts/build-baseline.sh main" >&2
    exit 2
fi
SHA=$(git rev-parse --verify -q "$REF^{commit}") || {
    echo "build-baseline: $REF is not a commit of this repository" >&2
    exit 2
}
SRC=target/baseline-src/$SHA
if [ ! -f "$SRC/Cargo.toml" ]; then
    rm -rf "$SRC"
    mkdir -p "$SRC"
    git archive "$SHA" | tar -x -C "$SRC"
fi
CARGO_TARGET_DIR="$PWD/target/baseline" cargo build --release -q \
    --manifest-path "$SRC/Cargo.toml" \
    -p async-server --bin async-server -p blocking-server --bin blocking-server >&2
echo "$PWD/target/baseline/release"
