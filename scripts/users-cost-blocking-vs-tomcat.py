#!/usr/bin/env python3
"""What a /users/1 request costs our blocking server and a warm Tomcat, in
counts: server CPU, context switches and system calls per request, from
perf stat on the server's process over a closed loop of loadgen.

    cargo build --release -p bench -p loadgen -p blocking-server
    target/release/bench --profile tiny --groups calibration-users   # builds Tomcat's classes
    scripts/users-cost-blocking-vs-tomcat.py [--connections 200] [--seconds 10] [--rounds 3]

Per round, each server fresh (the order alternating): the blocking server
(release build, 200 handler threads, a pool of 10) and the calibration
Tomcat (JDK 17, bench's JVM flags, 200 threads, HikariCP of 10) on a
throwaway database made from migrations/. Each warms up first at 64
connections (Tomcat 30 s, until its JIT is done: scripts/jvm-jit-probe.py;
ours 3 s), then perf stat counts its process while loadgen runs. Targets
127.0.0.1 only; stops the servers and drops the database when done.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from calibration_tomcat import ROOT, classpath, throwaway_database, tomcat_argv, wait_up  # noqa: E402

EVENTS = "task-clock,context-switches,cpu-migrations,raw_syscalls:sys_enter"
PORT = 18481


def loadgen(connections, seconds, out=None):
    cmd = [os.path.join(ROOT, "target/release/loadgen"), "-c", str(connections), "-d", f"{seconds}s",
           "-t", "1", f"http://127.0.0.1:{PORT}/users/1"]
    if out:
        cmd += ["--json", "--out", out]
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)


def measure(name, argv, warm_up, a, tmp):
    server = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_up(f"http://127.0.0.1:{PORT}/users/1")
        loadgen(64, warm_up)
        stat = os.path.join(tmp, "perf.txt")
        perf = subprocess.Popen(["perf", "stat", "-x", ",", "-e", EVENTS, "-p", str(server.pid), "-o", stat])
        time.sleep(0.2)
        report = os.path.join(tmp, "report.json")
        loadgen(a.connections, a.seconds, report)
        perf.send_signal(2)
        perf.wait()
        ok = json.load(open(report))["requests"]["ok"]
        counts = {}
        for line in open(stat):
            parts = line.strip().split(",")
            if len(parts) > 2 and parts[0] and not line.startswith("#"):
                try:
                    counts[parts[2]] = float(parts[0])
                except ValueError:
                    pass
        return {
            "server": name,
            "req/s": ok / a.seconds,
            "CPU us/req": counts.get("task-clock", 0) * 1e3 / ok,  # task-clock is in ms
            "switches/req": counts.get("context-switches", 0) / ok,
            "migrations/req": counts.get("cpu-migrations", 0) / ok,
            "syscalls/req": counts.get("raw_syscalls:sys_enter", 0) / ok,
        }
    finally:
        server.terminate()
        server.wait()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--connections", type=int, default=200)
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    cp = classpath("users-cost")
    rows = []
    with throwaway_database(f"users_cost_{os.getpid()}") as url, tempfile.TemporaryDirectory() as tmp:
        servers = [
            ("blocking", [os.path.join(ROOT, "target/release/blocking-server"), "--bind", f"127.0.0.1:{PORT}",
                          "--handler-threads", "200", "--db-pool-size", "10", "--database-url", url], 3),
            ("tomcat", tomcat_argv("java", cp, PORT, url), 30),
        ]
        for r in range(a.rounds):
            order = servers if r % 2 == 0 else servers[::-1]
            for name, argv, warm_up in order:
                row = measure(name, argv, warm_up, a, tmp)
                row["round"] = r + 1
                rows.append(row)
                print(f"round {r + 1} {name:9} " + "  ".join(
                    f"{k} {v:.1f}" if k != "req/s" else f"{k} {v:.0f}"
                    for k, v in row.items() if k not in ("server", "round")), flush=True)
    print(f"\nmedians over {a.rounds} rounds, {a.connections} connections, {a.seconds}-s windows:")
    for name in ("blocking", "tomcat"):
        mine = [r for r in rows if r["server"] == name]
        print(f"{name:9} " + "  ".join(
            f"{k} {statistics.median(r[k] for r in mine):.1f}" for k in mine[0] if k not in ("server", "round")))


if __name__ == "__main__":
    main()
