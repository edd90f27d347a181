/**
 * Pins the SHA1 of every script: EVALSHA addresses scripts by it, so an edit must be deliberate. After changing
 * a script, update its line here (and nothing else needs to change: the SHA is computed at module load).
 */
import { expect, test } from "bun:test";
import { FEED_SCRIPTS, SCRIPTS } from "./scripts.ts";

const PINNED: Record<string, string> = {
  ADD_DEPENDENCY: "7d79b994c109fdc5b2cf4347c053bc1f2968ed01",
  ADD_TASK: "fe397fefb13fa356e32ab37472eb12d466e6e1a4",
  DELETE_TASK: "9aadffbab5575691a83a90a70b1ef48d77d1edab",
  GET_TASK: "6f07cbe43cd659d8a2090eb8b0656b1434bdb9b7",
  READ_PLAN: "8600ad8e1874c738719f8ff25d850d68b0e53994",
  SEED_ROOM: "98abed37f2cf546cfe68e527b772f7ba7986ae95",
  SUMMARY: "b0c843e02028f1d22af5e40c0d8d0390605020dc",
  UPDATE_TASK: "b40d6ad4e37696b717774cbd03d95b6e8e2d88f9",
  CLAIM_TASK: "ede9f2fcb97c7811b2e83a8117a8153c2f8b2aea",
  RENEW_LEASE: "b481114d58c2ec478b9a0b5dcd250fde5232abc0",
  CONTEXT_HISTORY: "8acb477f0f671ec1e66cd76aed80d1d99b83dc86",
  CONTEXT_VERSIONS: "f502adca67478fe488c0d7f40e3b59bd01f20b4a",
  DELETE_CONTEXT: "4922624c896f68cdb4f8d87ab4102680ad06b72f",
  LIST_CONTEXT: "7539e1db6c3e12fe57b9eeb48b437182bcec7907",
  READ_CONTEXT: "fdce642c66c77e788f9000f8747679916489ba92",
  UPDATE_CONTEXT: "88a24199679bff0e48008cfd211afa2a78d9026f",
  WRITE_CONTEXT: "df2dc763570cda8a448cda016662ad1448461ccb",
  CONSUME_EVENTS: "c7668f6e8c5a0578e6244080a6a201b1539569fa",
  DELETE_EVENT: "086bb3948c560153afa58108371fa45a8894bd90",
  GET_EVENT_READS: "1936273acdef5a8c9adb62fa5e70e1fe7f08393e",
  MARK_EVENT_READ: "94464de2b3813ca87006bdc23577fa893f74034c",
  POST_EVENT: "a51bb7d94c8bd3936b0cafe6df5cc1876e598cef",
  READ_EVENTS: "cb275a2920eb34f8377ae6a15e52efa70df57cd5",
  READ_LOG: "44202fb13c08c30316393a6a906b80fa314132ad",
  ACQUIRE_LOCK: "e322dcc69d94d8a0bcd79ee9644df82ade74a85e",
  GET_PRESENCE: "75d7e491da02bd6ff5fbdd86a966dfe4fbecdff8",
  GET_VAR: "5ce5562677c4bfdfaf18d31eef7fabe961d58303",
  HEARTBEAT: "f8eafc9b5cf4d5c4d6dee615156024fc44e65f2c",
  LIST_LOCKS: "ea248b9f31faf03c4ec0af9a2b3a1b6acba48c7c",
  LIST_VARS: "33cd8b88516e2b5c10c8317b5553aea5a629dcdc",
  RELEASE_LOCK: "c867c37caa9ddd769fb09098a1bf7e0d22d95fbc",
  SET_VAR: "6e5f240db19acf07682e1ca32998ea02632b7347",
  CREATE_INVITE: "5493c8037360b5e5fc91ad8266f4a17cbc7dfd6a",
  CREATE_ROOM: "9ee738751ab0b7fa0a2eca99ff94b887dad096d1",
  DELETE_INVITE: "5c7286d0c398346dc1225651270b04d674f1a3d5",
  DELETE_IDLE_ROOM: "efdd488245df4c5e18765292fd3338a305270d16",
  DELETE_ROOM: "cbd23a0b34b0a14d72312a00683620b29da7f108",
  LIST_INVITES: "512c4b5ff0d99385af51bb82734d2ae2bd374914",
  BROADCAST: "cd3bcf1afa537344b86cbe3172f151fd07a242ff",
  CLAIM_FILES: "e1919824314e6f43ba2a631f1e2169d7456d8fb5",
  LEAVE_ROOM: "6e19cb1c34d6bf42b989ffa8ea0d31a0a79d472e",
  LIST_CLAIMS: "02b8564f8343ad12b3df42a121d0117da8b05b66",
  RELEASE_FILES: "67de58fee4b7faa0359932b0173dc3dc2146584f",
  ROOM_STATE: "83e1da95f2d46f426c36f7d2ab66f24da1e3fe21",
  ANALYTICS_LOG: "14f3881de625997dcb4946e4f46fd47ffb93e8da",
  DECIDE_REVIEW: "79dbb0b1ad02fdf2b8d8277c9df4025c169d6594",
  LIST_REVIEWS: "4f12ebf32e78d71551a0a436d22991cfcf7bd57f",
  REQUEST_REVIEW: "313c09f8b5590780db5982f2e73b67fe47178814",
  SEARCH: "56e721c9255e304dc4ca8db59eba977e3949ce92",
  CREATE_WEBHOOK: "1b2d320a83485a76be9dc9054d2dd667e4e434d0",
  LIST_WEBHOOKS: "a31ce7da38c99d4b2ae049cfa1dc59e89161e59b",
  DELETE_WEBHOOK: "294d49c6eb26bfa4ba8468542c6e4dee7c7644ed",
  WEBHOOK_DELIVERIES: "b56a0e4c908036da4ec13292c4dd984cc66fed23",
  LOG_TEST_DELIVERY: "e1415d4f13319f72ffef179573c64b718add7f12",
  BRIDGE: "9791b32eeca89aa031a271e7ef55a25ae9ccccec",
  DRIVER_ACT: "f41bcd6cd5232c8d2268b16195473ccfc4b5df0d",
  GET_DRIVER: "59cbf9f45ea7f50739a8c71854ba8c98a1d5dbad",
  RELEASE_DRIVER: "7fba9114f4874f0a286d149186c717212b11e766",
  ROOM_DETAILS: "c14a88b210dab704b9252df9fdfee790e23454fc",
  TAKE_DRIVER: "dbaf1bf64a4ee0470ee54ccb6c1505308f5f883f",
  DECIDE_APPROVAL: "8232b6f1616d8061e82700344566cdd83617cb53",
  GET_APPROVAL: "d74549a34405445156a76a995291df3b893f3b67",
  LIST_APPROVALS: "6f4b0b06560e9f985ba3d2b20591af157f52fb5c",
  LIST_VERDICTS: "2ba60a2622f5942b901da188eaa0bbe82d1f7779",
  RECORD_VERDICT: "e65d862d1c792a868f82d57488e5f3fea359244e",
  REQUEST_APPROVAL: "6acddde12eb0796167a42e5ccfde0c961b451018",
  ACCEPT_HANDOFF: "2815c2bdb52029b5f84db7df8851a9b8dd440600",
  CANCEL_HANDOFF: "5a94e38e5068f9b638a719cea0c4e01ef0309b0a",
  DECLINE_HANDOFF: "e48b3b23c44e88ffd1953b4b90a7993a34206647",
  LIST_HANDOFFS: "f06abac85ded0a8722afbba0cff1f7c3f5ff8b4f",
  OFFER_HANDOFF: "da7f05a46c7063b07ed52637b29651663f5a5404",
  FORK_SOURCE: "06d0203d5675d171297965230e6bed42ff080eaa",
  FORK_WRITE: "1d56dec91478b2fee0ad725515dbb45414c6a5d6",
  EXPORT_LOG: "d1e6397ab92d5e43bc2477606952c1db130b6c4b",
  EXPORT_ROOM: "df9567fd6f93c2c8794dc4b2c371885d925a303d",
  IMPORT_WRITE: "47f4924e87c8e70436c4432c00a195228d4f23f7",
  RESOLVE_INVITE: "e61f7d8cdf4a9c6a41f1701ffe959e9be31f1687",
  ROOM_INFO: "bde1749dd126041d5101aa1adbf1b5d1b03f2eaa",
  ROOM_STATS: "2b88cbd63d60e1b3bd2893e5ffd39aa4311c8937",
  ROOM_SUMMARY: "fa8a7dd9e6e54e92b5387222ae10316d8ea5e31b",
  CLAIM_DELIVERIES: "bf1c88328c43c66c2706ccec81df3111d7c2bda4",
  RECORD_DELIVERY: "5c5fc68d7433295a21503ddae15b2d1666855234",
  CONSUME_RATE: "4f0cd396e3e71b3e3a5e4975610e6fbfd021a773",
  CREATE_KEY: "b2367613bdf22772e848802877af970c22454493",
  DELETE_KEY: "54e054c1eeb46622053c73ab714b1b4d8e9bfb0c",
  LIST_KEYS: "3ce55f17f6c67839cccc3ba188f0983d9deceb33",
  PROVISION_TEAM: "b7dc5aab7a347456fdfb1ad47b41330a1a5ebf15",
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
