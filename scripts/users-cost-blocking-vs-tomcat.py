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
import glob
import json
import os
import statistics
import subprocess
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
JARS = ["tomcat10-embed-core", "jakarta-annotation-api", "postgresql", "HikariCP", "slf4j-api", "slf4j-nop"]
EVENTS = "task-clock,context-switches,cpu-migrations,raw_syscalls:sys_enter"
PORT = 18481


def wait_up(url):
    for _ in range(300):
        try:
            urllib.request.urlopen(url, timeout=2).read()
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"no answer from {url}")


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
    built = sorted(glob.glob("/tmp/bench-calibration/*/TomcatServer.class"), key=os.path.getmtime)
    if not built:
        raise SystemExit("users-cost: no calibration classes: run bench on a calibration group once (see --help)")
    classpath = ":".join([os.path.dirname(built[-1])] + [f"/usr/share/java/{j}.jar" for j in JARS])
    db = f"users_cost_{os.getpid()}"
    url = f"postgres://postgres@127.0.0.1:5432/{db}"
    psql = ["psql", "-q", "-h", "127.0.0.1", "-U", "postgres"]
    subprocess.run(psql + ["-c", f"create database {db}"], check=True)
    servers = [
        ("blocking", [os.path.join(ROOT, "target/release/blocking-server"), "--bind", f"127.0.0.1:{PORT}",
                      "--handler-threads", "200", "--db-pool-size", "10", "--database-url", url], 3),
        ("tomcat", ["java", "-Xms512m", "-Xmx512m", "-XX:+UseParallelGC", "-cp", classpath, "TomcatServer",
                    "--bind", f"127.0.0.1:{PORT}", "--handler-threads", "200", "--db-pool-size", "10",
                    "--database-url", url], 30),
    ]
    rows = []
    try:
        for m in sorted(glob.glob(os.path.join(ROOT, "migrations", "*.sql"))):
            subprocess.run(psql + ["-d", db, "-f", m], check=True, stdout=subprocess.DEVNULL)
        with tempfile.TemporaryDirectory() as tmp:
            for r in range(a.rounds):
                order = servers if r % 2 == 0 else servers[::-1]
                for name, argv, warm_up in order:
                    row = measure(name, argv, warm_up, a, tmp)
                    row["round"] = r + 1
                    rows.append(row)
                    print(f"round {r + 1} {name:9} " + "  ".join(
                        f"{k} {v:.1f}" if k != "req/s" else f"{k} {v:.0f}"
                        for k, v in row.items() if k not in ("server", "round")), flush=True)
    finally:
        subprocess.run(psql + ["-c", f"drop database if exists {db}"])
    print(f"\nmedians over {a.rounds} rounds, {a.connections} connections, {a.seconds}-s windows:")
    for name, _, _ in servers:
        mine = [r for r in rows if r["server"] == name]
        print(f"{name:9} " + "  ".join(
            f"{k} {statistics.median(r[k] for r in mine):.1f}" for k in mine[0] if k not in ("server", "round")))


if __name__ == "__main__":
    main()
