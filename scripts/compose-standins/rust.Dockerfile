# Stand-in for rust:1-bookworm: Debian bookworm with a C compiler, and the
# Rust toolchain of the machine that builds it (its bin/ and lib/, copied into
# the build context by scripts/compose-standins.sh). The official image also
# carries rustup, git, make and libssl-dev; the workspace's build needs none.
#
# It also trusts the certificate authorities that machine trusts (its CA
# bundle, in the context beside the toolchain): cargo in a build container
# then reaches crates.io as cargo on that machine does, including through a
# proxy that inspects TLS with an authority of its own.
ARG BASE_IMAGE
FROM ${BASE_IMAGE}
RUN apt-get update \
 && apt-get install -y --no-install-recommends gcc libc6-dev ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY toolchain/ /usr/local/rust/
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
ENV CARGO_HOME=/usr/local/cargo \
    PATH=/usr/local/cargo/bin:/usr/local/rust/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
RUN cargo --version && rustc --version
