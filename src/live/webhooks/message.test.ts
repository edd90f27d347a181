import { describe, expect, test } from "bun:test";
import type { RoomEvent } from "../../protocol/records.ts";
import { webhookBody, webhookMessageId } from "./message.ts";

const EVENT: RoomEvent = {
  id: "evt_1",
  seq: 42,
  type: "task.updated",
  from: "agent-a",
  to: "*",
  payload: { taskId: "t1", status: "done", note: "naïve ✓" },
  timestamp: "2026-01-01T00:00:00.000Z",
  read_by: [],
  reply_to_id: "evt_0",
};

describe("webhookMessageId", () => {
  test("is <roomId>.<seq>.<webhookId>, the same for every retry of one event to one webhook", () => {
    expect(webhookMessageId("room-1", 42, "wh_A1b2")).toBe("room-1.42.wh_A1b2");
    expect(webhookMessageId("room-1", 42, "wh_A1b2")).toBe(webhookMessageId("room-1", 42, "wh_A1b2"));
    expect(webhookMessageId("room-1", 42, "wh_other")).not.toBe(webhookMessageId("room-1", 42, "wh_A1b2"));
  });

  test("splits back into its parts one way only: no part may contain a dot", () => {
    const [room, seq, hook, ...rest] = webhookMessageId("my_room-2", 7, "wh-9").split(".");
    expect([room, seq, hook, rest]).toEqual(["my_room-2", "7", "wh-9", []]);
    expect(() => webhookMessageId("room.1", 1, "wh")).toThrow("room id");
    expect(() => webhookMessageId("room-1", 1, "wh.1")).toThrow("webhook id");
  });

  test("refuses a seq that is not a positive integer", () => {
    for (const seq of [0, -1, 1.5, Number.NaN])
      expect(() => webhookMessageId("room-1", seq, "wh")).toThrow("seq");
  });
});

describe("webhookBody", () => {
  test('is {"type", "roomId", "event"} with the event whole', () => {
    const body = webhookBody("room-1", EVENT);
    expect(JSON.parse(body)).toEqual({ type: "task.updated", roomId: "room-1", event: EVENT });
    expect(Object.keys(JSON.parse(body))).toEqual(["type", "roomId", "event"]);
    expect(body.startsWith("{")).toBe(true);
  });
});
