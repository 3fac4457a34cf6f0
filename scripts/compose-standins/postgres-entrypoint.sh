#!/bin/sh
# The part of the official postgres image's entrypoint that docker-compose.yml
# relies on: on first start (an empty data directory), make a cluster whose
# superuser postgres has the password POSTGRES_PASSWORD (the official image
# refuses to start without one, and so does this), reachable from other
# containers with that password; then run the server in the foreground.
set -eu
if [ "${1#-}" != "$1" ]; then set -- postgres "$@"; fi
if [ "$1" != postgres ]; then exec "$@"; fi
shift
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  if [ -z "${POSTGRES_PASSWORD:-}" ]; then
    echo "postgres stand-in: POSTGRES_PASSWORD is not set; the official image refuses to start without it" >&2
    exit 1
  fi
  pwfile=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" > "$pwfile"
  initdb --username=postgres --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 -D "$PGDATA"
  rm -f "$pwfile"
  echo 'host all all all scram-sha-256' >> "$PGDATA/pg_hba.conf"
  echo "listen_addresses = '*'" >> "$PGDATA/postgresql.conf"
fi
exec postgres -D "$PGDATA" "$@"
