#!/usr/bin/env python3
"""A fresh Tomcat's JIT, a second at a time: how long the calibration
server (calibration/TomcatServer.java) compiles its /users/1 path under
load on this machine, counted two ways.

Each second it prints the server's answers (its own request counter), the
CPU its JIT compiler threads used (each thread's /proc schedstat, as the
server's jvm_compiler_cpu_seconds_total reads it), the JIT's compile time
as the JVM counts it (CompilationMXBean: the compilers' elapsed time,
jvm_compilation_time_seconds_total), and the process's CPU per request.

    cargo build --release -p bench -p loadgen
    target/release/bench --profile tiny --groups calibration-users   # builds the classes
    scripts/jvm-jit-probe.py --connections 64 --seconds 35

It uses the classes bench built last (/tmp/bench-calibration/<hash>/),
Debian's jars, a throwaway database made from migrations/, and the JVM
flags bench gives (Xms512m, Xmx512m, ParallelGC); --java picks the JVM
(e.g. .venv-jdk25/.../bin/java). It targets 127.0.0.1 only and stops the
server and drops the database when done.
"""
import argparse
import os
import re
import subprocess
import sys
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from calibration_tomcat import ROOT, classpath, throwaway_database, tomcat_argv, wait_up  # noqa: E402


def compiler_cpu(pid):
    """Seconds on a core of the JVM's compiler threads, from schedstat."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            if "CompilerThre" not in open(f"/proc/{pid}/task/{task}/comm").read():
                continue
            total += int(open(f"/proc/{pid}/task/{task}/schedstat").read().split()[0])
        except (OSError, ValueError):
            pass  # the thread ended meanwhile
    return total / 1e9


def process_cpu(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def metrics(port):
    body = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read().decode()
    compile_s = float(re.search(r"^jvm_compilation_time_seconds_total\{[^}]*\} (\S+)", body, re.M).group(1))
    answered = sum(int(n) for n in re.findall(r'^http_requests_total\{[^}]*route="/users/\{id\}"[^}]*\} (\d+)', body, re.M))
    return compile_s, answered


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--connections", type=int, default=64)
    ap.add_argument("--seconds", type=int, default=35)
    ap.add_argument("--java", default="java")
    ap.add_argument("--port", type=int, default=18480)
    a = ap.parse_args()
    cp = classpath("jvm-jit-probe")
    with throwaway_database(f"jit_probe_{os.getpid()}") as url:
        server = subprocess.Popen(tomcat_argv(a.java, cp, a.port, url),
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_up(f"http://127.0.0.1:{a.port}/metrics")
            loadgen = subprocess.Popen(
                [os.path.join(ROOT, "target/release/loadgen"), "-c", str(a.connections), "-d", f"{a.seconds}s",
                 "-t", "1", f"http://127.0.0.1:{a.port}/users/1"], stdout=subprocess.DEVNULL)
            (c0, (m0, n0), t0), cum = (compiler_cpu(server.pid), metrics(a.port), process_cpu(server.pid)), 0.0
            print(f"Tomcat /users/1 at {a.connections} connections, {a.java}")
            print("  s   req/s  compiler CPU (sum)  compile time  process CPU  us/request")
            for i in range(a.seconds):
                time.sleep(1)
                c1, (m1, n1), t1 = compiler_cpu(server.pid), metrics(a.port), process_cpu(server.pid)
                cum += c1 - c0
                n = n1 - n0
                print(f"{i + 1:3d} {n:7d}  {c1 - c0:5.2f} ({cum:5.2f})  {m1 - m0:12.2f}  {t1 - t0:11.2f}  "
                      f"{1e6 * (t1 - t0) / max(n, 1):10.1f}", flush=True)
                c0, m0, n0, t0 = c1, m1, n1, t1
            loadgen.wait()
        finally:
            server.terminate()
            server.wait()


if __name__ == "__main__":
    main()
