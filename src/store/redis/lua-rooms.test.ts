/**
 * Rules of a room's shared records in Lua give the answers of their TypeScript on the same generated cases, run by
 * a real redis-server inside a room script built like the driver's: a claim of files (conflicts, then the room's
 * limit: lua-claims.ts G.decide, against protocol/claims.ts fileClaimConflicts), who may delete an event
 * (lua-events.ts deletion_refused, against protocol/event-rules.ts checkEventDeletion), context versions and
 * addressees (lua-context.ts CTX_RULES, against protocol/context-rules.ts revisedContextEntry and addressee), lock
 * steps (lua-room.ts LOCK_RULES, against protocol/locks.ts lockAcquisition and lockRefusedRelease), and search's
 * bm25 (lua-tools.ts SEARCH_SCORE, against protocol/search.ts score). A refusal is compared as the RoomError each
 * side produces (kind and message).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RedisClient } from "bun";
import {
  disagreements,
  luaCases,
  luaRule,
  runLuaRule,
  tsAnswer as ts,
} from "../../../test/support/lua-rules.ts";
import { below, pick, prng } from "../../../test/support/prng.ts";
import { sharedRedis } from "../../../test/support/redis-server.ts";
import {
  type ClaimConflict,
  type FileClaim,
  fileClaimConflicts,
  sortConflicts,
} from "../../protocol/claims.ts";
import { addressee, revisedContextEntry } from "../../protocol/context-rules.ts";
import { checkEventDeletion } from "../../protocol/event-rules.ts";
import { type LockHold, lockAcquisition, lockRefusedRelease } from "../../protocol/locks.ts";
import type { ContextEntry } from "../../protocol/records.ts";
import { score } from "../../protocol/search.ts";
import { iso } from "../../protocol/time.ts";
import { CLAIM_HELPERS } from "./lua-claims.ts";
import { CTX_RULES } from "./lua-context.ts";
import { EVENT_RULES } from "./lua-events.ts";
import { LOCK_RULES } from "./lua-room.ts";
import { SEARCH_SCORE } from "./lua-tools.ts";

let redis: RedisClient;
beforeAll(async () => {
  redis = new RedisClient((await sharedRedis()).url);
});
afterAll(() => redis.close());

const NOW = 1_750_000_000_000;
const AGENTS = ["ann", "bob", "cy"];

/** Lua's answers to `each` over the cases, after `helpers`. */
const lua = (helpers: string, each: string, cases: unknown[]) => luaCases(redis, helpers, each, cases, NOW);

describe("Lua and TS agree on a room's shared records (real redis-server)", () => {
  test("a claim of files: the conflicts with others' live claims, else the room's limit", async () => {
    const rnd = prng(581);
    const PATHS = [
      "src/a.ts",
      "src/b.ts",
      "src/*.ts",
      "src/**",
      "docs/x.md",
      "**/*.md",
      "a/?/c",
      "a/b/c",
      "lib/**",
    ];
    const cases = Array.from({ length: 400 }, () => {
      const live = new Map<string, FileClaim>();
      for (let k = below(rnd, 5); k > 0; k--) {
        const path = pick(rnd, PATHS);
        live.set(path, {
          path,
          heldBy: pick(rnd, AGENTS),
          expiresAt: iso(NOW + 1 + below(rnd, 60_000)),
          claimedAt: iso(NOW),
        });
      }
      return {
        live: [...live.values()],
        paths: [...new Set(Array.from({ length: 1 + below(rnd, 3) }, () => pick(rnd, PATHS)))],
        agent: pick(rnd, AGENTS),
        max: 2 + below(rnd, 5),
      };
    });
    const want = cases.map((c) => ts(() => fileClaimConflicts(c.paths, c.agent, c.live, c.max)));
    const got = (
      await lua(
        CLAIM_HELPERS,
        `local live = {}
for _, l in ipairs(c.live) do live[l.path] = { agentId = l.heldBy, expiresAt = l.ms } end
local conflicts, refused = G.decide(c.paths, live, c.agent, c.max)
return refused, "[" .. table.concat(conflicts, ",") .. "]"`,
        cases.map((c) => ({ ...c, live: c.live.map((l) => ({ ...l, ms: Date.parse(l.expiresAt) })) })),
      )
    ).map((answer) =>
      // Lua lists conflicts unordered, with expiry in ms; the driver sorts and formats them (claim-ops.ts).
      "ok" in answer
        ? {
            ok: sortConflicts(
              (answer.ok as (Omit<ClaimConflict, "expiresAt"> & { expiresAt: number })[]).map((c) => ({
                ...c,
                expiresAt: iso(c.expiresAt),
              })),
            ),
          }
        : answer,
    );
    expect(disagreements(cases, want, got)).toEqual([]);
    expect(want.filter((w) => "ok" in w && (w.ok as unknown[]).length > 0).length).toBeGreaterThan(50);
    expect(want.filter((w) => "refused" in w).length).toBeGreaterThan(20);
  });

  test("who may delete an event: agents' posts only; a person's by that person; with onlyAuthor, the author's", async () => {
    const rnd = prng(582);
    const WHO = [...AGENTS, "human:pat", "human:sam"];
    const cases = Array.from({ length: 300 }, (_, i) => ({
      e: { id: `evt-${i + 1}`, type: pick(rnd, ["broadcast", "note", "task_added"]), from: pick(rnd, WHO) },
      posted: rnd() < 0.8,
      by: pick(rnd, WHO),
      only: rnd() < 0.5 ? undefined : pick(rnd, WHO),
    }));
    const want = cases.map((c) =>
      ts(() => checkEventDeletion({ ...c.e, posted: c.posted }, { by: c.by, onlyAuthor: c.only })),
    );
    const got = await lua(
      EVENT_RULES,
      "return deletion_refused(c.e, c.posted, c.by, c.only)",
      cases.map((c) => ({ ...c, only: c.only ?? "" })),
    );
    expect(disagreements(cases, want, got)).toEqual([]);
  });

  test("context: the expected version, the next version, and who hears of a change", async () => {
    const rnd = prng(583);
    const cases = Array.from({ length: 300 }, (_, i) => {
      const minor = pick(rnd, [0, 1, 9, 10, 99, below(rnd, 1e6)]);
      const m: ContextEntry = {
        id: `ctx-${i + 1}`,
        type: "note",
        author: pick(rnd, AGENTS),
        timestamp: iso(NOW - 1_000),
        summary: "s",
        consuming_agents: [],
        payload: {},
        version: `1.${minor}`,
      };
      return {
        m,
        expected: rnd() < 0.4 ? undefined : `1.${rnd() < 0.5 ? minor : below(rnd, 12)}`,
        agents: Array.from({ length: below(rnd, 4) }, () => pick(rnd, AGENTS)),
      };
    });
    // The version check and the next version are revisedContextEntry's (an update that changes no payload).
    const want = cases.map((c) =>
      ts(() => {
        const next = revisedContextEntry(c.m, { author: "cy", expectedVersion: c.expected }, NOW).version;
        return { next, to: addressee(c.agents) };
      }),
    );
    const got = await lua(
      CTX_RULES,
      `local stale = ctx_version_refused(c.m, c.expected)
if stale then return stale end
return nil, '{"next":' .. str(next_version(c.m.version)) .. ',"to":' .. opt_str(addressee(c.agents)) .. '}'`,
      cases.map((c) => ({ ...c, expected: c.expected ?? "" })),
    );
    expect(disagreements(cases, want, got)).toEqual([]);
  });

  test("locks: held by another, renewed by its holder, taken when free or run out; released only by its holder", async () => {
    const rnd = prng(584);
    // Never locked, released (Redis deletes the lock and keeps its fence), or held until a time around NOW.
    const cases = Array.from({ length: 300 }, () => {
      const fence = 1 + below(rnd, 9);
      const expiresAt = NOW + pick(rnd, [-1, 0, 1, -5_000, 5_000]);
      const hold: LockHold | null =
        rnd() < 0.2 ? null : { holder: rnd() < 0.2 ? null : pick(rnd, AGENTS), expiresAt, fence };
      return { hold, agent: pick(rnd, AGENTS) };
    });
    const want = cases.map((c) =>
      ts(() => ({
        acquire: lockAcquisition("res", c.hold, c.agent, NOW),
        release: lockRefusedRelease(c.hold, c.agent, NOW),
      })),
    );
    const steps = await lua(
      LOCK_RULES,
      `local lock = c.lock ~= cjson.null and c.lock or nil
return nil, '{"acquire":' .. str(lock_step(lock, c.agent)) .. ',"release":' .. str(unlock_step(lock, c.agent)) .. '}'`,
      cases.map((c) => ({
        lock: c.hold?.holder ? { holder: c.hold.holder, expiresAt: c.hold.expiresAt } : null,
        agent: c.agent,
      })),
    );
    // Each step as ACQUIRE_LOCK and RELEASE_LOCK answer it (lua-room.ts): a refusal names the live lock and its
    // fence, a renewal keeps the fence, a take raises it; a release answers nothing more.
    const got = steps.map((answer, i) => {
      if (!("ok" in answer)) return answer;
      const { hold } = cases[i] as (typeof cases)[number];
      const fence = hold?.fence ?? 0;
      const { acquire, release } = answer.ok as { acquire: string; release: string };
      const lock = { holder: hold?.holder, expiresAt: iso(hold?.expiresAt ?? 0) };
      return {
        ok: {
          acquire:
            acquire === "held"
              ? { refused: { acquired: false, resource: "res", ...lock, fence } }
              : { fence: acquire === "renew" ? fence : fence + 1 },
          release:
            release === "free"
              ? { released: false }
              : release === "held"
                ? { released: false, ...lock }
                : null,
        },
      };
    });
    expect(disagreements(cases, want, got)).toEqual([]);
    // Each step occurs.
    const seen = new Set(steps.flatMap((s) => ("ok" in s ? Object.values(s.ok as object) : [])));
    expect([...seen].sort()).toEqual(["free", "held", "release", "renew", "take"]);
  });
});

test("search: Lua's bm25 of a document is TS's score on the same room statistics (to the last bits of log)", async () => {
  const rnd = prng(585);
  const cases = Array.from({ length: 500 }, () => {
    const documents = 1 + below(rnd, 60);
    const terms = 1 + below(rnd, 3);
    const length = 1 + below(rnd, 120);
    return {
      stats: {
        documents,
        tokens: documents * (1 + below(rnd, 80)),
        df: Array.from({ length: terms }, () => 1 + below(rnd, documents)),
      },
      candidate: { id: "task-1", length, tf: Array.from({ length: terms }, () => 1 + below(rnd, 6)) },
    };
  });
  const body = `${SEARCH_SCORE}
local out = {}
for i, c in ipairs(input) do
  out[i] = num(bm25(c.stats.documents, c.stats.tokens / c.stats.documents, c.stats.df, c.candidate.tf, c.candidate.length))
end
return "[" .. table.concat(out, ",") .. "]"`;
  const got = await runLuaRule<number[]>(redis, luaRule("BM25", body), cases, {
    roomId: `rules-${crypto.randomUUID()}`,
    now: NOW,
  });
  const off = cases.flatMap((c, i) => {
    const want = score(c.stats, c.candidate);
    const lua = got[i] as number;
    return Math.abs(lua - want) <= 1e-12 * Math.max(1, Math.abs(want)) ? [] : [{ c, want, lua }];
  });
  expect(off).toEqual([]);
  // Both sides of the idf floor (terms in more than half the documents score the floor).
  expect(cases.some((c) => c.stats.df.some((df) => df * 2 >= c.stats.documents))).toBe(true);
});
