/**
 * Pins the SHA1 of every script: EVALSHA addresses scripts by it, so an edit must be deliberate. After changing
 * a script, update its line here (and nothing else needs to change: the SHA is computed at module load).
 */
import { expect, test } from "bun:test";
import { FEED_SCRIPTS, SCRIPTS } from "./scripts.ts";

const PINNED: Record<string, string> = {
  ADD_DEPENDENCY: "58b845ae446412e8541a522badee581b6091e898",
  ADD_TASK: "26127b7e9095c141332cb5692dc56274f4fd71cc",
  DELETE_TASK: "dc808e4c923cbf55404ff8811eed739c80852d76",
  GET_TASK: "e5bf002c635d464e8a2aa6bba2aec7435e88989c",
  READ_PLAN: "9675c1574a7c7d62eafa8db5856c7d2203d374a3",
  SEED_ROOM: "d23f9e61c8db11521173a07320b11a82224d5fba",
  SUMMARY: "f86fa5a1b555970f60505716660a8e54e5aaba9e",
  UPDATE_TASK: "3b9916dda74cb7529b98dbacaa32ad76788a3ada",
  CLAIM_TASK: "6e02d4cb8c89b8c79d1d870464eff25ed5478dd8",
  RENEW_LEASE: "0599a6dfc60480e4c6307e15180090ccc50874c9",
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
  LEAVE_ROOM: "6dbb4dfb34a4b7ca4d553e352fa210076552b09c",
  LIST_CLAIMS: "f7918cd3fce039d09e8497a6f7933c08707be52c",
  RELEASE_FILES: "c24990cc84539ea1ab9a3ac3b7b48c20f99a4c6c",
  ROOM_STATE: "9bf5115c7d5ede09f43ce4d2e6fef9e8d3dd6044",
  ANALYTICS_LOG: "2c6115bbf81cf6cccbd1a6ae619f3b5dd2bb32b2",
  DECIDE_REVIEW: "41d80d6b27617ddfdbe24ad139434b7f9d6c5f78",
  LIST_REVIEWS: "6ef0f2c706594b838619a8b72404a1276edf77ae",
  REQUEST_REVIEW: "cce27e969c948152095f2de9eb4b32a3bf881110",
  SEARCH: "5371c50bd690bef3722f209bceaa1a8227979062",
  CREATE_WEBHOOK: "ada74e2a33f742d0fbfa53fe0cd5d3281af39a1b",
  LIST_WEBHOOKS: "2b1eb93a1564aae11b7825fde5cb1151860d18c8",
  DELETE_WEBHOOK: "aeb8a2a2a55e3640cf8f019712d5109f38c4e069",
  WEBHOOK_DELIVERIES: "365b1cb7a89fa7f5a20e9ee8b9ba854f0d84161a",
  LOG_TEST_DELIVERY: "6c0d8336ccb0ec5f39eb2fafd7b2d9ba2f6a3d9e",
  BRIDGE: "337bccb800edb52441990d7836bcc5aef7482420",
  DRIVER_ACT: "dd68ba9228e279c012461a3266d54347e12562e4",
  GET_DRIVER: "b4cc6b9b8a5e90974a0c4523e2d0654e9035f4ad",
  RELEASE_DRIVER: "62d83cf2e75ef85e8b955382200f90f1dc4ac8b6",
  ROOM_DETAILS: "0016ce65b032817ab76410838f6906166d6fd396",
  TAKE_DRIVER: "56595a16256564ecba6a9aecae9cb54d93728faa",
  DECIDE_APPROVAL: "274bc6c03ff29a9cb7b5f09e77869f2f0114aa2d",
  GET_APPROVAL: "3b4360fbf595853301a261f0582bb156ebd5620d",
  LIST_APPROVALS: "daf37d255f8b302bf834caeb532060a63c42e93b",
  LIST_VERDICTS: "3932474b453b47d621242edc3329853f6ceb20b8",
  RECORD_VERDICT: "0e29f8756d6fc12db6234eb512c90eaf188962b3",
  REQUEST_APPROVAL: "657703d2d63af402ea22f7679bb7e5d10b0fbd96",
  ACCEPT_HANDOFF: "d425660778d27f62a4121a72429bbeb6e2ab03ce",
  CANCEL_HANDOFF: "140cf6707e25f57904ac0c0a94aace28dea73fda",
  DECLINE_HANDOFF: "ae563586106716f9c75d86e6f80d70439526b3a1",
  LIST_HANDOFFS: "914f07f437fd86bef649ecf76ae59d2e2230c0e1",
  OFFER_HANDOFF: "0e705493d178a4fc85d0f67e47bb1c96e7e6123d",
  FORK_SOURCE: "23e6e8bcd86813200ef93bc101b392f4f1fa0a3d",
  FORK_WRITE: "62bdc0325968841a2c1c7308d167534ae6d9de27",
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
