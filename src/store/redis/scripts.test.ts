/**
 * Pins the SHA1 of every script: EVALSHA addresses scripts by it, so an edit must be deliberate. After changing
 * a script, update its line here (and nothing else needs to change: the SHA is computed at module load).
 */
import { expect, test } from "bun:test";
import { FEED_SCRIPTS, SCRIPTS } from "./scripts.ts";

const PINNED: Record<string, string> = {
  ADD_DEPENDENCY: "c93d0d330c14490df5512f883193e827827c2c0e",
  ADD_TASK: "782104cc0ad82e9ff356f5059505860240b9684c",
  DELETE_TASK: "5c4e321def8557852371d40b40e0594f4485a71c",
  GET_TASK: "79cdb8ccf2c8d7a2a5b4d13389873f15ca01ac6f",
  READ_PLAN: "b779f6b8033bd784b37147eb12c9e1545a0fa33b",
  SEED_ROOM: "e1b8ab0acc096091e5d41b158dea49c6905336ff",
  SUMMARY: "e208de44978d5dd6ecfc96b208da981d592ed95c",
  UPDATE_TASK: "2918cce881ff21678522c37b7a4de36f5a4f8133",
  CLAIM_TASK: "086babaf7e03bc5856bc5c8dc799812b72381e7a",
  RENEW_LEASE: "994916a1156bc99943626ce15f8c499934cd7f5b",
  CONTEXT_HISTORY: "a894a1129bddd271f71e43dd9e198e265b76706e",
  CONTEXT_VERSIONS: "b65328802b5883da00b66e5f3465c22b60442551",
  DELETE_CONTEXT: "a069589eb1566ee761b9fc907573cb524660bedb",
  LIST_CONTEXT: "d8d8ff0360bf41eaf3667086909faea42dd4c8b6",
  READ_CONTEXT: "2d0a6e8052739c7e336ec1b2f3d8541f2de30af4",
  UPDATE_CONTEXT: "ca66762d5b5c7abb820f8a5b1ed854e0c39b07cd",
  WRITE_CONTEXT: "2c077561b24f68014c86e1801aa0c56cf488b904",
  CONSUME_EVENTS: "a1aef71f952e10c2810e24e3e8362cd9073c8bb6",
  DELETE_EVENT: "7e40cccc2f5fdd13bbc9b75623cfaf2e73498ace",
  GET_EVENT_READS: "d1bf1234e0be8379037ff92917262422cbee1730",
  MARK_EVENT_READ: "fd8885159fc250573891c5b7c8310748f5a96690",
  POST_EVENT: "559ab5ca3028b76cf2e43311a7c381e2cd802735",
  READ_EVENTS: "547d37e4de36524082e195d9549f9f9440b3db29",
  READ_LOG: "f00144858b32796486bb06a93ae1d00d119282f8",
  ACQUIRE_LOCK: "9bbe2deb63c3dbfef58b0daed9b3e52346faa8a4",
  GET_PRESENCE: "60ee241a3a2427ad46140699ff8147416c0a7107",
  GET_VAR: "c05c22d799abd0bd6bff61f3f030fb0cebd8dfc4",
  HEARTBEAT: "3a5d451bdecaff73656cb1df804e27a190b68d77",
  LIST_LOCKS: "463f30b28cee30374d4f80654424b1ca554c644d",
  LIST_VARS: "5fdd2bba1af4240e5a3e9df45ef0097460cead5d",
  RELEASE_LOCK: "a115bb59c379d1c980019dcef5879334810858ae",
  SET_VAR: "c76d6767a7dabba446e9dc89d87bd171815b97f3",
  CREATE_INVITE: "e516e75211ee5e74061632e31424b68788c15baa",
  CREATE_ROOM: "3a1b4f9982e1235f32db3967043285eebb920dd4",
  DELETE_INVITE: "29420edcf4a0d05314cd0cdef2a9db161122dad8",
  DELETE_ROOM: "2168e1f3877d71914dfdbb84e87b4542ffbe1a39",
  LIST_INVITES: "975d28e29fa602ef663caf633297cea984641d0f",
  BROADCAST: "8aaddab0db88aca854cc3acfc83f956e9e2d808f",
  CLAIM_FILES: "d275215f0976619f6e10890df29bdfe0984ee2d8",
  LEAVE_ROOM: "0af242eb9d71c2d06cae44a7ab09f03b3a110808",
  LIST_CLAIMS: "307d2c3d0ac19a85e7c1a6f628a4242ac1751d6f",
  RELEASE_FILES: "3b32c0ae6eff136246334eb63cf6f465de326233",
  ROOM_STATE: "3edb15001c7093ee8020ac597a414a7276c03f89",
  ANALYTICS_LOG: "277021a528fdb711b6ec73796ddb2516fd9d711d",
  DECIDE_REVIEW: "c0a312f6d911dbed1149141f908db30f1243cdb0",
  LIST_REVIEWS: "9eeb5e9d816896d7661478b464e204db6cf5258f",
  REQUEST_REVIEW: "38f472ec82514c62c1b48dba108851e7cb02c13f",
  SEARCH: "85562a905584f5f1f6d627bfc9e921b100c923aa",
  CREATE_WEBHOOK: "13311e4c8aa14c3f8ae4be6c924c75a2b54c25e9",
  LIST_WEBHOOKS: "91fad29c6b1710daf6d60df26825b74d191e6757",
  DELETE_WEBHOOK: "edb7e415ff81baed49245cb47ae2782d4afc5a0b",
  WEBHOOK_DELIVERIES: "6ba2fa58a52c86170f7ea88697f144e16b34f8fb",
  LOG_TEST_DELIVERY: "3cd6d7f932b919497caf6b905dcc7da12abcd555",
  BRIDGE: "b093215e91901313cfd22e9b9f2ba75a99219823",
  DRIVER_ACT: "e72cb4caaa786ae1290639e1032bc40ba6aee89a",
  GET_DRIVER: "743638a4a7a9fad18b8d9c204c66c76292b50784",
  RELEASE_DRIVER: "7fed2a83cc5c0634b5bdaf4d9e78ad3fb6c966e3",
  ROOM_DETAILS: "0bc958d59a7bde569cf9f2edd4d683f79b4f5a73",
  TAKE_DRIVER: "e5db78944b3184f4e5ba60623564057275550c5d",
  DECIDE_APPROVAL: "1908dfe93ae438095b0e440cee0e0f1ee33baae4",
  GET_APPROVAL: "a063286a4d74cebaf894da77add41fa11e5b11ce",
  LIST_APPROVALS: "022fd90da05a331026671404c57419694ba2af63",
  LIST_VERDICTS: "55ffa446fd46096ed6671e2cde40c29bcf16a638",
  RECORD_VERDICT: "f79fd00223b710d0d358d29b2315c2afcd6a550a",
  REQUEST_APPROVAL: "e7d25843a0e4bb6ddcd45fa656fcf921a45b124c",
  ACCEPT_HANDOFF: "321d518c431a68dffddb6eb11626a24c8b8e9b3c",
  CANCEL_HANDOFF: "4d082938fe2ed0922d6431541fec040628594e74",
  DECLINE_HANDOFF: "a111a38420d33fae1b17fe82f6629a50f7a041ab",
  LIST_HANDOFFS: "b581580da6c18d123abb5036c8f3f1b57886a4eb",
  OFFER_HANDOFF: "1f85cc47f9ddf25f8087a7e33275a2c2e603d707",
  FORK_SOURCE: "4d0222cc522f4f2342ee784771fa52c505a9a369",
  FORK_WRITE: "9a08ce5f92f1bd314a7a36060b8e3f154726f4b1",
  EXPORT_LOG: "217250fb6d905813f0d6dc8a130a481f09c6d927",
  EXPORT_ROOM: "f139af4db3f2c5237c8b65269c6c583d0bfd148f",
  IMPORT_WRITE: "ee594da211652d994bf0058eb084913bf24986e7",
  RESOLVE_INVITE: "0d178b561c40f42d5b656580789704ca9b88e2df",
  ROOM_INFO: "2585ee311c495bb2cf03f81cd6ab0f1d57999c7d",
  ROOM_STATS: "334afbeff7728beb146f443ac0fc4f70a6c0b36c",
  ROOM_SUMMARY: "6c7e3ad88e9595c16efb01a730e5e7b5695b2d89",
  CLAIM_DELIVERIES: "82f4417239ac2ca6ca41748f473bea9c64590791",
  RECORD_DELIVERY: "3a2091e89f7a2e31cfb5fbc3eb35013dce09932d",
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
