/**
 * What roomctl does differently on a terminal: colour only there, and never with NO_COLOR (https://no-color.org:
 * set and not empty); a destructive command asks for confirmation there. roomctl on a real pseudo-terminal
 * (util-linux `script`) and through a pipe, against a real roomd.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { silentLogger } from "../../src/log.ts";
import type { RoomStore } from "../../src/store/types.ts";
import { OPERATOR, type RunningServer, startInProcess } from "../support/server.ts";
import { newRoomId, sqliteE2e } from "../support/stores.ts";
import { ANSI, roomctl, roomctlOnPty } from "./support.ts";

let store: RoomStore;
let server: RunningServer;
let env: Record<string, string>;
const roomId = newRoomId();

beforeAll(async () => {
  store = await sqliteE2e().open();
  server = startInProcess(store, silentLogger, {
    OPERATOR_KEYS: `${OPERATOR.teamId}:${OPERATOR.secret}:carol`,
  });
  env = { ROOMD_URL: server.url, ROOMD_KEY: OPERATOR.secret };
  expect((await roomctl(["task", "add", roomId, "Write the API"], { env })).code).toBe(0);
});
afterAll(async () => {
  await server.stop();
  await store.close();
});

describe("colours", () => {
  test("on a terminal: coloured; NO_COLOR set: none; NO_COLOR empty: coloured", async () => {
    const tty = await roomctlOnPty(["tasks", roomId], { env });
    expect(tty.code).toBe(0);
    expect(tty.screen).toMatch(ANSI);
    expect(tty.screen).toContain("Write the API");
    const noColor = await roomctlOnPty(["tasks", roomId], { env: { ...env, NO_COLOR: "1" } });
    expect(noColor.code).toBe(0);
    expect(noColor.screen).not.toMatch(ANSI);
    expect(noColor.screen).toMatch(/task-1 +pending +- +1 +Write the API/);
    const empty = await roomctlOnPty(["tasks", roomId], { env: { ...env, NO_COLOR: "" } });
    expect(empty.screen).toMatch(ANSI);
  });

  test("through a pipe: no colour in any output, help and errors included", async () => {
    for (const args of [
      ["tasks", roomId],
      ["whoami"],
      ["tasks", "--help"],
      ["--help"],
      ["tasks", roomId, "--json"],
    ]) {
      const run = await roomctl(args, { env });
      expect(run.code).toBe(0);
      expect(run.stdout).not.toMatch(ANSI);
    }
    const failed = await roomctl(["approve", roomId, "apr-9"], { env });
    expect(failed.code).toBe(1);
    expect(failed.stderr).not.toMatch(ANSI);
  });
});

describe("confirmation on a terminal", () => {
  test("rooms delete asks for the room id: a wrong answer changes nothing, the right one deletes", async () => {
    const doomed = newRoomId();
    expect((await roomctl(["rooms", "create", doomed], { env })).code).toBe(0);
    const exists = async () =>
      JSON.parse((await roomctl(["rooms", "--json"], { env })).stdout).some((r: any) => r.roomId === doomed);
    const wrong = await roomctlOnPty(["rooms", "delete", doomed], {
      env,
      prompt: "to confirm: ",
      answer: "nope",
    });
    expect(wrong.code).toBe(1);
    expect(wrong.screen).toContain(
      `Delete room ${doomed} with its plan, context and events. Type ${doomed} to confirm:`,
    );
    expect(wrong.screen).toContain("not confirmed; nothing was changed");
    expect(await exists()).toBe(true);
    const right = await roomctlOnPty(["rooms", "delete", doomed], {
      env,
      prompt: "to confirm: ",
      answer: doomed,
    });
    expect(right.code).toBe(0);
    expect(right.screen).toContain(`Deleted room ${doomed}.`);
    expect(await exists()).toBe(false);
  });
});
