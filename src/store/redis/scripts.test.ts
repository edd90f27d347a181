/**
 * Pins the SHA1 of every script: EVALSHA addresses scripts by it, so an edit must be deliberate. After changing
 * a script, update its line here (and nothing else needs to change: the SHA is computed at module load).
 */
import { expect, test } from "bun:test";
import { FEED_SCRIPTS, SCRIPTS } from "./scripts.ts";

const PINNED: Record<string, string> = {
  ADD_DEPENDENCY: "e6b6adcf29031a6fc35b62ebbb6110b4a326ecc1",
  ADD_TASK: "8623b12195b6b46b83ea7ed8d125d0b3593f3046",
  DELETE_TASK: "35e5e19151ca2815a7124c9bb29c5039f380a8c2",
  GET_TASK: "e5bf002c635d464e8a2aa6bba2aec7435e88989c",
  READ_PLAN: "9773cf17a2265170b949a8ad6f0b19dd3f038649",
  SEED_ROOM: "a809d302cae8db815a2864e6e4cdbb6daa2b3cba",
  SUMMARY: "2db068d0109ca568c07e7f5783e30d3771417ddd",
  UPDATE_TASK: "b11a83c30b012a25ae20efe4e95b9d959f090df0",
  CLAIM_TASK: "9b52241e9df2c83c20ac1cf830eb8e8b13bf6252",
  RENEW_LEASE: "6de1ba90b0ee9bdb0d39116d064b6e58108108e0",
  CONTEXT_HISTORY: "2bcdfcee8909a1dec4c6c2e4906e00215642689c",
  CONTEXT_VERSIONS: "9230e1551a0e1ddd584d36de2d87a76841ab5cd0",
  DELETE_CONTEXT: "36900bb504fed47f584a2b9bc55f51fda9bd9c09",
  LIST_CONTEXT: "156daf35b5b24a47ccd131203844447f1ea29727",
  READ_CONTEXT: "b1d00abae2aed323a5c689d9c12d936122f94cac",
  UPDATE_CONTEXT: "6231f7974eff5d60906aea91fdeda2523fcb7c62",
  WRITE_CONTEXT: "d38703dbc2ea9361f4c16d6f4468da30fc17c732",
  CONSUME_EVENTS: "382173040abae6247ebe660796b6020c2f234c75",
  DELETE_EVENT: "416272712fa5c204e73d2b11332c9e42bdcd915e",
  GET_EVENT_READS: "6b85219454dae27cfd35c915b966cfb80402582d",
  MARK_EVENT_READ: "06623fba0909b0b21f90e3b13c1c411a9fb9c6e0",
  POST_EVENT: "565a9a2c8173bcd8ac09ce8633936363743a0866",
  READ_EVENTS: "670a8c737825ba4c061183bc81b7eeecb50dd7f5",
  READ_LOG: "2cf6220001d2515131827e2c7a7cf147f4211bdf",
  ACQUIRE_LOCK: "6722f0cfc0d6654bcfb78df2935e69a314cbf45c",
  GET_PRESENCE: "9c7f15c8844697722692e54110cd606b0092a4cf",
  GET_VAR: "258e293c8990ae520323e0b7ddb5a54c4a9a4047",
  HEARTBEAT: "022353ba40e491aa7eff5b31df4cd27c7755a724",
  LIST_LOCKS: "7895f5d694a4d4fed941eed0dafc95352ce7e667",
  LIST_VARS: "4a545e78ee30d91b7a401dbbe68eafb58c631e61",
  RELEASE_LOCK: "d118b635658219cd59a6344ba60d05e04429c1ae",
  SET_VAR: "2ab6cd51640292211e285b0e441b67bff3d90070",
  CREATE_INVITE: "27c43e84dab4a1d2378fe3ddd8673269702871b8",
  CREATE_ROOM: "0c28d26f17bafd92a8477e8ec85f4699b95f9356",
  DELETE_INVITE: "092b69a80d52fe03cedbeb9ee1d35cf40fa5dffc",
  DELETE_ROOM: "0775c83777bc355376f27af2133afc9bcc4c7716",
  LIST_INVITES: "d012166879bdc4a649941b587461fced9b48f98b",
  BROADCAST: "69cf36856096cd0bcd9a60b56d58bbee53af47a0",
  CLAIM_FILES: "6ec580f6e600f800aaabf81e5bfe1c67fbd41f69",
  LEAVE_ROOM: "877edcd70cf5fadea4642b476a7a5599a8264e73",
  LIST_CLAIMS: "f7918cd3fce039d09e8497a6f7933c08707be52c",
  RELEASE_FILES: "c24990cc84539ea1ab9a3ac3b7b48c20f99a4c6c",
  ROOM_STATE: "9bf5115c7d5ede09f43ce4d2e6fef9e8d3dd6044",
  ANALYTICS_LOG: "24daf400eb903857e994737401c88e7af9ec7ec3",
  DECIDE_REVIEW: "41d80d6b27617ddfdbe24ad139434b7f9d6c5f78",
  LIST_REVIEWS: "6ef0f2c706594b838619a8b72404a1276edf77ae",
  REQUEST_REVIEW: "cce27e969c948152095f2de9eb4b32a3bf881110",
  SEARCH: "5371c50bd690bef3722f209bceaa1a8227979062",
  CREATE_WEBHOOK: "ada74e2a33f742d0fbfa53fe0cd5d3281af39a1b",
  LIST_WEBHOOKS: "2b1eb93a1564aae11b7825fde5cb1151860d18c8",
  DELETE_WEBHOOK: "aeb8a2a2a55e3640cf8f019712d5109f38c4e069",
  WEBHOOK_DELIVERIES: "365b1cb7a89fa7f5a20e9ee8b9ba854f0d84161a",
  LOG_TEST_DELIVERY: "6c0d8336ccb0ec5f39eb2fafd7b2d9ba2f6a3d9e",
  BRIDGE: "edeeff256e90458068c30e0f5e589c787dd356c9",
  DRIVER_ACT: "fdbd8fae7aac6f1a354aa7682e42288a43ab18fb",
  GET_DRIVER: "6e08aa1db06951f816691a7c808e6ba0adbb5cb5",
  RELEASE_DRIVER: "4cad039eb7b55ed84e88faf580f484d38f54cf35",
  ROOM_DETAILS: "ac8448db8dc8304ccde3861f82afb27d312aec17",
  TAKE_DRIVER: "ad0b922eae88bd72f36c2cf6b203f76b1439ee03",
  DECIDE_APPROVAL: "4390badb1745f901dfcf8707b5848337045627d3",
  GET_APPROVAL: "3b4360fbf595853301a261f0582bb156ebd5620d",
  LIST_APPROVALS: "daf37d255f8b302bf834caeb532060a63c42e93b",
  LIST_VERDICTS: "3932474b453b47d621242edc3329853f6ceb20b8",
  RECORD_VERDICT: "0e29f8756d6fc12db6234eb512c90eaf188962b3",
  REQUEST_APPROVAL: "a11c922fc3b9f70d59ba8914778474668b0ab36a",
  ACCEPT_HANDOFF: "6622a9f635cfa2a0bec5dd13d01245a7fa7a7888",
  CANCEL_HANDOFF: "3c08d523c421d1517f7e4b57cefefaff42e5f3c6",
  DECLINE_HANDOFF: "bab530059f98f9f6e5346b3845a95952d1d17fb5",
  LIST_HANDOFFS: "914f07f437fd86bef649ecf76ae59d2e2230c0e1",
  OFFER_HANDOFF: "3b06798751e6d7b3a9c3e591a55c0243a4d43d4a",
  FORK_SOURCE: "b708302488e9e2cd243c30caf9b1f8e66a56def7",
  FORK_WRITE: "86125a81b41cdaa9c515bfe84d7b89a477862d07",
  RESOLVE_INVITE: "3b243be219adb42bbba1e9e8e40a625d0e77a708",
  ROOM_INFO: "8a6155178b43fe51e49c14367ab3008d355e9acd",
  ROOM_STATS: "a501f32b97910be98f9b6fee45f4c2327676e894",
  ROOM_SUMMARY: "543396dbc9fa7819149fc9af5053ba807a5a8f23",
  CLAIM_DELIVERIES: "6f0a3f522a69e1840cc003ca5dc04a1880eede26",
  RECORD_DELIVERY: "69e1a3012b9bb1fcb5757f260a1a8e53cbeebf99",
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
  // and record, and 3 scripts of the rooms-with-webhooks index; 17 people operations and the 2 steps of a fork
  // (FORK_SOURCE, FORK_WRITE).
  expect(Object.keys(SCRIPTS)).toHaveLength(24 + 11 + 9 + 6 + 3 + 8 + 5 + 2 + 3 + 17 + 2);
});
