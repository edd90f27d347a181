/**
 * Authentication with its rate charge, on PostgreSQL: the lookup and the charge (roomd_rate_charge, rate.ts) in
 * one statement, which runs in a transaction of its own — every request makes one, so no BEGIN and COMMIT round
 * trips are spent around it. The charge runs once for a key or invite that works, never without one (a LEFT JOIN
 * LATERAL runs its right side for each row of its left side only).
 */

import { KEY_USE_STEP_MS } from "../../protocol/key-life.ts";
import { keyRate } from "../../protocol/rate-pair.ts";
import type { Clock } from "../../protocol/time.ts";
import type { InviteRecord, KeyRecord, RateDecision, RateRequest } from "../access-types.ts";
import { invitePrefix, teamBucket } from "../rate-buckets.ts";
import type { Keys } from "../sql/keys.ts";
import type { Rooms } from "../sql/rooms.ts";
import { type InviteRow, KEY_COLUMNS, type KeyRow, toInvite } from "../sql/rows.ts";
import type { Op, SqlClient } from "../sql/run.ts";
import type { ChargeRow, Rate } from "./rate.ts";

export function createChargedLookups(sql: SqlClient, now: Clock, rooms: Rooms, keys: Keys, rate: Rate) {
  // The lookup, the key's use (only when due: protocol/key-life.ts useDue) and the charge, in one statement. The
  // UPDATE of a data-modifying CTE runs whether or not it is read, and the SELECT sees the row as it was before it
  // (so the record answered shows the previous use, as on every driver).
  // The agent's bucket is rate-buckets.ts agentBucket of the key's bound agent, else of the agent the request
  // names (?8): "agent:" + team + ":" + agent + ":" + bucket; NULL (the team's window alone) when there is none.
  // The agent's limit is the key's own (its scope's agentRateLimitPerMinute) when it has one, else the request's
  // (?7), and a limit of 0 charges no agent window: protocol/rate-pair.ts keyRate, in SQL.
  const keyCharged = sql.query<
    KeyRow & ChargeRow,
    [string, string, string, number, number, number, number, string | null, string, boolean, number]
  >(
    `WITH k AS (SELECT ${KEY_COLUMNS} FROM keys WHERE team_id = ?1 AND digest = ?2
                  AND (expires_at IS NULL OR expires_at > ?4)),
     used AS (UPDATE keys SET last_used_at = ?4 WHERE key_id = (SELECT key_id FROM k)
                AND (last_used_at IS NULL OR last_used_at <= ?11))
     SELECT k.*, c.allowed, c.remaining, c.reset_ms, c.shown FROM k
     CROSS JOIN LATERAL (SELECT coalesce((k.scope::text::json ->> 'agentRateLimitPerMinute')::bigint, ?7::bigint)
                           AS agent_limit) own
     LEFT JOIN LATERAL roomd_rate_charge_pair(?3,
       CASE WHEN ?10::boolean AND own.agent_limit > 0 AND coalesce(k.bound_agent_id, ?8::text) IS NOT NULL
         THEN 'agent:' || ?1 || ':' || coalesce(k.bound_agent_id, ?8) || ':' || ?9::text END,
       ?4, ?5, ?6, own.agent_limit) c ON true`,
  );
  // The checks of resolveInvite and the charge; the bucket is rate-buckets.ts inviteBucket:
  // invitePrefix(roomId) + tokenId + ":" + bucket.
  const inviteCharged = sql.query<
    InviteRow & ChargeRow,
    [
      {
        room: string;
        digest: string;
        now: number;
        live: number;
        prefix: string;
        kind: string;
        window: number;
        limit: number;
      },
    ]
  >(
    `WITH i AS (
       SELECT i.room_id, i.token_id, i.team_id, i.created_at, i.expires_at, i.agent_id, i.hint, i.human_id
       FROM invites i JOIN rooms r ON r.room_id = i.room_id
       WHERE i.room_id = $room AND i.digest = $digest AND i.expires_at > $now AND r.owner = i.team_id
         AND r.last_activity > $live)
     SELECT i.*, c.allowed, c.remaining, c.reset_ms FROM i
     LEFT JOIN LATERAL roomd_rate_charge($prefix || i.token_id || ':' || $kind, $now, $window, $limit) c ON true`,
  );

  return {
    *resolveKey(
      teamId: string,
      digest: string,
      request: RateRequest,
    ): Op<{ key: KeyRecord | null; rate?: RateDecision }> {
      const bucket = teamBucket(teamId, request.bucket);
      const at = now();
      // The same agent chargedAgent (rate-buckets.ts) picks: only with RateRequest.agent, only for "tools".
      const agentWindow = request.agent !== undefined && request.bucket === "tools";
      const row = yield* keyCharged.get(
        teamId,
        digest,
        bucket,
        at,
        request.windowMs,
        request.limit,
        request.agent?.limit ?? 0,
        request.agent?.id ?? null,
        request.bucket,
        agentWindow,
        at - KEY_USE_STEP_MS,
      );
      if (!row) return { key: null };
      const key = keys.toKey(row);
      return { key, rate: rate.decision(row, keyRate(request, key)) };
    },
    *resolveInvite(
      roomId: string,
      digest: string,
      request: RateRequest,
    ): Op<{ invite: InviteRecord | null; rate?: RateDecision }> {
      const t = now();
      const row = yield* inviteCharged.get({
        room: roomId,
        digest,
        now: t,
        live: rooms.liveAfter(t),
        prefix: invitePrefix(roomId),
        kind: request.bucket,
        window: request.windowMs,
        limit: request.limit,
      });
      if (!row) return { invite: null };
      return { invite: toInvite(row), rate: rate.decision(row, request) };
    },
  };
}
