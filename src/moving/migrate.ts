/**
 * Copying a whole store into another (`bun run migrate`): every team's keys, rooms, invites and webhooks, kind by
 * kind, each item checked on the target first — already there and the same: skipped; absent: copied and checked;
 * there but different: refused — so a rerun after an interruption carries on where the last one stopped. A room
 * is the same when exporting it on both sides gives the same stateHash and headHash (moving/export.ts); keys and
 * invites are copied as their digests, never a secret. A journal file records the rooms being written, so a room a
 * killed run left half written (Redis writes rooms in parts) is recognised, removed and copied again.
 *
 * A record kind is one entry of KINDS: how to list it in the source, how to tell whether the target has it, and how
 * to copy it.
 */
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { privateFile } from "../files.ts";
import { canonicalJson, sha256Hex } from "../protocol/canonical-json.ts";
import type { NewInvite, NewKey } from "../store/access-types.ts";
import type { RoomStore, WebhookRecord } from "../store/types.ts";
import { exportDigest, openExport } from "./export.ts";
import { readExport } from "./import-file.ts";

/** No limit a migration should run into: the target gets what the source has. */
const NO_LIMIT = Number.MAX_SAFE_INTEGER;

/** What a migration knows about one team while it works. */
interface TeamContext {
  team: string;
  /** The team's live rooms in the source. */
  rooms: string[];
}

type Found = "same" | "absent" | { different: string };

interface Kind<T> {
  /** Plural, as reports name it. */
  name: string;
  list(source: RoomStore, ctx: TeamContext): Promise<T[]>;
  /** How reports and the journal name an item. */
  id(item: T): string;
  /** Whether the target has the item as the source has it. */
  find(target: RoomStore, item: T, ctx: TeamContext, source: RoomStore): Promise<Found>;
  copy(target: RoomStore, item: T, ctx: TeamContext, source: RoomStore): Promise<void>;
  /** Rooms only: written in several steps, so a killed run can leave one half written. */
  journaled?: boolean;
}

const same = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);
const scopeOf = (ctx: TeamContext, roomId: string) => ({ roomId, teamId: ctx.team });

const keys: Kind<NewKey> = {
  name: "keys",
  list: (source, ctx) => source.keyDigests(ctx.team),
  id: (key) => key.keyId,
  async find(target, key) {
    const there = (await target.keyDigests(key.teamId)).find((k) => k.keyId === key.keyId);
    if (!there) return "absent";
    return same(there, key) ? "same" : { different: `key ${key.keyId} differs on the target` };
  },
  copy: async (target, key) => void (await target.createKey(key, NO_LIMIT)),
};

/** Both sides' export digests (counts, stateHash, headHash) of a room. */
async function digests(source: RoomStore, target: RoomStore, ctx: TeamContext, roomId: string) {
  const now = Date.now();
  const [a, b] = await Promise.all([
    exportDigest(source, scopeOf(ctx, roomId), now),
    exportDigest(target, scopeOf(ctx, roomId), now),
  ]);
  return { source: a, target: b };
}

const rooms: Kind<string> = {
  name: "rooms",
  journaled: true,
  list: async (_source, ctx) => ctx.rooms,
  id: (roomId) => roomId,
  async find(target, roomId, ctx, source) {
    const d = await digests(source, target, ctx, roomId);
    if (!d.target) return "absent";
    if (!d.source) return { different: `room ${roomId} is gone from the source` };
    if (d.source.stateHash === d.target.stateHash && d.source.headHash === d.target.headHash) return "same";
    return {
      different: `room ${roomId} exists on the target with other content (headHash ${d.target.headHash})`,
    };
  },
  async copy(target, roomId, ctx, source) {
    const opened = await openExport(source, scopeOf(ctx, roomId), Date.now());
    if (!opened) throw new Error(`room ${roomId} is gone from the source`);
    const encoder = new TextEncoder();
    const bytes = (async function* () {
      for await (const line of opened.lines()) yield encoder.encode(line);
    })();
    const file = await readExport(bytes, NO_LIMIT);
    try {
      await target.importRoom(scopeOf(ctx, roomId), file);
    } finally {
      file.close();
    }
  },
};

const invites: Kind<NewInvite> = {
  name: "invites",
  async list(source, ctx) {
    const all = await Promise.all(ctx.rooms.map((roomId) => source.inviteDigests(scopeOf(ctx, roomId))));
    return all.flat();
  },
  id: (invite) => `${invite.roomId}/${invite.tokenId}`,
  async find(target, invite, ctx) {
    const there = (await target.inviteDigests(scopeOf(ctx, invite.roomId))).find(
      (i) => i.tokenId === invite.tokenId,
    );
    if (!there) return "absent";
    return same(there, invite) ? "same" : { different: `invite ${invite.tokenId} differs on the target` };
  },
  copy: async (target, invite) => void (await target.createInvite(invite, NO_LIMIT)),
};

/** Registrations only: the secret is derived from the id and WEBHOOK_SIGNING_KEY (keep it the same). */
const registration = (w: WebhookRecord) => ({
  webhookId: w.webhookId,
  url: w.url,
  types: w.types,
  createdAt: w.createdAt,
  ...(w.description === undefined ? {} : { description: w.description }),
});

const webhooks: Kind<WebhookRecord> = {
  name: "webhooks",
  async list(source, ctx) {
    const all = await Promise.all(ctx.rooms.map((roomId) => source.listWebhooks(scopeOf(ctx, roomId))));
    // A disabled webhook stays behind: it could only be copied as an active one.
    return all.flat().filter((w) => w.status === "active");
  },
  id: (w) => `${w.roomId}/${w.webhookId}`,
  async find(target, w, ctx) {
    const there = (await target.listWebhooks(scopeOf(ctx, w.roomId))).find(
      (x) => x.webhookId === w.webhookId,
    );
    if (!there) return "absent";
    return same(registration(there), registration(w))
      ? "same"
      : { different: `webhook ${w.webhookId} differs` };
  },
  copy: async (target, w, ctx) =>
    void (await target.createWebhook(scopeOf(ctx, w.roomId), registration(w), NO_LIMIT)),
};

/** Every kind a migration copies, in order (invites and webhooks need their room on the target). */
export const KINDS: readonly Kind<never>[] = [keys, rooms, invites, webhooks] as unknown as Kind<never>[];

/** The journal: one JSON line per room started and per room done, for one pair of stores. */
export function openJournal(path: string, pair: string) {
  const id = sha256Hex(pair).slice(0, 16);
  const started = new Set<string>();
  if (existsSync(path)) {
    const lines = readFileSync(path, "utf8")
      .split("\n")
      .filter((l) => l !== "");
    const head = lines[0] ? (JSON.parse(lines[0]) as { migration?: string }) : {};
    if (head.migration !== id) {
      throw new Error(
        `the journal ${path} belongs to another migration (other stores): pass --journal <new file>`,
      );
    }
    for (const line of lines.slice(1)) {
      const entry = JSON.parse(line) as { started?: string; done?: string };
      if (entry.started) started.add(entry.started);
      if (entry.done) started.delete(entry.done);
    }
  } else {
    // Room ids and team ids of the stores: the operator's only, whatever the umask.
    privateFile(path);
    appendFileSync(path, `${JSON.stringify({ migration: id })}\n`);
  }
  const write = (entry: object) => appendFileSync(path, `${JSON.stringify(entry)}\n`);
  return {
    /** Started by an earlier run and never finished. */
    unfinished: (key: string) => started.has(key),
    start(key: string) {
      started.add(key);
      write({ started: key });
    },
    done(key: string) {
      started.delete(key);
      write({ done: key });
    },
  };
}

export type Journal = ReturnType<typeof openJournal>;

export interface MigrationReport {
  teams: number;
  /** Per kind: copied now, already there (from an earlier run), and verified (the same on both sides at the end). */
  kinds: Record<string, { copied: number; skipped: number; verified: number }>;
}

export interface MigrateOptions {
  from: RoomStore;
  to: RoomStore;
  journal: Journal;
  /** Progress, one line at a time (never a secret). */
  log(line: string): void;
}

/** Copies everything, then checks everything; throws (naming the item) at the first thing it cannot copy. */
export async function migrate({ from, to, journal, log }: MigrateOptions): Promise<MigrationReport> {
  const teams = await from.teamsToMove();
  const report: MigrationReport = { teams: teams.length, kinds: {} };
  for (const kind of KINDS) report.kinds[kind.name] = { copied: 0, skipped: 0, verified: 0 };
  const contexts: TeamContext[] = [];
  for (const team of teams) {
    const ctx: TeamContext = { team, rooms: (await from.listRooms(team)).map((r) => r.roomId) };
    contexts.push(ctx);
    for (const kind of KINDS) {
      const tally = report.kinds[kind.name] as MigrationReport["kinds"][string];
      for (const item of await kind.list(from, ctx)) {
        const id = kind.id(item);
        const key = `${team}/${kind.name}/${id}`;
        let found = await kind.find(to, item, ctx, from);
        if (kind.journaled && journal.unfinished(key) && found !== "absent") {
          log(`${team}: ${kind.name} ${id} was left half written by an earlier run: removing it`);
          await to.deleteRoom(scopeOf(ctx, id));
          found = "absent";
        }
        if (found === "same") {
          tally.skipped++;
          continue;
        }
        if (found !== "absent")
          throw new Error(`${team}: ${found.different}; nothing else was changed for it`);
        if (kind.journaled) journal.start(key);
        await kind.copy(to, item, ctx, from);
        const after = await kind.find(to, item, ctx, from);
        if (after !== "same") {
          throw new Error(
            `${team}: ${kind.name} ${id} differs after copying it (was the source written meanwhile?)`,
          );
        }
        if (kind.journaled) journal.done(key);
        tally.copied++;
        log(`${team}: copied ${kind.name.replace(/s$/, "")} ${id}`);
      }
    }
  }
  // Everything again, both sides: the counts and every room's hashes must agree.
  for (const ctx of contexts) {
    for (const kind of KINDS) {
      const tally = report.kinds[kind.name] as MigrationReport["kinds"][string];
      for (const item of await kind.list(from, ctx)) {
        const found = await kind.find(to, item, ctx, from);
        if (found !== "same") {
          const why = found === "absent" ? "is missing on the target" : found.different;
          throw new Error(`verification: ${ctx.team}: ${kind.name} ${kind.id(item)} ${why}`);
        }
        tally.verified++;
      }
    }
  }
  return report;
}
