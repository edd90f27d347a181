/**
 * Shared pieces of the store conformance suite: the factory a driver test provides, the controllable clock,
 * random scopes, and helpers that assert a refused call changed nothing.
 */
import { expect, test } from "bun:test";
import { RoomError, type RoomErrorKind } from "../../../src/protocol/errors.ts";
import type { RoomEvent } from "../../../src/protocol/records.ts";
import type { Clock } from "../../../src/protocol/time.ts";
import type { NewTask, RoomScope, RoomStore, StoreDriver } from "../../../src/store/types.ts";

/** Something a driver may lack; the tests that need it are skipped with the driver's written reason. */
export type Capability = "secondInstance" | "outage";

/**
 * What a driver test hands to runConformance. Each open call returns a new, independent instance whose clock is
 * the suite's `now`; the suite closes every instance it opened, then calls cleanup.
 */
export interface StoreFactory {
  /** The value every opened store reports as `driver`. */
  driver: StoreDriver;
  open(now: Clock): Promise<RoomStore>;
  /** A second independent instance (own connection / own Database handle) on the same backing store. */
  openSecond(now: Clock): Promise<RoomStore>;
  /**
   * An instance whose backing server cannot be reached (e.g. a port nothing listens on), for the outage test.
   * Drivers without a server declare `lacks.outage` instead.
   */
  openUnreachable?(now: Clock): Promise<RoomStore>;
  /** Removes what the factory created (temp dirs); runs after every instance is closed. */
  cleanup(): Promise<void>;
  /** Capabilities this driver lacks, each with the reason; their tests are skipped, never silently passed. */
  lacks?: Partial<Record<Capability, string>>;
}

/** A clock the tests move by hand, so TTL tests never sleep. Shared by both instances; it only moves forward. */
export interface TestClock {
  now: Clock;
  advance(ms: number): number;
}

/**
 * Starts at the real time (rounded to the second) rather than a fixed date: a Redis driver may map an expiry
 * computed from the injected clock onto Redis' own (real) clock, and a date months in the past would make keys
 * vanish for reasons unrelated to the contract.
 */
export function createTestClock(): TestClock {
  let t = Math.floor(Date.now() / 1000) * 1000;
  return {
    now: () => t,
    advance(ms) {
      t += ms;
      return t;
    },
  };
}

/** Filled by runConformance's beforeAll; every test reads it at run time. */
export interface Ctx {
  store: RoomStore;
  /** The second instance on the same backing store (the first one again when the driver lacks it). */
  second: RoomStore;
  clock: TestClock;
  factory: StoreFactory;
}

const shortId = () => crypto.randomUUID().slice(0, 8);

/** A fresh room for a fresh team: tests share no state. */
export function newScope(): RoomScope {
  return { roomId: `r-${shortId()}`, teamId: `t-${shortId()}` };
}

export const newTeam = () => `t-${shortId()}`;

export function newTask(title: string, extra: Partial<NewTask> = {}): NewTask {
  return { title, description: "", depends_on: [], priority: null, ...extra };
}

export const notePayload = (text = "hello") => ({ text });

export const apiContractPayload = () => ({
  service: "users",
  version: "1",
  endpoints: [
    {
      method: "GET",
      path: "/users/:id",
      response: { id: "string" },
      auth_required: true,
      description: "one user",
    },
  ],
});

/** Awaits `call` and asserts it throws a RoomError of `kind` whose message is `message` (or matches it). */
export async function expectRoomError(
  call: Promise<unknown>,
  kind: RoomErrorKind,
  message: string | RegExp,
): Promise<RoomError> {
  let caught: unknown;
  try {
    await call;
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(RoomError);
  const err = caught as RoomError;
  expect({ kind: err.kind, message: err.message }).toEqual({
    kind,
    message: typeof message === "string" ? message : expect.stringMatching(message),
  });
  return err;
}

/** Every event of the room, oldest first (pages back with beforeSeq). */
export async function allEvents(store: RoomStore, scope: RoomScope): Promise<RoomEvent[]> {
  const out: RoomEvent[] = [];
  let beforeSeq: number | undefined;
  for (;;) {
    const page = await store.readEvents(
      scope,
      beforeSeq === undefined ? { limit: 100 } : { beforeSeq, limit: 100 },
    );
    out.push(...page);
    const last = page.at(-1);
    if (page.length < 100 || !last) break;
    beforeSeq = last.seq;
  }
  return out.reverse();
}

/** Everything observable about a room through reads, to compare before and after a refused call. */
export async function snapshot(store: RoomStore, scope: RoomScope) {
  const [plan, events, context, vars, locks, presence] = await Promise.all([
    store.readPlan(scope),
    allEvents(store, scope),
    store.listContext(scope, {}),
    store.listVars(scope),
    store.listLocks(scope),
    store.getPresence(scope),
  ]);
  const history = await Promise.all(context.map((entry) => store.contextHistory(scope, entry.id)));
  return { plan, events, context, history, vars, locks, presence };
}

/** Runs `refused` (which must throw the given RoomError) and asserts the room looks exactly as before. */
export async function expectRefusedUnchanged(
  store: RoomStore,
  scope: RoomScope,
  refused: () => Promise<unknown>,
  kind: RoomErrorKind,
  message: string | RegExp,
): Promise<void> {
  const before = await snapshot(store, scope);
  await expectRoomError(refused(), kind, message);
  expect(await snapshot(store, scope)).toEqual(before);
}

/**
 * `test`, or a skipped test whose name carries the driver's reason when it lacks `capability`, so a skip is
 * never silent.
 */
export function testWith(ctx: Ctx, capability: Capability, name: string, fn: () => Promise<void>): void {
  const reason = ctx.factory.lacks?.[capability];
  if (reason) test.skip(`${name} [skipped: ${reason}]`, fn);
  else test(name, fn);
}

/** The instance to use for worker `i`: half the load goes to the second instance. */
export const instanceFor = (ctx: Ctx, i: number): RoomStore => (i % 2 === 0 ? ctx.store : ctx.second);
