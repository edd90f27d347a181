/**
 * Pins the SHA1 of every script: EVALSHA addresses scripts by it, so an edit must be deliberate. After changing
 * a script, update its line here (and nothing else needs to change: the SHA is computed at module load).
 */
import { expect, test } from "bun:test";
import { FEED_SCRIPTS, SCRIPTS } from "./scripts.ts";

const PINNED: Record<string, string> = {
  ADD_DEPENDENCY: "52b1cd846ff8192fc8cef34dacf757bcd1a4b3be",
  ADD_TASK: "4a64a2bcba1bce5fb1057e064ee47a35c52628d3",
  DELETE_TASK: "d8e83b4c7a4fbb8e079a9b50c38130c3ba92781e",
  GET_TASK: "77009b140bca13591673e01e5fe6586706ef2fa3",
  READ_PLAN: "f79798c6c867c69a1727869f4bf0dd21bd466281",
  SEED_ROOM: "e8446aeb6a4a461d10cc663f7c3ec1fab3d5152d",
  SUMMARY: "15d019f9b9afbfeeee7ce4b64caa4b1d87005afb",
  UPDATE_TASK: "816d240d5add6d96bbf8caf51dab57904442de44",
  CLAIM_TASK: "75d997f8ea56fcd74cd9ef942a8054ffc1cdafab",
  RENEW_LEASE: "a941d13118c1c88d5fe3494a434bda3128f5c441",
  CONTEXT_HISTORY: "432316e0314e3e87b093f89b785d031a66be1848",
  CONTEXT_VERSIONS: "71fb39567407c5158bf54ce0fbcb7197f6dbf1c7",
  DELETE_CONTEXT: "62c10786d701ea2d86b55d80f61cf2407001a2b9",
  LIST_CONTEXT: "f84524a3c9b26c09d10f6377ab7a25fd31a9d9ee",
  READ_CONTEXT: "f42a752470372d2cf473cdc8446703b170ca77a5",
  UPDATE_CONTEXT: "81d76e40b80520d561c5fa0594b571048381194b",
  WRITE_CONTEXT: "c6e253721ae1053e45b8c1249cb5ec51e6265950",
  CONSUME_EVENTS: "75b1f74fca91922b4762c39b36ea827aa2f40363",
  DELETE_EVENT: "e799f52b8deaf3a670f4d92ddf022e6d9e30fee5",
  GET_EVENT_READS: "15c791659458d310a8f43ac6ce4ab4756e018b67",
  MARK_EVENT_READ: "04434fbe2e0886a9f57b029b9a69c8f9b33d6a79",
  POST_EVENT: "ec416e55a2109749eb3783784e4983835306b94c",
  READ_EVENTS: "adaecaca1afb2433007a4edfb0a2eec05b2f0e77",
  READ_LOG: "22879158d0653c448dd8d9fa10535c66223b674b",
  ACQUIRE_LOCK: "8bc2fd5ce96de7847b556a833b45ce13fa71902f",
  GET_PRESENCE: "b6bbd1ea9f81e74154e3fee8754409c309ff577c",
  GET_VAR: "2e3e5840d08db256aaebbc8e56fe71b8a4992085",
  HEARTBEAT: "cd474d2879c46c761e3c7c42ce6c7fd0d63567ec",
  LIST_LOCKS: "1f548187068dcbb71a7c1d21ff724649687cb392",
  LIST_VARS: "152814781ec4143bd65db1d353dfe13cccc4ec16",
  RELEASE_LOCK: "56827513437e0d91dd61897d200f4c5927c67aae",
  SET_VAR: "a5ffea5a3ad00d99408a1301246f17b6450595eb",
  CREATE_INVITE: "2ea6fc22e8488f1dc65d40fcf43d5c8dd3b9f8cc",
  CREATE_ROOM: "b0acf6e3f439bd69f913c8292074b913983ca706",
  DELETE_INVITE: "5aab11097e231ca9187257a7089c42c92897e882",
  DELETE_ROOM: "ae95b0adbeb4abd85f76dd3e723eadc718727259",
  LIST_INVITES: "033fdcade439865b84701e842e387c5245692923",
  BROADCAST: "edd056e8343dc25521fb65ee0bbd821615259b83",
  CLAIM_FILES: "e2667d64329d951efec28cc02b99416c5d2d4c08",
  LEAVE_ROOM: "f39c9651a65c1bf8ac77fb7e987d80488c7af18b",
  LIST_CLAIMS: "07017992fec3a6116f576f1e4d3ffd44a8006bb6",
  RELEASE_FILES: "1994cb128e9d7a801b8b12b86cf7189c30990e28",
  ROOM_STATE: "4a0c2b34edcc00ab87da9edc0c25eb32a88c1f99",
  ANALYTICS_LOG: "7a8ab3e73999fd8278e2b003246fd54cda2f4181",
  DECIDE_REVIEW: "e14731d72573fbd1c2b7d4ff1b9acd7595e4fca2",
  LIST_REVIEWS: "2948512131c62d61a9e5c33eb0bf485341c8dcfd",
  REQUEST_REVIEW: "7ac918be926676830419cb148ecd60516ccc1862",
  SEARCH: "4e85ba8cb408ac777823f69cd1307168a90baf87",
  CREATE_WEBHOOK: "3829d4227a5513c24939876b9d2696bbd6c5b7ea",
  LIST_WEBHOOKS: "123ef785d773a67b3578991f0a45183a6e0b274e",
  DELETE_WEBHOOK: "e6fce338792994555c2998c3ed2516fb2f619be5",
  WEBHOOK_DELIVERIES: "7cdb6637a1d28359036dbae735edee892e4b18bc",
  LOG_TEST_DELIVERY: "e943adb5f6e125a94c52492013d5c9f75caddfdc",
  BRIDGE: "cd38c3a659ef743e2b271434e4872c28b78a15e3",
  DRIVER_ACT: "270c7c5d0ceb1553120d6488b7a8be027853692f",
  GET_DRIVER: "7ecb42ac6f7dec5d1a4d1fbda1a028c4206a23f2",
  RELEASE_DRIVER: "039d0e7031d9ae286555f471efb5071f109d1487",
  ROOM_DETAILS: "b5890204e540c6be78db3c186277ecebeb39d8e0",
  TAKE_DRIVER: "2674c333d9d4f59bf9f66fe7ebff0abce13cc52b",
  DECIDE_APPROVAL: "0a0289349e0fc748e284b00fa113f4681cc1a267",
  GET_APPROVAL: "3eeb5979792f10ebe606a3657a00834b2c0024ed",
  LIST_APPROVALS: "1572ef7ea76767b3d336e4bf767a95b9ac5285d5",
  LIST_VERDICTS: "c27c8f235530434da256fb7377e09d9f7d8287b3",
  RECORD_VERDICT: "9b9f0f3fc3c0065d3fd317c4d915a491b6dc6f74",
  REQUEST_APPROVAL: "c963f34792fd5420a926a48565e7cabaac6503db",
  ACCEPT_HANDOFF: "8dc44773a7a8066ae3ee81f250e94676c4229a06",
  CANCEL_HANDOFF: "8f05008e68d23a1f1cc89f73fae65373953e37a5",
  DECLINE_HANDOFF: "d324c0444677b5c92662c2756ca8609e90c9af77",
  LIST_HANDOFFS: "85bd32eeb395eabe7d8b53db16ce6e61c69e61fd",
  OFFER_HANDOFF: "9955efa41fe5b846e33ba2b0c8ded16eeeb614c6",
  FORK_SOURCE: "df6caabcb1989bea73b5c22018a208a9c180750f",
  FORK_WRITE: "0ddd280ff9b3e17938d2e6c85f85f6e787994d1f",
  EXPORT_LOG: "187d15807ebdb3b8608792c25eb3fb500b0d225f",
  EXPORT_ROOM: "2872b4c19e3d187e0f73f408aec3d2c8b98ed52f",
  IMPORT_WRITE: "539605ffe567373c7ba15f00fc43f5829ba34924",
  RESOLVE_INVITE: "a3d94a5aabc77c6a9f511822c4c5fc64f9a934c0",
  ROOM_INFO: "c4bc6d314e8e13493ec38e6f63f23a95094c9181",
  ROOM_STATS: "328d181bef1cd58dc939d752c59205a834c9663f",
  ROOM_SUMMARY: "d54f40b9b8f0c73127f07b8961b6b4b2949dbb50",
  CLAIM_DELIVERIES: "880b1002e733f7c956e119fc31ed3bab309a0b64",
  RECORD_DELIVERY: "3efa09653730f665fb468f6964aec3838465c6d2",
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
