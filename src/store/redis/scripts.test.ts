/**
 * Pins the SHA1 of every script: EVALSHA addresses scripts by it, so an edit must be deliberate. After changing
 * a script, update its line here (and nothing else needs to change: the SHA is computed at module load).
 */
import { expect, test } from "bun:test";
import { FEED_SCRIPTS, SCRIPTS } from "./scripts.ts";

const PINNED: Record<string, string> = {
  ADD_DEPENDENCY: "5154de7e728500563b28c03f32a27d35707f7243",
  ADD_TASK: "6f43b1dc59adb663d54ad532fc695415a21aa40d",
  DELETE_TASK: "982dc6a16cacf61484abb46e2b41ba0dda442db1",
  GET_TASK: "b300ac4d16e169c14d0604c36292cb9f89eaca05",
  READ_PLAN: "cef15e604440f2c4d64c7dc51cd27344d739964c",
  SEED_ROOM: "d70d9677a9d0549974c7518be127a3ad4b2f24e3",
  SUMMARY: "fedfc5ff0bd440e5b85dd46b44fac7dd95e73070",
  UPDATE_TASK: "57caf9e093411e8ba59475c1c02528622bc5e8f2",
  CLAIM_TASK: "627ec5c217685bd89b4c8476a73e1f63edf1240d",
  RENEW_LEASE: "d2e3fa87239626a6ae7a25fce2c23f3ed40f934c",
  CONTEXT_HISTORY: "55880fb839edb6fcff89ee9ea3ef0dcf4ef2d2ef",
  CONTEXT_VERSIONS: "21567aa7b09f73e0d476cfdce194ce7a00cfec46",
  DELETE_CONTEXT: "84f83fa9cf1162756e2f08c2488f48f80fd8ab21",
  LIST_CONTEXT: "367eac134ca15e8fa7727db0930caabfb147f426",
  READ_CONTEXT: "ddae4d3af29081814ce01de298cfb10253795571",
  UPDATE_CONTEXT: "ec2e17f96230741093218f785cccc2b01785c043",
  WRITE_CONTEXT: "f73e2bdceed28153eda81da9f49d49dfe3196f71",
  CONSUME_EVENTS: "44d4f6bcd62ca6e9fcf7019e239b44d20bd8d0a4",
  DELETE_EVENT: "c55bbbe2078f7c504fd4f8a5bff5b46d255ec926",
  GET_EVENT_READS: "e9774312753db21f756d1656078d0447c6749892",
  MARK_EVENT_READ: "ec91e9c81fdb3e312b314e65afbb6f359cdf1f08",
  POST_EVENT: "f4388fb5ac2e466d0c9f3775e04f0f09f6afb2fa",
  READ_EVENTS: "e77ea623e5b522e46f5e2469464ace806fdec598",
  READ_LOG: "9b5f1d228cfb358dbc53ec4627768cda9075687f",
  ACQUIRE_LOCK: "f608f8cc9f98503a614d779c96451d5c699eaf6c",
  GET_PRESENCE: "01826a6fef934c1cb0c26d354a70942cc2b7fd73",
  GET_VAR: "86dd9c8931cd31e2820bfb297ee4a18ef72c51b1",
  HEARTBEAT: "d4305b0b1954e7624b3e93ca175eed7d82ce7e20",
  LIST_LOCKS: "7a6ad79cea8841722bd7f23d046f8e4a209e74f6",
  LIST_VARS: "38201e21adb79bdafe6ae83a62f0a2a55b83a221",
  RELEASE_LOCK: "65eb25a6ede1f5f2e36193f1a0b82fb61c9e0371",
  SET_VAR: "5f15ecccf9ab4b5007d3a0ea24a11c0e66e36c01",
  CREATE_INVITE: "bff1799562a7281932105e75dcc70c11dd615925",
  CREATE_ROOM: "0d376b9bf6d8c55b205fb0e9fcda0b112df4d2a9",
  DELETE_INVITE: "7e3fca60ce0f3f565dd638d49c65676e122e2976",
  DELETE_ROOM: "ce5dc52efaac600955eb45dec73f9218a9243b0e",
  LIST_INVITES: "01e2d24ad6b755fe6cc51ee50a4ea14f29efb134",
  BROADCAST: "b6b9dc3361b7535001b798e72142a317c50e3a8b",
  CLAIM_FILES: "e5a3be98a8dbc0a86ccb0ffc3a73f909a1bf23f2",
  LEAVE_ROOM: "1c3863153abe34fb6e71b8c43526ff4274cac029",
  LIST_CLAIMS: "135ac496a814547f13b7733e91a0b9f9ce25da0c",
  RELEASE_FILES: "69aa1c03b573302cc56c3319338da277489704b1",
  ROOM_STATE: "bec13344fd6cc66ec171186e4c83ac9cd3bc63ff",
  ANALYTICS_LOG: "a6095b7e84714f1373533214930a6dc38c06bcbd",
  DECIDE_REVIEW: "ce49a294a711b531cba7766b87cdc48d02bddac5",
  LIST_REVIEWS: "96f83c9f2f748b4a846e5749351287714b131637",
  REQUEST_REVIEW: "7ab44cee84a47b4513f97d5ea8645532eacfe7c4",
  SEARCH: "dbfa2190924fd8ec883794c113ad838525e8bafd",
  CREATE_WEBHOOK: "cf56dda5dcf22b4b87332b58e81332c449058369",
  LIST_WEBHOOKS: "8a9c2a4dd79ef111c7b0a886c1a2598dbad030d3",
  DELETE_WEBHOOK: "ef5185053217ba42fa05576882b15c295c2105d7",
  WEBHOOK_DELIVERIES: "e845766bb999f3926313410671a0ac7efd15c711",
  LOG_TEST_DELIVERY: "1c6989676fc0513110e73b0248cb80dc76135577",
  BRIDGE: "ef9601adf0bee9b55147da07dbf2c4655402601a",
  DRIVER_ACT: "fd1d2c2ade65424d53bd2dd0d865b5f99e179a96",
  GET_DRIVER: "51bc556e1d7a496583bb83ea462fffcb805337d3",
  RELEASE_DRIVER: "d008ec0afba419bf69d5dc5822ef0d5f6c13dd9d",
  ROOM_DETAILS: "96f5d42c7eac3b6750e3f5a8325e4e9c6bc62039",
  TAKE_DRIVER: "4eb1140b46bd7ac78c44575ccfa414e2d0653c79",
  DECIDE_APPROVAL: "f253ebc55fa0ccdc5567cfd2729e51a2035a261a",
  GET_APPROVAL: "c63358debb37fcbb80c5dfebf56970f760aba33b",
  LIST_APPROVALS: "1c502f535d0be4835237c1f9479dbe085d98e252",
  LIST_VERDICTS: "ccc54e7194a7a3a2495b91768316d44d22739903",
  RECORD_VERDICT: "8ba3de50a698e81d3e94f412d64aa69dd0dc9ebb",
  REQUEST_APPROVAL: "ed6bf76476e8cc09958fe33238822415f43552c1",
  ACCEPT_HANDOFF: "40494d507b4397323736ee17625075baa05d0ccc",
  CANCEL_HANDOFF: "24c929c7e75fc0b55ac95c1ca4f7047b1f53be0f",
  DECLINE_HANDOFF: "c22e3f2c24dc10aa4b1b8924d1e0c81f5d7403ae",
  LIST_HANDOFFS: "60ad2f02d34aaf2cb503eba94c14b8b2ed2610f5",
  OFFER_HANDOFF: "cc7973182e8d4d76664f9eae7ffd505eda8bdc33",
  FORK_SOURCE: "985aab2c6cc59d3321fb9f3206dc42ef94ace6a1",
  FORK_WRITE: "cf387644e8a4a68b37092778e104c007d89bc420",
  EXPORT_LOG: "2924b7c9ba974a7d9563cc0ec49192e02a971bec",
  EXPORT_ROOM: "2e4de03b11e44d25ce6ad2d8da823c8469d64797",
  IMPORT_WRITE: "138cc320bc1c97cbb7469a06d31787bbd3e16e7d",
  RESOLVE_INVITE: "842eb4d486a681563ef9853051aa9a07d0b5125f",
  ROOM_INFO: "bd4244d63eb91ac2308535910c7e3c8678779bc4",
  ROOM_STATS: "d4473ae580361b42eec82a22740561b7b5f9f70b",
  ROOM_SUMMARY: "acdb919616eb5b2b9fcd02797da5adc136918cfc",
  CLAIM_DELIVERIES: "3d2390f0a8b6cac81b6046123cc19508c9f93708",
  RECORD_DELIVERY: "9993c5a6609d3ec3e311a1df7c2da2431f6b1fd9",
  CONSUME_RATE: "3de84da62e0e453252101a706999fad9ed1a9abb",
  CREATE_KEY: "af36722261a3681dab590f38b7c3f337b04adf27",
  DELETE_KEY: "c4a9edcadef7a84eb290b983a5e60c7ad83f19e5",
  LIST_KEYS: "b175819510b117b1225cd4213f2c8760b5047061",
  PROVISION_TEAM: "46fabd85d82329830f4d78a3c6b41e36039dc7e8",
  RESERVE_ROOM: "a4cf4fb1441283d7b65e9f289bf25b7ac19e9ffb",
  RESOLVE_KEY: "fd178e358a10d030fa4228e4ea05f3131f384a69",
  ROOM_INDEX: "f3a593db18623b606fa235234827ea4dbd1ad115",
  UNINDEX_ROOMS: "eb0bfd81d706107f7f1b4bd43e3a7970f6638d4d",
  WEBHOOK_INDEX_ADD: "1ce1096ea742a8401159387e0af6001bfdc87814",
  WEBHOOK_ROOMS: "651ca9ef2c6f94fca72a83cd3fa00ac68d398b11",
  WEBHOOK_INDEX_FORGET: "1e698893d7db2c3f9d14aad9d773df7770803b25",
  SESSION_CREATE: "08dee4c7d96436fb63d2a2cc368f59f8d11c8413",
  SESSION_TOUCH: "dc950534e0fc83d7c1cb1f8475b35e43d0709637",
  SESSION_DELETE: "b4b0582e1cd23b0cadecf86b95ea3b77d16066a3",
  TEAM_INDEX_ADD: "76253e588bfe5a8a71198a71e44ce2da4e39d5d5",
  TEAM_INDEX_LIST: "cf9f9da87e4c7d734a510f84f3f12401da603962",
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
  // AgentRoom views (listClaims and checkFiles share LIST_CLAIMS); 5 webhook admin operations, the worker's claim
  // and record, and 3 scripts of the rooms-with-webhooks index; 17 people operations and the 2 steps of a fork
  // (FORK_SOURCE, FORK_WRITE); 3 of moving rooms (EXPORT_ROOM, EXPORT_LOG, IMPORT_WRITE; keyDigests and
  // inviteDigests read through LIST_KEYS and LIST_INVITES); 3 of people's web sessions (create, touch, delete) and 2
  // of the teams index.
  expect(Object.keys(SCRIPTS)).toHaveLength(24 + 11 + 9 + 6 + 3 + 8 + 5 + 2 + 3 + 17 + 2 + 3 + 3 + 2);
});
