/**
 * Pins the SHA1 of every script: EVALSHA addresses scripts by it, so an edit must be deliberate. After changing
 * a script, update its line here (and nothing else needs to change: the SHA is computed at module load).
 */
import { expect, test } from "bun:test";
import { FEED_SCRIPTS, SCRIPTS } from "./scripts.ts";

const PINNED: Record<string, string> = {
  ADD_DEPENDENCY: "e28075756c8b854d2b2380a404104a0ef41bf09e",
  ADD_TASK: "7338f26533bd0f00f5fe2be7c11347998a775b5b",
  DELETE_TASK: "040afc087131150777cd3c03d77a3080e4e5d505",
  GET_TASK: "12486d3cdaf1b7a12a780aa3f042b18d3c584f90",
  READ_PLAN: "be347286d05e42096fd9e4c928fc000e35158a4d",
  SEED_ROOM: "e8307a4f3c4dc09a94cf0d98abf167b30a892b31",
  SUMMARY: "cb5ad3c6c88749785b0fc1566dc0548cab20402d",
  UPDATE_TASK: "481573c91dc4db2734cd54bfdffddd4434ea9a40",
  CLAIM_TASK: "ed68f931c33a17b02bda1356aa69c12036441e39",
  RENEW_LEASE: "aedbe318a10ed853eb29f4dbbb9f0a23b1f6a541",
  CONTEXT_HISTORY: "54b89946c1bf432c3b0d55194955527c7017633f",
  CONTEXT_VERSIONS: "ae308b0f780eb246213d2e6f40d82e37764570c8",
  DELETE_CONTEXT: "d9e1742fb64d35f6ec48d5840b75ce5fd9c8385a",
  LIST_CONTEXT: "ccaf2e76e34442b4baf5b53b500f3cd2dbcb0fc9",
  READ_CONTEXT: "6f0feb163635b90d441634ae47f95eb85e1e6229",
  UPDATE_CONTEXT: "f8a5955b0d5779753dccb1807525db3b4e248e62",
  WRITE_CONTEXT: "8c98394567ba11a3d80c08a9d77dbf067c13e3fd",
  CONSUME_EVENTS: "726b86001a0603daee42abfa2adfac63a5a5ce21",
  DELETE_EVENT: "98b2c2d3898fd7291e6c72a110dd3ea1b2e92e1e",
  GET_EVENT_READS: "81ebce52d53db246e61d871a627dc88e2139357d",
  MARK_EVENT_READ: "d5c0a6a5cb816732d86a206e0c13624f0d340d85",
  POST_EVENT: "4b96ffa48ca9ee5d181d0d8dbee8072cd07cf62b",
  READ_EVENTS: "59592d99a75a392211e9c6ee5c00f0a782300d72",
  READ_LOG: "0b876878a1a0306a54f2c6c4c165fe2e85c6cd6f",
  ACQUIRE_LOCK: "164c9c4471b88d83687c86cff0cb3a4eb2b63d23",
  GET_PRESENCE: "2ce35353b27d901ef1201de95a9e625c9fddac94",
  GET_VAR: "bcc5a5835ee10f85f0db93060fbf9c04c24f9a79",
  HEARTBEAT: "49f1ebf30eff6bd9fbf449ac4df4e161d94a19ba",
  LIST_LOCKS: "b598bb2030e62121a39813d26b09d8b5ceb4f79b",
  LIST_VARS: "c63e99150a2cd824c923e6f3f7a2ec3b059baae6",
  RELEASE_LOCK: "1e3aaf82247fb9d3e57d10ab584fe1f65a73b095",
  SET_VAR: "50ccfe2297fa5c76f3a2aa2e9c3ad21c0d5cd5a3",
  CREATE_INVITE: "7b40a19519d77e05ccc0e58f0776ca174d95edfc",
  CREATE_ROOM: "05838ec40d800f7a6916fbb3f893dc404decdf5b",
  DELETE_INVITE: "3711bc5293b782dc4466f8ba71178a97d9b3f517",
  DELETE_ROOM: "6f24aae944e920eed7e3d7454f848ea32329e705",
  LIST_INVITES: "bcf846c42c62e9b19df10746d898886456ad9b0f",
  BROADCAST: "4c3554843ed5052dde1988aecfb457fc28514f20",
  CLAIM_FILES: "d480a0ad1e3c6ed3a77ad8c357e04e6fea6bccc0",
  LEAVE_ROOM: "d14e8408aff10ae264fad4798d56aaf802c54c3d",
  LIST_CLAIMS: "00bf91cedc73186af16165739e35e534e28cb14c",
  RELEASE_FILES: "05a7058c56bfa823018bb492ebf53102e0d8fa13",
  ROOM_STATE: "377e196166cac10f89a7646b0e5407979f1b858c",
  ANALYTICS_LOG: "90307921d8412bd5501b46cdc7f45940122775c8",
  DECIDE_REVIEW: "a0d29a846f84294d0aad0abb21c2fe1a0d208e6b",
  LIST_REVIEWS: "bafbeb174dc0902c02fbfad990c62fdf6b530b50",
  REQUEST_REVIEW: "0b76f37adce4e2cee18cfd3cd52799c9363cb701",
  SEARCH: "86275f483b2357d18756fb18b2b0bcf0f5fbc5c7",
  CREATE_WEBHOOK: "0cf3ed359a33afc955bd701a40681c731bc35f0b",
  LIST_WEBHOOKS: "2ac3b197a3973fb89c7429a274894017d674a2cb",
  DELETE_WEBHOOK: "dc4ac33a4b9ba78de9b6606a21d5b383b806d296",
  WEBHOOK_DELIVERIES: "859a5593181f7d154f2eff63b61dace8f2992ff5",
  LOG_TEST_DELIVERY: "23974b70a5287d5895a74e1ee2e591612a317b2a",
  BRIDGE: "457f730958b63649be7ea29d5377ceaffe8f2be8",
  DRIVER_ACT: "0b325e5477249b6c77d42177c4e68043a630c733",
  GET_DRIVER: "d55eff7b543a01f8661aeca80b95a3c666f2eaf1",
  RELEASE_DRIVER: "d2fa158c0dd70451d3c78706f5781070e54aacd3",
  ROOM_DETAILS: "40b9be9bb081d707501b4fb96850c3f98d132137",
  TAKE_DRIVER: "e66d316760783005d74770d35b531aae59020c8e",
  DECIDE_APPROVAL: "67e38507198ae0153c7e926d479118a3873d811b",
  GET_APPROVAL: "dd8a2fb65223e66204281c33bcdbbcc90981e5e7",
  LIST_APPROVALS: "eb4e304b5d8ccdf516cdaa676d1ac8676a5fbb71",
  LIST_VERDICTS: "22ee8aab96e63f2cc134cf65c6f70345e0315f75",
  RECORD_VERDICT: "04606a796568d9e1f3eadef45ff75db6bf63fe89",
  REQUEST_APPROVAL: "6ea17b670ab63d603b20c3a19de2a5144423309a",
  ACCEPT_HANDOFF: "e08de0a51529e4a37ce4d77bef937d792db3a811",
  CANCEL_HANDOFF: "3167276ec981471e3350bb77620ed9ef246a2fc3",
  DECLINE_HANDOFF: "f8628416509f4154522dadf1c002c764c229506a",
  LIST_HANDOFFS: "c0d349486beab82af693b65371efc859eb46faa5",
  OFFER_HANDOFF: "34c71da7ec93adef2daabcf69d6c10cb38d8e88d",
  FORK_SOURCE: "68d90c67f5de4f802fda35d8376865b2f230c947",
  FORK_WRITE: "3f419bd98e136bdf7895dcff8272b2aedf0e8941",
  RESOLVE_INVITE: "58cf7d7a041fe032442d7a7d5d89db2ee82859f6",
  ROOM_INFO: "e22affbdd4066c9393ff620009cc7b9f3a6372f2",
  ROOM_STATS: "e81933469e4ab4bf7fc0f3d5d3950f89d350d600",
  ROOM_SUMMARY: "22a5883fd0039cfce942a3baf3d63a811d47d540",
  CLAIM_DELIVERIES: "2902d9222efaa170b2091e0ca2c1b1e67d1f35f9",
  RECORD_DELIVERY: "e6f7ef0e5231c3b91de5e8c812dc36d00bfcd06d",
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
