/**
 * What people send an agent and the bridge hands it inside its running turn: messages, steers and interrupts,
 * found through the events_by_type index (never by walking the log), each kind with a per-agent mark of the last
 * one delivered. A message also counts as delivered once the agent's cursor passed it. Deleted messages are never
 * handed over, nor, in a fork, what its copied prefix holds (it was meant for the source's agents). A bridge hook
 * is a call of the agent: it renews the agent's leases and claims.
 */
import { eventId } from "../../protocol/event-rules.ts";
import type { DriverState, HumanMessage } from "../../protocol/people.ts";
import { HOOK_STATUS, NO_DRIVER, PEOPLE_LIMITS } from "../../protocol/people.ts";
import { mailAfter } from "../../protocol/people-rules.ts";
import { BROADCAST, type JsonObject } from "../../protocol/records.ts";
import { iso } from "../../protocol/time.ts";
import type { BridgeInput, BridgeResult } from "../people-types.ts";
import type { RoomScope } from "../types.ts";
import type { DriverOps } from "./driver.ts";
import type { Events } from "./events.ts";
import type { PlanOps } from "./plan.ts";
import type { SqlParts } from "./rooms.ts";
import { type MailKind, type MailRow, perDialect } from "./rows.ts";
import type { Op } from "./run.ts";

/** Interrupts and steers taken in one call at most (a backlog beyond it is taken by the next call). */
const MAIL_TAKE_MAX = 100;

export interface MailboxDeps {
  events: Events;
  driver: DriverOps;
  plan: PlanOps;
  presence: { beat(roomId: string, agentId: string, statusText?: string): Op<unknown> };
}

export function createMailbox({ sql, now, rooms, changes, dialect }: SqlParts, deps: MailboxDeps) {
  const pending = sql.query<
    MailRow,
    [{ room: string; type: string; agent: string; after: number; limit: number }]
  >(
    // A deleted message (a tombstone) is never handed over.
    `SELECT seq, from_agent, to_agent, ts, payload FROM events
     WHERE room_id = $room AND type = $type AND seq > $after AND to_agent IN ('${BROADCAST}', $agent)
       AND deleted_by IS NULL
     ORDER BY seq LIMIT $limit`,
  );
  // Where the agent's mark of a kind stands, with the room's origin (a fork's copied prefix was addressed to the
  // source's running agents: only what the fork itself gets is handed) and the agent's cursor: one round trip.
  const standing = sql.query<
    { mark: number | null; forked_from: string | null; cursor: number | null },
    [string, string, string]
  >(
    `SELECT (SELECT seq FROM agent_marks WHERE room_id = ?1 AND agent_id = ?2 AND kind = ?3) AS mark,
       (SELECT forked_from FROM rooms WHERE room_id = ?1) AS forked_from,
       (SELECT seq FROM cursors WHERE room_id = ?1 AND agent_id = ?2) AS cursor`,
  );
  const markSet = sql.query<unknown, [string, string, string, number]>(
    perDialect(
      (d) => `INSERT INTO agent_marks (room_id, agent_id, kind, seq) VALUES (?1, ?2, ?3, ?4)
     ON CONFLICT (room_id, agent_id, kind) DO UPDATE
     SET seq = ${d === "sqlite" ? "max" : "greatest"}(agent_marks.seq, excluded.seq)`,
    ),
  );

  /** Takes the waiting rows of one kind after the agent's mark (and, for messages, its cursor); moves the mark. */
  function* take(roomId: string, agentId: string, kind: MailKind, limit: number): Op<MailRow[]> {
    const at = yield* standing.get(roomId, agentId, kind);
    const forkSeq = at?.forked_from ? (JSON.parse(at.forked_from) as { seq?: number }).seq : undefined;
    const after = mailAfter(kind, at?.mark ?? 0, forkSeq ?? 0, at?.cursor ?? 0);
    const rows = yield* pending.all({ room: roomId, type: kind, agent: agentId, after, limit });
    const last = rows.at(-1);
    if (last) yield* markSet.run(roomId, agentId, kind, last.seq);
    return rows;
  }

  const payloadOf = (row: MailRow): JsonObject => JSON.parse(row.payload);

  function toMessage(row: MailRow): HumanMessage {
    const text = payloadOf(row).text;
    return {
      id: eventId(row.seq),
      seq: row.seq,
      from: row.from_agent,
      to: row.to_agent,
      text: typeof text === "string" ? text : "",
      timestamp: iso(row.ts),
    };
  }

  /** People's messages waiting for the agent, oldest first; marked delivered. The room is claimed by the caller. */
  function* takeMessages(roomId: string, agentId: string): Op<HumanMessage[]> {
    return (yield* take(roomId, agentId, "human_message", PEOPLE_LIMITS.messagesPerCall)).map(toMessage);
  }

  function* bridge(scope: RoomScope, input: BridgeInput): Op<BridgeResult> {
    if (!(yield* rooms.check(scope)))
      return { roomExists: false, driver: NO_DRIVER, steers: [], messages: [] };
    const room = yield* rooms.claim(scope);
    const roomId = scope.roomId;
    const agent = input.agentId;
    yield* deps.presence.beat(roomId, agent, HOOK_STATUS[input.hook]);
    // A hook of the agent's running harness is a call naming it: its leases and claims are renewed.
    yield* dialect.renew(roomId, agent, now());
    changes.signal(roomId, "presence");
    const driver: DriverState = yield* deps.driver.state(roomId);
    const result: BridgeResult = { roomExists: true, driver, steers: [], messages: [] };
    switch (input.hook) {
      case "PreToolUse": {
        // Every waiting interrupt is consumed; only one given at the current epoch stops the step.
        const current = (yield* take(roomId, agent, "interrupt", MAIL_TAKE_MAX)).filter(
          (row) => payloadOf(row).epoch === driver.epoch,
        );
        const last = current.at(-1);
        if (last) {
          const reason = payloadOf(last).reason;
          result.interrupt = {
            by: last.from_agent,
            reason: typeof reason === "string" ? reason : "",
            epoch: driver.epoch,
            seq: last.seq,
          };
        }
        break;
      }
      case "PostToolUse": {
        if (input.step) {
          yield* deps.events.append(roomId, {
            type: "agent_step",
            from: agent,
            to: BROADCAST,
            payload: input.step,
          });
        }
        result.steers = (yield* take(roomId, agent, "steer", MAIL_TAKE_MAX)).map((row) => {
          const text = payloadOf(row).text;
          return { by: row.from_agent, text: typeof text === "string" ? text : "", seq: row.seq };
        });
        break;
      }
      case "SessionStart":
        result.messages = yield* takeMessages(roomId, agent);
        result.digest = {
          myTasks: (yield* deps.plan.myTasks(roomId, agent)).map(({ id, title, status }) => ({
            id,
            title,
            status,
          })),
          unread: yield* deps.events.unread(room, agent),
        };
        break;
      default:
        result.messages = yield* takeMessages(roomId, agent);
    }
    return result;
  }

  return { takeMessages, bridge };
}
export type Mailbox = ReturnType<typeof createMailbox>;
