/**
 * The floor of the CPU benchmark (bench/cpu.ts): a bare Hono app on Bun.serve with one JSON POST handler — read
 * the JSON body, answer a small JSON object — and nothing else (no auth, no store, no MCP). Started as a process
 * of its own so its CPU is read from /proc exactly as roomd's is. `PORT` picks the port.
 */
import { Hono } from "hono";

const app = new Hono();
app.post("/mcp", async (c) => {
  const body = (await c.req.json()) as { id?: unknown };
  return c.json({ jsonrpc: "2.0", id: body.id ?? null, result: { ok: true } });
});
app.get("/health", (c) => c.json({ ok: true }));

const server = Bun.serve({ hostname: "127.0.0.1", port: Number(process.env.PORT ?? 0), fetch: app.fetch });
process.stdout.write(`listening ${server.port}\n`);
process.on("SIGTERM", () => {
  void server.stop().then(() => process.exit(0));
});
