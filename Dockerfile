# One image, both servers, and loadgen for their healthcheck (docker-compose.yml).
# Build: docker compose build (or docker build -t mvc-vs-webflux .)
FROM rust:1-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release -p blocking-server -p async-server -p loadgen

FROM debian:bookworm-slim
RUN useradd --system --no-create-home app
COPY --from=build /src/target/release/blocking-server /usr/local/bin/blocking-server
COPY --from=build /src/target/release/async-server /usr/local/bin/async-server
COPY --from=build /src/target/release/loadgen /usr/local/bin/loadgen
USER app
# Which server runs is chosen by the compose service's command.
CMD ["blocking-server", "--bind", "0.0.0.0:8080"]
