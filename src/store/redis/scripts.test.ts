/**
 * Pins the SHA1 of every script: EVALSHA addresses scripts by it, so an edit must be deliberate. After changing
 * a script, update its line here (and nothing else needs to change: the SHA is computed at module load).
 */
import { expect, test } from "bun:test";
import { FEED_SCRIPTS, SCRIPTS } from "./scripts.ts";

const PINNED: Record<string, string> = {
  ADD_DEPENDENCY: "183958b1a62e44f027c1116a4f7107e07c22dd5f",
  ADD_TASK: "5cccb424a924ca49cc4b14e8c90ffb6e7ab4e64e",
  DELETE_TASK: "42f6300d3af6e6460a3126935d10ebaf19d401a3",
  GET_TASK: "248324bcc6710401c6a92d5245261ec84ff71e1c",
  READ_PLAN: "b16e49fb4d031a773e8bd49f8654c50c116d2e65",
  SEED_ROOM: "60ac9d2809c2f81a3ac8a44ddd5dc6267278751d",
  SUMMARY: "85abbdf1b08f9bbcd1732e7946eeb1bfb0baa7c2",
  UPDATE_TASK: "a26ebf4cec9afd350a50d5ed4796a7c369aadc7c",
  CLAIM_TASK: "5121ef18e6097cea5581fc39314b61563bc6f8b2",
  RENEW_LEASE: "8d1dd82674cc3ce9780135b66016e6b200eb4ed2",
  CONTEXT_HISTORY: "1a543dafa86a421119ffefdcae9607531ef66bac",
  CONTEXT_VERSIONS: "e831da0be27bdac1783a18c24c516ddb36e1bda9",
  DELETE_CONTEXT: "df3dbef9db327b9dbaca209a995bc712a4626e8c",
  LIST_CONTEXT: "2d7c64877f9e320a4a66d4676404baceca0cd2b6",
  READ_CONTEXT: "d0da0281f7874328cf5689be9d0191bd8d509dd4",
  UPDATE_CONTEXT: "657ce3818e25e94968c76437bfdda977a2598f31",
  WRITE_CONTEXT: "dc312ed34451791863928072311317f69537f486",
  CONSUME_EVENTS: "2907a63838ac9aa9c56865dbee76da6ee49e362c",
  DELETE_EVENT: "e5ae4891a45837227b36a016a3bfa40d373b20ce",
  GET_EVENT_READS: "b133419f2fe37fc6d43a6abf59a290ab9db1cf6e",
  MARK_EVENT_READ: "2ded80ff76210e2161bd1db5dbfa9ec3018abc4b",
  POST_EVENT: "36e0bd142a443c135b7d77b729b098a3dc3fe66f",
  READ_EVENTS: "117a868debfe9b3a6e814c990580fc1793bfd9a7",
  READ_LOG: "82c8b0577a23f47a65387938a676646f4ed4b55c",
  ACQUIRE_LOCK: "ccf9b742ca5d799030fb9377995a7219229bddf3",
  GET_PRESENCE: "80c6cb73628832c0d8278199a172d200f6bb3e28",
  GET_VAR: "b4e19ed52cdd382d2a16e16759dfb68451e3322b",
  HEARTBEAT: "b88af879e4f6c550a5a37b01c6005e234672b62b",
  LIST_LOCKS: "3becc4d42f11f554e6452b1efa4af6a68753d14d",
  LIST_VARS: "7883bf05439f2e6bee49f12f67caa20df6dfccfb",
  RELEASE_LOCK: "4c73a6896291a7bee0898d5c01065018cc3a9d67",
  SET_VAR: "055c66f579d85329584b4a7b50c5306e2b56e6fe",
  CREATE_INVITE: "5d92a79bd1097775dc43ccb51cb75fdcafeabbe6",
  CREATE_ROOM: "279eb320e4cc3d381cda7a5da4b125c9a638da1f",
  DELETE_INVITE: "605cf569a88da140ac869db6b2ebbc3191905539",
  DELETE_ROOM: "116009df5cdd133186c61b90914add9315b3de40",
  LIST_INVITES: "fbe201a4ca29789a00cc91a441aa7e24c6a02fd1",
  BROADCAST: "38e547c12cce3045b526a6e160e46b3eed1357ca",
  CLAIM_FILES: "f35be11d3528021d0fd9509301f959a1b5cd7cd7",
  LEAVE_ROOM: "5f862be27adfb4ff95aa7dbffa852183b3440d75",
  LIST_CLAIMS: "38b4e9fa32c333809d26d2399761d4c4ac22eaf9",
  RELEASE_FILES: "43577333b82dc3d9c40c3a3cbf488b39eddad43e",
  ROOM_STATE: "4287f5302cd57a04b8a9067bb9eb9daa5c4339d7",
  ANALYTICS_LOG: "0b356b3446e1b9af7d833f0d5b020e2568515906",
  DECIDE_REVIEW: "b9a8e881061d7f6bf74ec581188c11063210c14e",
  LIST_REVIEWS: "3ceb29c327d883bfd8bf4a02ae6e56ce881a8c70",
  REQUEST_REVIEW: "421b1d89e7bf0fb3a96c748c7258f3bf4d853b05",
  SEARCH: "8af7aa7118dae0b0728f97a61f07c9eed69787d8",
  RESOLVE_INVITE: "b823a23f7afcab1b80850fd8fc6dfeac9cbfd39b",
  ROOM_INFO: "fddd15ea0fa88506d1e5b6dede781c2cf8010745",
  ROOM_STATS: "9e1aeb04f3ccc9ac4ef0fb3cf92fb1a9f9b3b2b3",
  ROOM_SUMMARY: "3cc9e28c918dba9a7eedcd6e8ecd3d042e5e5179",
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
  // 24 room operations (readLog for watchers among them), and 11 of the tools of the earlier server (deletions,
  // history, templates, reviews, search, analytics; usableRooms reads ROOM_INDEX and ROOM_INFO); 8 room-slot
  // access operations and ROOM_INFO (read by listRooms and the handshake); 6 team-slot key and rate operations;
  // RESERVE_ROOM, ROOM_INDEX and UNINDEX_ROOMS of the room index; 8 of leases, file claims, leave_room and the
  // AgentRoom views (listClaims and checkFiles share LIST_CLAIMS).
  expect(Object.keys(SCRIPTS)).toHaveLength(24 + 11 + 9 + 6 + 3 + 8);
});
