/**
 * The webhook retry and disabling rule in Lua (lua-webhooks.ts WEBHOOK_POLICY, which RECORD_DELIVERY applies)
 * gives the answers of protocol/webhooks.ts afterDelivery on the same generated attempts, run by a real
 * redis-server inside a room script built like the driver's: what the log records, whether and when the event is
 * tried again, the webhook's dropped-in-a-row count, and why it is disabled (only an active webhook is, as every
 * store applies the rule). The type filter (WH.takes, on the filter text the driver stores) agrees with
 * webhookTakes the same way.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { luaRule, runLuaRule } from "../../../test/support/lua-rules.ts";
import { below, pick, prng } from "../../../test/support/prng.ts";
import { sharedRedis } from "../../../test/support/redis-server.ts";
import { afterDelivery, type DeliveryStep, WEBHOOK_LIMITS, webhookTakes } from "../../protocol/webhooks.ts";
import { typeMatch, WEBHOOK_POLICY } from "./lua-webhooks.ts";

let redis: RedisClient;
beforeAll(async () => {
  redis = new RedisClient((await sharedRedis()).url);
});
afterAll(() => redis.close());

/** A webhook's state as RECORD_DELIVERY keeps it: active or disabled, dropped events in a row, its last delivery. */
interface Attempt {
  state: { active: boolean; drops: number; lastMs: number };
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
  type LuaStep = {
    logged: DeliveryStep["logged"];
    retry: boolean;
    state: Attempt["state"];
    disabled: DeliveryStep["disable"] | null;
  };
  const answers = await runLuaRule<LuaStep[]>(redis, luaRule("WEBHOOK_POLICY", body), attempts, {
    roomId: `wh-${crypto.randomUUID()}`,
    now: 1_750_000_000_000,
  });
  // Lua's answer as a DeliveryStep: a retry after the attempt's delay, the count it keeps, why it disables.
  const got = answers.map((l, i): DeliveryStep => {
    const { retryInMs } = attempts[i] as Attempt;
    return {
      logged: l.logged,
      ...(l.retry && retryInMs !== null && { retryInMs }),
      dropped: l.state.drops,
      ...(l.disabled && { disable: l.disabled }),
    };
  });
  // afterDelivery's step as a store applies it: only an active webhook is disabled.
  const want = attempts.map((a): DeliveryStep => {
    const { disable, ...step } = afterDelivery(a.outcome, a.retryInMs, a.state.drops);
    return { ...step, ...(disable && a.state.active && { disable }) };
  });
  const disagree = attempts.flatMap((a, i) =>
    JSON.stringify(got[i]) === JSON.stringify(want[i]) ? [] : [{ a, want: want[i], got: got[i] }],
  );
  expect(disagree).toEqual([]);
  // Lua keeps the rest of the state as every store does: the last delivery moves only with a delivery.
  expect(
    answers.filter((l, i) => {
      const a = attempts[i] as Attempt;
      const last = a.outcome === "delivered" ? a.atMs : a.state.lastMs;
      return l.state.lastMs !== last || l.state.active !== a.state.active;
    }),
  ).toEqual([]);
  // Every consequence occurs: each logged outcome, a retry, and both reasons to disable.
  const seen = new Set(want.flatMap((w) => [w.logged, w.retryInMs ? "retry" : "", w.disable ?? ""]));
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
