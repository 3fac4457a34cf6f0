# One image, both servers, and loadgen for their healthcheck (docker-compose.yml).
# Build: docker compose build (or docker build -t mvc-vs-webflux-rs .)
#
# The base images are build arguments so that a machine that cannot pull them
# can build on local stand-ins (scripts/compose-check.sh makes them from
# Debian's packages); without arguments they are the official images.
#
# Three stages, so that a change to the workspace's code does not rebuild its
# dependencies (the slow part: some 300 crates in release):
#   skeleton  the workspace with every source file a target names replaced by
#             a stub: its manifests, Cargo.lock and vendor/ are all that count.
#   build     builds the dependencies on the skeleton (a layer Docker keeps
#             while no manifest changes), then the real sources on top.
#   runtime   the three binaries on the slim image, as an unprivileged user.
# The skeleton is written from `cargo metadata`, not from a list of crates, so
# a crate added to the workspace needs no change here. It works with the
# classic builder too (docker-compose v1 builds with it): no BuildKit-only
# syntax.
ARG RUST_IMAGE=rust:1-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim

FROM ${RUST_IMAGE} AS skeleton
WORKDIR /src
COPY . .
# Every manifest and the lockfile where they are, vendor/ (patched crates,
# built as dependencies) whole, and `fn main() {}` at every path a target of
# a workspace member names (libraries, binaries, tests, examples, build
# scripts): enough for cargo to resolve and build everything but our code.
# The output depends only on the manifests and the list of targets, so
# Docker's cache of the next stage's COPY holds across any edit of a source.
RUN set -eu; \
    mkdir /skeleton; \
    find . -name Cargo.toml -not -path './vendor/*' -exec cp --parents {} /skeleton/ \; ; \
    cp Cargo.lock /skeleton/; \
    if [ -d vendor ]; then cp -a vendor /skeleton/; fi; \
    cargo metadata --no-deps --format-version 1 > /tmp/metadata.json; \
    grep -o '"src_path":"[^"]*"' /tmp/metadata.json | cut -d'"' -f4 | sed "s|^$PWD/||" \
      | while read -r path; do \
          mkdir -p "/skeleton/$(dirname "$path")"; \
          echo 'fn main() {}' > "/skeleton/$path"; \
        done
# Each stage ends with a label, so that the images an older build left
# behind can be found and removed (scripts/compose-check.sh does, keeping
# the current ones). Last in the stage, it changes no cached step.
LABEL mvc-vs-webflux-rs.build=skeleton

FROM ${RUST_IMAGE} AS build
WORKDIR /src
COPY --from=skeleton /skeleton/ ./
RUN cargo build --release --locked -p blocking-server -p async-server -p loadgen
COPY . .
# The real sources replace the stubs but may carry older timestamps than the
# stubs' build, and cargo decides what is stale by timestamp: touch them so
# that every workspace crate is rebuilt from its real code.
RUN find . -name '*.rs' -not -path './vendor/*' -not -path './target/*' -exec touch {} + \
 && cargo build --release --locked -p blocking-server -p async-server -p loadgen
LABEL mvc-vs-webflux-rs.build=build

FROM ${RUNTIME_IMAGE}
RUN useradd --system --no-create-home app
COPY --from=build /src/target/release/blocking-server /src/target/release/async-server /src/target/release/loadgen /usr/local/bin/
USER app
# Which server runs is chosen by the compose service's command.
CMD ["blocking-server", "--bind", "0.0.0.0:8080"]
LABEL mvc-vs-webflux-rs.build=runtime
