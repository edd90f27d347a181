/**
 * The archiver (ARCHIVE_DIR): a room idle for its lifetime (ROOM_TTL_DAYS) is written to the archive directory as
 * its export — the hash-chained file of moving/export.ts, read back and verified as an import would read it — and
 * only then deleted, with deleteIdleRoom, which keeps a room used since the export began. A room whose archive
 * could not be written or verified stays where it is, and the next sweep tries again: no archive, no deletion.
 * With an archive directory the store never drops a room by itself (store/index.ts storeRoomTtlMs).
 *
 * Files: `<dir>/<teamId>/<roomId>.<time of archiving, 2026-01-31T12-00-00-000Z>.roomd.ndjson`, mode 0600, in
 * directories roomd makes with mode 0700; written under a `.partial` name, synced, verified, then renamed. Any
 * roomd can import one (`roomctl import`, `POST /admin/rooms/:roomId/import`).
 */
import {
  accessSync,
  chmodSync,
  closeSync,
  constants,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { describeError, type Logger } from "../log.ts";
import { type Clock, iso } from "../protocol/time.ts";
import type { RoomStore } from "../store/types.ts";
import { openExport } from "./export.ts";
import { readExport } from "./import-file.ts";

/** How often a process sweeps for rooms past their lifetime. */
export const ARCHIVE_SWEEP_MS = 10 * 60 * 1000;
/** Bytes of lines gathered before one write. */
const WRITE_CHUNK = 1024 * 1024;

export interface ArchiverOptions {
  store: RoomStore;
  /** The archive directory (ARCHIVE_DIR), absolute. */
  dir: string;
  /** How long an idle room lives past its last use (ROOM_TTL_DAYS in ms), > 0. */
  ttlMs: number;
  now: Clock;
  logger: Logger;
}

/** What one sweep did: rooms archived and deleted, and rooms kept because their archive failed. */
export interface ArchiveSweep {
  archived: string[];
  failed: string[];
}

/**
 * Makes sure roomd can write archives into `dir` (made with mode 0700 when missing); throws saying why not. Start-up
 * calls it, so a wrong ARCHIVE_DIR stops roomd at once instead of failing at the first sweep.
 */
export function checkArchiveDir(dir: string): void {
  ensureDir(dir);
  accessSync(dir, constants.W_OK | constants.X_OK);
}

/** A directory that exists, made with mode 0700 (whatever the umask) when roomd makes it. */
function ensureDir(path: string): void {
  if (existsSync(path)) return;
  ensureDir(dirname(path));
  mkdirSync(path, { mode: 0o700 });
  chmodSync(path, 0o700);
}

/** Makes the rename of a file in `dir` durable. */
function syncDir(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export function createArchiver({ store, dir, ttlMs, now, logger }: ArchiverOptions) {
  /** Writes the room's export to the archive and checks it; resolves with the file's path. */
  async function writeArchive(scope: { roomId: string; teamId: string }, at: number): Promise<string> {
    const opened = await openExport(store, scope, at);
    if (!opened) throw new Error("the room is gone");
    const teamDir = join(dir, scope.teamId);
    ensureDir(teamDir);
    const path = join(teamDir, `${scope.roomId}.${iso(at).replace(/[:.]/g, "-")}.roomd.ndjson`);
    const partial = `${path}.partial`;
    try {
      let last = "";
      const fd = openSync(partial, "w", 0o600);
      try {
        chmodSync(partial, 0o600);
        let pending = "";
        for await (const line of opened.lines()) {
          pending += line;
          last = line;
          if (pending.length >= WRITE_CHUNK) {
            writeSync(fd, pending);
            pending = "";
          }
        }
        writeSync(fd, pending);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      // Read back as an import reads it: the chain, the counts and every record; and it is the file just written.
      const verified = await readExport(Bun.file(partial).stream(), Number.MAX_SAFE_INTEGER);
      verified.close();
      if (verified.end.headHash !== (JSON.parse(last) as { headHash?: string }).headHash)
        throw new Error("the archive read back differs from the export written");
      renameSync(partial, path);
      syncDir(teamDir);
      return path;
    } catch (error) {
      rmSync(partial, { force: true });
      throw error;
    }
  }

  /** Archives and deletes the team's rooms idle past their lifetime; a room whose archive fails is kept. */
  async function archiveTeam(teamId: string): Promise<ArchiveSweep> {
    const done: ArchiveSweep = { archived: [], failed: [] };
    const at = now();
    for (const room of await store.listRooms(teamId)) {
      const lastUse = Date.parse(room.lastActivity);
      if (lastUse > at - ttlMs) continue;
      const scope = { roomId: room.roomId, teamId };
      try {
        const path = await writeArchive(scope, at);
        if (await store.deleteIdleRoom(scope, lastUse)) {
          done.archived.push(room.roomId);
          logger.log("info", "room archived and removed", { teamId, roomId: room.roomId, path });
        } else {
          // Used while it was archived: it lives on, and its archive is already out of date.
          rmSync(path, { force: true });
        }
      } catch (error) {
        done.failed.push(room.roomId);
        logger.log("warn", "archiving a room failed; it is kept until an archive is written", {
          teamId,
          roomId: room.roomId,
          ...describeError(error),
        });
      }
    }
    return done;
  }

  /** One pass over every team; rooms are named `<teamId>/<roomId>`. */
  async function sweep(): Promise<ArchiveSweep> {
    const all: ArchiveSweep = { archived: [], failed: [] };
    for (const teamId of await store.teamsToMove()) {
      const done = await archiveTeam(teamId);
      all.archived.push(...done.archived.map((roomId) => `${teamId}/${roomId}`));
      all.failed.push(...done.failed.map((roomId) => `${teamId}/${roomId}`));
    }
    return all;
  }

  let timer: ReturnType<typeof setInterval> | undefined;
  let running: Promise<unknown> | undefined;
  const tick = () => {
    if (running) return;
    running = sweep()
      .catch((error: unknown) => logger.log("warn", "the archive sweep failed", describeError(error)))
      .finally(() => {
        running = undefined;
      });
  };

  return {
    archiveTeam,
    sweep,
    /** Sweeps now and every ARCHIVE_SWEEP_MS; one sweep at a time. */
    start(): void {
      tick();
      timer ??= setInterval(tick, ARCHIVE_SWEEP_MS);
    },
    /** Stops sweeping and waits for a sweep in progress. */
    async stop(): Promise<void> {
      if (timer) clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}

export type Archiver = ReturnType<typeof createArchiver>;
