/**
 * The webhook retry and disabling policy in Lua (lua-webhooks.ts WEBHOOK_POLICY, which RECORD_DELIVERY applies)
 * gives the answers of protocol/webhook-delivery.ts afterDelivery on the same generated attempts, run by a real
 * redis-server inside a room script built like the driver's: what the log records, whether the event is tried
 * again, the webhook's dropped-in-a-row count and last delivery, and why it is disabled. The type filter (WH.takes,
 * on the filter text the driver stores) agrees with webhookTakes the same way.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { luaRule, runLuaRule } from "../../../test/support/lua-rules.ts";
import { below, pick, prng } from "../../../test/support/prng.ts";
import { sharedRedis } from "../../../test/support/redis-server.ts";
import { afterDelivery, type DeliveryState, webhookTakes } from "../../protocol/webhook-delivery.ts";
import { WEBHOOK_LIMITS } from "../../protocol/webhooks.ts";
import { typeMatch, WEBHOOK_POLICY } from "./lua-webhooks.ts";

let redis: RedisClient;
beforeAll(async () => {
  redis = new RedisClient((await sharedRedis()).url);
});
afterAll(() => redis.close());

interface Attempt {
  state: DeliveryState;
  outcome: "delivered" | "failed" | "gone";
  retryInMs: number | null;
  atMs: number;
}

test("Lua and TS agree on every attempt's consequences (real redis-server)", async () => {
  const rnd = prng(381);
  const limit = WEBHOOK_LIMITS.disableAfterDropped;
  const attempts: Attempt[] = Array.from({ length: 600 }, () => ({
    state: {
      active: rnd() < 0.8,
      // Around the limit as often as far from it.
      drops: rnd() < 0.5 ? limit - 2 + below(rnd, 4) : below(rnd, limit),
      lastMs: rnd() < 0.3 ? 0 : 1_700_000_000_000 + below(rnd, 1e9),
    },
    outcome: pick(rnd, ["delivered", "failed", "failed", "gone"] as const),
    retryInMs: rnd() < 0.5 ? null : 1 + below(rnd, 3_600_000),
    atMs: 1_750_000_000_000 + below(rnd, 1e9),
  }));
  const body = `${WEBHOOK_POLICY}
local out = {}
for i, c in ipairs(input) do
  local s = { active = c.state.active and "a" or "d", drops = c.state.drops, last = c.state.lastMs }
  local logged, again, reason = WH.after(s, c.outcome, val(c.retryInMs), c.atMs)
  out[i] = '{"logged":' .. str(logged) .. ',"retry":' .. tostring(again) .. ',"state":{"active":'
    .. tostring(s.active == "a") .. ',"drops":' .. num(s.drops) .. ',"lastMs":' .. num(s.last) .. '},"disabled":'
    .. opt_str(reason) .. '}'
end
return "[" .. table.concat(out, ",") .. "]"`;
  const got = await runLuaRule<unknown[]>(redis, luaRule("WEBHOOK_POLICY", body), attempts, {
    roomId: `wh-${crypto.randomUUID()}`,
    now: 1_750_000_000_000,
  });
  const want = attempts.map((a) => afterDelivery(a.state, a.outcome, a.retryInMs, a.atMs));
  const disagree = attempts.flatMap((a, i) =>
    JSON.stringify(got[i]) === JSON.stringify(want[i]) ? [] : [{ a, want: want[i], got: got[i] }],
  );
  expect(disagree).toEqual([]);
  // Every consequence occurs: each logged outcome, a retry, and both reasons to disable.
  const seen = new Set(want.flatMap((w) => [w.logged, w.retry ? "retry" : "", w.disabled ?? ""]));
  expect([...seen].sort()).toEqual(["", "delivered", "dropped", "failed", "failing", "gone", "retry"]);
});

test("a webhook takes an event by its type filter as TS says: every type for none, else the listed ones", async () => {
  const rnd = prng(382);
  const TYPES = ["task_added", "task_updated", "task", "added", "context_available", "broadcast", "a_b"];
  const cases = Array.from({ length: 400 }, () => ({
    types: [...new Set(Array.from({ length: below(rnd, 4) }, () => pick(rnd, TYPES)))],
    type: pick(rnd, TYPES),
  }));
  const body = `
local out = {}
for i, c in ipairs(input) do out[i] = WH.takes(c.match, c.type) end
return cjson.encode(out)`;
  const got = await runLuaRule<boolean[]>(
    redis,
    luaRule("WEBHOOK_TAKES", body),
    cases.map((c) => ({ match: typeMatch(c.types), type: c.type })),
    { roomId: `wh-${crypto.randomUUID()}`, now: 1_750_000_000_000 },
  );
  expect(got).toEqual(cases.map((c) => webhookTakes(c.types, c.type)));
  expect(got.filter(Boolean).length).toBeGreaterThan(50);
  expect(got.filter((x) => !x).length).toBeGreaterThan(50);
});
