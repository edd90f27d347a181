/**
 * The outbox worker, one per roomd process. It keeps a list of the rooms that have webhooks (store.webhookRooms,
 * re-read every tick), watches each through the store's change feed, and claims a room's due deliveries when an
 * event arrives, when the earliest due time the store reported for the room has come, or at least every SAFETY_MS
 * (a feed report can be missed). Each claimed delivery is sent (deliver.ts) and its outcome recorded in the store;
 * the claim's lease covers a crash, so nothing is lost and no attempt is sent by two processes.
 *
 * Sends run concurrently up to `concurrency`; a room is only claimed for as many deliveries as there are free
 * slots, at most half of them per room, and each pass starts one room further along, so a room whose receiver
 * hangs to the timeout cannot hold every slot. Time (due times, webhook-timestamp, `at`) and the retry jitter come from injected sources, so tests move
 * the clock instead of waiting minutes.
 */
import type { Logger } from "../../log.ts";
import { describeError } from "../../log.ts";
import { RoomError } from "../../protocol/errors.ts";
import { type Clock, iso, systemClock } from "../../protocol/time.ts";
import { WEBHOOK_LIMITS } from "../../protocol/webhooks.ts";
import type { ClaimedDelivery, RoomStore } from "../../store/types.ts";
import { type DeliverySettings, deliverOnce } from "./deliver.ts";
import { nextAttemptDelay, type Random } from "./schedule.ts";

/** Look at every listed room at least this often, whatever the feed said. */
const SAFETY_MS = 15_000;
/** The same warning (e.g. the store is down) is logged at most this often. */
const WARN_EVERY_MS = 30_000;

export interface WorkerOptions extends DeliverySettings {
  store: RoomStore;
  logger: Logger;
  /** The store's clock (ms). */
  now?: Clock;
  /** Jitter of the retry schedule. */
  random?: Random;
  /** Tick of the loop (re-read the room list, claim what is due). 1 s by default. */
  intervalMs?: number;
  /** Sends in flight at most. 16 by default. */
  concurrency?: number;
  /** How long a claim is this process's. WEBHOOK_LIMITS.leaseMs by default. */
  leaseMs?: number;
  /** Told each attempt's outcome once it is sent: delivered, failed (to be retried) or dropped (the metrics). */
  onAttempt?: (outcome: "delivered" | "failed" | "dropped") => void;
}

export interface WebhookWorker {
  /** Starts the loop (a tick every intervalMs, and a pass as soon as a watched room gets an event). */
  start(): void;
  /** One pass now (the room list, then every room that is due), resolving once its sends are recorded. */
  runOnce(): Promise<void>;
  /** Stops claiming, stops watching, and waits for the sends in flight to be recorded. */
  stop(): Promise<void>;
}

interface WatchedRoom {
  /** When to claim next (ms, store clock): 0 = now. */
  dueAt: number;
  /** When to claim at the latest, whatever dueAt says. */
  checkAt: number;
  /** Counts the feed's reports, so a report that arrives while a claim is under way is not lost. */
  reports: number;
  /** This room's sends in flight. */
  sending: number;
  unwatch: () => void;
}

export function createWebhookWorker(options: WorkerOptions): WebhookWorker {
  const { store, logger } = options;
  const now = options.now ?? systemClock;
  const random = options.random ?? Math.random;
  const intervalMs = options.intervalMs ?? 1000;
  const concurrency = options.concurrency ?? 16;
  const perRoom = Math.max(1, Math.ceil(concurrency / 2));
  const leaseMs = options.leaseMs ?? WEBHOOK_LIMITS.leaseMs;
  const rooms = new Map<string, WatchedRoom>();
  const inFlight = new Set<Promise<void>>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  let passing: Promise<void> | undefined;
  let again = false;

  const warned = new Map<string, number>();
  /** A warning, unless the same one was logged within WARN_EVERY_MS (an outage would repeat it every second). */
  const warn = (msg: string, fields: Record<string, unknown>, error: unknown) => {
    const at = performance.now();
    if (at - (warned.get(msg) ?? Number.NEGATIVE_INFINITY) < WARN_EVERY_MS) return;
    warned.set(msg, at);
    logger.log("warn", msg, { ...fields, ...describeError(error) });
  };
  let start = 0;

  /** A pass soon, coalesced with any already queued. */
  let soon: ReturnType<typeof setTimeout> | undefined;
  const wake = () => {
    if (stopped || soon) return;
    soon = setTimeout(() => {
      soon = undefined;
      void pass(false);
    }, 0);
  };

  function watch(roomId: string): void {
    const room: WatchedRoom = { dueAt: 0, checkAt: 0, reports: 0, sending: 0, unwatch: () => {} };
    rooms.set(roomId, room);
    room.unwatch = store.changes.watch(roomId, (change) => {
      if (!("seq" in change)) return;
      room.reports++;
      room.dueAt = 0;
      wake();
    });
  }

  function forget(roomId: string): void {
    rooms.get(roomId)?.unwatch();
    rooms.delete(roomId);
  }

  async function refreshRooms(): Promise<void> {
    const listed = new Set(await store.webhookRooms());
    for (const roomId of listed) if (!rooms.has(roomId)) watch(roomId);
    for (const roomId of [...rooms.keys()]) if (!listed.has(roomId)) forget(roomId);
  }

  /** Sends one claimed delivery and records what came of it; never throws. */
  async function attempt(room: WatchedRoom, claim: ClaimedDelivery): Promise<void> {
    const where = {
      roomId: claim.roomId,
      webhookId: claim.webhookId,
      seq: claim.event.seq,
      attempt: claim.attempt,
    };
    const startedAt = now();
    const result = await deliverOnce(claim, options, now);
    const retryInMs = result.outcome === "failed" ? nextAttemptDelay(claim.attempt, random) : null;
    // As the webhook's log words it: a failure with no retry left, or a 410, drops the event.
    options.onAttempt?.(
      result.outcome === "delivered" ? "delivered" : retryInMs === null ? "dropped" : "failed",
    );
    try {
      const recorded = await store.recordDelivery(claim, {
        outcome: result.outcome,
        retryInMs,
        ...(result.httpStatus !== undefined ? { httpStatus: result.httpStatus } : {}),
        ...(result.error !== undefined ? { error: result.error } : {}),
        durationMs: result.durationMs,
        at: iso(startedAt),
      });
      if (recorded.recorded && retryInMs !== null) room.dueAt = Math.min(room.dueAt, now() + retryInMs);
      if (result.outcome !== "delivered") {
        // Failures only (a delivery is in the webhook's log): ids, status and a fixed phrase, never the URL.
        const status = result.httpStatus !== undefined ? { httpStatus: result.httpStatus } : {};
        logger.log("info", "webhook attempt failed", { ...where, ...status, error: result.error, retryInMs });
      }
      if (recorded.disabled) logger.log("info", "webhook disabled", { ...where, outcome: result.outcome });
    } catch (error) {
      // The lease runs out and the attempt is claimed again: a receiver may see it twice, never not at all.
      warn("webhook attempt not recorded", where, error);
    }
  }

  function launch(room: WatchedRoom, claim: ClaimedDelivery): void {
    room.sending++;
    const running = attempt(room, claim).finally(() => {
      room.sending--;
      inFlight.delete(running);
      wake();
    });
    inFlight.add(running);
  }

  /** Claims every due room (as far as free slots go) and starts its sends. */
  async function claimDue(): Promise<void> {
    const order = [...rooms.keys()];
    start = order.length > 0 ? (start + 1) % order.length : 0;
    for (const roomId of [...order.slice(start), ...order.slice(0, start)]) {
      const room = rooms.get(roomId);
      if (stopped) return;
      if (!room) continue;
      const t = now();
      if (room.dueAt > t && room.checkAt > t) continue;
      if (concurrency - inFlight.size <= 0) return;
      const free = Math.min(perRoom - room.sending, concurrency - inFlight.size);
      if (free <= 0) continue;
      const reports = room.reports;
      try {
        const batch = await store.claimDeliveries(roomId, { limit: free, leaseMs });
        room.checkAt = t + SAFETY_MS;
        if (!batch.hasWebhooks) {
          // Still listed for a while (see webhookRooms): looked at again on an event or after SAFETY_MS.
          room.dueAt = Number.POSITIVE_INFINITY;
          continue;
        }
        // Full batch, or an event reported while claiming: look again at once.
        const more = batch.deliveries.length === free || room.reports !== reports;
        room.dueAt = more ? 0 : (batch.nextDueMs ?? Number.POSITIVE_INFINITY);
        for (const claim of batch.deliveries) launch(room, claim);
      } catch (error) {
        warn("webhook claim failed", { roomId }, error);
        // The store is unreachable: the other rooms would only wait for the same timeout. Next tick.
        if (error instanceof RoomError && error.kind === "store_unavailable") return;
      }
    }
  }

  /** One pass; passes never overlap (a pass asked for meanwhile runs right after). */
  function pass(withRooms: boolean): Promise<void> {
    if (passing) {
      again = true;
      return passing;
    }
    passing = (async () => {
      try {
        if (withRooms) await refreshRooms();
        await claimDue();
      } catch (error) {
        warn("webhook rooms not listed", {}, error);
      } finally {
        passing = undefined;
        if (again) {
          again = false;
          wake();
        }
      }
    })();
    return passing;
  }

  const tick = async () => {
    await pass(true);
    if (!stopped) timer = setTimeout(tick, intervalMs);
  };

  return {
    start() {
      if (timer || stopped) return;
      timer = setTimeout(tick, 0);
    },
    async runOnce() {
      if (passing) await passing;
      await pass(true);
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      clearTimeout(soon);
      for (const roomId of [...rooms.keys()]) forget(roomId);
      if (passing) await passing;
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
  };
}
