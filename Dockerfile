# Multi-stage build of pokerd: compile in the Rust image, run in a slim Debian.
FROM rust:1.95-bookworm AS build
WORKDIR /src
COPY Cargo.toml Cargo.lock ./
COPY crates crates
COPY migrations migrations
COPY config config
# Built into the binary: the browser client and the OpenAPI document.
COPY web web
COPY docs/openapi.json docs/openapi.json
RUN cargo build --release --locked -p poker-server --bin pokerd

FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --home /var/lib/pokerd --create-home pokerd
COPY --from=build /src/target/release/pokerd /usr/local/bin/pokerd
USER pokerd
WORKDIR /var/lib/pokerd
ENV POKER__SERVER__ADDR=0.0.0.0:8080
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/pokerd"]
CMD ["serve"]
