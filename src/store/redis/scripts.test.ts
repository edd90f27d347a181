/**
 * Pins the SHA1 of every script: EVALSHA addresses scripts by it, so an edit must be deliberate. After changing
 * a script, update its line here (and nothing else needs to change: the SHA is computed at module load).
 */
import { expect, test } from "bun:test";
import { FEED_SCRIPTS, SCRIPTS } from "./scripts.ts";

const PINNED: Record<string, string> = {
  ADD_DEPENDENCY: "8dce9387c524f0cca995b9b7e9b93d64b676ad25",
  ADD_TASK: "d39a2269e27394308dde0561e3eb2f6ca1c60cc0",
  DELETE_TASK: "be505c65d4877efd9d2fb1bc16f2f93b14346cbf",
  GET_TASK: "c31f9d88698b75f525598909c5cc137a60cd8204",
  READ_PLAN: "3d295df36d42c310435c49b32a5df94cd54fb13a",
  SEED_ROOM: "01102d62b688f42a68498ebbe8e5762859b9dde5",
  SUMMARY: "eb3ad9b2cb92e70a58a3878d73b1767498abd002",
  UPDATE_TASK: "64210057d58204980b5e4eca0ef971a773eca016",
  CLAIM_TASK: "da4d036d756cec4dfb8c88620b5a6df4b0a56e15",
  RENEW_LEASE: "d685a9c1503ed2360a045f8cd20c5aab0c18fefa",
  CONTEXT_HISTORY: "c4c11e6e1cf5c632b8b7983e20d991d95e830e10",
  CONTEXT_VERSIONS: "ce8199b0053393685baad569b2bdfca41ff20b50",
  DELETE_CONTEXT: "eb7751dd9888ad110a55c65af2fcaf2bcf4eff15",
  LIST_CONTEXT: "1ef8e13937731a9d26b7d3c1d6ace8e6a51fe420",
  READ_CONTEXT: "b88819bfdfa490a2fe28d72b74873cf927fde85c",
  UPDATE_CONTEXT: "2148cd9be392d2b24661a2eb1b76984537658025",
  WRITE_CONTEXT: "5d121812fa5cb2468bb036ffa10af05f02b37f5c",
  CONSUME_EVENTS: "90c485a155a7cc6e8b6cbe4229e1860c7c96f6b4",
  DELETE_EVENT: "44eecbfdcab2e3883c84c9004a64f11291af5b24",
  GET_EVENT_READS: "b167b1a16ef803b3c9877623a596ba33929becb2",
  MARK_EVENT_READ: "5ec7ccd3f07476717ab89b3f492e2d92187ab977",
  POST_EVENT: "e7df8dd3a9e218066db8883e6f06bce589c1e003",
  READ_EVENTS: "6fb92f9dccd6ec1c3be74c7999b9620b2268e97d",
  READ_LOG: "b01776b57cf34b30139f647c18f15111a8e2e7f4",
  ACQUIRE_LOCK: "bcea0b0815a4f24d3672a6626fa9c741ae57e8d1",
  GET_PRESENCE: "12d42ca83bae1a92cd005990681ee3c492268958",
  GET_VAR: "c12e6809f2c35ff9851e5343104faec4d8a78956",
  HEARTBEAT: "1a29bacf46125a617496384a3b7e43f39a811ec4",
  LIST_LOCKS: "c5cc5bb340006434b709c2e10c28fda3460ada20",
  LIST_VARS: "47635c7746a0f9f22ca68e111ad27285b2a53a0b",
  RELEASE_LOCK: "922b599625cd56c848d536e2f96a4298b62f17ec",
  SET_VAR: "7bc9d2680428e5356fc395319b015d5b7500c46b",
  CREATE_INVITE: "8db0a846ee2f7979ab659fe7daf373db6e1d4369",
  CREATE_ROOM: "8ef05f4e6afe3f4817d54ae3bd6f2f1c4650f0b4",
  DELETE_INVITE: "7dc402c756644d3e7cbc97e4826fa698c8b59948",
  DELETE_ROOM: "f7fe77dd899c4b7690cae5ce99f299552166ed24",
  LIST_INVITES: "f3fbc38798582f29ae2bc6c0009eed95bf2710eb",
  BROADCAST: "790691c3af432f927ff93954c5a6a553ae4e6efd",
  CLAIM_FILES: "705df516fed6050fcc7a2760ddcc84c68065e660",
  LEAVE_ROOM: "3d1a8c6785acd55a361ea7495418865ebe7cff81",
  LIST_CLAIMS: "51a71ca5aba502155f23110268c40a1a12014917",
  RELEASE_FILES: "4adc8b78b192076dd5eb863117fa27a30d0ce6dc",
  ROOM_STATE: "c2f0666a65e48f5cd6415b0ea3ecbcdd283ba61c",
  ANALYTICS_LOG: "3d19cf1f10b8bdbad9e210fed654e47ddf5a436e",
  DECIDE_REVIEW: "6451f98b633443a44fa8c2ade7b16244dd6e9b93",
  LIST_REVIEWS: "d17899db1675dc271b8d3c73bbb98c5806f96659",
  REQUEST_REVIEW: "798d0bc64f8514fb187b41c2382b61b36610c308",
  SEARCH: "b14b51d1aacdec8d35326a362652f474abd79daf",
  CREATE_WEBHOOK: "fe8a1d1d4a17c5d11021ead5787c0c3d5373572c",
  LIST_WEBHOOKS: "9c36a2471764095c39c190943aeac7516ba2d3fb",
  DELETE_WEBHOOK: "fe6b7d7d6832cab56792472ba35422e8362d18bf",
  WEBHOOK_DELIVERIES: "cb51b6b07774ef4d4a45d95a7b2ca420a30cf371",
  LOG_TEST_DELIVERY: "a98849ec7919999d2e03275bfad935c756ec7029",
  BRIDGE: "fc49e07c20f3dcd16ee2b4ba62094e251e176b09",
  DRIVER_ACT: "7200e6e53258d95fbfc6c778874b58b197676f58",
  GET_DRIVER: "4a8eb2747017de7d7fadd4d8415d93a043b76d54",
  RELEASE_DRIVER: "ff8d6fb37fab6091b0215a925b53cc2df4fa5c6d",
  ROOM_DETAILS: "44c656b9c46643aebee2f17c1d8d00d5e3672a69",
  TAKE_DRIVER: "7b305225d6b5430faae37c07305dfea2c8098f99",
  DECIDE_APPROVAL: "d442b59d2c74596dc0f711d355044d324b16670a",
  GET_APPROVAL: "25dd6d19c5788ae20ff235c48c90686ce2e86016",
  LIST_APPROVALS: "8c7d551c1a83d59542c04decbb94d86bfc5b18a4",
  LIST_VERDICTS: "a7d9f2174a689689afd04b2b3821ff679ba43ee8",
  RECORD_VERDICT: "070ba99d2e5a8c1e53ed08ca1141c13e5c582fca",
  REQUEST_APPROVAL: "6d6c928a692eec973e6e4de0c505e526f2fd5926",
  ACCEPT_HANDOFF: "be6d290b72a31f7042de471856df4ab7f3a8b61d",
  CANCEL_HANDOFF: "c383d4875e4d3ec568d5c8cf388f1bd68c02afd8",
  DECLINE_HANDOFF: "7d490dcaa6737e20aa44ce8eeb0a022610af7a94",
  LIST_HANDOFFS: "7cbe56da64199b625c3b421ab7965428b7589803",
  OFFER_HANDOFF: "214bec851fe105564d98173ce328c873bc32c476",
  FORK_SOURCE: "b6cbf420f173347ff4123c14f3920f65d534cd50",
  FORK_WRITE: "a097bf8ce850e2d1c2f1748ceb78a6fd9e6ee0e2",
  EXPORT_LOG: "b66ebc7111d0e811ef77fe8aa367762a2aebed40",
  EXPORT_ROOM: "1b1473417675551806b344f049acaeb903ab00ba",
  IMPORT_WRITE: "a51630f926ff9a67914dc7f4ba1e18938ab182b3",
  RESOLVE_INVITE: "27f9bfa4fd9c7711fc910a4fe87e2671327bf867",
  ROOM_INFO: "d832da2f18be67a9dcdf73d047934199bfbaf713",
  ROOM_STATS: "545d0657fc4784a45e9ac07bdab729de6109caf8",
  ROOM_SUMMARY: "e1a5864eec2d3b90e4e5866f86b78e39ad16af74",
  CLAIM_DELIVERIES: "e78b76dd376b75ca18ecd363a76f2fb549aeaa53",
  RECORD_DELIVERY: "11d44d4b6b971772d04f3ef795aa6bc9514c6016",
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
