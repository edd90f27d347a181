/**
 * Pins the SHA1 of every script: EVALSHA addresses scripts by it, so an edit must be deliberate. After changing
 * a script, update its line here (and nothing else needs to change: the SHA is computed at module load).
 */
import { expect, test } from "bun:test";
import { FEED_SCRIPTS, SCRIPTS } from "./scripts.ts";

const PINNED: Record<string, string> = {
  ADD_DEPENDENCY: "f7bc72ced80c6bcfb4bf8289358a1e3518696b40",
  ADD_TASK: "6afd5c75c3029d2aadb89709accc394b74e5493b",
  DELETE_TASK: "dab127004d0762686508046770edb22bf9335a08",
  GET_TASK: "363a6c4bb7856a36ed3bb46b542c7d4e49843a6b",
  READ_PLAN: "4d10670af8d06f80f2d678c9a6840271b6242412",
  SEED_ROOM: "6e24cd08ef0a3b0cd1087f7573c8fade5eaf5282",
  SUMMARY: "fa2d262bdc544648c6251322d03faa1c0b26081f",
  UPDATE_TASK: "108639dad9f804b332e874ab1c2432b5e722d528",
  CLAIM_TASK: "fbf1d118f3cd0648581a36dec4656e755f3398a1",
  RENEW_LEASE: "1462cc15c77b2dc72f205d42d665461cf94e7e2b",
  CONTEXT_HISTORY: "6610cc2b197ac35f561312ff43923668b7d919a1",
  CONTEXT_VERSIONS: "e99751824d3941dead71d231222326407c4272cc",
  DELETE_CONTEXT: "9ba7403296907a2afc5549e45685a6865def991f",
  LIST_CONTEXT: "7a823c5be58a4f4acbc016c1d0cf2b9d38abecc8",
  READ_CONTEXT: "7b7f9cbc3f0deb5cd7d7c016882f727d62aad438",
  UPDATE_CONTEXT: "fd128af665c2684e6d2a81e64c5844d5381ac012",
  WRITE_CONTEXT: "617473dfe58444bcbea1decefbf1579902fa40e6",
  CONSUME_EVENTS: "627ada44b9760cb9dabe688b1fe094b75c6b9808",
  DELETE_EVENT: "251759bcdc767ba9a08b53f9c7cc542168a0412e",
  GET_EVENT_READS: "9d6bcece12b6c454be89b7494b5a1798b087023d",
  MARK_EVENT_READ: "0dc398b132457dea8b2d75445baccf482f04467c",
  POST_EVENT: "e0dadf29119721b6216feaa72c264af94dbc82c1",
  READ_EVENTS: "d416ead2f0fbf92521fa1e77bb046ba8ae6ea57e",
  READ_LOG: "e224c49117bc3cb9fb1fd046e2f1a2ee4ab52888",
  ACQUIRE_LOCK: "36ee7f31a21f200432b73dc102b8f31a8999c730",
  GET_PRESENCE: "0f3828db166ad6fdcea4378867c7c2e8de9a5218",
  GET_VAR: "d23f80564ee9860a6f4e0bedd3c58fe7d91ee714",
  HEARTBEAT: "e27475694d8bcbade17949c54a2b863bff7a2385",
  LIST_LOCKS: "7d0d1e8b0953e58e83605ed8da4ee4e691700d9f",
  LIST_VARS: "94338eefaad7413df05c49a25f621d1db90c4523",
  RELEASE_LOCK: "8dff5e1cede9e0651227a9006525401db9bd6683",
  SET_VAR: "2fd4acd4870f80d353aaaae8cf57baba04bfdf2b",
  CREATE_INVITE: "1c764b258aea4fa165d1461b9c09838f560dd187",
  CREATE_ROOM: "924e91ebca54be412944a6fd6f247a2ff95368ce",
  DELETE_INVITE: "3d1bcc3c3d503c97894fb6205f6b586405811ca9",
  DELETE_ROOM: "4311357b8e162884f906b06905a7bc2f9eb689c1",
  LIST_INVITES: "cfdf2fe910c18a6101363ccc1588b7bd14c591b8",
  BROADCAST: "baa880cee520e1dd3a0d706c25cf87de15008b03",
  CLAIM_FILES: "cecf5ef4b0e48531ea44fc38bc7979b0e1bf5612",
  LEAVE_ROOM: "ec93fadaaddf9f2f907be2d26171adbed41fd827",
  LIST_CLAIMS: "7d0c7c62935d1272e940f856d98d1cadc0aaadbc",
  RELEASE_FILES: "fab14aabec1fb4fb45486507d8611202d725646c",
  ROOM_STATE: "1626e693b1b3e1ddaa2a2cf4ecf27be4b655866d",
  ANALYTICS_LOG: "e16c19d5dca1da0753f78b4e17ee2f61da19e3e9",
  DECIDE_REVIEW: "d10f6980f9ee9dc55fdbbcf81521a2103f5dda07",
  LIST_REVIEWS: "e607428f5e33402cca9444c1c48bf417c174ee41",
  REQUEST_REVIEW: "d62ddf3b18de9ea36f97e7d07e4c654bfb7acfbe",
  SEARCH: "19ddc7676dd62d41da0955bcab70671268bbdf91",
  CREATE_WEBHOOK: "6ebe2768cea7809e3bda7c39f23326236160432a",
  LIST_WEBHOOKS: "fcf300d6483e1a0e2363fe8af27eb2c37e6b19f7",
  DELETE_WEBHOOK: "0daf355e89d8552c0241ac4d1ec8024d2152e478",
  WEBHOOK_DELIVERIES: "01d7624d4172a1481eaf2715e88dd84132199166",
  LOG_TEST_DELIVERY: "214bf5e183f11a7c63b6df9a5e5fce43e11d108b",
  BRIDGE: "29ff99d0da7320b4b087704929bcd75754824d90",
  DRIVER_ACT: "a71472d1c34c0b3afbf9f3c559b0f6e412828100",
  GET_DRIVER: "47d8e2ff6f3acb6a80ab654d04caf87b58716e55",
  RELEASE_DRIVER: "a4ba3d222d53134c1cdde0243f54b109719e328d",
  ROOM_DETAILS: "6de1f469aa8179fd6ab5fd53cca11f176a755ffa",
  TAKE_DRIVER: "7df38dc91968991d656447c34b681abbf3c297da",
  DECIDE_APPROVAL: "cb181b57b4a3cc13348af8e70dba64c181f23ddc",
  GET_APPROVAL: "c1ddb57c231b497c90abf25c5dc3bed3aea62c77",
  LIST_APPROVALS: "f77c0591b5450e60a6bcaf8adefbba6358581fd1",
  LIST_VERDICTS: "b25edb0b258960a64ff48cf4558e0e0cfd78dcd8",
  RECORD_VERDICT: "207f7a24fc599da2cdb8c7b27b1d3ee69dc2ea1f",
  REQUEST_APPROVAL: "85325058d23392159c106554cfbf94e9ec26ab69",
  ACCEPT_HANDOFF: "4cf0c8f354917c99976b7a7e6e7a2493de00579e",
  CANCEL_HANDOFF: "cf3b9bc470023fde5ef2840aa5ab154dcb415a59",
  DECLINE_HANDOFF: "22e357dd229792f5f3fb913eb2f6bfde0ace6aaa",
  LIST_HANDOFFS: "fc399ce3220566972b928152a47899b8072e2e0e",
  OFFER_HANDOFF: "028e8aa23b01fe83992f9fe14d1871c28202e1d0",
  FORK_SOURCE: "554135ca17f62564f07c54e1d2973142f2f4ff99",
  FORK_WRITE: "af848e037d3c79e10d9f062334b84069b50b3dac",
  EXPORT_LOG: "08d6edeabafa5d196c47df2900618ebb67ab9588",
  EXPORT_ROOM: "34c79d884c9350f527a39481874279db0950f2fa",
  IMPORT_WRITE: "67f9994ce948600a68e39416442eaff01a33514d",
  RESOLVE_INVITE: "6d518a4ef302f0e8bc3cda977ddaf321caa8b10a",
  ROOM_INFO: "63f16da6d97ff3d0cde7db8fb86e7092de642ae0",
  ROOM_STATS: "6e12dd3939b08ec985505e0caf54366b815f893b",
  ROOM_SUMMARY: "5ca211217c20a47733b19d54655dde37c95c318e",
  CLAIM_DELIVERIES: "25a05100fed69624bb1c487d47404ae30cc33e58",
  RECORD_DELIVERY: "602d5112e82a8437f35636c2db92b3db0db0ee30",
  CONSUME_RATE: "cb5ffea5e71a89d3c8ca54417b82f70098242e96",
  CREATE_KEY: "f19f2c82215b9f6f199f81de787560ff669e474b",
  DELETE_KEY: "8c3006d83f831bafa623ffb60dd6ccc44e852bb8",
  LIST_KEYS: "f52d00014dfff7b5ece3d30cfee8748b85335d89",
  PROVISION_TEAM: "6ca3e1bb891ff8e0243610b664b75c4574212c23",
  RESERVE_ROOM: "14814f9166e49e56c69f08983431a10ecf291a3e",
  RESOLVE_KEY: "f7ca2db8d05a74a8ccd53dbdf09e76c4c614b3a1",
  ROOM_INDEX: "996de300eb0c99a68a37b7db97f0738e042fbe09",
  UNINDEX_ROOMS: "6e3994b475da206bcff153c0dffeed3ce3c07124",
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
