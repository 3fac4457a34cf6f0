#!/usr/bin/env python3
"""The Redis clients of /users/1/cache (two GETs per request) side by side:
the blocking server's shared connection (`--redis-client shared`, Lettuce's
shape) and its r2d2 pool (`--redis-client pool`, Jedis' shape), and the
async server's shared connection. Per run: the route's rate, the server's
CPU per request (utime + stime from /proc over the run, divided by the
requests answered), and what Redis did per request: its read events
(`total_reads_processed`: a batch of commands read at once, a round trip)
and its own CPU. Redis is a throwaway `redis-server` of this script's own,
so its counters hold these servers' commands only.

Rounds rotate the order, so drift on a shared machine hits every client
alike; each run is a fresh server process. The ratios are per round, then
their median.

    scripts/redis-clients-side-by-side.py
    CONNECTIONS=32,200 ROUNDS=4 CLIENTS=blocking-shared,blocking-pool scripts/redis-clients-side-by-side.py

Environment: CONNECTIONS (a comma-separated list, 200), DURATION seconds
per measured run (10, after a 2-s warm-up), ROUNDS (3), CLIENTS
(blocking-shared,blocking-pool,async), PORT (18182) and REDIS_PORT (16382),
PG (postgres://postgres@127.0.0.1:5432), whose server gets a database
redis_side_by_side for the run.
"""
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
CONNECTIONS = [int(c) for c in os.environ.get("CONNECTIONS", "200").split(",")]
DURATION = int(os.environ.get("DURATION", "10"))
ROUNDS = int(os.environ.get("ROUNDS", "3"))
CLIENTS = os.environ.get("CLIENTS", "blocking-shared,blocking-pool,async").split(",")
PORT = int(os.environ.get("PORT", "18182"))
REDIS_PORT = int(os.environ.get("REDIS_PORT", "16382"))
PG = os.environ.get("PG", "postgres://postgres@127.0.0.1:5432")
DATABASE = "redis_side_by_side"
TICK = os.sysconf("SC_CLK_TCK")
# (binary, --redis-client) of each client.
SERVERS = {
    "blocking-shared": ("blocking-server", "shared"),
    "blocking-pool": ("blocking-server", "pool"),
    "async": ("async-server", "shared"),
}


def fail(message):
    print(f"redis-clients-side-by-side: {message}", file=sys.stderr)
    sys.exit(1)


def cpu_ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def redis_reads():
    out = subprocess.run(["redis-cli", "-p", str(REDIS_PORT), "info", "stats"],
                         capture_output=True, text=True, check=True).stdout
    stats = dict(line.strip().split(":", 1) for line in out.splitlines() if ":" in line)
    return int(stats["total_reads_processed"])


def healthy():
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{PORT}/health", timeout=1) as r:
            return r.status == 200
    except OSError:
        return False


def loadgen(connections, duration, json_out):
    url = f"http://127.0.0.1:{PORT}/users/1/cache"
    args = [f"{ROOT}/target/release/loadgen", url, "-c", str(connections), "-d", duration]
    out = subprocess.run(args + (["--json"] if json_out else []),
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out) if json_out else None


def run(client, connections, redis_pid):
    binary, redis_client = SERVERS[client]
    server = subprocess.Popen(
        [f"{ROOT}/target/release/{binary}", "--bind", f"127.0.0.1:{PORT}",
         "--database-url", f"{PG}/{DATABASE}", "--redis-url", f"redis://127.0.0.1:{REDIS_PORT}",
         "--redis-client", redis_client],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        started = time.monotonic()
        while not healthy():
            if server.poll() is not None or time.monotonic() - started > 60:
                fail(f"{client} did not start")
            time.sleep(0.1)
        loadgen(connections, "2s", json_out=False)  # warm-up
        before = (cpu_ticks(server.pid), cpu_ticks(redis_pid), redis_reads())
        report = loadgen(connections, f"{DURATION}s", json_out=True)
        after = (cpu_ticks(server.pid), cpu_ticks(redis_pid), redis_reads())
        ok = max(report["requests"]["ok"], 1)
        return {
            "rps": report["successful_throughput_rps"],
            "p99_ms": report["latency_ms"]["p99"],
            "server_us": (after[0] - before[0]) / TICK * 1e6 / ok,
            "redis_us": (after[1] - before[1]) / TICK * 1e6 / ok,
            "reads": (after[2] - before[2]) / ok,
            "load": os.getloadavg()[0],
        }
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)


def psql(sql):
    subprocess.run(["psql", f"{PG}/postgres", "-qc", sql], check=True, capture_output=True)


def main():
    for tool in ["redis-server", "redis-cli", "psql"]:
        if subprocess.run(["sh", "-c", f"command -v {tool}"], capture_output=True).returncode:
            fail(f"{tool} is not installed")
    unknown = [c for c in CLIENTS if c not in SERVERS]
    if unknown:
        fail(f"unknown client {unknown[0]}: one of {', '.join(SERVERS)}")
    packages = ["loadgen"] + sorted({SERVERS[c][0] for c in CLIENTS})
    build = ["cargo", "build", "--release", "-q"]
    subprocess.run(build + [a for p in packages for a in ("-p", p)], cwd=ROOT, check=True)
    psql(f"DROP DATABASE IF EXISTS {DATABASE}")
    psql(f"CREATE DATABASE {DATABASE}")
    redis = subprocess.Popen(["redis-server", "--port", str(REDIS_PORT), "--bind", "127.0.0.1",
                              "--save", "", "--appendonly", "no", "--dir", tempfile.gettempdir()],
                             stdout=subprocess.DEVNULL)
    try:
        time.sleep(0.5)
        print(f"machine: {os.cpu_count()} cores; {DURATION}-s runs, {ROUNDS} rounds, "
              f"load average {os.getloadavg()[0]:.1f} at start")
        for connections in CONNECTIONS:
            rounds = []
            for r in range(ROUNDS):
                order = CLIENTS[r % len(CLIENTS):] + CLIENTS[:r % len(CLIENTS)]
                rounds.append({c: run(c, connections, redis.pid) for c in order})
                for c in order:
                    m = rounds[-1][c]
                    print(f"  {connections} connections, round {r + 1}, {c}: {m['rps']:.0f} req/s, "
                          f"p99 {m['p99_ms']:.1f} ms, server {m['server_us']:.1f} us/req, "
                          f"Redis {m['redis_us']:.2f} us/req and {m['reads']:.3f} reads/req "
                          f"(load average {m['load']:.1f})", flush=True)
            summarize(connections, rounds)
    finally:
        redis.terminate()
        redis.wait(timeout=30)
        psql(f"DROP DATABASE IF EXISTS {DATABASE}")


def summarize(connections, rounds):
    for c in CLIENTS:
        median = {k: statistics.median(r[c][k] for r in rounds)
                  for k in ["rps", "server_us", "redis_us", "reads"]}
        print(f"{connections} connections, {c}: median {median['rps']:.0f} req/s, "
              f"server {median['server_us']:.1f} us/req, Redis {median['redis_us']:.2f} us/req, "
              f"{median['reads']:.3f} Redis reads/req")
    a = CLIENTS[0]
    for b in CLIENTS[1:]:
        rps = [r[a]["rps"] / r[b]["rps"] for r in rounds]
        cpu = [r[b]["server_us"] / r[a]["server_us"] for r in rounds]
        print(f"{connections} connections, {a} over {b}: req/s per round "
              f"{', '.join(f'{x:.2f}x' for x in rps)} (median {statistics.median(rps):.2f}x); "
              f"{b}'s server CPU per request over {a}'s {', '.join(f'{x:.2f}x' for x in cpu)} "
              f"(median {statistics.median(cpu):.2f}x)")


if __name__ == "__main__":
    main()
