/**
 * Shared pieces of the store conformance suite: the factory a driver test provides, the controllable clock,
 * random scopes, and helpers that assert a refused call changed nothing.
 */
import { expect, test } from "bun:test";
import { RoomError, type RoomErrorKind } from "../../../src/protocol/errors.ts";
import type { RoomEvent } from "../../../src/protocol/records.ts";
import type { ValuePieces } from "../../../src/protocol/room-values.ts";
import { type Clock, iso } from "../../../src/protocol/time.ts";
import type {
  InviteRecord,
  KeyRecord,
  NewInvite,
  NewKey,
  RateRequest,
  StoreLimits,
} from "../../../src/store/access-types.ts";
import type { EventRetention } from "../../../src/store/move-types.ts";
import type { NewHandoff } from "../../../src/store/people-types.ts";
import type { NewContext, NewTask, RoomScope, RoomStore, StoreDriver } from "../../../src/store/types.ts";
import { type RoomHoldings, roomHoldings } from "../../support/store-scan.ts";
import { type E2eStore, openWith } from "../../support/stores.ts";

/** Something a driver may lack; the tests that need it are skipped with the driver's written reason. */
export type Capability = "secondInstance" | "outage";

/** Construction options the suite varies; a driver passes them through to its constructor. */
export interface OpenOptions {
  /** The limits the store enforces (the driver's default, DEFAULT_STORE_LIMITS, when absent). */
  limits?: StoreLimits;
  /** Event retention every append applies (none when absent). */
  retention?: EventRetention;
  /** The kinds of small value the store keeps (protocol/room-values.ts VALUE_PIECES when absent). */
  values?: ValuePieces;
}

/**
 * What a driver test hands to runConformance. Each open call returns a new, independent instance whose clock is
 * the suite's `now`; the suite closes every instance it opened, then calls cleanup.
 */
export interface StoreFactory {
  /** The value every opened store reports as `driver`. */
  driver: StoreDriver;
  open(now: Clock, options?: OpenOptions): Promise<RoomStore>;
  /** A second independent instance (own connection / own Database handle) on the same backing store. */
  openSecond(now: Clock, options?: OpenOptions): Promise<RoomStore>;
  /**
   * An instance whose backing server cannot be reached (e.g. a port nothing listens on), for the outage test.
   * Drivers without a server declare `lacks.outage` instead.
   */
  openUnreachable?(now: Clock): Promise<RoomStore>;
  /** Removes what the factory created (temp dirs); runs after every instance is closed. */
  cleanup(): Promise<void>;
  /** Overwrites a stored task with bytes that are not a task (E2eStore.corruptTask). */
  corruptTask(roomId: string, taskId: string): Promise<void>;
  /** Capabilities this driver lacks, each with the reason; their tests are skipped, never silently passed. */
  lacks?: Partial<Record<Capability, string>>;
  /** What the backing holds of a room, read from the backing itself (test/support/store-scan.ts roomHoldings). */
  holdings(roomId: string): Promise<RoomHoldings>;
}

/**
 * The factory of a test backing (test/support/stores.ts): every instance, the second one included, is a new one
 * built by roomd's own openStore from the backing's settings; the unreachable one (when the backing has a server)
 * points where nothing listens, with a short timeout, so every call must fail fast, never hang. Nothing to clean up
 * by default: rooms are random per test and the shared servers end with the process (stopping them here would
 * break the e2e files of the same process).
 */
export function backingFactory(driver: StoreDriver, backing: E2eStore): StoreFactory {
  const open = (now: Clock, options?: OpenOptions) => backing.open({ now, ...options });
  const unreachable = backing.unreachable;
  return {
    driver,
    open,
    openSecond: open,
    ...(unreachable && {
      openUnreachable: async (now: Clock) => openWith(await unreachable(), { now, timeoutMs: 1000 }),
    }),
    cleanup: async () => {},
    corruptTask: backing.corruptTask,
    holdings: (roomId) => roomHoldings(backing, roomId),
  };
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
export interface Suite {
  store: RoomStore;
  /** The second instance on the same backing store (the first one again when the driver lacks it). */
  second: RoomStore;
  /** Two instances on the same backing store opened with roomsPerTeam = ROOMS_PER_TEAM (one when lacking a second). */
  limited: RoomStore;
  limitedSecond: RoomStore;
  clock: TestClock;
  factory: StoreFactory;
}

/** roomsPerTeam of suite.limited and suite.limitedSecond. */
export const ROOMS_PER_TEAM = 3;

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

/** A note entry of author "a" whose payload text is its summary; `extra` overrides any field. */
export const newNote = (summary: string, extra: Partial<NewContext> = {}): NewContext => ({
  type: "note",
  summary,
  consuming_agents: [],
  payload: notePayload(summary),
  author: "a",
  ...extra,
});

/** `from`'s own offer, as an agent, of `taskIds` to `to`, with note "n" and no context; `extra` overrides. */
export const agentOffer = (
  from: string,
  to: string,
  taskIds: string[],
  extra: Partial<NewHandoff> = {},
): NewHandoff => ({
  from,
  to,
  taskIds,
  contextIds: [],
  note: "n",
  offeredBy: from,
  agentOffer: true,
  ...extra,
});

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

/**
 * The value, or the kind of the RoomError it was refused with ("limit", "conflict", …): for operations whose
 * refusal is part of what a test counts (limits, provisioning races).
 */
export function settle<T>(promise: Promise<T>): Promise<T | RoomErrorKind> {
  return promise.catch((error: unknown) => {
    if (error instanceof RoomError) return error.kind;
    throw error;
  });
}

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
  const [plan, events, context, vars, locks, presence, claims] = await Promise.all([
    store.readPlan(scope),
    allEvents(store, scope),
    store.listContext(scope, {}),
    store.listVars(scope),
    store.listLocks(scope),
    store.getPresence(scope),
    store.listClaims(scope, {}),
  ]);
  const history = await Promise.all(context.map((entry) => store.contextHistory(scope, entry.id)));
  return { plan, events, context, history, vars, locks, presence, claims };
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
export function testWith(suite: Suite, capability: Capability, name: string, fn: () => Promise<void>): void {
  const reason = suite.factory.lacks?.[capability];
  if (reason) test.skip(`${name} [skipped: ${reason}]`, fn);
  else test(name, fn);
}

/** The instance to use for worker `i`: half the load goes to the second instance. */
export const instanceFor = (suite: Suite, i: number): RoomStore => (i % 2 === 0 ? suite.store : suite.second);

// ── access (keys, invites, rate) ──────────────────────────────────────────────────────────────────────────

const ID_CHARS = "0123456789abcdefghijklmnopqrstuvwxyz";

/** 8 random chars [0-9a-z], the random part of key and invite ids. */
export const randomId8 = (): string =>
  Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => ID_CHARS[b % 36]).join("");

/** A random sha256 digest as the store receives it: 64 lowercase hex chars. */
export const newDigest = (): string =>
  Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, "0")).join("");

/** A dynamic key of teamId created now (by the suite's clock); `extra` overrides any field. */
export function newKey(suite: Suite, teamId: string, extra: Partial<NewKey> = {}): NewKey {
  return {
    keyId: `k_${teamId}_${randomId8()}`,
    teamId,
    kind: "dynamic",
    createdAt: iso(suite.clock.now()),
    hint: `****${randomId8().slice(0, 4)}`,
    digest: newDigest(),
    ...extra,
  };
}

/** What the store gives back for a stored key: everything but the digest. */
export function keyRecord(key: NewKey): KeyRecord {
  const { digest: _digest, ...record } = key;
  return record;
}

/** An invite of scope's team for scope's room, created now and expiring `ttlMs` later. */
export function newInvite(
  suite: Suite,
  scope: RoomScope,
  ttlMs = 3_600_000,
  extra: Partial<NewInvite> = {},
): NewInvite {
  const now = suite.clock.now();
  return {
    tokenId: `i_${randomId8()}`,
    roomId: scope.roomId,
    teamId: scope.teamId,
    createdAt: iso(now),
    expiresAt: iso(now + ttlMs),
    hint: `****${randomId8().slice(0, 4)}`,
    digest: newDigest(),
    ...extra,
  };
}

export function inviteRecord(invite: NewInvite): InviteRecord {
  const { digest: _digest, ...record } = invite;
  return record;
}

export const toolsRate = (limit: number, windowMs = 60_000): RateRequest => ({
  bucket: "tools",
  limit,
  windowMs,
});
export const metaRate = (limit: number, windowMs = 60_000): RateRequest => ({
  bucket: "meta",
  limit,
  windowMs,
});

/** The sorted own-property names of a record, to assert optional fields are absent rather than undefined. */
export const fieldsOf = (record: object | null | undefined): string[] => Object.keys(record ?? {}).sort();

/** A room claimed by a fresh team through a first write (addTask). */
/** A fresh room the scope's team owns, holding nothing yet (createRoom: no task, no event). */
export async function claimedRoom(store: RoomStore): Promise<RoomScope> {
  const scope = newScope();
  await store.createRoom(scope);
  return scope;
}

export async function ownedRoom(store: RoomStore): Promise<RoomScope> {
  const scope = newScope();
  await store.addTask(scope, newTask("claim"));
  return scope;
}
