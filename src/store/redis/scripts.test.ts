/**
 * Pins the SHA1 of every script: EVALSHA addresses scripts by it, so an edit must be deliberate. After changing
 * a script, update its line here (and nothing else needs to change: the SHA is computed at module load).
 */
import { expect, test } from "bun:test";
import { FEED_SCRIPTS, SCRIPTS } from "./scripts.ts";

const PINNED: Record<string, string> = {
  ADD_DEPENDENCY: "962bccb9402cc979d5894f9a2e9123ae8b7d63a9",
  ADD_TASK: "509646e4aa1827e4defd2efb3b9a10454f0ef4df",
  DELETE_TASK: "b4f7ab1ea36b0176cd228ad1a4e95f17c4e312b8",
  GET_TASK: "9355fa95ec40691b4c2dc43b01833fc3e21082bf",
  READ_PLAN: "0f80144703f993f110e8fb582cf7a11ad2e6aaed",
  SEED_ROOM: "dde657e9560c0836501954b6faad7204c23ce902",
  SUMMARY: "fe246f3d8e662d324096d954ea6390c4d8fd2eb8",
  UPDATE_TASK: "6f7dc3e5ebccb4609142ab118805ebcc2508f203",
  CLAIM_TASK: "c14d379d2e8655cf8e5427f7036064e4728e8894",
  RENEW_LEASE: "b4bdc767b5d876a8bbb9b656c503117573e0535d",
  CONTEXT_HISTORY: "a640fc77897570cb63f8724545c82cad31d69ac4",
  CONTEXT_VERSIONS: "39ffd0f35fecd3c68dd33bb516d030d303f25061",
  DELETE_CONTEXT: "49466cda61638e87d9bae190a07fe068e6fd7d44",
  LIST_CONTEXT: "a540e587b588739265241ac416038f4e43b4d017",
  READ_CONTEXT: "baa3b48c367e7b5dad0680545ed10ea55bdeca12",
  UPDATE_CONTEXT: "ed24f794aa55445cdf22a709ed27c9a831e3104c",
  WRITE_CONTEXT: "67f09bb3080ec87ec8864a8515f3f1227c824cc6",
  CONSUME_EVENTS: "dd56c12706626deefbd4ce12cf4fe13abbe41a75",
  DELETE_EVENT: "6b08e0660ba6c8fcb2bb39d93656132f274ce696",
  GET_EVENT_READS: "36c7f4f604e59ddd1c53a5b72ae157f10b34e40d",
  MARK_EVENT_READ: "086bc0808453baa28461f9efa00112176be157f2",
  POST_EVENT: "58b93dfc0d93b931093a5f588916a670cc64bf4d",
  READ_EVENTS: "3097998937cb18b27bbbfbc7b84b79c8e193d642",
  READ_LOG: "1293e2cda85dd88e6f0148756f7dd0b616021741",
  ACQUIRE_LOCK: "1a7f3f3b188257d2b85c6d77a0328c37d0d3a378",
  GET_PRESENCE: "2d44f0ef1f04c7a824ff5c3ba86543411815da28",
  GET_VAR: "d0e776a14935b172e3c522280eb89a4d9348a71f",
  READ_VALUES: "1f13fde3d3ba013928d35becd19f7cb1690bbf8f",
  WRITE_VALUE: "6e1a42b65a16f07311aa94def8c2a970b9f566b3",
  HEARTBEAT: "a3ddbb2195b00ce83617c89c60a60e2eb4d4355d",
  LIST_LOCKS: "881bef3b10b44963faa47a9b0132c003069a1b0d",
  LIST_VARS: "b394b4b139b1e0586f98e9ef5f03c88e5eb9691c",
  RELEASE_LOCK: "bbec67d16f9e0ee3b1edd56501745f7dcca56bb3",
  SET_VAR: "0759f2caf6a3817344816f9739c4f371fee58b38",
  CREATE_INVITE: "d634fa56c11e4f40a48e179c7c6a7e5f0e7f72f6",
  CREATE_ROOM: "a2a38a78674514bb92f654e455c7fedd140f8eaf",
  DELETE_INVITE: "241c2ae3003048e3ac1ac3d1b893af52466f6df3",
  DELETE_IDLE_ROOM: "b277ae545c739f3816dac978a1e24fbf7bbfec14",
  DELETE_ROOM: "33493237fa6cf746e08bfbde345058085ccfd41e",
  LIST_INVITES: "72391af0e0f5d30f028152581cb63a542b68e4bf",
  BROADCAST: "0449a729c3268386b100ef7a0e74ddfc791391cc",
  CLAIM_FILES: "f5745ca347e86715faebfd2ecafb6ac7b8e0f8e4",
  LEAVE_ROOM: "21ac51285455b453512891e75d63d937ae6690bb",
  LIST_CLAIMS: "210be6767ba340a1807564f9111deefe6c25bab7",
  RELEASE_FILES: "4169021ada68c53e808c12e0510c9c3267e22986",
  ROOM_STATE: "3dde160dc664f41679ba2de174fbb75b71c619ba",
  ANALYTICS_LOG: "bee445a60deef79a15638a1ef87d243a2b1d1eac",
  DECIDE_REVIEW: "ea776a2e3531494d681c3910dc53aa511b809dc3",
  LIST_REVIEWS: "ce8a23274b82e9b447e238a12c8fdb4cfde68517",
  REQUEST_REVIEW: "29d5f3ad5af1be4fb302d3f36f93c33b4154cab6",
  SEARCH: "2ab4c5fb30cb95aaac0a2612a298e4051c11a54a",
  CREATE_WEBHOOK: "1067ea11cd01b54ea23868cf8ac29d54623801fa",
  LIST_WEBHOOKS: "8884ffa373f91f9b84b36eb210502a209306053c",
  DELETE_WEBHOOK: "bdac0244ae7962d9cdeb4e00b952e60cf3a11810",
  WEBHOOK_DELIVERIES: "172c239180d43d635da3cf4ab144069e8392f900",
  LOG_TEST_DELIVERY: "8f9b9c342e3383d6b0d38460d3442e0e268439c6",
  BRIDGE: "ccd8ff1248ce7405f61a8651da69585bfddc7fb9",
  DRIVER_ACT: "a93d43c89455abcbee61699af5ebe514a8cd45af",
  GET_DRIVER: "f83a535556d7fac5843bd889c564450febabd36d",
  RELEASE_DRIVER: "26571421f93f4f4be2acd215edce7eb905f22945",
  ROOM_DETAILS: "c532488f3fa2d25cda65bdaf45f1984fe3790b7e",
  TAKE_DRIVER: "f636a9b94f2b4b0c03533f7696147310411630e0",
  DECIDE_APPROVAL: "bf0f9a9bf57c1ae0fd1d7cbe1a57d4e35f22bd44",
  GET_APPROVAL: "da366ff237fc927cb19358f6597234a5f9d394ca",
  LIST_APPROVALS: "4d8373171e7191a5f5a027dc71068ab15063d758",
  LIST_VERDICTS: "f65c76eddaadfcc7fa6cd0609c0dd268fd5ecf5d",
  RECORD_VERDICT: "a80a626f5621c7d3dc4f40556844ae2206cebc86",
  REQUEST_APPROVAL: "f203dc6b8e2987a78da869f1fef31be8ec44cf96",
  ACCEPT_HANDOFF: "ef4759c8125780690819334920ae373c5942f7e8",
  CANCEL_HANDOFF: "dcfba13d1b66a16b40a4ad9ee96a26349b2dd11d",
  DECLINE_HANDOFF: "aa8825f6fe12e8420ccd1b97e6013aae564e9e64",
  LIST_HANDOFFS: "560269c606f3fc3aa26691bd543433ba4059bd72",
  OFFER_HANDOFF: "92baf7f04336b5beacb43a4039e3d6809767bc7b",
  FORK_SOURCE: "c411f02328aab75f88d1352b8448feac55b949a5",
  FORK_WRITE: "cbb5d6905836c7021fa4e952239f99e16bbcfffb",
  EXPORT_LOG: "4849b5a70f9c9080003617997a02cca40d019e23",
  EXPORT_ROOM: "38411ee050d7795bafefcc2487a5836bf9eb7b2e",
  IMPORT_WRITE: "8807301870b1c9a63cfb25859f6353199160784f",
  RESOLVE_INVITE: "98582a7b89453f9a2fdce7778604e3d49d73331b",
  ROOM_INFO: "3e9cd6853a707f63dadc12d24f55dcdf4611e22d",
  ROOM_STATS: "4239ae62dbda8a0ea27416622afe229833eef2bf",
  ROOM_SUMMARY: "9dee0ce59b9231f41fb29cb3dda15267253d7c3e",
  CLAIM_DELIVERIES: "02b8e174d835f3d8128d74126229c449f5fc2430",
  RECORD_DELIVERY: "df0730eaed862eabfbfc7c3dae5eb8eb32cb1504",
  CONSUME_RATE: "422b48b1bda8168e33c855c84db260602d6fe7a9",
  CREATE_KEY: "9496ca2122cfef7ed2af48bcdd07990e4fe3239e",
  DELETE_KEY: "cb284fa73a4619e3d983c5eea0a8bfb1858482ab",
  LIST_KEYS: "739bd898b19be475f0aa7231bfc66594d016199c",
  PROVISION_TEAM: "d309897d782d73103dbe528e20c20de07dbe2086",
  RESERVE_ROOM: "62b6a21a8ec5ac136591efd795b2212b596c1c3e",
  ROTATE_KEY: "53ecaa87b72f028a704022bd310ab5311e342bb0",
  RESOLVE_KEY: "3d625f2e5d99375d75be6cfc0ccc748a73cae001",
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
  LIST_SUSPENSIONS: "953cb70f997ceaedf3e86aa4512230b9aa33a076",
  RESUME_AGENT: "647c2a530735eb581cfb91c1247e5564ad3abf9b",
  SUSPEND_AGENT: "d61a6e200abf914368a8710914f380300a97f923",
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
