/**
 * Pins the SHA1 of every script: EVALSHA addresses scripts by it, so an edit must be deliberate. After changing
 * a script, update its line here (and nothing else needs to change: the SHA is computed at module load).
 */
import { expect, test } from "bun:test";
import { FEED_SCRIPTS, SCRIPTS } from "./scripts.ts";

const PINNED: Record<string, string> = {
  ADD_DEPENDENCY: "8e3142c16fe0d7ddcf568a77f26ece9709084f32",
  ADD_TASK: "b70f9c700dd5a21ed4776374a32c87c98bf9b455",
  DELETE_TASK: "d9a73fec9d8b68180812a56f68509b0b0d843a58",
  GET_TASK: "529e750b841b7f2111dc35fe26c9d8afda82d17a",
  READ_PLAN: "29acda9c7c8999eeee8b07e94831fefa08565877",
  SEED_ROOM: "af7d60d51a1d53e2ccf78ec0ec14db723edc86b7",
  SUMMARY: "f94590c95f141b746d2b4d23eb1298ec0de58466",
  UPDATE_TASK: "ff6ad00223c2fc0f2625f522f8acf799a2a2710d",
  CLAIM_TASK: "2479e5f7121eec02fc9cfa4dcf89756793aecf91",
  RENEW_LEASE: "ed74623e59ea8a8017c6e6eb00196ab6a06129ce",
  CONTEXT_HISTORY: "641fe5b984737cf3143a2be735122e81544564bd",
  CONTEXT_VERSIONS: "5e073564d6332e730fb7f4d9cc53bec7d6cd8e2e",
  DELETE_CONTEXT: "f3cc9757ddcd146a7ab3aaf85916bfa3f6e1d282",
  LIST_CONTEXT: "578614d9e1cfdb5d1625238120975ccf7301b160",
  READ_CONTEXT: "e1949e20797814ada96be01de6b18f73967d096a",
  UPDATE_CONTEXT: "5cbe9ce3b02a5cefd1ae2bcaf1471972036b029a",
  WRITE_CONTEXT: "23ab6b12e21beaf7effebd939affe9fa7e05e137",
  CONSUME_EVENTS: "dac17c4ec48fa8bc30d5dc7c22f99678ef097934",
  DELETE_EVENT: "de8cc644045601d82f7519a66d6f972c9a66fed8",
  GET_EVENT_READS: "bf355970d3447838b61ce0173202ce124ed21ab8",
  MARK_EVENT_READ: "7cafc1b093618140fae2963405d23421968d14a6",
  POST_EVENT: "76b0cf72c7142cd485517358367dc4ac9bf9936d",
  READ_EVENTS: "da2bda193a4be1acad45dee78d3abbd927fd1255",
  READ_LOG: "417dc86703653a5af5f9dc63037d17b413de75cf",
  ACQUIRE_LOCK: "1059cbe6bd78c9562660fe22fea92b9073c20cca",
  GET_PRESENCE: "3039deb4d7e0d0a0291bda53ab7e25b2033081d4",
  GET_VAR: "2143f7fdef8e6ac0920e2e61060e7109ba33b2ff",
  HEARTBEAT: "cf7f256799ce51b230ed74d47a2918667ca8a097",
  LIST_LOCKS: "4ad778a9f6674706d7cc0a508e5087835b10f3fa",
  LIST_VARS: "da9dc7b88ed20b5ceb740a4b10591ae3d769c8ca",
  RELEASE_LOCK: "e42b2ec635b652a83c4a98cdfd55d6d23a1f610d",
  SET_VAR: "1e83e1deac55f46f22538784d4bd20dbeaaf2e1e",
  CREATE_INVITE: "c01d532447273d4d47d96edb784d4ebfe15c3dbb",
  CREATE_ROOM: "7c14716e940d8e82edf8de5172a9ddc4df68ebdb",
  DELETE_INVITE: "8e5c2266b6b4ccd54fd86b74327d8e4e787180d1",
  DELETE_IDLE_ROOM: "cb7d5211d0cb529f5e1ffa839ce6dfadda70ca45",
  DELETE_ROOM: "ab7d14d7ece263aaa5675ce2a6e1504656243136",
  LIST_INVITES: "39d8cbbfa421e3842b2299f58d6c97b0bc621139",
  BROADCAST: "693e6dc0c4dff852de2480f0c2874862e4405401",
  CLAIM_FILES: "0e242611f3348d02dde085376151c4ec8716a6fb",
  LEAVE_ROOM: "69c27e609651bef812de740d12f37f2f39e980ea",
  LIST_CLAIMS: "c26a3e75ccf8ce68dde222b4e00b784e18475879",
  RELEASE_FILES: "97c3d98c388d2b8d39b86b852aa1a6a525261ebe",
  ROOM_STATE: "18e1f503f1ac4862bca09f94356ebf9fb5087e7a",
  ANALYTICS_LOG: "0c3614b99ca0b33dc7217fff53de65300bd3e1a6",
  DECIDE_REVIEW: "dedf2fa434538709be2c44adcd489c05c425012e",
  LIST_REVIEWS: "bc3b63d93a152cf5bf5c71a3588da8c2ad883f0e",
  REQUEST_REVIEW: "dd86577110b8da1ba3ce951ee81a7461782f4511",
  SEARCH: "3e7a3d921270ec915d43bf69e3bbeec6fcda73b2",
  CREATE_WEBHOOK: "ae0cd6cbff1f61eedf719cdedb4329fc60dc2162",
  LIST_WEBHOOKS: "1595a9d797fb3f7bc3b11f1e66ead397650ce909",
  DELETE_WEBHOOK: "e44d407070236833b2657718ec2fbd3f641dd26e",
  WEBHOOK_DELIVERIES: "5566cad041bae70003aba1928395134ce3da46b3",
  LOG_TEST_DELIVERY: "0d7b85b0f03e703547d8738a1c6f12e1cb621604",
  BRIDGE: "10463b32b7d7b2a4e4e44abb8dc901364eff140c",
  DRIVER_ACT: "7acff86eaf49a3f7c9f3aaf84fc7a937f012944e",
  GET_DRIVER: "9864c205a397bdfd3fd33b6fccc80512441ad69a",
  RELEASE_DRIVER: "a81f9b096510f52eb1f8b6585f6cf3c9cb5072f1",
  ROOM_DETAILS: "643e0d5c8864568f2481675441496d72b492dcaa",
  TAKE_DRIVER: "888901152310b9a5f5eff46e4fc5e8bf09f91ea0",
  DECIDE_APPROVAL: "4e12be95e13a17182d55f32ecc8db23998a86e0d",
  GET_APPROVAL: "6ac26c30b80235754252f09288fd8dc4f33a16c0",
  LIST_APPROVALS: "ccb7e9e70907d5ad20205cb928214897feacac9f",
  LIST_VERDICTS: "2bb173d754aa1c54471371d4a28c2773e12aa6f3",
  RECORD_VERDICT: "df28c1e9aeb7c8bdbf9d9637d04212815268795f",
  REQUEST_APPROVAL: "1c00671a4338df7f5decf562c36b9d2175d192ac",
  ACCEPT_HANDOFF: "0c729318a69f723832727ffc3d405f74cdf6728e",
  CANCEL_HANDOFF: "8ee8fd8aba49f282d54ed5abba70b3462dbc6420",
  DECLINE_HANDOFF: "f1b2949e7de51453c19abb1658edd60fdd7c876f",
  LIST_HANDOFFS: "8a9c50fa0eeb49fe88e92d6f1ea61870deca9896",
  OFFER_HANDOFF: "99741223428b11c2eefd34522b8c9e10054a7bf2",
  FORK_SOURCE: "3aedb022b807d6f508db01ed5f5559ca61569eae",
  FORK_WRITE: "ce519e2bb2e10e99496d1ed8f0c752d157612959",
  EXPORT_LOG: "b743456886d053499caff807731024deeae736fb",
  EXPORT_ROOM: "c00b623785d073d88155ce63f23d5629316d9915",
  IMPORT_WRITE: "d6956679e114652ad7faad0a5f398447a14f5a9d",
  RESOLVE_INVITE: "f002a949389df057102f92f1243aa2804d2faaaa",
  ROOM_INFO: "e02431f06a3cb692113eb595d772a36a8ef4f0e3",
  ROOM_STATS: "f4bf97b6d373ef4c7562dec8e71cd02f92836bf4",
  ROOM_SUMMARY: "2cb5ee19fd13692aa13b14ca219b13b19b3dcb56",
  CLAIM_DELIVERIES: "bb97be31705f623fd8f91f475476bd1f13c87593",
  RECORD_DELIVERY: "6947225dc41ad8ea0dc579d75da4e91c91e6cd39",
  CONSUME_RATE: "ce186b46856aedd11ed142edbbc5ad44b0ec61a2",
  CREATE_KEY: "af36722261a3681dab590f38b7c3f337b04adf27",
  DELETE_KEY: "c4a9edcadef7a84eb290b983a5e60c7ad83f19e5",
  LIST_KEYS: "b175819510b117b1225cd4213f2c8760b5047061",
  PROVISION_TEAM: "46fabd85d82329830f4d78a3c6b41e36039dc7e8",
  RESERVE_ROOM: "a4cf4fb1441283d7b65e9f289bf25b7ac19e9ffb",
  RESOLVE_KEY: "8dc4f14b1e59059d7db42b11f27cf81a1582eadb",
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
  FEED_HEADS: "947dc5e6f852a9ca729c082ffdb1df50bf202385",
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
