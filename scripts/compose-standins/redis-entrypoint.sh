#!/bin/sh
# As the official redis image: options alone mean redis-server's, and
# redis-server runs with protected mode off unless the arguments turn it on
# (later options win).
set -eu
if [ "${1#-}" != "$1" ]; then set -- redis-server "$@"; fi
if [ "$1" = redis-server ]; then
  shift
  exec redis-server --protected-mode no "$@"
fi
exec "$@"
