/**
 * Routes one command to the primary serving its slot and follows the cluster's answers, all before the caller's
 * deadline: MOVED updates the map and goes to the new owner; ASK sends ASKING then the command to the importing
 * node without touching the map; TRYAGAIN, CLUSTERDOWN and LOADING wait a little and go again; an unreachable
 * node reloads the map first (its replica may have been promoted). Only answers that prove the command did not
 * run are retried — a connection that breaks after the command was written fails the call (its outcome is
 * unknown), and nothing is sent once the deadline has passed.
 */
import type { NodePool } from "./nodes.ts";
import { address, type SlotMap } from "./slot-map.ts";

/** A redirect or a "not now" answer; anything else is the command's own outcome. */
type Answer = { kind: "moved" | "ask"; address: string } | { kind: "retry"; refresh: boolean };

/** Reads MOVED / ASK / TRYAGAIN / CLUSTERDOWN / LOADING from an error reply of the node at `from`. */
export function clusterAnswer(err: unknown, from: string): Answer | undefined {
  const message = err instanceof Error ? err.message : String(err);
  const redirect = /^(MOVED|ASK) \d+ (.*):(\d+)$/.exec(message);
  if (redirect) {
    // A node that does not know its own address leaves the host out: it is the node that answered.
    const host = redirect[2] || from.slice(0, from.lastIndexOf(":")).replace(/^\[|\]$/g, "");
    return { kind: redirect[1] === "MOVED" ? "moved" : "ask", address: address(host, Number(redirect[3])) };
  }
  if (/^(TRYAGAIN|LOADING)\b/.test(message)) return { kind: "retry", refresh: false };
  if (/^CLUSTERDOWN\b/.test(message)) return { kind: "retry", refresh: true };
  return undefined;
}

/** The call ran out of time while the cluster was redirecting, failing over or unreachable. */
export class ClusterUnavailable extends Error {
  override readonly name = "ClusterUnavailable";
}

export interface Router {
  /** Runs `command` on the primary serving `slot`; rejects once `deadline` (performance.now() ms) has passed. */
  send(slot: number, command: string, args: string[], deadline: number): Promise<unknown>;
  /** Runs `command` on the first known node that answers (for PING). */
  any(command: string, args: string[], deadline: number): Promise<unknown>;
}

/** Redirects followed back to back before the router starts pausing between them (a map still settling). */
const FREE_REDIRECTS = 3;

/** Waits 10, 20, 40 … ms (at most 250) but never past the deadline. */
const pause = (attempt: number, deadline: number) =>
  Bun.sleep(Math.max(0, Math.min(10 * 2 ** attempt, 250, deadline - performance.now())));

/** A router over `map` (slot → primary) and `pool` (one connection per node); see the file comment. */
export function createRouter(map: SlotMap, pool: NodePool): Router {
  const expired = (deadline: number, cause: unknown) => {
    if (performance.now() < deadline) return;
    throw new ClusterUnavailable("no answer from the cluster before the deadline", { cause });
  };

  async function send(slot: number, command: string, args: string[], deadline: number): Promise<unknown> {
    // A retry sent in the last tenth of the budget could not be answered in time, and a script that runs but
    // answers after the deadline leaves the caller an unknown outcome: such retries are not sent at all.
    const lastRetryAt = deadline - Math.max(5, (deadline - performance.now()) / 10);
    let asking: string | undefined;
    let last: unknown;
    for (let attempt = 0; ; attempt++) {
      expired(deadline, last);
      let target = asking ?? map.owner(slot);
      if (!target) {
        await map.refresh().catch((err) => (last = err));
        target = map.owner(slot);
        if (!target) {
          await pause(attempt, deadline);
          continue;
        }
      }
      let client: Awaited<ReturnType<NodePool["connected"]>>;
      try {
        client = await pool.connected(target);
      } catch (err) {
        // Never written: reload the map (a replica may own the slot now) and go again.
        last = err;
        asking = undefined;
        await map.refresh().catch(() => {});
        await pause(attempt, deadline);
        continue;
      }
      expired(attempt > 0 ? lastRetryAt : deadline, last);
      const ask = asking !== undefined;
      asking = undefined;
      try {
        // ASKING and the command leave back to back on one connection: the flag covers exactly that command.
        if (ask) client.send("ASKING", []).catch(() => {});
        return await client.send(command, args);
      } catch (err) {
        const answer = clusterAnswer(err, target);
        if (!answer) throw err;
        last = err;
        if (answer.kind === "ask") {
          asking = answer.address;
        } else if (answer.kind === "moved") {
          map.moved(slot, answer.address);
          // The whole map is probably stale (a failover or resharding); reload it without waiting.
          map.refresh().catch(() => {});
          if (attempt >= FREE_REDIRECTS) await pause(attempt - FREE_REDIRECTS, deadline);
        } else if (answer.kind === "retry") {
          if (answer.refresh) await map.refresh().catch(() => {});
          await pause(attempt, deadline);
        }
      }
    }
  }

  async function any(command: string, args: string[], deadline: number): Promise<unknown> {
    let last: unknown = new Error("no cluster node known");
    for (const node of map.nodes()) {
      expired(deadline, last);
      try {
        const client = await pool.connected(node);
        expired(deadline, last);
        return await client.send(command, args);
      } catch (err) {
        if (err instanceof ClusterUnavailable) throw err;
        last = err;
      }
    }
    throw last;
  }

  return { send, any };
}
