# roomd: one stateless process; state lives in the embedded SQLite file (volume /data) or in Redis.
FROM oven/bun:1.4.5-slim
WORKDIR /app
COPY package.json bun.lock ./
RUN bun install --frozen-lockfile --production
COPY src ./src
COPY tsconfig.json ./
# The data directory is its user's only (roomd makes its own 0700; this one exists before roomd starts).
RUN mkdir -p /data && chown bun:bun /data && chmod 700 /data
USER bun
# Inside a container, loopback is unreachable from the published port: bind every interface.
ENV PORT=3000 HOST=0.0.0.0 SQLITE_PATH=/data/roomd.sqlite
EXPOSE 3000
VOLUME ["/data"]
HEALTHCHECK --interval=15s --timeout=3s --start-period=5s --retries=3 \
  CMD bun -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["bun", "src/index.ts"]
