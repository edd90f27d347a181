/**
 * Pins the SHA1 of every script: EVALSHA addresses scripts by it, so an edit must be deliberate. After changing
 * a script, update its line here (and nothing else needs to change: the SHA is computed at module load).
 */
import { expect, test } from "bun:test";
import { FEED_SCRIPTS, SCRIPTS } from "./scripts.ts";

const PINNED: Record<string, string> = {
  ADD_DEPENDENCY: "a7714833a08b8393f6cecd1f40d04daa1d48f178",
  ADD_TASK: "508b3870dbbfee54d56cae59ad750a760281330a",
  DELETE_TASK: "c153c53c653205d480e7a2d59c6b63f5c8e2da44",
  GET_TASK: "f074071761d4d513e855f78c1ec4853b232fe0e4",
  READ_PLAN: "504b123b1c2c2b0b36c6760e3a1d05e6fbad7497",
  SEED_ROOM: "7be0615f6a1f8cdeac2e886b28010d673991b286",
  SUMMARY: "62d9d703f2f8eed4560cf918b514349623b11488",
  UPDATE_TASK: "0bdba1c114f5e1916913daca62588de92a46efef",
  CLAIM_TASK: "e75b08f7bc2259fb8c64e3de88a733b6f803bd9e",
  RENEW_LEASE: "8921b920494ad3bf72c909f106a4c0c3c409bb3f",
  CONTEXT_HISTORY: "9755251c7c9c0ea11ecdde42b0542a9764f51874",
  CONTEXT_VERSIONS: "396f6319e2605166b0fecc8e1ea206652f50946b",
  DELETE_CONTEXT: "223c3ad3109ae003410fa805a993e562aeca28e2",
  LIST_CONTEXT: "5724c7bf36b998a1e8fc11396e59246e7c69b8ed",
  READ_CONTEXT: "b22a10a48897b2c4835fd6ef120ab500fb139092",
  UPDATE_CONTEXT: "2a86e72aeaa17ffbcadba1c9d3e43ad8094584aa",
  WRITE_CONTEXT: "be7a9ce969907217f98164e0d1bd099d19a09f3b",
  CONSUME_EVENTS: "a1465dd076323e0a9d1ea46da93b1361412f9908",
  DELETE_EVENT: "ef4183a7631072003d992c343156fcd13119bf09",
  GET_EVENT_READS: "53505468b945b0001c70db6b55d1f2d3338a12ce",
  MARK_EVENT_READ: "1c181d119b8fe038ec5bd9f58f01e778aa59f270",
  POST_EVENT: "81e7b0dcc321b0415f9f32eea77959f27cb87ae4",
  READ_EVENTS: "47cc03588ced789dcfcbbf66b33ec49328186555",
  READ_LOG: "53e2922a48a885bd88b1e6c53118fa5cafed8aa0",
  ACQUIRE_LOCK: "83d371f74cf0cdd7e6824286220fba7b4da1cb47",
  GET_PRESENCE: "cfaa39c42395d1fa5a0e282f8f23dcc25ea9b6a1",
  GET_VAR: "ffbe28dc53bb1111da6eedc5945b7f8149bf4d3a",
  HEARTBEAT: "62b634aa055b7a52be779d7eca3b720ab08e6ec8",
  LIST_LOCKS: "13d9e4a19fc2d8a398e176a6f8272882c99a62b3",
  LIST_VARS: "9a4482c4b60c202acbfdbc4a5067d335cbdd0ae3",
  RELEASE_LOCK: "21be04281cfc98d3de3c1283178d3cc9475a104e",
  SET_VAR: "6449c53f83e01dde898889c3bd0305e30c8235f9",
  CREATE_INVITE: "ff6509155d13cd3118bc013f58260fc985c90213",
  CREATE_ROOM: "e45be2ed2b26241b461299f72cca70f390114feb",
  DELETE_INVITE: "94c3128d305754df1c95e7894033b15cd55b3e37",
  DELETE_IDLE_ROOM: "2fc31d80dc0c9db440edfe02ac26940948b819c2",
  DELETE_ROOM: "5e74fbd3f77f28072ef218ec969b9fa413122bb5",
  LIST_INVITES: "80f19878136ddf3ce9f806c5fee7dd13fb4cf0f5",
  BROADCAST: "2b6abd07decbebf404e2574fbe51f5efbc6c379b",
  CLAIM_FILES: "78da84bbfd105fe5ed3285f70b12edead6efc289",
  LEAVE_ROOM: "39deac62d5f8550ed2459a5ac6055564af454f6c",
  LIST_CLAIMS: "542f51ed926073111a066ec0b78031de88b6663c",
  RELEASE_FILES: "e70b9e24989af6aa8f8734c934c3d78057c036d9",
  ROOM_STATE: "7e4a237af5ebcdd294c167e2c9cd992441d9df1b",
  ANALYTICS_LOG: "b281cfe1a8d96e5911fa496227b4fadb6b94e9ee",
  DECIDE_REVIEW: "4ba3857d4cda25a9f6e89d716f1fffddc193102c",
  LIST_REVIEWS: "9a87a25b577350715bb573248cdff8fbafbf33ec",
  REQUEST_REVIEW: "1ed6bebd0bf53a8e474fe9fd628ce666cf4f843c",
  SEARCH: "728ef8fbddd7afbbac0d35ea655ab5b3dbdb83de",
  CREATE_WEBHOOK: "82b5ff5cc113c0b558a1451961c092ef292feb26",
  LIST_WEBHOOKS: "dac1c823cd7e6182aa5a4bed7e99841d7eb11496",
  DELETE_WEBHOOK: "ffaa3cbacf37ab5cf77cfcd449e9ad60797789bd",
  WEBHOOK_DELIVERIES: "6cef27b4fb4f0170f7df21c54ca4ae53698951bd",
  LOG_TEST_DELIVERY: "1b5462e6c6b8d04c772900c949e23bdaaafc7344",
  BRIDGE: "ea9f6708e673d0f6d2c8efbe1a29589c225a3cb2",
  DRIVER_ACT: "b20a7911733dbccf4c02b1289f7570a6e00d1a26",
  GET_DRIVER: "33afd570e5a04af3a7acb50978f9043b938ce6e3",
  RELEASE_DRIVER: "8fa2c1ae46f838f88fa066d00027b9a65d27338c",
  ROOM_DETAILS: "c968ebe00d78189de898cc14998a876df6751a34",
  TAKE_DRIVER: "b5e64247644c5bd678786e92ec2ce9ed7709b171",
  DECIDE_APPROVAL: "826b7ffc8be8635a22c3992467b5b91fbb2878b7",
  GET_APPROVAL: "5328ed768cbe8a38e3f1da0badecc4c86f76145d",
  LIST_APPROVALS: "c3e91582a3ef49fe7f339b58eccd1a3de4a35f6c",
  LIST_VERDICTS: "53c63ea4b467e2d93843fd118e4928035379df50",
  RECORD_VERDICT: "19da79f52ed1236484df187bb893d31bbeaa19c5",
  REQUEST_APPROVAL: "9430e96280899ca9b95fef0fa9c9180db7e27665",
  ACCEPT_HANDOFF: "0a0291eb3576e237f6c095e5b0ea82c601ecdc06",
  CANCEL_HANDOFF: "cdd2d083e3dc94ba0ade45066986a51ea2c71ce4",
  DECLINE_HANDOFF: "e41e3f7c9d580dc0aa74527ffa9a6e6116804699",
  LIST_HANDOFFS: "65fd0a1d221eb18a9977399c26085a289bcff10a",
  OFFER_HANDOFF: "dbe9be132b26632c8a681a8306b069c166450080",
  FORK_SOURCE: "0f8744f664cdb7ac0681e0a974c57612cf9c209c",
  FORK_WRITE: "ee0496ce50701d037e8411a852615e7417ea8ae8",
  EXPORT_LOG: "d407a09dc3f7850e150d11a39562c9304a46edc4",
  EXPORT_ROOM: "8a8aae9f2197abad57dde947bb5bc4bd44ea802c",
  IMPORT_WRITE: "9894ba8081a7b6cce7ab83b2ec5c86b08633385d",
  RESOLVE_INVITE: "3af0a5ddd66cc875c8fc98ec2d73881cb072374a",
  ROOM_INFO: "f14c49484a7a3e7a78897112c869339828563681",
  ROOM_STATS: "1cbdcfedb833f6fa1f2b8ff4b958ab6790d0119b",
  ROOM_SUMMARY: "f6bcb0bf872efde33f3624a0b74f8909b87adabf",
  CLAIM_DELIVERIES: "1c9f0033fa7029cd72886914ebaf19f6a554f3f1",
  RECORD_DELIVERY: "10c3850ca26e54a73fb295950c5d9dd0a8acb417",
  CONSUME_RATE: "4f0cd396e3e71b3e3a5e4975610e6fbfd021a773",
  CREATE_KEY: "b2367613bdf22772e848802877af970c22454493",
  DELETE_KEY: "54e054c1eeb46622053c73ab714b1b4d8e9bfb0c",
  LIST_KEYS: "3ce55f17f6c67839cccc3ba188f0983d9deceb33",
  PROVISION_TEAM: "b1adffc66c3b76624c7237f90be9764fc0687d35",
  RESERVE_ROOM: "62b6a21a8ec5ac136591efd795b2212b596c1c3e",
  RESOLVE_KEY: "79fa55f259860cd0e6cac6fea25c01b3bd0d41c1",
  ROOM_INDEX: "e267d51c4081f774446f50140fd9639ca3b2f8fe",
  UNINDEX_ROOMS: "7ca172ce84d1908bc0a22b549c29b8de4558dbc8",
  WEBHOOK_INDEX_ADD: "aeb50ca59865dc851288683c93aaf1457d43f35f",
  WEBHOOK_ROOMS: "d6ee3402c85000c9b1c3cfb71a89ae258d521eb0",
  WEBHOOK_INDEX_FORGET: "e68aea3a312b5c1cf05f4564d1c4bb668b1e72c8",
  SESSION_CREATE: "bdc13acb16b4e33eb596fa523155652fbbd08e95",
  SESSION_TOUCH: "d6d9cae440dbade139b63f62babb46f532354140",
  SESSION_DELETE: "c589c10ff16d03958195bd977fe2bdd171948d3d",
  TEAM_INDEX_ADD: "afcf8418386fe2378aa727d2b86cde9df5e51619",
  TEAM_INDEX_LIST: "10f3d01861262459cd3cc78742c47868f2d9495d",
  FEED_HEADS: "bc895b552355db1e73190ed91c01a86c1d23f1fe",
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
  // history, templates, reviews, search, analytics; usableRooms reads ROOM_INDEX and ROOM_INFO); 9 room-slot
  // access operations (deleteIdleRoom among them) and ROOM_INFO (read by listRooms and the handshake); 6 team-slot key and rate operations;
  // RESERVE_ROOM, ROOM_INDEX and UNINDEX_ROOMS of the room index; 8 of leases, file claims, leave_room and the
  // AgentRoom views (listClaims and checkFiles share LIST_CLAIMS); 5 webhook admin operations, the worker's claim
  // and record, and 3 scripts of the rooms-with-webhooks index; 17 people operations and the 2 steps of a fork
  // (FORK_SOURCE, FORK_WRITE); 3 of moving rooms (EXPORT_ROOM, EXPORT_LOG, IMPORT_WRITE; keyDigests and
  // inviteDigests read through LIST_KEYS and LIST_INVITES); 3 of people's web sessions (create, touch, delete) and 2
  // of the teams index.
  expect(Object.keys(SCRIPTS)).toHaveLength(24 + 11 + 10 + 6 + 3 + 8 + 5 + 2 + 3 + 17 + 2 + 3 + 3 + 2);
});
