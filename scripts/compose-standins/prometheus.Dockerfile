# Stand-in for prom/prometheus: Debian bookworm's Prometheus (2.42), laid out
# as the official image is: /bin/prometheus as the entrypoint (the compose
# service's command is its flags; bookworm's /bin is /usr/bin), running as
# nobody in /prometheus, where the default storage path `data/` then lies.
# Debian's build has /var/lib/prometheus/metrics2/ as its default storage
# path instead: it is made a link to /prometheus, the volume.
ARG BASE_IMAGE
FROM ${BASE_IMAGE}
RUN apt-get update \
 && apt-get install -y --no-install-recommends prometheus \
 && rm -rf /var/lib/apt/lists/* \
 && test -x /bin/prometheus \
 && mkdir -p /prometheus /etc/prometheus \
 && rm -rf /var/lib/prometheus/metrics2 \
 && ln -s /prometheus /var/lib/prometheus/metrics2 \
 && chown nobody:nogroup /prometheus
VOLUME /prometheus
WORKDIR /prometheus
USER nobody
EXPOSE 9090
ENTRYPOINT ["/bin/prometheus"]
CMD ["--config.file=/etc/prometheus/prometheus.yml"]
