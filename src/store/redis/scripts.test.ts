/**
 * Pins the SHA1 of every script: EVALSHA addresses scripts by it, so an edit must be deliberate. After changing
 * a script, update its line here (and nothing else needs to change: the SHA is computed at module load).
 */
import { expect, test } from "bun:test";
import { SCRIPTS } from "./scripts.ts";

const PINNED: Record<string, string> = {
  ADD_TASK: "48bcffac4d4e11467bd78c42cf1bef934dd73e61",
  GET_TASK: "e89fee314bc4494744803a98740ae1a9272a5e77",
  READ_PLAN: "198d94f933e46d039fcaefa73e66c7d99ae812bb",
  SUMMARY: "cc4327c9992e6672b80e9396ab68242c3796b115",
  UPDATE_TASK: "b26819f0db84dfaf88d00b295a6d70f1bc636e2d",
  CONTEXT_HISTORY: "62bdef8c36bcdd4b3830e48d740b5157ae39cc54",
  LIST_CONTEXT: "95d8022d7f62c193777e795ea55bf49e33050aef",
  READ_CONTEXT: "651c03cdefb0aa41f9d5c67fc515ef87c9aa07b4",
  UPDATE_CONTEXT: "c34367e3dcc5cf8abb30bda0975bf8b18113ec5d",
  WRITE_CONTEXT: "e099baec876077fbbb48a2cb527f4d52e4da3b45",
  CONSUME_EVENTS: "e87cf66cde0a9a39d0b1ec66d8ea81e940707561",
  GET_EVENT_READS: "a82c053ebc67ab017cd196254f4ebf35fa2e9eca",
  MARK_EVENT_READ: "82fa089b20e9a2380f3a03f5081c99d7760c8c5e",
  POST_EVENT: "b6f38e772a71863c6f37d2b307aa10bc2fe6861c",
  READ_EVENTS: "e4a97c733b6acd246170d3456e499f60b812b74e",
  ACQUIRE_LOCK: "1d8b8df753a10e829781d3d5d768e63cbb51ee1c",
  GET_PRESENCE: "e33758a3319ffa1389fee9be97704375f4092859",
  GET_VAR: "077dd8064e9a4831642359fc310bfcf8b34607d5",
  HEARTBEAT: "7d39bc42937af6cd3ebee1f5817892e6c8e74da1",
  LIST_LOCKS: "179f8f70041bc505741bf2d4a718b5f996b879b7",
  LIST_VARS: "a9e6d77d91268c979933403c3fa5b89cf28040e5",
  RELEASE_LOCK: "0421c15ee6bee72144bb8585751a853448f0c556",
  SET_VAR: "05e15a328ef34c33820ae95ec0483a3965e08534",
  CREATE_INVITE: "9ed2022a349925a2e0e33247bbe7c85025405dc2",
  CREATE_ROOM: "5ea80abd31f25c0bff0ce6e1559fdd5016414832",
  DELETE_INVITE: "ec0286cfd514060f2950762792b48273dc388a21",
  DELETE_ROOM: "63f670e35089759ebf8bdf87a8e97594fcc0aaf0",
  LIST_INVITES: "03a938069aa6e1e8e4f3e17cfa66fe924d6786af",
  RESOLVE_INVITE: "0ee0aec58150b5fe16da60907468ba3fc23916d2",
  ROOM_INFO: "7ba0830a54f070d4d07501c6dbbe2147e52f6f42",
  ROOM_STATS: "983d7b4b8f875b160a2a6b2b05489e33687e6d08",
  ROOM_SUMMARY: "1407ca2bbf4207b49b8e81bd49dc94c8fbca14fc",
  CONSUME_RATE: "cb5ffea5e71a89d3c8ca54417b82f70098242e96",
  CREATE_KEY: "f19f2c82215b9f6f199f81de787560ff669e474b",
  DELETE_KEY: "8c3006d83f831bafa623ffb60dd6ccc44e852bb8",
  LIST_KEYS: "f52d00014dfff7b5ece3d30cfee8748b85335d89",
  PROVISION_TEAM: "8c5650c6f6c24d5f48aa02b5db278ebe6934a760",
  RESERVE_ROOM: "14814f9166e49e56c69f08983431a10ecf291a3e",
  RESOLVE_KEY: "f7ca2db8d05a74a8ccd53dbdf09e76c4c614b3a1",
  ROOM_INDEX: "996de300eb0c99a68a37b7db97f0738e042fbe09",
  UNINDEX_ROOMS: "6e3994b475da206bcff153c0dffeed3ce3c07124",
};

test("every script's SHA1 is computed from its text and pinned", () => {
  const actual = Object.fromEntries(
    Object.entries(SCRIPTS).map(([name, script]) => {
      expect(script.sha).toBe(new Bun.CryptoHasher("sha1").update(script.text).digest("hex"));
      return [name, script.sha];
    }),
  );
  expect(actual).toEqual(PINNED);
});

test("there is one script per store operation (lifecycle excepted) plus the room-index steps", () => {
  // 23 room operations; 8 room-slot access operations and ROOM_INFO (read by listRooms and the handshake);
  // 6 team-slot key and rate operations; RESERVE_ROOM, ROOM_INDEX and UNINDEX_ROOMS of the room index.
  expect(Object.keys(SCRIPTS)).toHaveLength(23 + 9 + 6 + 3);
});
