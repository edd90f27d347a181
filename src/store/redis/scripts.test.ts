/**
 * Pins the SHA1 of every script: EVALSHA addresses scripts by it, so an edit must be deliberate. After changing
 * a script, update its line here (and nothing else needs to change: the SHA is computed at module load).
 */
import { expect, test } from "bun:test";
import { FEED_SCRIPTS, SCRIPTS } from "./scripts.ts";

const PINNED: Record<string, string> = {
  ADD_TASK: "eab05b874c2a257e479c3595681d57f0cda49e98",
  GET_TASK: "a7f0b64a5fd673e177ab12424fa8e5bae70198da",
  READ_PLAN: "5fc30b481598bebd47054ff3e36f9e0f0bdce232",
  SUMMARY: "96f6800d27ef30625975ca48c88965519d171108",
  UPDATE_TASK: "a5e0e205dca8b290c3d2380a9133fffcaaffb086",
  CLAIM_TASK: "93d2a4acbf7b7121bf8748c51586d38b5bdce4a0",
  RENEW_LEASE: "65aadb989fafb7fc5dfcd69e183652f460ce8a75",
  CONTEXT_HISTORY: "49468050ef77679c236dc8050b4c77a8f63e304e",
  LIST_CONTEXT: "b1f720071b23bbabcc932492265d0b6cdcd2db72",
  READ_CONTEXT: "ef9716e96d21533e7818d2148e9ed41f05cbc424",
  UPDATE_CONTEXT: "6b325c6c52081aa65135c13802dac6585f892bee",
  WRITE_CONTEXT: "894d95e9581172d3b8f2afae9bf2dad47f5b884d",
  CONSUME_EVENTS: "1c438293c8c6779d7b6486012218d662a87c5574",
  GET_EVENT_READS: "9d428382c45f6e1a14b3ed5e176056fe130c7e7b",
  MARK_EVENT_READ: "1648a0a8863f3ba8050296802ce7ca2dd7923d95",
  POST_EVENT: "7e381257d40be85100ae22bf921f786a66cc01dc",
  READ_EVENTS: "7ac2e4949c5e02f6b8baf43630166e409df01253",
  ACQUIRE_LOCK: "100830b0fae9ccaecd85a271e9f0162b39900545",
  GET_PRESENCE: "52f52ab0b6620f1c098706e0b90de09559d076d1",
  GET_VAR: "e042a685ff63b59dbb76e1c205c241d6e35b2c49",
  HEARTBEAT: "45c516525863ff12dead5ab503956e774ee52a42",
  LIST_LOCKS: "73b91fb2cb65ce904c50247682893009cdec088c",
  LIST_VARS: "12cfb0f2c3c5c21e0039627a72d57de85eb8efb8",
  RELEASE_LOCK: "93585353e7884ee7a765dde528677b0a1ef7de04",
  SET_VAR: "2b061782942192b45dfd8ae5ec11cf22dbeaad8f",
  CREATE_INVITE: "abb32a72168738d4e86643fe497d78f2d0a70d93",
  CREATE_ROOM: "a35eaed70ca2e3c2158504dd36fe7693fddfea0e",
  DELETE_INVITE: "855414f8d054cda59cbcc178e02a6a2a79e0d9e8",
  DELETE_ROOM: "d8534b659c7d4ea24c0953c49c1245175bdcabaf",
  LIST_INVITES: "531185d1c0e898c2885d42adbf9601a866665362",
  BROADCAST: "f6635b78286c1c516a90dcc5ec6a70d0fec6c654",
  CLAIM_FILES: "abed5335b217ed1ad6938df9e9620aadd823e555",
  LEAVE_ROOM: "c406cbfe21675294a562555ca579b4cb48be65b7",
  LIST_CLAIMS: "356ad5a6b13192e706da5f46a1cf10a9f6bb4970",
  RELEASE_FILES: "ff6792c2a161cacde9bc4c119b5f02be0849dbc1",
  ROOM_STATE: "635a6d8907bad8a42fbc603449f4fd927bd26439",
  RESOLVE_INVITE: "b33af4067b1c0f2a452b1b3c21b4614257dffcdb",
  ROOM_INFO: "a5af829bc35b73b161e491a86ab595f204a27db2",
  ROOM_STATS: "8a8d2e2726ab861d41c9ed8718ecf97f5af055f5",
  ROOM_SUMMARY: "0a739d75e7c87fcf0c1df3a0405a9ab32217e60b",
  CONSUME_RATE: "cb5ffea5e71a89d3c8ca54417b82f70098242e96",
  CREATE_KEY: "f19f2c82215b9f6f199f81de787560ff669e474b",
  DELETE_KEY: "8c3006d83f831bafa623ffb60dd6ccc44e852bb8",
  LIST_KEYS: "f52d00014dfff7b5ece3d30cfee8748b85335d89",
  PROVISION_TEAM: "6ca3e1bb891ff8e0243610b664b75c4574212c23",
  RESERVE_ROOM: "14814f9166e49e56c69f08983431a10ecf291a3e",
  RESOLVE_KEY: "f7ca2db8d05a74a8ccd53dbdf09e76c4c614b3a1",
  ROOM_INDEX: "996de300eb0c99a68a37b7db97f0738e042fbe09",
  UNINDEX_ROOMS: "6e3994b475da206bcff153c0dffeed3ce3c07124",
  FEED_HEADS: "afac280fe3a5d3378a8739d17353bcac8bfed2e7",
};

test("every script's SHA1 is computed from its text and pinned", () => {
  const actual = Object.fromEntries(
    Object.entries({ ...SCRIPTS, ...FEED_SCRIPTS }).map(([name, script]) => {
      expect(script.sha).toBe(new Bun.CryptoHasher("sha1").update(script.text).digest("hex"));
      return [name, script.sha];
    }),
  );
  expect(actual).toEqual(PINNED);
});

test("there is one script per store operation (lifecycle excepted) plus the room-index steps", () => {
  // 23 room operations; 8 room-slot access operations and ROOM_INFO (read by listRooms and the handshake);
  // 6 team-slot key and rate operations; RESERVE_ROOM, ROOM_INDEX and UNINDEX_ROOMS of the room index;
  // 8 of leases, file claims, leave_room and the AgentRoom views (listClaims and checkFiles share LIST_CLAIMS).
  expect(Object.keys(SCRIPTS)).toHaveLength(23 + 9 + 6 + 3 + 8);
});
