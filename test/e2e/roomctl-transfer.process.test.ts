/**
 * `roomctl export` and `roomctl import` as separate processes against a real roomd: to a file and back, through a
 * pipe, and the errors a user sees (an unknown room, a taken id, a missing environment).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RoomStore } from "../../src/store/types.ts";
import { fillRoom } from "../support/rich-room.ts";
import { runToEnd } from "../support/run.ts";
import { OPERATOR, type RunningServer, startInProcess } from "../support/server.ts";
import { newRoomId, sqliteE2e } from "../support/stores.ts";

const ROOT = join(import.meta.dir, "..", "..");
const dir = mkdtempSync(join(tmpdir(), "roomctl-"));

describe("roomctl export / import", () => {
  let store: RoomStore;
  let server: RunningServer;
  let source: string;

  const roomctl = async (args: string[], env: Record<string, string> = {}, shell?: string) => {
    const run = await runToEnd(shell ? ["sh", "-c", shell] : ["bun", "src/cli/index.ts", ...args], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? "",
        // No saved credentials: the environment is all roomctl has.
        HOME: dir,
        XDG_CONFIG_HOME: join(dir, "config"),
        ROOMD_URL: server.url,
        ROOMD_KEY: OPERATOR.secret,
        ...env,
      },
    });
    return { code: run.code, out: run.stdout, err: run.stderr };
  };
  const exported = async (roomId: string) =>
    (
      await fetch(`${server.url}/rooms/${roomId}/export`, {
        headers: { Authorization: `Bearer ${OPERATOR.secret}` },
      })
    )
      .text()
      .then((t) => t.split("\n").slice(1));

  beforeAll(async () => {
    store = await sqliteE2e().open();
    server = startInProcess(store);
    source = newRoomId();
    await fillRoom(store, { roomId: source, teamId: OPERATOR.teamId });
  });
  afterAll(async () => {
    await server.stop();
    await store.close();
  });

  test("to a file and back: the new room exports the same lines", async () => {
    const file = join(dir, "room.ndjson");
    const out = await roomctl(["export", source, "--out", file]);
    expect({ code: out.code, err: out.err }).toEqual({ code: 0, err: `exported ${source} to ${file}\n` });
    expect(readFileSync(file, "utf8").split("\n").slice(1)).toEqual(await exported(source));
    const copy = newRoomId();
    const back = await roomctl(["import", copy, "--in", file]);
    expect(back.code).toBe(0);
    expect(back.err).toMatch(new RegExp(`^imported ${copy}: \\d+ events, headHash [0-9a-f]{64}\\n$`));
    expect(await exported(copy)).toEqual(await exported(source));
  });

  test("through a pipe: roomctl export a | roomctl import b", async () => {
    const copy = newRoomId();
    const run = await roomctl(
      [],
      {},
      `bun src/cli/index.ts export ${source} | bun src/cli/index.ts import ${copy}`,
    );
    expect(run.code).toBe(0);
    expect(await exported(copy)).toEqual(await exported(source));
  });

  test("errors say what happened: unknown room, taken id, no credentials, no room id", async () => {
    const unknown = await roomctl(["export", newRoomId()]);
    expect({ code: unknown.code, err: unknown.err }).toEqual({
      code: 1,
      err: "roomctl: Room not found or access denied (404)\n",
    });
    const file = join(dir, "again.ndjson");
    await roomctl(["export", source, "--out", file]);
    const taken = await roomctl(["import", source, "--in", file]);
    expect({ code: taken.code, err: taken.err }).toEqual({
      code: 1,
      err: `roomctl: Room ${source} already exists; import into a new room id (409)\n`,
    });
    const bare = await roomctl(["export", source], { ROOMD_KEY: "", ROOMD_URL: "" });
    expect(bare.code).toBe(1);
    expect(bare.err).toMatch(/^roomctl: .*roomctl login/);
    const none = await roomctl(["import"]);
    expect(none.code).toBe(2);
  });
});
