#!/usr/bin/python3
"""The checks scripts/compose-check.sh runs against `docker compose up`, from
the host, through the published ports on 127.0.0.1 only.

  contract     every route of the contract on each server: status, body
               bytes and Content-Type as the contract suite expects them
               (tests/tests/suites/contract_suite.rs), and every route of
               crates/contract/src/routes.rs covered
  loadgen      a loadgen JSON report: requests answered, no error
  prometheus   the observe profile's Prometheus scrapes every server (every
               target up), and every query of the Grafana dashboard runs
  grafana      Grafana's provisioning files, parsed and matched against the
               compose file (Debian has no Grafana, so none runs here)
  drain        `docker compose stop` while requests are in flight: every
               request started before a server's SIGTERM gets its answer,
               and the server exits 0 within its stop timeout

Debian's /usr/bin/python3: the standard library, and PyYAML, which
docker-compose (v1) depends on. Exit 1 with one line per failure.
"""

import argparse
import json
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"


def fail(failures):
    for line in failures:
        print(f"FAIL {line}", file=sys.stderr)
    return 1 if failures else 0


# --- one HTTP/1.1 exchange ----------------------------------------------------


def exchange(port, method, path, headers=(), body=b"", timeout=30.0):
    """One request on a fresh connection with `Connection: close`; the status,
    the headers (lower-case names) and the body bytes, as they came."""
    head = [f"{method} {path} HTTP/1.1", f"Host: {HOST}:{port}", "Connection: close"]
    head += [f"{name}: {value}" for name, value in headers]
    if body or method == "POST":
        head.append(f"Content-Length: {len(body)}")
    raw = ("\r\n".join(head) + "\r\n\r\n").encode() + body
    with socket.create_connection((HOST, port), timeout=timeout) as sock:
        try:
            sock.sendall(raw)
        except OSError:
            pass  # answered and closed before reading it all (too large): read the answer
        chunks = []
        while True:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            chunks.append(chunk)
    data = b"".join(chunks)
    if not data:
        raise ValueError("the connection closed without an answer")
    head_end = data.find(b"\r\n\r\n")
    if head_end < 0:
        raise ValueError(f"no complete response head in {data[:200]!r}")
    lines = data[:head_end].decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ")[1])
    fields = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        fields[name.strip().lower()] = value.strip()
    rest = data[head_end + 4 :]
    if "content-length" in fields:
        rest = rest[: int(fields["content-length"])]
    elif fields.get("transfer-encoding", "").lower() == "chunked":
        rest = dechunk(rest)
    return status, fields, rest


def dechunk(data):
    out = b""
    while True:
        size_end = data.index(b"\r\n")
        size = int(data[:size_end].split(b";")[0], 16)
        if size == 0:
            return out
        out += data[size_end + 2 : size_end + 2 + size]
        data = data[size_end + 2 + size + 2 :]


# --- contract -------------------------------------------------------------------


def js(value):
    """JSON as serde_json writes it: no spaces, non-ASCII as is."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def err(message):
    return js({"error": message})


def debug(raw):
    """Rust's `{:?}` of a plain ASCII string."""
    return '"' + raw.replace("\\", "\\\\").replace('"', '\\"') + '"'


def bad_id(raw):
    return 400, err(f"id must be a positive integer, got {debug(raw)}")


def bad_n(raw):
    return 400, err(f"n must be an integer from 1 to 100000000, got {debug(raw)}")


def user_json(uid, name, email):
    return js(
        {
            "id": uid,
            "name": name,
            "email": email,
            "created_at": "2024-01-01T00:00:00.000000Z",
            "updated_at": "2024-01-01T00:00:00.000000Z",
        }
    )


NOT_FOUND_ROUTE = (404, err("no such route"))
NOT_ALLOWED = (405, err("method not allowed"))
NO_JSON = (415, err("expected Content-Type: application/json"))
JSON_HEADER = [("Content-Type", "application/json")]

# (route pattern it covers, name, method, path, headers, body, (status, body
# bytes, or None for any {"error": string})): the contract suite's cases.
CASES = [
    ("/health", "health", "GET", "/health", [], b"", (200, b'{"health":"ok"}')),
    ("/cpu", "cpu small n", "GET", "/cpu?n=1000", [], b"",
     (200, b'{"n":1000,"result":21065.833110879048}')),
    ("/cpu", "cpu default n", "GET", "/cpu", [], b"",
     (200, b'{"n":10000000,"result":21081849486.439312}')),
    ("/cpu", "cpu n=0", "GET", "/cpu?n=0", [], b"", bad_n("0")),
    ("/cpu", "cpu n too big", "GET", "/cpu?n=100000001", [], b"", bad_n("100000001")),
    ("/cpu", "cpu n not a number", "GET", "/cpu?n=abc", [], b"", bad_n("abc")),
    ("/users/{id}", "user 1", "GET", "/users/1", [], b"",
     (200, user_json(1, "seungwoo", "seungwoo@gmail.com"))),
    ("/users/{id}", "user 10000", "GET", "/users/10000", [], b"",
     (200, user_json(10000, "user10000", "user10000@example.com"))),
    ("/users/{id}", "absent user", "GET", "/users/10001", [], b"",
     (404, err("user 10001 not found"))),
    ("/users/{id}", "user id 0", "GET", "/users/0", [], b"", bad_id("0")),
    ("/users/{id}", "user id negative", "GET", "/users/-1", [], b"", bad_id("-1")),
    ("/users/{id}", "user id text", "GET", "/users/abc", [], b"", bad_id("abc")),
    ("/users/{id}", "user id overflow", "GET", "/users/99999999999999999999", [], b"",
     bad_id("99999999999999999999")),
    ("/users/{id}/cache", "cached user 1", "GET", "/users/1/cache", [], b"",
     (200, b'{"name":"seungwoo","email":"seungwoo@gmail.com"}')),
    ("/users/{id}/cache", "cached absent user", "GET", "/users/10001/cache", [], b"",
     (404, err("user 10001 not found"))),
    ("/users/{id}/cache", "cached bad id", "GET", "/users/x/cache", [], b"", bad_id("x")),
    ("/posts/{id}", "post 1", "GET", "/posts/1", [], b"",
     (200, b'{"id":1,"content":"Post content is 1"}')),
    ("/posts/{id}", "post 10 fails on purpose", "GET", "/posts/10", [], b"",
     (500, err("post 10 failed (ids from 10 fail on purpose, as in seed 001)"))),
    ("/posts/{id}", "post bad id", "GET", "/posts/nope", [], b"", bad_id("nope")),
    ("/echo", "echo", "POST", "/echo", JSON_HEADER,
     b'{"FirstName":"Ada","LastName":"Lovelace","Age":36}',
     (200, b'{"firstName":"Adax","lastName":"Lovelacex","age":46}')),
    ("/echo", "echo with charset", "POST", "/echo",
     [("Content-Type", "application/json; charset=utf-8")],
     b'{"FirstName":"a","LastName":"b","Age":-10}',
     (200, b'{"firstName":"ax","lastName":"bx","age":0}')),
    ("/echo", "echo malformed json", "POST", "/echo", JSON_HEADER, b"{not json", (400, None)),
    ("/echo", "echo missing field", "POST", "/echo", JSON_HEADER, b'{"FirstName":"a"}', (400, None)),
    ("/echo", "echo wrong content type", "POST", "/echo", [("Content-Type", "text/plain")],
     b'{"FirstName":"a","LastName":"b","Age":1}', NO_JSON),
    ("/echo", "echo no content type", "POST", "/echo", [],
     b'{"FirstName":"a","LastName":"b","Age":1}', NO_JSON),
    ("/echo", "echo body over 64 KiB", "POST", "/echo", JSON_HEADER, b" " * (64 * 1024 + 1),
     (413, err("request body is larger than 65536 bytes"))),
    (None, "unknown route", "GET", "/nope", [], b"", NOT_FOUND_ROUTE),
    (None, "unknown sub-route", "GET", "/users/1/nope", [], b"", NOT_FOUND_ROUTE),
    ("/echo", "echo with GET", "GET", "/echo", [], b"", NOT_ALLOWED),
    ("/health", "health with POST", "POST", "/health", [], b"", NOT_ALLOWED),
    ("/users/{id}", "user with DELETE", "DELETE", "/users/1", [], b"", NOT_ALLOWED),
    ("/health", "content-length with a sign", "GET", "/health", [("Content-Length", "+5")], b"",
     (400, err("malformed request: content-length"))),
    ("/health", "header over 16 KiB", "GET", "/health", [("X-Big", "a" * 20 * 1024)], b"",
     (431, err("request headers are larger than 16384 bytes"))),
]

# The async server's variants answer as their plain routes do; on the
# blocking server (either thread model) they are unknown routes.
VARIANTS = [
    ("/cpu/spawn-blocking", "/cpu/spawn-blocking?n=1000", "cpu small n"),
    ("/cpu/rayon", "/cpu/rayon?n=1000", "cpu small n"),
    ("/users/{id}/blocking", "/users/1/blocking", "user 1"),
    ("/users/{id}/blocking", "/users/10001/blocking", "absent user"),
    ("/users/{id}/spawn-blocking", "/users/1/spawn-blocking", "user 1"),
    ("/users/{id}/spawn-blocking", "/users/abc/spawn-blocking", "user id text"),
    ("/users/{id}/cache/blocking", "/users/1/cache/blocking", "cached user 1"),
    ("/posts/{id}/blocking", "/posts/1/blocking", "post 1"),
    ("/posts/{id}/blocking", "/posts/12/blocking", None),
]


def check_answer(label, got, expect):
    status, fields, body = got
    want_status, want_body = expect
    if status != want_status:
        return f"{label}: status {status}, expected {want_status}; body {body[:200]!r}"
    if want_body is None:
        try:
            shape = json.loads(body)
        except ValueError:
            shape = None
        if not (isinstance(shape, dict) and list(shape) == ["error"] and isinstance(shape["error"], str)):
            return f"{label}: expected the {{\"error\":..}} shape, got {body[:200]!r}"
    elif body != want_body:
        return f"{label}: body {body[:200]!r}, expected {want_body!r}"
    if body and not fields.get("content-type", "").startswith("application/json"):
        return f"{label}: Content-Type {fields.get('content-type')!r}, expected application/json"
    return None


def contract_routes():
    """(method, pattern, async only) of every route in the contract's table."""
    text = (ROOT / "crates/contract/src/routes.rs").read_text()
    table = text[text.index("route_table! {") :]
    rows = re.findall(
        r'method:\s*Method::(\w+),\s*pattern:\s*"([^"]+)",\s*servers:\s*Servers::(\w+)', table
    )
    if not rows:
        raise SystemExit("FAIL no route found in crates/contract/src/routes.rs route_table!")
    return [(method.upper(), pattern, servers == "AsyncOnly") for method, pattern, servers in rows]


def metrics_case(port, label):
    status, fields, body = exchange(port, "GET", "/metrics")
    text = body.decode("utf-8", "replace")
    problems = []
    if status != 200 or not fields.get("content-type", "").startswith("text/plain"):
        problems.append(f"{status} {fields.get('content-type')!r}")
    for needle in (
        f'http_requests_total{{server="{label}",route="/users/{{id}}",status="200"}}',
        f'process_threads{{server="{label}"}}',
        "pool_max_connections{",
    ):
        if needle not in text:
            problems.append(f"no {needle}")
    for secret in ("postgres://", "redis://", "password"):
        if secret in text:
            problems.append(f"leaks {secret}")
    return [f"{label} :{port} /metrics: {p}" for p in problems]


def contract(args):
    servers = []  # (port, metrics label, async)
    for spec in args.server:
        port, label = spec.split("=")
        servers.append((int(port), label, label == "async"))
    failures = []
    by_name = {case[1]: case for case in CASES}
    covered = set()
    checked = 0
    for port, label, is_async in servers:
        # A server that answers its healthcheck inside its container but not
        # here listens where the published port does not lead (its own
        # loopback, say): one line says so instead of one per case.
        try:
            exchange(port, "GET", "/health", timeout=10)
        except (OSError, ValueError) as e:
            failures.append(f"{label}: no answer to GET /health through {HOST}:{port}: {e}")
            continue
        for pattern, name, method, path, headers, body, expect in CASES:
            try:
                got = exchange(port, method, path, headers, body)
            except (OSError, ValueError) as e:
                failures.append(f"{label} :{port} {name}: {e}")
                continue
            checked += 1
            problem = check_answer(f"{label} :{port} {name}", got, expect)
            if problem:
                failures.append(problem)
            elif pattern:
                covered.add((method, pattern, label))
        for pattern, path, plain in VARIANTS:
            if is_async:
                expect = by_name[plain][6] if plain else (
                    500, err("post 12 failed (ids from 10 fail on purpose, as in seed 001)"))
            else:
                expect = NOT_FOUND_ROUTE
            try:
                got = exchange(port, "GET", path)
            except (OSError, ValueError) as e:
                failures.append(f"{label} :{port} GET {path}: {e}")
                continue
            checked += 1
            problem = check_answer(f"{label} :{port} GET {path}", got, expect)
            if problem:
                failures.append(problem)
            elif is_async:
                covered.add(("GET", pattern, label))
        try:
            metrics_problems = metrics_case(port, label)
        except (OSError, ValueError) as e:
            metrics_problems = [f"{label} :{port} /metrics: {e}"]
        checked += 1
        failures += metrics_problems
        if not metrics_problems:
            covered.add(("GET", "/metrics", label))
    for method, pattern, async_only in contract_routes():
        for _, label, is_async in servers:
            if (async_only and not is_async) or (method, pattern, label) in covered:
                continue
            failures.append(f"{label}: no passing case for {method} {pattern} (crates/contract/src/routes.rs)")
    print(f"contract: {checked} answers checked on {len(servers)} servers, {len(failures)} failures")
    return fail(failures)


# --- loadgen ----------------------------------------------------------------------


def loadgen(args):
    report = json.loads(Path(args.report).read_text())
    requests = report["requests"]
    print(f"loadgen {args.name}: {requests['total']} requests, {requests['ok']} ok, "
          f"{requests['errors']} errors, p99 {report.get('latency_ms', {}).get('p99', '?')} ms")
    failures = []
    if requests["ok"] == 0 or requests["errors"] != 0:
        failures.append(f"loadgen {args.name}: {requests['errors']} errors "
                        f"({json.dumps(report.get('errors'))}), {requests['ok']} ok")
    return fail(failures)


# --- prometheus ---------------------------------------------------------------------


def get_json(url):
    with urllib.request.urlopen(url, timeout=10) as answer:
        return json.loads(answer.read())


def prometheus(args):
    base = f"http://{HOST}:{args.port}"
    want = set(args.target)
    deadline = time.monotonic() + args.wait
    while True:
        try:
            targets = get_json(f"{base}/api/v1/targets")["data"]["activeTargets"]
            health = {t["labels"]["instance"]: t["health"] for t in targets}
        except (OSError, ValueError, KeyError) as e:
            health = {"(api)": str(e)}
        if set(health) == want and all(h == "up" for h in health.values()):
            break
        if time.monotonic() > deadline:
            return fail([f"prometheus targets after {args.wait} s: {health}, expected {sorted(want)} up"])
        time.sleep(1)
    print(f"prometheus: every target up: {', '.join(sorted(health))}")
    # Every panel's queries, as Grafana would send them with every server
    # picked: they must parse and run on this Prometheus.
    dashboard = json.loads((ROOT / "observe/grafana/dashboards/servers.json").read_text())
    failures, with_data, total = [], 0, 0
    for panel in dashboard["panels"]:
        for target in panel.get("targets", []):
            expr = target["expr"].replace("$__rate_interval", "20s").replace(
                "$server", "(blocking|async|virtual)")
            total += 1
            try:
                answer = get_json(f"{base}/api/v1/query?" + urllib.parse.urlencode({"query": expr}))
            except (OSError, ValueError) as e:
                failures.append(f"panel {panel['title']!r}: {expr}: {e}")
                continue
            if answer.get("status") != "success":
                failures.append(f"panel {panel['title']!r}: {expr}: {answer}")
            elif answer["data"]["result"]:
                with_data += 1
    print(f"prometheus: {total} dashboard queries ran, {with_data} with data")
    return fail(failures)


# --- grafana -------------------------------------------------------------------------


def grafana(args):
    import yaml  # Debian's python3-yaml, a dependency of docker-compose

    compose = yaml.safe_load(Path(args.compose_config).read_text())
    services = compose["services"]
    failures = []
    service = services.get("grafana")
    if service is None:
        return fail(["grafana: no grafana service in the observe profile's config"])
    mounts = {}
    for volume in service.get("volumes", []):
        if isinstance(volume, dict):
            source, target = volume["source"], volume["target"]
        else:
            source, target = volume.split(":")[:2]
        mounts[target] = Path(source)
    provisioning = mounts.get("/etc/grafana/provisioning")
    if provisioning is None:
        return fail([f"grafana: nothing mounted at /etc/grafana/provisioning: {mounts}"])

    def host_path(container_path):
        for target, source in mounts.items():
            if container_path == target or container_path.startswith(target + "/"):
                return source / container_path[len(target) :].lstrip("/")
        return None

    uids = set()
    for path in sorted((provisioning / "datasources").glob("*.y*ml")):
        doc = yaml.safe_load(path.read_text())
        if doc.get("apiVersion") != 1:
            failures.append(f"{path}: apiVersion {doc.get('apiVersion')!r}, expected 1")
        for source in doc.get("datasources", []):
            uids.add(source.get("uid"))
            url = urllib.parse.urlsplit(source.get("url", ""))
            target = services.get(url.hostname or "")
            if source.get("type") != "prometheus" or target is None or url.port != 9090:
                failures.append(f"{path}: datasource {source.get('name')!r} at {source.get('url')!r} "
                                "is not the compose file's prometheus service on 9090")
    if not uids:
        failures.append(f"{provisioning}/datasources: no datasource")
    dashboards = []
    for path in sorted((provisioning / "dashboards").glob("*.y*ml")):
        doc = yaml.safe_load(path.read_text())
        for provider in doc.get("providers", []):
            folder = host_path(provider.get("options", {}).get("path", ""))
            if folder is None or not folder.is_dir():
                failures.append(f"{path}: provider path {provider.get('options')} is not a mounted folder")
                continue
            dashboards += sorted(folder.glob("*.json"))
    if not dashboards:
        failures.append("grafana: no dashboard provisioned")
    home = service.get("environment", {}).get("GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH")
    if home and not (host_path(home) and host_path(home).is_file()):
        failures.append(f"grafana: the home dashboard {home} is not in a mounted folder")
    for path in dashboards:
        dashboard = json.loads(path.read_text())
        refs = [dashboard.get("templating", {}).get("list", [])]
        for panel in dashboard.get("panels", []):
            refs.append([panel] + panel.get("targets", []))
            if panel.get("type") != "row" and not any(t.get("expr") for t in panel.get("targets", [])):
                failures.append(f"{path.name}: panel {panel.get('title')!r} has no query")
        for item in (i for group in refs for i in group):
            source = item.get("datasource")
            if isinstance(source, dict) and source.get("uid") not in uids:
                failures.append(f"{path.name}: {item.get('title', item.get('refId'))!r} names "
                                f"datasource {source.get('uid')!r}, provisioned: {sorted(uids)}")
        print(f"grafana: {path.name}: {len(dashboard.get('panels', []))} panels, datasources {sorted(uids)}")
    return fail(failures)


# --- drain --------------------------------------------------------------------------


def docker_json(*argv):
    return json.loads(subprocess.run(["docker", *argv], check=True, capture_output=True, text=True).stdout)


def parse_time(stamp):
    """Docker's RFC 3339 time with nanoseconds, as seconds since the epoch."""
    stamp = stamp.strip().replace("Z", "+00:00")
    stamp = re.sub(r"(\.\d{6})\d*", r"\1", stamp)
    return datetime.fromisoformat(stamp).timestamp()


POST_1 = (200, b'{"id":1,"content":"Post content is 1"}')


def drain(args):
    """Requests to /posts/1 (300 ms) start every 50 ms on every server, on
    fresh connections, until each server stops taking them; meanwhile the
    stop command runs. A request started before the server logged its
    SIGTERM must get its full answer."""
    servers = []
    for spec in args.server:
        port, container = spec.split("=")
        servers.append((int(port), container))
    records = {port: [] for port, _ in servers}
    lock = threading.Lock()
    stop_at = time.time() + args.max_seconds

    def one(port):
        start = time.time()
        try:
            status, _, body = exchange(port, "GET", "/posts/1", timeout=15)
            result = (status, body)
        except (OSError, ValueError) as e:
            result = (None, repr(e).encode())
        with lock:
            records[port].append((start, time.time(), result))

    def launcher(port):
        workers = []
        refused = 0
        while time.time() < stop_at and refused < 3:
            worker = threading.Thread(target=one, args=(port,))
            worker.start()
            workers.append(worker)
            time.sleep(0.05)
            with lock:
                recent = [r for r in records[port][-3:]]
            refused = sum(1 for r in recent if r[2][0] is None)
        for worker in workers:
            worker.join()

    launchers = [threading.Thread(target=launcher, args=(port,)) for port, _ in servers]
    for thread in launchers:
        thread.start()
    time.sleep(1.0)
    began = time.time()
    stopped = subprocess.run(args.stop_command, shell=True)
    took = time.time() - began
    for thread in launchers:
        thread.join()
    print(f"drain: `{args.stop_command}` exited {stopped.returncode} after {took:.1f} s")
    failures = [] if stopped.returncode == 0 else [f"the stop command exited {stopped.returncode}"]
    for port, container in servers:
        state = docker_json("inspect", container)[0]["State"]
        logs = subprocess.run(["docker", "logs", "-t", container], capture_output=True, text=True)
        lines = [l for l in (logs.stdout + logs.stderr).splitlines() if "signal received" in l]
        grace = args.grace
        if not lines:
            failures.append(f"{container}: no 'signal received' in its log (exit code {state['ExitCode']})")
            continue
        signal_at = parse_time(lines[0].split(" ")[0])
        finished_at = parse_time(state["FinishedAt"])
        before = [r for r in records[port] if r[0] < signal_at - 0.05]
        in_flight = [r for r in before if r[1] > signal_at]
        bad = [r for r in before if r[2] != POST_1]
        print(f"drain {container}: {len(records[port])} requests, {len(before)} started before SIGTERM, "
              f"{len(in_flight)} of them in flight at it; exit code {state['ExitCode']} "
              f"{finished_at - signal_at:.2f} s after SIGTERM")
        if state["ExitCode"] != 0 or state.get("OOMKilled"):
            failures.append(f"{container}: exit code {state['ExitCode']} (OOM killed: {state.get('OOMKilled')}), expected 0")
        if finished_at - signal_at > grace:
            failures.append(f"{container}: exited {finished_at - signal_at:.1f} s after SIGTERM, past its {grace} s")
        if not in_flight:
            failures.append(f"{container}: no request was in flight at SIGTERM: nothing was drained")
        for start, end, (status, body) in bad[:5]:
            failures.append(f"{container}: a request started {signal_at - start:.2f} s before SIGTERM "
                            f"got {status} {body[:120]!r}")
    return fail(failures)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("contract")
    p.add_argument("--server", action="append", required=True, help="PORT=LABEL (blocking, async, virtual)")
    p.set_defaults(run=contract)
    p = sub.add_parser("loadgen")
    p.add_argument("--name", required=True)
    p.add_argument("report")
    p.set_defaults(run=loadgen)
    p = sub.add_parser("prometheus")
    p.add_argument("--port", type=int, default=9090)
    p.add_argument("--target", action="append", required=True, help="host:port Prometheus scrapes")
    p.add_argument("--wait", type=float, default=60)
    p.set_defaults(run=prometheus)
    p = sub.add_parser("grafana")
    p.add_argument("compose_config", help="`docker compose --profile observe config` output")
    p.set_defaults(run=grafana)
    p = sub.add_parser("drain")
    p.add_argument("--server", action="append", required=True, help="PORT=CONTAINER")
    p.add_argument("--grace", type=float, required=True, help="the stop timeout, seconds")
    p.add_argument("--max-seconds", type=float, default=40)
    p.add_argument("stop_command")
    p.set_defaults(run=drain)
    args = parser.parse_args()
    sys.exit(args.run(args))


if __name__ == "__main__":
    main()
