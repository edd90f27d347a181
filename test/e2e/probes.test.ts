/**
 * The orchestrator probes on every store: /livez answers while the process serves, /readyz checks the store and the
 * change feed's own connection; /health keeps its answer. Their answers during an outage (503 naming what failed)
 * are in probes-outage.process.test.ts, which stops servers of its own.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { RoomStore } from "../../src/store/types.ts";
import { probe } from "../support/http.ts";
import { type InProcessServer, startInProcess } from "../support/server.ts";
import { E2E_STORES } from "../support/stores.ts";

const FEEDS: Record<string, string> = {
  sqlite: "not used",
  upstash: "not used",
  redis: "ok",
  "redis-cluster": "ok",
  postgres: "ok",
};

for (const make of E2E_STORES) {
  const backing = make();
  describe(`probes on ${backing.name}`, () => {
    let store: RoomStore;
    let server: InProcessServer;
    beforeAll(async () => {
      store = await backing.open();
      server = startInProcess(store);
    });
    afterAll(async () => {
      await server.stop();
      await store.close();
    });

    test("/livez, /readyz and /health answer 200, open to any Origin", async () => {
      const foreign = "http://elsewhere.example";
      expect(await probe(server.url, "/livez", foreign)).toEqual({
        status: 200,
        body: { ok: true, version: expect.any(String) },
      });
      const ready = await probe(server.url, "/readyz", foreign);
      expect(ready.status).toBe(200);
      expect(ready.body).toMatchObject({
        ok: true,
        checks: { store: "ok", changeFeed: FEEDS[backing.name] as string },
      });
      expect((await probe(server.url, "/health", foreign)).status).toBe(200);
    });
  });
}
