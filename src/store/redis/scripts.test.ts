/**
 * Pins the SHA1 of every script: EVALSHA addresses scripts by it, so an edit must be deliberate. After changing
 * a script, update its line here (and nothing else needs to change: the SHA is computed at module load).
 */
import { expect, test } from "bun:test";
import { FEED_SCRIPTS, SCRIPTS } from "./scripts.ts";

const PINNED: Record<string, string> = {
  ADD_DEPENDENCY: "b54358878ef51e005322a1bba87b658cd99f92cf",
  ADD_TASK: "f07b5abf98c87d29b756baa6bf5da085f10b34aa",
  DELETE_TASK: "b5e1f7d391dfe37268f827da149c727812fb217e",
  GET_TASK: "6d3edbac62b9713687816a9183a78a606e0f6af5",
  READ_PLAN: "606e5219c84182578cc9cab24898789dc8e2ba4f",
  SEED_ROOM: "924734a775514c4cd7c9d25084d87f5bc02f2bb2",
  SUMMARY: "efa0414668e1f6ce74fd55e8ba6e7027a7cf65a4",
  UPDATE_TASK: "6b5b905c7a96a300d9251c54b699e126b51d07aa",
  CLAIM_TASK: "56c5e545993efb195bdff05e579e2b20158f38bc",
  RENEW_LEASE: "8b7f6b4c5335871ad8e691e76fbcc74fde00e611",
  CONTEXT_HISTORY: "73873fe8a2d6e58f62130527fa6346f7cbf1abde",
  CONTEXT_VERSIONS: "a4789ac6d730fa6e7c7b3354a6bce92169a3ae1c",
  DELETE_CONTEXT: "6187c8ee07f03cc98de88bd7216b2a2b450c9a18",
  LIST_CONTEXT: "5f621c5a4b07200bbf4a72064d7e0d5fbb054131",
  READ_CONTEXT: "39001c717193f1a660d5fa0ff5336f3ea6599304",
  UPDATE_CONTEXT: "4a44d6eb19dd948387e3832b88265f2f0e7e2281",
  WRITE_CONTEXT: "c30af7de90b33763d24ca599513873658a44d675",
  CONSUME_EVENTS: "d55f87afc8fcff04dfce466bded458aa3c30ea10",
  DELETE_EVENT: "52643fbd1a41ff89ced6740b5b9608a78de557f9",
  GET_EVENT_READS: "8309261b8ba20da56163a4cd48f87c97ad0cbd2c",
  MARK_EVENT_READ: "9c5a2ccebe33fd3ac841735fc4651d2f0245de11",
  POST_EVENT: "393d65516f5ac609a5c0da89e5f6304d3c30f926",
  READ_EVENTS: "56d91297191f98723c1be42d902c07f45ac63a33",
  READ_LOG: "1e1422a48169450b642c661597608c1da7321ed2",
  ACQUIRE_LOCK: "4c97d077ed1d8c3524bf4e8a0f60360a5f0bccca",
  GET_PRESENCE: "ccc3e753dc7d80bd3373419c90867181ec92c597",
  GET_VAR: "51d5d53db86105ba7d285789937a0fd19331eacb",
  HEARTBEAT: "bceb75bb0ef0ad36fa1ab4dbf6235adb2842fe96",
  LIST_LOCKS: "6aa49e6f04b5280c87253dff379abd9e8d1f8ac8",
  LIST_VARS: "9daf38fc7394f44b51c3b38fb27813ab832bda55",
  RELEASE_LOCK: "66a77d7919b264186baea11363be819765b58ed7",
  SET_VAR: "5c057418a5ab49bfc6839f9582761326aabc3801",
  CREATE_INVITE: "f0c3bba9d9d6754c5a82d65151f23b8b8d9dd97a",
  CREATE_ROOM: "b55e6183a01c7cfb312ef8cb8505dde6c5646812",
  DELETE_INVITE: "aa70a3c33f314540a9acf97ee182085f875e14bb",
  DELETE_ROOM: "90ea43d0da5a0fd63dbefc061ada359a584e9a59",
  LIST_INVITES: "66fe1bc340005ebd3b053e52b3a1ea3ee92336a1",
  BROADCAST: "928a89165c7185822304a45bb8e2820003d294a0",
  CLAIM_FILES: "659f4cae32036416388231f0ddf83f0476e14c41",
  LEAVE_ROOM: "d3f04579c5807c9364e8c0c3f1227c6e00356eaa",
  LIST_CLAIMS: "099f650583e5287c000c9f3fa31ce2bcb3929752",
  RELEASE_FILES: "8bbf93cd92737861b37534199b09836017468f80",
  ROOM_STATE: "378ecb9bcad7b6685dd31c83fbc26fd0262daa0a",
  ANALYTICS_LOG: "4c55094a6b2b1a727c09b387880a01db77ddc3a5",
  DECIDE_REVIEW: "08fabd9f584870338b0b7a72058c4cc705cce622",
  LIST_REVIEWS: "49c5f7b741d56bae52d04bd9e949b18d5a091853",
  REQUEST_REVIEW: "cf3d828bad22cce40fdfd48c33ed9eb497e3587b",
  SEARCH: "203ba52f1ff048da26160347770684d9a685f20a",
  CREATE_WEBHOOK: "ca56087a942678b228f06fbc6720976cf03123b6",
  LIST_WEBHOOKS: "e97e04de148d8259573e9c0cb9945ab65a29dc91",
  DELETE_WEBHOOK: "186528eaaec25fa7470393116160d25b73bf1c91",
  WEBHOOK_DELIVERIES: "245a1a990d37975cc75d6977e61b43550a534b82",
  LOG_TEST_DELIVERY: "3f65be6dc034ebaa5e801ca42e51d504870181c3",
  BRIDGE: "f7ec7846a27d8d9a1cd8894da973167873fe29b7",
  DRIVER_ACT: "6a1536e3c7c4aab7f31bae443174b3756d88bff1",
  GET_DRIVER: "eda8075f597071df07d6e9a55e15c302a5db00ee",
  RELEASE_DRIVER: "2739173c823d990a56471e3494c2e558290e5eb0",
  ROOM_DETAILS: "08ab252c48e0d4cbaac7dcd6ac28731cf2fad2d4",
  TAKE_DRIVER: "f42e34a0bf72f3dc73263a74720fbbb97dcf3d70",
  DECIDE_APPROVAL: "e6a6ed3b1f589c9bb4741c38c4bc0822d4ee94cf",
  GET_APPROVAL: "8954d6c151ae43e73336a9eaf3e27b99a88630e9",
  LIST_APPROVALS: "21b44c572120850b84eefd712eeb8c1a890b2351",
  LIST_VERDICTS: "6f97dec5fb7edbb8407e5b41db513cb64a5690a9",
  RECORD_VERDICT: "f1069c3bdc6c2b489b4c23116b449792631f8f66",
  REQUEST_APPROVAL: "5b2f312f15f2d470204e962e42bd433ccec5e411",
  ACCEPT_HANDOFF: "8ccb6fcc9546303e42f510654aeaa80fcf2084c7",
  CANCEL_HANDOFF: "65d9e870358034f46d75af7acd972f1d3edc9a2e",
  DECLINE_HANDOFF: "b7758998f7adce48d2631c82e263fde404189309",
  LIST_HANDOFFS: "0ff36d4df5c894b529055844b5a4dbb53a3d3d2f",
  OFFER_HANDOFF: "ec9d963871ffe2e5893237bf4d352f37944711b1",
  FORK_SOURCE: "0bf548cd81320e2b971b4c9d8eb2eac26e247542",
  FORK_WRITE: "c253c780bcfcbf16fb00351d68ee2715d2d175b1",
  RESOLVE_INVITE: "33abc7b2e36032deb33dba90a2c1cecfbc5e87eb",
  ROOM_INFO: "5fbc6ed374532c09f825e58e2cd2842903ed05b1",
  ROOM_STATS: "8589f2130ef744cfad612c9aa52e77993ad6e673",
  ROOM_SUMMARY: "907bae5730aad60b22f1a304cdaaf8d35bc0ecf3",
  CLAIM_DELIVERIES: "fc0894ae5aeaa3cb47357ba23fc5b673179f1cc2",
  RECORD_DELIVERY: "ca01199496742dfbb3fe35a894b2b95717983607",
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
