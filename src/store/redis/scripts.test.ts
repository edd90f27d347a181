/**
 * Pins the SHA1 of every script: EVALSHA addresses scripts by it, so an edit must be deliberate. After changing
 * a script, update its line here (and nothing else needs to change: the SHA is computed at module load).
 */
import { expect, test } from "bun:test";
import { FEED_SCRIPTS, SCRIPTS } from "./scripts.ts";

const PINNED: Record<string, string> = {
  ADD_DEPENDENCY: "c6dcd2986fabbcbae4d5259f57480aa6d00c253f",
  ADD_TASK: "bb272eb52c258715c2f079649501dfa8b20b88dd",
  DELETE_TASK: "09d44cc09c3eb8a6de7e75039ee1f4000a964f91",
  GET_TASK: "a9356439b3dcdce39f9abba83b3fa212b37a48fa",
  READ_PLAN: "dc78a867c80518c37afdb317eb36b044a8453924",
  SEED_ROOM: "b120b6a5b3510ba135f4da36fbc991088325bc3d",
  SUMMARY: "d62ad19ab191ca68768d51e26e72e19ee8ea192f",
  UPDATE_TASK: "55d4afd94d555eb13e6a83869fb02e74b3f59df4",
  CLAIM_TASK: "935ff85d52ba53b37ed5aa4652fcbd53ccdf4b4d",
  RENEW_LEASE: "43c32d7a7824ee28a06cadefec06bcdb2b414019",
  CONTEXT_HISTORY: "418108159146ccefee2afaa53f3a5f9c38e66d2f",
  CONTEXT_VERSIONS: "a9e276d7b04c3a2afb209efd1c14306a4aff94fa",
  DELETE_CONTEXT: "57662ca64bb16b32fd2b999a16d51a922753a160",
  LIST_CONTEXT: "993296ef2e223a0551580272bf4de30bb5a4e08f",
  READ_CONTEXT: "ff4aff82a84bd662007a63d556320690fb577325",
  UPDATE_CONTEXT: "9046507745bf2ba56fb1d311070443657f7f676c",
  WRITE_CONTEXT: "5256761cb78df97cf82f096cd9950ce5bbe60d0f",
  CONSUME_EVENTS: "ba98605167948ccd3e79a141221041d4bf405616",
  DELETE_EVENT: "64c1de8d6c9bac6f4185bbeea23ec3a7da92157d",
  GET_EVENT_READS: "46cb936d96b322a035828512c25eec767b4656b8",
  MARK_EVENT_READ: "16365be487c79979870e1e9ffa2609d1d259f3fc",
  POST_EVENT: "82a0fe01768585289eb45171c78b1652aff150fb",
  READ_EVENTS: "8bb8d8425957da93b64f5becb78a299bb520c698",
  READ_LOG: "c9f6bbf75583cc22a2b26ee35de537847a886bcf",
  ACQUIRE_LOCK: "0485d16f88b06e6832a41b2d86aa580905e057e6",
  GET_PRESENCE: "43ecae1afd6d2bc52c265da3188d016037254c5a",
  GET_VAR: "3413e4a9001fb560fe9f29bc5574e071d5569012",
  READ_VALUES: "60fba65ac0c0e5d4fb8cbc4d1410cd15cda0da4e",
  WRITE_VALUE: "c0eac9b4ab8a4a673b4e216d5dfb351b2319b2a4",
  HEARTBEAT: "cc20d03358da542ba2ae7e45210783f3c8f7b33e",
  LIST_LOCKS: "7c772c4ff2c404423039d58db3f4704c56fd5ca9",
  LIST_VARS: "d76fd4d46dcfecd6ac0bd6e2014fd171db9c5c76",
  RELEASE_LOCK: "c22935e7ec31e462eacb5ea29fce1cec7c41d5ac",
  SET_VAR: "176d0965b01090199e90594e595c811784c02f34",
  CREATE_INVITE: "e871ab40e14424798ee345df91f1ec710a134dbd",
  CREATE_ROOM: "8eb771439c17bb34c86c3dc4b96d74ac7ee93967",
  DELETE_INVITE: "eb7e197f360e554d822b5cd5ce1ed5a568e6401f",
  DELETE_IDLE_ROOM: "a94f53fb98421cfe2fd34f519f41601acae46d24",
  DELETE_ROOM: "fe8d3d68b514adcfcdcd7c104206e7ca70d69fb9",
  LIST_INVITES: "14c7822b4694bcbe20b04f1338ed346f16afbb68",
  BROADCAST: "c9c143f1133ef05c5547f5c5c44776ad071716c3",
  CLAIM_FILES: "9b81d8dfaf1d47386412c51f4c4a3b4d4f36080a",
  LEAVE_ROOM: "e90e399dddc400847acdf1581226a6eab1bfec59",
  LIST_CLAIMS: "1ce115c12fb73b10f99d7da5ae5401e03f96f658",
  RELEASE_FILES: "25340137fe08b16c8dfced563847cfa0257f0693",
  ROOM_STATE: "b94e3fe755fe5a15e39bacb54eb92fdfd4ed01a7",
  ANALYTICS_LOG: "c748d40682d1b9a39dfac405a9c8d1b5c646efc1",
  DECIDE_REVIEW: "563b06a0571d861cf8749ab804f1de3cde1d2b2d",
  LIST_REVIEWS: "023c76ba75fbc3b896086380f75193121307076b",
  REQUEST_REVIEW: "ef956da9e123dc3e42f575620ee6216ec96c9a7a",
  SEARCH: "a4537ec4f175cf79235fc32c9bff7953255c5e30",
  CREATE_WEBHOOK: "56079f3b5dbf66c74d19212513af1e6e60bfa267",
  LIST_WEBHOOKS: "e2dc6d31d281d3c5bebc0621cf41ad3ed38eca34",
  DELETE_WEBHOOK: "2b824e01b3fe0c2dbf236864e438e7e71a4c237c",
  WEBHOOK_DELIVERIES: "718ec1cd3330bf934d7475becf5d4f1f65fe81d8",
  LOG_TEST_DELIVERY: "7a0abb52a50600a497276ed5d920cce15c23a53b",
  BRIDGE: "40ef9dd68a08416eb71f79b49b3ad6e7532b174d",
  DRIVER_ACT: "d20f36d37ed8b1d057ddb562b14882628d073942",
  GET_DRIVER: "a3a61b5a7ae0f285bcc020f45c8b5d2d4a28e29c",
  RELEASE_DRIVER: "8b02a4755d0e3a4774de81fa8e6bc35f37288a1e",
  ROOM_DETAILS: "c8c8994e45d8d3ab3f324d04ac913f6259a63b49",
  TAKE_DRIVER: "55274968fda9ebed3dd6c7b52360f068c16c0d87",
  DECIDE_APPROVAL: "8a3bef7ae3f46f29f9fd2ca3e0bad2650b215684",
  GET_APPROVAL: "958593d417c792074f4fc908d7f2aca6e8b8a4b6",
  LIST_APPROVALS: "09f4a5ea1c112fad28dfc84293c721023bf07fb5",
  LIST_VERDICTS: "9914578c127d07c6991c96693d6ca6401aa37c05",
  RECORD_VERDICT: "01d081093acb4d58008bec391d0419d34050fe83",
  REQUEST_APPROVAL: "631d32b29556b285b01497f5db00251692b9a9f5",
  ACCEPT_HANDOFF: "bc5111dad7c62947a5fd1caf280c451cafd12715",
  CANCEL_HANDOFF: "6cb748c5b8819b90f2d53f2f11ae135fc942a2f1",
  DECLINE_HANDOFF: "92b870d480a2b3dd907feb1bec37bf0d042950cd",
  LIST_HANDOFFS: "1d98430ec231ba888b5672065941da9431410130",
  OFFER_HANDOFF: "3476f14bad0c6b3c7a72df678fd0ee9f03ebc076",
  FORK_SOURCE: "0b73883874f77c033765776f2d98929970779a67",
  FORK_WRITE: "784d5eace233ea94f4005126f94250f283ae80ff",
  EXPORT_LOG: "03c0a005b117617ec5d0a4f7635607a946e201c7",
  EXPORT_ROOM: "8f1690612f4563cc4ca011868391d8a3016536e8",
  IMPORT_WRITE: "58664128329bd0c5f20c68ce4da661cf6d32928d",
  RESOLVE_INVITE: "a91b55d5fc762bbeb8f57dc5ca60bef056c28e49",
  ROOM_INFO: "fc631f4094025e1fc93f0d24faf466a0bcf1c296",
  ROOM_STATS: "df8cc05b39497dacae2367590afef4eefcc3087b",
  ROOM_SUMMARY: "172c219535e4ef6e63c5ce4bb03253bf5068b5a3",
  CLAIM_DELIVERIES: "6b45c4d0131d9dcc945b31610f9e9c51f5d17fa4",
  RECORD_DELIVERY: "e2e18e2e9abeaaff27b1232cac76fcca9cf34e08",
  CONSUME_RATE: "422b48b1bda8168e33c855c84db260602d6fe7a9",
  CREATE_KEY: "9496ca2122cfef7ed2af48bcdd07990e4fe3239e",
  DELETE_KEY: "cb284fa73a4619e3d983c5eea0a8bfb1858482ab",
  LIST_KEYS: "739bd898b19be475f0aa7231bfc66594d016199c",
  PROVISION_TEAM: "d309897d782d73103dbe528e20c20de07dbe2086",
  RESERVE_ROOM: "62b6a21a8ec5ac136591efd795b2212b596c1c3e",
  ROTATE_KEY: "53ecaa87b72f028a704022bd310ab5311e342bb0",
  RESOLVE_KEY: "fe7efe2083324b5b3ee86e89b0c4b9b5dea6ed8e",
  ROOM_INDEX: "e267d51c4081f774446f50140fd9639ca3b2f8fe",
  CREATE_OAUTH_GRANT: "b5e472191327ab5bdbc200d944c2cb2986640584",
  EXCHANGE_OAUTH_GRANT: "5f58b4368d9a079f242572385e97186a993ecc24",
  LIST_OAUTH_GRANTS: "15c2e7799eac3fe73823d4e1ce9a53126bee830a",
  RESOLVE_OAUTH_TOKEN: "a4522e908996011f216b5cce2ec2efe8f7c8971b",
  REVOKE_OAUTH_GRANT: "8f7683ac3006b6489710475870649d74a6e6249b",
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
  LIST_SUSPENSIONS: "bd795f5a620909d9498061358faf4d39aae6c2fb",
  RESUME_AGENT: "b2551d0c044cdbfcba73c3bb44f4aa3fd596e743",
  SUSPEND_AGENT: "299d93c5b008ca3c8aef870eb4620cc808b21272",
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
  // access operations (deleteIdleRoom among them) and ROOM_INFO (read by listRooms and the handshake); 7 team-slot key and rate operations (rotateKey among them);
  // RESERVE_ROOM, ROOM_INDEX and UNINDEX_ROOMS of the room index; 8 of leases, file claims, leave_room and the
  // AgentRoom views (listClaims and checkFiles share LIST_CLAIMS); 5 webhook admin operations, the worker's claim
  // and record, and 3 scripts of the rooms-with-webhooks index; 17 people operations and the 2 steps of a fork
  // (FORK_SOURCE, FORK_WRITE); 3 of moving rooms (EXPORT_ROOM, EXPORT_LOG, IMPORT_WRITE; keyDigests and
  // inviteDigests read through LIST_KEYS and LIST_INVITES); 3 of people's web sessions (create, touch, delete) and 2
  // of the teams index; 2 of a room's small values (READ_VALUES, WRITE_VALUE); 3 of suspended agents (SUSPEND_AGENT,
  // RESUME_AGENT, LIST_SUSPENSIONS); 5 of OAuth grants (create, exchange, resolve, list, revoke).
  expect(Object.keys(SCRIPTS)).toHaveLength(
    24 + 11 + 10 + 7 + 3 + 8 + 5 + 2 + 3 + 17 + 2 + 3 + 3 + 2 + 2 + 3 + 5,
  );
});
