"""What scripts/jvm-jit-probe.py and scripts/users-cost-blocking-vs-tomcat.py
share: the calibration Tomcat as bench runs it (the classes bench built
last, Debian's jars, bench's JVM flags), a throwaway database made from
migrations/, and waiting for a server to answer."""
import contextlib
import glob
import os
import subprocess
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
JARS = ["tomcat10-embed-core", "jakarta-annotation-api", "postgresql", "HikariCP", "slf4j-api", "slf4j-nop"]
# bench's JVM_FLAGS (crates/bench/src/servers/java.rs).
JVM_FLAGS = ["-Xms512m", "-Xmx512m", "-XX:+UseParallelGC"]
PSQL = ["psql", "-q", "-h", "127.0.0.1", "-U", "postgres"]


def classpath(script):
    """The class path of the Tomcat bench built last; exits with one line
    naming what builds it when there is none."""
    built = sorted(glob.glob("/tmp/bench-calibration/*/TomcatServer.class"), key=os.path.getmtime)
    if not built:
        raise SystemExit(f"{script}: no calibration classes: run bench on a calibration group once (see --help)")
    return ":".join([os.path.dirname(built[-1])] + [f"/usr/share/java/{j}.jar" for j in JARS])


def tomcat_argv(java, cp, port, database_url):
    """Tomcat on 127.0.0.1:`port`, 200 handler threads and HikariCP of 10, as bench sizes it."""
    return [java, *JVM_FLAGS, "-cp", cp, "TomcatServer", "--bind", f"127.0.0.1:{port}",
            "--handler-threads", "200", "--db-pool-size", "10", "--database-url", database_url]


@contextlib.contextmanager
def throwaway_database(name):
    """A database made from migrations/, dropped on the way out; yields its URL."""
    subprocess.run(PSQL + ["-c", f"create database {name}"], check=True)
    try:
        for m in sorted(glob.glob(os.path.join(ROOT, "migrations", "*.sql"))):
            subprocess.run(PSQL + ["-d", name, "-f", m], check=True, stdout=subprocess.DEVNULL)
        yield f"postgres://postgres@127.0.0.1:5432/{name}"
    finally:
        subprocess.run(PSQL + ["-c", f"drop database if exists {name}"])


def wait_up(url, tries=300):
    """Returns once `url` answers; exits after `tries` tenths of a second."""
    for _ in range(tries):
        try:
            urllib.request.urlopen(url, timeout=2).read()
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"no answer from {url}")
