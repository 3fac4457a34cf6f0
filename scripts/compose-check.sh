#!/usr/bin/env bash
# docker compose up, for real, on this machine's Docker engine: build the
# Dockerfile, start docker-compose.yml with its observe profile, wait for
# every healthcheck, then check from the host, through the ports published
# on 127.0.0.1 only, what the compose file promises (docs/operations.md,
# "What the compose check covers"):
#
#   - the published ports are bound to 127.0.0.1;
#   - every contract route on 8080, 8081 and 8082 answers the contract
#     suite's status and bytes (scripts/compose-check.py contract);
#   - a short loadgen run against each server, on Postgres and on Redis,
#     has no error;
#   - Prometheus (9090) scrapes all three servers, every target up, and runs
#     every query of the Grafana dashboard; Grafana's provisioning files
#     match the compose file (parsed: no Grafana runs here);
#   - `docker compose stop` sends SIGTERM, each server drains the requests
#     in flight and exits 0 within its stop timeout;
#   - `docker compose down -v` leaves no container, network or volume.
#
# The engine: used when it runs, started (and stopped at the end) when it
# is installed but not running. The images: the official ones when they are
# here or can be pulled, local stand-ins from Debian's packages otherwise
# (scripts/compose-standins.sh). Whatever happens, the trap takes the
# project down and stops the engine it started.
#
# Containers talk to one another on the compose network, inside the engine;
# every request from the host goes to 127.0.0.1. Needs root (the engine),
# docker-compose (v1, Debian's; `docker compose` v2 is used when present),
# Debian's /usr/bin/python3 with PyYAML (docker-compose brings it), and
# ports 8080-8082 and 9090 free.
set -euo pipefail
shopt -s inherit_errexit
cd "$(dirname "$0")/.."

project=mvc-vs-webflux-check
py=/usr/bin/python3
ports=(8080 8081 8082 9090)
# The servers' stop_grace_period in docker-compose.yml.
grace=20
export POSTGRES_PASSWORD=compose-check

started=$(date +%s)
mark=$started
log() { printf '\n== compose-check: %s\n' "$*"; }
took() { local now; now=$(date +%s); echo "compose-check: $1 took $(( now - mark )) s"; mark=$now; }
die() { printf 'compose-check: FAIL %s\n' "$*" >&2; exit 1; }

tmp=$(mktemp -d)
dockerd_pid=
forward_before=
bridge_before=
project_up=

if docker compose version >/dev/null 2>&1; then
  compose_cmd=(docker compose)
else
  command -v docker-compose >/dev/null || die "neither docker compose nor docker-compose: apt-get install docker-compose"
  compose_cmd=(docker-compose)
fi
compose() { "${compose_cmd[@]}" -p "$project" -f docker-compose.yml --profile observe "$@"; }

cleanup() {
  local status=$?
  set +e
  if [ -n "$project_up" ]; then
    echo "compose-check: taking the project down"
    compose down -v --remove-orphans >"$tmp/down.log" 2>&1 || tail -n 20 "$tmp/down.log"
  fi
  if [ -n "$dockerd_pid" ]; then
    echo "compose-check: stopping the Docker engine it started (pid $dockerd_pid)"
    kill "$dockerd_pid" 2>/dev/null
    for _ in $(seq 1 30); do kill -0 "$dockerd_pid" 2>/dev/null || break; sleep 1; done
    kill -0 "$dockerd_pid" 2>/dev/null && { echo "compose-check: dockerd still runs after 30 s" >&2; status=1; }
    # What a stopped dockerd leaves: the bind mount of its network
    # namespace, its bridge, and IP forwarding turned on.
    for m in /run/docker/netns/*; do mountpoint -q "$m" && umount "$m"; done
    [ -n "$bridge_before" ] || ip link delete docker0 2>/dev/null
    [ -n "$forward_before" ] && sysctl -q -w "net.ipv4.ip_forward=$forward_before"
    mount | grep -E ' on /(var/lib|run)/docker' && { echo "compose-check: mounts left behind" >&2; status=1; }
  fi
  rm -rf "$tmp"
  echo "compose-check: $( [ "$status" = 0 ] && echo passed || echo FAILED ) in $(( $(date +%s) - started )) s"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- the engine ------------------------------------------------------------------
if ! docker info >/dev/null 2>&1; then
  command -v dockerd >/dev/null || die "no Docker engine here: apt-get install docker.io"
  log "starting the Docker engine"
  forward_before=$(sysctl -n net.ipv4.ip_forward)
  bridge_before=$(ip -o link show docker0 2>/dev/null || true)
  setsid dockerd >"$tmp/dockerd.log" 2>&1 </dev/null &
  dockerd_pid=$!
  for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
  docker info >/dev/null 2>&1 || { tail -n 20 "$tmp/dockerd.log"; die "dockerd did not answer within 60 s"; }
fi
docker version --format 'engine {{.Server.Version}}, client {{.Client.Version}}'
"${compose_cmd[@]}" version 2>/dev/null | sed -n 1p
took "the engine"

# The servers ask for 65536 open files; an engine whose own hard limit is
# lower (it may not raise it without CAP_SYS_RESOURCE, as in a sandbox)
# cannot give them that.
engine_limit=$(awk '/^Max open files/ { print $5 }' "/proc/$(pgrep -xo dockerd)/limits" 2>/dev/null || ulimit -Hn)
if [ -z "${NOFILE_LIMIT:-}" ] && [ "$engine_limit" != unlimited ] && [ "$engine_limit" -lt 65536 ]; then
  export NOFILE_LIMIT=$engine_limit
  echo "the engine's open-file limit is $engine_limit: NOFILE_LIMIT=$NOFILE_LIMIT for the servers"
fi

for port in "${ports[@]}"; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    die "127.0.0.1:$port is taken on this machine; the compose file publishes it"
  fi
done

# --- images -------------------------------------------------------------------------
log "images (official, or stand-ins from Debian's packages)"
images=$(scripts/compose-standins.sh)
echo "$images"
set -a
eval "$images"
set +a
took "the images"

log "docker compose build"
if ! compose build >"$tmp/build.log" 2>&1; then
  tail -n 40 "$tmp/build.log"
  die "the image did not build"
fi
# Each build whose sources changed leaves the previous one's build stage
# (the compiled workspace, some 2.5 GB with the dependencies) and image
# behind, untagged. Tag the current build stage, which holds the dependency
# layer the next build reuses (every step is cached: seconds), then remove
# the untagged images of older builds (the Dockerfile labels them).
docker build -q --target build -t mvc-vs-webflux-rs:build-stage \
  --build-arg RUST_IMAGE --build-arg RUNTIME_IMAGE . >/dev/null 2>"$tmp/tag.log" ||
  { cat "$tmp/tag.log"; die "tagging the build stage failed"; }
docker image prune -f --filter label=mvc-vs-webflux-rs.build | tail -n 1
took "the build"
docker image ls mvc-vs-webflux-rs --format 'image {{.Repository}}:{{.Tag}} {{.Size}}'

# --- up, healthy ------------------------------------------------------------------
services=(postgres redis blocking-server async-server virtual-server)
log "docker compose up -d"
project_up=1
# Prometheus waits for the servers to be healthy: an unhealthy one makes
# `up` fail, and the loop below says why.
if ! compose up -d "${services[@]}" prometheus >"$tmp/up.log" 2>&1; then
  tail -n 12 "$tmp/up.log"
  up_failed=1
fi

container() { compose ps -q "$1"; }
container_name() { docker inspect -f '{{.Name}}' "$(container "$1")" | sed 's|^/||'; }
health() {
  local id
  id=$(container "$1")
  [ -n "$id" ] || { echo missing; return; }
  docker inspect -f '{{if .State.Health}}{{.State.Health.Status}}{{else}}{{.State.Status}}{{end}}' "$id"
}
explain() {
  local id
  id=$(container "$1")
  [ -n "$id" ] || { echo "--- $1: no container"; return; }
  echo "--- $1: $(docker inspect -f '{{.State.Status}} (exit {{.State.ExitCode}})' "$id")"
  docker inspect -f '{{if .State.Health}}{{range .State.Health.Log}}healthcheck exit {{.ExitCode}}: {{.Output}}{{end}}{{end}}' "$id" | tail -n 6
  docker logs --tail 15 "$id" 2>&1
}
deadline=$(( $(date +%s) + 180 ))
while :; do
  unhealthy=()
  # Prometheus has no healthcheck: running is all it can say.
  for s in "${services[@]}" prometheus; do
    state=$(health "$s")
    [ "$state" = healthy ] || [ "$s:$state" = prometheus:running ] || unhealthy+=("$s:$state")
  done
  [ ${#unhealthy[@]} = 0 ] && break
  if [ -n "${up_failed:-}" ] || [ "$(date +%s)" -ge "$deadline" ] ||
     printf '%s\n' "${unhealthy[@]}" | grep -q ':\(exited\|dead\|unhealthy\)$'; then
    for s in "${unhealthy[@]}"; do explain "${s%%:*}"; done
    die "not healthy: ${unhealthy[*]}"
  fi
  sleep 2
done
echo "healthy: ${services[*]}; prometheus running"
if [ -n "${GRAFANA_IMAGE:-}" ]; then compose up -d grafana >"$tmp/up.log" 2>&1 || tail -n 12 "$tmp/up.log"; fi
took "up until healthy"

# --- from the host, through 127.0.0.1 ---------------------------------------------
log "published ports"
for pair in blocking-server:8080 async-server:8081 virtual-server:8082 prometheus:9090; do
  published=$(compose port "${pair%%:*}" "${pair##*:}")
  echo "${pair%%:*} $published"
  if [ -z "${PUBLISH_ADDRESS:-}" ] && [ "${published%:*}" != 127.0.0.1 ]; then
    die "${pair%%:*} is published on $published, not 127.0.0.1"
  fi
done

log "the contract on 8080, 8081, 8082"
"$py" scripts/compose-check.py contract --server 8080=blocking --server 8081=async --server 8082=virtual

log "loadgen, 2 s per server and route"
for port in 8080 8081 8082; do
  for route in '/users/{rand:1-10000}' '/users/{rand:1-10000}/cache'; do
    docker run --rm --network host mvc-vs-webflux-rs \
      loadgen -c 8 -d 2s --timeout 5s --json "http://127.0.0.1:$port$route" >"$tmp/loadgen.json" ||
      echo "compose-check: loadgen exited $? on :$port$route"
    "$py" scripts/compose-check.py loadgen --name ":$port$route" "$tmp/loadgen.json"
  done
done

log "Prometheus on 9090 and the Grafana dashboard's queries"
"$py" scripts/compose-check.py prometheus --port 9090 \
  --target blocking-server:8080 --target async-server:8081 --target virtual-server:8082
compose config >"$tmp/compose.yml"
"$py" scripts/compose-check.py grafana "$tmp/compose.yml"
if [ -n "${GRAFANA_IMAGE:-}" ]; then
  for _ in $(seq 1 60); do
    "$py" -c 'import urllib.request; urllib.request.urlopen("http://127.0.0.1:3000/api/health", timeout=2)' 2>/dev/null && break
    sleep 1
  done
  "$py" -c 'import urllib.request; print(urllib.request.urlopen("http://127.0.0.1:3000/api/health", timeout=2).read().decode())'
else
  echo "grafana: no image (none can be pulled here and Debian has no Grafana): provisioning checked by parsing only"
fi
took "the checks through 127.0.0.1"

# --- stop, down ---------------------------------------------------------------------
log "docker compose stop, with requests in flight"
stop_command="${compose_cmd[*]} -p $project -f docker-compose.yml --profile observe stop >$tmp/stop.log 2>&1"
"$py" scripts/compose-check.py drain --grace "$grace" \
  --server "8080=$(container_name blocking-server)" \
  --server "8081=$(container_name async-server)" \
  --server "8082=$(container_name virtual-server)" \
  "$stop_command"
took "the stop"

log "docker compose down -v"
ids() {
  docker ps -aq --filter "label=com.docker.compose.project=$project"
  docker network ls -q --filter "label=com.docker.compose.project=$project"
}
volumes_used=$(for s in "${services[@]}" prometheus; do
  docker inspect -f '{{range .Mounts}}{{if eq .Type "volume"}}{{.Name}}{{"\n"}}{{end}}{{end}}' "$(container "$s")"
done | sort -u | grep . || true)
compose down -v --remove-orphans >"$tmp/down.log" 2>&1 || { tail -n 20 "$tmp/down.log"; die "docker compose down -v failed"; }
project_up=
left=$(ids)
[ -z "$left" ] || die "left behind after down -v: $left"
volumes_left=$(comm -12 <(echo "$volumes_used") <(docker volume ls -q | sort) | grep . || true)
[ -z "$volumes_left" ] || die "volumes left behind after down -v: $volumes_left"
echo "no container, network or volume of $project left (its volumes were: ${volumes_used//$'\n'/ })"
took "down"
