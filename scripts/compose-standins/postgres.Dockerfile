# Stand-in for postgres:16: Debian bookworm's PostgreSQL (15), with the
# behaviour docker-compose.yml relies on from the official image: a cluster
# made on first start with the superuser postgres and POSTGRES_PASSWORD,
# listening on every interface with password authentication over TCP,
# `pg_isready` on the PATH for the healthcheck, the data in a volume at
# /var/lib/postgresql/data, and SIGINT (a fast shutdown) to stop.
ARG BASE_IMAGE
FROM ${BASE_IMAGE}
# No cluster at install time: the entrypoint makes one in the volume.
RUN mkdir -p /etc/postgresql-common \
 && echo 'create_main_cluster = false' > /etc/postgresql-common/createcluster.conf \
 && apt-get update \
 && apt-get install -y --no-install-recommends postgresql-15 \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /var/run/postgresql /var/lib/postgresql/data \
 && chown postgres:postgres /var/run/postgresql /var/lib/postgresql/data \
 && chmod 2775 /var/run/postgresql \
 && chmod 700 /var/lib/postgresql/data
COPY postgres-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PGDATA=/var/lib/postgresql/data \
    LANG=C.UTF-8
VOLUME /var/lib/postgresql/data
USER postgres
EXPOSE 5432
STOPSIGNAL SIGINT
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["postgres"]
