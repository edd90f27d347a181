/**
 * Driver fencing across processes (docs/people.md#the-driver): people on two roomd processes sharing one store race
 * to take the wheel (operators, with force) and steer with the epoch they saw. Every stale epoch is refused, and the
 * log audited afterwards shows no steer that carried an epoch other than the one current when it was appended.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { httpClient } from "../support/http.ts";
import { type SpawnedServer, spawnServer } from "../support/server.ts";
import { E2E_STORES, newRoomId } from "../support/stores.ts";

const PEOPLE = 6;
const ROUNDS = 5;
const secretOf = (i: number) => `secret-person-${i}-0123456789`;

for (const make of E2E_STORES) {
  describe(`the wheel across two processes on ${make().name}`, () => {
    let servers: SpawnedServer[] = [];
    beforeAll(async () => {
      const env = {
        ...(await make().env()),
        OPERATOR_KEYS: Array.from({ length: PEOPLE }, (_, i) => `race:${secretOf(i)}:p${i}`).join(","),
        RATE_LIMIT_PER_MINUTE: "1000000",
        // The shared Redis keeps every test file's keys of a team: the default 50 would run out.
        KEYS_PER_TEAM: "10000",
      };
      servers = await Promise.all([spawnServer(env), spawnServer(env)]);
    });
    afterAll(async () => {
      await Promise.all(servers.map((s) => s.stop()));
    });

    test(`${PEOPLE} people × ${ROUNDS} rounds: take, then steer with the epoch seen; the log holds only current-epoch steers`, async () => {
      const roomId = newRoomId();
      const [a, b] = servers.map((s) => httpClient(s.url)) as [
        ReturnType<typeof httpClient>,
        ReturnType<typeof httpClient>,
      ];
      expect((await a.post("/admin/rooms", secretOf(0), { roomId })).status).toBe(201);
      // An agent drives first: the first person's take makes it yield at once.
      const agentKey = (await a.post("/admin/keys", secretOf(0), { boundAgentId: "factory" })).body.secret;
      expect(JSON.parse((await b.tool(agentKey, "claim_driver", { roomId })).text)).toMatchObject({
        holder: "factory",
        epoch: 1,
      });

      const outcomes = await Promise.all(
        Array.from({ length: PEOPLE }, async (_, i) => {
          const results: string[] = [];
          for (let round = 0; round < ROUNDS; round++) {
            const http = (i + round) % 2 === 0 ? a : b;
            const taken = await http.post(`/rooms/${roomId}/driver`, secretOf(i), {
              action: "take",
              force: true,
            });
            expect(taken.status).toBe(200);
            const steer = await (round % 2 === 0 ? b : a).post(`/rooms/${roomId}/steer`, secretOf(i), {
              epoch: taken.body.epoch,
              to: "worker",
              text: `p${i} round ${round}`,
            });
            if (steer.status === 201) results.push("landed");
            else {
              expect(steer.body.error).toMatch(
                /^(Stale driver epoch \d+; the driver is now human:p\d at epoch \d+|Only the driver \(human:p\d\) can steer)$/,
              );
              expect([409, 403]).toContain(steer.status);
              results.push("refused");
            }
          }
          return results;
        }),
      );

      // The audit: replay the whole log in seq order.
      const log: any[] = [];
      let before: number | undefined;
      for (;;) {
        const page = JSON.parse(
          (await a.tool(secretOf(0), "read_events", { roomId, limit: 100, ...(before ? { before } : {}) }))
            .text,
        );
        log.push(...page);
        if (page.length < 100) break;
        before = page.at(-1).seq;
      }
      log.sort((x, y) => x.seq - y.seq);
      expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i + 1));
      let epoch = 0;
      let holder: string | null = null;
      let landed = 0;
      let changes = 0;
      for (const event of log) {
        if (event.type === "driver_changed") {
          changes += 1;
          expect(event.payload.epoch).toBe(epoch + 1);
          expect(event.payload.previous).toBe(holder);
          epoch = event.payload.epoch;
          holder = event.payload.holder;
        } else if (event.type === "steer") {
          landed += 1;
          expect({ seq: event.seq, epoch: event.payload.epoch, from: event.from }).toEqual({
            seq: event.seq,
            epoch,
            from: holder,
          });
        }
      }
      expect(changes).toBe(epoch);
      expect(landed).toBe(outcomes.flat().filter((o) => o === "landed").length);
      expect(landed + outcomes.flat().filter((o) => o === "refused").length).toBe(PEOPLE * ROUNDS);
      expect((await b.get(`/rooms/${roomId}/driver`, secretOf(0))).body.epoch).toBe(epoch);
    });
  });
}
