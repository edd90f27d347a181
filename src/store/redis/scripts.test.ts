/**
 * Pins the SHA1 of every script: EVALSHA addresses scripts by it, so an edit must be deliberate. After changing
 * a script, update its line here (and nothing else needs to change: the SHA is computed at module load).
 */
import { expect, test } from "bun:test";
import { FEED_SCRIPTS, SCRIPTS } from "./scripts.ts";

const PINNED: Record<string, string> = {
  ADD_DEPENDENCY: "b93c52b6d722e48482a6430f2b6259877398b60a",
  ADD_TASK: "c1b4a23cb032d81fd58b98aa6c9b8c31a46195e3",
  DELETE_TASK: "232cd426a69c45de95d5e5d86e4b567e44ac1208",
  GET_TASK: "77009b140bca13591673e01e5fe6586706ef2fa3",
  READ_PLAN: "f79798c6c867c69a1727869f4bf0dd21bd466281",
  SEED_ROOM: "bed244592e16eec9ad39858e9c6b60f55c85cff0",
  SUMMARY: "aca995b654261b2c32ad3598b4b87bd461596f3e",
  UPDATE_TASK: "fe885a5df874bc6f5dc4dc6701e58a09b5c4b841",
  CLAIM_TASK: "b51a406f14481e8e169e4c5237835bc3d2f3821a",
  RENEW_LEASE: "f4d2920d17c87f2898412b1179a50c3bce2e1297",
  CONTEXT_HISTORY: "432316e0314e3e87b093f89b785d031a66be1848",
  CONTEXT_VERSIONS: "71fb39567407c5158bf54ce0fbcb7197f6dbf1c7",
  DELETE_CONTEXT: "4f95d6cfd6a0f39595887bfb595c44676dec6f8d",
  LIST_CONTEXT: "f84524a3c9b26c09d10f6377ab7a25fd31a9d9ee",
  READ_CONTEXT: "f42a752470372d2cf473cdc8446703b170ca77a5",
  UPDATE_CONTEXT: "91ca74bb1d1d5bf0293ca7c8e6677da32512bfbe",
  WRITE_CONTEXT: "58d3068339aa6d1eb1db01ccd49556b809d12b75",
  CONSUME_EVENTS: "b60bf1926a440f17ca19088681003b6720bc5406",
  DELETE_EVENT: "5aac3a138d5130898fab3e04c405d053fdafceb5",
  GET_EVENT_READS: "15c791659458d310a8f43ac6ce4ab4756e018b67",
  MARK_EVENT_READ: "04434fbe2e0886a9f57b029b9a69c8f9b33d6a79",
  POST_EVENT: "055c98cebdc7afd5e8ccafa7cc42001399db0603",
  READ_EVENTS: "4addd75d8b14bc9c0825203f4296096ae4d92a38",
  READ_LOG: "53492749129ae45b877815296b55045fdd915630",
  ACQUIRE_LOCK: "8bc2fd5ce96de7847b556a833b45ce13fa71902f",
  GET_PRESENCE: "b6bbd1ea9f81e74154e3fee8754409c309ff577c",
  GET_VAR: "2e3e5840d08db256aaebbc8e56fe71b8a4992085",
  HEARTBEAT: "cd474d2879c46c761e3c7c42ce6c7fd0d63567ec",
  LIST_LOCKS: "1f548187068dcbb71a7c1d21ff724649687cb392",
  LIST_VARS: "152814781ec4143bd65db1d353dfe13cccc4ec16",
  RELEASE_LOCK: "56827513437e0d91dd61897d200f4c5927c67aae",
  SET_VAR: "865edfb29d727a7ce40e2564c1626440be836438",
  CREATE_INVITE: "2ea6fc22e8488f1dc65d40fcf43d5c8dd3b9f8cc",
  CREATE_ROOM: "b0acf6e3f439bd69f913c8292074b913983ca706",
  DELETE_INVITE: "5aab11097e231ca9187257a7089c42c92897e882",
  DELETE_ROOM: "4206ee4c73499b442ba18f364743532798337b21",
  LIST_INVITES: "033fdcade439865b84701e842e387c5245692923",
  BROADCAST: "16573e0b06dc0301c071d4ba6d310b4bf361f5ea",
  CLAIM_FILES: "c77732ddaf87d415d60b5e6e5af695fc7baff4d8",
  LEAVE_ROOM: "dfe3d7ce2310c0ac0f5ee6d30bc2ac39b87acfab",
  LIST_CLAIMS: "07017992fec3a6116f576f1e4d3ffd44a8006bb6",
  RELEASE_FILES: "e0c307336781d066406a13c1e4ea1575c95218c2",
  ROOM_STATE: "4a0c2b34edcc00ab87da9edc0c25eb32a88c1f99",
  ANALYTICS_LOG: "4d7fea142c322b71600b0501a5ceb05938a73136",
  DECIDE_REVIEW: "cc037c9b9df69d0e153b5c7411a00aab6ac729d5",
  LIST_REVIEWS: "2948512131c62d61a9e5c33eb0bf485341c8dcfd",
  REQUEST_REVIEW: "c8cb8ce2dcb2899c87d5140a2741088b232f6728",
  SEARCH: "4e85ba8cb408ac777823f69cd1307168a90baf87",
  CREATE_WEBHOOK: "3829d4227a5513c24939876b9d2696bbd6c5b7ea",
  LIST_WEBHOOKS: "123ef785d773a67b3578991f0a45183a6e0b274e",
  DELETE_WEBHOOK: "e6fce338792994555c2998c3ed2516fb2f619be5",
  WEBHOOK_DELIVERIES: "7cdb6637a1d28359036dbae735edee892e4b18bc",
  LOG_TEST_DELIVERY: "e943adb5f6e125a94c52492013d5c9f75caddfdc",
  BRIDGE: "b7b5f314a09a462ab483bb122f7d4e3f65b60d42",
  DRIVER_ACT: "f146bb25f5b04680c123d2720f403b8311538c86",
  GET_DRIVER: "7ecb42ac6f7dec5d1a4d1fbda1a028c4206a23f2",
  RELEASE_DRIVER: "1ab7816045c65c22122e4a98f1c846176e82db8f",
  ROOM_DETAILS: "b5890204e540c6be78db3c186277ecebeb39d8e0",
  TAKE_DRIVER: "e6ad2b363cefea03c8bac3c7e8cc35b8a6b6d743",
  DECIDE_APPROVAL: "05b2de9485a1f073038347897117e98b6ccb4e43",
  GET_APPROVAL: "3eeb5979792f10ebe606a3657a00834b2c0024ed",
  LIST_APPROVALS: "1572ef7ea76767b3d336e4bf767a95b9ac5285d5",
  LIST_VERDICTS: "c27c8f235530434da256fb7377e09d9f7d8287b3",
  RECORD_VERDICT: "2ae4b12938a61b8cb1c1f1a4571331003c883fb6",
  REQUEST_APPROVAL: "94c94b72bbdacf29729290626858a756ed3cf227",
  ACCEPT_HANDOFF: "9ad34abf92405556f0c62b1cc89f81ca9bb5717e",
  CANCEL_HANDOFF: "82db9d90479dad839cb35f14bebee7b596c7ec74",
  DECLINE_HANDOFF: "b5caa553af7dd50a9f51f47c8c173ea4b3b45650",
  LIST_HANDOFFS: "85bd32eeb395eabe7d8b53db16ce6e61c69e61fd",
  OFFER_HANDOFF: "59fd1f53ec8bc443c00d9c07ab01d122e8549f56",
  FORK_SOURCE: "d1cb161a1ae7f683c9d4d1b1019d32b1961aaa0b",
  FORK_WRITE: "d92c34af38f98b89d1232212cd00a0053c73edf9",
  EXPORT_LOG: "5eb6d4ecbbc995f374acfbe450696a46b41bc711",
  EXPORT_ROOM: "2872b4c19e3d187e0f73f408aec3d2c8b98ed52f",
  IMPORT_WRITE: "539605ffe567373c7ba15f00fc43f5829ba34924",
  RESOLVE_INVITE: "a3d94a5aabc77c6a9f511822c4c5fc64f9a934c0",
  ROOM_INFO: "c4bc6d314e8e13493ec38e6f63f23a95094c9181",
  ROOM_STATS: "328d181bef1cd58dc939d752c59205a834c9663f",
  ROOM_SUMMARY: "ee380ef4e2a7b332dca4035e477df8f35ab4e836",
  CLAIM_DELIVERIES: "880b1002e733f7c956e119fc31ed3bab309a0b64",
  RECORD_DELIVERY: "4e630e6a90259d5eaaa06eb86852e3d3c7c6b681",
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
