/**
 * Claiming work across real roomd processes on one store (each E2E store): 32 agents race claim_task for one task
 * (exactly one wins, the others are told the owner; dependencies hold), and 16 agents race claim_files on
 * overlapping patterns with releases and leave_room in between. The audit replays the room's log — each claim
 * write appends its event in its own atomic step, so the log is the order the claims changed in — and requires
 * that no two agents' live claims ever overlapped, that every call was all or nothing, and that the results and
 * the log tell the same story. Lease and claim expiry under a moved clock are in the conformance suite.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { patternsOverlap } from "../../src/protocol/paths.ts";
import { callTool, type Json } from "../support/load-audit/call.ts";
import { newLedger } from "../support/load-audit/index.ts";
import { pick, prng } from "../support/prng.ts";
import { type SpawnedServer, spawnServer, TEAM_A } from "../support/server.ts";
import { E2E_STORES, newRoomId } from "../support/stores.ts";

const PROCESSES = 3;
const options = { secret: TEAM_A.secret, timeoutMs: 15_000 };
const PATTERN_SETS = [
  ["src/**"],
  ["src/a.ts"],
  ["src/*.ts"],
  ["docs/x.md"],
  ["src/*.ts", "docs/x.md"],
  ["src/a.ts", "docs/**"],
];

/** Every event of the room, oldest first. */
async function roomLog(url: string, roomId: string): Promise<Json[]> {
  const ledger = newLedger("claims", []);
  const out: Json[] = [];
  let before: number | undefined;
  for (;;) {
    const page = await callTool(ledger, options, url, "auditor", "read_events", {
      roomId,
      limit: 100,
      ...(before === undefined ? {} : { before }),
    });
    if (page.outcome !== "ok") throw new Error(`read_events: ${page.error}`);
    const events = page.value as unknown as Json[];
    out.push(...events);
    if (events.length < 100) break;
    before = events.at(-1)?.seq;
  }
  return out.reverse();
}

/**
 * Replays the claim events of a log (files_claimed, files_released, files_claim_expired) and reports every claim
 * that overlapped another agent's live claim when it was made; returns the live claims at the end.
 */
function replayClaims(log: Json[]): { live: Map<string, string>; problems: string[] } {
  const live = new Map<string, string>();
  const problems: string[] = [];
  for (const e of log) {
    if (e.type === "files_claimed") {
      for (const path of e.payload.paths as string[]) {
        for (const [held, holder] of live) {
          if (holder !== e.from && patternsOverlap(path, held))
            problems.push(`seq ${e.seq}: ${e.from} claimed ${path} while ${holder} held ${held}`);
        }
        live.set(path, e.from);
      }
    } else if (e.type === "files_released") {
      for (const path of e.payload.paths as string[]) live.delete(path);
    } else if (e.type === "files_claim_expired") {
      live.delete(e.payload.path);
    }
  }
  return { live, problems };
}

test("the replay audit finds an overlap, and accepts a claim after a release", () => {
  const claimed = (seq: number, from: string, paths: string[]) => ({
    seq,
    type: "files_claimed",
    from,
    payload: { paths },
  });
  expect(replayClaims([claimed(1, "a", ["src/**"]), claimed(2, "b", ["src/a.ts"])]).problems).toEqual([
    "seq 2: b claimed src/a.ts while a held src/**",
  ]);
  const released = { seq: 2, type: "files_released", from: "a", payload: { paths: ["src/**"] } };
  expect(
    replayClaims([claimed(1, "a", ["src/**"]), released, claimed(3, "b", ["src/a.ts"])]).problems,
  ).toEqual([]);
});

for (const make of E2E_STORES) {
  describe(`claiming work across ${PROCESSES} roomd processes (${make().name})`, () => {
    const servers: SpawnedServer[] = [];
    const urls = () => servers.map((s) => s.url);
    beforeAll(async () => {
      // What is raced here is who holds which files, not how fast: a write queued behind the room's lock may wait
      // 20 s (the default 2 s answered "Store unavailable" on PostgreSQL at load 17, three suites on two cores).
      const env = {
        API_KEYS: `${TEAM_A.teamId}:${TEAM_A.secret}`,
        RATE_LIMIT_PER_MINUTE: "1000000",
        ...(await make().env()),
        STORE_TIMEOUT_MS: "20000",
      };
      servers.push(...(await Promise.all(Array.from({ length: PROCESSES }, () => spawnServer(env)))));
    });
    afterAll(async () => {
      await Promise.all(servers.map((s) => s.stop()));
    });

    test("32 agents race claim_task: exactly one wins, the rest are told the owner; dependencies hold", async () => {
      const ledger = newLedger("claims", []);
      const roomId = newRoomId();
      const call = (i: number, tool: string, args: Json) =>
        callTool(ledger, options, urls()[i % PROCESSES] as string, `agent-${i}`, tool, { roomId, ...args });
      const first = await call(0, "add_task", { title: "schema", agentId: "lead" });
      const second = await call(1, "add_task", {
        title: "api",
        depends_on: [(first as Json).value.id],
        agentId: "lead",
      });
      if (first.outcome !== "ok" || second.outcome !== "ok") throw new Error("set-up failed");
      const race = (taskId: string) =>
        Promise.all(
          Array.from({ length: 32 }, (_, i) => call(i, "claim_task", { taskId, agentId: `agent-${i}` })),
        );

      const results = await race(first.value.id);
      const winners = results.flatMap((r) => (r.outcome === "ok" ? [r.value] : []));
      expect(winners).toHaveLength(1);
      const winner = winners[0] as Json;
      for (const r of results) {
        if (r.outcome === "ok") continue;
        expect(r.outcome).toBe("error");
        expect(r.outcome === "error" && r.error).toStartWith(
          `Error: Task ${first.value.id} is owned by ${winner.owner} (lease until ${winner.lease_expires_at})`,
        );
      }
      // The dependent task cannot be claimed while its dependency is in progress...
      for (const r of await race(second.value.id)) {
        expect(r.outcome === "error" && r.error).toBe(
          `Error: Task ${second.value.id} is blocked by ${first.value.id} (in_progress); finish those first`,
        );
      }
      // ...and has exactly one winner once it is done.
      const owner = Number(String(winner.owner).slice("agent-".length));
      const done = await call(owner, "update_task", {
        taskId: first.value.id,
        status: "done",
        agentId: winner.owner,
      });
      expect(done.outcome).toBe("ok");
      const next = await race(second.value.id);
      expect(next.filter((r) => r.outcome === "ok")).toHaveLength(1);
      const log = await roomLog(urls()[2] as string, roomId);
      expect(log.filter((e) => e.type === "task_claimed").map((e) => e.payload.task.id)).toEqual([
        first.value.id,
        second.value.id,
      ]);
      expect(ledger.calls.filter((c) => c.outcome === "unknown")).toEqual([]);
    });

    test("16 agents race claim_files on overlapping patterns: never two overlapping live claims, all or nothing", async () => {
      const ledger = newLedger("claims", []);
      const roomId = newRoomId();
      const rnd = prng(4242);
      const results: { agent: string; paths: string[]; value: Json }[] = [];
      for (let round = 0; round < 8; round++) {
        const calls = Array.from({ length: 16 }, async (_, i) => {
          const agent = `agent-${i}`;
          const url = urls()[(i + round) % PROCESSES] as string;
          const paths = pick(rnd, PATTERN_SETS);
          const after = rnd();
          const r = await callTool(ledger, options, url, agent, "claim_files", {
            roomId,
            agentId: agent,
            paths,
          });
          if (r.outcome !== "ok") throw new Error(`${agent}: ${r.error}`);
          results.push({ agent, paths, value: r.value });
          // Then, sometimes: release everything, leave the room, or hold on into the next round.
          if (after < 0.35)
            await callTool(ledger, options, url, agent, "release_files", { roomId, agentId: agent });
          else if (after < 0.55)
            await callTool(ledger, options, url, agent, "leave_room", { roomId, agentId: agent });
        });
        await Promise.all(calls);
      }
      expect(ledger.calls.filter((c) => c.outcome !== "ok")).toEqual([]);

      // Every result is all or nothing, and a refusal names conflicts.
      for (const { paths, value } of results) {
        const won = value.claimed.length > 0;
        expect(value.claimed.map((c: Json) => c.path)).toEqual(won ? paths : []);
        expect(value.conflicts.length > 0).toBe(!won);
        for (const c of value.conflicts) expect(patternsOverlap(c.path, c.pattern)).toBe(true);
      }
      const wins = results.filter((r) => r.value.claimed.length > 0);
      // The race exercised both outcomes (how many of each depends on the interleaving, which each store shapes).
      expect(wins.length).toBeGreaterThanOrEqual(4);
      expect(results.length - wins.length).toBeGreaterThanOrEqual(4);

      // Replay the log: the live claims after each change never overlap across agents.
      const log = await roomLog(urls()[0] as string, roomId);
      const { live, problems } = replayClaims(log);
      expect(problems).toEqual([]);
      // The log and the answers tell the same story: one files_claimed per successful call, by that agent.
      const claimedEvents = log.filter((e) => e.type === "files_claimed");
      expect(claimedEvents.map((e) => `${e.from} ${e.payload.paths}`).sort()).toEqual(
        wins.map((w) => `${w.agent} ${w.paths}`).sort(),
      );
      // leave_room released claims through files_released; what the replay holds is what is live.
      const listed = await callTool(ledger, options, urls()[1] as string, "auditor", "list_claims", {
        roomId,
      });
      const now = ((listed as { value: unknown }).value as Json[]).map((c) => `${c.heldBy} ${c.path}`).sort();
      expect(now).toEqual([...live].map(([path, holder]) => `${holder} ${path}`).sort());
      expect(log.some((e) => e.type === "agent_left")).toBe(true);
    });

    test("claim paths outside the repository are refused and change nothing", async () => {
      const ledger = newLedger("claims", []);
      const roomId = newRoomId();
      const url = urls()[0] as string;
      const refusals: Record<string, string> = {
        "../secrets.txt": 'has a ".." segment',
        "src/../../etc/passwd": 'has a ".." segment',
        "/etc/passwd": "is absolute",
        "C:\\Windows": "is absolute",
        "src\\a.ts": "contains a backslash",
        "~/notes.md": 'starts with "~"',
        "src//a.ts": "has an empty segment",
      };
      for (const [path, rule] of Object.entries(refusals)) {
        const r = await callTool(ledger, options, url, "a", "claim_files", {
          roomId,
          agentId: "a",
          paths: ["src/ok.ts", path],
        });
        expect(r.outcome === "error" && r.error).toStartWith(
          `Error: Invalid arguments: paths.1: Invalid path ${JSON.stringify(path)}: ${rule}`,
        );
      }
      const check = await callTool(ledger, options, url, "a", "check_files", {
        roomId,
        agentId: "a",
        paths: ["/abs"],
      });
      expect(check.outcome === "error" && check.error).toStartWith(
        'Error: Invalid arguments: paths.0: Invalid path "/abs": is absolute',
      );
      const listed = await callTool(ledger, options, url, "a", "list_claims", { roomId });
      expect(listed).toMatchObject({ outcome: "ok", value: [] });
      expect(await roomLog(url, roomId)).toEqual([]);
    });
  });
}
