# Stand-in for redis:7: Debian bookworm's Redis (7.0), with the behaviour
# docker-compose.yml relies on from the official image: `redis-server ARGS`
# as the command, listening on every interface without protected mode (the
# official image builds Redis with protected mode off by default, since only
# published ports reach it), `redis-cli` on the PATH for the healthcheck, and
# /data as the working directory and a volume.
ARG BASE_IMAGE
FROM ${BASE_IMAGE}
RUN apt-get update \
 && apt-get install -y --no-install-recommends redis-server \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir /data && chown redis:redis /data
COPY redis-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
VOLUME /data
WORKDIR /data
USER redis
EXPOSE 6379
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["redis-server"]
