/**
 * People's rules in Lua (lua-people-helpers.ts P.*, lua-tools.ts review_refused) give the answers of their
 * TypeScript (protocol/people-rules.ts, reviews.ts decidedReview) on the same generated cases, run by a real
 * redis-server inside a room script built like the driver's: taking the wheel and acting on it, deciding approvals
 * and reviews, offering, accepting, declining and cancelling handoffs, and which tasks an acceptance moves
 * (protocol/people.ts handoffMoves). A refusal is compared as the RoomError each side produces (kind and message).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { disagreements, luaCases, tsAnswer as ts } from "../../../test/support/lua-rules.ts";
import { below, pick, prng } from "../../../test/support/prng.ts";
import { sharedRedis } from "../../../test/support/redis-server.ts";
import {
  type Approval,
  type DriverState,
  effectiveApproval,
  type Handoff,
  type HandoffStatus,
  handoffMoves,
} from "../../protocol/people.ts";
import {
  checkDriverAction,
  checkHandoffAccept,
  checkHandoffCancel,
  checkHandoffDecline,
  checkHandoffOpen,
  checkHandoffTask,
  decidedApproval,
  driverTakeReason,
} from "../../protocol/people-rules.ts";
import type { Review } from "../../protocol/records.ts";
import { decidedReview } from "../../protocol/reviews.ts";
import { iso } from "../../protocol/time.ts";
import { PEOPLE_HELPERS } from "./lua-people-helpers.ts";
import { REVIEW_JSON } from "./lua-tools.ts";

let redis: RedisClient;
beforeAll(async () => {
  redis = new RedisClient((await sharedRedis()).url);
});
afterAll(() => redis.close());

const NOW = 1_750_000_000_000;
const AGENTS = ["ann", "bob"];
const PEOPLE = ["human:pat", "human:sam"];

/** Lua's answers to `each` over the cases, with the people's and review helpers. */
const lua = (each: string, cases: unknown[]) =>
  luaCases(redis, `${PEOPLE_HELPERS}${REVIEW_JSON}`, each, cases, NOW);

/** A driver as P.driver() reads it (absent fields for nobody) and as DriverState. */
function driver(rnd: () => number): { lua: Record<string, unknown>; state: DriverState } {
  const epoch = below(rnd, 4);
  if (rnd() < 0.3) return { lua: { epoch }, state: { holder: null, holderKind: null, epoch, since: null } };
  const kind = rnd() < 0.5 ? "agent" : "human";
  const holder = kind === "agent" ? pick(rnd, AGENTS) : pick(rnd, PEOPLE);
  const since = iso(NOW - below(rnd, 100_000));
  return { lua: { holder, kind, epoch, since }, state: { holder, holderKind: kind, epoch, since } };
}

describe("the wheel: Lua and TS agree (real redis-server)", () => {
  test("why a taker takes it, or why not: nobody, an agent's, a person's with and without force", async () => {
    const rnd = prng(281);
    const cases = Array.from({ length: 300 }, () => ({
      ...driver(rnd),
      kind: rnd() < 0.5 ? ("agent" as const) : ("human" as const),
      force: rnd() < 0.5,
    }));
    // The taker is never the current holder (the stores answer that before asking the rule).
    const taker = (kind: "agent" | "human") => (kind === "agent" ? "cy" : "human:kim");
    const want = cases.map((c) =>
      ts(() => driverTakeReason(c.state, { holder: taker(c.kind), kind: c.kind, force: c.force })),
    );
    const got = await lua(
      `local reason, refused = P.take_reason(c.d, c.kind, c.force)
return refused, reason and str(reason)`,
      cases.map((c) => ({ d: c.lua, kind: c.kind, force: c.force })),
    );
    expect(disagreements(cases, want, got)).toEqual([]);
    // Every reason and both refusals occur.
    const kinds = want.map((w) =>
      "ok" in w ? String(w.ok) : /claim_driver/.test(w.message) ? "driverTaken" : "driverHeld",
    );
    expect(new Set(kinds).size).toBe(6);
  });

  test("releasing, steering and interrupting: the epoch first, then the holder", async () => {
    const rnd = prng(282);
    const cases = Array.from({ length: 300 }, () => {
      const d = driver(rnd);
      return {
        ...d,
        by: rnd() < 0.5 && d.state.holder !== null ? d.state.holder : pick(rnd, [...AGENTS, ...PEOPLE]),
        epoch: rnd() < 0.6 ? d.state.epoch : below(rnd, 4),
        action: pick(rnd, ["release the wheel", "steer", "interrupt"]),
      };
    });
    const want = cases.map((c) => ts(() => checkDriverAction(c.state, c.by, c.epoch, c.action)));
    const got = await lua(
      "return P.act_refused(c.d, c.by, c.epoch, c.action)",
      cases.map((c) => ({ d: c.lua, by: c.by, epoch: c.epoch, action: c.action })),
    );
    expect(disagreements(cases, want, got)).toEqual([]);
  });
});

describe("decisions: Lua and TS agree (real redis-server)", () => {
  test("an approval is decided once, and not after it expired", async () => {
    const rnd = prng(283);
    const cases = Array.from({ length: 300 }, (_, i) => {
      const status = pick(rnd, ["pending", "pending", "approved", "rejected"] as const);
      // Run out, live, and the instants around NOW.
      const expiresMs = NOW + pick(rnd, [-1, 0, 1, -below(rnd, 5_000), 1 + below(rnd, 5_000)]);
      const approval: Approval = {
        id: `apr-${i + 1}`,
        action: "deploy",
        details: {},
        requestedBy: pick(rnd, AGENTS),
        status,
        created_at: iso(NOW - 10_000),
        expires_at: iso(expiresMs),
        ...(status === "pending" ? {} : { decidedBy: pick(rnd, PEOPLE), decided_at: iso(NOW - 1_000) }),
      };
      return { approval, expiresMs };
    });
    // Lua answers only the refusal: the decided record TS builds is left out.
    const decision = { decidedBy: "human:kim", decision: "approve" } as const;
    const want = cases.map((c) =>
      ts(() => {
        decidedApproval(effectiveApproval(c.approval, NOW), decision, NOW);
      }),
    );
    const got = await lua(
      "return P.approval_refused(c)",
      cases.map((c) => ({ ...c.approval, expiresMs: c.expiresMs })),
    );
    expect(disagreements(cases, want, got)).toEqual([]);
  });

  test("a review is decided by its reviewer, once", async () => {
    const rnd = prng(284);
    const cases = Array.from({ length: 200 }, (_, i) => {
      const status = pick(rnd, ["pending", "approved", "rejected"] as const);
      const review: Review = {
        id: `rev-${i + 1}`,
        status,
        requester: "ann",
        reviewer: pick(rnd, AGENTS),
        subject: "s",
        details: "",
        task_id: null,
        context_id: null,
        context_version: null,
        comment: null,
        created_at: iso(NOW - 10_000),
        decided_at: status === "pending" ? null : iso(NOW - 1_000),
      };
      return { review, agent: pick(rnd, AGENTS) };
    });
    // Lua answers only the refusal: the decided record TS builds is left out.
    const want = cases.map((c) =>
      ts(() => {
        decidedReview(c.review, { agentId: c.agent, status: "approved" }, NOW);
      }),
    );
    const got = await lua(
      "return review_refused(c.r, c.agent)",
      cases.map((c) => ({ r: c.review, agent: c.agent })),
    );
    expect(disagreements(cases, want, got)).toEqual([]);
  });
});

describe("handoffs: Lua and TS agree (real redis-server)", () => {
  /** A handoff as stored: open, or closed by someone (closedBy only then). */
  function handoff(rnd: () => number, i: number): Handoff {
    const from = pick(rnd, AGENTS);
    const status: HandoffStatus = rnd() < 0.6 ? "offered" : pick(rnd, ["accepted", "declined", "cancelled"]);
    return {
      id: `hof-${i + 1}`,
      from,
      to: rnd() < 0.4 ? "any" : pick(rnd, ["ann", "bob", "cy"]),
      taskIds: [],
      contextIds: [],
      note: "",
      status,
      offeredBy: rnd() < 0.7 ? from : pick(rnd, PEOPLE),
      owners: {},
      created_at: iso(NOW - 10_000),
      updated_at: iso(NOW - 5_000),
      ...(status === "offered" ? {} : { closedBy: pick(rnd, ["ann", "bob", "cy"]) }),
    };
  }

  test("accept, decline and cancel of an offer that is still open", async () => {
    const rnd = prng(285);
    const who = ["ann", "bob", "cy", ...PEOPLE];
    const cases = Array.from({ length: 400 }, (_, i) => ({
      h: handoff(rnd, i),
      op: pick(rnd, ["accept", "decline", "cancel"] as const),
      agent: pick(rnd, who),
    }));
    const check = { accept: checkHandoffAccept, decline: checkHandoffDecline, cancel: checkHandoffCancel };
    const want = cases.map((c) =>
      ts(() => {
        checkHandoffOpen(c.h);
        check[c.op](c.h, c.agent);
      }),
    );
    const got = await lua(
      `local closed = P.closed_refused(c.h)
if closed then return closed end
if c.op == "accept" then return P.accept_refused(c.h, c.agent) end
if c.op == "decline" then return P.decline_refused(c.h, c.agent) end
return P.cancel_refused(c.h, c.agent)`,
      cases,
    );
    expect(disagreements(cases, want, got)).toEqual([]);
    expect(
      new Set(want.map((w) => ("ok" in w ? "ok" : w.message.replace(/hof-\d+|human:\w+|ann|bob|cy/g, ""))))
        .size,
    ).toBeGreaterThanOrEqual(7);
  });

  test("an agent offers only its own or unowned tasks; a person offers any", async () => {
    const rnd = prng(286);
    const cases = Array.from({ length: 200 }, (_, i) => ({
      tid: `task-${i + 1}`,
      owner: rnd() < 0.3 ? null : pick(rnd, AGENTS),
      from: pick(rnd, AGENTS),
      agentOffer: rnd() < 0.7,
    }));
    const want = cases.map((c) => ts(() => checkHandoffTask(c, c.tid, c.owner)));
    const got = await lua("return P.offer_refused(c.tid, val(c.owner), c.from, c.agentOffer)", cases);
    expect(disagreements(cases, want, got)).toEqual([]);
  });
});

test("an acceptance moves the tasks still owned as offered; the others are conflicts (a task gone: owner null)", async () => {
  const rnd = prng(287);
  const OWNERS = [null, ...AGENTS];
  const cases = Array.from({ length: 300 }, () => {
    const ids = Array.from({ length: below(rnd, 5) }, (_, k) => `task-${k + 1}`);
    const owners: Record<string, string | null> = Object.fromEntries(
      ids.map((id) => [id, pick(rnd, OWNERS)]),
    );
    // Now: gone, still as offered, or taken by someone else since.
    const current: Record<string, { owner: string | null }> = {};
    for (const id of ids) {
      if (rnd() < 0.15) continue;
      current[id] = { owner: rnd() < 0.6 ? (owners[id] ?? null) : pick(rnd, OWNERS) };
    }
    return { h: { taskIds: ids, owners }, current };
  });
  const want = cases.map((c) =>
    ts(() => {
      const { move, conflicts } = handoffMoves(c.h, (id) => c.current[id]);
      return { move, conflicts };
    }),
  );
  const got = await lua(
    `local moved, conflicts = P.moves(c.h, function(tid) return c.current[tid] end)
return nil, '{"move":' .. strs(moved) .. ',"conflicts":' .. P.conflicts(conflicts) .. '}'`,
    cases,
  );
  expect(disagreements(cases, want, got)).toEqual([]);
  expect(
    want.filter((w) => "ok" in w && (w.ok as { conflicts: unknown[] }).conflicts.length > 0).length,
  ).toBeGreaterThan(50);
});
