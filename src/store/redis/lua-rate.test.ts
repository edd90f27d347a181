/**
 * The rule of a request charged to two windows (protocol/rate-pair.ts refusingWindow and shownWindow) in Lua
 * (lua-rate.ts charge_pair) gives the answers of its TypeScript on generated windows, run by a real redis-server the
 * way the scripts run it: which window refuses, which an admitted answer shows, its limit and what is left, and
 * that a refused request is recorded in neither window while an admitted one is recorded in both.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { luaRule, runLuaRule } from "../../../test/support/lua-rules.ts";
import { below, prng } from "../../../test/support/prng.ts";
import { sharedRedis } from "../../../test/support/redis-server.ts";
import { refusingWindow, shownWindow } from "../../protocol/rate-pair.ts";
import { RATE_LUA } from "./lua-rate.ts";

let redis: RedisClient;
beforeAll(async () => {
  redis = new RedisClient((await sharedRedis()).url);
});
afterAll(() => redis.close());

const NOW = 1_750_000_000_000;
const WINDOW = 60_000;

// Fills both windows with the given counts (members inside the window), charges once, and answers the decision
// with what each window holds afterwards.
const RULE = luaRule(
  "rate_pair_agreement",
  `${RATE_LUA}
local team_key, agent_key = K_META .. ":rl-team", K_META .. ":rl-agent"
redis.call("DEL", team_key, agent_key)
for i = 1, input.team do redis.call("ZADD", team_key, NOW - 1 - i, "t" .. i) end
for i = 1, input.agent do redis.call("ZADD", agent_key, NOW - 1 - i, "a" .. i) end
local decision = charge_pair(team_key, agent_key, input.teamLimit, input.agentLimit, ${WINDOW})
local after = '{"team":' .. redis.call("ZCARD", team_key) .. ',"agent":' .. redis.call("ZCARD", agent_key) .. '}'
redis.call("DEL", team_key, agent_key)
return '{"decision":' .. decision .. ',"after":' .. after .. '}'
`,
);

interface Reply {
  decision: { allowed: boolean; spent?: string; limit: number; remaining: number; resetMs: number };
  after: { team: number; agent: number };
}

test("charge_pair answers as refusingWindow and shownWindow on 300 generated pairs of windows", async () => {
  const rnd = prng(0x5eed);
  for (let i = 0; i < 300; i++) {
    const teamLimit = 1 + below(rnd, 6);
    const agentLimit = 1 + below(rnd, 6);
    const team = { count: below(rnd, teamLimit + 2), limit: teamLimit };
    const agent = { count: below(rnd, agentLimit + 2), limit: agentLimit };
    const input = { team: team.count, agent: agent.count, teamLimit, agentLimit };
    const reply = await runLuaRule<Reply>(redis, RULE, input, { roomId: `rate-${i}`, now: NOW });
    const refusing = refusingWindow(team, agent);
    const label = JSON.stringify(input);
    if (refusing !== null) {
      expect(reply.decision, label).toMatchObject({
        allowed: false,
        spent: refusing,
        limit: refusing === "team" ? teamLimit : agentLimit,
        remaining: 0,
      });
      expect(reply.decision.resetMs, label).toBeGreaterThan(0);
      expect(reply.after, label).toEqual({ team: team.count, agent: agent.count });
    } else {
      const shown = shownWindow(team, agent) === "team" ? team : agent;
      expect(reply.decision, label).toMatchObject({
        allowed: true,
        limit: shown.limit,
        remaining: shown.limit - shown.count - 1,
      });
      expect(reply.decision.spent, label).toBeUndefined();
      expect(reply.after, label).toEqual({ team: team.count + 1, agent: agent.count + 1 });
    }
  }
});
