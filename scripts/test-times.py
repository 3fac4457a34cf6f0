#!/usr/bin/env python3
"""Where the test suite's time goes: each test binary's wall time and its
slowest tests, run as `cargo test` runs them (one binary after another, the
tests of a binary in parallel).

    scripts/test-times.py                      # the README's command's tests
    scripts/test-times.py --include-ignored    # the whole suite, as CI runs it
    scripts/test-times.py --include-ignored --top 40 -p bench

Builds the test binaries first (`cargo test --no-run`), then runs each from
its package's folder, as cargo does. Per-test times come from libtest's
`--report-time`, an unstable flag that the stable toolchain's libtest
accepts when RUSTC_BOOTSTRAP is set for the test binary only (the build
itself is untouched, so nothing is rebuilt). A test that waits at the
harness's load gate (`harness::exclusive`, `harness::quiet`) has that wait
counted in its libtest time: the gate's own log (HARNESS_GATE_LOG) gives
the time it held the gate, which is what is listed for it, and each
binary's sum of exclusive holds is the part of its time no parallelism
can shorten. Doc tests are timed as one line (`cargo test --doc`).
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

TEST_LINE = re.compile(r"^test (\S+) \.\.\. (ok|FAILED|ignored)(?: <([0-9.]+)s>)?")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--include-ignored", action="store_true")
    parser.add_argument("--top", type=int, default=25, help="slowest tests to list")
    parser.add_argument("-p", "--package", action="append", default=[])
    args = parser.parse_args()

    packages = [f"-p{p}" for p in args.package] or ["--workspace"]
    build = subprocess.run(
        ["cargo", "test", *packages, "--no-run", "--message-format=json"],
        stdout=subprocess.PIPE,
        check=True,
        text=True,
    )
    binaries = []
    for line in build.stdout.splitlines():
        message = json.loads(line)
        if message.get("reason") != "compiler-artifact" or not message.get("executable"):
            continue
        if not message["profile"]["test"]:
            continue
        package_dir = os.path.dirname(message["manifest_path"])
        name = message["target"]["name"]
        kind = message["target"]["kind"][0]
        label = f"{os.path.basename(package_dir)}::{name}" if kind != "lib" else f"{name} (lib)"
        binaries.append((label, message["executable"], package_dir))

    per_binary, per_test, failed = [], [], []
    env = dict(os.environ, RUSTC_BOOTSTRAP="1")
    flags = ["-Zunstable-options", "--report-time"]
    if args.include_ignored:
        flags.insert(0, "--include-ignored")
    serial = []
    for label, executable, package_dir in binaries:
        env["CARGO_MANIFEST_DIR"] = package_dir
        gate_log = tempfile.NamedTemporaryFile(prefix="gate-", delete=False)
        gate_log.close()
        env["HARNESS_GATE_LOG"] = gate_log.name
        start = time.monotonic()
        run = subprocess.run(
            [executable, *flags],
            cwd=package_dir,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        took = time.monotonic() - start
        per_binary.append((took, label))
        held, exclusive = {}, 0.0
        with open(gate_log.name) as log:
            for entry in log:
                name, kind, _waited, seconds = entry.rstrip("\n").split("\t")
                held[name] = (kind, float(seconds))
                exclusive += float(seconds) if kind == "exclusive" else 0.0
        os.unlink(gate_log.name)
        if exclusive:
            serial.append((exclusive, label))
        for line in run.stdout.splitlines():
            match = TEST_LINE.match(line)
            if match and match.group(3):
                name = match.group(1)
                kind, seconds = held.get(name, ("", float(match.group(3))))
                per_test.append((seconds, f"{label} {name}" + (f" [{kind}]" if kind else "")))
            if match and match.group(2) == "FAILED":
                failed.append(f"{label} {match.group(1)}")
        if run.returncode != 0 and not failed:
            failed.append(f"{label} (exit {run.returncode})")
        print(f"{took:8.1f} s  {label}", flush=True)

    start = time.monotonic()
    subprocess.run(["cargo", "test", *packages, "--doc", "-q"], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    per_binary.append((time.monotonic() - start, "doc tests"))

    total = sum(t for t, _ in per_binary)
    print(f"\nbinaries, slowest first ({total:.0f} s in all):")
    for took, label in sorted(per_binary, reverse=True)[:15]:
        print(f"{took:8.1f} s  {label}")
    for seconds, label in serial:
        print(f"{label}: {seconds:.0f} s holding the load gate exclusively (run one at a time)")
    print("\nslowest tests (gated ones: the time they held the gate):")
    for took, label in sorted(per_test, reverse=True)[: args.top]:
        print(f"{took:8.1f} s  {label}")
    if failed:
        print("\nfailed: " + ", ".join(failed), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
