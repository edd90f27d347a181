/**
 * Forks and imports on Redis are written in parts (one script each, since the new room lives in a slot of its own).
 * What a failure between parts leaves, on a private redis-server whose client is wrapped to act before the second
 * part: an outage of that part removes what the first wrote (no room, no key, nothing counted); a room deleted, or
 * deleted and made again by someone else, meanwhile is a conflict that leaves what stands there alone.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { exportText, verified } from "../../../test/store/conformance/moving.ts";
import { type RedisServer, startRedisServer } from "../../../test/support/redis-server.ts";
import { RoomError } from "../../protocol/errors.ts";
import type { RoomScope, RoomStore } from "../types.ts";
import type { ScriptClient } from "./client.ts";
import { ROOM_SCRIPTS } from "./scripts.ts";
import { createRedisStore } from "./store.ts";
import { createTcpScriptClient } from "./tcp-client.ts";

let server: RedisServer;
let client: ScriptClient;
let store: RoomStore;
/** Runs once, before the first call of the script that writes a later part (ARGV[6], the first-part flag, "0"). */
let hook: { script: "FORK_WRITE" | "IMPORT_WRITE"; run: () => Promise<void> } | undefined;

/** The real client, with `hook` run before the chosen call (it may fail the call, or change the room first). */
function hooked(inner: ScriptClient): ScriptClient {
  return {
    async evalsha(sha, keys, args, deadline) {
      const h = hook;
      if (h && ROOM_SCRIPTS[h.script].sha === sha && args[5] === "0") {
        hook = undefined;
        await h.run();
      }
      return inner.evalsha(sha, keys, args, deadline);
    },
    eval: (script, keys, args, deadline) => inner.eval(script, keys, args, deadline),
    ping: (deadline) => inner.ping(deadline),
    scan: (pattern) => inner.scan?.(pattern) ?? Promise.resolve([]),
    close: () => inner.close?.(),
  };
}

const beforeSecondPart = (script: "FORK_WRITE" | "IMPORT_WRITE", run: () => Promise<void>) => {
  hook = { script, run };
};
const outage = async () => {
  throw new Error("connection reset (simulated outage of this part)");
};
/** Someone else deletes the room and makes it again with a task of theirs. */
async function madeAgain(target: RoomScope) {
  await store.deleteRoom(target);
  await store.addTask(target, { title: "someone else's", description: "", depends_on: [], priority: null });
}
const newScope = (): RoomScope => ({
  roomId: `r-${crypto.randomUUID().slice(0, 8)}`,
  teamId: `t-${crypto.randomUUID().slice(0, 8)}`,
});

/** A room whose log is several parts long (over 1 MB of events with their search terms). */
async function bigRoom(): Promise<RoomScope> {
  const scope = newScope();
  const words = Array.from({ length: 500 }, (_, i) => `w${i.toString(36)}`).join(" ");
  for (let i = 0; i < 80; i++) {
    await store.postEvent(scope, {
      type: "big",
      from: "a",
      to: "all",
      payload: { i, words, blob: "z".repeat(6000) },
    });
  }
  return scope;
}

/** Nothing of the room is left: no info, not listed for its team, no key at all. */
async function gone(scope: RoomScope) {
  expect((await store.roomInfo(scope)).exists).toBe(false);
  expect((await store.listRooms(scope.teamId)).map((r) => r.roomId)).not.toContain(scope.roomId);
  expect(await client.scan?.(`room:{${scope.roomId}}:*`)).toEqual([]);
}

async function rejection(promise: Promise<unknown>): Promise<RoomError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(hook).toBeUndefined(); // the second part was reached
  expect(error).toBeInstanceOf(RoomError);
  return error as RoomError;
}

beforeAll(async () => {
  server = await startRedisServer();
  client = hooked(createTcpScriptClient(server.url, { timeoutMs: 2000 }));
  store = createRedisStore({ client, driver: "redis" });
});
afterAll(async () => {
  await store.close();
  await server.stop();
});

describe("a fork written in parts", () => {
  test("a later part failing removes what the first parts wrote; the fork can be made again", async () => {
    const source = await bigRoom();
    const target = { ...source, roomId: `${source.roomId}-f` };
    beforeSecondPart("FORK_WRITE", outage);
    const error = await rejection(store.forkRoom(source, { newRoomId: target.roomId, by: "a" }));
    expect(error.kind).toBe("store_unavailable");
    await gone(target);
    const made = await store.forkRoom(source, { newRoomId: target.roomId, by: "a" });
    expect(made.forkedFrom).toEqual({ roomId: source.roomId, seq: 80 });
    expect((await store.roomInfo(target)).eventCount).toBe(81);
  });

  test("a room deleted and made again by someone else between parts: a conflict, and their room is kept", async () => {
    const source = await bigRoom();
    const target = { ...source, roomId: `${source.roomId}-f` };
    beforeSecondPart("FORK_WRITE", () => madeAgain(target));
    const error = await rejection(store.forkRoom(source, { newRoomId: target.roomId, by: "a" }));
    expect({ kind: error.kind, message: error.message }).toEqual({
      kind: "conflict",
      message: `Room ${target.roomId} changed while the fork was being written into it (deleted, or made again by someone else); nothing of the fork is left: fork again`,
    });
    expect((await store.readPlan(target)).tasks.map((t) => t.title)).toEqual(["someone else's"]);
    expect((await store.roomInfo(target)).eventCount).toBe(1);
  });
});

describe("an import written in parts", () => {
  const importOf = async (source: RoomScope, target: RoomScope) => {
    const file = await verified(await exportText(store, source, Date.now()));
    try {
      await store.importRoom(target, file);
    } finally {
      file.close();
    }
  };

  test("a later part failing removes what the first parts wrote", async () => {
    const source = await bigRoom();
    const target = { ...source, roomId: `${source.roomId}-i` };
    beforeSecondPart("IMPORT_WRITE", outage);
    expect((await rejection(importOf(source, target))).kind).toBe("store_unavailable");
    await gone(target);
  });

  test("the room deleted between parts: 409 saying so (never a 500), nothing left behind", async () => {
    const source = await bigRoom();
    const target = { ...source, roomId: `${source.roomId}-i` };
    beforeSecondPart("IMPORT_WRITE", () => store.deleteRoom(target));
    const error = await rejection(importOf(source, target));
    expect({ kind: error.kind, message: error.message }).toEqual({
      kind: "conflict",
      message: `Room ${target.roomId} changed while it was being imported (deleted, or made again by someone else); nothing of the import is left: import it again`,
    });
    await gone(target);
  });

  test("the room made again by someone else between parts: a conflict, and their room is kept", async () => {
    const source = await bigRoom();
    const target = { ...source, roomId: `${source.roomId}-i` };
    beforeSecondPart("IMPORT_WRITE", () => madeAgain(target));
    expect((await rejection(importOf(source, target))).kind).toBe("conflict");
    expect((await store.readPlan(target)).tasks.map((t) => t.title)).toEqual(["someone else's"]);
  });
});
