/**
 * Pins the SHA1 of every script: EVALSHA addresses scripts by it, so an edit must be deliberate. After changing
 * a script, update its line here (and nothing else needs to change: the SHA is computed at module load).
 */
import { expect, test } from "bun:test";
import { FEED_SCRIPTS, SCRIPTS } from "./scripts.ts";

const PINNED: Record<string, string> = {
  ADD_DEPENDENCY: "0a7fce13b68134fc13e0f8723cc3c688a94febf2",
  ADD_TASK: "a9a25ad3fc2baadc67978a584ccb407729d094c6",
  DELETE_TASK: "9f37fba6af2fb25471599a0625f88d38c97da076",
  GET_TASK: "4c5d1da6abb85e0a05844e4a9b0fa33a2511e710",
  READ_PLAN: "a70ea8e0d976e054a509688bd543b6769122c404",
  SEED_ROOM: "2b38bd2026552f44cde8d09c08cbb80c2819fde8",
  SUMMARY: "de6aa5f89bc46932a022da71ac60f40e2c8614fd",
  UPDATE_TASK: "6bbc98b342915d9f0b81094dbd2c8ac672e38292",
  CLAIM_TASK: "cbf68490e7896e694c2c1e168f6dd48f4fbbbfab",
  RENEW_LEASE: "6a819b75c5dbfd4591e76cab13e556f1fda45d33",
  CONTEXT_HISTORY: "dafb15cab7b052faab4ca38be7b68bfe84536065",
  CONTEXT_VERSIONS: "8fe29cbdf7b883d7b253d995029c9eca7d8ca743",
  DELETE_CONTEXT: "109e066bc752dd873918c7117e0bcf250ccfd4b7",
  LIST_CONTEXT: "0e88ca8a919d42fdb9625ccecb5adf03269e74dd",
  READ_CONTEXT: "ef55f7d6c5d20422a0efd62993eba17946913c7d",
  UPDATE_CONTEXT: "39e7373bf4066081330b74a38cdc658f62a9c190",
  WRITE_CONTEXT: "5f4e81e6c5d14a742b7701b7d8d09662e65d255a",
  CONSUME_EVENTS: "087f07876e506ab590b45fd5e9c5954a819d5dd0",
  DELETE_EVENT: "1e922538c1bab0ceabc92720c345c38b9ed316a8",
  GET_EVENT_READS: "af80c23ff4ac17c04242e4d7cf957b8a66b36e1a",
  MARK_EVENT_READ: "b437af4bfe100bbbabe6f01a8266610dc33dfe56",
  POST_EVENT: "91c1cffcebfb54a7cc15a3232d9a3be24715c4c1",
  READ_EVENTS: "5763aff1fbbdcf272ce94713dd287de718e17e7a",
  READ_LOG: "498ee751fbaeb88cad705323950a747f02e736ad",
  ACQUIRE_LOCK: "a5a2615c3708d560dd4eb0121107720eb4601303",
  GET_PRESENCE: "209fe4757d521edf0aa0633af763b7cf2f78103a",
  GET_VAR: "d169e5318a1f07d509a5516504262b37def2d775",
  READ_VALUES: "a29a4333cd47d719afe72ab1d8cba9ce9aede033",
  WRITE_VALUE: "1ad46eb93ea998556a37136927f13df492097a9c",
  HEARTBEAT: "77adb9d2a3ab606111438bc56d64c08503a97e4b",
  LIST_LOCKS: "7d6768d4dc149d36e6e856df11583d9a73defa39",
  LIST_VARS: "e0f9f789b1ef6e8100beb4d2558a261ee6409c10",
  RELEASE_LOCK: "bbf481a527c9e370b93c6959bc352c9a34718429",
  SET_VAR: "a787b464205dfe0c78e37adf5155f8a3ee3ee9a7",
  CREATE_INVITE: "5333fd1ea0c258601729daa4fe1c5f870e48946e",
  CREATE_ROOM: "12ea7967fe71b6036ceae7bdc875ccaf3f697f2f",
  DELETE_INVITE: "51e895273f9a88864d2aea510c7ddbc1e7d1e51f",
  DELETE_IDLE_ROOM: "fe9632f709cdf5e3233a41575cad45ca7ab6008d",
  DELETE_ROOM: "8faa14f50cc7b5cee79064d436310edd767692d2",
  LIST_INVITES: "d9e8b17fd86f598b6dfe23c1459e37c517f320e4",
  BROADCAST: "217ce07885bb6fa7d49caa45034134ea7d40dad7",
  CLAIM_FILES: "f2a2d9cbc783a1673526c48e9a9a47e0462167cc",
  LEAVE_ROOM: "322d1b6f9e18c47447dd6061a8531a7a4bb9d3a3",
  LIST_CLAIMS: "adf2a2e02c0c344496bc05857567af784531d6ce",
  RELEASE_FILES: "1890394a9505d7079884203f588a248ec1de9c50",
  ROOM_STATE: "a461650eeecf419e87f90afa3f2b7cf09c675f0f",
  ANALYTICS_LOG: "6a1e54c8770cef408dd7bd9d0f85773d5ee35cc6",
  DECIDE_REVIEW: "246dbc96fd88d54562b8e059eb331116b7011924",
  LIST_REVIEWS: "55b48ba8d6e7a41ac664ce7256afd1121c74e901",
  REQUEST_REVIEW: "66f2e04541cc4e4177a2244fb3d83f7b9890400a",
  SEARCH: "dbde2e09749cb509144d46d7474df6b2cf12444f",
  CREATE_WEBHOOK: "d1709b146ccee73009c8a349b15ee50833fc0ad0",
  LIST_WEBHOOKS: "5c805214d6a040a07452f378c237165ccf6d77aa",
  DELETE_WEBHOOK: "53d6fe3a915645eb648539871e679aa49c8d1fa3",
  WEBHOOK_DELIVERIES: "15b877fdac2641877f4fa9b1cea9c2f03cc42284",
  LOG_TEST_DELIVERY: "5a05c46d7f51fdeecfa5ecb83df601175046ce3d",
  BRIDGE: "279fa89baf866e6b48eeddd589c6a05ea759e25b",
  DRIVER_ACT: "c8e9b5d0da74eeb341769626252bffbd05f79c57",
  GET_DRIVER: "8a1c86cda91fe04bac4ee6089a636feb0af3c65c",
  RELEASE_DRIVER: "01d62918a8d06f64c3e5a17626073d2be64c2cc8",
  ROOM_DETAILS: "6e5381aec518fe768a1c3d54cd74ce7bfb93ed07",
  TAKE_DRIVER: "8609f6fc584fe9f74f3eabca48ae726877b0f6ea",
  DECIDE_APPROVAL: "f68a07c5781a4585bbdb1521ae3d9eca9d82af1f",
  GET_APPROVAL: "5bcd392b5924fd4bfcfee28fff42383022a1746b",
  LIST_APPROVALS: "2f500c5f579c7cc867aa59012e6a7ddb91e08e87",
  LIST_VERDICTS: "c8c3670401e42cb3add9991e57aceeb58c607490",
  RECORD_VERDICT: "a0452b69f5b6ea60f8e5929e0987583b316bde19",
  REQUEST_APPROVAL: "c6b363adb280a02da26e84ed2c443ed624ea14d8",
  ACCEPT_HANDOFF: "4a801f95c5b0e675f4bf2f78076914a2d4c4190c",
  CANCEL_HANDOFF: "a4df4147d9f18e912576bb92c2708b1ed2876ea2",
  DECLINE_HANDOFF: "16ba21d82eb49081b9ebd14a7049a25535e9c0e9",
  LIST_HANDOFFS: "2b38bb5945a3ade0d34aa5e239eb49b39ff6ab5f",
  OFFER_HANDOFF: "3e4a7850cc7dc845455b09d7a69c350255ca6753",
  FORK_SOURCE: "cd3dca22551135e4fcfb3e773cfb85525ca2b506",
  FORK_WRITE: "63b33a49a22f35bc97fb7252397595c151ee3149",
  EXPORT_LOG: "873bbb6f15f8cf6a8e6901405312c679c29fa25d",
  EXPORT_ROOM: "87af4d28aabf0244220b0b581b7c4ec617833d1c",
  IMPORT_WRITE: "d662724f3b14714f3b27a786ea56b08a76507bff",
  RESOLVE_INVITE: "39bd92db839d6a605d89dd1926c6e598189e75d3",
  ROOM_INFO: "b4ca4f47540d755e3499fa66b59e2978e6612839",
  ROOM_STATS: "deefc304a352a04b82350e3a6ee23dc6ae0c10d9",
  ROOM_SUMMARY: "55d86f0f10086a7257cfa29d8dfc51af27cb60ef",
  CLAIM_DELIVERIES: "6b6073b0341d27612a11709ad776c5b2b8deda0f",
  RECORD_DELIVERY: "3806546bf85517a25622b20729ba5059bb05b0e6",
  CONSUME_RATE: "4f0cd396e3e71b3e3a5e4975610e6fbfd021a773",
  CREATE_KEY: "b2367613bdf22772e848802877af970c22454493",
  DELETE_KEY: "54e054c1eeb46622053c73ab714b1b4d8e9bfb0c",
  LIST_KEYS: "3ce55f17f6c67839cccc3ba188f0983d9deceb33",
  PROVISION_TEAM: "b7dc5aab7a347456fdfb1ad47b41330a1a5ebf15",
  RESERVE_ROOM: "62b6a21a8ec5ac136591efd795b2212b596c1c3e",
  RESOLVE_KEY: "79fa55f259860cd0e6cac6fea25c01b3bd0d41c1",
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
  // of the teams index; 2 of a room's small values (READ_VALUES, WRITE_VALUE); 5 of OAuth grants (create, exchange,
  // resolve, list, revoke).
  expect(Object.keys(SCRIPTS)).toHaveLength(
    24 + 11 + 10 + 6 + 3 + 8 + 5 + 2 + 3 + 17 + 2 + 3 + 3 + 2 + 2 + 5,
  );
});
