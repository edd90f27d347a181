/**
 * Pins the SHA1 of every script: EVALSHA addresses scripts by it, so an edit must be deliberate. After changing
 * a script, update its line here (and nothing else needs to change: the SHA is computed at module load).
 */
import { expect, test } from "bun:test";
import { FEED_SCRIPTS, SCRIPTS } from "./scripts.ts";

const PINNED: Record<string, string> = {
  ADD_DEPENDENCY: "e256409647e2403968d3247c54a3c08af0ee908f",
  ADD_TASK: "b96d8790cbd4c5ec1414fbc11b593b9bf6f8d0b3",
  DELETE_TASK: "ffd5f517dab1e9cf235ee36a7447d59cefd6e496",
  GET_TASK: "f513b8dd9ad1492f07fba54414785ad33301c4f0",
  READ_PLAN: "9c465948a23761a4d8293482bfdf7465bf4f60ec",
  SEED_ROOM: "f132e155d4b83388e34fafed64fc7161d9573552",
  SUMMARY: "e05d3478ff2643697bbd6c141080e7e252b5c8e8",
  UPDATE_TASK: "67332a7166e6a3dd833507c67244fe15f7a30fa1",
  CLAIM_TASK: "8c6bc34f75d57dcc3fa5e35fb7a0992b6952b054",
  RENEW_LEASE: "64a7409cf84b2975d8f25a8789f4bf94908dab51",
  CONTEXT_HISTORY: "db4be16788a780a3c9e0ffc8ede42379bab1084c",
  CONTEXT_VERSIONS: "0e52c41b446722618df1ae33cb435310fab42f58",
  DELETE_CONTEXT: "a34be19efc7678b90d90f933c2972b3d6f16a766",
  LIST_CONTEXT: "7aeaab1c83483988da5688f113751cf9f959f0dc",
  READ_CONTEXT: "39dc00acbfd920f72d9b4324593425b9b92ba5a1",
  UPDATE_CONTEXT: "4a13de868e4077b26668db794d73b4397a021280",
  WRITE_CONTEXT: "651086477196e7a81614b2f7584aae77af373ce0",
  CONSUME_EVENTS: "135e5424cc038c0818b35ac7b5ddd8345b0c715e",
  DELETE_EVENT: "40528e43a49f1c683e30dff0732e48b42482370e",
  GET_EVENT_READS: "c42e3c8aa4f57a89d5885f17a06b7bcc41cbdc90",
  MARK_EVENT_READ: "ac2f180377c2e0da25074596fa105d63ca6bd305",
  POST_EVENT: "26577d26e59bdedcd6cddd97dc29106c5eeac35e",
  READ_EVENTS: "c781b5b6bf4587c931fce8221fcb6f386c072767",
  READ_LOG: "73e194a1451b932983bb49cbeffad593f760c099",
  ACQUIRE_LOCK: "895a972b125ef323d0ddcc5aa763e576915046bf",
  GET_PRESENCE: "a418430c2820fa90d0ab4967738ba37a2c733a10",
  GET_VAR: "00370647ae158dffc73367e93f9c2a7593d955bd",
  HEARTBEAT: "60084d2cc7f18de4b3045f913acbd75d8f85e123",
  LIST_LOCKS: "94de3e88a8a824862cb7d04c83e918afe71f7ac2",
  LIST_VARS: "157159c6e2e7151e42bb1d29356e9f58fe012dc0",
  RELEASE_LOCK: "6a134058c7a92d72b47aa462e239072a9b8905a6",
  SET_VAR: "3ba6e2a288c97ed3661908272157ca5a22603d6b",
  CREATE_INVITE: "7322ee2518a78f7ada356f64f454c43e9523a106",
  CREATE_ROOM: "46bc41d8a9ddf6055a5973176334edb78562368e",
  DELETE_INVITE: "36ed10f51e48b448662c419823971f7c6eeec5c7",
  DELETE_ROOM: "cfce3541940420ec91219ce3cfef095bdfce21c4",
  LIST_INVITES: "76800d13736b6c927e711538d375724ff066d34d",
  BROADCAST: "f9fec42d05ee715425f1c4f6cbe2b1204cfba351",
  CLAIM_FILES: "917cff2f0882510dd734202bd596c8a2456f0721",
  LEAVE_ROOM: "c4baf2134cfa81b94ce6bdaf7c89a0cb8969eaa1",
  LIST_CLAIMS: "dce74d058a1af093e2054c3a94c976b0ec7b37c5",
  RELEASE_FILES: "827f423497311766316770e424236513ebd3100f",
  ROOM_STATE: "14d3df90ffe96cc4ca4f3937fdeec4acf2eca995",
  ANALYTICS_LOG: "3f3c9a07b822a47990910d4fd5891601fc001e99",
  DECIDE_REVIEW: "439821712f247db6f0f162798dd2f422c7ca7e6e",
  LIST_REVIEWS: "a59a73354edf16554db2d763800613f6bedb6eb9",
  REQUEST_REVIEW: "a03b7e39e6e19f8eb8b3addc4d2880f9218af23a",
  SEARCH: "f764489d35fc13ded308a71f47d5e4d98bb389ab",
  CREATE_WEBHOOK: "d54b6dde43a891712278d8aff239ef29f0949acb",
  LIST_WEBHOOKS: "4882d3d83aff1a59885388b95683f84ff51d47da",
  DELETE_WEBHOOK: "d4658d68728ec9268e125beacfa061e7cbd68381",
  WEBHOOK_DELIVERIES: "9941cd2d2ec5f2ae45bf45d03dec3c3610066332",
  LOG_TEST_DELIVERY: "24fec49ba449230602ca36dfa1f273aab55e9cdf",
  RESOLVE_INVITE: "6ff071677d2ce27c431b57444399bc453d033544",
  ROOM_INFO: "2ca795f4af8d9972e6ee3776823fb75406554059",
  ROOM_STATS: "4e0be7d3e8afbbf6c248e84122f84d2018ff3cab",
  ROOM_SUMMARY: "e5ebd99acb2553f4dd71192abdff2389e80dd618",
  CLAIM_DELIVERIES: "10f57ba5ebb34bcf8351c5251d36b12bfa2fdba1",
  RECORD_DELIVERY: "ecf36a673533e643f06eccdabe11dbac26bdf8de",
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
  // and record, and 3 scripts of the rooms-with-webhooks index.
  expect(Object.keys(SCRIPTS)).toHaveLength(24 + 11 + 9 + 6 + 3 + 8 + 5 + 2 + 3);
});
