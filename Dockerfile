# roomd: one stateless process; state lives in the embedded SQLite file (volume /data), Redis or PostgreSQL.
# Two stages: the first compiles the self-contained executables (`bun run build`: Bun's runtime, roomd and its
# dependencies, the pages' assets); the image holds only `roomd`, on Debian slim, run by an unprivileged user. No
# Bun, no node_modules, no sources, no dev dependencies and no source maps reach it.
FROM oven/bun:1.4.5-slim AS build
WORKDIR /src
COPY package.json bun.lock ./
RUN bun install --frozen-lockfile --production
COPY tsconfig.json ./
COPY scripts/build.ts ./scripts/
COPY src ./src
RUN bun run build

FROM debian:bookworm-slim
# uid/gid 1000 (the usual first user): a /data volume prepared by the host for uid 1000 works as is.
RUN groupadd --gid 1000 roomd \
  && useradd --uid 1000 --gid roomd --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin roomd \
  && mkdir -p /data && chown roomd:roomd /data && chmod 0700 /data
# roomctl stays out: each executable carries Bun's runtime (~100 MB), and roomctl belongs on people's machines.
COPY --from=build /src/dist/roomd /usr/local/bin/roomd
USER roomd
# Inside a container, loopback is unreachable from the published port: bind every interface.
ENV PORT=3000 HOST=0.0.0.0 SQLITE_PATH=/data/roomd.sqlite
EXPOSE 3000
VOLUME ["/data"]
# /livez: the process serves (a store outage is /readyz's business, not a reason to restart the container).
HEALTHCHECK --interval=15s --timeout=3s --start-period=5s --retries=3 CMD ["roomd", "healthcheck"]
CMD ["roomd"]
