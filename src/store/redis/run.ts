/**
 * Runs one script as one round trip: EVALSHA, and EVAL of the same text only when Redis answers NOSCRIPT (after
 * a restart or SCRIPT FLUSH). Every call is bounded by a deadline; outages and Redis errors become
 * RoomError("store_unavailable") with the cause kept but never shown. Script-level refusals ({"err": …}) become
 * the same RoomErrors the other drivers throw.
 */

import { claimErrors } from "../../protocol/claims.ts";
import { errors, type RoomError, StoreFault } from "../../protocol/errors.ts";
import { leaseErrors } from "../../protocol/leases.ts";
import { movingErrors } from "../../protocol/moving.ts";
import { planErrors } from "../../protocol/plan-rules.ts";
import { valueErrors } from "../../protocol/room-values.ts";
import { type Suspension, suspendedError } from "../../protocol/suspensions.ts";
import { iso } from "../../protocol/time.ts";
import { toolErrors } from "../../protocol/tool-errors.ts";
import { isNoScript, isScriptFailure, type ScriptClient } from "./client.ts";
import { peopleRefusal } from "./people-refusals.ts";
import type { LuaScript } from "./scripts.ts";

/** An error's message with the Redis client's own prefix dropped ("Command failed: ERR …" → "ERR …"). */
const messageOf = (err: unknown) =>
  (err instanceof Error ? err.message : String(err)).replace(/^Command failed: /, "").slice(0, 300);

class Timeout extends Error {
  override readonly name = "Timeout";
}

/** Resolves like `call`, or rejects with Timeout once `deadline` (performance.now() ms) passes. */
export async function beforeDeadline<T>(call: Promise<T>, deadline: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Timeout("store call timed out")),
      Math.max(0, deadline - performance.now()),
    );
  });
  // A late rejection of the abandoned call must not surface as an unhandled rejection.
  call.catch(() => {});
  try {
    return await Promise.race([call, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** The RoomError named by a script's {"err": kind, …} reply (a StoreFault for a kind no operation answers). */
export function refusal(reply: { err: string; [detail: string]: unknown }): RoomError | StoreFault {
  const people = peopleRefusal(reply);
  if (people) return people;
  const id = String(reply.id ?? "");
  switch (reply.err) {
    case "denied":
      return errors.denied();
    case "suspended":
      return suspendedError(String(reply.room), reply.s as Suspension);
    case "taskNotFound":
      return errors.taskNotFound(id);
    case "taskVersion":
      return errors.taskVersionConflict({
        id,
        version: Number(reply.version),
        status: String(reply.status),
        owner: typeof reply.owner === "string" ? reply.owner : null,
      });
    case "planLocked":
      return errors.planLocked(String(reply.holder), iso(Number(reply.expiresAt)));
    case "contextNotFound":
      return errors.contextNotFound(id);
    case "contextVersion":
      return errors.contextVersionConflict({
        id,
        version: String(reply.version),
        author: String(reply.author),
      });
    case "eventNotFound":
      return errors.eventNotFound(id);
    case "unknownDependency":
      return planErrors.unknownDependency(id);
    case "cycle":
      return planErrors.cycle(reply.path as string[]);
    case "blocked":
      return planErrors.blocked(id, reply.blockers as string[]);
    case "ownedByOther":
      return planErrors.ownedByOther(id, String(reply.owner));
    case "idemMismatch":
      return errors.idempotencyMismatch(String(reply.key));
    case "hasDependents":
      return toolErrors.hasDependents(id, reply.dependents as string[]);
    case "roomdEvent":
      return toolErrors.roomdEvent(id, String(reply.type));
    case "personsEvent":
      return toolErrors.personsEvent(id, String(reply.from));
    case "notAuthor":
      return toolErrors.notAuthor(id, String(reply.from));
    case "reviewNotFound":
      return toolErrors.reviewNotFound(id);
    case "notReviewer":
      return toolErrors.notReviewer(id, String(reply.reviewer));
    case "reviewDecided":
      return toolErrors.reviewDecided(id, String(reply.status), String(reply.by), String(reply.at));
    case "leaseOwned":
      return leaseErrors.owned(
        id,
        String(reply.owner),
        typeof reply.until === "string" ? reply.until : undefined,
      );
    case "notClaimable":
      return leaseErrors.notClaimable(id, String(reply.status));
    case "notLeased":
      return leaseErrors.notLeased(id, typeof reply.owner === "string" ? reply.owner : null);
    case "claimLimit":
      return claimErrors.limit(Number(reply.max));
    case "varLimit":
      return toolErrors.varLimit(Number(reply.max));
    case "valueLimit":
      return valueErrors.limit(String(reply.piece), Number(reply.max));
    case "forkTrimmed":
      return movingErrors.forkTrimmed(Number(reply.atSeq), Number(reply.head), Number(reply.trimmedBefore));
    default:
      return new StoreFault("redis", "script", `unknown refusal ${JSON.stringify(reply.err)}`);
  }
}

/** A script's {"err": …} reply that the operation handles itself (e.g. updateContext's payload refusal). */
export class ScriptRefusal extends Error {
  constructor(readonly reply: { err: string; [detail: string]: unknown }) {
    super(`script refused: ${reply.err}`);
  }
}

export interface RunOptions {
  client: ScriptClient;
  timeoutMs: number;
  /** The store's driver name, for faults ("redis" or "upstash"). */
  driver?: string;
}

/** A script's `ok` value and the instant it ran with, so callers derive time-based fields from the same clock. */
export interface Ran<T> {
  value: T;
  now: number;
  /** True when the script returned the kept result of an idempotency key instead of writing. */
  replayed?: boolean;
}

/**
 * Runs `script` and returns its `ok` value (and whether it was a kept result). Refusals listed in `handled` come
 * back as ScriptRefusal for the caller; every other refusal is thrown as its RoomError.
 */
export async function runScript<R>(
  options: RunOptions,
  script: LuaScript<never, R>,
  keys: string[],
  args: string[],
  handled: string[] = [],
): Promise<{ ok: R; replayed: boolean }> {
  const deadline = performance.now() + options.timeoutMs;
  let raw: unknown;
  try {
    try {
      raw = await beforeDeadline(options.client.evalsha(script.sha, keys, args, deadline), deadline);
    } catch (err) {
      if (!isNoScript(err)) throw err;
      raw = await beforeDeadline(options.client.eval(script.text, keys, args, deadline), deadline);
    }
  } catch (err) {
    // Redis answered that the script failed: a bug, never reported as an outage (docs/security.md).
    if (isScriptFailure(err))
      throw new StoreFault(options.driver ?? "redis", script.name, messageOf(err), { cause: err });
    throw errors.storeUnavailable(err);
  }
  if (Array.isArray(raw)) raw = joinPieces(raw);
  if (typeof raw !== "string")
    throw new StoreFault(options.driver ?? "redis", script.name, `non-string reply (${typeof raw})`);
  let reply: { ok?: R; err?: string; replayed?: boolean; [detail: string]: unknown };
  try {
    reply = JSON.parse(raw);
  } catch (err) {
    throw new StoreFault(options.driver ?? "redis", script.name, `undecodable reply: ${messageOf(err)}`, {
      cause: err,
    });
  }
  if (reply.err === undefined) return { ok: reply.ok as R, replayed: reply.replayed === true };
  const refused = { ...reply, err: reply.err };
  if (handled.includes(refused.err)) throw new ScriptRefusal(refused);
  throw refusal(refused);
}

/**
 * Runs a script that takes the clock (ms) in ARGV[1] and then its own arguments — the session, teams-index and
 * webhook-index scripts — and returns its `ok` value.
 */
export async function runClocked<V, R>(
  options: RunOptions,
  script: LuaScript<V, R>,
  keys: string[],
  now: number,
  values: V,
): Promise<R> {
  const argv = [String(now)];
  script.encode(values, argv);
  return (await runScript(options, script, keys, argv)).ok;
}

/**
 * A reply a script sent in pieces (a Lua table, so that it never builds a large string): the JSON text is the
 * pieces in order, a nested list standing for its strings joined with commas (e.g. the elements of an array).
 * Anything else in it makes the reply undecodable (undefined).
 */
export function joinPieces(pieces: unknown[]): string | undefined {
  let text = "";
  for (const piece of pieces) {
    if (typeof piece === "string") text += piece;
    else if (Array.isArray(piece) && piece.every((p) => typeof p === "string")) text += piece.join(",");
    else return undefined;
  }
  return text;
}

/** ping through the same bounded path. */
export async function runPing(options: RunOptions): Promise<void> {
  const deadline = performance.now() + options.timeoutMs;
  try {
    await beforeDeadline(options.client.ping(deadline), deadline);
  } catch (err) {
    throw errors.storeUnavailable(err);
  }
}
