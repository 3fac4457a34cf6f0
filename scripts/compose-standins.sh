#!/usr/bin/env bash
# The images docker-compose.yml and the Dockerfile name, on a machine that
# cannot pull them: for each, the official image when it is here or can be
# pulled, otherwise a local stand-in built from Debian's packages
# (scripts/compose-standins/, docs/operations.md says what each one keeps of
# the official image's behaviour). Prints one VAR=image line per image, the
# variables docker-compose.yml reads, for `set -a; eval "$(...)"`:
#
#   RUNTIME_IMAGE     debian:bookworm-slim     a bookworm root filesystem (mmdebstrap)
#   RUST_IMAGE        rust:1-bookworm          that, gcc, this machine's Rust toolchain
#                                              and the CA bundle it trusts
#   POSTGRES_IMAGE    postgres:16              that, and Debian's PostgreSQL 15
#   REDIS_IMAGE       redis:7                  that, and Debian's Redis 7.0
#   PROMETHEUS_IMAGE  prom/prometheus:v2.53.0  that, and Debian's Prometheus 2.42
#   GRAFANA_IMAGE     grafana/grafana:11.1.0   no stand-in (Debian has no Grafana):
#                                              printed only when the official one is here
#
# Needs a running Docker engine; the first stand-in needs mmdebstrap (Debian's
# package) and root. Stand-ins already built are reused: the root filesystem
# and the Rust image when their names are there (the Rust image's tag is the
# toolchain's version), the others through Docker's build cache.
set -euo pipefail
# The images are made in command substitutions: a failure there must stop us.
shopt -s inherit_errexit
here=$(cd "$(dirname "$0")" && pwd)
recipes=$here/compose-standins
prefix=mvc-vs-webflux-standin

log() { printf 'compose-standins: %s\n' "$*" >&2; }

have() { docker image inspect "$1" >/dev/null 2>&1; }

# Here, or pulled within a minute. A machine without registry access fails
# the pull at its first name lookup.
official() {
  have "$1" && return 0
  log "pulling $1"
  timeout 60 docker pull -q "$1" >/dev/null 2>&1
}

build() { # NAME RECIPE [CONTEXT]
  local name=$1 recipe=$2 context=${3:-$recipes}
  local out
  log "building $name ($recipe)"
  out=$(docker build -t "$name" -f "$recipes/$recipe" \
    --build-arg "BASE_IMAGE=$base" "$context" 2>&1) ||
    { printf '%s\n' "$out" | tail -n 30 >&2; log "building $name failed"; return 1; }
}

# debian:bookworm-slim: a minbase root filesystem without documentation,
# configured as Debian's own container images are (dpkg without fsync, no
# service starts during installs, no translations), imported as an image.
slim_standin() {
  local name=$prefix/debian:bookworm-slim
  if ! have "$name"; then
    command -v mmdebstrap >/dev/null ||
      { log "mmdebstrap is needed for the stand-ins: apt-get install mmdebstrap"; exit 1; }
    local tar
    tar=$(mktemp --suffix=.tar)
    log "building $name (mmdebstrap, Debian bookworm minbase)"
    # The hook's $1 is the new root, given by mmdebstrap, not ours to expand.
    # shellcheck disable=SC2016
    mmdebstrap --quiet --variant=minbase --format=tar \
      --dpkgopt=force-unsafe-io \
      --dpkgopt='path-exclude=/usr/share/doc/*' \
      --dpkgopt='path-include=/usr/share/doc/*/copyright' \
      --dpkgopt='path-exclude=/usr/share/man/*' \
      --dpkgopt='path-exclude=/usr/share/info/*' \
      --dpkgopt='path-exclude=/usr/share/locale/*' \
      --aptopt='Acquire::Languages "none"' \
      --customize-hook='printf "#!/bin/sh\nexit 101\n" > "$1/usr/sbin/policy-rc.d" && chmod 755 "$1/usr/sbin/policy-rc.d"' \
      bookworm "$tar" \
      'deb http://deb.debian.org/debian bookworm main' \
      'deb http://deb.debian.org/debian bookworm-updates main' \
      'deb http://deb.debian.org/debian-security bookworm-security main' \
      || { rm -f "$tar"; exit 1; }
    docker import \
      --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
      --change 'CMD ["bash"]' \
      "$tar" "$name" >/dev/null
    rm -f "$tar"
  fi
  echo "$name"
}

# rust:1-bookworm: the slim stand-in, gcc, the toolchain cargo and rustc
# here come from (its bin/ and lib/, not its documentation), and the CA
# bundle this machine trusts, so that cargo in the build container reaches
# crates.io the way cargo here does (here, through a proxy whose authority
# only this machine's bundle holds).
rust_standin() {
  local version sysroot name context
  version=$(rustc --version | cut -d' ' -f2)
  name=$prefix/rust:$version
  if ! have "$name"; then
    sysroot=$(rustc --print sysroot)
    context=$(mktemp -d)
    mkdir "$context/toolchain"
    # Hard links where the toolchain is on the same file system, a copy otherwise.
    cp -al "$sysroot/bin" "$sysroot/lib" "$context/toolchain/" 2>/dev/null ||
      cp -a "$sysroot/bin" "$sysroot/lib" "$context/toolchain/"
    cp "${SSL_CERT_FILE:-/etc/ssl/certs/ca-certificates.crt}" "$context/ca-certificates.crt"
    build "$name" rust.Dockerfile "$context" || { rm -rf "$context"; exit 1; }
    rm -rf "$context"
  fi
  echo "$name"
}

base=
pick() { # VAR OFFICIAL STANDIN-FUNCTION
  local var=$1 image=$2
  if ! official "$image"; then
    [ -n "$base" ] || base=$(slim_standin)
    image=$($3)
    log "$var: $image (stand-in for $2)"
  fi
  echo "$var=$image"
}

postgres_standin() { build "$prefix/postgres:15" postgres.Dockerfile; echo "$prefix/postgres:15"; }
redis_standin() { build "$prefix/redis:7.0" redis.Dockerfile; echo "$prefix/redis:7.0"; }
prometheus_standin() { build "$prefix/prometheus:2.42" prometheus.Dockerfile; echo "$prefix/prometheus:2.42"; }
slim_as_runtime() { echo "$base"; }

pick RUNTIME_IMAGE debian:bookworm-slim slim_as_runtime
pick RUST_IMAGE rust:1-bookworm rust_standin
pick POSTGRES_IMAGE postgres:16 postgres_standin
pick REDIS_IMAGE redis:7 redis_standin
pick PROMETHEUS_IMAGE prom/prometheus:v2.53.0 prometheus_standin
if official grafana/grafana:11.1.0; then
  echo GRAFANA_IMAGE=grafana/grafana:11.1.0
else
  log "GRAFANA_IMAGE: none (grafana/grafana:11.1.0 cannot be pulled, and Debian has no Grafana)"
fi
