/**
 * Numbers in Lua's JSON (lua-prelude.ts num, used by every record and reply a script builds) read back as the
 * number TypeScript wrote, on a real redis-server: an integer prints exactly as JSON.stringify prints it (ids,
 * seqs, versions, ms), and any other number as a JSON number that parses to the same double (Lua gives 17
 * significant digits where JS gives the fewest that round-trip). ISO times (lua-holdings.ts iso_of) are held to
 * protocol/time.ts iso by lua-claims.test.ts.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { luaRule, runLuaRule } from "../../../test/support/lua-rules.ts";
import { below, prng } from "../../../test/support/prng.ts";
import { sharedRedis } from "../../../test/support/redis-server.ts";

let redis: RedisClient;
beforeAll(async () => {
  redis = new RedisClient((await sharedRedis()).url);
});
afterAll(() => redis.close());

test("num(n) prints integers as JSON.stringify does, and every number so that it parses back to itself", async () => {
  const rnd = prng(481);
  const numbers = [
    0,
    1,
    -1,
    0.1,
    1 / 3,
    -2.5,
    1e-7,
    5e-324,
    Number.MAX_VALUE,
    2 ** 53 - 1,
    -(2 ** 53 - 1),
    2 ** 53,
  ];
  numbers.push(1e15, 1e16, 1e21, 123_456_789.125, 1_750_000_000_123);
  while (numbers.length < 3000) {
    const roll = rnd();
    if (roll < 0.4) numbers.push(below(rnd, 2 ** 53) * (rnd() < 0.2 ? -1 : 1));
    else if (roll < 0.7) numbers.push((rnd() - 0.5) * 10 ** below(rnd, 30));
    else
      numbers.push(
        new Float64Array(new Uint32Array([below(rnd, 2 ** 32), below(rnd, 0x7fe00000)]).buffer)[0] as number,
      );
  }
  const body = `
local out = {}
for i, n in ipairs(input) do out[i] = num(n) end
return cjson.encode(out)`;
  const printed = await runLuaRule<string[]>(redis, luaRule("NUMBERS", body), numbers, {
    roomId: `num-${crypto.randomUUID()}`,
    now: 1_750_000_000_000,
  });
  const wrong = numbers.flatMap((n, i) => {
    const text = printed[i] as string;
    const exact = Number.isSafeInteger(n) ? text === JSON.stringify(n) : true;
    return exact && JSON.parse(text) === n ? [] : [{ n, text }];
  });
  expect(wrong).toEqual([]);
});
